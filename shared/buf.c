/*
 * buf.c - building strings.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "sealed.h"

bool buf_reserve(struct buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	if (!buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

int buf_read_fd(struct buf *b, int fd, size_t max)
{
	while (b->len < max) {
		/* the room there is, else 64 KiB more: a buffer reserved
		 * for the file's size takes it whole */
		size_t room = b->cap > b->len + 1 ? b->cap - b->len - 1 : 65536;
		size_t want = max - b->len < room ? max - b->len : room;
		if (!buf_reserve(b, want))
			return -ENOMEM;
		ssize_t got = sfs_read_full(fd, -1, b->data + b->len, want);
		if (got < 0)
			return (int)got;
		b->len += (size_t)got;
		b->data[b->len] = '\0';
		if ((size_t)got < want)
			break;   /* its end */
	}
	return 0;
}

char *buf_take(struct buf *b)
{
	char *p = b->failed ? NULL : b->data;

	if (b->failed)
		free(b->data);
	else if (!p)
		p = strdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
	return p;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;

	va_start(ap, fmt);
	int n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}
