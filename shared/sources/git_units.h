/*
 * git_units.h - a git root's units (unit.c) kept across mounts in the
 * cache folder, by skill folder and tree id (git_units.c).
 */
#ifndef SKILLSFS_GIT_UNITS_H
#define SKILLSFS_GIT_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "git_digests.h"

#define SFS_GIT_UNITS_KEY_LEN 32

struct sfs_unit;
struct sfs_git_units;

/* What the units of a root depend on besides their trees. */
struct sfs_git_units_for {
	bool strict;
	unsigned max_depth;
	size_t max_files;
	struct timespec time;   /* the commit's */
	uid_t uid;
	gid_t gid;
	unsigned root;          /* the catalog's index of the root */
};

/* The units kept for the root `url` in cache_dir with `f`, into *out
 * (NULL when none are kept for them).  0, -ENOMEM, or -EBADMSG when the
 * file is not one this program wrote with that key (corrupt, forged):
 * it is then ignored. */
int sfs_git_units_load(const char *cache_dir, const char *url,
                       const uint8_t key[SFS_GIT_UNITS_KEY_LEN],
                       const struct sfs_git_units_for *f,
                       struct sfs_git_units **out);
/* The unit kept for the skill folder dir made from the tree id, or NULL;
 * k may be NULL.  The unit belongs to k. */
struct sfs_unit *sfs_git_units_find(const struct sfs_git_units *k,
                                    const char *dir,
                                    const uint8_t id[SFS_GIT_ID_LEN]);
void sfs_git_units_free(struct sfs_git_units *k);
/* Keeps the units of f->root among units (sorted by dir), in place of
 * what was kept for url.  0 or -errno. */
int sfs_git_units_save(const char *cache_dir, const char *url,
                       const uint8_t key[SFS_GIT_UNITS_KEY_LEN],
                       const struct sfs_git_units_for *f,
                       struct sfs_unit *const *units, size_t nunits);

#endif
