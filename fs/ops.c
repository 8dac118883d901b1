/*
 * ops.c - the FUSE low-level request handlers: thin lookups in the current
 * generation (or, for an inode only an older generation has, in that one).
 *
 * Speed comes from the kernel's caches, which these replies keep valid
 * for a long time: entries and attributes (also negative entries) for
 * d->timeout seconds, file pages kept across opens, folder listings
 * cached, and open/opendir answered with ENOSYS so the kernel never asks
 * again.  The refresh thread invalidates what changes (generation.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "backing.h"
#include "daemon.h"
#include "file_read.h"
#include "remote_read.h"

/* An inode resolved for one request. */
struct resolved {
	struct gen *g;
	const struct node *n;
	bool current;   /* g came from daemon_get_current */
};

static struct daemon *daemon_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void release(struct resolved *r)
{
	if (!r->g)
		return;
	if (r->current)
		daemon_put_current(r->g);
	else
		gen_unref(r->g);
	r->g = NULL;
}

static bool resolve(struct daemon *d, fuse_ino_t ino, struct resolved *r)
{
	r->g = daemon_get_current(d);
	r->current = true;
	r->n = gen_node(r->g, ino);
	if (r->n)
		return true;
	daemon_put_current(r->g);
	r->current = false;
	r->g = lookups_gen(&d->lookups, ino);
	r->n = r->g ? gen_node(r->g, ino) : NULL;
	if (r->n)
		return true;
	release(r);
	return false;
}

/* resolve() for a request on a folder: on false, the request was answered
 * (ESTALE, ENOTDIR) and nothing is held. */
static bool resolve_dir(fuse_req_t req, struct daemon *d, fuse_ino_t ino,
                        struct resolved *r)
{
	if (!resolve(d, ino, r)) {
		fuse_reply_err(req, ESTALE);
		return false;
	}
	if (!node_is_dir(r->n)) {
		release(r);
		fuse_reply_err(req, ENOTDIR);
		return false;
	}
	return true;
}

static void fill_entry(struct daemon *d, const struct gen *g,
                       const struct node *n, double entry_timeout,
                       struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = n->ino;
	e->attr_timeout = d->timeout;
	e->entry_timeout = entry_timeout;
	gen_stat(g, n, &e->attr);
}

/* ---- lookups and their counts ------------------------------------------ */

static void reply_node(fuse_req_t req, struct daemon *d, struct resolved *r,
                       const struct node *n, double entry_timeout)
{
	struct fuse_entry_param e;

	fill_entry(d, r->g, n, entry_timeout, &e);
	/* counted before the reply, so a quick forget finds the entry */
	if (lookups_add(&d->lookups, n->ino, r->g, 1) < 0) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (fuse_reply_entry(req, &e) != 0)
		lookups_forget(&d->lookups, n->ino, 1);
}

/* How long a lookup waits for the refresh that brings a changed file's
 * new version (it settles first: see refresh.c). */
#define STALE_WAIT_MS 2000

/* Whether a skill file's source no longer holds the bytes g publishes
 * and g keeps no copy of them: a read of it would fail with ESTALE. */
static bool source_moved(const struct gen *g, const struct node *n)
{
	bool borrowed;

	if (n->kind != NODE_SKILL_FILE || gen_kept(g, n) ||
	    !backing_is_watched(g->cat, gen_skill(g, n)->root))
		return false;   /* a git blob does not move */
	int fd = backing_open(g, n, &borrowed);
	if (fd >= 0 && !borrowed)
		close(fd);
	return fd == -ESTALE || fd == -ENOENT || fd == -ENOTDIR;
}

/* The child `name` of r->n, or NULL; *timeout is 0 when neither the
 * match nor its absence may be cached. */
static const struct node *find_child(struct daemon *d, struct resolved *r,
                                     const char *name, double *timeout)
{
	const struct node *c = gen_child(r->g, r->n, name);

	if (!c && d->opt->casefallback && r->n->kind == NODE_SKILL_DIR) {
		/* neither the match nor its absence may be cached: a file
		 * added later could match, or match exactly */
		c = gen_child_nocase(r->g, r->n, name);
		*timeout = 0;
	}
	return c;
}

/*
 * A file rewritten in place since the scan, of which the generation keeps
 * no copy: instead of an entry whose reads fail with ESTALE, the lookup
 * has the refresh publish the new version now and answers from it.  The
 * wait ends as soon as the new generation is current, before it is
 * published to the kernel's caches (which waits for this folder).
 */
