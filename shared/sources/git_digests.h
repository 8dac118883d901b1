/*
 * git_digests.h - sizes and SHA-256 digests of git blobs by object id,
 * kept across mounts in the cache folder (git_digests.c).
 */
#ifndef SKILLSFS_GIT_DIGESTS_H
#define SKILLSFS_GIT_DIGESTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SFS_GIT_ID_LEN 20   /* a SHA-1 object id */

struct sfs_git_digests;

/* The digests kept in cache_dir/git-digests (made when missing), or, with
 * no cache_dir or no usable file, an empty set kept in memory only.
 * NULL when out of memory. */
struct sfs_git_digests *sfs_git_digests_open(const char *cache_dir);
/* Whether the blob `id` is known; its size and digest then. */
bool sfs_git_digests_find(const struct sfs_git_digests *d,
                          const uint8_t id[SFS_GIT_ID_LEN], off_t *size,
                          uint8_t sha256[32]);
/* Learns a blob's size and digest; kept in the file at the next flush. */
void sfs_git_digests_add(struct sfs_git_digests *d,
                         const uint8_t id[SFS_GIT_ID_LEN], off_t size,
                         const uint8_t sha256[32]);
void sfs_git_digests_flush(struct sfs_git_digests *d);
/* The key of the file's MACs (32 bytes) into key, for another file of
 * the cache that only this user may vouch for (kept_units.c); false when
 * no file is kept. */
bool sfs_git_digests_key(const struct sfs_git_digests *d, uint8_t key[32]);
/* Flushes and frees; NULL is fine. */
void sfs_git_digests_close(struct sfs_git_digests *d);

#endif
