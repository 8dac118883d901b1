/*
 * backing.h - reading a skill's files from their sources.
 */
#ifndef SKILLSFS_BACKING_H
#define SKILLSFS_BACKING_H

#include <stdbool.h>

#include "gen.h"

/* Opens an O_PATH descriptor per catalog root into g->root_fds (-1 for a
 * missing root).  Returns 0 or -ENOMEM. */
int backing_open_roots(struct gen *g);
/* Opens the source of a NODE_SKILL_FILE for reading without following
 * any symlink below its root, so a folder swapped for a link between the
 * scan and the read cannot lead outside.  Returns a descriptor of a
 * regular file, or -errno; *borrowed tells that the descriptor is the
 * generation's (a pinned source), which the caller must not close. */
int backing_open(const struct gen *g, const struct node *n, bool *borrowed);
/* Whether the source of root i of cat (sfs_catalog_nroots: the docs
 * folder) is SFS_SOURCE_WATCHED: only such a source changes under the
 * mount, so only it is watched, polled, settled and pinned; another
 * changes when it is updated. */
bool backing_is_watched(const sfs_catalog *cat, size_t i);
/* Whether opening the file of node n may wait on a server (a remote
 * source's file not in the cache yet): such a read is answered from a
 * worker (remote_read.h), never on the FUSE loop. */
bool backing_may_wait(const struct gen *g, const struct node *n);
/* Whether the mount may copy the file of node n before a reader asks
 * for it (retain.c): not when reading it goes to a remote server. */
bool backing_may_read_ahead(const struct gen *g, const struct node *n);
/* gen_params.pin: the source if it is still what the scan read. */
int backing_pin(const sfs_catalog *cat, const struct sfs_skill *s,
                const struct sfs_file *f);

#endif
