/*
 * watch.h - the inotify watches of a mount: every folder its catalog read,
 * and for a root that does not exist (yet) its nearest existing ancestor.
 */
#ifndef SKILLSFS_WATCH_H
#define SKILLSFS_WATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* A folder to watch.  `only`: count only events about this name in it
 * (an ancestor waiting for a missing root to appear); NULL: every event. */
struct want {
	const char *path;
	const char *only;
};

struct watch_entry {
	const char *path;  /* borrowed from watcher_sync's `want` */
	char *only;
	int wd;          /* -1: not watched (vanished, or the kernel refused) */
	bool gone;       /* the kernel dropped wd (IN_IGNORED) */
};

struct watcher {
	int fd;                  /* inotify, non-blocking */
	struct watch_entry *v;   /* sorted by path */
	size_t n;
	size_t *by_wd;           /* indices into v, sorted by wd */
	/* The folders in which something happened (or which were watched
	 * anew) since watcher_take_changed; `unknown` when an event could
	 * not be told apart or too many folders were watched anew. */
	char **changed;          /* owned, each malloc'd */
	size_t nchanged, capchanged;
	bool unknown;
	/* Files written to and not closed yet (IN_MODIFY without its
	 * IN_CLOSE_WRITE): their writers are still at work. */
	struct writer *writers;  /* owned */
	size_t nwriters, capwriters;
	/* Watches added by watcher_before_listing since the last sync, in
	 * the order they were added; under early_lock (a build lists its
	 * folders on several threads). */
	pthread_mutex_t early_lock;
	struct early_watch *early;   /* owned */
	size_t nearly, capearly;
};

struct writer {
	int wd;
	char *name;      /* owned */
};

struct early_watch {
	char *path;      /* owned */
	int wd;
	size_t seq;      /* order of addition: the latest of a path counts */
	bool used;
};

enum { WATCH_CHANGED = 1, WATCH_OVERFLOW = 2 };

/* Returns 0, or -errno when inotify cannot be used. */
int watcher_init(struct watcher *w);
void watcher_close(struct watcher *w);
/*
 * Makes the watched set exactly `want` (sorted and merged in place).
 * `again`: add every watch anew (after a queue overflow).  Returns 0; 1
 * when a folder vanished meanwhile (rescan soon); -ENOSPC when the
 * kernel's watch limit is reached; -ENOMEM.  The watcher keeps the paths
 * of `want` (a large catalog's folders: tens of thousands), not copies:
 * they must stay valid until the next watcher_sync or watcher_close, and
 * after a failure (< 0) until watcher_close.
 */
int watcher_sync(struct watcher *w, struct want *want, size_t n, bool again);
/*
 * sfs_config.before_listing for a build (arg: the watcher): watches `path`
 * before the build lists it, so that nothing that changes in it after the
 * listing goes unseen.  watcher_sync then takes the watch as it is instead
 * of adding it and counting the folder as changed.  Thread-safe; a watch
 * that cannot be added here is left to watcher_sync, which says why.
 */
void watcher_before_listing(const char *path, void *arg);
/* Whether a file in a watched folder is being written: modified, and
 * not closed since (or deleted, or renamed away). */
static inline bool watcher_writing(const struct watcher *w)
{
	return w->nwriters > 0;
}
/* Reads every pending event; returns WATCH_* bits. */
int watcher_drain(struct watcher *w);
/*
 * Moves out the folders in which events happened, and those watched anew,
 * since the last call: a malloc'd array of malloc'd paths, sorted and
 * each once, for sfs_config.changed.  Returns 0; 1 when they are not
 * known (*out NULL): an event about an unknown watch, a lost event, many
 * folders watched anew; -ENOMEM.
 */
int watcher_take_changed(struct watcher *w, char ***out, size_t *n);
void watcher_free_changed(char **v, size_t n);
/* Counts `path` as changed again (a build that looked at it was dropped). */
void watcher_note_changed(struct watcher *w, const char *path);

#endif
