/*
 * frontmatter_repair.c - the one authoring mistake in SKILL.md
 * frontmatter whose meaning is not in doubt: a string field (description,
 * name, ...) written as a plain YAML value that holds ": ".
 *
 *     description: Use when: the user asks for a report
 *
 * YAML reads the second ": " as the start of a nested mapping and refuses
 * the whole frontmatter ("mapping values are not allowed in this
 * context").  It is the commonest reason a published skill fails to load:
 * Codex and the `skills` installer skip such a skill, lenient loaders
 * (Claude Code's) read the line as one string.  The fields below are
 * strings by the format's definition, so a value that YAML cannot read
 * as one was meant as one: the text is given back with each such value
 * double-quoted (a multi-line plain value folded as YAML folds it), on
 * the same lines, and frontmatter.c parses that instead and warns at
 * each value it quoted.  Nothing else is guessed: a value with a comment
 * (" #"), a quoted, block or flow value, and every other key are left as
 * written, and the text is then refused as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "internal.h"

/* The top-level fields that are strings by the format's definition
 * (agent-skills-specification.md, frontmatter-contract.md). */
static const char *const string_fields[] = {
	"name", "description", "when_to_use", "argument-hint", "license",
	"compatibility", NULL,
};

struct line {
	const char *s;
	size_t n;      /* without the '\n' nor a '\r' before it */
	bool crlf;
	bool last;     /* no '\n' after it */
};

static struct line line_at(const char *text, size_t len, size_t off)
{
	const char *nl = memchr(text + off, '\n', len - off);
	struct line l = {
		.s = text + off,
		.n = nl ? (size_t)(nl - text) - off : len - off,
		.last = !nl,
	};

	if (l.n > 0 && l.s[l.n - 1] == '\r') {
		l.n--;
		l.crlf = true;
	}
	return l;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
	while (*n > 0 && blank(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && blank((*s)[*n - 1]))
		(*n)--;
}

/* The length of the key of a top-level "KEY: value" line when KEY is one
 * of string_fields, else 0. */
static size_t string_key(const struct line *l)
{
	for (const char *const *k = string_fields; *k; k++) {
		size_t n = strlen(*k);
		if (l->n > n && memcmp(l->s, *k, n) == 0 && l->s[n] == ':' &&
		    (l->n == n + 1 || blank(l->s[n + 1])))
			return n;
	}
	return 0;
}

/* Whether [s, s+n) (trimmed, not empty) is a plain value that only the
 * mistake keeps YAML from reading as a string: it holds ": " (or ends
 * with ':'), starts with nothing that makes it another kind of value and
 * holds no comment. */
static bool plain_with_colon(const char *s, size_t n)
{
	bool colon = s[n - 1] == ':';

	if (strchr("\"'[{|>&*!%@`#-?,]}", s[0]))
		return false;
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] == ':' && blank(s[i + 1]))
			colon = true;
		if (blank(s[i]) && s[i + 1] == '#')
			return false;
	}
	return colon;
}

/* Appends [s, s+n) as the inside of a YAML double-quoted scalar. */
static void quote_into(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			buf_addc(b, '\\');
		if (s[i] == '\n')
			buf_adds(b, "\\n");
		else
			buf_addc(b, s[i]);
	}
}

static void end_line(struct buf *b, const struct line *l)
{
	if (l->crlf)
		buf_addc(b, '\r');
	if (!l->last)
		buf_addc(b, '\n');
}

/* The bytes from off to the start of the line after l. */
static size_t span(const char *text, size_t off, const struct line *l)
{
	return (size_t)(l->s - (text + off)) + l->n + l->crlf + !l->last;
}

/*
 * The value of the field on line l at off (its key klen bytes long) and
 * of the more-indented lines after it, as YAML folds a plain multi-line
 * value: lines joined by a space, a blank line kept as a newline.  Into
 * b, quoted, then the lines it took, emptied.  Returns the bytes of the
 * text it consumed, or 0 when the value is not one to quote (nothing is
 * then written to b).
 */
static size_t quote_field(struct buf *b, const char *text, size_t len,
                          size_t off, const struct line *l, size_t klen)
{
	const char *v = l->s + klen + 1;
	size_t vn = l->n - klen - 1, end = off + span(text, off, l);
	struct buf val = { 0 };
	bool ok;

	trim(&v, &vn);
	buf_add(&val, v, vn);
	while (end < len) {
		struct line c = line_at(text, len, end);
		const char *t = c.s;
		size_t tn = c.n;
		if (c.n > 0 && !blank(c.s[0]))
			break;   /* the next key */
		trim(&t, &tn);
		if (tn > 0 && t[0] == '#')
			break;   /* a comment: not folded here */
		if (tn == 0)
			buf_addc(&val, '\n');
		else {
			if (val.len > 0 && val.data[val.len - 1] != '\n')
				buf_addc(&val, ' ');
			buf_add(&val, t, tn);
		}
		end += span(text, end, &c);
	}
	while (val.len > 0 && val.data[val.len - 1] == '\n')
		val.len--;   /* trailing blank lines belong to no value */
	ok = !val.failed && val.len > 0 && plain_with_colon(val.data, val.len);
	if (ok) {
		buf_add(b, l->s, klen);
		buf_adds(b, ": \"");
		quote_into(b, val.data, val.len);
		buf_addc(b, '"');
		end_line(b, l);
		/* the lines folded in stay, empty, so that every later key
		 * keeps its line number */
		for (size_t o = off + span(text, off, l); o < end;) {
			struct line c = line_at(text, len, o);
			end_line(b, &c);
			o += span(text, o, &c);
		}
	}
	buf_free(&val);
	return ok ? end - off : 0;
}

int sfs_frontmatter_repair(const char *text, size_t len, char **out,
                           size_t *out_len,
                           const char *quoted[SFS_FM_REPAIR_MAX])
{
	struct buf b = { 0 };
	int n = 0;

	*out = NULL;
	*out_len = 0;
	for (size_t off = 0; off < len;) {
		struct line l = line_at(text, len, off);
		size_t klen = n < SFS_FM_REPAIR_MAX ? string_key(&l) : 0;
		size_t used = klen ? quote_field(&b, text, len, off, &l, klen) : 0;

		if (used) {
			for (const char *const *k = string_fields; *k; k++)
				if (strlen(*k) == klen &&
				    memcmp(*k, l.s, klen) == 0)
					quoted[n++] = *k;
			off += used;
			continue;
		}
		buf_add(&b, l.s, l.n);
		end_line(&b, &l);
		off += span(text, off, &l);
	}
	if (b.failed || n == 0) {
		buf_free(&b);
		return b.failed ? -ENOMEM : 0;
	}
	*out_len = b.len;
	*out = buf_take(&b);
	return *out ? n : -ENOMEM;
}
