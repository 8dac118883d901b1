/*
 * cache_gc.c - the cache folder kept under cache_max (cache_gc.h says
 * what it holds and what stays).
 *
 * One pass: lock out another collection (gc.lock), list the entries
 * with their size and when each was last used, then, holding the flock
 * of leases/ exclusively, read the leases of running mounts, choose, and
 * move what goes into trash/; then, the flock let go, delete trash/.
 * Every folder is opened from the cache folder's descriptor with
 * O_NOFOLLOW and every removal goes through trust.c's
 * sfs_cache_remove_entry, so a link planted in the cache is removed as a
 * link and nothing outside the folder is ever reached.
 *
 * Why so: a mount puts its lease in place under a shared flock of
 * leases/ (cache_lease.c).  With the exclusive one held from reading the
 * leases until the chosen entries are renamed away, a mount that starts
 * during a collection either took its lease before (the collection reads
 * it and keeps what it names) or after (what was chosen is gone, whole:
 * a rename is atomic, and it fetches anew).  What takes long, listing
 * sizes and deleting a large clone, is done without that flock, so a
 * mount's start never waits for it.
 *
 * The same holds for a verified file a running mount's new listing
 * names: a listing is stored under the shared flock too (mcp_fetch.c,
 * wellknown.c), and the listings are read again under the exclusive one
 * before a file is taken for unnamed.
 */
#include <dirent.h>
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
#include "grow.h"
#include "skillsfs.h"
#include "snapshot.h"
#include "source.h"
#include "trust.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define HEX_LEN 64
/* A lease larger than this is not read. */
#define LEASE_MAX (1u << 20)

/* A SERVER is a folder of listings (SFS_CACHE_LISTINGS), a BLOB a
 * verified file one names (SFS_CACHE_BLOBS). */
enum entry_kind { CLONE, SERVER, BLOB, OTHER };

/* What a survey keeps beside the entries it reports. */
struct survey {
	int cfd;                    /* the cache folder */
	int trash;                  /* its trash/, or -1: removed in place */
	unsigned tag;               /* of this pass's names in trash/ */
	struct sfs_cache_gc *out;
	enum entry_kind *kinds;     /* per entry of out */
	size_t kinds_cap;
	char *needed;               /* "\nNAME\n..." of the live leases */
	const struct sfs_cache_gc_args *a;
	const char *place;          /* the place being listed: "mcp" */
};

/* ---- reading ------------------------------------------------------------ */

/* The folder `rel` ("mcp/blobs") under dfd, each part opened without
 * following a link, or -errno. */
static int open_under(int dfd, const char *rel)
{
	char part[256];
	int fd = dup(dfd);

	while (fd >= 0 && *rel) {
		size_t n = strcspn(rel, "/");
		if (n >= sizeof(part)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(part, rel, n);
		part[n] = '\0';
		int next = openat(fd, part, OPEN_DIR);
		int e = errno;
		close(fd);
		if (next < 0)
			return -e;
		fd = next;
		rel += n + (rel[n] == '/');
	}
	return fd < 0 ? -errno : fd;
}

typedef void each_fn(void *arg, int dfd, const char *name,
                     const struct stat *st, const char *prefix);

static void for_each(int dfd, each_fn *each, void *arg, const char *prefix)
{
	int fd = openat(dfd, ".", OPEN_DIR);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || strcmp(de->d_name, "..") == 0))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			each(arg, dfd, de->d_name, &st, prefix);
	}
	closedir(dir);
}

/* ---- leases ------------------------------------------------------------- */

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n > k && strcmp(name + n - k, suffix) == 0;
}

