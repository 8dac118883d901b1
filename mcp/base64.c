/*
 * base64.c - base64 (RFC 4648, section 4) and base64url (section 5).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

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
