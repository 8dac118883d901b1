/*
 * fetcher.c - the thread that keeps git and MCP roots up to date.
 *
 * A git root follows a branch or a tag: every -o fetch_interval seconds,
 * and at once on SIGHUP, this thread asks the library what each git root
 * names now (sfs_source_update: a remote one is fetched into its clone
 * first), and when one moved, or a fetch failed or recovered, it has the
 * refresh thread build a generation that resolves the refs again.  The
 * network is waited for here only: the refresh thread goes on noticing
 * folder changes, the requests go on being answered from the current
 * generation, whose commits never change.
 *
 * Why a root's last update failed is kept in d->root_notes, which each
 * build hands to the library (sfs_config.root_notes): it serves what the
 * clone holds and says why in status.json.
 *
 * A start waits for the remote roots (MCP servers, git remotes) at most
 * START_WAIT_MS: the first generation serves the local roots and those
 * that answered, with a note on each other one that its first fetch is
 * under way, and this thread's first turn fetches them again and has
 * them built in as they answer (fetcher_first).  A stop ends every wait
 * on a server within a second (d->stopping, through
 * sfs_source_options.stop); a git fetch the start or a stop no longer
 * waits for runs on alone (source_git_fetch.c), and the next fetch of
 * its clone waits for it while it makes progress.  A git fetch that
 * makes none for -o fetch_timeout is given up (and a later one skips the
 * clone such a fetch still holds), so a stalled server holds the other
 * roots' updates that long at most.
 *
 * An MCP root is looked at again sooner when its server says so: when
 * its listing gives a ttlMs shorter than fetch_interval (how long the
 * server holds the listing fresh; a well-known index's max-age or
 * Expires alike), after that; and when the server
 * notifies that its listing changed (listener.c: the root's flag in
 * `pending`, and the eventfd `news`).  News fetches only the root that
 * sent it, at once when that root was last fetched FETCHER_NEWS_GAP_MS
 * ago or more, else when that time is up: what a server says meanwhile
 * is one fetch, so a server that never stops notifying costs a fetch
 * (and at most a build) every FETCHER_NEWS_GAP_MS, not one per notice.
 * Unlike SIGHUP, news rebuilds only when a listing moved.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cache_bound.h"
#include "contract.h"
#include "daemon.h"
#include "fetcher.h"
#include "listener.h"
#include "report.h"
#include "source.h"

#define VERSION_MAX 72   /* a commit id, or a listing digest (64 hex) */
/* The note of a remote root the start did not wait for, until its first
 * fetch ends (status.json: "not fetched yet: ..."). */
#define FETCHING_NOTE SFS_STATUS_FIRST_FETCH
/* How long a start waits for the remote roots, together:
 * one that answers by then is in the first generation; the local roots
 * are served within a second of the start whatever the others do. */
#define START_WAIT_MS 500

/* What the thread keeps of a root's last update. */
struct root_fetch {
	long long fetched_ms;        /* when it ended, 0: never */
	unsigned ttl_ms;             /* its ttlMs, 0: none given */
	bool rejected;               /* it said the root must not be served
	                                at all (-EKEYREJECTED: a pinned
	                                commit no allowed signer signed) */
};

struct fetcher {
	pthread_t thread;
	bool started;
	int kick;                    /* eventfd: SIGHUP, or stop */
	int news;                    /* eventfd: a server's listing changed */
	atomic_bool stop;
	/* per root: */
	atomic_bool *pending;        /* news not fetched yet (listener.c) */
	struct root_fetch *last;
	bool first_pending;          /* the thread's first turn fetches the
	                                roots the start did not wait for */
	bool starting;               /* the start's update: a root cut short
	                                by its deadline waits for that turn */
	bool first_only;             /* that turn: only those roots */
	struct listeners *listeners;
	struct sfs_cache_lease lease; /* on what the roots keep in the
	                                cache folder (cache_bound.c) */
	unsigned long updates;       /* updates done, to collect after */
};

static long long sleep_ms(struct daemon *d, unsigned interval_s);

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void fetcher_free(struct fetcher *f)
{
	sfs_cache_lease_drop(&f->lease);
	if (f->kick >= 0)
		close(f->kick);
	if (f->news >= 0)
		close(f->news);
	free(f->pending);
	free(f->last);
	free(f);
}

