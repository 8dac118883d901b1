/*
 * cache_gc.h - the cache folder kept under a bound (cache_max): what is
 * in it, what a running mount or a lockfile still needs, and the rest
 * removed, least recently used first.  `skillsfs gc` and the daemon's
 * fetcher both run it.
 *
 * The entries it knows, each removed whole or not at all, are those of
 * the places each kind of source declares (sfs_source_ops.cache_places,
 * grouped by enum sfs_cache_group); today:
 *
 *   git/<name>-<hash>.git     a remote git root's clone
 *   mcp/<name>-<hash>/        an MCP server's listings
 *   mcp/blobs/<sha256>        a verified file of an MCP server; kept
 *                             while a listing of a kept server names it
 *   wellknown/<hash>/         a website's listings (its index)
 *   wellknown/blobs/<sha256>  a verified file of a website, kept while a
 *                             listing of a kept website names it
 *   git-blobs/<id>            a SKILL.md blob's bytes (read again from
 *                             the clone when missing)
 *   git-digests               the digests of git blobs (computed again
 *                             when missing)
 *   git-units/<hash>          a git root's skills as a start built
 *                             them (built again when missing)
 *   folder-units/<hash>       a folder root's skills as a start built
 *                             them (built again when missing)
 *
 * Anything else in the folder is neither counted nor touched, but
 * trash/, where a collection moves what it removes before it deletes it
 * (cache_gc.c says why).  A mount, and a command that fetches (skillsfs
 * check, export), says what it needs with a lease (cache_lease.c): a
 * file of leases/ naming its entries, on which it holds an flock for as
 * long as it runs; a lease nobody holds is a dead process's and is
 * removed, and so is a lease's temporary (.NAME.new) nobody holds that
 * is over a minute old: a writer killed before its rename left it.  A lease is put in place under a shared flock of the folder
 * leases/ itself, which a collection holds exclusively from reading the
 * leases until what it removes is moved out of its place.  Two
 * collections never run at once: each holds the flock of gc.lock.
 *
 * "Used" is the entry's newest mtime at its top: a fetch, a new listing,
 * a lease's start, and a mount's reads (marked by the lease, at most
 * once per entry between two marks) set it.
 */
#ifndef SFS_CACHE_GC_H
#define SFS_CACHE_GC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* cache_max's default: 1 GiB. */
#define SFS_CACHE_MAX_DEFAULT (1L << 30)

/* The folder of leases and the file of the collector's lock, in the
 * cache folder; a lease's name ends with SFS_CACHE_LEASE_SUFFIX. */
#define SFS_CACHE_LEASES "leases"
#define SFS_CACHE_GC_LOCK "gc.lock"
#define SFS_CACHE_LEASE_SUFFIX ".lease"
/* Where a collection moves the entries it removes, then deletes them. */
#define SFS_CACHE_TRASH "trash"

/* Why an entry stays, or that it may go. */
enum sfs_cache_need {
	SFS_CACHE_UNNEEDED,
	SFS_CACHE_LEASED,      /* a running mount's or command's lease
	                          names it */
	SFS_CACHE_PINNED,      /* the caller's keep list names it (a lock) */
	SFS_CACHE_FETCHING,    /* a fetch into it is under way */
	SFS_CACHE_NAMED,       /* a verified file a kept listing names */
};

struct sfs_cache_entry {
	char *name;            /* in the cache folder: "git/x-0123.git" */
	long long bytes;       /* of its regular files */
	time_t used;           /* when last fetched or read (its newest
	                          mtime at its top): least recently used
	                          goes first */
	enum sfs_cache_need need;
	bool dropped;          /* chosen to go (removed unless a dry run) */
	bool failed;           /* chosen, and its removal failed */
	/* an MCP server's folder: the digests its listings name, sorted */
	uint8_t (*digests)[32];
	size_t ndigests;
};

struct sfs_cache_gc {
	struct sfs_cache_entry *v;  /* owned; in the order they were
	                               chosen first, then the others */
	size_t n, cap;
	long long before;           /* bytes of every entry */
	long long after;            /* of those that stay */
	size_t leases;              /* live leases read */
	size_t stale_leases;        /* dead mounts' leases, and the
	                               temporaries of leases their killed
	                               writers left (removed unless a dry
	                               run) */
};