/* Whether dfd's `name` is still the file open as fd. */
static bool still_named(int dfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 &&
	       fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* How old an unlocked temporary of a lease must be before it is taken
 * for a dead writer's: its writer locks it right after making it
 * (cache_lease.c's make_lease), so one this old and unlocked was left by
 * a process killed midway. */
#define TEMPORARY_AGE 60

/* A lease's temporary (".NAME.new") that its writer, killed before the
 * rename, left behind goes.  Under the exclusive flock of leases/ no
 * lease is being taken; a refresh may still be writing one, which it
 * holds locked: kept.  A writer stalled for a minute between making the
 * file and locking it would only find its refresh fail (its rename or
 * its lock), its old lease still held. */
static void drop_temporary(struct survey *s, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                           O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_mtime + TEMPORARY_AGE < time(NULL) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(dfd, name, fd)) {
		s->out->stale_leases++;
		if (!s->a->dry_run)
			unlinkat(dfd, name, 0);
	}
	close(fd);
}

/* A live lease's names join s->needed; a dead mount's lease goes.
 *
 * A holder never writes its lease in place: it locks a new file, renames
 * it over the name, then closes the old (cache_lease.c).  So the text
 * read is whole; and a file found unlocked is a dead holder's only if the
 * name is still that file, which the holder, alive, would have kept
 * locked all along (the name never comes back to an old file).
 * Otherwise a refresh replaced it meanwhile: the name is read again. */
static void read_lease(void *arg, int dfd, const char *name,
                       const struct stat *st, const char *prefix)
{
	struct survey *s = arg;
	int fd = -1;
	char *text = NULL;

	(void)prefix;
	if (S_ISREG(st->st_mode) && name[0] == '.' &&
	    has_suffix(name, SFS_CACHE_LEASE_SUFFIX ".new")) {
		drop_temporary(s, dfd, name);
		return;
	}
	if (!S_ISREG(st->st_mode) || !has_suffix(name, SFS_CACHE_LEASE_SUFFIX))
		return;
	for (int tries = 0; tries < 8; tries++) {
		text = sfs_cache_read_at(dfd, name, LEASE_MAX, &fd);
		if (!text)
			return;   /* gone: its holder has ended */
		if (flock(fd, LOCK_SH | LOCK_NB) < 0)
			break;    /* held: live */
		if (still_named(dfd, name, fd)) {
			/* nobody holds it: its mount has ended */
			s->out->stale_leases++;
			if (!s->a->dry_run)
				unlinkat(dfd, name, 0);
			close(fd);
			free(text);
			return;
		}
		close(fd);
		free(text);
		text = NULL;
	}
	/* live (or replaced eight times over: kept as live all the same) */
	char *more;
	s->out->leases++;
	if (text && asprintf(&more, "%s%s", s->needed, text) >= 0) {
		free(s->needed);
		s->needed = more;
	}
	if (text)
		close(fd);
	free(text);
}

/* Whether line "NAME" is in text, a line of its own. */
static bool names_line(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, name)); p += n)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* ---- entries ------------------------------------------------------------ */

/* When st was last used: its mtime, which a fetch, a new listing and a
 * mount's lease (cache_lease.c) set.  (Not its atime, which reading the
 * cache, the survey's own included, moves.) */
static time_t used_of(const struct stat *st)
{
	return st->st_mtime;
}

static void newest_child(void *arg, int dfd, const char *name,
                         const struct stat *st, const char *prefix)
{
	time_t *t = arg;

	(void)dfd, (void)name, (void)prefix;
	if (used_of(st) > *t)
		*t = used_of(st);
}

/* When a folder's entry was last used: the newest of it and what it
 * holds at its top (a clone's FETCH_HEAD, a server's current). */
static time_t folder_used(int dfd, const char *name, const struct stat *st)
{
	time_t t = used_of(st);
	int fd = openat(dfd, name, OPEN_DIR);

	if (fd < 0)
		return t;
	for_each(fd, newest_child, &t, NULL);
	close(fd);
	return t;
}

static struct sfs_cache_entry *add_entry(struct survey *s, int dfd,
                                         const char *name, const char *prefix,
                                         enum entry_kind kind, time_t used)
{
	struct sfs_cache_gc *g = s->out;
	size_t cap = s->kinds_cap;

