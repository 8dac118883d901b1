/*
 * selection.h - which skills a session lists, and in what order: the
 * skills of a view of the mount (--view NAME, or a call's view
 * argument: the folder MOUNT/views/NAME), narrowed by the project's
 * file (.skillsfs.yaml in the folder the session started in or above
 * it: include, exclude, and pins, listed first), and, for a query,
 * ranked as the mount's search/<words> ranks them.
 */
#ifndef MCP_SELECTION_H
#define MCP_SELECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "mount.h"
#include "views.h"

/* The skills to list, as indices into the model, in order. */
struct selection {
	size_t *v;
	size_t n;
	bool by_id;          /* in the model's (id) order */
};

/*
 * The skills of md that view (NULL: all) and project (NULL: none) admit,
 * pins first, then in id order; with query (NULL: none) those holding
 * every word of it, best ranked first, or when none does the best
 * matches of any of its words.  keep(md, i) must be true of each.
 * Returns 0, -ENOENT (no such view: *why says so, static text) or
 * -ENOMEM.
 */
int selection_make(const char *mount, const struct model *md,
                   const char *view, const struct sfs_view_def *project,
                   const char *query,
                   bool (*keep)(const struct model *md, size_t i,
                                const char *query, void *arg),
                   void *arg, struct selection *out, const char **why);
void selection_free(struct selection *sel);

/* The project file for a session started in cwd: the nearest
 * SFS_PROJECT_FILE in cwd or a folder above it, read into *def.  1 when
 * one was read, 0 when there is none, -1 when it is wrong (a message
 * naming it went to stderr, and the session goes on without it). */
int selection_project(const char *cwd, struct sfs_view_def *def);

#endif
