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

#include "gen.h"
#include "skillsfs.h"

/* What a generation needs besides the catalog. */
struct gen_params {
	uint64_t number;
	struct timespec now;
	const char *refresh_mode;           /* static string */
	const char *const *root_sources;    /* per root, for status.json */
	const char *cache_dir;              /* for status.json; or NULL */
	long long cache_max;                /* for status.json */
	long long fetch_every_ms;           /* for status.json: see
	                                       sfs_status_info */
	uid_t uid;                          /* owner of generated entries */
	gid_t gid;
	uint64_t *next_ino;                 /* allocator, advanced */
	/* Opens a file that changed since the previous generation, if it is
	 * still the very file the scan read, so that reads serve the bytes
	 * the catalog hashed even if the source is replaced again before the
	 * next refresh.  Returns a descriptor or -errno (-EOPNOTSUPP: its
	 * source never changes under a reader); NULL: never. */
	int (*pin)(const sfs_catalog *cat, const struct sfs_skill *s,
	           const struct sfs_file *f);
	unsigned max_pins;                  /* per generation */
	/* for status.json: a change not published yet, or NULL */
	const struct sfs_status_pending *pending;
	/* the mount's absolute path, for the paths views and search/ give;
	 * and the views the configuration defines beside the built-in ones
	 * (a def of an unknown profile leaves them all out) */
	const char *mountpoint;
	const struct sfs_view_def *views;
	size_t nviews;
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
/* The child of a folder by exact name, or NULL. */
const struct node *gen_child(const struct gen *g, const struct node *dir,
                             const char *name);
/* The only child whose name matches ignoring ASCII case, or NULL when
 * none or several do. */
const struct node *gen_child_nocase(const struct gen *g,
                                    const struct node *dir,
                                    const char *name);
/* Whether n is search/, whose names ops.c answers (searches.h). */
bool gen_is_search_dir(const struct node *n);
/* The text of search/<words> in g for a mount at `mount`: malloc'd, or
 * NULL when out of memory or the search failed. */
char *gen_search(struct gen *g, const char *mount, const char *words);
/* g's search index, made now if it is not yet: one reference (or NULL
 * when out of memory). */
struct sfs_search *gen_search_prepare(struct gen *g);
/* The attributes of a node, as the kernel is told them. */
void gen_stat(const struct gen *g, const struct node *n, struct stat *st);
mode_t gen_mode(const struct gen *g, const struct node *n);
off_t gen_size(const struct gen *g, const struct node *n);
/* A link's target: a skill's symlink as stored, or a ref link's made in
 * buf (of PATH_MAX bytes); NULL for other kinds and when too long. */
const char *gen_link(const struct gen *g, const struct node *n, char *buf);
/* A skill's record (catalog/<id>.json), made anew: a malloc'd string
 * of exactly doc->len bytes, or NULL when out of memory.  A generation
 * keeps no records: the kernel keeps the pages it read, so a record is
 * made about once per generation, and only if read at all. */
char *gen_record(const struct gen *g, const struct node *n);

#endif
