/*
 * sep_readable.c - can the official SEP-2640 client read this frontmatter?
 *
 * Why this exists: SkillsClient.read() of @modelcontextprotocol/client
 * reads a listed skill's SKILL.md with its own YAML-subset reader and
 * refuses the skill unless that reader accepts the frontmatter and gets
 * exactly the JSON that skills/list showed.  skillsfs reads frontmatter
 * with libyaml, which accepts more (tags, multi-line quoted values and
 * flow collections, indentation indicators, tabs, ...).  A skill whose
 * frontmatter uses such a construct is left out of skills/list rather
 * than listed broken, and never rewritten.
 *
 * The judgment follows libyaml's own events and marks as frontmatter.c
 * reads them (scalar style, tags, the lines a node starts and ends on,
 * the raw text at a mark) and the client's rules for lines, fences and
 * plain scalars; it is not a second YAML parser.  Only the first problem
 * is kept: one is enough to leave the skill out, and it is what
 * `skillsfs check` points at.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sep_readable.h"

struct sep_line {
	size_t off;    /* of the line's first byte in the text */
	size_t len;    /* without its "\n" or "\r\n" */
	bool block;    /* content of a block scalar: tabs may indent it */
	bool sep;      /* ends with an LS or PS */
	bool sep_open; /* ... not yet found inside quotes */
};

static const char *at(const struct sfs_sep_judge *j, yaml_mark_t m,
                      size_t *rest);

/* The first problem, at byte off of the text, placed at SKILL.md's own
 * line and column. */
static void problem_off(struct sfs_sep_judge *j, size_t off,
                        const char *what, const char *fix)
{
	if (j->out->what)
		return;
	sfs_text_pos(j->yaml, off, j->first_line, &j->out->line,
	             &j->out->column);
	j->out->what = what;
	j->out->fix = fix;
}

/* line and column are libyaml's (0-based; its lines also end at NEL, LS,
 * PS and a lone CR), as the line table reads them. */
static void problem(struct sfs_sep_judge *j, size_t line, size_t column,
                    const char *what, const char *fix)
{
	yaml_mark_t m = { .line = line, .column = column };
	size_t rest;
	const char *p = at(j, m, &rest);

	problem_off(j, p ? (size_t)(p - j->yaml) : j->len, what, fix);
}

static void problem_at(struct sfs_sep_judge *j, yaml_mark_t m,
                       const char *what, const char *fix)
{
	problem(j, m.line, m.column, what, fix);
}

/* The byte at a mark (line and column in characters), and how many bytes
 * of its line follow it; NULL past the text. */
static const char *at(const struct sfs_sep_judge *j, yaml_mark_t m,
                      size_t *rest)
{
	const struct sep_line *l;
	const char *p, *end;

	if (m.line >= j->nlines)
		return NULL;
	l = &j->lines[m.line];
	p = j->yaml + l->off;
	end = p + l->len;
	for (size_t c = 0; c < m.column && p < end; c++) {
		p++;
		while (p < end && ((unsigned char)*p & 0xC0) == 0x80)
			p++;
	}
	*rest = (size_t)(end - p);
	return p;
}

static size_t indent_of(const struct sfs_sep_judge *j, size_t line)
{
	const char *p = j->yaml + j->lines[line].off;
	size_t n = 0;

	while (n < j->lines[line].len && p[n] == ' ')
		n++;
	return n;
}

/* ---- the text, line by line ------------------------------------------ */

/*
 * The line breaks of libyaml, whose marks count them: "\n", "\r\n", a
 * lone "\r", NEL, LS and PS.  The client breaks lines at "\n" only.
 */
enum brk { BRK_LF = 1, BRK_CR, BRK_NEL, BRK_SEP };

static enum brk line_break(const char *p, size_t n, size_t *width)
{
	const unsigned char *u = (const unsigned char *)p;

