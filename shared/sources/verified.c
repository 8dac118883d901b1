/*
 * verified.c - a fetched source's verified bytes, served from sealed
 * copies (verified.h).
 *
 * Verified bytes are served from a copy the daemon holds, sealed, never
 * from the cache file itself after the check: the cache folder is the
 * user's, and a writable shared mapping of a cache file changes its bytes
 * without a write(2), and without changing its ctime after its first
 * store to each page, so no stat of the file can prove it unchanged since
 * it was hashed.  The copy is made while the file is hashed (the bytes
 * hashed are the bytes copied), into a memfd sealed against writes,
 * shrinking and growing; later opens of the same file by the same
 * generation reopen that memfd.  Measured (scripts/bench-mcp-bigfile: an
 * 8 MiB file read through a fresh mount with -o retain=0, 32 reads of
 * 256 KiB, each an open): hashing at every open took 391 ms, the ctime
 * shortcut this replaces 14-17 ms, the sealed copy 19-20 ms
 * (BENCHMARKS.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "grow.h"
#include "sealed.h"
#include "snapshot.h"
#include "trust.h"
#include "verified.h"

/* The memory and the descriptors the sealed copies of one source (one
 * generation) may hold: past either, the least recently opened go.  (The
 * mount holds up to 1,024 more descriptors for pinned folder files, of at
 * least 8,192 it raises its limit to where it can.) */
#define SEALED_BUDGET (64u << 20)
#define SEALED_FILES 256

struct sfs_verified_copy {
	uint8_t sha256[32];
	int fd;                 /* no write, no size change, ever */
	size_t len;
	uint64_t used;          /* when last opened, on v's clock */
};

void sfs_verified_init(struct sfs_verified *v)
{
	memset(v, 0, sizeof(*v));
	pthread_mutex_init(&v->lock, NULL);
}

void sfs_verified_free(struct sfs_verified *v)
{
	for (size_t i = 0; i < v->n; i++)
		close(v->v[i].fd);
	free(v->v);
	pthread_mutex_destroy(&v->lock);
	memset(v, 0, sizeof(*v));
}

