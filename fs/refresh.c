/*
 * refresh.c - live refresh: one thread notices changes in the sources,
 * rebuilds the catalog (reusing the digests of unchanged files), and
 * publishes the new generation (generation.c), which also invalidates the
 * kernel's caches for what changed.  Invalidation runs on this thread,
 * never inside a request handler.
 *
 * inotify mode: every folder the catalog read is watched, plus the nearest
 * existing ancestor of a missing root; events are debounced (quiet for
 * `debounce` ms, at most 4 x debounce after the first), and a change is
 * published only once it has settled (see SETTLE_LOOK_MS); a queue
 * overflow re-adds every watch and rescans.  The roots' own identities
 * are looked at every second.
 *
 * polling mode (inotify unavailable, out of watches, a root on a network
 * filesystem, or -o polling): the fingerprint of the sources is compared
 * every `poll_interval` ms, and sooner when a request arrives after a
 * longer pause.
 *
 * Only folders are watched or polled.  A git root serves one commit until
 * SIGHUP, which rebuilds at once with every git root resolved again (a
 * followed branch's new commit); rebuilds for a folder's change keep the
 * commits served.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "backing.h"
#include "grow.h"
#include "daemon.h"
#include "fingerprint.h"
#include "report.h"
#include "settle.h"
#include "settle_signs.h"
#include "source.h"
#include "watch.h"

#define POLL_CTIME_MARGIN_MS 2000LL
/* Settling.  A change is published once its writers are done: in inotify
 * mode when no file written to is still open for writing and nothing
 * changed while the build read the sources, in polling mode when two
 * looks SETTLE_LOOK_MS apart see the same fingerprint, and in both when
 * the settle policy finds no skill in doubt (judge(), settle.h).  Past
 * settle_max() of writing the build is published anyway, each skill
 * still in doubt served as it was (held): an author who never stops
 * editing keeps the last settled version of that skill in the mount,
 * and holds back no other skill's change longer than that. */
#define SETTLE_LOOK_MS 100LL
/* A skill held as it was (settle.h) is looked at again at every change,
 * and, while nothing tells of one, this long after the last look: by
 * then what was gone a moment ago has been left alone long enough, and
 * a file held open for writing for good costs a build every 2 s. */
#define HELD_LOOK_MS SETTLE_QUIET_MS
/* How often the roots themselves are looked at: a root replaced by
 * another filesystem (a tmpfs unmounted lazily and mounted again, an NFS
 * remount) sends no event to the watches on the old one. */
#define ROOT_CHECK_MS 1000LL
/* Files copied per turn of the refresh loop while it fills a generation
 * with copies of its bytes (retain.h), between looks at the events. */
#define FILL_BATCH 64

/* What a root path leads to. */
struct root_id {
	dev_t dev;
	ino_t ino;
	bool exists;
};

struct refresher {
	pthread_t thread;
	bool started;
	int wake;                /* eventfd: stop, or check now */
	int hup;                 /* eventfd: SIGHUP came (on_hup) */
	bool resolve;            /* the build resolves git roots again */
	atomic_bool stop;
	struct watcher w;        /* fd -1 in polling mode */
	bool again;              /* re-add every watch at the next sync */
	bool rescan;             /* something vanished while syncing */
	uint64_t fp;             /* polling: fingerprint of the sources */
	uint64_t settle_fp;      /* polling: a new fingerprint, looked at
	                          * again before a build (0: none) */
	long long settle_since;  /* polling: when settle_fp was first seen */
	uint64_t fill_gen;       /* the generation being filled with copies */
	uint32_t fill_at;        /* its next node to copy */
	bool fill_large;         /* the pass of the files over
	                          * RETAIN_FILE_MAX (fill_pending) */
	bool fill_done;
	struct root_id *roots;   /* per root, as the last build saw it */
	long long roots_checked; /* CLOCK_MONOTONIC ms */
	bool deferred;           /* a build was dropped: wait for quiet */
	bool confirming;         /* a build lost a skill, and no event came
	                          * since: the next one may publish that */
	atomic_llong last_check; /* polling: CLOCK_MONOTONIC ms */
	atomic_bool urgent;      /* a read found a source newer than the
	                          * current generation: no debounce */
	bool blind;              /* the next build must look at every file:
	                          * what changed is not known from events */
	/* status.json's "pending": the change the last dropped build saw,
	 * and the skills of the current catalog it would change (valid
	 * while that catalog is current: published by this thread only) */
	bool pending;
	struct timespec pending_since;
	const char *pending_why;           /* static */
	const struct sfs_skill **stale;    /* malloc'd */
	size_t nstale;
	/* The folders of the skills the current generation serves as they
	 * were while their authors are at work (settle.h), each malloc'd */
	char **held;
	size_t nheld;
	long long held_at;       /* CLOCK_MONOTONIC ms of the last build
	                          * that held them */
	long long look_after;    /* CLOCK_MONOTONIC ms: no build before
	                          * (what went waits to be left alone) */
	/* What the watches' paths point into (watcher_sync borrows them):
	 * the folders of this catalog, and these strings. */
	sfs_catalog *watched;    /* one reference, or NULL */
	char **owned;            /* each malloc'd */
	size_t nowned;
};

static long long now_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* -o settle_max=MS: the longest a change waits for its writers. */
static long long settle_max(const struct daemon *d)
{
	return d->opt->settle_max_ms;
}

