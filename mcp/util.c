/*
 * util.c - small helpers the server's parts share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static bool buf_reserve(struct buf *b, size_t extra)
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

int read_fd(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	size_t cap = 4096, n = 0;

	/* The mount reports exact sizes; the size is a hint, EOF decides. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > max)
			return -EFBIG;
		cap = (size_t)st.st_size + 1;
	}
	char *p = malloc(cap + 1);
	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(p);
				return -EFBIG;
			}
			size_t ncap = cap * 2;
			char *q = realloc(p, ncap + 1);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
			cap = ncap;
		}
		ssize_t r = read(fd, p + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(p);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(p);
			return -EFBIG;
		}
	}
	p[n] = '\0';
	*out = p;
	*len = n;
	return 0;
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int rc = read_fd(fd, max, out, len);
	close(fd);
	return rc;
}

bool utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t need;
		uint32_t cp;
		if (c >= 0xC2 && c <= 0xDF) {
			need = 1;
			cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= need)
			return false;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += need + 1;
	}
	return true;
}

bool is_text(const char *s, size_t len)
{
	return memchr(s, '\0', len) == NULL && utf8_valid(s, len);
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64url[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *encode(const unsigned char *p, size_t n, const char *alpha,
                    bool pad)
{
	if (n > (SIZE_MAX - 8) / 4 * 3)
		return NULL;
	char *out = malloc((n + 2) / 3 * 4 + 1);
	if (!out)
		return NULL;
	char *o = out;
	size_t i = 0;
	for (; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
			     p[i + 2];
		*o++ = alpha[v >> 18];
		*o++ = alpha[(v >> 12) & 63];
		*o++ = alpha[(v >> 6) & 63];
		*o++ = alpha[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		*o++ = alpha[v >> 18];
		*o++ = alpha[(v >> 12) & 63];
		if (i + 1 < n)
			*o++ = alpha[(v >> 6) & 63];
		else if (pad)
			*o++ = '=';
		if (pad)
			*o++ = '=';
	}
	*o = '\0';
	return out;
}

char *base64_encode(const unsigned char *p, size_t n)
{
	return encode(p, n, b64, true);
}

char *base64url_encode(const char *s, size_t n)
{
	return encode((const unsigned char *)s, n, b64url, false);
}

char *base64url_decode(const char *s, size_t *n)
{
	size_t len = strlen(s);
	if (len % 4 == 1)
		return NULL;
	char *out = malloc(len / 4 * 3 + 3);
	if (!out)
		return NULL;
	uint32_t acc = 0;
	int bits = 0;
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		const char *q = memchr(b64url, s[i], 64);
		if (!q || !s[i]) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (uint32_t)(q - b64url);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xFF);
		}
	}
	out[o] = '\0';
	*n = o;
	return out;
}

void iso8601_now(char *out, size_t outlen)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, outlen, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, outlen - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline unsigned char lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

bool contains_nocase(const char *hay, size_t haylen, const char *needle,
                     size_t nlen)
{
	if (nlen == 0)
		return true;
	if (nlen > haylen)
		return false;
	unsigned char first = lower((unsigned char)needle[0]);
	for (size_t i = 0; i + nlen <= haylen; i++) {
		if (lower((unsigned char)hay[i]) != first)
			continue;
		size_t k = 1;
		while (k < nlen && lower((unsigned char)hay[i + k]) ==
				   lower((unsigned char)needle[k]))
			k++;
		if (k == nlen)
			return true;
	}
	return false;
}
