/*
 * diff.h - what changed between two generations, as the kernel sees it.
 */
#ifndef SKILLSFS_DIFF_H
#define SKILLSFS_DIFF_H

#include "tree.h"

struct diff_ops {
	/* `name` in folder `parent` was added, removed or renumbered */
	void (*entry)(void *arg, uint64_t parent, const char *name);
	/* folder `ino` lists other entries, or shows other attributes */
	void (*folder)(void *arg, uint64_t ino);
	void *arg;
};

/*
 * Visits every change from `old` to `new` in the folders both have.
 * Files are never reported: a file whose content changed has a new inode
 * number, so its name is reported instead, and its old inode stays valid
 * for whoever holds it.  Folders only `new` has are new inodes the kernel
 * cannot have cached.  Content is reported before the indexes that list
 * it, and status.json last (see diff.c).
 */
void gen_diff(const struct gen *old, const struct gen *new,
              const struct diff_ops *ops);

#endif
