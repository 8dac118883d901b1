/*
 * search.h - the ranked search over a catalog's skills: an SQLite FTS5
 * index of their names, tags, descriptions and SKILL.md headings, ranked
 * by bm25.  The mount builds one per catalog and answers search/<words>
 * with it (render: sfs_render_search); the MCP server reads that file,
 * so both rank alike.
 *
 * An index is immutable once built and may be queried from any thread.
 */
#ifndef SFS_SEARCH_H
#define SFS_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "skillsfs.h"

typedef struct sfs_search sfs_search;

/* How many matches search/<words> gives. */
#define SFS_SEARCH_MAX_HITS 10

/* Builds the index of cat's served skills (it keeps no reference to
 * cat: hits are catalog indices).  Returns 0 and *out with one
 * reference, or a negative errno (-ENOMEM, -EIO: SQLite failed). */
int sfs_search_build(const sfs_catalog *cat, sfs_search **out);
sfs_search *sfs_search_ref(sfs_search *s);
void sfs_search_unref(sfs_search *s);

/*
 * The skills that best match `words` (any text: only its letters and
 * digits count), best first: up to max catalog indices into hits, their
 * number in *n.  No word, or none found: *n is 0.  Returns 0 or a
 * negative errno.
 */
int sfs_search_run(sfs_search *s, const char *words, uint32_t *hits,
                   size_t max, size_t *n);

/*
 * The text of search/<words>: one line per hit (contract.h,
 * SFS_SEARCH_LINE), its SKILL.md's path under `mount`.  malloc'd, or NULL
 * when out of memory.
 */
char *sfs_render_search(const sfs_catalog *cat, const uint32_t *hits,
                        size_t n, const char *mount);

#endif
