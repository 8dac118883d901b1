/*
 * daemon.h - the state a running mount shares between its request
 * handlers (ops.c), its refresh thread (refresh.c) and its start-up
 * (mount.c).
 */
#ifndef SKILLSFS_DAEMON_H
#define SKILLSFS_DAEMON_H

#include <pthread.h>
#include <stdatomic.h>

#include "lookups.h"
#include "options.h"
#include "retain.h"
#include "searches.h"
#include "tree.h"

struct fetcher;
struct refresher;
struct remote_reads;

struct daemon {
	const struct mount_options *opt;
	const char *mountpoint;      /* absolute: the paths search/ and
	                              * views give */
	struct fuse_session *se;
	struct fuse_conn_info_opts *conn_opts;
	double timeout;              /* entry and attribute timeout, s */
	atomic_bool no_open;         /* the kernel takes ENOSYS for open */
	atomic_bool no_opendir;      /* and for opendir */

	pthread_mutex_t cur_lock;    /* guards cur */
	pthread_cond_t published;    /* signalled when cur changes */
	struct gen *cur;             /* the current generation, one ref */
	struct lookups lookups;
	struct searches searches;    /* the files of search/ */
	uint64_t next_ino;           /* the refresh thread's allocator */
	uint64_t generations;        /* generations built */
	struct retainer retainer;    /* copies of published bytes */
	unsigned max_pins;           /* changed sources held open per
	                              * generation (see gen_params.pin) */

	struct refresher *refresher; /* NULL until started */
	struct remote_reads *remote_reads;  /* reads that may wait on a
	                              * server (remote_read.c); NULL until
	                              * the mount serves */
	atomic_bool stopping;        /* the mount is ending: every wait on a
	                              * server ends (sfs_source_options.stop) */
	atomic_llong start_until_ms; /* CLOCK_MONOTONIC: when the start stops
	                              * waiting for the servers (fetcher.c);
	                              * 0 after it */
	struct sfs_source_options *root_options;   /* per root: the
	                              * options of opt, and the stop above;
	                              * for every sfs_config of the mount */
	struct fetcher *fetcher;     /* NULL without git roots */
	atomic_llong fetch_every_ms; /* status.json's word on the fetcher's
	                              * turns, set by it (fetcher.c) and read
	                              * by every build: -1 without a fetcher,
	                              * 0 only on SIGHUP, else how often */
	pthread_mutex_t notes_lock;  /* guards root_notes */
	char **root_notes;           /* per root, why its last update failed
	                              * (fetcher.c), or NULL; for each build's
	                              * sfs_config.root_notes */
	struct sfs_config_file *reread;   /* --config as a SIGHUP read it
	                              * again (refresh.c, which owns it):
	                              * builds take its accept:, or opt's
	                              * before one; NULL */
	atomic_bool polling;         /* refresh mode */
	atomic_llong next_check_ms;  /* polling: when an access should kick
	                              * the staleness check (CLOCK_MONOTONIC) */
};

/* generation.c */

/* The current generation, for one request: referenced and marked active
 * (see daemon_publish's grace period); NULL before the first one.
 * Release with daemon_put_current. */
struct gen *daemon_get_current(struct daemon *d);
void daemon_put_current(struct gen *g);
/* Waits until a generation newer than number `seen` is current, at most
 * `ms` milliseconds.  Returns whether one is. */
bool daemon_wait_newer(struct daemon *d, uint64_t seen, unsigned ms);
/* What a build takes from whoever watches the sources (refresh.c). */
struct build_inputs {
	/* sfs_config's: the folders seen to change since prev was built
	 * (or NULL: not known), the skill folders whose last version is
	 * served on while their author is at work (refresh.c), and
	 * before_listing (or NULL). */
	SFS_CONFIG_WATCH_FIELDS
	/* Called with the new catalog before its generation is laid out:
	 * watches what it read, and returns the refresh mode status.json
	 * tells. */
	const char *(*built)(void *arg, sfs_catalog *cat);
	void *built_arg;
	/* sfs_config.found: a read found what status.json does not say yet
	 * (a server that sent other bytes than it listed): whoever builds
	 * wakes up to build again (refresher_reload); with the daemon as
	 * its argument. */
	void (*found)(void *d);
	/* sfs_config.resolve_sources: on SIGHUP, git roots move to what
	 * their refs name now. */
	bool resolve_sources;
};
/* Builds a generation from the sources, reusing what `prev` (the current
 * one, or NULL) has; NULL when out of memory. */
struct gen *daemon_build(struct daemon *d, const struct gen *prev,
                         const struct build_inputs *in);
/* A generation of the current catalog whose status.json tells of a
 * change not published yet (pending, or NULL when none waits any more);
 * the rest is the current one's.  NULL when out of memory. */
struct gen *daemon_restatus(struct daemon *d,
                            const struct sfs_status_pending *pending);
/* Makes g (one reference, given) current: swaps it in, waits until no
 * request uses the old one as current, moves the kernel's lookups over,
 * and invalidates exactly what changed in the kernel's caches. */
void daemon_publish(struct daemon *d, struct gen *g);
/* Gives the pages of freed memory back to the system, in every malloc
 * arena: a build frees its scratch memory (some on the threads that read
 * skill folders, whose arena would keep it), and a publish the previous
 * generation; otherwise the next build's new allocations would come on
 * top.  After a build is published, off the request path. */
void daemon_trim(void);
/* A condition variable whose timed waits count on CLOCK_MONOTONIC (a
 * deadline that the wall clock's steps cannot move); 0 or -errno.
 * Inline: mount.c and remote_read.c each make one. */
static inline int cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t ca;
	int rc = pthread_condattr_init(&ca);

	if (rc != 0)
		return -rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(c, &ca);
	pthread_condattr_destroy(&ca);
	return -rc;
}

/* ops.c */
const struct fuse_lowlevel_ops *skillsfs_ops(void);

/* refresh.c */

/* Chooses inotify or polling and prepares it; before the first build. */
int refresher_init(struct daemon *d);
/* Builds a generation from the sources, reusing what `prev` (the current
 * one, or NULL) has, as daemon_build, with the watches kept up to date:
 * `changed` as build_inputs.changed.  NULL when out of memory. */
struct gen *refresher_build(struct daemon *d, const struct gen *prev,
                            const char *const *changed, size_t nchanged);
/* Starts the refresh thread; after daemonizing.  SIGHUP then writes to
 * the eventfd hup_to (the fetcher's, which fetches and then calls
 * refresher_reload), or with -1 reloads at once. */
int refresher_start(struct daemon *d, int hup_to);
void refresher_stop(struct daemon *d);
/* From a request handler in polling mode: asks for a staleness check if
 * the last one is older than the poll interval.  Cheap. */
void refresher_touch(struct daemon *d);
/* From a request handler: a source is newer than the current generation
 * (a read failed with ESTALE); refresh now, without the debounce. */
void refresher_stale(struct daemon *d);
/* Before the mount answers, while no other thread runs: copies what the
 * first generation's background fill would (retain.h), for at most ms
 * milliseconds.  A small mount then holds every published byte before
 * anyone can read it or edit its sources; a large one goes on in the
 * background. */
void refresher_fill_first(struct daemon *d, unsigned ms);
/* From another thread (the fetcher's): build now, with every git root
 * resolved again and every folder looked at, as on SIGHUP. */
void refresher_reload(struct daemon *d);

#endif
