/*
 * test_base64.c - skillsfs-mcp's base64 (blob resources) and base64url
 * (pagination cursors) over nettle: RFC 4648's test vectors, the padding
 * base64url leaves out, and what a cursor from a client must not be.
 * Prints TAP.
 */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "fixture.h"

/* RFC 4648, section 10 */
static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba",
                                     "foobar" };
static const char *const padded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==",
                                      "Zm9vYmE=", "Zm9vYmFy" };
static const char *const bare[] = { "", "Zg", "Zm8", "Zm9v", "Zm9vYg",
                                    "Zm9vYmE", "Zm9vYmFy" };

static void vectors(void)
{
	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
		size_t n = strlen(plain[i]), got = 99;
		char *b = base64_encode((const unsigned char *)plain[i], n);
		char *u = base64url_encode(plain[i], n);
		char *d = base64url_decode(bare[i], &got);

		ok(b && strcmp(b, padded[i]) == 0, "base64 \"%s\" is %s",
		   plain[i], padded[i]);
		ok(u && strcmp(u, bare[i]) == 0, "base64url \"%s\" is %s",
		   plain[i], bare[i]);
		ok(d && got == n && memcmp(d, plain[i], n) == 0 && !d[n],
		   "base64url %s decodes to \"%s\"", bare[i], plain[i]);
		free(b);
		free(u);
		free(d);
	}
}

/* The alphabets differ in two places: 0xfb 0xff is "+/8" and "-_8". */
static void alphabets(void)
{
	const unsigned char raw[] = { 0xfb, 0xff };
	char *b = base64_encode(raw, 2);
	char *u = base64url_encode((const char *)raw, 2);
	size_t n = 0;
	char *d = base64url_decode("-_8", &n);

	ok(b && strcmp(b, "+/8=") == 0, "base64 uses + and /");
	ok(u && strcmp(u, "-_8") == 0, "base64url uses - and _, unpadded");
	ok(d && n == 2 && memcmp(d, raw, 2) == 0, "base64url decodes - and _");
	free(b);
	free(u);
	free(d);
}

static void refused(const char *s, const char *why)
{
	size_t n = 0;
	char *d = base64url_decode(s, &n);

	ok(!d, "refused: %s", why);
	free(d);
}

int main(void)
{
	vectors();
	alphabets();
	refused("Zg==", "padding");
	refused("Z", "a length no encoding has");
	refused("Zm9v+", "a character of base64's alphabet");
	refused("Zm 9v", "a space");
	refused("Zm9v\n", "a newline");
	refused("Zh", "bits left over");
	return tap_end();
}
