/*
 * lookups.h - the kernel's lookup counts, per inode number.
 *
 * Every inode the kernel knows (it got it from lookup or readdirplus and
 * has not forgotten it yet) is recorded with its count and the generation
 * that holds its node.  An inode that a newer generation no longer has
 * keeps its old generation alive until the kernel forgets it, so a reader
 * holding it keeps reading the old content.
 *
 * After a find over a large mount the kernel knows every inode, so the
 * table holds one entry per node: entries are 16 bytes, and name their
 * generation by its index in a short table of the generations in use,
 * which holds the one reference each of them needs.
 */
#ifndef SKILLSFS_LOOKUPS_H
#define SKILLSFS_LOOKUPS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tree.h"

struct lookup_entry {
	uint64_t ino;       /* 0: free slot */
	uint32_t count;     /* UINT32_MAX: too many to count, never
	                     * forgotten (billions of lookups: never) */
	uint32_t gen;       /* index in lookups.gens */
};

/* A generation some entries name. */
struct lookup_gen {
	struct gen *g;      /* one reference; NULL: a free slot */
	size_t entries;     /* entries naming it; the slot is freed at 0 */
};

struct lookups {
	pthread_mutex_t lock;
	struct lookup_entry *v;
	size_t cap;         /* power of two */
	size_t n;
	struct lookup_gen *gens;   /* a few: the current one and those
	                            * holding inodes that changed since */
	uint32_t ngens;
};

int lookups_init(struct lookups *l);
/* Drops every entry (the kernel is gone) and frees the table. */
void lookups_destroy(struct lookups *l);

/* The kernel got `ino` from generation g (which the caller holds) `count`
 * more times.  Returns 0 or -ENOMEM. */
int lookups_add(struct lookups *l, uint64_t ino, struct gen *g,
                uint64_t count);
/* The kernel forgot `count` lookups of ino. */
void lookups_forget(struct lookups *l, uint64_t ino, uint64_t count);
/* The generation that holds ino for the kernel, referenced; or NULL. */
struct gen *lookups_gen(struct lookups *l, uint64_t ino);
/* Whether the kernel currently knows ino. */
bool lookups_known(struct lookups *l, uint64_t ino);
/* Moves every entry whose inode `g` also has to g, so that older
 * generations stay alive only for what changed. */
void lookups_migrate(struct lookups *l, struct gen *g);
size_t lookups_count(struct lookups *l);

#endif
