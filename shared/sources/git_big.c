/*
 * git_big.c - the checked bytes of git blobs past SFS_GIT_STREAM_MIN,
 * unpacked once for the reads of one build.
 *
 * Why: the mount opens a file again at every read it cannot answer from
 * its copies, and copies no file past 1 MiB; inflating the blob at each
 * read made a 64 MiB file take 32.5 s to read.  A big blob's bytes are
 * written once into a file with no name (O_TMPFILE in the cache folder:
 * on disk, not in the daemon's memory, and no other process can open it)
 * after they were checked, by the build that reads the blob for its
 * digest (sfs_git_big_keep) or else by the first read (sfs_git_big_open,
 * against the digest published); every read then preads that file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <git2.h>
#include <nettle/sha2.h>

#include "git_big.h"
#include "trust.h"
#include "git_stream.h"
#include "sealed.h"
#include "snapshot.h"

/* Blobs kept at most (the oldest is closed to make room; its readers
 * keep their descriptors). */
#define KEPT 16
/* The build keeps a blob it reads when it is no larger, and while it has
 * kept no more than BUILD_BUDGET bytes. */
#define KEEP_AT_BUILD (256ULL * 1024 * 1024)
#define BUILD_BUDGET (1024ULL * 1024 * 1024)

struct kept_blob {
	git_oid id;
	int fd;                     /* an unnamed file, or -1 */
};

struct sfs_git_big {
	char *cache_dir;            /* owned, or NULL */
	pthread_mutex_t lock;       /* guards the rest; held while unpacking */
	struct kept_blob kept[KEPT];
	unsigned next;              /* the slot to fill next */
	uint64_t reserved;          /* bytes the build keeps */
};

struct sfs_git_big *sfs_git_big_new(const char *cache_dir)
{
	struct sfs_git_big *b = calloc(1, sizeof(*b));

	if (!b || !sfs_strdup_or_null(cache_dir, &b->cache_dir)) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	for (unsigned i = 0; i < KEPT; i++)
		b->kept[i].fd = -1;
	return b;
}

void sfs_git_big_free(struct sfs_git_big *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < KEPT; i++)
		if (b->kept[i].fd >= 0)
			close(b->kept[i].fd);
	pthread_mutex_destroy(&b->lock);
	free(b->cache_dir);
	free(b);
}

bool sfs_git_big_reserve(struct sfs_git_big *b, uint64_t size)
{
	bool yes = false;

	if (size <= SFS_GIT_STREAM_MIN || size > KEEP_AT_BUILD ||
	    !b->cache_dir)
		return false;
	pthread_mutex_lock(&b->lock);
	if (b->reserved + size <= BUILD_BUDGET) {
		b->reserved += size;
		yes = true;
	}
	pthread_mutex_unlock(&b->lock);
	return yes;
}

int sfs_git_big_file(const struct sfs_git_big *b)
{
	char *dir = NULL;
	int fd = -1;

	if (b->cache_dir && asprintf(&dir, "%s/git-blobs", b->cache_dir) >= 0) {
		char *child = NULL;
		if (asprintf(&child, "%s/x", dir) >= 0 &&
		    sfs_cache_mkdirs(child) == 0)
			fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC |
			          O_NOFOLLOW, 0600);
		free(child);
		free(dir);
	}
	if (fd < 0)
		fd = memfd_create("skillsfs-git-big", MFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sfs_git_big_write(int fd, off_t at, const void *p, size_t n)
{
	return sfs_write_full(fd, at, p, n);
}

/* Keeps fd for the blob id; the lock held. */
static void keep_locked(struct sfs_git_big *b, const git_oid *id, int fd)
{
	struct kept_blob *slot = &b->kept[b->next];

	b->next = (b->next + 1) % KEPT;
	if (slot->fd >= 0)
		close(slot->fd);
	*slot = (struct kept_blob){ .id = *id, .fd = fd };
}

void sfs_git_big_keep(struct sfs_git_big *b, const git_oid *id, int fd)
{
	pthread_mutex_lock(&b->lock);
	keep_locked(b, id, fd);
	pthread_mutex_unlock(&b->lock);
}

struct unpacking {
	int fd;
	off_t at;
	struct sha256_ctx sha256;
};

static int write_chunk(void *arg, const void *p, size_t n)
{
	struct unpacking *u = arg;

	sha256_update(&u->sha256, n, p);
	int rc = sfs_git_big_write(u->fd, u->at, p, n);
	u->at += (off_t)n;
	return rc;
}

/* The bytes of the blob id streamed into a file of their own, when they
 * are `size` bytes with that SHA-256: the descriptor, or -EIO. */
static int unpack(struct sfs_git_big *b, git_repository *repo,
                  const git_oid *id, off_t size, const uint8_t sha256[32])
{
	struct unpacking u = { .fd = sfs_git_big_file(b) };
	uint8_t digest[32];
	uint64_t got;

	if (u.fd < 0)
		return u.fd;
	sha256_init(&u.sha256);
	int rc = sfs_git_blob_stream(repo, id, &got, write_chunk, &u);
	sha256_digest(&u.sha256, sizeof(digest), digest);
	if (rc == 0 && ((off_t)got != size ||
	                memcmp(digest, sha256, sizeof(digest)) != 0))
		rc = -EIO;   /* not the bytes published: rewritten in place */
	if (rc < 0) {
		close(u.fd);
		return rc == -ENOMEM ? rc : -EIO;
	}
	return u.fd;
}

int sfs_git_big_open(struct sfs_git_big *b, git_repository *repo,
                     const git_oid *id, off_t size, const uint8_t sha256[32])
{
	int fd = -1;

	/* held while unpacking: a second reader waits for the first
	 * unpack rather than do it again */
	pthread_mutex_lock(&b->lock);
	for (unsigned i = 0; i < KEPT && fd < 0; i++)
		if (b->kept[i].fd >= 0 && git_oid_equal(&b->kept[i].id, id))
			fd = b->kept[i].fd;
	if (fd < 0) {
		fd = unpack(b, repo, id, size, sha256);
		if (fd >= 0)
			keep_locked(b, id, fd);
	}
	int rc = fd < 0 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (rc < 0 && fd >= 0)
		rc = -errno;
	pthread_mutex_unlock(&b->lock);
	return rc;
}
