/*
 * tree.h - one generation of the mount: a catalog snapshot, the JSON
 * documents rendered from it, and the inode table that lays both out as
 * the directory tree the kernel sees.
 *
 * A generation is immutable once built, so request handlers on any thread
 * read it without locks; a skill's record (catalog/<id>.json) is rendered
 * when read, and not kept.  Inode numbers are carried over from the previous
 * generation for everything that did not change (same kind at the same
 * path, same bytes or the same source file), and freshly allocated for
 * everything else, so the kernel's caches stay valid for unchanged files
 * and a reader holding an old inode keeps reading the old content.
 */
#ifndef SKILLSFS_TREE_H
#define SKILLSFS_TREE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "retain.h"
#include "skillsfs.h"

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
};

/* A changed source held open by a generation (see gen_params.pin). */
struct pin {
	uint32_t node;          /* node index */
	int fd;
};

/* A generated document (len without a NUL). */
struct doc {
	char *data;             /* status.json, and the indexes of a catalog
	                         * without lines; NULL for a skill's record
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
	int *root_fds;          /* per catalog root, O_PATH or -1; see
	                         * backing.c, closed with the generation */
	uint32_t nroot_fds;
};

/* What a generation needs besides the catalog. */
struct gen_params {
	uint64_t number;
	struct timespec now;
	const char *refresh_mode;           /* static string */
	const char *const *root_sources;    /* per root, for status.json */
	uid_t uid;                          /* owner of generated entries */
	gid_t gid;
	uint64_t *next_ino;                 /* allocator, advanced */
	/* Opens a file that changed since the previous generation, if it is
	 * still the very file the scan read, so that reads serve the bytes
	 * the catalog hashed even if the source is replaced again before the
	 * next refresh.  Returns a descriptor or -errno; NULL: never. */
	int (*pin)(const struct sfs_skill *s, const struct sfs_file *f);
	unsigned max_pins;                  /* per generation */
	/* for status.json: a change not published yet, or NULL */
	const struct sfs_status_pending *pending;
};

/*
 * Builds the generation for `cat` (which it references), reusing inode
 * numbers of `prev` (may be NULL) for unchanged entries.  Returns NULL when
 * out of memory.  The new generation has one reference.
 */
struct gen *gen_build(sfs_catalog *cat, const struct gen *prev,
                      const struct gen_params *p);

struct gen *gen_ref(struct gen *g);
/* Drops a reference; returns true when it was the last one, after which
 * the caller must gen_free() it (possibly later, outside its locks). */
bool gen_drop(struct gen *g);
void gen_free(struct gen *g);
static inline void gen_unref(struct gen *g)
{
	if (g && gen_drop(g))
		gen_free(g);
}

const struct node *gen_node(const struct gen *g, uint64_t ino);
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
/* The child of a folder by exact name, or NULL. */
const struct node *gen_child(const struct gen *g, const struct node *dir,
                             const char *name);
/* The only child whose name matches ignoring ASCII case, or NULL when
 * none or several do. */
const struct node *gen_child_nocase(const struct gen *g,
                                    const struct node *dir,
                                    const char *name);
/* The skill a node belongs to, and its source file (NULL for skills/<id>
 * itself and for nodes outside skills/). */
const struct sfs_skill *gen_skill(const struct gen *g, const struct node *n);
const struct sfs_file *gen_file(const struct gen *g, const struct node *n);
/* A document; NULL for other kinds. */
const struct doc *gen_doc(const struct gen *g, const struct node *n);
/* The attributes of a node, as the kernel is told them. */
void gen_stat(const struct gen *g, const struct node *n, struct stat *st);
mode_t gen_mode(const struct gen *g, const struct node *n);
off_t gen_size(const struct gen *g, const struct node *n);
/* A link's target: a skill's symlink as stored, or a ref link's made in
 * buf (of PATH_MAX bytes); NULL for other kinds and when too long. */
const char *gen_link(const struct gen *g, const struct node *n, char *buf);
/* The descriptor a generation holds open for a skill file (see
 * gen_params.pin), or -1. */
int gen_pinned(const struct gen *g, const struct node *n);
/* The copy of a skill file's published bytes g holds, or NULL. */
static inline struct kept *gen_kept(const struct gen *g, const struct node *n)
{
	return atomic_load_explicit(&g->kept[gen_index(g, n)],
	                            memory_order_acquire);
}
/* Gives g the copy k (one reference) of n's bytes; false when g already
 * has one, and k stays the caller's. */
bool gen_keep(struct gen *g, const struct node *n, struct kept *k);
/* A skill's record (catalog/<id>.json), made anew: a malloc'd string
 * of exactly doc->len bytes, or NULL when out of memory.  A generation
 * keeps no records: the kernel keeps the pages it read, so a record is
 * made about once per generation, and only if read at all. */
char *gen_record(const struct gen *g, const struct node *n);

#endif
