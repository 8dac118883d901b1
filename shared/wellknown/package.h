/*
 * package.h - a skill's package (a .tar.gz or a .zip whose root is the
 * skill folder) unpacked with libarchive under the mount's rules: its
 * digest checked first, then each regular file against the index's
 * digest of that path, and only files the index lists are given on.
 * Absolute paths, "..", links of any kind, devices and FIFOs are refused;
 * a file past SFS_WK_MAX_FILE_BYTES or a package past
 * SFS_WK_MAX_UNPACKED_BYTES in all (the files it does not list too) ends
 * the unpacking.
 */
#ifndef SKILLSFS_WELLKNOWN_PACKAGE_H
#define SKILLSFS_WELLKNOWN_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "index.h"

#define SFS_WK_MAX_FILE_BYTES (64u << 20)
#define SFS_WK_MAX_UNPACKED_BYTES (256u << 20)

/* Where verified files go, one at a time: open() for a listed file,
 * write() its bytes in order, close() with ok when they were the listed
 * bytes (keep them) or not (drop them).  Each returns 0 or -errno. */
struct sfs_wk_sink {
	int (*open)(void *arg, const struct sfs_wk_file *f);
	int (*write)(void *arg, const void *p, size_t n);
	int (*close)(void *arg, bool ok);
	void *arg;
};

/*
 * Unpacks the package of skill s (len bytes at data).  Returns how many
 * files were given to the sink, or -EBADMSG when the package is not the
 * one the index names (its digest), -EINVAL when it breaks a rule or
 * cannot be read (why: the entry and the rule, cap bytes), or the
 * sink's error.  A file whose bytes differ from the index's is dropped
 * and named in why, and the unpacking goes on: -EBADMSG at the end.
 */
int sfs_wk_package_unpack(const void *data, size_t len,
                          const struct sfs_wk_skill *s,
                          const struct sfs_wk_sink *sink, char *why,
                          size_t cap);

#endif