/* Network and FUSE filesystems: inotify does not see remote changes. */
static bool remote_fs(const char *path)
{
	static const long magic[] = {
		0x6969,      /* NFS */
		0x517B,      /* SMB */
		(long)0xFF534D42, /* CIFS */
		(long)0xFE534D42, /* SMB2 */
		0x65735546,  /* FUSE */
		0x01021997,  /* 9P */
		0x00C36400,  /* Ceph */
		0x5346414F,  /* AFS */
		0x73757245,  /* Coda */
		0x564C,      /* NCP */
	};
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return false;
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((long)sf.f_type == magic[i])
			return true;
	return false;
}

static void use_polling(struct daemon *d, const char *why)
{
	struct refresher *r = d->refresher;

	if (r->w.fd >= 0)
		watcher_close(&r->w);
	r->w.fd = -1;
	atomic_store(&d->polling, true);
	if (why)
		fprintf(stderr, "skillsfs: %s; checking the sources every "
		        "%u ms instead (-o poll_interval=MS)\n", why,
		        d->opt->poll_interval_ms);
}

int refresher_init(struct daemon *d)
{
	struct refresher *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->w.fd = -1;
	r->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->hup = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->wake < 0 || r->hup < 0) {
		int rc = -errno;
		if (r->wake >= 0)
			close(r->wake);
		if (r->hup >= 0)
			close(r->hup);
		free(r);
		return rc;
	}
	r->roots = calloc(d->opt->roots.n ? d->opt->roots.n : 1,
	                  sizeof(*r->roots));
	if (!r->roots) {
		close(r->wake);
		close(r->hup);
		free(r);
		return -ENOMEM;
	}
	d->refresher = r;
	/* settle_signs.c holds a read lease for an instant; a writer
	 * that opens the file then makes the kernel send the daemon SIGIO,
	 * whose default action would end it */
	signal(SIGIO, SIG_IGN);
	atomic_store(&r->last_check, now_ms(CLOCK_MONOTONIC));
	if (d->opt->force_polling) {
		use_polling(d, NULL);
		return 0;
	}
	for (size_t i = 0; i < d->opt->roots.n; i++) {
		const char *root = d->opt->roots.paths[i];
		if ((sfs_source_caps(root) & SFS_SOURCE_WATCHED) &&
		    remote_fs(root)) {
			use_polling(d, NULL);
			return 0;
		}
	}
	int rc = watcher_init(&r->w);
	if (rc < 0) {
		r->w.fd = -1;
		use_polling(d, "inotify is not available");
	}
	return 0;
}

/* ---- what to watch ------------------------------------------------------ */

struct want_list {
	struct want *v;
	size_t n, cap;
	char **owned;      /* strings made here */
	size_t nowned;
};

static int want_add(struct want_list *l, const char *path, const char *only)
{
	if (sfs_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = (struct want){ path, only };
	return 0;
}

static char *want_own(struct want_list *l, char *s)
{
	char **v = s ? realloc(l->owned, (l->nowned + 1) * sizeof(*v)) : NULL;

	if (!v) {
		free(s);
		return NULL;
	}
	l->owned = v;
	l->owned[l->nowned++] = s;
	return s;
}

/* A missing root: watch its nearest existing ancestor for the name of the
 * next folder on the way down. */
static int want_ancestor(struct want_list *l, const char *root)
{
	char *dir = want_own(l, strdup(root));
	struct stat st;

	if (!dir)
		return -ENOMEM;
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return 0;
		const char *next = root + (slash - dir) + 1;
		size_t len = strcspn(next, "/");
		if (slash == dir)
			slash[1] = '\0';   /* "/" */
		else
			*slash = '\0';
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *only = want_own(l, strndup(next, len));
			if (!only)
				return -ENOMEM;
			return want_add(l, dir, only);
		}
		if (slash == dir)
			return 0;
	}
}

static int wanted(const struct daemon *d, const sfs_catalog *cat,
                  struct want_list *l)
{
	size_t n;
	const char *const *dirs = sfs_catalog_dirs(cat, &n);
	struct stat st;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = want_add(l, dirs[i], NULL);
	for (size_t i = 0; i < d->opt->roots.n && rc == 0; i++) {
		const char *root = d->opt->roots.paths[i];
		if (!(sfs_source_caps(root) & SFS_SOURCE_WATCHED))
			continue;   /* not a folder: resolved on update */
		if (stat(root, &st) == 0 && S_ISDIR(st.st_mode))
			rc = want_add(l, root, NULL);
		else
			rc = want_ancestor(l, root);
	}
	/* a docs folder that exists is among the catalog's folders */
	const char *docs = d->opt->docs_dir;
	if (rc == 0 && docs && (stat(docs, &st) < 0 || !S_ISDIR(st.st_mode)))
		rc = want_ancestor(l, docs);
	return rc;
}

