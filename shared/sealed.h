/*
 * sealed.h - bytes read and written whole, and memory files sealed against
 * change:
 * what the git and MCP sources serve once they have checked it, so that
 * nothing another process can write (a cache file, a shared mapping of it)
 * changes what a reader gets.
 */
#ifndef SKILLSFS_SEALED_H
#define SKILLSFS_SEALED_H

#include <stddef.h>
#include <sys/types.h>

/* Writes the n bytes at p to fd at offset `at` (pwrite), or at its
 * position when at < 0 (write), whatever the partial writes.  Returns 0
 * or -errno. */
int sfs_write_full(int fd, off_t at, const void *p, size_t n);
/* Reads into p from fd at offset `at` (pread), or at its position when
 * at < 0 (read), until n bytes or the end of fd, whatever the partial
 * reads.  Returns the count read (less than n only at the end) or
 * -errno. */
ssize_t sfs_read_full(int fd, off_t at, void *p, size_t n);
/* A new memory file that can be sealed (memfd_create), named for
 * /proc's sake: a descriptor or -errno. */
int sfs_sealed_new(const char *name);
/* Seals fd against any change of its bytes or size.  Returns 0 or -errno. */
int sfs_seal(int fd);
/* A sealed memory file holding the n bytes at p: a descriptor to pread,
 * or -errno. */
int sfs_sealed_copy(const char *name, const void *p, size_t n);

#endif
