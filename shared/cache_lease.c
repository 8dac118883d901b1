/*
 * cache_lease.c - a running mount's lease on the entries of the cache
 * folder it needs (cache_gc.h): a file of leases/, "pid N" and then one
 * entry's name a line, on which the mount holds an exclusive flock.  The
 * kernel lets the flock go when the process ends however it ends, so a
 * collection that can take the lock knows the lease is a dead mount's:
 * no pid is guessed at, nor reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_gc.h"
#include "trust.h"

/* "NAME\n" for each root's entry, once each (malloc'd), or NULL. */
static char *entries_of(const char *cache_dir, const char *const *roots,
                        size_t n)
{
	char *text = strdup("");

	for (size_t i = 0; text && i < n; i++) {
		char *e = sfs_source_cache_entry(roots[i], cache_dir), *more;
		if (!e)
			continue;
		size_t len = strlen(e);
		bool dup = false;
		for (const char *p = text; (p = strstr(p, e)); p += len)
			dup |= (p == text || p[-1] == '\n') && p[len] == '\n';
		if (dup || asprintf(&more, "%s%s\n", text, e) < 0)
			more = NULL;
		free(e);
		if (more) {
			free(text);
			text = more;
		}
	}
	return text;
}

/* Marks each entry used now (cache_gc.c's least recently used is the
 * oldest mtime): a mount that starts uses what it leases.  An entry
 * that is a link is left as it is. */
static void touch_entries(const char *cache_dir, const char *entries)
{
	int cfd = sfs_trust_dir_open(cache_dir, false, NULL, 0);

	for (const char *p = entries; cfd >= 0 && *p; ) {
		size_t n = strcspn(p, "\n");
		char *name = strndup(p, n);
		if (name)
			utimensat(cfd, name, NULL, AT_SYMLINK_NOFOLLOW);
		free(name);
		p += n + (p[n] == '\n');
	}
	if (cfd >= 0)
		close(cfd);
}

static int write_body(int fd, const char *entries)
{
	char *body;
	int rc = 0;

	if (asprintf(&body, "pid %ld\n%s", (long)getpid(), entries) < 0)
		return -ENOMEM;
	size_t n = strlen(body);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, body, n, 0) != (ssize_t)n)
		rc = errno ? -errno : -EIO;
	free(body);
	return rc;
}

/* Makes leases/NAME locked and written under a temporary name, then
 * renames it into place.  Returns its descriptor or -errno. */
static int make_lease(int dfd, const char *name, const char *entries)
{
	char tmp[80];

	snprintf(tmp, sizeof(tmp), ".%s.new", name);
	int fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	                          O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : 0;
	if (rc == 0)
		rc = write_body(fd, entries);
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(dfd, tmp, 0);
		close(fd);
		return rc;
	}
	return fd;
}

int sfs_cache_lease_take(const char *cache_dir, const char *const *roots,
                         size_t nroots, struct sfs_cache_lease *out)
{
	char *dir = NULL, name[64];
	uint32_t r = 0;

	*out = (struct sfs_cache_lease){ .fd = -1 };
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint32_t)time(NULL);
	snprintf(name, sizeof(name), "%ld-%08x%s", (long)getpid(), r,
	         SFS_CACHE_LEASE_SUFFIX);
	out->entries = entries_of(cache_dir, roots, nroots);
	if (!out->entries ||
	    asprintf(&dir, "%s/%s", cache_dir, SFS_CACHE_LEASES) < 0 ||
	    asprintf(&out->path, "%s/%s", dir, name) < 0) {
		free(dir);
		sfs_cache_lease_drop(out);
		return -ENOMEM;
	}
	touch_entries(cache_dir, out->entries);
	int dfd = sfs_trust_dir_open(dir, true, NULL, 0);
	free(dir);
	out->fd = dfd < 0 ? dfd : make_lease(dfd, name, out->entries);
	if (dfd >= 0)
		close(dfd);
	if (out->fd < 0) {
		int rc = out->fd;
		free(out->path);
		out->path = NULL;   /* not ours to remove */
		sfs_cache_lease_drop(out);
		return rc;
	}
	return 0;
}

int sfs_cache_lease_refresh(struct sfs_cache_lease *l)
{
	return l->fd < 0 ? -EBADF : write_body(l->fd, l->entries);
}

void sfs_cache_lease_drop(struct sfs_cache_lease *l)
{
	if (l->path && l->fd >= 0)
		sfs_cache_unlink(l->path);
	if (l->fd >= 0)
		close(l->fd);   /* and the flock with it */
	free(l->path);
	free(l->entries);
	*l = (struct sfs_cache_lease){ .fd = -1 };
}