static void free_owned(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Keeps cat and the strings made for l, which the watches' paths now
 * point into, and lets go of the previous ones. */
static void keep_paths(struct refresher *r, sfs_catalog *cat,
                       struct want_list *l)
{
	free(l->v);
	free_owned(r->owned, r->nowned);
	r->owned = l->owned;
	r->nowned = l->nowned;
	sfs_catalog_unref(r->watched);
	r->watched = sfs_catalog_ref(cat);
}

/* In inotify mode, has the build watch each folder before listing it
 * (sfs_config.before_listing). */
static void prepare(struct daemon *d, struct build_inputs *in)
{
	struct refresher *r = d->refresher;

	/* the build runs on this thread, or before it starts: polling
	 * cannot be switched on meanwhile */
	if (atomic_load(&d->polling) || r->w.fd < 0)
		return;
	in->before_listing = watcher_before_listing;
	in->before_listing_arg = &r->w;
}

/* Whether ctime is later than POLL_CTIME_MARGIN_MS before start.  The
 * margin covers a change made in the clock tick in which the build began
 * (its ctime is earlier than the start) and filesystems with 2 s
 * timestamps, as the catalog's own ctime margin does. */
static bool changed_near(const struct timespec *ctime, struct timespec start)
{
	long long ns = ((long long)ctime->tv_sec - start.tv_sec) * 1000000000LL +
	               (ctime->tv_nsec - start.tv_nsec);

	return ns > -POLL_CTIME_MARGIN_MS * 1000000LL;
}

static struct root_id root_id(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return (struct root_id){ 0 };
	return (struct root_id){ st.st_dev, st.st_ino, true };
}

/* Notes what each root leads to now; returns whether any differs from
 * what the last note said. */
static bool roots_moved(struct daemon *d)
{
	struct refresher *r = d->refresher;
	bool moved = false;

	for (size_t i = 0; r->roots && i < d->opt->roots.n; i++) {
		if (!(sfs_source_caps(d->opt->roots.paths[i]) &
		      SFS_SOURCE_WATCHED))
			continue;
		struct root_id now = root_id(d->opt->roots.paths[i]);
		moved |= now.exists != r->roots[i].exists ||
		         now.dev != r->roots[i].dev ||
		         now.ino != r->roots[i].ino;
		r->roots[i] = now;
	}
	r->roots_checked = now_ms(CLOCK_MONOTONIC);
	return moved;
}

/* Watches what the new catalog read (inotify mode).  Returns the refresh
 * mode the catalog's generation will be served with. */
static const char *sync_watches(void *arg, sfs_catalog *cat)
{
	struct daemon *d = arg;
	struct refresher *r = d->refresher;

	/* before the build's watches are compared: the roots it read */
	roots_moved(d);

	if (!atomic_load(&d->polling)) {
		struct want_list l = { 0 };
		int rc = wanted(d, cat, &l);
		if (rc == 0)
			rc = watcher_sync(&r->w, l.v, l.n, r->again);
		r->again = false;
		if (rc == -ENOSPC)
			use_polling(d, "out of inotify watches "
			            "(fs.inotify.max_user_watches)");
		else if (rc < 0)
			use_polling(d, "cannot watch the sources");
		else if (rc > 0)
			r->rescan = true;
		/* after a failure the watcher is closed: nothing points
		 * into the previous paths any more */
		keep_paths(r, cat, &l);
	}
	if (atomic_load(&d->polling)) {
		struct timespec newest;
		r->fp = fingerprint(cat, &d->opt->roots, &newest);
		/* A change after the build read a file but before this
		 * fingerprint is in the fingerprint and not in the
		 * generation: nothing would tell.  So while anything changed
		 * too close to the build's start, build again. */
		if (changed_near(&newest, sfs_catalog_started(cat)))
			r->rescan = true;
		atomic_store(&r->last_check, now_ms(CLOCK_MONOTONIC));
	}
	return atomic_load(&d->polling) ? "polling" : "inotify";
}

/* build_inputs.found: a build says it now, not at the next fetch. */
static void found(void *d)
{
	refresher_reload(d);
}

struct gen *refresher_build(struct daemon *d, const struct gen *prev,
                            const char *const *changed, size_t nchanged)
{
	struct build_inputs in = {
		.changed = changed, .nchanged = nchanged,
		.built = sync_watches, .built_arg = d,
		.found = found, .resolve_sources = d->refresher->resolve,
	};

	prepare(d, &in);
	return daemon_build(d, prev, &in);
}

/* ---- building ------------------------------------------------------------ */

/* Builds the next generation.  A file that changed again between the scan
 * and its pinning could not be served (backing.c); such a generation is
 * built again at once, a few times, so that under a stream of edits a
 * generation still serves whole versions of what changed. */
/* Whether anything changed in the sources while a build read them: the
 * build may then hold a state no writer meant to leave (a file truncated
 * and not yet written again, a checkout halfway through). */
static bool changed_meanwhile(struct refresher *r)
{
	if (r->w.fd < 0)
		return false;
	r->deferred = (watcher_drain(&r->w) & WATCH_CHANGED) != 0;
	if (r->deferred)
		r->confirming = false;   /* not quiet since the last look */
	return r->deferred;
}

/* ---- settling, skill by skill (settle.h) -------------------------------- */

/* What the settle policy makes of a build (judge()). */
struct judgement {
	bool wait;                 /* the build waits */
	bool shrunk_only;          /* ... only for a second look */
	bool recent_only;          /* ... only for a folder or file that
	                            * changed a moment ago to be left alone */
	const char *why;           /* static: why it waits */
	const char **held;         /* malloc'd: skill folders to serve as
	                            * they were, borrowed from the current
	                            * catalog */
	size_t nheld, cap;
};

static bool is_held(const struct refresher *r, const char *dir)
{
	for (size_t i = 0; i < r->nheld; i++)
		if (strcmp(r->held[i], dir) == 0)
			return true;
	return false;
}

static const char *why_of(unsigned signs)
{
	if (signs & SETTLE_WRITING)
		return "a file is still open for writing";
	if (signs & SETTLE_CHANGING)
		return "a file changed again before it could be held";
	return "a skill or a file is gone: a second look after a quiet "
	       "spell must agree";
}

/* Adds the verdict on one skill s of the current generation to j. */
static int judge_one(struct refresher *r, const struct sfs_skill *s,
                     unsigned signs, bool forced, struct judgement *j)
{
	struct settle_case c = {
		.forced = forced, .held = is_held(r, s->dir),
		.confirmed = r->confirming,
	};
	enum settle_verdict v = settle_judge(signs, c);

	if (v == SETTLE_WAIT) {
		if (!j->wait || (signs & ~(SETTLE_SHRUNK | SETTLE_RECENT)))
			j->why = why_of(signs);
		bool writer = signs & (SETTLE_WRITING | SETTLE_CHANGING);
		j->shrunk_only = (!j->wait || j->shrunk_only) && !writer;
		j->recent_only = (!j->wait || j->recent_only) && !writer &&
		                 (signs & SETTLE_RECENT);
		j->wait = true;
	} else if (v == SETTLE_HOLD) {
		if (sfs_grow(&j->held, &j->cap, j->nheld + 1,
		             sizeof(*j->held)) < 0)
			return -ENOMEM;
		j->held[j->nheld++] = s->dir;
	}
	return 0;
}

/*
 * Judges what g would change of the current generation, skill by skill
 * (settle.h): whether the build waits, and which skills in doubt it
 * would serve as they were.  Only folders settle: a git commit or an MCP
 * listing cannot be caught halfway.  Returns 0 or -ENOMEM.
 */
static int judge(struct daemon *d, const struct gen *g, bool forced,
                 struct judgement *j)
{
	struct refresher *r = d->refresher;
	const struct gen *cur = d->cur;
	unsigned *signs = settle_file_signs(cur, g);
	int rc = signs ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < sfs_catalog_nskills(g->cat); i++) {
		const struct sfs_skill *t = sfs_catalog_skill(g->cat, i);
		const struct sfs_skill *s = sfs_catalog_find(cur->cat, t->id);
		if (s == t || (s && !backing_is_watched(cur->cat, s->root)))
			continue;   /* a skill taken unchanged is the same */
		if (!s) {
			/* a new skill has no last version to serve */
			if (!forced && (signs[i] & (SETTLE_WRITING |
			                            SETTLE_CHANGING))) {
				j->why = why_of(signs[i]);
				j->wait = true;
				j->shrunk_only = j->recent_only = false;
			}
			continue;
		}
		rc = judge_one(r, s, signs[i] | settle_lost_signs(s, t),
		               forced, j);
	}
	for (size_t i = 0; rc == 0 && i < sfs_catalog_nskills(cur->cat); i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cur->cat, i);
		if (!sfs_catalog_find(g->cat, s->id) &&
		    backing_is_watched(cur->cat, s->root))
			rc = judge_one(r, s, settle_gone_signs(s), forced, j);
	}
	free(signs);
	return rc;
}

