/*
 * cache_lease.c - a running mount's (or a fetching command's) lease on
 * the entries of the cache folder it needs (cache_gc.h): a file of
 * leases/, "pid N" and then one entry's name a line, on which the holder
 * keeps an exclusive flock.  The kernel lets the flock go when the
 * process ends however it ends, so a collection that can take the lock
 * knows the lease is a dead process's: no pid is guessed at, nor reused.
 *
 * The lease also says when an entry was last used, in the entry's mtime
 * (cache_gc.c orders by it): at the start, and for a root the mount read
 * from, at the next mark after the read (the fetcher's turns, the end).
 * A read itself only sets a flag: the read path makes no system call
 * for it, and an entry read a million times is touched once per mark.
 *
 * A lease file is never written in place: each (the first, and the one
 * sfs_cache_lease_refresh writes after a fork) is a new file, locked
 * and written under a temporary name and then renamed over the name, so
 * whoever opens the name finds a whole lease whose holder has it
 * locked.  The holder lets the old file go only after the rename; a
 * collection that opened the old one just before and finds it unlocked
 * sees that the name is another file now and reads that (cache_gc.c's
 * read_lease).
 *
 * The leases are put in place under a shared flock of the folder
 * leases/; a collection holds it exclusively from reading them until it
 * has moved what it removes away (cache_gc.c).  So a start either has
 * its lease read by that collection, or finds what it removed gone
 * whole, never a clone half deleted.  A start waits at most for the
 * reading and the renames, never for the deleting.
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

/* Each root's entry (sfs_source_cache_entry) into l->root_entries, and
 * "NAME\n" for each, once each, into l->entries.  Returns 0 or -ENOMEM. */
static int entries_of(const char *cache_dir, const char *const *roots,
                      size_t n, struct sfs_cache_lease *l)
{
	l->root_entries = calloc(n ? n : 1, sizeof(*l->root_entries));
	l->read = calloc(n ? n : 1, sizeof(*l->read));
	l->entries = strdup("");
	if (!l->root_entries || !l->read || !l->entries)
		return -ENOMEM;
	l->nroots = n;
	for (size_t i = 0; i < n; i++) {
		char *e = sfs_source_cache_entry(roots[i], cache_dir), *more;
		if (!e)
			continue;
		l->root_entries[i] = e;
		size_t len = strlen(e);
		bool dup = false;
		for (const char *p = l->entries; (p = strstr(p, e)); p += len)
			dup |= (p == l->entries || p[-1] == '\n') &&
			       p[len] == '\n';
		if (dup)
			continue;
		if (asprintf(&more, "%s%s\n", l->entries, e) < 0)
			return -ENOMEM;
		free(l->entries);
		l->entries = more;
	}
	return 0;
}

/* Marks entry `name` used now (cache_gc.c's least recently used is the
 * oldest mtime).  An entry that is a link is left as it is. */
static void touch(int cfd, const char *name)
{
	utimensat(cfd, name, NULL, AT_SYMLINK_NOFOLLOW);
}

/* A mount or command that starts uses what it leases. */
static void touch_entries(const char *cache_dir, const char *entries)
{
	int cfd = sfs_trust_dir_open(cache_dir, false, NULL, 0);

	for (const char *p = entries; cfd >= 0 && *p; ) {
		size_t n = strcspn(p, "\n");
		char *name = strndup(p, n);
		if (name)
			touch(cfd, name);
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
	errno = 0;
	if (pwrite(fd, body, n, 0) != (ssize_t)n)
		rc = errno ? -errno : -EIO;
	free(body);
	return rc;
}

/* Makes leases/NAME locked and written under a temporary name, then
 * renames it into place (over l's old lease, when it has one).  Returns
 * its descriptor or -errno. */
static int make_lease(int dfd, const char *name,
                      const struct sfs_cache_lease *l)
{
	char tmp[80];

	snprintf(tmp, sizeof(tmp), ".%s.new", name);
	int fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	                          O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : 0;
	if (rc == 0)
		rc = write_body(fd, l->entries);
	if (rc == 0 && l->pause)
		l->pause(l->pause_arg, "refreshing");
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(dfd, tmp, 0);
		close(fd);
		return rc;
	}
	return fd;
}