	if (sfs_grow(&g->v, &g->cap, g->n + 1, sizeof(*g->v)) < 0 ||
	    sfs_grow(&s->kinds, &cap, g->n + 1, sizeof(*s->kinds)) < 0)
		return NULL;
	s->kinds_cap = cap;
	struct sfs_cache_entry *e = &g->v[g->n];
	*e = (struct sfs_cache_entry){ .used = used };
	if (asprintf(&e->name, "%s%s", prefix, name) < 0)
		return NULL;
	long long bytes = sfs_cache_entry_size(dfd, name);
	e->bytes = bytes < 0 ? 0 : bytes;
	s->kinds[g->n++] = kind;
	g->before += e->bytes;
	return e;
}

static void add_clone(void *arg, int dfd, const char *name,
                      const struct stat *st, const char *prefix)
{
	struct survey *s = arg;
	if (!S_ISDIR(st->st_mode) || !has_suffix(name, ".git"))
		return;   /* a link, a lock file, a fetch's temporary */
	struct sfs_cache_entry *e = add_entry(s, dfd, name, prefix, CLONE,
	                                      folder_used(dfd, name, st));
	char busy[300];
	struct stat b;

	snprintf(busy, sizeof(busy), "%s.fetching", name);
	if (e && fstatat(dfd, busy, &b, AT_SYMLINK_NOFOLLOW) == 0)
		e->need = SFS_CACHE_FETCHING;
}

static int cmp_digest(const void *a, const void *b)
{
	return memcmp(a, b, 32);
}

/* Whether place/name is a place of a kind of its own ("mcp/blobs"). */
static bool is_place(const char *place, const char *name)
{
	const struct sfs_source_ops *k;
	size_t n = strlen(place);

	for (size_t i = 0; (k = sfs_source_kind_at(i)); i++)
		for (const struct sfs_cache_place *p = k->cache_places;
		     p && p->path; p++)
			if (strncmp(p->path, place, n) == 0 &&
			    p->path[n] == '/' && strcmp(p->path + n + 1,
			                                name) == 0)
				return true;
	return false;
}

/* The digests server folder e's listings name, read (again) from the
 * cache folder cfd, sorted. */
static void read_named(int cfd, struct sfs_cache_entry *e)
{
	int fd = open_under(cfd, e->name);

	free(e->digests);
	e->digests = NULL;
	e->ndigests = 0;
	if (fd >= 0) {
		sfs_mcp_listings_named(fd, &e->digests, &e->ndigests);
		close(fd);
	}
	sfs_sort(e->digests, e->ndigests, sizeof(*e->digests), cmp_digest);
}

static void add_server(void *arg, int dfd, const char *name,
                       const struct stat *st, const char *prefix)
{
	struct survey *s = arg;
	if (!S_ISDIR(st->st_mode) || is_place(s->place, name))
		return;
	if (add_entry(s, dfd, name, prefix, SERVER,
	              folder_used(dfd, name, st)))
		read_named(s->cfd, &s->out->v[s->out->n - 1]);
}

/* What the server folders' listings name, read again under the flock of
 * leases/: a running mount may have stored a listing since they were
 * listed that names a verified file already here, which would otherwise
 * look unnamed.  A listing is stored under a shared flock of leases/
 * (mcp_fetch.c), so none is stored from here until the files are moved. */
static void reread_named(struct survey *s)
{
	for (size_t i = 0; i < s->out->n; i++)
		if (s->kinds[i] == SERVER)
			read_named(s->cfd, &s->out->v[i]);
}

static void add_file(void *arg, int dfd, const char *name,
                     const struct stat *st, const char *prefix)
{
	struct survey *s = arg;

	if (S_ISREG(st->st_mode))
		add_entry(s, dfd, name, prefix, OTHER, used_of(st));
}

static void add_blob(void *arg, int dfd, const char *name,
                     const struct stat *st, const char *prefix)
{
	struct survey *s = arg;
	uint8_t sum[32];

	if (S_ISREG(st->st_mode) && strlen(name) == HEX_LEN &&
	    sfs_hex_decode(name, 32, sum, false))
		add_entry(s, dfd, name, prefix, BLOB, used_of(st));
}