/* Whether two readings of a skill serve the same files. */
static bool same_files(const struct sfs_skill *a, const struct sfs_skill *b)
{
	if (a->nfiles != b->nfiles)
		return false;
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct sfs_file *x = &a->files[i], *y = &b->files[i];
		if (strcmp(x->path, y->path) || x->mode != y->mode ||
		    x->size != y->size || x->hashed != y->hashed ||
		    (x->hashed && memcmp(x->sha256, y->sha256, 32)))
			return false;
	}
	return true;
}

/* The skills of the current generation that g would change or remove,
 * into a malloc'd array (NULL with *n 0 when none, or out of memory). */
static const struct sfs_skill **stale_skills(const struct gen *cur,
                                             const struct gen *g, size_t *n)
{
	size_t total = sfs_catalog_nskills(cur->cat);
	const struct sfs_skill **v = malloc((total ? total : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < total; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cur->cat, i);
		const struct sfs_skill *t = sfs_catalog_find(g->cat, s->id);
		if (t != s && (!t || !same_files(s, t)))
			v[(*n)++] = s;
	}
	return v;
}

/*
 * A build was dropped: g, what the sources hold now, waits to settle.
 * status.json says so (a generation of the current catalog with a new
 * status.json), when what it would say changed.  Takes g's reference:
 * g goes before that generation is made, so that the current one, g
 * and the new one are never all held at once (at 10,000 skills, a
 * removed skill's dropped builds raised the peak RSS by 4-5 MiB).
 */
static void note_pending(struct daemon *d, struct gen *g, const char *why)
{
	struct refresher *r = d->refresher;
	size_t n;
	/* pointers into the current catalog, not into g's */
	const struct sfs_skill **v = stale_skills(d->cur, g, &n);

	gen_unref(g);
	if (!v)
		return;
	if (r->pending && r->pending_why == why && r->nstale == n &&
	    (n == 0 || !memcmp(r->stale, v, n * sizeof(*v)))) {
		free(v);
		return;   /* status.json already says this */
	}
	if (!r->pending)
		clock_gettime(CLOCK_REALTIME, &r->pending_since);
	free(r->stale);
	r->stale = v;
	r->nstale = n;
	r->pending = true;
	r->pending_why = why;
	struct sfs_status_pending p = {
		.since = r->pending_since, .why = why,
		.stale = r->stale, .nstale = r->nstale,
	};
	struct gen *s = daemon_restatus(d, &p);
	if (s)
		daemon_publish(d, s);
}

