/*
 * security_bench.c - times the security pass alone, for profiling (never
 * a pass/fail test): every regular file under ROOT read into memory once
 * (NUL-ended, at most SFS_SECURITY_MAX_BYTES each, as the build hands
 * them), then sfs_security_scan_bytes over all of them on one thread,
 * ROUNDS times; prints each round's time and the best.
 *
 * usage: security_bench [--rounds N] ROOT
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "snapshot.h"

struct file {
	char *path, *bytes;
	size_t len;
};

static struct file *files;
static size_t nfiles, capfiles, root_len;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int load_one(const char *path, const struct stat *st, int type,
                    struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size == 0)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t max = (size_t)st->st_size < SFS_SECURITY_MAX_BYTES ?
	             (size_t)st->st_size : SFS_SECURITY_MAX_BYTES;
	char *b = malloc(max + 1);
	size_t n = b ? fread(b, 1, max, f) : 0;
	fclose(f);
	if (!b)
		return -1;
	b[n] = '\0';
	if (nfiles == capfiles) {
		capfiles = capfiles ? 2 * capfiles : 1024;
		struct file *v = realloc(files, capfiles * sizeof(*v));
		if (!v)
			return -1;
		files = v;
	}
	files[nfiles++] = (struct file){ strdup(path), b, n };
	return 0;
}

/* The skill-relative path: what follows the skill's folder, the first
 * component under ROOT. */
static const char *rel_of(const char *path)
{
	const char *r = path + root_len + 1;
	const char *slash = strchr(r, '/');
	return slash ? slash + 1 : r;
}

int main(int argc, char **argv)
{
	int rounds = 10;
	struct sfs_security *sec;

	if (argc >= 3 && strcmp(argv[1], "--rounds") == 0) {
		rounds = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: security_bench [--rounds N] ROOT\n");
		return 2;
	}
	root_len = strlen(argv[1]);
	if (nftw(argv[1], load_one, 64, FTW_PHYS) != 0 ||
	    sfs_security_new(&sec) < 0) {
		fprintf(stderr, "security_bench: cannot load %s\n", argv[1]);
		return 1;
	}
	double best = 0;
	size_t found = 0;
	for (int r = 0; r < rounds; r++) {
		struct sfs_arena arena = { 0 };
		struct sfs_diag_list diags = { .arena = &arena };
		double t0 = now_ms();
		for (size_t i = 0; i < nfiles; i++)
			if (sfs_security_scan_bytes(sec, files[i].path,
			                            rel_of(files[i].path),
			                            files[i].bytes, files[i].len,
			                            NULL, 0, &diags) < 0)
				return 1;
		double t = now_ms() - t0;
		found = diags.n;
		best = r == 0 || t < best ? t : best;
		printf("round %d: %.1f ms\n", r + 1, t);
		sfs_diag_list_free(&diags);
		sfs_arena_free(&arena);
	}
	printf("%zu files, %zu findings, best %.1f ms\n", nfiles, found, best);
	sfs_security_free(sec);
	return 0;
}
