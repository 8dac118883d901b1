/*
 * visible.c - text a skill's author or a server chose (a name, a
 * description, a file name, a URL, a server's message), written for a
 * terminal.  Raw, an ESC would clear the screen or write the clipboard
 * (OSC 52), a CR overwrite the line, a newline forge another finding,
 * a bidi override reorder what is read.  Each such character is written
 * as an escape a person can read, as ls -b and git's quoting do: \n,
 * \r, \t, \x1b for the C0 controls and DEL, \u0085 and \u202e for C1
 * controls and the Unicode format characters that steer a line, \xNN
 * for each byte that is no UTF-8.  --json output does not come here:
 * it is JSON, exact.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "utf8.h"

/* The escape of a C0 control with a letter of its own, else 0. */
static char c0_letter(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\t': return 't';
	case '\n': return 'n';
	case '\v': return 'v';
	case '\f': return 'f';
	case '\r': return 'r';
	default: return 0;
	}
}

/* Code points past ASCII that steer a terminal or reorder a line: C1
 * controls, the bidi marks, embeddings, overrides and isolates, and
 * the line and paragraph separators. */
static bool steers(unsigned long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The length of the UTF-8 sequence at p (at most n bytes), 0 when it is
 * not one; its code point into *cp. */
static size_t utf8_at(const unsigned char *p, size_t n, unsigned long *cp)
{
	size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;

	if (p[0] < 0xc0 || len > n || !sfs_utf8_valid((const char *)p, len))
		return 0;
	*cp = p[0] & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++)
		*cp = (*cp << 6) | (p[i] & 0x3f);
	return len;
}

int cli_put_visible_n(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	int rc = 0;

	for (size_t i = 0; i < n && rc >= 0;) {
		unsigned long cp;
		size_t len;
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			size_t plain = i;
			while (plain < n && p[plain] >= 0x20 && p[plain] < 0x7f)
				plain++;
			size_t len_plain = plain - i;
			rc = fwrite(p + i, 1, len_plain, f) == len_plain ? 0
			                                                 : EOF;
			i = plain;
		} else if (p[i] < 0x80) {
			char letter = c0_letter(p[i]);
			rc = letter ? fprintf(f, "\\%c", letter)
			            : fprintf(f, "\\x%02x", p[i]);
			i++;
		} else if (!(len = utf8_at(p + i, n - i, &cp))) {
			rc = fprintf(f, "\\x%02x", p[i]);
			i++;
		} else {
			rc = steers(cp) ? fprintf(f, "\\u%04lx", cp)
			     : fwrite(p + i, 1, len, f) == len ? 0 : EOF;
			i += len;
		}
	}
	return rc < 0 ? EOF : 0;
}

int cli_put_visible(FILE *f, const char *s)
{
	return cli_put_visible_n(f, s ? s : "", s ? strlen(s) : 0);
}

int cli_vprintf_visible(FILE *f, const char *fmt, va_list ap)
{
	char *text;
	int len = vasprintf(&text, fmt, ap);

	if (len < 0)
		return EOF;
	int rc = cli_put_visible_n(f, text, (size_t)len);
	free(text);
	return rc;
}

int cli_printf_visible(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = cli_vprintf_visible(f, fmt, ap);
	va_end(ap);
	return rc;
}

int cli_line_visible(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = cli_vprintf_visible(f, fmt, ap);
	va_end(ap);
	return rc < 0 || fputc('\n', f) == EOF ? EOF : 0;
}
