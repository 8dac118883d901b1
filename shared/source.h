/*
 * source.h - where a root's skills come from: the few operations the
 * catalog and the mount's reads need of a source, whatever it is.
 *
 * A new kind of source: one file in shared/ (source_<kind>.c) defining
 * its struct sfs_source_ops, its declaration at the end of this header,
 * and the line of catalog.c (source_of) that picks it for a root.
 */
#ifndef SKILLSFS_SOURCE_H
#define SKILLSFS_SOURCE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "skillsfs.h"

struct sfs_arena;
struct sfs_diag_list;
struct sfs_found;
struct sfs_scan;
struct sfs_source;
struct sfs_tree;

/*
 * The operations of one kind of source.  Each file of a skill carries an
 * identity (sfs_file's dev, ino, size, mtime, ctime): a folder's are what
 * stat says; another source puts there whatever stamps a version of the
 * file (a blob id for git), so that the reuse of units and digests across
 * builds (unit.c, digest.c), which compares identities, works for it too.
 *
 * Change detection is not here: the mount watches folders with inotify
 * and rescans what changed (fs/watch.c, fs/refresh.c), and holds changed
 * files open until the next refresh (backing_pin), which only a folder
 * needs.  A git commit or a remote server's verified bytes never change
 * under a reader; such a source is refreshed when it is fetched.
 */
struct sfs_source_ops {
	const char *kind;     /* "folder" */
	/* Finds the skill folders of the root (catalog index idx) and
	 * appends them to s->found, sorted by path; *exists tells whether
	 * the root could be read.  Returns 0 or -ENOMEM (what cannot be read
	 * is a finding in s->global). */
	int (*discover)(const struct sfs_source *src, struct sfs_scan *s,
	                unsigned idx, bool *exists);
	/* Lists one skill found by discover, with identities and digests:
	 * as sfs_scan_tree. */
	int (*list)(const struct sfs_source *src, struct sfs_scan *s,
	            struct sfs_found *f, struct sfs_arena *arena,
	            struct sfs_diag_list *diags, struct sfs_tree *out);
	/* Opens SKILL.md (`f` as listed, `path` its absolute name) for
	 * reading with pread, and sets *st to the identity of what was
	 * opened.  Returns a descriptor or -errno: -EINVAL when it is not a
	 * regular file, -ESTALE when it is no longer the file listed. */
	int (*open_skill_md)(const struct sfs_source *src, const char *path,
	                     const struct sfs_file *f, struct stat *st);
	/* What the mount holds for the root while a generation serves it
	 * (a folder: an O_PATH descriptor), a descriptor or -1; the
	 * generation closes it. */
	int (*open_root)(const struct sfs_source *src);
	/* Opens the file f of the skill s for reading, through root_fd
	 * (open_root's, or -1), and only if it still holds the bytes the
	 * listing saw.  Returns a descriptor of a regular file or -errno
	 * (-ESTALE: it changed since). */
	int (*open_file)(const struct sfs_source *src, int root_fd,
	                 const struct sfs_skill *s, const struct sfs_file *f);
};

/* One root of a catalog and where its skills come from. */
struct sfs_source {
	const struct sfs_source_ops *ops;
	const char *root;     /* as configured (a folder's path); NULL for
	                         the docs folder, which lies below no root */
	void *state;          /* the source's own; NULL for a folder */
};

/* The source of root i of the catalog; i == sfs_catalog_nroots() is the
 * docs folder's (sfs_catalog_docs).  NULL past that. */
const struct sfs_source *sfs_catalog_source(const sfs_catalog *cat,
                                            size_t i);

/* ---- source_dir.c: a folder on a local filesystem ---------------------- */

extern const struct sfs_source_ops sfs_source_dir;

/* Whether the open descriptor of f still shows what the listing saw
 * (identity, size and mtime), as a folder's open_file requires.
 * Returns 0 or -errno. */
int sfs_source_dir_check(int fd, const struct sfs_file *f);
/* Opens f of the skill s by its path, if it still is the file, size and
 * mtime the listing saw (backing_pin).  Returns a descriptor or -errno. */
int sfs_source_dir_pin(const struct sfs_skill *s, const struct sfs_file *f);

#endif
