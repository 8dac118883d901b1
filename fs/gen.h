/*
 * gen.h - a generation of the mount as its readers see it: its nodes, its
 * documents, the copies it keeps, and the small accessors of them.  What
 * builds a generation (tree.c) and what reads its files' sources
 * (backing.c) and keeps their bytes (retain.c) all use these, so none of
 * them needs to call another to read a generation.  See tree.h.
 */
#ifndef SKILLSFS_GEN_H
#define SKILLSFS_GEN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "skillsfs.h"

struct kept;       /* retain.h */
struct sfs_views;  /* views.h */
struct sfs_search;  /* search.h */
struct strpool;    /* strpool.h */

#define TREE_ROOT_INO 1          /* FUSE_ROOT_ID */
#define TREE_NONE UINT32_MAX
/* node.skill of docs/ and everything below it: sfs_catalog_docs(), laid
 * out like a skill's folder */
#define TREE_DOCS (UINT32_MAX - 1)

enum node_kind {
	NODE_DIR,        /* a folder of the mount's own: /, catalog/, ... */
	NODE_DOC,        /* a generated JSON document */
	NODE_REFLINK,    /* refs/<id>/<ref>.md: a symlink into skills/ */
	NODE_SKILL_DIR,  /* skills/<id> and the folders inside it */
	NODE_SKILL_FILE, /* a regular file of a skill, read from its source */
	NODE_SKILL_LINK, /* a symlink inside a skill, target as stored */
};

/*
 * One entry of the mount.  A large mount has one per file and folder of
 * every skill, so a node holds only what the catalog cannot tell: its
 * place in the tree and, for the mount's own entries, the time they last
 * changed.  Everything else (mode, size, owner, a file's mtime) is taken
 * from the catalog or the generation when asked (gen_stat).
 */
struct node {
	uint64_t ino;
	const char *name;       /* owned by the generation or its catalog */
	int64_t mtime;          /* ns since the epoch, of every kind but
	                         * NODE_SKILL_FILE and NODE_SKILL_LINK, whose
	                         * times are their sources' */
	uint32_t parent;        /* node index; the root is its own parent */
	uint32_t first, nkids;  /* folders: children, contiguous, by name */
	uint32_t skill;         /* catalog index of the skill, or TREE_NONE */
	uint32_t item;          /* skill nodes: index in the skill's files
	                         * (TREE_NONE for skills/<id>); documents:
	                         * index in the docs; ref links: index in
	                         * the skill's refs */
	uint8_t kind;           /* enum node_kind */
	uint8_t in_view;        /* inside views/<view>/: a file or link
	                         * there is a hard link of its entry in
	                         * skills/ (the same inode number), whose
	                         * node the inode hash finds, and which
	                         * alone holds its copy and its pin */
};

/* A changed source held open by a generation (see gen_params.pin). */
struct pin {
	uint32_t node;          /* node index */
	int fd;
};

/* A generated document (len without a NUL). */
struct doc {
	char *data;             /* status.json; NULL for a skill's record
	                         * (see gen_record) and for lines */
	size_t len;
	uint8_t sha256[16];     /* a skill's record: of its bytes (the
	                         * first half of their SHA-256) */
	sfs_lines_doc *lines;   /* index.json, skills_index.json: read in
	                         * place from the catalog; owned */
};

struct gen {
	atomic_uint refs;       /* see gen_ref() */
	atomic_uint active;     /* requests that took it as the current one */
	uint64_t number;        /* status.json's "generation" */
	struct timespec built;
	const char *refresh_mode;
	sfs_catalog *cat;       /* one reference */
	struct node *nodes;     /* nodes[0] is the root */
	uint32_t nnodes;
	uid_t uid;              /* owner of the mount's own entries */
	gid_t gid;
	uint64_t bytes;         /* sum of the sizes of files, for statfs */
	struct pin *pins;       /* sorted by node; descriptors owned */
	/* per node: the published bytes of a skill file, or NULL (see
	 * retain.h); set once, by gen_build or gen_keep, one reference */
	struct kept *_Atomic *kept;
	uint32_t npins;
	unsigned unpinned;      /* changed files that changed again before
	                         * they could be pinned (gen_params.pin) */
	uint32_t *slots;        /* ino hash: node index + 1, 0 when empty */
	uint32_t mask;
	struct doc *docs;
	uint32_t ndocs;
	struct strpool *names;  /* names the catalog does not own */
	struct sfs_views *views;   /* views/: what each holds; owned */
	pthread_mutex_t search_lock;   /* guards search */
	struct sfs_search *search;   /* search/: the index, one ref; made
	                              * when first needed (gen_search) */
	int *root_fds;          /* per catalog root, its source's open_root
	                         * (a folder: O_PATH) or -1; see backing.c,
	                         * closed with the generation */
	uint32_t nroot_fds;
};

static inline uint32_t gen_index(const struct gen *g, const struct node *n)
{
	return (uint32_t)(n - g->nodes);
}
static inline bool node_is_dir(const struct node *n)
{
	return n->kind == NODE_DIR || n->kind == NODE_SKILL_DIR;
}
/* index.json, catalog/skills_index.json and status.json: the documents
 * about the whole catalog rather than one skill. */
static inline bool node_is_index(const struct node *n)
{
	return n->kind == NODE_DOC && n->skill == TREE_NONE;
}

/* A skill by its node.skill, or the docs tree for TREE_DOCS. */
static inline const struct sfs_skill *gen_skill_at(const struct gen *g,
                                                   uint32_t i)
{
	return i == TREE_DOCS ? sfs_catalog_docs(g->cat)
	                      : sfs_catalog_skill(g->cat, i);
}

/* The skill a node belongs to, and its source file (NULL for skills/<id>
 * itself and for nodes outside skills/). */
static inline const struct sfs_skill *gen_skill(const struct gen *g,
                                                const struct node *n)
{
	return n->skill == TREE_NONE ? NULL : gen_skill_at(g, n->skill);
}

static inline const struct sfs_file *gen_file(const struct gen *g,
                                              const struct node *n)
{
	if (n->kind != NODE_SKILL_DIR && n->kind != NODE_SKILL_FILE &&
	    n->kind != NODE_SKILL_LINK)
		return NULL;
	if (n->item == TREE_NONE)
		return NULL;
	return &gen_skill_at(g, n->skill)->files[n->item];
}

/* A document; NULL for other kinds. */
static inline const struct doc *gen_doc(const struct gen *g,
                                        const struct node *n)
{
	return n->kind == NODE_DOC ? &g->docs[n->item] : NULL;
}

/* The descriptor a generation holds open for a skill file (see
 * gen_params.pin), or -1. */
static inline int gen_pinned(const struct gen *g, const struct node *n)
{
	uint32_t idx = gen_index(g, n), lo = 0, hi = g->npins;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->pins[mid].node == idx)
			return g->pins[mid].fd;
		if (g->pins[mid].node < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The copy of a skill file's published bytes g holds, or NULL. */
static inline struct kept *gen_kept(const struct gen *g, const struct node *n)
{
	return atomic_load_explicit(&g->kept[gen_index(g, n)],
	                            memory_order_acquire);
}

/* Gives g the copy k (one reference) of n's bytes; false when g already
 * has one, and k stays the caller's. */
static inline bool gen_keep(struct gen *g, const struct node *n,
                            struct kept *k)
{
	struct kept *none = NULL;

	return atomic_compare_exchange_strong(&g->kept[gen_index(g, n)],
	                                      &none, k);
}

#endif
