/*
 * verified.h - a fetched source's verified bytes, served from sealed
 * copies (verified.c): what the MCP and the well-known sources read a
 * cache file through, once per generation rather than at every open.
 */
#ifndef SKILLSFS_SOURCES_VERIFIED_H
#define SKILLSFS_SOURCES_VERIFIED_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sfs_verified_copy;

/* The sealed copies one source's state (one generation) holds, each made
 * while its cache file was hashed; the least recently opened go past a
 * budget of memory and descriptors, to be hashed again at their next
 * open.  Guarded by its own lock: reads open files on several threads. */
struct sfs_verified {
	pthread_mutex_t lock;
	struct sfs_verified_copy *v;
	size_t n, cap, bytes;
	uint64_t opens;         /* a clock: opens so far */
};

void sfs_verified_init(struct sfs_verified *v);
/* Closes every copy; v may be one sfs_verified_init never saw if it is
 * all zero (then its lock is not destroyed). */
void sfs_verified_free(struct sfs_verified *v);

/*
 * The verified bytes with this digest and size: a descriptor of its own
 * (its own offset) of the sealed copy v holds, or else of a new one made
 * from the cache file at `path` while hashing it, kept in v (v NULL:
 * verified, not kept).  -ENOENT when the cache does not hold those bytes:
 * a file of other bytes at `path` is removed, to be fetched again, and so
 * is anything else there (a symlink, an empty folder).  -EEXIST when what
 * is in the way cannot be removed (*blocked: why, malloc'd, or NULL).
 * Another -errno else.
 */
int sfs_verified_open(struct sfs_verified *v, const char *path,
                      const uint8_t sha256[32], off_t size, char **blocked);
/* A descriptor of the sealed copy of `sha256` v holds, or -1. */
int sfs_verified_reopen(struct sfs_verified *v, const uint8_t sha256[32]);
/* The n bytes at p, whose digest is sha256 (checked by the caller), as a
 * sealed copy kept in v: a descriptor of its own, or -errno. */
int sfs_verified_add(struct sfs_verified *v, const uint8_t sha256[32],
                     const void *p, size_t n);

#endif
