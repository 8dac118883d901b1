/*
 * snapshot.h - how the parts that build a catalog snapshot talk to each
 * other: discovery and tree listing (scan.c), digests (digest.c) and the
 * catalog itself (catalog.c).  Private to those files.
 */
#ifndef SKILLSFS_SNAPSHOT_H
#define SKILLSFS_SNAPSHOT_H

#include <stdlib.h>

#include "internal.h"

/* qsort without the undefined behaviour of a NULL array of no elements. */
static inline void sfs_sort(void *v, size_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

/* ---- digest.c ---------------------------------------------------------- */

/* SHA-256 of everything readable from fd, and how many bytes that was.
 * Returns 0 or -errno. */
int sfs_sha256_fd(int fd, uint8_t out[32], off_t *len);

/* SHA-256 of the regular file `name` relative to dirfd (AT_FDCWD and an
 * absolute name work too), never following a symlink in the last
 * component.  Returns 0 or -errno. */
int sfs_sha256_at(int dirfd, const char *name, uint8_t out[32], off_t *len);

/*
 * The digests of a previous snapshot, found by the identity of the file
 * they were computed from (device, inode, size, mtime), so that a rebuild
 * hashes only what changed.  The entries point into the previous
 * snapshot, which must outlive the cache.
 */
struct sfs_digest_cache {
	const struct sfs_file **slots;  /* owned (malloc); open addressing */
	size_t mask;                    /* slots - 1; 0 when empty */
	size_t n;
};

/* Sizes the cache for about `expected` entries.  Returns 0 or -ENOMEM. */
int sfs_digest_cache_init(struct sfs_digest_cache *c, size_t expected);
/* Remembers f when it carries a digest. */
void sfs_digest_cache_add(struct sfs_digest_cache *c, const struct sfs_file *f);
/* The digest of a file with this identity, or NULL. */
const uint8_t *sfs_digest_cache_find(const struct sfs_digest_cache *c,
                                     dev_t dev, ino_t ino, off_t size,
                                     struct timespec mtime);
void sfs_digest_cache_free(struct sfs_digest_cache *c);

/* ---- scan.c: discovery ------------------------------------------------- */

/* A folder that holds SKILL.md (or skill.md). */
struct sfs_found {
	const char *dir;        /* absolute; arena */
	const char *skill_md;   /* "SKILL.md" or "skill.md" as found */
	unsigned root;
};

/* A growable array of strings (in the arena), owned by the scan. */
struct sfs_strvec {
	const char **v;   /* owned (malloc) */
	size_t n, cap;
};

struct sfs_scan {
	struct sfs_arena *arena;         /* not owned */
	struct sfs_diag_list *global;    /* findings not tied to a skill */
	unsigned max_depth;
	size_t max_entries;
	size_t max_files;
	struct sfs_strvec dirs;          /* every folder read */
	struct sfs_found *found;         /* owned (malloc) */
	size_t nfound, capfound;
	/* Digests: reused from the previous snapshot or computed. */
	const struct sfs_digest_cache *cache;
	size_t hashed;
};

/*
 * Finds the skill folders under root (index idx) and appends them to
 * s->found, sorted by path.  Sets *exists to whether the root could be
 * read as a folder; a root that cannot is a finding in s->global.
 * Returns 0 or -ENOMEM.
 */
int sfs_scan_root(struct sfs_scan *s, const char *root, unsigned idx,
                  bool *exists);

/* A skill's tree, sorted by path, parents set, SKILL.md included as
 * "SKILL.md" whatever its source spelling. */
struct sfs_tree {
	struct sfs_file *files;   /* arena */
	size_t nfiles;
	size_t skill_md;          /* index of SKILL.md; nfiles when absent */
};

/*
 * Lists the files, folders and in-skill symlinks of the skill in `f`,
 * with their digests.  Entries that cannot be served (escaping or dangling
 * links, FIFOs, sockets, devices, unreadable entries) are left out with a
 * warning in diags.  Returns 0 or -ENOMEM.
 */
int sfs_scan_tree(struct sfs_scan *s, const struct sfs_found *f,
                  struct sfs_diag_list *diags, struct sfs_tree *out);

void sfs_scan_free(struct sfs_scan *s);

/* Appends s (not copied) to v.  Returns 0 or -ENOMEM. */
int sfs_strvec_push(struct sfs_strvec *v, const char *s);

/*
 * Cleans a '/'-separated relative path in place: drops "." and empty
 * components and folds "..".  Returns false when the path is absolute or
 * ".." climbs above its start.
 */
bool sfs_path_clean_rel(char *p);

/* Why a file or folder name cannot be served (not UTF-8, or a control
 * character in it), or NULL when it can. */
const char *sfs_bad_name(const char *name);

/* ---- filter.c: include and exclude patterns (sfs_config) -------------- */

/* Whether the skill folder `dir`, found under `root`, is to be read. */
bool sfs_selected(const struct sfs_config *cfg, const char *dir,
                  const char *root);
/* Drops the folders of s->found that cfg leaves out, keeping the order. */
void sfs_scan_select(struct sfs_scan *s, const struct sfs_config *cfg);

/* ---- docs.c: the markdown documents (sfs_catalog_docs) ----------------- */

/* Lists the docs folder `dir` into *out (in the arena; root index `root`),
 * recording its folders in s->dirs and its findings in s->global.
 * Returns 0 or -ENOMEM. */
int sfs_scan_docs(struct sfs_scan *s, const char *dir, unsigned root,
                  struct sfs_skill **out);

/* ---- catalog.c: the snapshot itself ------------------------------------ */

/* A skill folder as status.json and the diagnostics walk see it. */
struct sfs_folder {
	const char *dir;
	const char *id;            /* NULL when it had no usable name */
	int state;                 /* 0: served, else sfs_unserved_reason */
	const char *shadowed_by;
	const struct sfs_diag *diags;
	size_t ndiags;
};

/* Every digest of a snapshot, kept for the next build to reuse. */
struct sfs_file_span {
	const struct sfs_file *v;
	size_t n;
};

struct sfs_catalog {
	_Atomic unsigned refs;
	struct sfs_arena arena;            /* owns everything below */
	const char **roots;
	bool *root_exists;
	size_t *root_served;               /* served skills per root */
	size_t nroots;
	struct sfs_skill *skills;          /* sorted by id */
	size_t nskills;
	struct sfs_unserved *unserved;     /* sorted by dir */
	size_t nunserved;
	struct sfs_folder *folders;        /* unserved or with findings;
	                                      sorted by dir */
	size_t nfolders;
	struct sfs_diag *diags;            /* global findings */
	size_t ndiags;
	const char **dirs;                 /* sorted, unique */
	size_t ndirs;
	struct sfs_file_span *spans;
	size_t nspans;
	cJSON **json;                      /* owned: served frontmatters */
	size_t njson;
	struct sfs_counts counts;
	size_t hashed;
	struct sfs_skill *docs;            /* see sfs_catalog_docs(); NULL
	                                      without a docs_dir */
};

#endif