static const struct node *await_new_version(fuse_req_t req, fuse_ino_t parent,
                                            const char *name,
                                            struct resolved *r,
                                            double *timeout)
{
	struct daemon *d = daemon_of(req);
	struct timespec t0, t;
	const struct node *c;
	long waited = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		uint64_t seen = r->g->number;
		release(r);
		refresher_stale(d);
		/* a generation that only tells status.json of the change
		 * waiting to settle is newer too: look again */
		daemon_wait_newer(d, seen, (unsigned)(STALE_WAIT_MS - waited));
		if (!resolve(d, parent, r) || !node_is_dir(r->n))
			return NULL;
		c = find_child(d, r, name, timeout);
		clock_gettime(CLOCK_MONOTONIC, &t);
		waited = (t.tv_sec - t0.tv_sec) * 1000 +
		         (t.tv_nsec - t0.tv_nsec) / 1000000;
	} while (c && waited < STALE_WAIT_MS && source_moved(r->g, c));
	return c;
}

/* A name in search/: a new file with the best matches of its words in
 * r's generation (searches.h), never cached as an entry, so that the
 * next lookup searches again. */
static void lookup_search(fuse_req_t req, struct daemon *d,
                          const struct resolved *r, const char *words)
{
	struct fuse_entry_param e = { .attr_timeout = d->timeout };
	char *text = gen_search(r->g, d->mountpoint, words);

	e.attr.st_mode = S_IFREG | 0444;
	e.attr.st_uid = r->g->uid;
	e.attr.st_gid = r->g->gid;
	e.attr.st_mtim = r->g->built;
	if (!text || searches_add(&d->searches, words, r->g->number, text,
	                          &e.attr) < 0) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	e.ino = e.attr.st_ino;
	if (fuse_reply_entry(req, &e) != 0)
		searches_forget(&d->searches, e.ino, 1);
}

static void sfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct daemon *d = daemon_of(req);
	struct resolved r;
	double timeout = d->timeout;

	refresher_touch(d);
	if (!resolve_dir(req, d, parent, &r))
		return;
	if (gen_is_search_dir(r.n)) {
		lookup_search(req, d, &r, name);
		release(&r);
		return;
	}
	const struct node *c = find_child(d, &r, name, &timeout);
	if (c && source_moved(r.g, c))
		c = await_new_version(req, parent, name, &r, &timeout);
	if (!r.g) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	if (c) {
		reply_node(req, d, &r, c, timeout);
	} else {
		struct fuse_entry_param e = { .entry_timeout = timeout };
		fuse_reply_entry(req, &e);
	}
	release(&r);
}

static void forget(struct daemon *d, fuse_ino_t ino, uint64_t nlookup)
{
	if (searches_is(ino))
		searches_forget(&d->searches, ino, nlookup);
	else
		lookups_forget(&d->lookups, ino, nlookup);
}

static void sfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget(daemon_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void sfs_forget_multi(fuse_req_t req, size_t count,
                             struct fuse_forget_data *forgets)
{
	struct daemon *d = daemon_of(req);

	for (size_t i = 0; i < count; i++)
		forget(d, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

/* ---- attributes, links, files ---------------------------------------- */

static void sfs_getattr(fuse_req_t req, fuse_ino_t ino,
                        struct fuse_file_info *fi)
{
	struct daemon *d = daemon_of(req);
	struct resolved r;
	struct stat st;

	(void)fi;
	refresher_touch(d);
	if (searches_is(ino)) {
		int rc = searches_stat(&d->searches, ino, &st);
		if (rc < 0)
			fuse_reply_err(req, -rc);
		else
			fuse_reply_attr(req, &st, d->timeout);
		return;
	}
	if (!resolve(d, ino, &r)) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	gen_stat(r.g, r.n, &st);
	release(&r);
	fuse_reply_attr(req, &st, d->timeout);
}

static void sfs_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct daemon *d = daemon_of(req);
	struct resolved r;

	if (!resolve(d, ino, &r)) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	char buf[PATH_MAX];
	const char *target = gen_link(r.g, r.n, buf);
	if (target)
		fuse_reply_readlink(req, target);
	else
		fuse_reply_err(req, EINVAL);
	release(&r);
}

static void sfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct daemon *d = daemon_of(req);

	(void)ino;
	/* The kernel refuses a write open on the read-only mount already;
	 * this keeps a writable handle from ever being handed out, should
	 * the mount be made some other way. */
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
	} else if (atomic_load(&d->no_open)) {
		fuse_reply_err(req, ENOSYS);   /* never asked again */
	} else {
		fi->keep_cache = 1;
		fuse_reply_open(req, fi);
	}
}

static void sfs_opendir(fuse_req_t req, fuse_ino_t ino,
                        struct fuse_file_info *fi)
{
	struct daemon *d = daemon_of(req);

