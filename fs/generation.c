/*
 * generation.c - building generations from the sources and making one
 * current.
 *
 * Swapping is one pointer store under cur_lock.  Request handlers take the
 * current generation with a reference and an "active" mark; after a swap
 * the refresh thread waits until no handler still uses the old one as
 * current (a grace period, like RCU), so that every reply built from the
 * old generation has reached the kernel before the invalidations for it
 * are sent.  Only then are the kernel's lookups moved to the new
 * generation and the changed names and folders invalidated.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backing.h"
#include "daemon.h"
#include "diff.h"
#include "search.h"

struct gen *daemon_get_current(struct daemon *d)
{
	pthread_mutex_lock(&d->cur_lock);
	struct gen *g = d->cur ? gen_ref(d->cur) : NULL;
	if (g)
		atomic_fetch_add(&g->active, 1);
	pthread_mutex_unlock(&d->cur_lock);
	return g;
}

void daemon_put_current(struct gen *g)
{
	atomic_fetch_sub(&g->active, 1);
	gen_unref(g);
}

bool daemon_wait_newer(struct daemon *d, uint64_t seen, unsigned ms)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&d->cur_lock);
	int rc = 0;
	while (d->cur->number <= seen && rc == 0)
		rc = pthread_cond_timedwait(&d->published, &d->cur_lock,
		                            &until);
	bool newer = d->cur->number > seen;
	pthread_mutex_unlock(&d->cur_lock);
	return newer;
}

/* What a build keeps of a file for the security pass, at least
 * (SFS_SECURITY_MAX_BYTES): sfs_config.keep_file_max is never lower. */
#define KEEP_AT_LEAST ((size_t)1 << 20)