/* A generation from the sources is published: nothing waits. */
static void clear_pending(struct refresher *r)
{
	free(r->stale);
	r->stale = NULL;
	r->nstale = 0;
	r->pending = false;
}

/* Builds again with j's skills served as they were, adding those the
 * new build finds in doubt too, a few times at most: a build published
 * at last must not wait for a writer that never stops. */
static struct gen *build_holding(struct daemon *d, const char *const *seen,
                                 size_t nseen, struct judgement *j)
{
	struct gen *g = NULL;

	for (int tries = 0; tries < 3; tries++) {
		struct build_inputs in = {
			.changed = seen, .nchanged = nseen,
			.held = j->held, .nheld = j->nheld,
			.built = sync_watches, .built_arg = d,
			.found = found, .resolve_sources = d->refresher->resolve,
		};
		prepare(d, &in);
		if (g)
			gen_unref(g);
		g = daemon_build(d, d->cur, &in);
		struct judgement more = { 0 };
		if (!g || judge(d, g, true, &more) < 0 || !more.nheld) {
			free(more.held);
			return g;
		}
		for (size_t i = 0; i < more.nheld; i++)
			if (sfs_grow(&j->held, &j->cap, j->nheld + 1,
			             sizeof(*j->held)) == 0)
				j->held[j->nheld++] = more.held[i];
		free(more.held);
	}
	return g;
}

static void free_held(struct refresher *r)
{
	free_owned(r->held, r->nheld);
	r->held = NULL;
	r->nheld = 0;
}

/* Remembers the folders of the skills a published build holds as they
 * were.  The next build looks at them again (inotify mode: as folders
 * that changed), until one finds them settled. */
static int keep_held(struct refresher *r, const struct judgement *j)
{
	free_held(r);
	if (!j->nheld)
		return 0;
	r->held_at = now_ms(CLOCK_MONOTONIC);
	r->held = calloc(j->nheld, sizeof(*r->held));
	for (size_t i = 0; r->held && i < j->nheld; i++) {
		if (!(r->held[i] = strdup(j->held[i]))) {
			free_held(r);
			break;
		}
		r->nheld = i + 1;
		if (r->w.fd >= 0)
			watcher_note_changed(&r->w, r->held[i]);
	}
	return r->held ? 0 : -ENOMEM;
}

/* Whether b serves what a serves: the same skills (taken unchanged, the
 * very same), findings and documents.  A build that held every skill it
 * changed need not be published. */
static bool same_catalog(const sfs_catalog *a, const sfs_catalog *b)
{
	struct sfs_counts x = sfs_catalog_counts(a), y = sfs_catalog_counts(b);
	size_t na, nb, ua, ub;

	sfs_catalog_diags(a, &na);
	sfs_catalog_diags(b, &nb);
	sfs_catalog_unserved(a, &ua);
	sfs_catalog_unserved(b, &ub);
	if (sfs_catalog_nskills(a) != sfs_catalog_nskills(b) || na != nb ||
	    ua != ub || memcmp(&x, &y, sizeof(x)) != 0 ||
	    sfs_catalog_docs(a) != sfs_catalog_docs(b))
		return false;
	for (size_t i = 0; i < sfs_catalog_nskills(a); i++)
		if (sfs_catalog_skill(a, i) != sfs_catalog_skill(b, i))
			return false;
	return true;
}

/* Returns false when the build was dropped because the sources changed
 * while it read them (force: publish it anyway). */
