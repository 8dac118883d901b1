/*
 * watch.c - the inotify watches of a mount (see watch.h).  The watched
 * set is kept sorted by path and changed by a merge with the set wanted,
 * so a refresh that changed one skill adds and removes only its folders.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "watch.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | \
                    IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | \
                    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

int watcher_init(struct watcher *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->early_lock, NULL);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

/* Past this many folders watched anew in one sync (the first one, a
 * whole new root), the next build is told nothing of what changed. */
#define CHANGED_NEW_MAX 256

/* Remembers that something may have changed in `path`. */
static void note_changed(struct watcher *w, const char *path)
{
	if (w->unknown)
		return;
	if (w->nchanged == w->capchanged) {
		size_t cap = w->capchanged ? w->capchanged * 2 : 16;
		char **v = realloc(w->changed, cap * sizeof(*v));
		if (!v) {
			w->unknown = true;
			return;
		}
		w->changed = v;
		w->capchanged = cap;
	}
	if (!(w->changed[w->nchanged] = strdup(path))) {
		w->unknown = true;
		return;
	}
	w->nchanged++;
}

void watcher_note_changed(struct watcher *w, const char *path)
{
	note_changed(w, path);
}

void watcher_free_changed(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int watcher_take_changed(struct watcher *w, char ***out, size_t *n)
{
	char **v = w->changed;
	size_t len = w->nchanged, k = 0;
	bool unknown = w->unknown;

	w->changed = NULL;
	w->nchanged = w->capchanged = 0;
	w->unknown = false;
	*out = NULL;
	*n = 0;
	if (unknown) {
		watcher_free_changed(v, len);
		return 1;
	}
	if (len > 1)
		qsort(v, len, sizeof(*v), cmp_path);
	for (size_t i = 0; i < len; i++) {
		if (k && strcmp(v[k - 1], v[i]) == 0)
			free(v[i]);
		else
			v[k++] = v[i];
	}
	if (!v) {
		/* nothing happened: an empty list, not an unknown one */
		v = malloc(sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	*out = v;
	*n = k;
	return 0;
}

/* ---- writers at work ------------------------------------------------------ */

/* Forgets the writers in watch wd, or all of them (wd -1). */
static void writers_clear(struct watcher *w, int wd)
{
	size_t k = 0;

	for (size_t i = 0; i < w->nwriters; i++) {
		if (wd < 0 || w->writers[i].wd == wd)
			free(w->writers[i].name);
		else
			w->writers[k++] = w->writers[i];
	}
	w->nwriters = k;
}

static struct writer *writer_find(struct watcher *w, int wd, const char *name)
{
	for (size_t i = 0; i < w->nwriters; i++)
		if (w->writers[i].wd == wd &&
		    strcmp(w->writers[i].name, name) == 0)
			return &w->writers[i];
	return NULL;
}

/* Few files are written at once: a list is enough.  Out of memory, a
 * writer goes unrecorded, and only the debounce protects its file. */
static void writer_add(struct watcher *w, int wd, const char *name)
{
	if (writer_find(w, wd, name))
		return;
	if (w->nwriters == w->capwriters) {
		size_t cap = w->capwriters ? w->capwriters * 2 : 8;
		struct writer *v = realloc(w->writers, cap * sizeof(*v));
		if (!v)
			return;
		w->writers = v;
		w->capwriters = cap;
	}
	char *copy = strdup(name);
	if (copy)
		w->writers[w->nwriters++] = (struct writer){ wd, copy };
}

static void writer_done(struct watcher *w, int wd, const char *name)
{
	struct writer *x = writer_find(w, wd, name);

	if (!x)
		return;
	free(x->name);
	*x = w->writers[--w->nwriters];
}

/* Keeps track of which files are open for writing. */
static void note_writer(struct watcher *w, const struct inotify_event *ev)
{
	if (!ev->len || (ev->mask & IN_ISDIR))
		return;
	if (ev->mask & IN_MODIFY)
		writer_add(w, ev->wd, ev->name);
	if (ev->mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM))
		writer_done(w, ev->wd, ev->name);
}

static void free_entry(struct watch_entry *e)
{
	free(e->only);
}

static void early_clear(struct watcher *w)
{
	for (size_t i = 0; i < w->nearly; i++)
		free(w->early[i].path);
	w->nearly = 0;
}

void watcher_close(struct watcher *w)
{
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->n; i++)
		free_entry(&w->v[i]);
	free(w->v);
	free(w->by_wd);
	watcher_free_changed(w->changed, w->nchanged);
	writers_clear(w, -1);
	free(w->writers);
	early_clear(w);
	free(w->early);
	pthread_mutex_destroy(&w->early_lock);
	memset(w, 0, sizeof(*w));
	w->fd = -1;   /* watcher_before_listing is never set up again */
}

/* ---- watches added while a build lists (see watcher_before_listing) ---- */

void watcher_before_listing(const char *path, void *arg)
{
	struct watcher *w = arg;
	int wd = inotify_add_watch(w->fd, path, WATCH_MASK);
	char *copy = wd >= 0 ? strdup(path) : NULL;

	if (!copy)
		return;   /* watcher_sync adds it, or says why it cannot */
	pthread_mutex_lock(&w->early_lock);
	if (w->nearly == w->capearly) {
		size_t cap = w->capearly ? w->capearly * 2 : 1024;
		struct early_watch *v = realloc(w->early, cap * sizeof(*v));
		if (v) {
			w->early = v;
			w->capearly = cap;
		}
	}
	if (w->nearly < w->capearly) {
		w->early[w->nearly] = (struct early_watch){
			.path = copy, .wd = wd, .seq = w->nearly,
		};
		w->nearly++;
		copy = NULL;
	}
	pthread_mutex_unlock(&w->early_lock);
	free(copy);   /* not recorded: the kernel's watch stays, and
	               * watcher_sync's add_watch finds it again */
}

static int cmp_early(const void *a, const void *b)
{
	const struct early_watch *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The latest early watch of path, marked used; NULL when there is none. */
static struct early_watch *early_take(struct watcher *w, const char *path)
{
	size_t lo = 0, hi = w->nearly;

	while (lo < hi) {   /* the first entry after every one of path */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(w->early[mid].path, path) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || strcmp(w->early[lo - 1].path, path) != 0)
		return NULL;
	w->early[lo - 1].used = true;
	return &w->early[lo - 1];
}

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	return strcmp(x->path, y->path);
}

/* Sorts and merges duplicates: a path wanted whole and filtered, or with
 * two filters, is watched whole. */
static size_t normalize(struct want *want, size_t n)
{
	size_t out = 0;

	if (n == 0)
		return 0;   /* want may be NULL: only git roots, say */
	qsort(want, n, sizeof(*want), cmp_want);
	for (size_t i = 0; i < n; i++) {
		if (out && strcmp(want[out - 1].path, want[i].path) == 0) {
			if (!want[i].only || !want[out - 1].only ||
			    strcmp(want[i].only, want[out - 1].only) != 0)
				want[out - 1].only = NULL;
			continue;
		}
		want[out++] = want[i];
	}
	return out;
}

/* The first position in by_wd whose entry has a wd >= wd. */
static size_t wd_lower_bound(const struct watcher *w, int wd)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->v[w->by_wd[mid]].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether another live entry shares entry i's wd (two paths to one
 * folder share one watch). */
