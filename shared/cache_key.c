/*
 * cache_key.c - the cache folder's key: 32 random bytes, 0600, that only
 * the daemon's user can read (CACHE/git-digests.key, named for its first
 * user).  What the cache keeps that a mount publishes without reading its
 * sources again (git-digests' records, the units kept by kept_units.c)
 * is believed only under a MAC with it, so that nothing another account
 * could write, or a copied cache, is taken for this user's work.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"

/* The key of path (a regular file of ours that no one else may read or
 * write), into key. */
static int read_key(const char *path, uint8_t key[SFS_CACHE_KEY_LEN])
{
	struct stat st;
	int fd = sfs_cache_open_read(path);
	int rc = fd < 0 ? fd : 0;

	if (rc == 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	                st.st_uid != geteuid() || (st.st_mode & 077) ||
	                st.st_size != SFS_CACHE_KEY_LEN ||
	                pread(fd, key, SFS_CACHE_KEY_LEN, 0) !=
	                SFS_CACHE_KEY_LEN))
		rc = -EPERM;
	if (fd >= 0)
		close(fd);
	return rc;
}

/* A new key at path, written aside and linked into place, so that two
 * mounts starting at once agree on the one that got there first. */
static int make_key(const char *path, uint8_t key[SFS_CACHE_KEY_LEN])
{
	char *tmp = NULL;
	int rc = asprintf(&tmp, "%s.new-%d", path, (int)gettid()) < 0 ?
	         -ENOMEM : 0;

	if (rc == 0 && getrandom(key, SFS_CACHE_KEY_LEN, 0) !=
	               SFS_CACHE_KEY_LEN)
		rc = -EIO;
	if (rc == 0) {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		              O_NOFOLLOW, 0600);
		rc = fd < 0 ? -errno :
		     write(fd, key, SFS_CACHE_KEY_LEN) == SFS_CACHE_KEY_LEN ?
		     0 : -EIO;
		if (fd >= 0)
			close(fd);
		if (rc == 0 && link(tmp, path) < 0 && errno != EEXIST)
			rc = -errno;
		unlink(tmp);
	}
	free(tmp);
	return rc < 0 ? rc : read_key(path, key);
}

int sfs_cache_key(const char *cache_dir, uint8_t key[SFS_CACHE_KEY_LEN])
{
	char *path = NULL;

	if (asprintf(&path, "%s/git-digests.key", cache_dir) < 0)
		return -ENOMEM;
	int rc = sfs_cache_mkdirs(path);
	if (rc == 0 && read_key(path, key) < 0)
		rc = make_key(path, key);
	free(path);
	return rc;
}