static int share_flock(int dfd)
{
	int rc;

	while ((rc = flock(dfd, LOCK_SH)) < 0 && errno == EINTR)
		;
	return rc < 0 ? -errno : 0;
}

int sfs_cache_leases_share(const char *cache_dir)
{
	char *dir;

	if (asprintf(&dir, "%s/%s", cache_dir, SFS_CACHE_LEASES) < 0)
		return -ENOMEM;
	int dfd = sfs_trust_dir_open(dir, true, NULL, 0);
	free(dir);
	int rc = dfd < 0 ? dfd : share_flock(dfd);
	if (rc < 0 && dfd >= 0)
		close(dfd);
	return rc < 0 ? rc : dfd;
}

/* Under the shared flock of leases/ (dfd): the entries marked used and
 * the lease put in place.  Returns the lease's descriptor or -errno. */
static int lease_locked(int dfd, const char *name,
                        const struct sfs_cache_lease *l)
{
	int rc = share_flock(dfd);

	if (rc < 0)
		return rc;
	touch_entries(l->cache_dir, l->entries);
	int fd = make_lease(dfd, name, l);
	flock(dfd, LOCK_UN);
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
	out->cache_dir = strdup(cache_dir);
	if (!out->cache_dir || entries_of(cache_dir, roots, nroots, out) < 0 ||
	    asprintf(&dir, "%s/%s", cache_dir, SFS_CACHE_LEASES) < 0 ||
	    asprintf(&out->path, "%s/%s", dir, name) < 0) {
		free(dir);
		sfs_cache_lease_drop(out);
		return -ENOMEM;
	}
	if (!*out->entries) {
		/* nothing kept there: no lease to take */
		free(dir);
		free(out->path);
		out->path = NULL;
		return 0;
	}
	int dfd = sfs_trust_dir_open(dir, true, NULL, 0);
	free(dir);
	out->fd = dfd < 0 ? dfd : lease_locked(dfd, name, out);
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
	if (l->fd < 0 || !l->path)
		return -EBADF;
	/* the same entries: no need of the flock of leases/, a collection
	 * reads the old lease or the new one, each whole and held */
	char *slash = strrchr(l->path, '/');
	*slash = '\0';
	int dfd = sfs_trust_dir_open(l->path, false, NULL, 0);
	*slash = '/';
	int fd = dfd < 0 ? dfd : make_lease(dfd, slash + 1, l);
	if (dfd >= 0)
		close(dfd);
	if (fd < 0)
		return fd;
	close(l->fd);   /* the old file's flock: its name is the new one's */
	l->fd = fd;
	return 0;
}

void sfs_cache_lease_read(struct sfs_cache_lease *l, size_t root)
{
	/* a load first: a read that finds it set writes nothing, so
	 * readers on several threads do not bounce its cache line */
	if (root < l->nroots &&
	    !atomic_load_explicit(&l->read[root], memory_order_relaxed))
		atomic_store_explicit(&l->read[root], true,
		                      memory_order_relaxed);
}

void sfs_cache_lease_mark_read(struct sfs_cache_lease *l)
{
	int cfd = -1;

	for (size_t i = 0; l->cache_dir && i < l->nroots; i++) {
		if (!l->root_entries[i] ||
		    !atomic_exchange_explicit(&l->read[i], false,
		                              memory_order_relaxed))
			continue;
		if (cfd < 0)
			cfd = sfs_trust_dir_open(l->cache_dir, false, NULL, 0);
		if (cfd >= 0)
			touch(cfd, l->root_entries[i]);
	}
	if (cfd >= 0)
		close(cfd);
}

void sfs_cache_lease_drop(struct sfs_cache_lease *l)
{
	sfs_cache_lease_mark_read(l);
	if (l->path && l->fd >= 0)
		sfs_cache_unlink(l->path);
	if (l->fd >= 0)
		close(l->fd);   /* and the flock with it */
	for (size_t i = 0; l->root_entries && i < l->nroots; i++)
		free(l->root_entries[i]);
	free(l->root_entries);
	free(l->read);
	free(l->cache_dir);
	free(l->path);
	free(l->entries);
	*l = (struct sfs_cache_lease){ .fd = -1 };
}
