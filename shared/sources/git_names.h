/*
 * git_names.h - the names of a git tree's entries, held to what git fsck
 * accepts (git_names.c).
 */
#ifndef SKILLSFS_GIT_NAMES_H
#define SKILLSFS_GIT_NAMES_H

#include <stddef.h>

struct git_tree;

/* Why git fsck refuses the entry name (static text), or NULL when it
 * accepts it: empty, '.', '..', holding '/', or .git in any spelling a
 * case-insensitive, NTFS or HFS+ filesystem reads as .git. */
const char *sfs_git_bad_entry_name(const char *name);

/* The entries of t that are not to be served: *out (malloc'd, free it)
 * holds, for each entry by index, why (static text) or NULL; *out is NULL
 * when every entry is fine.  A name given twice marks every entry of
 * that name, whichever libgit2 would find by it; a tree out of git's
 * order marks every entry.  Returns 0 or -ENOMEM. */
int sfs_git_tree_check(const struct git_tree *t, const char ***out);

#endif
