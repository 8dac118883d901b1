/*
 * buf.h - building strings: a growable byte buffer, and printf into a new
 * string.
 */
#ifndef MCP_BUF_H
#define MCP_BUF_H

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

void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hands the content to the caller (malloc'd, NUL-terminated) and empties
 * the buffer; NULL when an allocation failed. */
char *buf_take(struct buf *b);
void buf_free(struct buf *b);

/* malloc'd printf; NULL when out of memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
