/*
 * git_blobs.c - the bytes of git blobs kept as files in the cache folder
 * (CACHE/git-blobs/<id>), for the SKILL.md of every skill of a git root.
 *
 * Why: a build reads every SKILL.md, and a blob in a pack is inflated
 * through its chain of deltas each time it is read.  For a second mount
 * of 10,000 skills, reading the SKILL.md blobs was a third of the CPU
 * the mount took before it was ready; read from kept files it is a
 * pread of each.  A blob id names its bytes, so a kept file never goes
 * stale; the size is checked at every open all the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git_blobs.h"
#include "snapshot.h"
#include "trust.h"

static char *blob_path(const char *cache_dir, const uint8_t *id,
                       const char *suffix)
{
	char hex[2 * SFS_GIT_ID_LEN + 1], *path;

	for (int i = 0; i < SFS_GIT_ID_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (asprintf(&path, "%s/git-blobs/%s%s", cache_dir, hex, suffix) < 0)
		return NULL;
	return path;
}

int sfs_git_blob_open(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      off_t size)
{
	char *path = cache_dir ? blob_path(cache_dir, id, "") : NULL;
	struct stat st;

	if (!path)
		return cache_dir ? -ENOMEM : -ENOENT;
	int fd = sfs_cache_open_read(path);
	free(path);
	if (fd < 0)   /* missing, or not a file of ours: read the blob */
		return fd == -ENOMEM ? fd : -ENOENT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != size) {
		close(fd);
		return -ENOENT;   /* not what it should be: read the blob */
	}
	return fd;
}

int sfs_git_blob_keep(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      const void *p, size_t n)
{
	char *path = blob_path(cache_dir, id, "");
	int rc = path ? sfs_cache_write(path, p, n, 0400, true) : -ENOMEM;

	free(path);
	return rc;
}