static bool rebuild(struct daemon *d, bool force)
{
	struct refresher *r = d->refresher;
	long long start = now_ms(CLOCK_MONOTONIC);
	char **changed = NULL;
	size_t nchanged = 0;
	bool known = false;     /* what changed */

	/* The folders the watcher saw change since the last build: the
	 * catalog then looks only at those (and at every skill folder's own
	 * stat).  Not known in polling mode, after lost events, after a
	 * read found a stale source, or after a failed build. */
	if (r->w.fd >= 0 &&
	    watcher_take_changed(&r->w, &changed, &nchanged) == 0 &&
	    !r->blind && !r->again && !atomic_load(&d->polling))
		known = true;
	const char *const *seen = known ? (const char *const *)changed : NULL;
	size_t nseen = known ? nchanged : 0;
	uint64_t fp = r->fp;   /* polling: what the current generation saw */

	r->blind = false;
	struct gen *g = refresher_build(d, d->cur, seen, nseen);

	/* a file that changed again before it could be copied: the
	 * sources are still changing (dropped below), or, when the build
	 * must be published, build again a few times */
	for (int again = 0; force && g && g->unpinned && again < 3; again++) {
		gen_unref(g);
		g = refresher_build(d, d->cur, seen, nseen);
	}
	const char *why = NULL;
	struct judgement j = { 0 };
	if (g && !force && changed_meanwhile(r))
		why = "the sources changed while they were read";
	else if (g && !force && g->unpinned)
		why = "a file changed again before it could be held";
	if (g && !why && judge(d, g, force, &j) < 0) {
		gen_unref(g);
		g = NULL;
	}
	/* A skill or a file that goes (deleted, made invalid, or caught
	 * between a checkout's unlink and create) goes once a second build,
	 * after a quiet spell with no event, sees it gone too, and its
	 * folder has been left alone a while; a writer at work is waited
	 * for (settle.h). */
	if (g && !why && j.wait) {
		why = j.why;
		r->deferred = true;
		r->confirming = j.shrunk_only;
		/* what went a moment ago is looked at again once it may
		 * have been left alone long enough, not at every quiet
		 * spell (a build of a large mount in polling mode reads
		 * every file) */
		r->look_after = j.recent_only ? now_ms(CLOCK_MONOTONIC) +
		                                SETTLE_QUIET_MS / 4 : 0;
	}
	bool dropped = why != NULL;
	if (dropped) {
		note_pending(d, g, why);
		g = NULL;
		r->fp = fp;
		/* the next build looks at these folders again */
		for (size_t i = 0; known && i < nchanged; i++)
			watcher_note_changed(&r->w, changed[i]);
		r->blind |= !known;
	}
	/* the skills in doubt are served as they were; g, what the sources
	 * hold now, tells status.json what waits */
	struct gen *as_is = NULL;
	if (g && j.nheld) {
		as_is = g;
		g = build_holding(d, seen, nseen, &j);
	}
	watcher_free_changed(changed, nchanged);
	if (dropped && d->opt->debug)
		fprintf(stderr, "skillsfs: build dropped: the sources have "
		        "not settled\n");
	if (dropped) {
		free(j.held);
		return false;
	}
	if (!g) {
		fprintf(stderr, "skillsfs: refresh failed: %s\n",
		        strerror(ENOMEM));
		d->refresher->rescan = true;
		free(j.held);
		if (as_is)
			gen_unref(as_is);
		return true;
	}
	if (d->opt->debug)
		fprintf(stderr, "skillsfs: generation %llu: %zu skills (%zu "
		        "held as they were), %zu files hashed, %lld ms\n",
		        (unsigned long long)g->number,
		        sfs_catalog_nskills(g->cat), j.nheld,
		        sfs_catalog_hashed(g->cat),
		        now_ms(CLOCK_MONOTONIC) - start);
	report_catalog(d, d->cur->cat, g->cat);
	r->deferred = false;
	r->confirming = false;
	r->look_after = 0;
	/* before the current catalog, which the folders point into, goes */
	int rc = keep_held(r, &j);
	free(j.held);
	if (rc < 0 || !j.nheld || !same_catalog(d->cur->cat, g->cat)) {
		clear_pending(r);
		daemon_publish(d, g);
	} else {
		gen_unref(g);   /* nothing but the held skills changed */
	}
	if (as_is) {
		note_pending(d, as_is, "a skill is being edited: its last "
		             "settled version is served");
	}
	return true;
}

static void poll_check(struct daemon *d)
{
	struct refresher *r = d->refresher;
	uint64_t fp = fingerprint(d->cur->cat, &d->opt->roots, NULL);
	long long now = now_ms(CLOCK_MONOTONIC);

	atomic_store(&r->last_check, now);
	/* skills held as they were are looked at again until they settle */
	bool relook = r->nheld && now - r->held_at >= HELD_LOOK_MS;
	if (fp == r->fp && !r->rescan && !relook) {
		r->settle_fp = 0;
		r->confirming = false;
		return;
	}
	/* changed: build once a second look sees the same */
	if (!r->settle_fp)
		r->settle_since = now;
	bool force = now - r->settle_since >= settle_max(d);
	if (fp != r->settle_fp && !force) {
		r->settle_fp = fp;
		r->confirming = false;
		return;
	}
	if (!force && now < r->look_after)
		return;   /* what went waits to be left alone */
	r->rescan = false;
	if (rebuild(d, force))
		r->settle_fp = 0;
	/* else the next look builds again if the sources stay as they are */
}

/* Milliseconds poll() may sleep. */
static int sleep_ms(struct daemon *d, bool pending, long long first,
                    long long last)
{
	struct refresher *r = d->refresher;
	long long now = now_ms(CLOCK_MONOTONIC);
	long long due;

	if (atomic_load(&r->urgent))
		return 0;
	if (atomic_load(&d->polling)) {
		long long every = d->opt->poll_interval_ms;
		if (r->settle_fp && every > SETTLE_LOOK_MS)
			every = SETTLE_LOOK_MS;
		due = atomic_load(&r->last_check) + every;
	} else if (pending && watcher_writing(&r->w)) {
		/* writers at work: wait until they close their files, after
		 * one build (dropped) that tells status.json what waits */
		due = first + settle_max(d);
		if (!r->pending && last + d->opt->debounce_ms < due)
			due = last + d->opt->debounce_ms;
	} else if (pending && r->deferred) {
		/* after a dropped build, wait for quiet; the second look at
		 * something gone needs only the quiet a checkout's unlink and
		 * create leave, not a long debounce (a read that failed on it
		 * asked for this build) */
		long long quiet = d->opt->debounce_ms;
		if (r->confirming && quiet > SETTLE_LOOK_MS)
			quiet = SETTLE_LOOK_MS;
		due = last + quiet;
		if (due < r->look_after)
			due = r->look_after;
		if (due > first + settle_max(d))
			due = first + settle_max(d);
	} else if (pending) {
		due = last + d->opt->debounce_ms;
		if (due > first + 4LL * d->opt->debounce_ms)
			due = first + 4LL * d->opt->debounce_ms;
	} else {
		due = r->roots_checked + ROOT_CHECK_MS;
		if (r->nheld && r->held_at + HELD_LOOK_MS < due)
			due = r->held_at + HELD_LOOK_MS;
	}
	return due <= now ? 0 : (int)(due - now);
}

/* ---- copies of the current generation's bytes (retain.h) --------------- */