static bool wd_shared(const struct watcher *w, size_t i)
{
	int wd = w->v[i].wd;

	for (size_t k = wd_lower_bound(w, wd);
	     k < w->n && w->v[w->by_wd[k]].wd == wd; k++)
		if (w->by_wd[k] != i && w->v[w->by_wd[k]].path)
			return true;
	return false;
}

/* Adds the watch of e; returns 0, 1 (folder gone), or -ENOSPC. */
static int add_watch(struct watcher *w, struct watch_entry *e)
{
	e->gone = false;
	e->wd = inotify_add_watch(w->fd, e->path, WATCH_MASK);
	if (e->wd >= 0)
		return 0;
	if (errno == ENOSPC)
		return -ENOSPC;
	return errno == ENOENT || errno == ENOTDIR ? 1 : 0;
}

static int cmp_by_wd(const void *a, const void *b, void *arg)
{
	const struct watch_entry *v = arg;
	int x = v[*(const size_t *)a].wd, y = v[*(const size_t *)b].wd;
	return (x > y) - (x < y);
}

static int index_wds(struct watcher *w)
{
	free(w->by_wd);
	w->by_wd = malloc((w->n ? w->n : 1) * sizeof(*w->by_wd));
	if (!w->by_wd)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		w->by_wd[i] = i;
	qsort_r(w->by_wd, w->n, sizeof(*w->by_wd), cmp_by_wd, w->v);
	return 0;
}

static int set_only(struct watch_entry *e, const char *only)
{
	if (!only == !e->only && (!only || strcmp(only, e->only) == 0))
		return 0;
	free(e->only);
	e->only = only ? strdup(only) : NULL;
	return only && !e->only ? -ENOMEM : 0;
}

/* Early watches of folders the catalog does not keep (or older ones of a
 * path watched again) are removed, unless a kept folder shares the wd. */
static void drop_unused_early(struct watcher *w)
{
	for (size_t k = 0; k < w->nearly; k++) {
		int wd = w->early[k].wd;
		size_t at = wd_lower_bound(w, wd);
		if (!w->early[k].used &&
		    (at == w->n || w->v[w->by_wd[at]].wd != wd))
			inotify_rm_watch(w->fd, wd);
	}
}

