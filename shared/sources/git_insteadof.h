/*
 * git_insteadof.h - a remote's URL rewritten by the user's git
 * configuration (url.<base>.insteadOf), as git rewrites it.
 */
#ifndef SFS_GIT_INSTEADOF_H
#define SFS_GIT_INSTEADOF_H

/* The URL git would fetch for `url`: the longest url.<base>.insteadOf
 * value of the user's git configuration (~/.gitconfig,
 * $XDG_CONFIG_HOME/git/config, the system's) that starts url, replaced
 * by its <base>; url itself when none does (pushInsteadOf is for pushes
 * and ignored).  malloc'd; NULL when out of memory. */
char *sfs_git_insteadof(const char *url);

#endif
