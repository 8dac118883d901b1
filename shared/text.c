/*
 * text.c - small readings of text that the frontmatter parser, its
 * client-side judge (sep_readable.c), the findings and the names of files
 * all need: UTF-8 sequences, positions in a file, YAML core-schema
 * numbers.  It calls nothing of the library, so everything may call it.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"

size_t sfs_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char b = s[0];
	size_t len;
	unsigned long cp;

	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
		cp = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		cp = b & 0x0F;
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		cp = b & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return len;
}

/* SKILL.md line and column (1-based, in characters) of a byte offset in
 * text, whose first byte is at line first_line, column 1. */
void sfs_text_pos(const char *text, size_t off, unsigned first_line,
                  unsigned *line, unsigned *column)
{
	unsigned l = first_line, c = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*column = c;
}

/* (internal.h) */
bool sfs_core_digits(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

/* [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
bool sfs_core_number(const char *s)
{
	bool digits = false;

	if (*s == '-' || *s == '+')
		s++;
	while (*s >= '0' && *s <= '9') {
		s++;
		digits = true;
	}
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			s++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

bool sfs_strdup_or_null(const char *s, char **out)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}