	*width = 1;
	if (u[0] == '\n')
		return BRK_LF;
	if (u[0] == '\r') {
		*width = n >= 2 && u[1] == '\n' ? 2 : 1;
		return *width == 2 ? BRK_LF : BRK_CR;
	}
	if (u[0] == 0xC2 && n >= 2 && u[1] == 0x85) {
		*width = 2;
		return BRK_NEL;
	}
	if (u[0] == 0xE2 && n >= 3 && u[1] == 0x80 &&
	    (u[2] == 0xA8 || u[2] == 0xA9)) {
		*width = 3;
		return BRK_SEP;
	}
	return 0;
}

static bool is_bom(const char *p, size_t n)
{
	return n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0;
}

static int add_line(struct sfs_sep_judge *j, size_t *cap, size_t start,
                    size_t end, enum brk brk)
{
	if (sfs_grow(&j->lines, cap, j->nlines + 1, sizeof(*j->lines)) < 0)
		return -ENOMEM;
	j->lines[j->nlines++] = (struct sep_line){
		.off = start, .len = end - start, .sep = brk == BRK_SEP,
		.sep_open = brk == BRK_SEP };
	return 0;
}

/*
 * Records the lines as libyaml counts them.  A lone CR and a NEL are
 * line breaks to libyaml and text to the client; an LS or PS is kept by
 * both inside quotes only (checked there); a byte order mark at the
 * start of a line is skipped by libyaml and kept (or refused) by the
 * client.
 */
static int read_lines(struct sfs_sep_judge *j)
{
	/* the bytes that can start a line break */
	static const bool stop[256] = {
		['\n'] = true, ['\r'] = true, [0xC2] = true, [0xE2] = true,
	};
	const char *y = j->yaml;
	size_t cap = 0, start = 0, i = 0, w;
	enum brk brk;

	for (;;) {
		if (i == start && is_bom(y + i, j->len - i))
			problem_off(j, i, "a byte order mark at the "
			            "start of a line", "remove it");
		while (i < j->len && !stop[(unsigned char)y[i]])
			i++;
		if (i == j->len)
			return add_line(j, &cap, start, i, BRK_LF);
		brk = line_break(y + i, j->len - i, &w);
		if (!brk) {
			i++;
			continue;
		}
		if (brk == BRK_CR || brk == BRK_NEL)
			problem_off(j, i, brk == BRK_CR ? "a carriage "
			            "return not followed by a line feed" :
			            "a NEL (U+0085) character, which YAML "
			            "reads as a line break",
			            "end lines with \\n or \\r\\n");
		if (add_line(j, &cap, start, i, brk) < 0)
			return -ENOMEM;
		i += w;
		start = i;
	}
}

/*
 * A quoted scalar, or a plain one inside [ ] or { }, over lines that
 * only LS or PS characters break is read alike: libyaml keeps those
 * characters, as the client does, as long as no blank stands next to
 * them (libyaml trims blanks around a line break).  Clears the lines'
 * LS and PS marks for sfs_sep_finish().
 */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether line l ends with an LS or PS that no blank stands next to. */
static bool bare_separator(const struct sfs_sep_judge *j, size_t l)
{
	const struct sep_line *a, *b;

	if (l + 1 >= j->nlines || !j->lines[l].sep)
		return false;
	a = &j->lines[l];
	b = &j->lines[l + 1];
	return !(a->len && is_blank(j->yaml[a->off + a->len - 1])) &&
	       !(b->len && is_blank(j->yaml[b->off]));
}

static bool breaks_alike(struct sfs_sep_judge *j, const yaml_event_t *ev)
{
	for (size_t l = ev->start_mark.line; l < ev->end_mark.line; l++)
		if (!bare_separator(j, l))
			return false;
	for (size_t l = ev->start_mark.line; l < ev->end_mark.line; l++)
		j->lines[l].sep_open = false;
	return true;
}