static long ms_between(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/* Copies the files that changed since the previous generation (those
 * with inode numbers from first_new on): these are the ones an author is
 * at work on, and the copy keeps their published version readable
 * whatever the author does next.  The copy is the build's own bytes when
 * it offered them (retain_offer); else the source is read, and a file
 * that changed again since the scan cannot be copied: the generation is
 * then built again (rebuild() in refresh.c), as for a file that could
 * not be pinned. */
static void retain_changed(struct daemon *d, struct gen *g, uint64_t first_new,
                           struct retain_offers *offers)
{
	for (uint32_t i = 0; i < g->nnodes; i++) {
		const struct node *n = &g->nodes[i];
		if (n->kind != NODE_SKILL_FILE || n->in_view ||
		    n->ino < first_new || !backing_may_read_ahead(g, n))
			continue;
		const struct sfs_file *f = gen_file(g, n);
		struct kept *k = f && f->hashed && f->size > 0 ?
			retain_offer_find(offers, f->sha256, (size_t)f->size) :
			NULL;
		if (k) {
			if (!gen_keep(g, n, k))
				kept_unref(k);   /* another thread was first */
			continue;
		}
		int rc = retain_node(&d->retainer, g, n, d->retainer.budget,
		                     RETAIN_CHANGED_MAX(&d->retainer));
		g->unpinned += rc == -ESTALE || rc == -ENOENT;
	}
}

/* d->root_notes as they are now, for one build; NULL when there are
 * none (or no memory: the build then says nothing of failed fetches). */
static const char **copy_notes(struct daemon *d)
{
	size_t n = d->opt->roots.n;
	const char **notes = NULL;

	pthread_mutex_lock(&d->notes_lock);
	if (d->root_notes)
		notes = calloc(n, sizeof(*notes));
	for (size_t i = 0; notes && i < n; i++)
		notes[i] = d->root_notes[i] ? strdup(d->root_notes[i]) : NULL;
	pthread_mutex_unlock(&d->notes_lock);
	return notes;
}

static void free_notes(struct daemon *d, const char **notes)
{
	for (size_t i = 0; notes && i < d->opt->roots.n; i++)
		free((char *)notes[i]);
	free(notes);
}

/* What every next generation is built with, a rebuild's or a new
 * status's; the caller adds what is its own. */
static struct gen_params next_params(struct daemon *d)
{
	return (struct gen_params){
		.number = d->generations + 1,
		.root_sources = d->opt->roots.sources,
		.cache_dir = d->opt->cache_dir,
		.cache_max = d->opt->cache_max,
		.fetch_every_ms = atomic_load(&d->fetch_every_ms),
		.uid = getuid(),
		.gid = getgid(),
		.next_ino = &d->next_ino,
		.mountpoint = d->mountpoint,
		.views = d->opt->cf.views,
		.nviews = d->opt->cf.nviews,
	};
}

struct gen *daemon_build(struct daemon *d, const struct gen *prev,
                         const struct build_inputs *in)
{
	const struct mount_options *o = d->opt;
	struct sfs_config cfg = {
		.roots = (const char *const *)o->roots.paths,
		.nroots = o->roots.n,
		.strict = o->strict,
		.include = (const char *const *)o->cf.include,
		.ninclude = o->cf.ninclude,
		.exclude = (const char *const *)o->cf.exclude,
		.nexclude = o->cf.nexclude,
		.docs_dir = o->docs_dir,
		/* other users may read the mount: the documents about
		 * every skill hold only what all of them may read */
		.shared_only = o->allow_other,
		.changed = prev ? in->changed : NULL,
		.nchanged = in->nchanged,
		.held = prev ? in->held : NULL,
		.nheld = prev ? in->nheld : 0,
		.before_listing = in->before_listing,
		.before_listing_arg = in->before_listing_arg,
		.resolve_sources = in->resolve_sources,
		.cache_dir = o->cache_dir,
		.root_options = d->root_options,
		.lock = o->lock,
		.trust = (enum sfs_trust)o->trust,
		.accept = d->reread ? d->reread->accept : o->cf.accept,
		.naccept = d->reread ? d->reread->naccept : o->cf.naccept,
		.found = in->found,
		.found_arg = d,
	};
	sfs_catalog *cat = NULL;
	const char **notes = copy_notes(d);
	cfg.root_notes = notes;
	/* A rebuild keeps the bytes it hashes of the files a changed skill
	 * holds, for their copies (retain_changed). */
	struct retain_offers offers;
	size_t changed_max = RETAIN_CHANGED_MAX(&d->retainer);
	bool offer = prev && changed_max > 0 &&
	             retain_offers_init(&offers, &d->retainer,
	                                d->retainer.budget, changed_max) == 0;
	if (offer) {
		cfg.hashed = retain_offer;
		cfg.hashed_arg = &offers;
		cfg.keep_file_max = changed_max > KEEP_AT_LEAST ? changed_max
		                                                 : KEEP_AT_LEAST;
	}

	uint64_t first_new = d->next_ino;
	struct timespec t0, t1, t2, t3;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = sfs_catalog_build(&cfg, prev ? prev->cat : NULL, &cat);
	free_notes(d, notes);
	if (rc < 0) {
		if (offer)
			retain_offers_free(&offers);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct gen_params p = next_params(d);
	p.refresh_mode = in->built(in->built_arg, cat);
	p.pin = backing_pin;
	p.max_pins = d->max_pins;
	clock_gettime(CLOCK_MONOTONIC, &t2);
	clock_gettime(CLOCK_REALTIME, &p.now);
	struct gen *g = gen_build(cat, prev, &p);
	clock_gettime(CLOCK_MONOTONIC, &t3);
	if (d->opt->debug)
		fprintf(stderr, "skillsfs: catalog %ld ms, watches %ld ms, "
		        "tree %ld ms\n", ms_between(t0, t1), ms_between(t1, t2),
		        ms_between(t2, t3));
	sfs_catalog_unref(cat);
	if (g && backing_open_roots(g) < 0) {
		gen_unref(g);
		g = NULL;
	}
	if (g && prev)
		retain_changed(d, g, first_new, offer ? &offers : NULL);
	if (offer)
		retain_offers_free(&offers);
	if (g)
		d->generations++;
	return g;
}

/* Gives g the sources prev holds open, for the nodes both have (same
 * inode numbers): a generation of the same catalog serves them alike. */
static void carry_pins(struct gen *g, const struct gen *prev)
{
	if (!prev->npins)
		return;
	g->pins = calloc(prev->npins, sizeof(*g->pins));
	for (uint32_t i = 0; g->pins && i < prev->npins; i++) {
		const struct node *n =
			gen_node(g, prev->nodes[prev->pins[i].node].ino);
		int fd = n ? fcntl(prev->pins[i].fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (fd >= 0)
			g->pins[g->npins++] = (struct pin){ gen_index(g, n), fd };
	}
}

struct gen *daemon_restatus(struct daemon *d,
                            const struct sfs_status_pending *pending)
{
	const struct gen *prev = d->cur;
	struct gen_params p = next_params(d);
	p.now = prev->built;      /* last_refresh: the sources' */
	p.refresh_mode = prev->refresh_mode;
	p.pending = pending;
	struct gen *g = gen_build(prev->cat, prev, &p);

	if (g && backing_open_roots(g) < 0) {
		gen_unref(g);
		return NULL;
	}
	if (g) {
		carry_pins(g, prev);
		d->generations++;
	}
	return g;
}

static void wait_grace(struct gen *old)
{
	const struct timespec pause = { 0, 100 * 1000 };

	while (atomic_load(&old->active) != 0)
		nanosleep(&pause, NULL);
}

static bool kernel_knows(struct daemon *d, uint64_t ino)
{
	return ino == TREE_ROOT_INO || lookups_known(&d->lookups, ino);
}

static void inval_entry(void *arg, uint64_t parent, const char *name)
{
	struct daemon *d = arg;

	if (!kernel_knows(d, parent))
		return;
	int rc = fuse_lowlevel_notify_inval_entry(d->se, parent, name,
	                                          strlen(name));
	if (d->opt->debug)
		fprintf(stderr, "skillsfs: invalidate entry %llu/%s: %d\n",
		        (unsigned long long)parent, name, rc);
}

static void inval_folder(void *arg, uint64_t ino)
{
	struct daemon *d = arg;

	if (!kernel_knows(d, ino))
		return;
	int rc = fuse_lowlevel_notify_inval_inode(d->se, ino, 0, 0);
	if (d->opt->debug)
		fprintf(stderr, "skillsfs: invalidate folder %llu: %d\n",
		        (unsigned long long)ino, rc);
}

void daemon_publish(struct daemon *d, struct gen *g)
{
	pthread_mutex_lock(&d->cur_lock);
	struct gen *old = d->cur;
	d->cur = g;
	pthread_cond_broadcast(&d->published);
	pthread_mutex_unlock(&d->cur_lock);
	if (!old)
		return;

	wait_grace(old);
	lookups_migrate(&d->lookups, g);
	struct diff_ops ops = { inval_entry, inval_folder, d };
	gen_diff(old, g, &ops);
	/* once the change is out, and only where search/ is in use (the
	 * old generation had made its index): the next search need not
	 * wait, and a mount nobody searches spends nothing on it */
	pthread_mutex_lock(&old->search_lock);
	bool searched = old->search != NULL;
	pthread_mutex_unlock(&old->search_lock);
	gen_unref(old);
	if (searched)
		sfs_search_unref(gen_search_prepare(g));
	daemon_trim();
}

void daemon_trim(void)
{
	malloc_trim(0);
}