static bool has_versions(const struct roots *roots)
{
	for (size_t i = 0; i < roots->n; i++)
		if (sfs_source_caps(roots->paths[i]) & SFS_SOURCE_VERSIONED)
			return true;
	return false;
}

int fetcher_init(struct daemon *d)
{
	size_t n = d->opt->roots.n;

	if (!has_versions(&d->opt->roots))
		return 0;
	struct fetcher *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->lease.fd = -1;
	d->root_notes = calloc(n, sizeof(*d->root_notes));
	f->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->news = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->pending = calloc(n, sizeof(*f->pending));
	f->last = calloc(n, sizeof(*f->last));
	if (!d->root_notes || f->kick < 0 || f->news < 0 || !f->pending ||
	    !f->last) {
		fetcher_free(f);
		free(d->root_notes);
		d->root_notes = NULL;
		return -ENOMEM;
	}
	d->fetcher = f;
	/* before the first fetch: what it brings is leased already */
	cache_bound_lease(d, &f->lease);
	return 0;
}

/* Sets root i's note to `why` (NULL: none); whether it changed. */
static bool set_note(struct daemon *d, size_t i, const char *why)
{
	char *copy = why ? strdup(why) : NULL;
	bool changed;

	pthread_mutex_lock(&d->notes_lock);
	changed = !d->root_notes[i] != !why ||
	          (why && strcmp(d->root_notes[i], why) != 0);
	free(d->root_notes[i]);
	d->root_notes[i] = copy;
	pthread_mutex_unlock(&d->notes_lock);
	return changed;
}

/* The version root i of the current generation serves, or "". */
static void served(struct daemon *d, size_t i, char *out, size_t len)
{
	struct gen *g = daemon_get_current(d);
	const struct sfs_source *src = g ? sfs_catalog_source(g->cat, i)
	                                 : NULL;
	const char *v = src && src->ops->version ? src->ops->version(src)
	                                         : NULL;

	snprintf(out, len, "%s", v ? v : "");
	if (g)
		daemon_put_current(g);
}

/* Whether root i waits for its first fetch (fetcher_first). */
static bool first_fetch(struct daemon *d, size_t i)
{
	pthread_mutex_lock(&d->notes_lock);
	bool first = d->root_notes[i] &&
	             strcmp(d->root_notes[i], FETCHING_NOTE) == 0;
	pthread_mutex_unlock(&d->notes_lock);
	return first;
}

/* Root i did not answer the start within START_WAIT_MS: the thread's
 * first turn fetches it, and status.json says so meanwhile. */
static void defer_first(struct daemon *d, size_t i)
{
	set_note(d, i, FETCHING_NOTE);
	d->fetcher->first_pending = true;
	fprintf(stderr, "skillsfs: waiting for %s: no answer within %d ms; "
	        "its skills are served once it answers, the other roots "
	        "meanwhile\n", d->opt->roots.paths[i], START_WAIT_MS);
}

/* Brings root i up to date; whether what it serves moved, or its
 * failure changed. */
static bool update_root(struct daemon *d, const struct sfs_config *cfg,
                        size_t i)
{
	struct fetcher *f = d->fetcher;
	const char *root = d->opt->roots.paths[i];
	char version[VERSION_MAX] = "", why[1024] = "", now[VERSION_MAX];
	unsigned ttl = 0;

	/* cleared first: news that comes during the fetch is fetched after */
	atomic_store(&f->pending[i], false);
	f->updates++;
	int rc = sfs_source_update(cfg, root, version, sizeof(version), &ttl,
	                           why, sizeof(why));
	if (rc == -ECANCELED && f->starting) {
		defer_first(d, i);
		return false;
	}
	if (rc == -ECANCELED && atomic_load(&d->stopping))
		return false;   /* the mount ends: nothing to tell */
	f->last[i] = (struct root_fetch){ .fetched_ms = now_ms(), .ttl_ms = ttl,
	                                  .rejected = rc == -EKEYREJECTED };
	if (rc == 0)
		return false;
	/* a new failure, or a recovery: told, and status.json tells it too
	 * after a build */
	bool first = first_fetch(d, i);
	bool news = set_note(d, i, rc < 0 ? why : NULL);
	if (news && rc < 0)
		report_say(d, LOG_WARNING, "%s: %s", root, why);
	else if (news)
		report_say(d, LOG_NOTICE, "%s: fetched%s", root,
		           first ? "" : " again");
	if (rc < 0)
		return news;
	/* (before the first generation, "": the start ignores what this
	 * returns) */
	served(d, i, now, sizeof(now));
	return news || strcmp(now, version) != 0;
}