int sfs_sep_begin(struct sfs_sep_judge *j, const char *yaml, size_t len,
                  unsigned first_line, struct sfs_fm_unreadable *out)
{
	*j = (struct sfs_sep_judge){ .yaml = yaml, .len = len,
	                             .first_line = first_line, .out = out };
	int r = read_lines(j);
	if (r < 0)
		sfs_sep_free(j);
	return r;
}

void sfs_sep_free(struct sfs_sep_judge *j)
{
	free(j->lines);
	j->lines = NULL;
	j->nlines = 0;
}

/*
 * A line whose indentation holds a tab is refused by the client (a tab
 * after the spaces, before text that is not a comment) unless it is the
 * content of a block scalar.
 */
void sfs_sep_finish(struct sfs_sep_judge *j)
{
	for (size_t l = 0; l < j->nlines && !j->out->what; l++) {
		const char *p = j->yaml + j->lines[l].off;
		size_t n = j->lines[l].len, i = indent_of(j, l);

		if (j->lines[l].sep_open)
			problem(j, l, j->lines[l].len, "a U+2028 or U+2029 "
			        "character outside quotes, which YAML reads "
			        "as a line break", "quote the value on one "
			        "line, or remove it");
		if (j->lines[l].block || i == n || p[i] != '\t')
			continue;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i < n && p[i] != '#')
			problem(j, l, indent_of(j, l), "a tab in the "
			        "indentation", "indent with spaces");
	}
	sfs_sep_free(j);
}

/* ---- the fences ------------------------------------------------------ */

void sfs_sep_fences(struct sfs_fm_unreadable *out, const char *open,
                    size_t open_len, bool dots, unsigned dots_line)
{
	if (out->what)
		return;
	if (open_len > 3 && !(open_len == 4 && open[3] == '\r')) {
		*out = (struct sfs_fm_unreadable){ 1, 4,
			"blanks after the opening '---'",
			"end the first line right after '---'" };
	} else if (dots) {
		*out = (struct sfs_fm_unreadable){ dots_line, 1,
			"a frontmatter closed by '...'",
			"close it with a '---' line" };
	}
}

/* ---- plain scalars: the client's core schema ------------------------- */

/* [+-]?\.(inf|Inf|INF) or \.(nan|NaN|NAN) */
static bool is_special_float(const char *s)
{
	static const char *const forms[] = {
		".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN" };

	if (s[0] != '.' && s[0] != '+' && s[0] != '-')
		return false;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		bool inf = i < 3;
		if (strcmp(s, forms[i]) == 0 ||
		    (inf && (s[0] == '+' || s[0] == '-') &&
		     strcmp(s + 1, forms[i]) == 0))
			return true;
	}
	return false;
}

static bool is_null_or_bool(const char *s)
{
	static const char *const words[] = {
		"", "~", "null", "Null", "NULL", "true", "True", "TRUE",
		"false", "False", "FALSE" };

	if (!strchr("~nNtTfF", s[0]))
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(s, words[i]) == 0)
			return true;
	return false;
}

/*
 * Whether cJSON, which prints index.json, writes d so that it reads back
 * as d.  It tries 15 significant digits first and keeps them when the
 * result is within DBL_EPSILON of d (relative), which is not always d:
 * 0x20000000000001 is listed as 9007199254740990.
 */
static bool prints_exactly(double d)
{
	char buf[64];
	double t, max;

	if (d >= INT_MIN && d <= INT_MAX && d == (double)(int)d)
		return true;
	snprintf(buf, sizeof(buf), "%1.15g", d);
	t = strtod(buf, NULL);
	max = fabs(t) > fabs(d) ? fabs(t) : fabs(d);
	return t == d || fabs(t - d) > max * DBL_EPSILON;
}

/*
 * Why the client's resolvePlain() cannot give what frontmatter.c gives
 * and index.json shows for a plain scalar, or NULL: it refuses .inf,
 * .nan and numbers past a double's range (JSON cannot write them), where
 * frontmatter.c keeps a string; a 0x or 0o number too large for 64 bits
 * is a number to it and a string here; and some numbers of 16 or more
 * digits are listed rounded (prints_exactly()).
 */
