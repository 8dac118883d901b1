/*
 * names.c - skill names that deceive: a name that mixes scripts
 * ("pаypal" with a Cyrillic 'а') or hides invisible characters, and two
 * skills whose names look the same (the skeleton below: confusable
 * letters folded to one form, as Unicode TR39 does with a small table).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

enum script { S_NONE, S_LATIN, S_CYRILLIC, S_GREEK, S_OTHER };

static enum script script_of(uint32_t cp)
{
	if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
	    (cp >= 0xC0 && cp <= 0x24F))
		return S_LATIN;
	if (cp >= 0x400 && cp <= 0x52F)
		return S_CYRILLIC;
	if (cp >= 0x370 && cp <= 0x3FF)
		return S_GREEK;
	if (cp < 0x80)
		return S_NONE;   /* digits, '-', '_' belong to every script */
	return S_OTHER;
}

/* Look-alikes of Latin letters, by code point. */
static const struct { uint32_t cp; char as; } confusables[] = {
	{ 0x430, 'a' }, { 0x435, 'e' }, { 0x43E, 'o' }, { 0x440, 'p' },
	{ 0x441, 'c' }, { 0x443, 'y' }, { 0x445, 'x' }, { 0x456, 'i' },
	{ 0x458, 'j' }, { 0x455, 's' }, { 0x4BB, 'h' }, { 0x501, 'd' },
	{ 0x51B, 'q' }, { 0x51D, 'w' }, { 0x3BF, 'o' }, { 0x3B1, 'a' },
	{ 0x3BD, 'v' }, { 0x3C1, 'p' }, { 0x3B9, 'i' }, { 0x3BA, 'k' },
	{ 0x3C4, 't' }, { 0x3C5, 'u' }, { 0x410, 'a' }, { 0x415, 'e' },
	{ 0x41E, 'o' }, { 0x420, 'p' }, { 0x421, 'c' }, { 0x425, 'x' },
	{ 0x131, 'i' }, { 0x261, 'g' }, { 0x1D0F, 'o' }, { 0xFF41, 'a' },
};

static char fold(uint32_t cp)
{
	if (cp >= 'A' && cp <= 'Z')
		cp += 32;
	switch (cp) {
	case '0': return 'o';
	case '1': case 'i': case '|': return 'l';
	case '5': return 's';
	case '_': case '.': case ' ': return '-';
	}
	if (cp < 0x80)
		return (char)cp;
	for (size_t i = 0; i < sizeof(confusables) / sizeof(*confusables); i++)
		if (confusables[i].cp == cp)
			return confusables[i].as;
	return '?';
}

static bool invisible(uint32_t cp)
{
	return cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
	       cp == 0xFEFF || (cp >= 0xFE00 && cp <= 0xFE0F) ||
	       (cp >= 0xE0000 && cp <= 0xE01EF);
}

/* The code point at *i of u (n bytes) into *cp, *i moved past it; false
 * at the end.  A byte that starts no UTF-8 sequence is passed over. */
static bool next_cp(const unsigned char *u, size_t n, size_t *i, uint32_t *cp)
{
	while (*i < n) {
		if (u[*i] < 0x80) {   /* nearly every name's every byte */
			*cp = u[(*i)++];
			return true;
		}
		size_t len = sec_decode(u + *i, n - *i, cp);
		*i += len ? len : 1;
		if (len)
			return true;
	}
	return false;
}

const char *sfs_security_skeleton(const char *name, char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)name;
	size_t n = strlen(name), o = 0;
	uint32_t cp;

	for (size_t i = 0; o + 2 < size && next_cp(u, n, &i, &cp);) {
		if (invisible(cp))
			continue;
		char ch = fold(cp);
		/* "rn" reads as "m", "vv" as "w" */
		if (o > 0 && buf[o - 1] == 'r' && ch == 'n') {
			buf[o - 1] = 'm';
			continue;
		}
		if (o > 0 && buf[o - 1] == 'v' && ch == 'v') {
			buf[o - 1] = 'w';
			continue;
		}
		buf[o++] = ch;
	}
	buf[o] = '\0';
	return buf;
}

int sfs_security_check_name(const char *name, const char *file,
                            unsigned line, unsigned column,
                            struct sfs_diag_list *diags)
{
	const unsigned char *u = (const unsigned char *)name;
	size_t n = strlen(name);
	unsigned seen = 0;
	bool hidden = false;
	char esc[256];
	uint32_t cp;

	for (size_t i = 0; next_cp(u, n, &i, &cp);) {
		hidden = hidden || invisible(cp);
		enum script s = script_of(cp);
		if (s != S_NONE)
			seen |= 1u << s;
	}
	if (!hidden && (__builtin_popcount(seen) < 2 ||
	                !(seen & (1u << S_LATIN))))
		return 0;   /* no finding: no excerpt to write */
	sec_excerpt(name, n, 64, esc, sizeof(esc));
	if (hidden)
		return sfs_diag_add_rule(diags, SFS_RISK_HIGH,
		                         "security/mixed-script-name", file, line,
		                         column, "the name \"%s\" hides invisible "
		                         "characters", esc);
	if (__builtin_popcount(seen) > 1 && (seen & (1u << S_LATIN)))
		return sfs_diag_add_rule(diags, SFS_RISK_HIGH,
		                         "security/mixed-script-name", file, line,
		                         column, "the name \"%s\" mixes Latin "
		                         "with another script's look-alike "
		                         "letters", esc);
	return 0;
}

struct keyed {
	char skel[128];
	size_t i;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->skel, b->skel);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

int sfs_security_confusable_pairs(const char *const *names, size_t n,
                                  int (*fn)(size_t i, size_t j, void *arg),
                                  void *arg)
{
	struct keyed *k = malloc((n ? n : 1) * sizeof(*k));
	int rc = 0;

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		sfs_security_skeleton(names[i] ? names[i] : "", k[i].skel,
		                      sizeof(k[i].skel));
		k[i].i = i;
	}
	sfs_sort(k, n, sizeof(*k), cmp_keyed);
	/* every name against the first of its run that differs from it */
	for (size_t s = 0; s < n && rc == 0;) {
		size_t e = s + 1;
		while (e < n && strcmp(k[e].skel, k[s].skel) == 0)
			e++;
		for (size_t a = s; a < e && rc == 0; a++)
			for (size_t b = a + 1; b < e && b < a + 8 && rc == 0; b++)
				if (names[k[a].i] && names[k[b].i] &&
				    strcmp(names[k[a].i], names[k[b].i]) != 0)
					rc = fn(k[a].i, k[b].i, arg);
		s = e;
	}
	free(k);
	return rc;
}

const char *sfs_security_escape(const char *s, char *buf, size_t size)
{
	return sec_excerpt(s, strlen(s), 128, buf, size);
}