/* Whether the current generation still has files to copy.  Files that
 * changed were copied before it was published (daemon_build); these are
 * the others, copied in the background up to three quarters of the
 * budget, so that a file rewritten in place before the mount read it
 * still reads as published.  The last quarter is kept for changes.
 * Files of at most RETAIN_FILE_MAX go first; then, with the room left,
 * those of at most RETAIN_CHANGED_MAX: a larger file without a copy is
 * lost to a skill held as it was (settle.h) once its author rewrites it,
 * and in polling mode, where no close tells that a writer is done, a
 * skill rewritten back to back is held from the first version on (cp -r
 * of a 2 MiB file for 12 s: 4,824 of 14,256 reads ESTALE, issue 28). */
static bool fill_pending(struct daemon *d)
{
	struct refresher *r = d->refresher;

	if (r->fill_gen != d->cur->number) {
		r->fill_gen = d->cur->number;
		r->fill_at = 0;
		r->fill_large = false;
		r->fill_done = d->retainer.budget == 0;
	}
	return !r->fill_done;
}

/* Whether node n is one the current pass of the fill copies. */
static bool fill_wants(const struct refresher *r, const struct gen *g,
                       const struct node *n)
{
	if (n->kind != NODE_SKILL_FILE || n->in_view || gen_kept(g, n) ||
	    !backing_may_read_ahead(g, n))
		return false;
	const struct sfs_file *f = gen_file(g, n);
	bool large = f && f->size > (off_t)RETAIN_FILE_MAX;
	return large == r->fill_large;
}

/* After the last node of a pass: the next pass, or done. */
static void fill_next_pass(struct daemon *d)
{
	struct refresher *r = d->refresher;

	if (!r->fill_large &&
	    RETAIN_CHANGED_MAX(&d->retainer) > RETAIN_FILE_MAX) {
		r->fill_large = true;
		r->fill_at = 0;
		return;
	}
	r->fill_done = true;
	if (d->opt->debug)
		fprintf(stderr, "skillsfs: generation %llu: retained %zu "
		        "files, %zu bytes\n", (unsigned long long)d->cur->number,
		        atomic_load(&d->retainer.files),
		        atomic_load(&d->retainer.used));
}

static void fill_some(struct daemon *d)
{
	struct refresher *r = d->refresher;
	struct gen *g = d->cur;   /* only this thread replaces it */
	size_t limit = d->retainer.budget / 4 * 3;
	unsigned copied = 0;

	if (!fill_pending(d))
		return;
	size_t file_max = r->fill_large ? RETAIN_CHANGED_MAX(&d->retainer)
	                                : RETAIN_FILE_MAX;
	for (; r->fill_at < g->nnodes && copied < FILL_BATCH; r->fill_at++) {
		const struct node *n = &g->nodes[r->fill_at];
		if (!fill_wants(r, g, n))
			continue;
		/* a large file is a turn of its own */
		copied += r->fill_large ? FILL_BATCH : 1;
		if (retain_node(&d->retainer, g, n, limit, file_max) ==
		    -ENOSPC &&
		    atomic_load(&d->retainer.used) >= limit) {
			r->fill_large = true;         /* full: no next pass */
			r->fill_at = g->nnodes - 1;
		}
	}
	if (r->fill_at < g->nnodes)
		return;
	fill_next_pass(d);
}

void refresher_fill_first(struct daemon *d, unsigned ms)
{
	long long end = now_ms(CLOCK_MONOTONIC) + ms;

	while (fill_pending(d) && now_ms(CLOCK_MONOTONIC) < end)
		fill_some(d);
}

static void free_reread(struct daemon *d)
{
	if (d->reread)
		sfs_config_file_free(d->reread);
	free(d->reread);
	d->reread = NULL;
}

/* The configuration file's accept: read again, so that an operator's
 * review (skillsfs(5), accept:) takes effect without a new mount; a file
 * that no longer reads keeps the last one, and says why on stderr. */
static void reread_accept(struct daemon *d)
{
	struct sfs_config_file *cf = calloc(1, sizeof(*cf));

	if (!cf || !d->opt->config ||
	    conffile_load("skillsfs", d->opt->config, cf) < 0) {
		free(cf);
		return;
	}
	free_reread(d);
	d->reread = cf;
}

/* SIGHUP: a build at once, which resolves every git root again, looks at
 * every folder and takes the configuration file's accept: again;
 * published whatever the folders are doing. */
static void reload(struct daemon *d)
{
	struct refresher *r = d->refresher;

	reread_accept(d);
	r->resolve = true;
	r->blind = true;
	rebuild(d, true);
	r->resolve = false;
}

/* ---- the thread ---------------------------------------------------------- */

