/*
 * catalog_bench.c - times the catalog library on a corpus, for profiling
 * (never a pass/fail test): a cold build, the renderings the mount makes,
 * and a rebuild with the previous catalog after one file was touched;
 * with the resident set size after each step.
 *
 * usage: catalog_bench [--records] [--touch FILE] [--repeat N] ROOT...
 * --touch FILE: rewrites FILE's mtime (to now) before each rebuild.
 * --records: also renders every catalog/<id>.json.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skillsfs.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* VmRSS and VmHWM in KiB, from /proc/self/status. */
static void rss(long *cur, long *peak)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	*cur = *peak = -1;
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			*cur = strtol(line + 6, NULL, 10);
		else if (strncmp(line, "VmHWM:", 6) == 0)
			*peak = strtol(line + 6, NULL, 10);
	}
	if (f)
		fclose(f);
}

static void report(const char *what, double secs, const char *extra)
{
	long cur, peak;
	rss(&cur, &peak);
	printf("%-22s %8.1f ms  rss %6.1f MiB  peak %6.1f MiB  %s\n", what,
	       secs * 1e3, (double)cur / 1024, (double)peak / 1024,
	       extra ? extra : "");
}

static sfs_catalog *build(const struct sfs_config *cfg,
                          const sfs_catalog *prev, const char *what)
{
	sfs_catalog *cat = NULL;
	double t = now_s();
	int rc = sfs_catalog_build(cfg, prev, &cat);
	t = now_s() - t;
	if (rc < 0) {
		fprintf(stderr, "catalog_bench: build: %s\n", strerror(-rc));
		exit(1);
	}
	char extra[128];
	snprintf(extra, sizeof(extra), "%zu skills, %zu files hashed",
	         sfs_catalog_nskills(cat), sfs_catalog_hashed(cat));
	report(what, t, extra);
	return cat;
}

/* Renders what a generation of the mount holds; returns the bytes. */
static size_t render(const sfs_catalog *cat, bool records)
{
	struct sfs_status_info info = { .generation = 1,
	                                .refresh_mode = "inotify" };
	size_t total = 0, nrec = 0;
	char extra[128];
	double t = now_s();
	char *docs[3] = { sfs_render_index(cat), sfs_render_skills_index(cat),
	                  sfs_render_status(cat, &info) };
	for (int i = 0; i < 3; i++) {
		total += docs[i] ? strlen(docs[i]) : 0;
		free(docs[i]);
	}
	snprintf(extra, sizeof(extra), "%zu bytes", total);
	report("render indexes", now_s() - t, extra);
	if (!records)
		return total;
	t = now_s();
	for (size_t i = 0; i < sfs_catalog_nskills(cat); i++) {
		char *r = sfs_render_skill_record(cat, sfs_catalog_skill(cat, i));
		nrec += r ? strlen(r) : 0;
		free(r);
	}
	snprintf(extra, sizeof(extra), "%zu bytes", nrec);
	report("render records", now_s() - t, extra);
	return total + nrec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "touch", required_argument, NULL, 't' },
		{ "records", no_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'n' },
		{ 0 }
	};
	const char *touch = NULL;
	bool records = false;
	int repeat = 3, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 't')
			touch = optarg;
		else if (c == 'r')
			records = true;
		else if (c == 'n')
			repeat = atoi(optarg);
		else
			return 2;
	}
	if (optind >= argc) {
		fputs("usage: catalog_bench [--records] [--touch FILE] "
		      "[--repeat N] ROOT...\n", stderr);
		return 2;
	}
	struct sfs_config cfg = {
		.roots = (const char *const *)argv + optind,
		.nroots = (size_t)(argc - optind),
	};
	report("start", 0, NULL);
	sfs_catalog *cat = build(&cfg, NULL, "cold build");
	render(cat, records);
	for (int i = 0; i < repeat; i++) {
		if (touch && utimensat(AT_FDCWD, touch, NULL, 0) < 0) {
			fprintf(stderr, "catalog_bench: %s: %s\n", touch,
			        strerror(errno));
			return 1;
		}
		sfs_catalog *next = build(&cfg, cat, "rebuild with prev");
		sfs_catalog_unref(cat);
		cat = next;
	}
	render(cat, records);
	sfs_catalog_unref(cat);
	report("end", 0, NULL);
	return 0;
}