	(void)ino;
	if (atomic_load(&d->no_opendir)) {
		fuse_reply_err(req, ENOSYS);
	} else {
		fi->keep_cache = 1;
		fi->cache_readdir = 1;
		fuse_reply_open(req, fi);
	}
}

/* A file whose bytes may have to come from a server is read on a worker
 * (remote_read.c): the loop never waits on the network. */
static void read_source(fuse_req_t req, struct gen *g,
                        const struct node *n, size_t size, off_t off)
{
	struct daemon *d = daemon_of(req);
	struct file_bytes b;

	if (!gen_kept(g, n) && backing_may_wait(g, n)) {
		remote_read_submit(d->remote_reads, req, g, n, size, off);
		return;
	}
	file_read_open(d, g, n, &b);
	file_read_reply(req, &b, size, off);
}

static void reply_doc(fuse_req_t req, const struct gen *g,
                      const struct node *n, size_t size, off_t off)
{
	const struct doc *d = gen_doc(g, n);

	if (d->lines) {
		/* index.json, skills_index.json: gathered from the skills'
		 * lines, at most one read's worth */
		char *buf = malloc(size ? size : 1);
		if (!buf) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		int rc = size ? sfs_lines_doc_read(d->lines, (size_t)off,
		                                   size, buf) : 0;
		if (rc < 0)
			fuse_reply_err(req, -rc);
		else
			fuse_reply_buf(req, buf, size);
		free(buf);
		return;
	}
	/* a skill's record is made for the read (the kernel keeps it) */
	char *record = n->skill != TREE_NONE ? gen_record(g, n) : NULL;
	const char *data = n->skill != TREE_NONE ? record : d->data;
	if (!data)
		fuse_reply_err(req, ENOMEM);
	else
		fuse_reply_buf(req, data + (size ? off : 0), size);
	free(record);
}

/* An answer searches.c dropped, made again in its generation when that
 * is still current (the same bytes); ESTALE after a refresh. */
static void read_search_again(fuse_req_t req, struct daemon *d,
                              const struct search_read *sr, size_t size,
                              off_t off)
{
	struct gen *g = daemon_get_current(d);
	bool same = g->number == sr->generation;
	char *text = same ? gen_search(g, d->mountpoint, sr->words) : NULL;

	daemon_put_current(g);
	if (same && !text) {
		fuse_reply_err(req, ENOMEM);
	} else if (!text || strlen(text) != sr->size) {
		fuse_reply_err(req, ESTALE);
	} else {
		size_t from = (size_t)off < sr->size ? (size_t)off : sr->size;
		fuse_reply_buf(req, text + from,
		               sr->size - from < size ? sr->size - from : size);
	}
	free(text);
}

/* A file of search/ (searches.h). */
static void read_search(fuse_req_t req, struct daemon *d, fuse_ino_t ino,
                        size_t size, off_t off)
{
	struct search_read sr;
	int rc = searches_read(&d->searches, ino, off, size, &sr);

	if (rc == -ENODATA)
		read_search_again(req, d, &sr, size, off);
	else if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_buf(req, sr.bytes, sr.n);
	free(sr.bytes);
	free(sr.words);
}

static void sfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
	struct daemon *d = daemon_of(req);
	struct resolved r;

	(void)fi;
	if (searches_is(ino)) {
		read_search(req, d, ino, size, off);
		return;
	}
	if (!resolve(d, ino, &r)) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	const struct node *n = r.n;
	off_t len = gen_size(r.g, n);
	/* never past the size the kernel was told */
	if (off >= len)
		size = 0;
	else if ((off_t)size > len - off)
		size = (size_t)(len - off);
	if (node_is_dir(n))
		fuse_reply_err(req, EISDIR);
	else if (n->kind == NODE_DOC)
		reply_doc(req, r.g, n, size, off);
	else if (n->kind != NODE_SKILL_FILE)
		fuse_reply_err(req, EINVAL);
	else if (size == 0)
		fuse_reply_buf(req, NULL, 0);
	else
		read_source(req, r.g, n, size, off);
	release(&r);
}

/* ---- folders ------------------------------------------------------------ */

/* Entry i of a folder listing: ".", "..", then the children. */
static const struct node *listing_entry(const struct gen *g,
                                        const struct node *dir, off_t i,
                                        const char **name)
{
	if (i == 0) {
		*name = ".";
		return dir;
	}
	if (i == 1) {
		*name = "..";
		return &g->nodes[dir->parent];
	}
	if ((uint64_t)i - 2 >= dir->nkids)
		return NULL;
	const struct node *c = &g->nodes[dir->first + (i - 2)];
	*name = c->name;
	return c;
}