static struct sfs_config config_of(const struct daemon *d)
{
	const struct roots *roots = &d->opt->roots;

	return (struct sfs_config){
		.roots = (const char *const *)roots->paths,
		.nroots = roots->n,
		.cache_dir = d->opt->cache_dir,
		.root_options = d->root_options,
		/* a trust policy judges what it has read: every file of a
		 * remote skill is fetched before the skill is served
		 * (SEP-2640 would have a host fetch it when the skill is
		 * loaded, after the agent has seen its listing) */
		.trust = (enum sfs_trust)d->opt->trust,
	};
}

bool fetcher_update(struct daemon *d)
{
	struct sfs_config cfg = config_of(d);
	bool moved = false;

	for (size_t i = 0; d->fetcher && i < d->opt->roots.n; i++) {
		if (atomic_load(&d->stopping))
			break;
		if (d->fetcher->first_only && !first_fetch(d, i))
			continue;   /* fetched by the start */
		moved |= update_root(d, &cfg, i);
	}
	return moved;
}

bool fetcher_rejected(const struct daemon *d, size_t i)
{
	return d->fetcher && d->fetcher->last[i].rejected;
}

void fetcher_root_read(struct daemon *d, size_t i)
{
	if (d->fetcher)
		sfs_cache_lease_read(&d->fetcher->lease, i);
}

bool fetcher_start_waited(const struct daemon *d)
{
	long long until = atomic_load(&d->start_until_ms);
	return until && now_ms() >= until;
}

void fetcher_first(struct daemon *d)
{
	struct fetcher *f = d->fetcher;
	const struct roots *roots = &d->opt->roots;
	bool wait = d->opt->strict || d->opt->lock;

	if (!f)
		return;
	for (size_t i = 0; wait && i < roots->n; i++)
		if (sfs_source_caps(roots->paths[i]) & SFS_SOURCE_STOPPABLE)
			fprintf(stderr, "skillsfs: waiting for %s: %s judges "
			        "every root before it mounts\n", roots->paths[i],
			        d->opt->lock ? "--lock" : "-o strict");
	if (!wait)
		atomic_store(&d->start_until_ms, now_ms() + START_WAIT_MS);
	f->starting = !wait;
	fetcher_update(d);
	f->starting = false;
	sleep_ms(d, d->opt->fetch_interval_s);   /* for the first build */
	atomic_store(&d->start_until_ms, 0);
}

/* Fetches each root with news whose gap since its last fetch is over;
 * whether one moved.  *wait_ms: until the next one's gap is over, or -1
 * when no news waits. */
static bool update_news(struct daemon *d, int *wait_ms)
{
	struct fetcher *f = d->fetcher;
	struct sfs_config cfg = config_of(d);
	bool moved = false;

	*wait_ms = -1;
	for (size_t i = 0; i < d->opt->roots.n; i++) {
		if (!atomic_load(&f->pending[i]))
			continue;
		long long left = f->last[i].fetched_ms + FETCHER_NEWS_GAP_MS -
		                 now_ms();
		if (f->last[i].fetched_ms && left > 0) {
			if (*wait_ms < 0 || left < *wait_ms)
				*wait_ms = (int)left;
			continue;
		}
		moved |= update_root(d, &cfg, i);
		if (*wait_ms < 0 || FETCHER_NEWS_GAP_MS < *wait_ms)
			*wait_ms = FETCHER_NEWS_GAP_MS;   /* news meanwhile */
	}
	return moved;
}

/* How long the thread sleeps until the next fetch of every root:
 * fetch_interval, or a source's shorter lifetime (an MCP listing's
 * ttlMs, a well-known index's max-age or Expires; at least a second);
 * -1: until SIGHUP or news.  Kept for status.json. */
