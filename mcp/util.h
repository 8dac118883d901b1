/*
 * util.h - small helpers the server's parts share: a growable byte
 * buffer, whole-file reads with a bound, UTF-8 checks, base64, time.
 */
#ifndef MCP_UTIL_H
#define MCP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable, always NUL-terminated byte buffer.  Owns `data`. */
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

/*
 * Reads the whole file at `path` (at most `max` bytes) into a malloc'd,
 * NUL-terminated buffer.  Returns 0, -EFBIG when the file is larger than
 * `max`, or another -errno.
 */
int read_file(const char *path, size_t max, char **out, size_t *len);
/* The same for an open descriptor, from its current position. */
int read_fd(int fd, size_t max, char **out, size_t *len);

/* Well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF). */
bool utf8_valid(const char *s, size_t len);
/* True when the bytes can be sent as a resource's `text`: UTF-8, no NUL. */
bool is_text(const char *s, size_t len);

/* Standard base64 with padding, malloc'd; NULL when out of memory. */
char *base64_encode(const unsigned char *p, size_t n);
/* base64url without padding, and back.  decode returns NULL on bad input. */
char *base64url_encode(const char *s, size_t n);
char *base64url_decode(const char *s, size_t *n);

/* "2026-11-22T10:00:00.123Z" for the wall clock now; `out` >= 32 bytes. */
void iso8601_now(char *out, size_t outlen);
/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);

/* ASCII case-insensitive search of `needle` in `hay`. */
bool contains_nocase(const char *hay, size_t haylen, const char *needle,
                     size_t nlen);

#endif
