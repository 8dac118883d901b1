/*
 * git_blobs.h - the bytes of git blobs kept as files in the cache folder,
 * by object id (git_blobs.c).
 */
#ifndef SKILLSFS_GIT_BLOBS_H
#define SKILLSFS_GIT_BLOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "git_digests.h"

/* What git names a blob by, and its SHA-256, hashed as its bytes
 * stream by: git's SHA-1 of "blob SIZE\0" and the bytes. */
struct sfs_git_hash {
	struct sha1_ctx sha1;
	struct sha256_ctx sha256;
};
void sfs_git_hash_init(struct sfs_git_hash *h, uint64_t size);
void sfs_git_hash_update(struct sfs_git_hash *h, const void *p, size_t n);
/* Whether the bytes hashed are the blob `id`; their SHA-256 into sha256
 * (NULL: not wanted). */
bool sfs_git_hash_is(struct sfs_git_hash *h, const uint8_t id[SFS_GIT_ID_LEN],
                     uint8_t sha256[32]);
/* Whether the n bytes at p are the blob `id` (and, with sha256 not NULL,
 * have that SHA-256). */
bool sfs_git_blob_verify(const void *p, size_t n,
                         const uint8_t id[SFS_GIT_ID_LEN],
                         const uint8_t *sha256);

/* A sealed memory file holding the n bytes at p: a descriptor to pread,
 * whose bytes cannot change.  Returns it or -errno. */
int sfs_git_sealed_copy(const void *p, size_t n);

/* The bytes of the kept file of the blob `id`, when it is there, holds
 * `size` bytes and they are that blob (git's own hash of them is id), as
 * a sealed memory file; else -ENOENT (or another -errno).  A kept file
 * that holds other bytes is removed. */
int sfs_git_blob_open(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      off_t size);
/* Keeps the n bytes at p, verified as the blob `id`, as the file of blob
 * `id` (written under another name, then renamed: a reader never sees it
 * half-written), and returns a sealed copy of them, or -errno. */
int sfs_git_blob_keep(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      const void *p, size_t n);

#endif
