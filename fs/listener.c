/*
 * listener.c - one thread per MCP root that waits for the server to say
 * its listing changed (notifications/resources/list_changed), so that the
 * mount follows a change within moments instead of at the next
 * -o fetch_interval.  A thread only listens, on one stream however many
 * notifications come: the news goes to the fetcher (a flag of the root,
 * and an eventfd), which lists that root's skills again, at most once per
 * FETCHER_NEWS_GAP_MS whatever the server sends, and has a generation
 * built when the listing moved.  A server that sends no notifications is
 * left to the fetcher's timer; a stream that breaks, or that the server
 * ends at once, is listened to again after a pause that grows to a
 * minute, and a fetch then catches up with what the break may have
 * hidden.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "listener.h"
#include "report.h"
#include "source.h"

#define PAUSE_MAX_S 60

struct listener {
	struct listeners *all;
	size_t root;
	pthread_t thread;
	bool started;
};

struct listeners {
	struct daemon *d;
	int news;                /* the fetcher's eventfd */
	atomic_bool *pending;    /* the fetcher's: root i has news */
	int wake;                /* eventfd: stop */
	atomic_bool stop;
	struct listener *v;
	size_t n;
};

static bool stopping(void *arg)
{
	const struct listener *l = arg;
	return atomic_load(&l->all->stop);
}

/* Tells the fetcher that l's root has news: coalesced with what it was
 * told before and has not fetched yet. */
static void tell_fetcher(void *arg)
{
	const struct listener *l = arg;
	uint64_t one = 1;

	atomic_store(&l->all->pending[l->root], true);
	if (write(l->all->news, &one, sizeof(one)) < 0) {
		/* the counter is full: the fetcher wakes anyway */
	}
}

/* Waits `s` seconds, or less when told to stop. */
static void pause_for(const struct listeners *all, unsigned s)
{
	struct pollfd p = { .fd = all->wake, .events = POLLIN };

	if (!atomic_load(&all->stop))
		poll(&p, 1, (int)s * 1000);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *listen_root(void *arg)
{
	struct listener *l = arg;
	struct listeners *all = l->all;
	const struct mount_options *o = all->d->opt;
	const char *root = o->roots.paths[l->root];
	struct sfs_config cfg = {
		.roots = (const char *const *)o->roots.paths,
		.nroots = o->roots.n,
		.cache_dir = o->cache_dir,
		.root_options = all->d->root_options,
	};
	unsigned pause = 1;
	bool broken = false;

	while (!stopping(l)) {
		char why[1024] = "";
		long long t0 = now_ms();
		int rc = sfs_source_listen(&cfg, root, tell_fetcher, stopping, l,
		                           why, sizeof(why));
		if (rc == -EOPNOTSUPP) {
			report_say(all->d, LOG_INFO, "%s: no notifications of "
			           "changes (%s): the listing is fetched every "
			           "fetch_interval and on SIGHUP", root, why);
			break;
		}
		/* a stream that ended at once is as good as a broken one:
		 * so a server that ends it at each notification is not
		 * listened to again (a handshake) at its pace */
		if (stopping(l) || (rc >= 0 && now_ms() - t0 > 1000)) {
			pause = 1;
			broken = false;
			continue;
		}
		if (rc < 0 && !broken)
			report_say(all->d, LOG_NOTICE, "%s: listening for "
			           "changes: %s; trying again", root, why);
		broken = true;
		pause_for(all, pause);
		pause = pause * 2 > PAUSE_MAX_S ? PAUSE_MAX_S : pause * 2;
		tell_fetcher(l);   /* what the break may have hidden */
	}
	return NULL;
}

struct listeners *listeners_start(struct daemon *d, int news,
                                  atomic_bool *pending)
{
	const struct roots *roots = &d->opt->roots;
	struct listeners *all = calloc(1, sizeof(*all));

	if (!all)
		return NULL;
	all->d = d;
	all->news = news;
	all->pending = pending;
	all->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	all->v = calloc(roots->n ? roots->n : 1, sizeof(*all->v));
	if (all->wake < 0 || !all->v) {
		listeners_stop(all);
		return NULL;
	}
	for (size_t i = 0; i < roots->n; i++) {
		if (!(sfs_source_caps(roots->paths[i]) & SFS_SOURCE_LISTENS))
			continue;
		struct listener *l = &all->v[all->n++];
		l->all = all;
		l->root = i;
		l->started = pthread_create(&l->thread, NULL, listen_root,
		                            l) == 0;
	}
	return all;
}

void listeners_stop(struct listeners *all)
{
	uint64_t one = 1;

	if (!all)
		return;
	atomic_store(&all->stop, true);
	if (all->wake >= 0 && write(all->wake, &one, sizeof(one)) < 0) {
		/* the counter is full: the threads wake anyway */
	}
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].started)
			pthread_join(all->v[i].thread, NULL);
	if (all->wake >= 0)
		close(all->wake);
	free(all->v);
	free(all);
}
