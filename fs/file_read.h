/*
 * file_read.h - a read of a skill file in two halves: opening its bytes,
 * which for a remote source may wait on the network, and answering the
 * kernel from them, which never waits.  ops.c does both at once for a
 * local source; remote_read.c opens on a worker and answers only if the
 * read's deadline has not answered it first.
 */
#ifndef SKILLSFS_FILE_READ_H
#define SKILLSFS_FILE_READ_H

#include <stdbool.h>
#include <sys/types.h>

#include "options.h"   /* fuse_lowlevel.h at our FUSE_USE_VERSION */

struct daemon;
struct gen;
struct node;

/* The bytes of one skill file, opened for one read. */
struct file_bytes {
	const unsigned char *kept;  /* the generation's copy, or NULL */
	int fd;                     /* else the source, or -1 */
	bool borrowed;              /* fd is the generation's: not closed */
	int err;                    /* else why neither: a negative errno */
};

/* Opens the bytes of skill file n of g: the copy g keeps, a copy taken
 * now, or its source.  May wait on the network (a remote source). */
void file_read_open(struct daemon *d, struct gen *g, const struct node *n,
                    struct file_bytes *out);
/* Answers req with size bytes at off of what file_read_open opened (or
 * its error), and closes it. */
void file_read_reply(fuse_req_t req, struct file_bytes *b, size_t size,
                     off_t off);
/* Closes what file_read_open opened, unanswered. */
void file_read_close(struct file_bytes *b);

#endif