/* Lists the entries of one place of a kind (source.h). */
static void list_place(struct survey *s, const struct sfs_cache_place *p)
{
	static each_fn *const each[] = {
		[SFS_CACHE_CLONES] = add_clone,
		[SFS_CACHE_LISTINGS] = add_server,
		[SFS_CACHE_BLOBS] = add_blob,
		[SFS_CACHE_FILES] = add_file,
	};
	char prefix[256];
	struct stat st;

	if (p->group == SFS_CACHE_FILE) {
		if (fstatat(s->cfd, p->path, &st, AT_SYMLINK_NOFOLLOW) == 0)
			add_file(s, s->cfd, p->path, &st, "");
		return;
	}
	int fd = open_under(s->cfd, p->path);
	if (fd < 0)
		return;
	snprintf(prefix, sizeof(prefix), "%s/", p->path);
	s->place = p->path;
	for_each(fd, each[p->group], s, prefix);
	close(fd);
}

/* Lists the entries of the cache folder: the places every kind of source
 * keeps state in (cache_gc.h). */
static void list_entries(struct survey *s)
{
	const struct sfs_source_ops *k;

	for (size_t i = 0; (k = sfs_source_kind_at(i)); i++)
		for (const struct sfs_cache_place *p = k->cache_places;
		     p && p->path; p++)
			list_place(s, p);
}

/* ---- choosing ------------------------------------------------------------ */

static void mark_needs(struct survey *s)
{
	const struct sfs_cache_gc_args *a = s->a;

	for (size_t i = 0; i < s->out->n; i++) {
		struct sfs_cache_entry *e = &s->out->v[i];
		if (e->need)
			continue;
		if (names_line(s->needed, e->name))
			e->need = SFS_CACHE_LEASED;
		for (size_t k = 0; !e->need && k < a->nkeep; k++)
			if (a->keep[k] && strcmp(a->keep[k], e->name) == 0)
				e->need = SFS_CACHE_PINNED;
	}
}

/* Whether a server folder that stays names the digest of blob entry b. */
static bool blob_named(const struct survey *s, const struct sfs_cache_entry *b)
{
	uint8_t sum[32];

	if (!sfs_hex_decode(strrchr(b->name, '/') + 1, 32, sum, false))
		return false;
	for (size_t i = 0; i < s->out->n; i++) {
		const struct sfs_cache_entry *e = &s->out->v[i];
		if (s->kinds[i] == SERVER && !e->dropped && e->ndigests &&
		    bsearch(sum, e->digests, e->ndigests, sizeof(*e->digests),
		            cmp_digest))
			return true;
	}
	return false;
}

/* Drops the verified files that no server folder that stays names. */
static void drop_unnamed_blobs(struct survey *s, long long *total)
{
	for (size_t i = 0; i < s->out->n; i++) {
		struct sfs_cache_entry *e = &s->out->v[i];
		if (s->kinds[i] != BLOB || e->dropped)
			continue;
		if (blob_named(s, e)) {
			e->need = SFS_CACHE_NAMED;
		} else if (*total > s->a->max) {
			e->need = SFS_CACHE_UNNEEDED;
			e->dropped = true;
			*total -= e->bytes;
		}
	}
}

/* The least recently used entry that may go and is not gone, or -1. */
static long oldest(const struct survey *s)
{
	long best = -1;

	for (size_t i = 0; i < s->out->n; i++) {
		const struct sfs_cache_entry *e = &s->out->v[i];
		if (e->dropped || e->need || s->kinds[i] == BLOB)
			continue;
		if (best < 0 || e->used < s->out->v[best].used)
			best = (long)i;
	}
	return best;
}