static long long sleep_ms(struct daemon *d, unsigned interval_s)
{
	struct fetcher *f = d->fetcher;
	long long ms = interval_s ? (long long)(interval_s > 86400 * 24 ?
	                                        86400 * 24 : interval_s) * 1000
	                          : -1;

	for (size_t i = 0; ms > 0 && i < d->opt->roots.n; i++) {
		unsigned ttl = f->last[i].ttl_ms;
		if (ttl && ttl < ms)
			ms = ttl < 1000 ? 1000 : ttl;
	}
	atomic_store(&d->fetch_every_ms, ms < 0 ? 0 : ms);
	return ms;
}

static void *run(void *arg)
{
	struct daemon *d = arg;
	struct fetcher *f = d->fetcher;
	unsigned interval = d->opt->fetch_interval_s;
	long long sleep = sleep_ms(d, interval);
	long long due = sleep < 0 ? -1 : now_ms() + sleep;   /* every root */
	int news_ms = -1;
	bool first = f->first_pending;   /* fetched at once */
	unsigned long collected = 0;     /* f->updates at the last collection */

	while (!atomic_load(&f->stop)) {
		struct pollfd p[2] = {
			{ .fd = f->kick, .events = POLLIN },
			{ .fd = f->news, .events = POLLIN },
		};
		long long wait = due < 0 ? -1 : due - now_ms();
		if (wait < 0 && due >= 0)
			wait = 0;
		if (news_ms >= 0 && (wait < 0 || news_ms < wait))
			wait = news_ms;
		if (first)
			wait = 0;
		int n = poll(p, 2, (int)wait);
		if (n < 0 && errno != EINTR)
			break;
		if (atomic_load(&f->stop))
			break;
		uint64_t count;
		bool hup = n > 0 && read(f->kick, &count, sizeof(count)) > 0;
		if (n > 0 && read(f->news, &count, sizeof(count)) < 0) {
			/* nothing new was said: a timeout or SIGHUP */
		}
		bool all = hup || (due >= 0 && now_ms() >= due);
		/* the first turn fetches the roots the start did not wait
		 * for (all of them after a SIGHUP) */
		f->first_only = first && !all;
		bool fetched = all || first;
		bool moved = fetched ? fetcher_update(d) : false;
		f->first_only = first = false;
		moved |= update_news(d, &news_ms);
		/* also after the first turn: a root the start did not wait
		 * for brings its ttlMs only now */
		if (fetched) {
			sleep = sleep_ms(d, interval);
			due = sleep < 0 ? -1 : now_ms() + sleep;
		}
		/* SIGHUP also looks at every folder: it always rebuilds */
		if (hup || moved)
			refresher_reload(d);
		/* what was read since the last turn counts as used now,
		 * before a collection orders by it */
		sfs_cache_lease_mark_read(&f->lease);
		if (f->updates != collected) {
			collected = f->updates;
			cache_bound_keep(d);
		}
	}
	return NULL;
}

int fetcher_start(struct daemon *d)
{
	struct fetcher *f = d->fetcher;

	if (!f)
		return 0;
	/* the mount's process now that it has daemonized */
	if (f->lease.fd >= 0)
		sfs_cache_lease_refresh(&f->lease);
	int rc = pthread_create(&f->thread, NULL, run, d);
	if (rc != 0)
		return -rc;
	f->started = true;
	f->listeners = listeners_start(d, f->news, f->pending);
	return f->listeners ? 0 : -ENOMEM;
}

int fetcher_kick_fd(const struct daemon *d)
{
	return d->fetcher ? d->fetcher->kick : -1;
}

void fetcher_stop(struct daemon *d)
{
	struct fetcher *f = d->fetcher;
	uint64_t one = 1;

	if (!f)
		return;
	listeners_stop(f->listeners);
	if (f->started) {
		atomic_store(&f->stop, true);
		if (write(f->kick, &one, sizeof(one)) < 0) {
			/* the counter is full: the thread wakes anyway */
		}
		pthread_join(f->thread, NULL);
	}
	pthread_mutex_lock(&d->notes_lock);
	for (size_t i = 0; i < d->opt->roots.n; i++)
		free(d->root_notes[i]);
	free(d->root_notes);
	d->root_notes = NULL;
	pthread_mutex_unlock(&d->notes_lock);
	fetcher_free(f);
	d->fetcher = NULL;
}
