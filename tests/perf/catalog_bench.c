/*
 * catalog_bench.c - times the catalog library on a corpus, for profiling
 * (never a pass/fail test): a cold build, the renderings the mount makes,
 * and a rebuild with the previous catalog after one file was touched;
 * with the resident set size after each step.
 *
 * usage: catalog_bench [--records] [--touch FILE] [--create] [--lines]
 *                      [--threads N] [--repeat N] [--render-loops N] ROOT...
 * --touch FILE: rewrites FILE's mtime (to now) before each rebuild.
 * --create: before each rebuild, adds a skill folder to the first root
 *   (and removes the one of the rebuild before).
 * --records: also renders every catalog/<id>.json.
 * --threads N: as sfs_config.
 * --lines: index.json and skills_index.json are also read in place
 *   (sfs_lines_doc), in reads of 128 KiB as the mount gets them; and
 *   after each rebuild, index.json's doc is made with the previous one,
 *   as the mount makes it.
 * --render-loops N: times each rendering as the mean of N.
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

/* Times one rendering, `loops` times; returns its size. */
static size_t time_doc(const char *what, char *(*fn)(const sfs_catalog *),
                       const sfs_catalog *cat, int loops)
{
	size_t len = 0;
	char extra[128];
	double t = now_s();
	for (int i = 0; i < loops; i++) {
		char *doc = fn(cat);
		len = doc ? strlen(doc) : 0;
		free(doc);
	}
	snprintf(extra, sizeof(extra), "%zu bytes", len);
	report(what, (now_s() - t) / loops, extra);
	return len;
}

static char *status(const sfs_catalog *cat)
{
	struct sfs_status_info info = { .generation = 1,
	                                .refresh_mode = "inotify" };
	return sfs_render_status(cat, &info);
}

/* Every catalog/<id>.json, once. */
static void time_records(const sfs_catalog *cat)
{
	size_t n = 0;
	char extra[128];
	double t = now_s();
	for (size_t i = 0; i < sfs_catalog_nskills(cat); i++) {
		char *r = sfs_render_skill_record(cat, sfs_catalog_skill(cat, i));
		n += r ? strlen(r) : 0;
		free(r);
	}
	snprintf(extra, sizeof(extra), "%zu bytes", n);
	report("render records", now_s() - t, extra);
}

/* Reads a line document whole in reads of 128 KiB, `loops` times. */
static void time_lines(const char *what, const sfs_catalog *cat,
                       bool skills_index, int loops)
{
	sfs_lines_doc *d = sfs_lines_doc_new(cat, skills_index, NULL);
	static char buf[128 * 1024];
	char extra[128];
	size_t size = d ? sfs_lines_doc_size(d) : 0;
	double t = now_s();

	for (int i = 0; d && i < loops; i++) {
		for (size_t off = 0; off < size; off += sizeof(buf)) {
			size_t n = size - off < sizeof(buf) ? size - off
			                                    : sizeof(buf);
			if (sfs_lines_doc_read(d, off, n, buf) < 0) {
				fprintf(stderr, "catalog_bench: read failed\n");
				exit(1);
			}
		}
	}
	snprintf(extra, sizeof(extra), "%zu bytes", size);
	report(what, (now_s() - t) / loops, extra);
	sfs_lines_doc_free(d);
}

/* index.json's doc of cat made with the previous catalog's, as the mount
 * makes it after a refresh; prev is freed. */
static sfs_lines_doc *next_doc(const sfs_catalog *cat, sfs_lines_doc *prev)
{
	double t = now_s();
	sfs_lines_doc *d = sfs_lines_doc_new(cat, false, prev);

	report("lines doc with prev", now_s() - t, NULL);
	sfs_lines_doc_free(prev);
	if (!d) {
		fprintf(stderr, "catalog_bench: out of memory\n");
		exit(1);
	}
	return d;
}

