/*
 * cache_pause.c - a collection of the cache folder, or a lease on it,
 * held at a point for a test (test_cache_gc.py) through the hooks that
 * shared/cache_gc.h gives tests, so that a race is played out in one
 * order, every time.  At the point it prints a line and waits for one
 * on stdin.
 *
 *   cache_pause gc CACHE MAX
 *       collects CACHE down to MAX bytes; "listed" once the entries are
 *       listed (before the leases are read), "moved" once what goes is
 *       in trash/ (before it is deleted), then "removed NAME" or "kept
 *       NAME" for each entry.
 *   cache_pause lease CACHE ROOT...
 *       takes a lease for ROOTs ("leased"), refreshes it as a mount that
 *       daemonized does ("refreshing" midway, "refreshed" after), and
 *       drops it on the next line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_gc.h"

/* Says `point` and waits for a line on stdin: the test's go. */
static void pause_at(void *arg, const char *point)
{
	char line[64];

	(void)arg;
	printf("%s\n", point);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(3);
}

static int collect(const char *cache, const char *max)
{
	struct sfs_cache_gc g;
	struct sfs_cache_gc_args a = {
		.cache_dir = cache, .max = strtoll(max, NULL, 10), .wait = true,
		.pause = pause_at,
	};

	int rc = sfs_cache_gc_run(&a, &g);
	if (rc < 0) {
		fprintf(stderr, "cache_pause: gc: %s\n", strerror(-rc));
		return 1;
	}
	for (size_t i = 0; i < g.n; i++)
		printf("%s %s\n", g.v[i].dropped && !g.v[i].failed ?
		       "removed" : "kept", g.v[i].name);
	sfs_cache_gc_free(&g);
	return 0;
}

static int lease(const char *cache, const char *const *roots, size_t n)
{
	struct sfs_cache_lease l;

	int rc = sfs_cache_lease_take(cache, roots, n, &l);
	if (rc < 0) {
		fprintf(stderr, "cache_pause: lease: %s\n", strerror(-rc));
		return 1;
	}
	pause_at(NULL, "leased");
	l.pause = pause_at;
	rc = sfs_cache_lease_refresh(&l);
	if (rc < 0)
		fprintf(stderr, "cache_pause: refresh: %s\n", strerror(-rc));
	pause_at(NULL, "refreshed");
	sfs_cache_lease_drop(&l);
	return rc < 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "gc") == 0)
		return collect(argv[2], argv[3]);
	if (argc >= 4 && strcmp(argv[1], "lease") == 0)
		return lease(argv[2], (const char *const *)argv + 3,
		             (size_t)argc - 3);
	fprintf(stderr, "usage: cache_pause gc CACHE MAX | "
	        "lease CACHE ROOT...\n");
	return 2;
}
