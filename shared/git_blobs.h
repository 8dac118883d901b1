/*
 * git_blobs.h - the bytes of git blobs kept as files in the cache folder,
 * by object id (git_blobs.c).
 */
#ifndef SKILLSFS_GIT_BLOBS_H
#define SKILLSFS_GIT_BLOBS_H

#include <stdint.h>
#include <sys/types.h>

#include "git_digests.h"

/* The kept file of the blob `id`, opened for reading, when it is there
 * and holds `size` bytes; else -ENOENT (or another -errno). */
int sfs_git_blob_open(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      off_t size);
/* Keeps the n bytes at p as the file of blob `id` (written under another
 * name, then renamed: a reader never sees it half-written) and returns it
 * opened for reading, or -errno. */
int sfs_git_blob_keep(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      const void *p, size_t n);

#endif
