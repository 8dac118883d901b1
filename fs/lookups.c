/*
 * lookups.c - the kernel's lookup counts per inode (see lookups.h): an
 * open-addressing hash table with linear probing and backward-shift
 * deletion, at most three quarters full, under one mutex.  Generations
 * that no entry names any more are dropped, and freed after the lock is
 * released.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lookups.h"

#define COUNT_MAX UINT32_MAX
#define NO_SLOT UINT32_MAX

static size_t slot_of(const struct lookups *l, uint64_t ino)
{
	return (size_t)((ino * 0x9E3779B97F4A7C15ull) >> 20) & (l->cap - 1);
}

static struct lookup_entry *find(const struct lookups *l, uint64_t ino)
{
	for (size_t s = slot_of(l, ino); l->v[s].ino;
	     s = (s + 1) & (l->cap - 1))
		if (l->v[s].ino == ino)
			return &l->v[s];
	return NULL;
}

static void place(struct lookups *l, struct lookup_entry e)
{
	size_t s = slot_of(l, e.ino);

	while (l->v[s].ino)
		s = (s + 1) & (l->cap - 1);
	l->v[s] = e;
}

static int grow(struct lookups *l)
{
	struct lookup_entry *old = l->v;
	size_t oldcap = l->cap;
	size_t cap = oldcap ? oldcap * 2 : 1024;
	struct lookup_entry *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].ino)
			place(l, old[i]);
	free(old);
	return 0;
}

static bool full(const struct lookups *l)
{
	return (l->n + 1) * 4 > l->cap * 3;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void erase(struct lookups *l, struct lookup_entry *e)
{
	size_t mask = l->cap - 1;
	size_t hole = (size_t)(e - l->v);

	for (size_t s = (hole + 1) & mask; l->v[s].ino; s = (s + 1) & mask) {
		size_t home = slot_of(l, l->v[s].ino);
		/* move s into the hole unless its home lies in (hole, s] */
		bool stays = hole <= s ? (home > hole && home <= s)
		                       : (home > hole || home <= s);
		if (!stays) {
			l->v[hole] = l->v[s];
			hole = s;
		}
	}
	memset(&l->v[hole], 0, sizeof(l->v[hole]));
	l->n--;
}

static uint32_t add_count(uint32_t have, uint64_t more)
{
	return more >= (uint64_t)(COUNT_MAX - have) ? COUNT_MAX :
	       have + (uint32_t)more;
}

/* ---- the generations entries name ------------------------------------- */

/* The slot of g in l->gens, taken (with a reference) when g has none yet;
 * NO_SLOT when out of memory. */
static uint32_t gen_slot(struct lookups *l, struct gen *g)
{
	uint32_t free_slot = l->ngens;

	for (uint32_t i = 0; i < l->ngens; i++) {
		if (l->gens[i].g == g)
			return i;
		if (!l->gens[i].g && free_slot == l->ngens)
			free_slot = i;
	}
	if (free_slot == l->ngens) {
		struct lookup_gen *v = realloc(l->gens,
		                               (l->ngens + 1) * sizeof(*v));
		if (!v)
			return NO_SLOT;
		l->gens = v;
		l->ngens++;
	}
	l->gens[free_slot] = (struct lookup_gen){ gen_ref(g), 0 };
	return free_slot;
}

/* Frees slot i when no entry names it.  Returns its generation when that
 * was the last reference: the caller frees it once the lock is released. */
static struct gen *settle(struct lookups *l, uint32_t i)
{
	struct gen *g = l->gens[i].g;

	if (!g || l->gens[i].entries)
		return NULL;
	l->gens[i].g = NULL;
	return gen_drop(g) ? g : NULL;
}

/* Makes e name slot `to` instead of its own; returns what settle does
 * for the slot it named. */
static struct gen *move(struct lookups *l, struct lookup_entry *e,
                        uint32_t to)
{
	uint32_t from = e->gen;

	l->gens[to].entries++;
	l->gens[from].entries--;
	e->gen = to;
	return settle(l, from);
}

/* ---- the interface -------------------------------------------------------- */

