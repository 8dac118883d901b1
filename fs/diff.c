/*
 * diff.c - what changed between two generations: a merge of the sorted
 * listings of every folder that kept its inode number.
 */
#include <string.h>

#include "diff.h"

static bool same_attrs(const struct gen *old, const struct node *a,
                       const struct gen *new, const struct node *b)
{
	struct stat x, y;

	gen_stat(old, a, &x);
	gen_stat(new, b, &y);
	return x.st_mode == y.st_mode && x.st_nlink == y.st_nlink &&
	       x.st_uid == y.st_uid && x.st_gid == y.st_gid &&
	       x.st_mtim.tv_sec == y.st_mtim.tv_sec &&
	       x.st_mtim.tv_nsec == y.st_mtim.tv_nsec;
}

/* Reports every name whose inode differs, the indexes (index.json,
 * skills_index.json, status.json) in a second pass; returns whether any
 * name differs. */
static bool diff_listing(const struct gen *old, const struct node *od,
                         const struct gen *new, const struct node *nd,
                         const struct diff_ops *ops, bool indexes)
{
	uint32_t i = 0, j = 0;
	bool changed = false;

	while (i < od->nkids || j < nd->nkids) {
		const struct node *o = i < od->nkids ?
		                       &old->nodes[od->first + i] : NULL;
		const struct node *n = j < nd->nkids ?
		                       &new->nodes[nd->first + j] : NULL;
		int c = !o ? 1 : !n ? -1 : strcmp(o->name, n->name);
		const char *name = c <= 0 ? o->name : n->name;
		bool index = node_is_index(c <= 0 ? o : n);

		if (c != 0 || o->ino != n->ino) {
			if (index == indexes)
				ops->entry(ops->arg, nd->ino, name);
			changed = true;
		}
		i += c <= 0;
		j += c >= 0;
	}
	return changed;
}

/*
 * Order matters to a reader racing the invalidations: content goes first,
 * the indexes that list it next, status.json last.  So whoever sees a new
 * generation number in status.json sees all of that generation, and
 * whoever finds a skill in index.json finds its files.  Folders are
 * visited deepest first (the root, which holds the indexes, last), each
 * folder's indexes after its other names.
 */
void gen_diff(const struct gen *old, const struct gen *new,
              const struct diff_ops *ops)
{
	for (uint32_t k = new->nnodes; k-- > 0;) {
		const struct node *nd = &new->nodes[k];
		if (!node_is_dir(nd))
			continue;
		const struct node *od = gen_node(old, nd->ino);
		if (!od || !node_is_dir(od))
			continue;
		bool changed = diff_listing(old, od, new, nd, ops, false);
		diff_listing(old, od, new, nd, ops, true);
		if (changed || !same_attrs(old, od, new, nd))
			ops->folder(ops->arg, nd->ino);
	}
}