static void choose(struct survey *s)
{
	long long total = s->out->before;
	long i;

	drop_unnamed_blobs(s, &total);
	while (total > s->a->max && (i = oldest(s)) >= 0) {
		s->out->v[i].dropped = true;
		total -= s->out->v[i].bytes;
		if (s->kinds[i] == SERVER) {
			/* its files, unless another server names them */
			for (size_t k = 0; k < s->out->n; k++)
				if (s->kinds[k] == BLOB &&
				    s->out->v[k].need == SFS_CACHE_NAMED)
					s->out->v[k].need = SFS_CACHE_UNNEEDED;
			drop_unnamed_blobs(s, &total);
		}
	}
	s->out->after = total;
}

/* ---- removing ----------------------------------------------------------- */

/* The name in trash/ of entry i of this pass. */
static void trash_name(const struct survey *s, size_t i, char *buf,
                       size_t len)
{
	snprintf(buf, len, "%08x-%zu", s->tag, i);
}

/* Moves entry `base` of folder pfd into trash/ as entry i's name, or,
 * without a trash/ of the same filesystem, removes it in place. */
static int move_away(const struct survey *s, int pfd, const char *base,
                     size_t i)
{
	char to[32];

	trash_name(s, i, to, sizeof(to));
	if (s->trash >= 0 && renameat(pfd, base, s->trash, to) == 0)
		return 0;
	if (s->trash >= 0 && errno != EXDEV)
		return errno == ENOENT ? 0 : -errno;
	return sfs_cache_remove_entry(pfd, base);
}

/* A clone is moved away under its fetch lock (git_fetch.c's
 * CLONE.fetching), so a fetch of a command that holds no lease is never
 * cut short. */
static int move_clone(const struct survey *s, int pfd, const char *base,
                      size_t i)
{
	char lock[300];

	snprintf(lock, sizeof(lock), "%s.fetching", base);
	int fd = openat(pfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	                0600);
	if (fd < 0)
		return -errno;
	int rc = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : 0;
	if (rc == 0)
		rc = move_away(s, pfd, base, i);
	unlinkat(pfd, lock, 0);
	close(fd);
	return rc;
}

static void chosen_failed(struct survey *s, struct sfs_cache_entry *e)
{
	e->failed = true;
	s->out->after += e->bytes;
}

/* Moves the chosen entries out of their places (under the flock of
 * leases/: quick, a rename each). */
static void move_chosen(struct survey *s)
{
	for (size_t i = 0; i < s->out->n; i++) {
		struct sfs_cache_entry *e = &s->out->v[i];
		if (!e->dropped)
			continue;
		char *slash = strrchr(e->name, '/');
		int pfd = s->cfd;
		if (slash) {
			*slash = '\0';
			pfd = open_under(s->cfd, e->name);
			*slash = '/';
		}
		const char *base = slash ? slash + 1 : e->name;
		int rc = pfd < 0 ? pfd : s->kinds[i] == CLONE ?
		         move_clone(s, pfd, base, i) :
		         move_away(s, pfd, base, i);
		if (rc < 0)
			chosen_failed(s, e);
		if (pfd >= 0 && pfd != s->cfd)
			close(pfd);
	}
}

/* Deletes what move_chosen moved into trash/ (the flock of leases/ let
 * go: a mount may start meanwhile; what it needs is no longer here). */