static void forget_listed(struct daemon *d, const struct gen *g,
                          const struct node *dir, off_t from, off_t to)
{
	for (off_t i = from < 2 ? 2 : from; i < to; i++)
		lookups_forget(&d->lookups,
		               g->nodes[dir->first + (i - 2)].ino, 1);
}

static void list_dir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                     bool plus)
{
	struct daemon *d = daemon_of(req);
	struct resolved r;

	refresher_touch(d);
	if (!resolve_dir(req, d, ino, &r))
		return;
	char *buf = malloc(size ? size : 1);
	if (!buf) {
		release(&r);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	size_t pos = 0;
	off_t i = off < 0 ? 0 : off;
	const char *name;
	const struct node *c;
	for (; (c = listing_entry(r.g, r.n, i, &name)); i++) {
		size_t used;
		if (plus) {
			struct fuse_entry_param e;
			fill_entry(d, r.g, c, d->timeout, &e);
			used = fuse_add_direntry_plus(req, buf + pos, size - pos,
			                              name, &e, i + 1);
			if (used <= size - pos && i >= 2 &&
			    lookups_add(&d->lookups, c->ino, r.g, 1) < 0)
				break;
		} else {
			struct stat st = { .st_ino = c->ino,
			                   .st_mode = gen_mode(r.g, c) };
			used = fuse_add_direntry(req, buf + pos, size - pos,
			                         name, &st, i + 1);
		}
		if (used > size - pos)
			break;
		pos += used;
	}
	if (fuse_reply_buf(req, buf, pos) != 0 && plus)
		forget_listed(d, r.g, r.n, off, i);
	free(buf);
	release(&r);
}

static void sfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
                        off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	list_dir(req, ino, size, off, false);
}

static void sfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
                            off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	list_dir(req, ino, size, off, true);
}

static void sfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct daemon *d = daemon_of(req);
	struct statvfs sv = {
		.f_bsize = 4096,
		.f_frsize = 4096,
		.f_namemax = 255,
		.f_flag = ST_RDONLY | ST_NOSUID | ST_NODEV,
	};

	(void)ino;
	struct gen *g = daemon_get_current(d);
	sv.f_files = g->nnodes;
	sv.f_blocks = (fsblkcnt_t)((g->bytes + 4095) / 4096);
	daemon_put_current(g);
	fuse_reply_statfs(req, &sv);
}

/* ---- the session ------------------------------------------------------ */

static void sfs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct daemon *d = userdata;
	const unsigned wanted = FUSE_CAP_NO_OPEN_SUPPORT |
	                        FUSE_CAP_NO_OPENDIR_SUPPORT |
	                        FUSE_CAP_CACHE_SYMLINKS |
	                        FUSE_CAP_READDIRPLUS |
	                        FUSE_CAP_PARALLEL_DIROPS |
	                        FUSE_CAP_ASYNC_READ;

	conn->want |= conn->capable & wanted;
	/* always readdirplus: a cold find then needs no lookups at all,
	 * just two requests per folder (-o readdirplus=auto to change) */
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	/* an inode's content never changes: only invalidation drops pages */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_EXPLICIT_INVAL_DATA)
		conn->want |= FUSE_CAP_EXPLICIT_INVAL_DATA;
	if (d->conn_opts)
		fuse_apply_conn_info_opts(d->conn_opts, conn);
	atomic_store(&d->no_open, (conn->want & FUSE_CAP_NO_OPEN_SUPPORT) != 0);
	atomic_store(&d->no_opendir,
	             (conn->want & FUSE_CAP_NO_OPENDIR_SUPPORT) != 0);
	conn->time_gran = 1;
}

static void sfs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
                         size_t size)
{
	(void)ino; (void)name; (void)size;
	fuse_reply_err(req, ENOSYS);   /* no xattrs: the kernel stops asking */
}

static void sfs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	(void)ino; (void)size;
	fuse_reply_err(req, ENOSYS);
}

/*
 * Only what reads.  The mount is always read-only ("ro", options.c), so
 * the kernel answers EROFS to mkdir, unlink, rename, write, setattr and
 * the like before a request reaches us.
 */
static const struct fuse_lowlevel_ops ops = {
	.init = sfs_init,
	.lookup = sfs_lookup,
	.forget = sfs_forget,
	.forget_multi = sfs_forget_multi,
	.getattr = sfs_getattr,
	.readlink = sfs_readlink,
	.open = sfs_open,
	.read = sfs_read,
	.opendir = sfs_opendir,
	.readdir = sfs_readdir,
	.readdirplus = sfs_readdirplus,
	.statfs = sfs_statfs,
	.getxattr = sfs_getxattr,
	.listxattr = sfs_listxattr,
};

const struct fuse_lowlevel_ops *skillsfs_ops(void)
{
	return &ops;
}