/* What a collection is asked. */
struct sfs_cache_gc_args {
	const char *cache_dir;
	long long max;              /* bytes; entries go until under it */
	const char *const *keep;    /* entry names kept too (a lockfile's
	                               roots' sfs_source_cache_entry) */
	size_t nkeep;
	bool dry_run;               /* choose, remove nothing */
	bool wait;                  /* wait for another collection to end,
	                               rather than -EWOULDBLOCK */
	/* For tests (tests/fs/cache_pause.c), NULL elsewhere: called at
	 * point "listed" (the entries listed; the leases not read yet,
	 * nothing removed) and "moved" (what goes renamed into trash/, the
	 * flock of leases/ let go, nothing deleted yet), so that a test
	 * starts a mount there. */
	void (*pause)(void *arg, const char *point);
	void *pause_arg;
};

/*
 * Surveys the cache folder and, unless a dry run, removes what is chosen:
 * first the verified files no listing names, then, while the bytes of
 * what stays are over a->max, the least recently used entry that nothing
 * needs (and with an MCP server's folder the verified files only it
 * named).  Nothing is followed through a link nor removed outside the
 * folder.  Returns 0 with *out filled (free it with sfs_cache_gc_free),
 * or -errno (-ENOENT: no cache folder; -EPERM: one that fails trust.h's
 * rule; -EWOULDBLOCK: another collection runs, and !a->wait).
 */
int sfs_cache_gc_run(const struct sfs_cache_gc_args *a,
                     struct sfs_cache_gc *out);
void sfs_cache_gc_free(struct sfs_cache_gc *g);

/* The entry of the cache folder that root keeps its state in (a git
 * remote's clone, an MCP server's or a website's folder), relative to
 * cache_dir (malloc'd); NULL when it keeps none (a folder, git+file://)
 * or out of memory.  (source.c, by the kind's cache_path.) */
char *sfs_source_cache_entry(const char *root, const char *cache_dir);

/* ---- cache_lease.c: what a running mount or command needs ------------ */

struct sfs_cache_lease {
	int fd;                     /* held (flock) while the mount runs */
	char *cache_dir;            /* owned */
	char *path;                 /* owned */
	char *entries;              /* one name a line; owned */
	char **root_entries;        /* per root: its entry, or NULL; owned */
	atomic_bool *read;          /* per root: read since the last
	                               sfs_cache_lease_mark_read */
	size_t nroots;
	/* For tests (tests/fs/cache_pause.c), NULL elsewhere: called at
	 * point "refreshing" by sfs_cache_lease_refresh, once the new lease
	 * is written and locked, before it takes the old one's name. */
	void (*pause)(void *arg, const char *point);
	void *pause_arg;
};

/*
 * Takes a lease on the entries of the cache folder that roots keep
 * their state in (sfs_source_cache_entry of each), for as long as the
 * lease is held: a file leases/<pid>-<random>.lease, made with O_EXCL
 * and locked before it has its name, so a collection never sees it
 * unheld.  Each entry is marked used now (its mtime).  Both under a
 * shared flock of leases/: a collection between reading the leases and
 * moving what it removes away makes this wait that long (no removal's
 * deleting).  When no root keeps an entry there, no file is made
 * (out->fd -1).  Returns 0, or -errno.
 */
int sfs_cache_lease_take(const char *cache_dir, const char *const *roots,
                         size_t nroots, struct sfs_cache_lease *out);
/* Holds the flock of cache_dir's leases/ shared (made when missing), as a
 * lease is put in place: a writer of a listing holds it while it stores
 * one, so that a collection, which holds it exclusively from reading the
 * listings until it has moved the verified files none names, either
 * reads that listing or has moved them before it is stored.  Returns the
 * descriptor (closing it lets the flock go) or -errno. */
int sfs_cache_leases_share(const char *cache_dir);
/* Writes the running process's id into the lease again (after a fork
 * that daemonized): a new file, written and locked, renamed over the
 * old one, so a collection reads the lease whole at every moment.
 * 0 or -errno (the old lease is still held then). */
int sfs_cache_lease_refresh(struct sfs_cache_lease *l);
/* Root `root` (an index into the roots the lease was taken for) was
 * read: a flag, set once until the next mark, so that a read path may
 * call it every time; no system call. */
void sfs_cache_lease_read(struct sfs_cache_lease *l, size_t root);
/* Marks the entries of the roots read since the last call used now
 * (their mtime, which cache_gc.c orders by), each once. */
void sfs_cache_lease_mark_read(struct sfs_cache_lease *l);
/* Marks what was read (sfs_cache_lease_mark_read), removes the lease and
 * lets it go. */
void sfs_cache_lease_drop(struct sfs_cache_lease *l);

#endif