static void delete_moved(struct survey *s)
{
	char name[32];
	struct stat st;

	for (size_t i = 0; s->trash >= 0 && i < s->out->n; i++) {
		struct sfs_cache_entry *e = &s->out->v[i];
		if (!e->dropped || e->failed)
			continue;
		trash_name(s, i, name, sizeof(name));
		if (fstatat(s->trash, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    sfs_cache_remove_entry(s->trash, name) < 0)
			chosen_failed(s, e);
	}
}

static void remove_leftover(void *arg, int dfd, const char *name,
                            const struct stat *st, const char *prefix)
{
	(void)arg, (void)st, (void)prefix;
	sfs_cache_remove_entry(dfd, name);
}

/* Opens trash/ (made when missing) and deletes what a collection that
 * was ended midway left there.  -1 when it cannot be had: entries are
 * then removed in place. */
static int open_trash(int cfd)
{
	if (mkdirat(cfd, SFS_CACHE_TRASH, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = open_under(cfd, SFS_CACHE_TRASH);
	if (fd >= 0)
		for_each(fd, remove_leftover, NULL, NULL);
	return fd < 0 ? -1 : fd;
}

/* The flock of leases/ (made when missing), exclusively: no lease is put
 * in place while it is held.  A dry run removes nothing and needs none.
 * Returns the folder's descriptor, or -errno. */
static int lock_leases(const struct survey *s)
{
	int rc;

	if (!s->a->dry_run && mkdirat(s->cfd, SFS_CACHE_LEASES, 0700) < 0 &&
	    errno != EEXIST)
		return -errno;
	int fd = open_under(s->cfd, SFS_CACHE_LEASES);
	if (fd < 0 || s->a->dry_run)
		return fd;
	while ((rc = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* ---- the whole ---------------------------------------------------------- */

static int lock_out_others(int cfd, bool wait)
{
	int fd = openat(cfd, SFS_CACHE_GC_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW |
	                                        O_CLOEXEC, 0600);
	if (fd < 0 && errno == ELOOP) {   /* a link in its place */
		unlinkat(cfd, SFS_CACHE_GC_LOCK, 0);
		fd = openat(cfd, SFS_CACHE_GC_LOCK, O_RDWR | O_CREAT | O_EXCL |
		                                    O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Under the flock of leases/: what running mounts lease, what goes, and
 * that moved out of its place.  0 or -errno. */
static int choose_and_move(struct survey *s)
{
	int lfd = lock_leases(s);

	if (lfd < 0 && !s->a->dry_run)   /* what mounts lease is unknown */
		return lfd == -ENOENT ? -EIO : lfd;
	if (lfd >= 0)
		for_each(lfd, read_lease, s, NULL);
	reread_named(s);
	mark_needs(s);
	choose(s);
	if (!s->a->dry_run)
		move_chosen(s);
	if (lfd >= 0)
		close(lfd);   /* and its flock: mounts start again */
	return 0;
}

/* Puts the chosen entries first, in the order they were chosen (least
 * recently used first), then those that stay. */
static int cmp_report(const void *a, const void *b)
{
	const struct sfs_cache_entry *x = a, *y = b;

	if (x->dropped != y->dropped)
		return x->dropped ? -1 : 1;
	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->name, y->name);
}

int sfs_cache_gc_run(const struct sfs_cache_gc_args *a,
                     struct sfs_cache_gc *out)
{
	struct survey s = { .out = out, .a = a, .trash = -1 };

	memset(out, 0, sizeof(*out));
	s.cfd = sfs_trust_dir_open(a->cache_dir, false, NULL, 0);
	if (s.cfd < 0)
		return s.cfd;
	int lock = lock_out_others(s.cfd, a->wait);
	if (lock < 0) {
		close(s.cfd);
		return lock;
	}
	if (getrandom(&s.tag, sizeof(s.tag), 0) != sizeof(s.tag))
		s.tag = (unsigned)getpid();
	if (!a->dry_run)
		s.trash = open_trash(s.cfd);
	s.needed = strdup("");
	int rc = s.needed ? 0 : -ENOMEM;
	if (rc == 0) {
		list_entries(&s);
		if (a->pause)
			a->pause(a->pause_arg, "listed");
		rc = choose_and_move(&s);
	}
	if (rc == 0) {
		if (a->pause)
			a->pause(a->pause_arg, "moved");
		if (!a->dry_run)
			delete_moved(&s);
		sfs_sort(out->v, out->n, sizeof(*out->v), cmp_report);
	}
	if (s.trash >= 0) {
		close(s.trash);
		unlinkat(s.cfd, SFS_CACHE_TRASH, AT_REMOVEDIR);
	}
	free(s.needed);
	free(s.kinds);
	close(lock);
	close(s.cfd);
	if (rc < 0)
		sfs_cache_gc_free(out);
	return rc;
}

void sfs_cache_gc_free(struct sfs_cache_gc *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].name);
		free(g->v[i].digests);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}