static const char *plain_mismatch(const char *s)
{
	static const char rounded[] = "a number with more digits than "
	                              "index.json keeps";
	double d;

	if (is_special_float(s))
		return "an infinity or NaN (.inf, .nan), which JSON cannot "
		       "write";
	if (sfs_core_number(s)) {
		d = strtod(s, NULL);
		if (!isfinite(d))
			return "a number too large for JSON";
		return prints_exactly(d) ? NULL : rounded;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o') &&
	    sfs_core_digits(s + 2, s[1] == 'x' ? "0123456789abcdefABCDEF" :
	                  "01234567")) {
		errno = 0;
		unsigned long long v = strtoull(s + 2, NULL,
		                                s[1] == 'x' ? 16 : 8);
		if (errno == ERANGE)
			return "a hexadecimal or octal number too large for "
			       "64 bits";
		return prints_exactly((double)v) ? NULL : rounded;
	}
	return NULL;
}

/* Whether the client's resolvePlain() reads a plain key as a string. */
static bool plain_key_is_string(const char *s)
{
	if (is_null_or_bool(s) || is_special_float(s) || sfs_core_number(s))
		return false;
	if (s[0] == '0' && s[1] == 'x' &&
	    sfs_core_digits(s + 2, "0123456789abcdefABCDEF"))
		return false;
	return !(s[0] == '0' && s[1] == 'o' && sfs_core_digits(s + 2, "01234567"));
}

/* ---- nodes ----------------------------------------------------------- */

static const yaml_char_t *tag_of(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return ev->data.scalar.tag;
	case YAML_SEQUENCE_START_EVENT:
		return ev->data.sequence_start.tag;
	case YAML_MAPPING_START_EVENT:
		return ev->data.mapping_start.tag;
	default:
		return NULL;
	}
}

