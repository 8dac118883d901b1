/*
 * base64.c - base64 (RFC 4648, section 4) and base64url (section 5),
 * with nettle's coders: this file only sizes the buffers and drops or
 * refuses base64url's padding, which MCP's cursors do without.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/base64.h>

#include "base64.h"

/* Encodes n bytes with ctx's alphabet, padded; NULL when out of memory. */
static char *encode(struct base64_encode_ctx *ctx, const unsigned char *p,
                    size_t n)
{
	if (n > (SIZE_MAX - 8) / 4 * 3)
		return NULL;
	char *out = malloc(BASE64_ENCODE_LENGTH(n) + BASE64_ENCODE_FINAL_LENGTH
	                   + 1);
	if (!out)
		return NULL;
	size_t len = base64_encode_update(ctx, out, n, p);
	len += base64_encode_final(ctx, out + len);
	out[len] = '\0';
	return out;
}

char *base64_encode(const unsigned char *p, size_t n)
{
	struct base64_encode_ctx ctx;

	base64_encode_init(&ctx);
	return encode(&ctx, p, n);
}

char *base64url_encode(const char *s, size_t n)
{
	struct base64_encode_ctx ctx;

	base64url_encode_init(&ctx);
	char *out = encode(&ctx, (const unsigned char *)s, n);
	if (out)
		out[strcspn(out, "=")] = '\0';
	return out;
}

/* Decodes unpadded base64url into a NUL-terminated buffer of *n bytes;
 * NULL on padding, a character outside the alphabet, or a length no
 * encoding has.  Nettle's decoder wants the padding (it checks that no
 * bits are left over) and would skip spaces, which a cursor this server
 * made never has: both are settled here. */
char *base64url_decode(const char *s, size_t *n)
{
	size_t len = strlen(s);
	struct base64_decode_ctx ctx;

	if (len % 4 == 1 || len > SIZE_MAX / 2 ||
	    strcspn(s, "= \t\r\n") != len)
		return NULL;
	size_t padded = (len + 3) / 4 * 4;
	char *in = malloc(padded);
	char *out = malloc(BASE64_DECODE_LENGTH(padded) + 1);
	size_t got = BASE64_DECODE_LENGTH(padded);
	bool ok = in && out;
	if (ok) {
		memcpy(in, s, len);
		memset(in + len, '=', padded - len);
		base64url_decode_init(&ctx);
		ok = base64_decode_update(&ctx, &got, (uint8_t *)out, padded,
		                          in) &&
		     base64_decode_final(&ctx);
	}
	free(in);
	if (!ok) {
		free(out);
		return NULL;
	}
	out[got] = '\0';
	*n = got;
	return out;
}