/* A descriptor of its own (its own offset) of the sealed copy fd. */
static int reopen_copy(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int own = open(path, O_RDONLY | O_CLOEXEC);
	return own >= 0 ? own : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int sfs_verified_reopen(struct sfs_verified *v, const uint8_t sha256[32])
{
	int fd = -1;

	if (!v)
		return -1;
	pthread_mutex_lock(&v->lock);
	for (size_t i = 0; fd < 0 && i < v->n; i++)
		if (memcmp(v->v[i].sha256, sha256, 32) == 0) {
			v->v[i].used = ++v->opens;
			fd = reopen_copy(v->v[i].fd);
		}
	pthread_mutex_unlock(&v->lock);
	return fd;
}

/* Drops the least recently opened copies until one more of len bytes
 * fits. */
static void make_room(struct sfs_verified *v, size_t len)
{
	while (v->n && (v->bytes + len > SEALED_BUDGET ||
	                v->n >= SEALED_FILES)) {
		size_t old = 0;
		for (size_t i = 1; i < v->n; i++)
			if (v->v[i].used < v->v[old].used)
				old = i;
		close(v->v[old].fd);
		v->bytes -= v->v[old].len;
		v->v[old] = v->v[--v->n];
	}
}

/* Keeps the sealed copy fd (taken) of `sha256` and returns a descriptor
 * of its own of it, or -errno; with no v, fd itself. */
static int keep_copy(struct sfs_verified *v, const uint8_t sha256[32],
                     int fd, size_t len)
{
	if (!v)
		return fd;
	int own = reopen_copy(fd);
	int err = errno;
	pthread_mutex_lock(&v->lock);
	make_room(v, len);
	if (len <= SEALED_BUDGET &&
	    sfs_grow(&v->v, &v->cap, v->n + 1, sizeof(*v->v)) == 0) {
		v->v[v->n++] = (struct sfs_verified_copy){
			.fd = fd, .len = len, .used = ++v->opens,
		};
		memcpy(v->v[v->n - 1].sha256, sha256, 32);
		v->bytes += len;
		fd = -1;
	}
	pthread_mutex_unlock(&v->lock);
	if (fd >= 0)
		close(fd);
	return own >= 0 ? own : -err;
}

/* Copies the open cache file into a new memfd while hashing what it
 * copies: the memfd, sealed, when those are the `size` bytes of
 * `sha256`; -ENOENT when they are not, another -errno when no copy can be
 * made. */
static int seal_copy(int from, const uint8_t sha256[32], off_t size)
{
	int fd = sfs_sealed_new("skillsfs-verified");
	struct sha256_ctx ctx;
	char buf[65536];
	off_t at = 0;
	int rc = fd < 0 ? fd : 0;

	sha256_init(&ctx);
	if (rc == 0 && size > 0 && ftruncate(fd, size) < 0)
		rc = -errno;
	while (rc == 0 && at <= size) {
		ssize_t n = pread(from, buf, sizeof(buf), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		if (at + n > size) {
			rc = -ENOENT;   /* grew since its size was looked at */
			break;
		}
		sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
		rc = sfs_write_full(fd, at, buf, (size_t)n);
		at += n;
	}
	uint8_t sum[32];
	sha256_digest(&ctx, sizeof(sum), sum);
	if (rc == 0 && (at != size || memcmp(sum, sha256, 32) != 0))
		rc = -ENOENT;
	if (rc == 0)
		rc = sfs_seal(fd);
	if (rc < 0 && fd >= 0)
		close(fd);
	return rc < 0 ? rc : fd;
}

/* The open cache file's bytes, verified, hashed whole: a sealed copy's
 * descriptor, or the file's own when no copy can be made (then hashed at
 * every open); -ENOENT when they are not those of sha256. */
static int verify_file(struct sfs_verified *v, int fd,
                       const uint8_t sha256[32], off_t size)
{
	struct stat st;
	uint8_t sum[32];
	off_t len;

	if (fstat(fd, &st) < 0 || st.st_size != size)
		return -ENOENT;
	int copy = seal_copy(fd, sha256, size);
	if (copy == -ENOENT)
		return -ENOENT;
	if (copy >= 0)
		return keep_copy(v, sha256, copy, (size_t)size);
	/* no memfd (out of memory, or descriptors): hashed now, served
	 * from the file */
	if (sfs_sha256_fd(fd, sum, &len) < 0 || len != size ||
	    memcmp(sum, sha256, 32) != 0)
		return -ENOENT;
	int own = lseek(fd, 0, SEEK_SET) == 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3)
	                                      : -1;
	return own >= 0 ? own : -EIO;
}

/*
 * Removes what is at a file's name and is not a file (a symlink, a FIFO,
 * an empty folder): 0, or -errno.  A folder that holds anything is left
 * as it is: it is no cache's, and is said (-ENOTEMPTY).
 */
static int unblock(const char *path)
{
	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	return rmdir(path) == 0 || errno == ENOENT ? 0 : -errno;
}

int sfs_verified_open(struct sfs_verified *v, const char *path,
                      const uint8_t sha256[32], off_t size, char **blocked)
{
	*blocked = NULL;
	int own = sfs_verified_reopen(v, sha256);
	if (own >= 0)
		return own;
	/* O_NONBLOCK: a FIFO put in its place must not hang the read */
	int fd = sfs_cache_open_read(path);
	if (fd == -ELOOP || fd == -EPERM) {
		/* a symlink, or not a regular file of the user's */
		int rc = unblock(path);
		if (rc < 0 && asprintf(blocked, "%s is in the way of its "
		                       "verified bytes and cannot be removed "
		                       "(%s)", path, strerror(-rc)) < 0)
			*blocked = NULL;
		return rc < 0 ? -EEXIST : -ENOENT;
	}
	if (fd < 0)
		return fd == -ENOENT ? -ENOENT : -EIO;
	own = verify_file(v, fd, sha256, size);
	close(fd);
	if (own == -ENOENT)
		sfs_cache_unlink(path);
	return own;
}

int sfs_verified_add(struct sfs_verified *v, const uint8_t sha256[32],
                     const void *p, size_t n)
{
	int fd = sfs_sealed_copy("skillsfs-verified", p, n);

	return fd < 0 ? fd : keep_copy(v, sha256, fd, n);
}