static void *run(void *arg)
{
	struct daemon *d = arg;
	struct refresher *r = d->refresher;
	bool pending = r->rescan;
	long long first = now_ms(CLOCK_MONOTONIC), last = first;

	r->rescan = false;
	while (!atomic_load(&r->stop)) {
		bool polling = atomic_load(&d->polling);
		struct pollfd fds[3] = {
			{ .fd = r->wake, .events = POLLIN },
			{ .fd = polling ? -1 : r->w.fd, .events = POLLIN },
			{ .fd = r->hup, .events = POLLIN },
		};
		int timeout = sleep_ms(d, pending, first, last);
		if (fill_pending(d))
			timeout = 0;
		if (poll(fds, 3, timeout) < 0 && errno != EINTR)
			break;
		if (atomic_load(&r->stop))
			break;
		uint64_t count;
		if ((fds[2].revents & POLLIN) &&
		    read(r->hup, &count, sizeof(count)) == sizeof(count)) {
			reload(d);
			pending = r->rescan;
			r->rescan = false;
			first = last = now_ms(CLOCK_MONOTONIC);
			continue;
		}
		bool woken = fds[0].revents & POLLIN;
		if (woken && read(r->wake, &count, sizeof(count)) < 0)
			count = 0;
		if (polling) {
			/* a kick from refresher_touch, or the interval */
			if (woken || sleep_ms(d, false, 0, 0) == 0) {
				atomic_store(&r->urgent, false);
				poll_check(d);
			} else {
				fill_some(d);
			}
			continue;
		}
		long long now = now_ms(CLOCK_MONOTONIC);
		if (now >= r->roots_checked + ROOT_CHECK_MS && roots_moved(d)) {
			/* another filesystem or folder under a root's path:
			 * watch it anew and read everything again */
			r->again = true;
			r->blind = true;
			if (!pending)
				first = now;
			pending = true;
			last = now;
		}
		if (atomic_exchange(&r->urgent, false)) {
			/* due now, unless writers are at work */
			pending = true;
			r->blind = true;
			if (!r->deferred)
				first = last = now - 4LL * d->opt->debounce_ms;
		}
		if (fds[1].revents & POLLIN) {
			int ev = watcher_drain(&r->w);
			if (ev & WATCH_OVERFLOW) {
				/* events were lost: the rebuild rescans every
				 * root, and every watch is added again */
				if (!r->again)
					fprintf(stderr, "skillsfs: the inotify "
					        "event queue overflowed "
					        "(fs.inotify.max_queued_events); "
					        "rescanning every source\n");
				r->again = true;
			}
			if (ev & WATCH_CHANGED) {
				r->confirming = false;
				if (!pending)
					first = now;
				pending = true;
				last = now;
			}
		}
		if (!pending && r->nheld && now >= r->held_at + HELD_LOOK_MS) {
			/* skills held as they were: due now */
			pending = true;
			first = last = now - 4LL * d->opt->debounce_ms;
		}
		if (!pending || sleep_ms(d, pending, first, last) != 0) {
			fill_some(d);
			continue;
		}
		if (!rebuild(d, now >= first + settle_max(d))) {
			last = now_ms(CLOCK_MONOTONIC);   /* a writer is back */
			continue;
		}
		pending = r->rescan;
		r->blind |= r->rescan;
		r->rescan = false;
		first = last = now_ms(CLOCK_MONOTONIC);
	}
	return NULL;
}

/* The refresher's SIGHUP eventfd, for the signal handler, which can be
 * given nothing else: set before the handler is installed, -1 after it
 * is taken away. */
static int hup_fd = -1;

/* Async-signal-safe: one write(2) to an eventfd. */
static void on_hup(int sig)
{
	uint64_t one = 1;
	int saved = errno;

	(void)sig;
	if (write(hup_fd, &one, sizeof(one)) < 0) {
		/* the counter is full: a reload is pending anyway */
	}
	errno = saved;
}

int refresher_start(struct daemon *d, int hup_to)
{
	struct refresher *r = d->refresher;
	sigset_t all, old;

	/* signals go to the thread running the FUSE loop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&r->thread, NULL, run, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -rc;
	r->started = true;
	/* SIGHUP reloads (libfuse's handler would end the mount) */
	struct sigaction sa = { .sa_handler = on_hup, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	hup_fd = hup_to >= 0 ? hup_to : r->hup;
	if (sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	return 0;
}

static void kick(struct refresher *r)
{
	uint64_t one = 1;

	if (write(r->wake, &one, sizeof(one)) < 0) {
		/* the counter is full: a wake-up is pending anyway */
	}
}

void refresher_touch(struct daemon *d)
{
	struct refresher *r = d->refresher;

	if (!atomic_load_explicit(&d->polling, memory_order_relaxed) ||
	    !r || !r->started)
		return;
	long long now = now_ms(CLOCK_MONOTONIC_COARSE);
	long long last = atomic_load_explicit(&r->last_check,
	                                      memory_order_relaxed);
	if (now - last < (long long)d->opt->poll_interval_ms)
		return;
	/* one request kicks; the others see the new time */
	if (atomic_compare_exchange_strong(&r->last_check, &last, now))
		kick(r);
}

void refresher_stale(struct daemon *d)
{
	struct refresher *r = d->refresher;

	if (r && r->started && !atomic_exchange(&r->urgent, true))
		kick(r);
}

void refresher_reload(struct daemon *d)
{
	struct refresher *r = d->refresher;
	uint64_t one = 1;

	if (r && write(r->hup, &one, sizeof(one)) < 0) {
		/* the counter is full: a reload is pending anyway */
	}
}

void refresher_stop(struct daemon *d)
{
	struct refresher *r = d->refresher;

	if (!r)
		return;
	if (r->started) {
		signal(SIGHUP, SIG_IGN);   /* until the mount is gone */
		hup_fd = -1;
		atomic_store(&r->stop, true);
		kick(r);
		pthread_join(r->thread, NULL);
	}
	if (r->w.fd >= 0)
		watcher_close(&r->w);
	free_owned(r->owned, r->nowned);
	free_owned(r->held, r->nheld);
	free_reread(d);
	free(r->stale);
	sfs_catalog_unref(r->watched);
	free(r->roots);
	close(r->wake);
	close(r->hup);
	free(r);
	d->refresher = NULL;
}