int watcher_sync(struct watcher *w, struct want *want, size_t n, bool again)
{
	struct watch_entry *v = calloc(n ? n : 1, sizeof(*v));
	size_t i = 0, j = 0, out = 0, fresh = 0;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	n = normalize(want, n);
	if (w->nearly > 1)   /* early is NULL while none was added */
		qsort(w->early, w->nearly, sizeof(*w->early), cmp_early);
	/* watches no longer wanted go first, so their wds are free */
	while (i < w->n) {
		int c = j < n ? strcmp(w->v[i].path, want[j].path) : -1;
		if (c < 0) {
			if (w->v[i].wd >= 0 && !w->v[i].gone &&
			    !wd_shared(w, i))
				inotify_rm_watch(w->fd, w->v[i].wd);
			free_entry(&w->v[i]);
			w->v[i].path = NULL;
			i++;
		} else {
			j += c > 0 ? 1 : 0;
			i += c == 0 ? 1 : 0;
		}
	}
	for (i = 0, j = 0; j < n && rc >= 0; j++) {
		while (i < w->n && !w->v[i].path)
			i++;
		struct watch_entry *e = &v[out++];
		struct early_watch *x = early_take(w, want[j].path);
		if (i < w->n && strcmp(w->v[i].path, want[j].path) == 0) {
			*e = w->v[i++];
			e->path = want[j].path;   /* the old one may go */
			if (x) {
				/* watched before this listing: nothing
				 * unseen; a new folder in its place gave a
				 * new watch, and the old one is dropped */
				if (e->wd >= 0 && e->wd != x->wd && !e->gone &&
				    !wd_shared(w, i - 1))
					inotify_rm_watch(w->fd, e->wd);
				e->wd = x->wd;
				e->gone = false;
			} else if (e->wd < 0 || e->gone || again) {
				int r = add_watch(w, e);
				rc = r < 0 ? r : rc | r;
				fresh++;
				note_changed(w, e->path);
			}
		} else if (x) {
			e->path = want[j].path;
			e->wd = x->wd;
		} else {
			e->path = want[j].path;
			int r = add_watch(w, e);
			rc = r < 0 ? r : rc | r;
			/* what happened in it before its watch is unknown */
			fresh++;
			note_changed(w, e->path);
		}
		if (rc >= 0 && set_only(e, want[j].only) < 0)
			rc = -ENOMEM;
	}
	/* on failure keep what is left, so watcher_close frees it all */
	for (; i < w->n; i++)
		if (w->v[i].path)
			v[out++] = w->v[i];
	free(w->v);
	w->v = v;
	w->n = out;
	if (fresh > CHANGED_NEW_MAX || rc != 0)
		w->unknown = true;
	if (index_wds(w) < 0 && rc >= 0)
		rc = -ENOMEM;
	if (rc >= 0)
		drop_unused_early(w);
	early_clear(w);
	return rc;
}

/* Whether an event on wd about `name` matters. */
static bool relevant(const struct watcher *w, int wd, const char *name,
                     uint32_t mask)
{
	size_t lo = wd_lower_bound(w, wd);

	if (lo == w->n || w->v[w->by_wd[lo]].wd != wd)
		return true;   /* unknown: be safe */
	for (; lo < w->n && w->v[w->by_wd[lo]].wd == wd; lo++) {
		const char *only = w->v[w->by_wd[lo]].only;
		if (!only || (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) ||
		    (name && strcmp(name, only) == 0))
			return true;
	}
	return false;
}

static void forget_wd(struct watcher *w, int wd)
{
	for (size_t k = wd_lower_bound(w, wd);
	     k < w->n && w->v[w->by_wd[k]].wd == wd; k++)
		w->v[w->by_wd[k]].gone = true;
}

/* Notes the folders of watch wd as changed; unknown when none is. */
static void note_wd(struct watcher *w, int wd)
{
	size_t k = wd_lower_bound(w, wd);

	if (k == w->n || w->v[w->by_wd[k]].wd != wd)
		w->unknown = true;
	for (; k < w->n && w->v[w->by_wd[k]].wd == wd; k++)
		note_changed(w, w->v[w->by_wd[k]].path);
}

int watcher_drain(struct watcher *w)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	int result = 0;

	for (;;) {
		ssize_t len = read(w->fd, buf, sizeof(buf));
		if (len <= 0)
			break;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;
			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				result |= WATCH_OVERFLOW | WATCH_CHANGED;
				w->unknown = true;
				/* a close may be among the lost events */
				writers_clear(w, -1);
			} else if (ev->mask & IN_IGNORED) {
				writers_clear(w, ev->wd);
				note_wd(w, ev->wd);
				forget_wd(w, ev->wd);
				result |= WATCH_CHANGED;
			} else if (relevant(w, ev->wd, ev->len ? ev->name : NULL,
			                    ev->mask)) {
				note_writer(w, ev);
				note_wd(w, ev->wd);
				result |= WATCH_CHANGED;
			}
		}
	}
	return result;
}
