/*
 * kept_units.h - a root's units (unit.c) kept across mounts in the cache
 * folder, by skill folder (kept_units.c): a git root's by tree id
 * (git.c), a folder root's by the stat identity of every entry (dir.c).
 */
#ifndef SKILLSFS_KEPT_UNITS_H
#define SKILLSFS_KEPT_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "trust.h"

/* What each kept unit is kept with besides its bytes: a git root's tree
 * id; nothing that is looked at for a folder's. */
#define SFS_KEPT_TAG_LEN 20

struct sfs_diag_list;
struct sfs_unit;
struct sfs_kept_units;

/* Where the units of a root are kept and what they depend on besides
 * what they were made from. */
struct sfs_kept_for {
	const char *place;      /* the cache folder's entry: "git-units" */
	bool strict;
	unsigned trust;         /* enum sfs_trust */
	unsigned max_depth;
	size_t max_files;
	struct timespec time;   /* a git root's commit: every mtime */
	uid_t uid;              /* a git root's owner: every entry's */
	gid_t gid;
	unsigned root;          /* the catalog's index of the root */
	/* When the build that keeps them started: no entry changed after
	 * that keeps its ctime (kept_units.c).  Not compared; load sets it
	 * to the kept one. */
	struct timespec made;
};

/* The units kept for the root `name` (its URL or path) in cache_dir with
 * `f` (f->made set to when they were made), into *out (NULL when none
 * are kept for them).  0, -ENOMEM, or -EBADMSG when the file is not one
 * this program wrote with that key (corrupt, forged): it is then
 * ignored. */
int sfs_kept_units_load(const char *cache_dir, const char *name,
                        const uint8_t key[SFS_CACHE_KEY_LEN],
                        struct sfs_kept_for *f, struct sfs_kept_units **out);
/* sfs_kept_units_load for a kind's start: a file this program did not
 * write under its key is a warning on the root `name` in diags (every
 * skill is then read again), not an error.  0 or -ENOMEM. */
int sfs_kept_units_take(const char *cache_dir, const char *name,
                        const uint8_t key[SFS_CACHE_KEY_LEN],
                        struct sfs_kept_for *f, struct sfs_kept_units **out,
                        struct sfs_diag_list *diags);
/* The unit kept for the skill folder dir, with the tag `tag` (NULL: any),
 * or NULL; k may be NULL.  The unit belongs to k. */
struct sfs_unit *sfs_kept_units_find(const struct sfs_kept_units *k,
                                     const char *dir,
                                     const uint8_t tag[SFS_KEPT_TAG_LEN]);
/* Lets the unit kept for dir go, when a start found the folder changed:
 * kept whole until the build ends, the units no folder took doubled a
 * start's memory with the ones it made in their place.  k may be NULL;
 * sfs_kept_units_find then finds none for dir. */
void sfs_kept_units_drop(struct sfs_kept_units *k, const char *dir);
void sfs_kept_units_free(struct sfs_kept_units *k);
/* Keeps the units of f->root among units (sorted by dir), each with its
 * self.version.id as its tag, in place of what was kept for name.  0 or
 * -errno. */
int sfs_kept_units_save(const char *cache_dir, const char *name,
                        const uint8_t key[SFS_CACHE_KEY_LEN],
                        const struct sfs_kept_for *f,
                        struct sfs_unit *const *units, size_t nunits);

#endif
