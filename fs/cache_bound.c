/*
 * cache_bound.c - the mount's part in keeping the cache folder under
 * -o cache_max (shared/cache_gc.h): a lease on the entries its roots
 * keep there (a clone, a server's listings), held while it runs, so
 * that `skillsfs gc` and other mounts sharing the folder leave them;
 * and a collection after each turn of the fetcher, which is what writes
 * to the folder, so a server that changes its listing all the time
 * cannot grow it past the bound.  Both run on the fetcher's thread (the
 * lease first in the start), never on the thread that answers the
 * kernel.
 */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "cache_bound.h"
#include "cache_gc.h"
#include "report.h"

int cache_bound_lease(const struct daemon *d, struct sfs_cache_lease *l)
{
	const struct mount_options *o = d->opt;

	*l = (struct sfs_cache_lease){ .fd = -1 };
	if (!o->cache_dir)
		return 0;
	int rc = sfs_cache_lease_take(o->cache_dir,
	                              (const char *const *)o->roots.paths,
	                              o->roots.n, l);
	if (rc < 0)
		report_say(d, LOG_WARNING, "%s: cannot take a lease on what "
		           "this mount uses (skillsfs gc may remove it): %s",
		           o->cache_dir, strerror(-rc));
	return rc;
}

void cache_bound_keep(const struct daemon *d)
{
	const struct mount_options *o = d->opt;
	struct sfs_cache_gc g;
	struct sfs_cache_gc_args a = {
		.cache_dir = o->cache_dir, .max = o->cache_max,
	};

	if (!o->cache_dir || o->cache_max <= 0)
		return;
	/* another mount's collection, or skillsfs gc, is at it already */
	if (sfs_cache_gc_run(&a, &g) < 0)
		return;
	size_t removed = 0;
	long long bytes = 0;
	for (size_t i = 0; i < g.n; i++)
		if (g.v[i].dropped && !g.v[i].failed) {
			removed++;
			bytes += g.v[i].bytes;
		}
	if (removed)
		report_say(d, LOG_INFO, "%s: removed %zu cache entr%s (%lld "
		           "bytes) no running mount needs, to stay under "
		           "cache_max (%lld bytes)", o->cache_dir, removed,
		           removed == 1 ? "y" : "ies", bytes, o->cache_max);
	sfs_cache_gc_free(&g);
}