static bool quoted(const yaml_event_t *ev)
{
	return ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
	       ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

static bool is_flow(const yaml_event_t *ev)
{
	return ev->type == YAML_SEQUENCE_START_EVENT ?
	       ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE :
	       ev->type == YAML_MAPPING_START_EVENT &&
	       ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
}

/* What keys and values share: tags, NUL characters, several lines. */
static void check_scalar(struct sfs_sep_judge *j, const yaml_event_t *ev)
{
	if (tag_of(ev))
		problem_at(j, ev->start_mark, "a YAML tag (!!str, !...)",
		           "remove the tag; quote the value to keep it text");
	else if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
		problem_at(j, ev->start_mark, "an escape that writes a NUL "
		           "character (\\0, \\x00)", "remove it");
	else if (quoted(ev) && ev->end_mark.line != ev->start_mark.line &&
	         !breaks_alike(j, ev))
		problem_at(j, ev->start_mark, "a quoted value over several "
		           "lines", "quote the value on one line, or use a "
		           "block scalar |");
}

/* The last character before a mark on its line that is not a blank, or
 * 0; *tab tells whether a tab was passed. */
static char before(const struct sfs_sep_judge *j, yaml_mark_t m, bool *tab)
{
	size_t rest;
	const char *p = at(j, m, &rest);
	const char *start = p ? j->yaml + j->lines[m.line].off : NULL;

	*tab = false;
	while (p && p > start && (p[-1] == ' ' || p[-1] == '\t')) {
		*tab |= p[-1] == '\t';
		p--;
	}
	return p && p > start ? p[-1] : 0;
}

void sfs_sep_key(struct sfs_sep_judge *j, const yaml_event_t *ev)
{
	const char *key = (const char *)ev->data.scalar.value;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, tab;
	size_t rest;
	const char *p;

	if (j->out->what)
		return;
	check_scalar(j, ev);
	/* (a top-level one is a reason of its own, validate.c) */
	if (j->depth > 1 && strcmp(key, "__proto__") == 0)
		problem_at(j, ev->start_mark, "a \"__proto__\" key",
		           "rename the key");
	if (plain && !plain_key_is_string(key))
		problem_at(j, ev->start_mark, "a key that YAML reads as a "
		           "number, true, false or null", "quote the key");
	if (before(j, ev->start_mark, &tab) == '?')
		problem_at(j, ev->start_mark, "a complex key (\"? \")",
		           "write key: value on one line");
	p = at(j, ev->end_mark, &rest);
	/* the client wants the ':' right after a quoted key (in a block),
	 * and ": " after a plain key in a flow mapping */
	if (p && (plain || j->flow))
		for (; rest && (*p == ' ' || *p == '\t'); rest--)
			p++;
	if (!p || !rest || *p != ':')
		problem_at(j, ev->start_mark, "a key not followed by ':' on "
		           "its line", "write key: value on one line");
	else if (plain && j->flow && !(rest > 1 && (p[1] == ' ' ||
	                                            p[1] == '\t')))
		problem_at(j, ev->end_mark, "a ':' in a flow mapping not "
		           "followed by a space", "write { key: value }");
}

/* The client's header rule: | or >, an optional chomping indicator,
 * then only blanks and a comment. */
static void check_block_header(struct sfs_sep_judge *j, yaml_mark_t m)
{
	size_t rest, i = 1;
	const char *p = at(j, m, &rest);

	if (!p)
		return;
	if (i < rest && (p[i] == '+' || p[i] == '-'))
		i++;
	if ((rest > 1 && p[1] >= '0' && p[1] <= '9') ||
	    (i < rest && p[i] >= '0' && p[i] <= '9')) {
		problem_at(j, m, "a block scalar indentation indicator "
		           "(|2, >-1)", "drop the digit and indent the "
		           "content evenly");
		return;
	}
	size_t blanks = i;
	while (i < rest && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i < rest && !(p[i] == '#' && i > blanks))
		problem_at(j, m, "text after a block scalar's | or >",
		           "put only a comment after | or >");
}

/*
 * The client reads a block scalar's lines itself: the first line with
 * text indented more than the parent collection sets the indentation
 * (libyaml may have ended the scalar before it); less indented lines of
 * only spaces are empty, any other less indented line ends it, and one
 * indented with a tab is refused.  The content lines are marked for
 * sfs_sep_finish().
 */
static void check_block_lines(struct sfs_sep_judge *j, const yaml_event_t *ev)
{
	size_t content = SIZE_MAX, leading = 0;
	size_t parent = j->depth && j->depth <= SFS_FM_MAX_DEPTH + 1 ?
	                j->column[j->depth - 1] : 0;

	for (size_t l = ev->start_mark.line + 1; l < j->nlines; l++) {
		size_t indent = indent_of(j, l);
		bool spaces = indent == j->lines[l].len;
		const char *p = j->yaml + j->lines[l].off;

		if (content == SIZE_MAX && !spaces && indent > parent) {
			content = indent;
			if (leading > content)
				problem(j, l, 0, "a leading blank line "
				        "indented more than the block scalar",
				        "remove the blanks of that line");
		}
		if (content != SIZE_MAX && indent >= content) {
			j->lines[l].block = true;
		} else if (spaces) {
			leading = leading > indent ? leading : indent;
			j->lines[l].block = true;
		} else {
			if (p[indent] == '\t')
				problem(j, l, indent, "a tab in the "
				        "indentation", "indent with spaces");
			return;
		}
	}
}

/* In a flow collection the client refuses a plain value that starts
 * with '-', '?' or ':' and a blank or flow indicator ("[-, a]"). */
static bool flow_indicator_start(const struct sfs_sep_judge *j,
                                 yaml_mark_t m)
{
	size_t rest;
	const char *p = at(j, m, &rest);

	return p && rest && strchr("-?:", *p) &&
	       (rest == 1 || strchr(" \t,[]{}", p[1]));
}

/* Whether only blanks and list items' '-' precede a mark on its line:
 * the client reads such a line (or item) as a possible key. */
static bool starts_line(const struct sfs_sep_judge *j, yaml_mark_t m)
{
	bool tab;
	char b = before(j, m, &tab);

	return b == 0 || b == '-';
}

static void check_plain(struct sfs_sep_judge *j, const yaml_event_t *ev)
{
	const char *why;

	if (j->flow && ev->data.scalar.length == 0)
		problem_at(j, ev->start_mark, "an empty value in a flow "
		           "collection", "write null, or quote \"\"");
	else if (j->flow && ev->end_mark.line != ev->start_mark.line &&
	         !breaks_alike(j, ev))
		problem_at(j, ev->start_mark, "a value over several lines "
		           "inside [ ] or { }", "write it on one line");
	else if (j->flow && flow_indicator_start(j, ev->start_mark))
		problem_at(j, ev->start_mark, "a value in [ ] or { } that "
		           "starts with '-', '?' or ':' and a blank",
		           "quote the value");
	else if (!j->flow && ev->data.scalar.value[0] == '?' &&
	         starts_line(j, ev->start_mark))
		problem_at(j, ev->start_mark, "a value that starts a line or "
		           "list item with '?', which the client takes for a "
		           "complex key", "quote the value");
	else if ((why = plain_mismatch((const char *)ev->data.scalar.value)))
		problem_at(j, ev->start_mark, why, "quote the value");
}

static void check_collection(struct sfs_sep_judge *j, const yaml_event_t *ev,
                             bool top)
{
	size_t rest;
	const char *p;
	bool tab;

	if (tag_of(ev)) {
		problem_at(j, ev->start_mark, "a YAML tag (!!map, !...)",
		           "remove the tag");
	} else if (is_flow(ev)) {
		p = at(j, ev->start_mark, &rest);
		if (top)
			problem_at(j, ev->start_mark, "a frontmatter written "
			           "as one { } mapping", "write one key: "
			           "value a line");
		else if (ev->type == YAML_MAPPING_START_EVENT && p &&
		         *p != '{')
			problem_at(j, ev->start_mark, "a key: value pair "
			           "inside a [ ] list", "write it as "
			           "{ key: value }, or as a block list");
	} else if (before(j, ev->start_mark, &tab) == '-' && tab) {
		problem_at(j, ev->start_mark, "a tab after a list's '-'",
		           "use a space after '-'");
	}
}

void sfs_sep_node(struct sfs_sep_judge *j, const yaml_event_t *ev, bool top)
{
	if (ev->type != YAML_SCALAR_EVENT) {
		if (!j->out->what)
			check_collection(j, ev, top);
		j->flow += is_flow(ev);
		if (j->depth <= SFS_FM_MAX_DEPTH)
			j->column[j->depth] = ev->start_mark.column;
		j->depth++;
		return;
	}
	if (j->out->what)
		return;
	check_scalar(j, ev);
	switch (ev->data.scalar.style) {
	case YAML_PLAIN_SCALAR_STYLE:
		if (!tag_of(ev))
			check_plain(j, ev);
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		check_block_header(j, ev->start_mark);
		check_block_lines(j, ev);
		break;
	default:
		break;
	}
}

/* Whether the lines from first to last are broken only by LS or PS
 * characters inside quoted values (libyaml counts them as lines). */
static bool quoted_breaks_only(const struct sfs_sep_judge *j, size_t first,
                               size_t last)
{
	for (size_t l = first; l < last; l++)
		if (l >= j->nlines || !j->lines[l].sep || j->lines[l].sep_open)
			return false;
	return true;
}

void sfs_sep_end(struct sfs_sep_judge *j, const yaml_event_t *start,
                 yaml_mark_t end)
{
	j->depth--;
	if (!is_flow(start))
		return;
	j->flow--;
	if (!quoted_breaks_only(j, start->start_mark.line, end.line))
		problem_at(j, start->start_mark, "a [ ] or { } collection "
		           "over several lines", "write it on one line, or "
		           "as a block list or mapping");
}