/* Renders what a generation of the mount holds. */
static void render(const sfs_catalog *cat, bool records_too, bool lines,
                   int loops)
{
	time_doc("render index", sfs_render_index, cat, loops);
	time_doc("render skills_index", sfs_render_skills_index, cat, loops);
	time_doc("render status", status, cat, loops);
	if (lines) {
		time_lines("read index", cat, false, loops);
		time_lines("read skills_index", cat, true, loops);
	}
	if (records_too)
		time_records(cat);
}

static void skill_paths(const char *root, int k, char *dir, char *md,
                        size_t size)
{
	snprintf(dir, size, "%s/zz-catalog-bench-%d", root, k);
	snprintf(md, size, "%s/zz-catalog-bench-%d/SKILL.md", root, k);
}

/* Adds ROOT/zz-catalog-bench-K/SKILL.md; removes that of K - 1. */
static int add_skill(const char *root, int k)
{
	char dir[4096], md[4096];

	skill_paths(root, k - 1, dir, md, sizeof(dir));
	unlink(md);
	rmdir(dir);
	skill_paths(root, k, dir, md, sizeof(dir));
	FILE *f = mkdir(dir, 0755) == 0 ? fopen(md, "w") : NULL;
	if (!f || fprintf(f, "---\nname: zz-catalog-bench-%d\n"
	                  "description: Made by catalog_bench.\n---\n", k) < 0 ||
	    fclose(f) != 0) {
		fprintf(stderr, "catalog_bench: %s: %s\n", md, strerror(errno));
		return -1;
	}
	return 0;
}

/* Removes what add_skill(root, k) added. */
static void remove_skill(const char *root, int k)
{
	char dir[4096], md[4096];

	skill_paths(root, k, dir, md, sizeof(dir));
	unlink(md);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "touch", required_argument, NULL, 't' },
		{ "records", no_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "render-loops", required_argument, NULL, 'l' },
		{ "create", no_argument, NULL, 'c' },
		{ "lines", no_argument, NULL, 'k' },
		{ "threads", required_argument, NULL, 'j' },
		{ 0 }
	};
	const char *touch = NULL;
	bool records = false, create = false, lines = false;
	unsigned threads = 0;
	int repeat = 3, loops = 1, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 't')
			touch = optarg;
		else if (c == 'r')
			records = true;
		else if (c == 'c')
			create = true;
		else if (c == 'k')
			lines = true;
		else if (c == 'j')
			threads = (unsigned)atoi(optarg);
		else if (c == 'n')
			repeat = atoi(optarg);
		else if (c == 'l')
			loops = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else
			return 2;
	}
	if (optind >= argc) {
		fputs("usage: catalog_bench [--records] [--touch FILE] "
		      "[--create] [--lines] [--threads N] [--repeat N] "
		      "[--render-loops N] ROOT...\n", stderr);
		return 2;
	}
	struct sfs_config cfg = {
		.roots = (const char *const *)argv + optind,
		.nroots = (size_t)(argc - optind),
		.threads = threads,
	};
	report("start", 0, NULL);
	sfs_catalog *cat = build(&cfg, NULL, "cold build");
	render(cat, records, lines, loops);
	sfs_lines_doc *doc = lines ? sfs_lines_doc_new(cat, false, NULL) : NULL;
	for (int i = 0; i < repeat; i++) {
		if (touch && utimensat(AT_FDCWD, touch, NULL, 0) < 0) {
			fprintf(stderr, "catalog_bench: %s: %s\n", touch,
			        strerror(errno));
			return 1;
		}
		if (create && add_skill(cfg.roots[0], i) < 0)
			return 1;
		sfs_catalog *next = build(&cfg, cat, "rebuild with prev");
		if (doc)
			doc = next_doc(next, doc);
		sfs_catalog_unref(cat);
		cat = next;
	}
	render(cat, records, lines, loops);
	sfs_lines_doc_free(doc);
	sfs_catalog_unref(cat);
	if (create)
		remove_skill(cfg.roots[0], repeat - 1);
	report("end", 0, NULL);
	return 0;
}
