/*
 * git_blobs.c - the bytes of git blobs kept as files in the cache folder
 * (CACHE/git-blobs/<id>), for a SKILL.md of a git root that a build opens
 * without having read it in that build (git.c's open_skill_md).
 *
 * Why: a blob in a pack is inflated through its chain of deltas each time
 * it is read.  A start that cannot take the kept units (git_units.c: a new
 * build of the program, other options) opens every SKILL.md; from kept
 * files each is a pread.  Only such a read writes one: a first mount
 * parses SKILL.md from the bytes its listing inflated, and writing 10,000
 * files there was 40% of its CPU (BENCHMARKS.md).  A blob id names its
 * bytes, so a kept file never goes
 * stale, and whoever could write it could still not make it hold other
 * bytes unseen: every open reads it whole and checks git's own hash of
 * it against the id before any byte is used, and serves a sealed copy
 * of what it checked, which nothing can change afterwards.  (SHA-1 of a
 * SKILL.md costs a small part of inflating it from a pack: see
 * BENCHMARKS.md.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git_blobs.h"
#include "sealed.h"
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

void sfs_git_hash_init(struct sfs_git_hash *h, uint64_t size)
{
	char head[32];
	int n = snprintf(head, sizeof(head), "blob %llu",
	                 (unsigned long long)size);

	sha1_init(&h->sha1);
	sha256_init(&h->sha256);
	sha1_update(&h->sha1, (size_t)n + 1, (const uint8_t *)head);
}

void sfs_git_hash_update(struct sfs_git_hash *h, const void *p, size_t n)
{
	sha1_update(&h->sha1, n, p);
	sha256_update(&h->sha256, n, p);
}

bool sfs_git_hash_is(struct sfs_git_hash *h, const uint8_t id[SFS_GIT_ID_LEN],
                     uint8_t sha256[32])
{
	uint8_t got[SHA1_DIGEST_SIZE];

	sha1_digest(&h->sha1, sizeof(got), got);
	if (sha256)
		sha256_digest(&h->sha256, 32, sha256);
	return memcmp(got, id, SFS_GIT_ID_LEN) == 0;
}

bool sfs_git_blob_verify(const void *p, size_t n,
                         const uint8_t id[SFS_GIT_ID_LEN],
                         const uint8_t *sha256)
{
	struct sfs_git_hash h;
	uint8_t got[32];

	sfs_git_hash_init(&h, n);
	sfs_git_hash_update(&h, p, n);
	return sfs_git_hash_is(&h, id, got) &&
	       (!sha256 || memcmp(got, sha256, sizeof(got)) == 0);
}

int sfs_git_sealed_copy(const void *p, size_t n)
{
	return sfs_sealed_copy("skillsfs-git-blob", p, n);
}

/* The size bytes of fd, read whole into *out (malloc'd). */
static int read_whole(int fd, size_t size, uint8_t **out)
{
	uint8_t *buf = malloc(size ? size : 1);

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	for (size_t got = 0; got < size; ) {
		ssize_t r = pread(fd, buf + got, size - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return r < 0 ? -errno : -ENOENT;
		}
		got += (size_t)r;
	}
	*out = buf;
	return 0;
}

int sfs_git_blob_open(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      off_t size)
{
	char *path = cache_dir ? blob_path(cache_dir, id, "") : NULL;
	struct stat st;
	uint8_t *bytes = NULL;

	if (!path)
		return cache_dir ? -ENOMEM : -ENOENT;
	int fd = sfs_cache_open_read(path);
	/* missing, or not a file of ours: read the blob */
	int rc = fd == -ENOMEM ? fd : fd < 0 ? -ENOENT : 0;
	if (rc == 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	                st.st_size != size))
		rc = -ENOENT;   /* not what it should be: read the blob */
	if (rc == 0)
		rc = read_whole(fd, (size_t)size, &bytes);
	if (fd >= 0)
		close(fd);
	if (rc == 0 && !sfs_git_blob_verify(bytes, (size_t)size, id, NULL)) {
		sfs_cache_unlink(path);   /* not the blob: the next keep
		                             replaces it */
		rc = -ENOENT;
	}
	if (rc == 0)
		rc = sfs_git_sealed_copy(bytes, (size_t)size);
	free(bytes);
	free(path);
	return rc;
}

static int blob_store(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      const void *p, size_t n)
{
	char *path = blob_path(cache_dir, id, "");
	int rc = path ? sfs_cache_write(path, p, n, 0400, false) : -ENOMEM;

	free(path);
	return rc < 0 ? rc : 0;
}

int sfs_git_blob_keep(const char *cache_dir, const uint8_t id[SFS_GIT_ID_LEN],
                      const void *p, size_t n)
{
	int rc = blob_store(cache_dir, id, p, n);

	/* served from memory: the file could be changed once renamed */
	return rc < 0 ? rc : sfs_git_sealed_copy(p, n);
}
