/*
 * fetcher.c - the thread that keeps git roots up to date.
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
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon.h"
#include "fetcher.h"
#include "report.h"
#include "source.h"

#define VERSION_MAX 72   /* a commit id, or a listing digest (64 hex) */

struct fetcher {
	pthread_t thread;
	bool started;
	int kick;                    /* eventfd: SIGHUP, or stop */
	atomic_bool stop;
};

static bool has_versions(const struct roots *roots)
{
	for (size_t i = 0; i < roots->n; i++)
		if (sfs_source_is_url(roots->paths[i]))
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
	d->root_notes = calloc(n, sizeof(*d->root_notes));
	f->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!d->root_notes || f->kick < 0) {
		if (f->kick >= 0)
			close(f->kick);
		free(d->root_notes);
		d->root_notes = NULL;
		free(f);
		return -ENOMEM;
	}
	d->fetcher = f;
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

bool fetcher_update(struct daemon *d)
{
	struct fetcher *f = d->fetcher;
	const struct roots *roots = &d->opt->roots;
	struct sfs_config cfg = {
		.roots = (const char *const *)roots->paths,
		.nroots = roots->n,
		.cache_dir = d->opt->cache_dir,
		.root_options = d->opt->root_options,
	};
	bool moved = false;

	for (size_t i = 0; f && i < roots->n; i++) {
		char version[VERSION_MAX] = "", why[1024] = "", now[VERSION_MAX];
		int rc = sfs_source_update(&cfg, roots->paths[i], version,
		                           sizeof(version), why, sizeof(why));
		if (rc == 0)
			continue;
		/* a new failure, or a recovery: told, and status.json
		 * tells it too after a build */
		bool news = set_note(d, i, rc < 0 ? why : NULL);
		if (news && rc < 0)
			report_say(d, LOG_WARNING, "%s: %s", roots->paths[i], why);
		else if (news)
			report_say(d, LOG_NOTICE, "%s: fetched again",
			           roots->paths[i]);
		moved |= news;
		if (rc < 0)
			continue;
		if (d->cur) {
			served(d, i, now, sizeof(now));
			moved |= strcmp(now, version) != 0;
		}
	}
	return moved;
}

static void *run(void *arg)
{
	struct daemon *d = arg;
	struct fetcher *f = d->fetcher;
	unsigned interval = d->opt->fetch_interval_s;

	while (!atomic_load(&f->stop)) {
		struct pollfd p = { .fd = f->kick, .events = POLLIN };
		int timeout = interval ? (int)(interval > 86400 * 24 ?
		                               86400 * 24 : interval) * 1000
		                       : -1;
		int n = poll(&p, 1, timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (atomic_load(&f->stop))
			break;
		uint64_t count;
		bool hup = n > 0 && read(f->kick, &count, sizeof(count)) > 0;
		bool moved = fetcher_update(d);
		/* SIGHUP also looks at every folder: it always rebuilds */
		if (hup || moved)
			refresher_reload(d);
	}
	return NULL;
}

int fetcher_start(struct daemon *d)
{
	struct fetcher *f = d->fetcher;

	if (!f)
		return 0;
	int rc = pthread_create(&f->thread, NULL, run, d);
	if (rc != 0)
		return -rc;
	f->started = true;
	return 0;
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
	close(f->kick);
	free(f);
	d->fetcher = NULL;
}
