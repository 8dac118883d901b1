/*
 * buf.h - building strings: a growable byte buffer, and printf into a new
 * string.  One buffer for the library's renderer and skillsfs-mcp.
 */
#ifndef SKILLSFS_BUF_H
#define SKILLSFS_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* A growable, always NUL-terminated byte buffer.  Owns `data`.  After a
 * failed allocation it takes nothing more, and buf_take says so. */
struct buf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;   /* an allocation failed; the content is incomplete */
};

/* Room for `extra` more bytes and the NUL, so that a caller may write
 * them at data + len itself; false once an allocation has failed. */
bool buf_reserve(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends what fd reads until its end, or until b holds `max` bytes:
 * 0, or -ENOMEM, or the read's -errno (what was read stays in b). */
int buf_read_fd(struct buf *b, int fd, size_t max);
/* Hands the content to the caller (malloc'd, NUL-terminated) and empties
 * the buffer; NULL when an allocation failed. */
char *buf_take(struct buf *b);
void buf_free(struct buf *b);

/* malloc'd printf; NULL when out of memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