int lookups_init(struct lookups *l)
{
	memset(l, 0, sizeof(*l));
	if (pthread_mutex_init(&l->lock, NULL) != 0)
		return -ENOMEM;
	return grow(l);
}

void lookups_destroy(struct lookups *l)
{
	for (uint32_t i = 0; i < l->ngens; i++)
		gen_unref(l->gens[i].g);
	free(l->gens);
	free(l->v);
	l->gens = NULL;
	l->v = NULL;
	l->ngens = 0;
	l->cap = l->n = 0;
	pthread_mutex_destroy(&l->lock);
}

int lookups_add(struct lookups *l, uint64_t ino, struct gen *g,
                uint64_t count)
{
	struct gen *drop = NULL;
	uint32_t slot;
	int rc = 0;

	pthread_mutex_lock(&l->lock);
	struct lookup_entry *e = find(l, ino);
	if (e) {
		e->count = add_count(e->count, count);
		/* same inode, same content: prefer the newer generation (when
		 * out of memory, the older one just lives a little longer) */
		if (g->number > l->gens[e->gen].g->number &&
		    (slot = gen_slot(l, g)) != NO_SLOT)
			drop = move(l, e, slot);
	} else if ((full(l) && grow(l) < 0) ||
	           (slot = gen_slot(l, g)) == NO_SLOT) {
		rc = -ENOMEM;
	} else {
		place(l, (struct lookup_entry){ ino, add_count(0, count),
		                                slot });
		l->gens[slot].entries++;
		l->n++;
	}
	pthread_mutex_unlock(&l->lock);
	if (drop)
		gen_free(drop);
	return rc;
}

void lookups_forget(struct lookups *l, uint64_t ino, uint64_t count)
{
	struct gen *drop = NULL;

	pthread_mutex_lock(&l->lock);
	struct lookup_entry *e = find(l, ino);
	if (e && e->count != COUNT_MAX) {
		if (e->count > count) {
			e->count -= (uint32_t)count;
		} else {
			uint32_t slot = e->gen;
			erase(l, e);
			l->gens[slot].entries--;
			drop = settle(l, slot);
		}
	}
	pthread_mutex_unlock(&l->lock);
	if (drop)
		gen_free(drop);
}

struct gen *lookups_gen(struct lookups *l, uint64_t ino)
{
	struct gen *g = NULL;

	pthread_mutex_lock(&l->lock);
	struct lookup_entry *e = find(l, ino);
	if (e)
		g = gen_ref(l->gens[e->gen].g);
	pthread_mutex_unlock(&l->lock);
	return g;
}

bool lookups_known(struct lookups *l, uint64_t ino)
{
	pthread_mutex_lock(&l->lock);
	bool known = find(l, ino) != NULL;
	pthread_mutex_unlock(&l->lock);
	return known;
}

size_t lookups_count(struct lookups *l)
{
	pthread_mutex_lock(&l->lock);
	size_t n = l->n;
	pthread_mutex_unlock(&l->lock);
	return n;
}

void lookups_migrate(struct lookups *l, struct gen *g)
{
	pthread_mutex_lock(&l->lock);
	uint32_t to = gen_slot(l, g);
	if (to == NO_SLOT) {
		/* out of memory: the older generations live a little longer */
		pthread_mutex_unlock(&l->lock);
		return;
	}
	for (size_t i = 0; i < l->cap; i++) {
		struct lookup_entry *e = &l->v[i];
		if (!e->ino || e->gen == to || !gen_node(g, e->ino))
			continue;
		l->gens[e->gen].entries--;
		l->gens[to].entries++;
		e->gen = to;
	}
	/* Every generation no entry names any more goes (g too, when the
	 * kernel knows none of its inodes yet), freed outside the lock
	 * unless there is no room to list them. */
	struct gen **dead = malloc(l->ngens * sizeof(*dead));
	size_t ndead = 0;
	for (uint32_t i = 0; i < l->ngens; i++) {
		struct gen *d = settle(l, i);
		if (d && dead)
			dead[ndead++] = d;
		else if (d)
			gen_free(d);
	}
	pthread_mutex_unlock(&l->lock);
	for (size_t i = 0; i < ndead; i++)
		gen_free(dead[i]);
	free(dead);
}
