/*
 * test_visible.c - cli/visible.c: what a skill's author or a server chose,
 * written for a terminal.  Every C0 control and DEL, C1 control, bidi or
 * line-steering character and byte that is no UTF-8 comes out as an
 * escape; printable ASCII and the rest of UTF-8 (accents, CJK, emoji)
 * come out as they went in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fm_check.h"

/* What cli_put_visible_n writes of the n bytes at s (malloc'd). */
static char *visible(const char *s, size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	int rc = cli_put_visible_n(f, s, n);
	if (fclose(f) != 0 || rc != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static void check(const char *in, size_t n, const char *want, const char *what)
{
	char *got = visible(in, n);

	if (!ok(got && strcmp(got, want) == 0, "%s", what))
		printf("#   got \"%s\", want \"%s\"\n", got ? got : "(null)", want);
	free(got);
}

#define CHECK(in, want, what) check(in, sizeof(in) - 1, want, what)

int main(void)
{
	CHECK("pdf-forms/SKILL.md", "pdf-forms/SKILL.md", "printable ASCII as is");
	CHECK("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x84",
	      "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x84",
	      "accents, CJK and emoji as they are");
	CHECK("a\x1b[2Jb", "a\\x1b[2Jb", "ESC: clear the screen");
	CHECK("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\a", "OSC 52 and BEL");
	CHECK("one\r\ntwo\tthree", "one\\r\\ntwo\\tthree", "CR, LF, TAB");
	CHECK("\x7f\x01\x1f", "\\x7f\\x01\\x1f", "DEL and the other C0 controls");
	CHECK("\xc2\x9b" "31m", "\\u009b31m", "C1 CSI (U+009B)");
	CHECK("gnp\xe2\x80\xae" "exe", "gnp\\u202eexe", "right-to-left override");
	CHECK("\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069", "bidi isolates");
	CHECK("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "\\u200e\\u200f\\u061c",
	      "bidi marks");
	CHECK("a\xe2\x80\xa8" "b", "a\\u2028b", "line separator");
	CHECK("\xff\xfe", "\\xff\\xfe", "bytes that are no UTF-8");
	CHECK("\xc0\xaf", "\\xc0\\xaf", "an overlong '/'");
	CHECK("\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate");
	CHECK("\xe2\x80", "\\xe2\\x80", "a sequence cut short");
	char *nul = xmalloc(3);   /* a NUL inside the length given */
	memcpy(nul, "a\0b", 3);
	check(nul, 3, "a\\x00b", "a NUL inside the given length");
	free(nul);
	check(NULL, 0, "", "nothing");

	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	ok(f && cli_line_visible(f, "%s: %s", "x\ny", "z") == 0 && fclose(f) == 0,
	   "cli_line_visible writes");
	ok(out && strcmp(out, "x\\ny: z\n") == 0,
	   "cli_line_visible: the text visible, then its own newline");
	free(out);
	return tap_done();
}
