/*
 * lookups.c - the kernel's lookup counts per inode (see lookups.h): an
 * open-addressing hash table with linear probing and backward-shift
 * deletion, under one mutex.  Generations whose last reference goes are
 * freed after the lock is released.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lookups.h"

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

int lookups_init(struct lookups *l)
{
	memset(l, 0, sizeof(*l));
	if (pthread_mutex_init(&l->lock, NULL) != 0)
		return -ENOMEM;
	return grow(l);
}

void lookups_destroy(struct lookups *l)
{
	for (size_t i = 0; i < l->cap; i++)
		if (l->v[i].ino)
			gen_unref(l->v[i].gen);
	free(l->v);
	l->v = NULL;
	l->cap = l->n = 0;
	pthread_mutex_destroy(&l->lock);
}

int lookups_add(struct lookups *l, uint64_t ino, struct gen *g,
                uint64_t count)
{
	struct gen *drop = NULL;
	int rc = 0;

	pthread_mutex_lock(&l->lock);
	struct lookup_entry *e = find(l, ino);
	if (e) {
		e->count += count;
		/* same inode, same content: prefer the newer generation */
		if (g->number > e->gen->number) {
			drop = e->gen;
			e->gen = gen_ref(g);
		}
	} else if ((l->n + 1) * 2 > l->cap && grow(l) < 0) {
		rc = -ENOMEM;
	} else {
		place(l, (struct lookup_entry){ ino, count, gen_ref(g) });
		l->n++;
	}
	bool last = drop && gen_drop(drop);
	pthread_mutex_unlock(&l->lock);
	if (last)
		gen_free(drop);
	return rc;
}

void lookups_forget(struct lookups *l, uint64_t ino, uint64_t count)
{
	struct gen *drop = NULL;

	pthread_mutex_lock(&l->lock);
	struct lookup_entry *e = find(l, ino);
	if (e) {
		if (e->count > count) {
			e->count -= count;
		} else {
			drop = e->gen;
			erase(l, e);
		}
	}
	bool last = drop && gen_drop(drop);
	pthread_mutex_unlock(&l->lock);
	if (last)
		gen_free(drop);
}

struct gen *lookups_gen(struct lookups *l, uint64_t ino)
{
	struct gen *g = NULL;

	pthread_mutex_lock(&l->lock);
	struct lookup_entry *e = find(l, ino);
	if (e)
		g = gen_ref(e->gen);
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
	struct gen **dead = NULL;
	size_t ndead = 0, cap = 0;

	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->cap; i++) {
		struct lookup_entry *e = &l->v[i];
		if (!e->ino || e->gen == g || !gen_node(g, e->ino))
			continue;
		struct gen *old = e->gen;
		e->gen = gen_ref(g);
		if (!gen_drop(old))
			continue;
		if (ndead == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct gen **v = realloc(dead, ncap * sizeof(*v));
			if (!v) {
				gen_free(old);   /* rare: free under the lock */
				continue;
			}
			dead = v;
			cap = ncap;
		}
		dead[ndead++] = old;
	}
	pthread_mutex_unlock(&l->lock);
	for (size_t i = 0; i < ndead; i++)
		gen_free(dead[i]);
	free(dead);
}
