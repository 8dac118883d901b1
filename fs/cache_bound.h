/*
 * cache_bound.h - the mount's lease on the cache folder and its
 * collections under -o cache_max (cache_bound.c).
 */
#ifndef SKILLSFS_CACHE_BOUND_H
#define SKILLSFS_CACHE_BOUND_H

#include "cache_gc.h"
#include "daemon.h"

/* Takes the mount's lease on what its roots keep in the cache folder
 * (said on stderr or syslog when it cannot).  Returns 0 or -errno. */
int cache_bound_lease(const struct daemon *d, struct sfs_cache_lease *l);
/* Brings the cache folder under cache_max now, unless another
 * collection is at it (then that one does). */
void cache_bound_keep(const struct daemon *d);

#endif
