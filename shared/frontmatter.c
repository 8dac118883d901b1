/*
 * frontmatter.c - the YAML frontmatter of SKILL.md, parsed with libyaml's
 * event parser into a cJSON object that keeps the authored key order.
 *
 * The frontmatter is untrusted input, so the parser refuses rather than
 * guesses: anchors and aliases (the "billion laughs" expansion bomb), more
 * than SFS_FM_MAX_BYTES of text, nesting deeper than SFS_FM_MAX_DEPTH,
 * more than SFS_FM_MAX_NODES nodes, invalid UTF-8 and control bytes,
 * duplicate keys and multiple documents are all findings.  Recursion
 * depth is bounded by SFS_FM_MAX_DEPTH because a collection is refused
 * before its children are read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "grow.h"
#include "internal.h"
#include "sep_readable.h"

/* Dotted paths longer than this get no position record: a hostile file
 * could otherwise make every one of 20,000 nodes carry a 60 KiB path. */
#define MAX_PATH_LEN 256

struct fm_ctx {
	yaml_parser_t parser;
	const char *file;
	const char *yaml;       /* the text between the fences */
	size_t yaml_len;
	unsigned first_line;    /* SKILL.md line of the text's first line */
	struct sfs_arena *arena;
	struct sfs_diag_list *diags;
	struct sfs_frontmatter *fm;
	size_t pos_cap;
	size_t nodes;
	/* whether the official SEP-2640 client reads it alike */
	struct sfs_sep_judge sep;
	yaml_mark_t last_end;   /* of the last collection's end event */
	const char *open;       /* the opening fence line, without '\n' */
	size_t open_len;
	unsigned dots_line;     /* of a closing "..." fence, else 0 */
	bool odd_breaks;        /* NEL, LS, PS or a lone CR in the text */
	/* libyaml refused a ": " inside a plain value, which
	 * frontmatter_repair.c may read as the string it was meant as */
	bool mapping_values;
};

/* ---- positions and findings ------------------------------------------ */

/* libyaml also ends a line at NEL, LS, PS and a lone CR, where SKILL.md
 * (and an editor) does not: does the text hold one? */
static bool has_odd_breaks(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char *u = (const unsigned char *)s + i;
		if ((u[0] == '\r' && (i + 1 == n || u[1] != '\n')) ||
		    (u[0] == 0xC2 && i + 1 < n && u[1] == 0x85) ||
		    (u[0] == 0xE2 && i + 2 < n && u[1] == 0x80 &&
		     (u[2] == 0xA8 || u[2] == 0xA9)))
			return true;
	}
	return false;
}

/* SKILL.md position of a libyaml mark.  Only a text with odd breaks needs
 * the walk from the mark's character index to its byte. */
static void mark_pos(const struct fm_ctx *c, yaml_mark_t m, unsigned *line,
                     unsigned *column)
{
	size_t off = 0;

	if (!c->odd_breaks) {
		*line = c->first_line + (unsigned)m.line;
		*column = (unsigned)m.column + 1;
		return;
	}
	for (size_t chars = 0; off < c->yaml_len && chars < m.index; chars++)
		do
			off++;
		while (off < c->yaml_len &&
		       ((unsigned char)c->yaml[off] & 0xC0) == 0x80);
	sfs_text_pos(c->yaml, off, c->first_line, line, column);
}

static unsigned mark_line(const struct fm_ctx *c, yaml_mark_t m)
{
	unsigned line, column;

	mark_pos(c, m, &line, &column);
	return line;
}

static unsigned mark_column(const struct fm_ctx *c, yaml_mark_t m)
{
	unsigned line, column;

	mark_pos(c, m, &line, &column);
	return column;
}

/* How many bytes of s to print so that at most max are, without cutting
 * a UTF-8 sequence in two. */
static int clip(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return (int)n;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return (int)max;
}

/* Adds an error and returns -1 (or -ENOMEM when even that failed). */
__attribute__((format(printf, 5, 6)))
static int refuse(struct fm_ctx *c, unsigned line, unsigned column,
                  const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = sfs_diag_addv(c->diags, SFS_ERROR, c->file, line, column,
	                       field, fmt, ap);
	va_end(ap);
	return rc < 0 ? -ENOMEM : -1;
}

#define refuse_at(c, mark, field, ...) \
	refuse((c), mark_line((c), (mark)), mark_column((c), (mark)), (field), \
	       __VA_ARGS__)

/* libyaml's own complaint, with its position mapped into SKILL.md. */
static int syntax_error(struct fm_ctx *c)
{
	yaml_parser_t *p = &c->parser;
	unsigned line, column;

	if (p->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (p->error == YAML_READER_ERROR) {
		size_t off = p->problem_offset < c->yaml_len ?
		             p->problem_offset : c->yaml_len;
		sfs_text_pos(c->yaml, off, c->first_line, &line, &column);
		return refuse(c, line, column, "", "invalid YAML: %s",
		              p->problem ? p->problem : "unreadable input");
	}
	line = mark_line(c, p->problem_mark);
	column = mark_column(c, p->problem_mark);
	/* the two ways libyaml words it: on the value's line, or on a
	 * folded line after it */
	c->mapping_values = p->problem &&
	                    (strstr(p->problem, "mapping values are not allowed") ||
	                     strstr(p->problem, "could not find expected ':'"));
	if (p->context)
		return refuse(c, line, column, "",
		              "invalid YAML: %s (%s at line %u)",
		              p->problem ? p->problem : "syntax error",
		              p->context, mark_line(c, p->context_mark));
	return refuse(c, line, column, "", "invalid YAML: %s",
	              p->problem ? p->problem : "syntax error");
}

static int next_event(struct fm_ctx *c, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&c->parser, ev))
		return syntax_error(c);
	return 0;
}

static int add_pos(struct fm_ctx *c, const char *path, yaml_mark_t key,
                   yaml_mark_t value)
{
	struct sfs_frontmatter *fm = c->fm;

	if (!path)
		return 0;
	if (sfs_grow(&fm->pos, &c->pos_cap, fm->npos + 1, sizeof(*fm->pos)) < 0)
		return -ENOMEM;
	fm->pos[fm->npos++] = (struct sfs_fm_pos){
		.key = path,
		.line = mark_line(c, key),
		.column = mark_column(c, key),
		.value_line = mark_line(c, value),
		.value_column = mark_column(c, value),
	};
	return 0;
}

/* The dotted path of a child, in the arena.  The top level's path is ""
 * and an untracked one is NULL: *out = NULL when the parent had none or
 * the result would be too long to be worth recording. */
static int child_path(struct fm_ctx *c, const char *parent, const char *seg,
                      size_t seglen, const char **out)
{
	size_t plen;
	char *p;

	*out = NULL;
	if (!parent)
		return 0;
	plen = strlen(parent);
	if (plen + 1 + seglen > MAX_PATH_LEN)
		return 0;
	if (plen == 0) {
		p = sfs_arena_strndup(c->arena, seg, seglen);
	} else {
		p = sfs_arena_alloc(c->arena, plen + 1 + seglen + 1);
		if (p) {
			memcpy(p, parent, plen);
			p[plen] = '.';
			memcpy(p + plen + 1, seg, seglen);
		}
	}
	if (!p)
		return -ENOMEM;
	*out = p;
	return 0;
}

/* ---- scalars: the YAML 1.2 core schema ------------------------------- */

static bool is_one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

/*
 * A plain (unquoted, untagged) scalar as the core schema reads it.  .inf
 * and .nan stay strings because JSON has no way to write them, and so does
 * a number too large for a double, rather than turning into null.
 */
static cJSON *plain_scalar(const char *s)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL",
	                                     NULL };
	static const char *const trues[] = { "true", "True", "TRUE", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", NULL };
	double d;
	char *end;

	if (is_one_of(s, nulls))
		return cJSON_CreateNull();
	if (is_one_of(s, trues))
		return cJSON_CreateTrue();
	if (is_one_of(s, falses))
		return cJSON_CreateFalse();
	if ((s[0] == '0' && s[1] == 'o' && sfs_core_digits(s + 2, "01234567")) ||
	    (s[0] == '0' && s[1] == 'x' &&
	     sfs_core_digits(s + 2, "0123456789abcdefABCDEF"))) {
		errno = 0;
		unsigned long long v = strtoull(s + 2, &end, s[1] == 'o' ? 8 : 16);
		if (errno == 0 && *end == '\0')
			return cJSON_CreateNumber((double)v);
		return cJSON_CreateString(s);
	}
	if (sfs_core_number(s)) {
		d = strtod(s, &end);
		if (*end == '\0' && isfinite(d))
			return cJSON_CreateNumber(d);
	}
	return cJSON_CreateString(s);
}

/* Quoted and block scalars, and those tagged !!str or "!", are strings;
 * any other explicit tag is read as if absent. */
static cJSON *scalar_json(const yaml_event_t *ev)
{
	const char *value = (const char *)ev->data.scalar.value;
	const char *tag = (const char *)ev->data.scalar.tag;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cJSON_CreateString(value);
	if (tag && (strcmp(tag, YAML_STR_TAG) == 0 || strcmp(tag, "!") == 0))
		return cJSON_CreateString(value);
	return plain_scalar(value);
}

/* ---- nodes ----------------------------------------------------------- */

static int parse_node(struct fm_ctx *c, const yaml_event_t *ev,
                      const char *path, unsigned depth, cJSON **out);

static const char *field_of(const char *path)
{
	return path ? path : "";
}

/* Refuses aliases and anchors, and counts the node against the limit. */
static int admit_node(struct fm_ctx *c, const yaml_event_t *ev,
                      const char *path)
{
	const yaml_char_t *anchor = NULL;

	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return refuse_at(c, ev->start_mark, field_of(path),
		                 "YAML aliases (*%.*s) are not allowed in "
		                 "frontmatter; write the value out",
		                 clip((const char *)ev->data.alias.anchor, 64),
		                 (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		break;
	default:
		return refuse_at(c, ev->start_mark, field_of(path),
		                 "unexpected YAML event");
	}
	if (anchor)
		return refuse_at(c, ev->start_mark, field_of(path),
		                 "YAML anchors (&%.*s) are not allowed in "
		                 "frontmatter; write the value out",
		                 clip((const char *)anchor, 64),
		                 (const char *)anchor);
	if (++c->nodes > SFS_FM_MAX_NODES)
		return refuse_at(c, ev->start_mark, field_of(path),
		                 "frontmatter has more than %d values",
		                 SFS_FM_MAX_NODES);
	return 0;
}

static int parse_sequence(struct fm_ctx *c, const char *path,
                          unsigned depth, cJSON *arr)
{
	for (size_t i = 0;; i++) {
		yaml_event_t ev;
		char seg[24];
		const char *item_path;
		cJSON *item = NULL;
		int r = next_event(c, &ev);

		if (r < 0)
			return r;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			c->last_end = ev.end_mark;
			yaml_event_delete(&ev);
			return 0;
		}
		int n = snprintf(seg, sizeof(seg), "%zu", i);
		r = child_path(c, path, seg, (size_t)n, &item_path);
		if (r == 0)
			r = add_pos(c, item_path, ev.start_mark, ev.start_mark);
		if (r == 0)
			r = parse_node(c, &ev, item_path, depth, &item);
		yaml_event_delete(&ev);
		if (r < 0)
			return r;
		cJSON_AddItemToArray(arr, item);
	}
}

/* Reads one key; *key is the scalar's event, to be deleted by the caller,
 * and *done is set at the end of the mapping. */
static int parse_key(struct fm_ctx *c, const char *path, yaml_event_t *key,
                     bool *done)
{
	int r = next_event(c, key);

	if (r < 0)
		return r;
	*done = key->type == YAML_MAPPING_END_EVENT;
	if (*done)
		return 0;
	r = admit_node(c, key, path);
	if (r == 0 && key->type != YAML_SCALAR_EVENT)
		r = refuse_at(c, key->start_mark, field_of(path),
		              "a key must be a plain value, not a %s",
		              key->type == YAML_MAPPING_START_EVENT ?
		              "mapping" : "list");
	if (r < 0)
		yaml_event_delete(key);
	return r;
}

static int parse_mapping(struct fm_ctx *c, const char *path,
                         unsigned depth, cJSON *obj)
{
	for (;;) {
		yaml_event_t key, ev;
		const char *name, *key_path;
		cJSON *value = NULL, *first;
		bool done;
		int r = parse_key(c, path, &key, &done);

		if (r < 0)
			return r;
		if (done) {
			c->last_end = key.end_mark;
			yaml_event_delete(&key);
			return 0;
		}
		sfs_sep_key(&c->sep, &key);
		name = (const char *)key.data.scalar.value;
		r = child_path(c, path, name, key.data.scalar.length, &key_path);
		first = cJSON_GetObjectItemCaseSensitive(obj, name);
		if (r == 0 && first)
			r = refuse_at(c, key.start_mark, field_of(key_path),
			              "duplicate key \"%.*s\"", clip(name, 64),
			              name);
		if (r == 0)
			r = next_event(c, &ev);
		if (r < 0) {
			yaml_event_delete(&key);
			return r;
		}
		r = add_pos(c, key_path, key.start_mark, ev.start_mark);
		if (r == 0)
			r = parse_node(c, &ev, key_path, depth, &value);
		yaml_event_delete(&ev);
		if (r == 0 && !cJSON_AddItemToObject(obj, name, value)) {
			cJSON_Delete(value);
			r = -ENOMEM;
		}
		yaml_event_delete(&key);
		if (r < 0)
			return r;
	}
}

/* Turns the node that starts with ev into JSON in *out.  depth is the
 * number of collections around it. */
static int parse_node(struct fm_ctx *c, const yaml_event_t *ev,
                      const char *path, unsigned depth, cJSON **out)
{
	cJSON *j;
	int r = admit_node(c, ev, path);

	*out = NULL;
	if (r < 0)
		return r;
	sfs_sep_node(&c->sep, ev, depth == 0);
	if (ev->type == YAML_SCALAR_EVENT) {
		*out = scalar_json(ev);
		return *out ? 0 : -ENOMEM;
	}
	if (depth + 1 > SFS_FM_MAX_DEPTH)
		return refuse_at(c, ev->start_mark, field_of(path),
		                 "frontmatter is nested more than %d levels "
		                 "deep", SFS_FM_MAX_DEPTH);
	if (ev->type == YAML_SEQUENCE_START_EVENT) {
		j = cJSON_CreateArray();
		r = j ? parse_sequence(c, path, depth + 1, j) : -ENOMEM;
	} else {
		j = cJSON_CreateObject();
		r = j ? parse_mapping(c, path, depth + 1, j) : -ENOMEM;
	}
	if (r == 0)
		sfs_sep_end(&c->sep, ev, c->last_end);
	if (r < 0) {
		cJSON_Delete(j);
		return r;
	}
	*out = j;
	return 0;
}

/* ---- the document ---------------------------------------------------- */

/* Expects an event of the given type, else refuses with what. */
static int expect(struct fm_ctx *c, yaml_event_type_t type, const char *what)
{
	yaml_event_t ev;
	int r = next_event(c, &ev);

	if (r == 0 && ev.type != type)
		r = refuse_at(c, ev.start_mark, "", "%s", what);
	yaml_event_delete(&ev);    /* libyaml zeroes it when parsing fails */
	return r;
}

static int parse_document(struct fm_ctx *c)
{
	yaml_event_t ev;
	int r = expect(c, YAML_STREAM_START_EVENT, "invalid YAML stream");

	if (r < 0)
		return r;
	r = next_event(c, &ev);
	if (r < 0)
		return r;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return refuse(c, c->first_line, 1, "",
		              "frontmatter is empty; it needs at least name "
		              "and description");
	}
	yaml_event_delete(&ev);    /* DOCUMENT_START */
	r = next_event(c, &ev);
	if (r < 0)
		return r;
	if (ev.type != YAML_MAPPING_START_EVENT && ev.type != YAML_ALIAS_EVENT)
		r = refuse_at(c, ev.start_mark, "",
		              "frontmatter must be a mapping of keys to values, "
		              "not a %s",
		              ev.type == YAML_SEQUENCE_START_EVENT ?
		              "list" : "single value");
	if (r == 0)
		r = parse_node(c, &ev, "", 0, &c->fm->json);
	yaml_event_delete(&ev);
	if (r == 0)
		r = expect(c, YAML_DOCUMENT_END_EVENT, "invalid YAML document");
	if (r < 0)
		return r;
	r = next_event(c, &ev);
	if (r < 0)
		return r;
	if (ev.type != YAML_STREAM_END_EVENT)
		r = refuse_at(c, ev.start_mark, "",
		              "frontmatter holds more than one YAML document");
	yaml_event_delete(&ev);
	return r;
}

/* ---- fences and bytes ------------------------------------------------ */

/* Whether the line [s, s+n) (without its '\n') is the fence f ("---" or
 * "..."), allowing trailing blanks and the '\r' of a CRLF. */
static bool is_fence(const char *s, size_t n, const char *f)
{
	if (n < 3 || memcmp(s, f, 3) != 0)
		return false;
	for (size_t i = 3; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static size_t line_len(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);
	return nl ? (size_t)(nl - s) : n;
}

/* Refuses invalid UTF-8, NUL and control bytes (YAML allows only tab, LF
 * and CR), with the position of the first offender. */
static int check_bytes(struct fm_ctx *c)
{
	const unsigned char *s = (const unsigned char *)c->yaml;
	unsigned line, column;

	for (size_t i = 0; i < c->yaml_len;) {
		size_t n = sfs_utf8_seq(s + i, c->yaml_len - i);
		unsigned char b = s[i];

		if (n == 1 && (b >= 0x20 || b == '\t' || b == '\n' ||
		               b == '\r') && b != 0x7F) {
			i++;
			continue;
		}
		if (n > 1) {
			i += n;
			continue;
		}
		sfs_text_pos(c->yaml, i, c->first_line, &line, &column);
		if (n == 0)
			return refuse(c, line, column, "",
			              "frontmatter is not valid UTF-8 "
			              "(byte 0x%02X)", b);
		if (b == 0)
			return refuse(c, line, column, "",
			              "frontmatter contains a NUL byte");
		return refuse(c, line, column, "",
		              "frontmatter contains control byte 0x%02X", b);
	}
	return 0;
}

/*
 * Finds the fences: sets c->yaml/yaml_len to the text between them and
 * fm->body_offset/body_line to just after the closing one.
 */
static int find_fences(struct fm_ctx *c, const char *text, size_t len)
{
	size_t off = 0, n;
	unsigned line = 1;

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		off = 3;
	n = line_len(text + off, len - off);
	c->open = text + off;
	c->open_len = n;
	if (!is_fence(text + off, n, "---") || off + n == len)
		return refuse(c, 1, 1, "",
		              off + n == len && is_fence(text + off, n, "---") ?
		              "frontmatter has no closing '---' line" :
		              "no frontmatter: SKILL.md must begin with a "
		              "'---' line, then name and description, then "
		              "a closing '---' line");
	off += n + 1;
	c->yaml = text + off;
	c->first_line = 2;
	while (off < len) {
		line++;
		n = line_len(text + off, len - off);
		if (is_fence(text + off, n, "---") ||
		    is_fence(text + off, n, "...")) {
			c->yaml_len = (size_t)(text + off - c->yaml);
			c->odd_breaks = has_odd_breaks(c->yaml, c->yaml_len);
			if (text[off] == '.')
				c->dots_line = line;
			c->fm->body_offset = off + n + (off + n < len);
			c->fm->body_line = line + 1;
			return 0;
		}
		off += n + 1;
	}
	/* The caller may have read only the head of a large file, so past
	 * the limit the missing fence is put in terms of the limit. */
	if (len - (size_t)(c->yaml - text) > SFS_FM_MAX_BYTES)
		return refuse(c, 1, 1, "",
		              "frontmatter has no closing '---' line within "
		              "%d bytes (the limit)", SFS_FM_MAX_BYTES);
	return refuse(c, 1, 1, "", "frontmatter has no closing '---' line");
}

/* Parses c->yaml into c->fm, judging it for the official SEP-2640 client
 * on the way. */
static int parse_yaml(struct fm_ctx *c)
{
	int r = sfs_sep_begin(&c->sep, c->yaml, c->yaml_len, c->first_line,
	                      &c->fm->sep);

	if (r < 0)
		return r;
	if (!yaml_parser_initialize(&c->parser)) {
		sfs_sep_free(&c->sep);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&c->parser, (const unsigned char *)c->yaml,
	                             c->yaml_len);
	yaml_parser_set_encoding(&c->parser, YAML_UTF8_ENCODING);
	r = parse_document(c);
	yaml_parser_delete(&c->parser);
	sfs_sep_finish(&c->sep);
	return r;
}

/* Forgets what a failed parse left in c->fm. */
static void forget_parse(struct fm_ctx *c)
{
	cJSON_Delete(c->fm->json);
	c->fm->json = NULL;
	free(c->fm->pos);
	c->fm->pos = NULL;
	c->fm->npos = 0;
	c->pos_cap = 0;
	c->nodes = 0;
}

/* Removes the findings [from, to) of c's list. */
static void drop_findings(struct fm_ctx *c, size_t from, size_t to)
{
	struct sfs_diag_list *l = c->diags;

	memmove(l->v + from, l->v + to, (l->n - to) * sizeof(*l->v));
	l->n -= to - from;
}

/*
 * After libyaml refused a ": " inside a plain value (the findings from
 * `before` on are that parse's): the text with each string field's such
 * value quoted (frontmatter_repair.c), parsed in its place.  When that
 * reads, the refusal gives way to a warning at each value quoted, and the
 * official SEP-2640 client, which reads the text as written, is told
 * apart.  Otherwise the first parse's findings stand.  0, -1 or -ENOMEM.
 */
static int parse_repaired(struct fm_ctx *c, size_t before)
{
	const char *quoted[SFS_FM_REPAIR_MAX];
	const char *yaml = c->yaml;
	size_t yaml_len = c->yaml_len, refused = c->diags->n;
	struct sfs_fm_unreadable sep = c->fm->sep;
	char *text;
	size_t len;
	int n = sfs_frontmatter_repair(yaml, yaml_len, &text, &len, quoted), r;

	if (n <= 0)
		return n < 0 ? n : -1;
	forget_parse(c);
	c->yaml = text;
	c->yaml_len = len;
	r = parse_yaml(c);
	c->yaml = yaml;
	c->yaml_len = yaml_len;
	free(text);
	if (r < 0) {
		forget_parse(c);
		c->fm->sep = sep;
		drop_findings(c, refused, c->diags->n);
		return r == -ENOMEM ? r : -1;
	}
	drop_findings(c, before, refused);
	for (int i = 0; i < n && r == 0; i++) {
		const struct sfs_fm_pos *p = sfs_frontmatter_pos(c->fm, quoted[i]);
		unsigned line = p ? p->value_line : c->first_line;
		unsigned column = p ? p->value_column : 1;
		if (i == 0 && (!c->fm->sep.what || c->fm->sep.line > line))
			c->fm->sep = (struct sfs_fm_unreadable){
				line, column, "a plain value holding \": \"",
				"quote the value",
			};
		if (sfs_diag_add(c->diags, SFS_WARNING, c->file, line, column,
		                 quoted[i], "the value holds \": \" unquoted, "
		                 "which YAML reads as a nested mapping and "
		                 "strict loaders (Codex, the skills installer) "
		                 "refuse; read as one string: quote it") < 0)
			r = -ENOMEM;
	}
	return r;
}

int sfs_frontmatter_parse(const char *text, size_t len, const char *file,
                          struct sfs_arena *arena, struct sfs_diag_list *diags,
                          struct sfs_frontmatter *fm)
{
	struct fm_ctx c = {
		.file = file, .arena = arena, .diags = diags, .fm = fm,
	};
	int r;

	memset(fm, 0, sizeof(*fm));
	r = find_fences(&c, text, len);
	if (r == 0 && c.yaml_len > SFS_FM_MAX_BYTES)
		r = refuse(&c, 1, 1, "",
		           "frontmatter is %zu bytes; the limit is %d",
		           c.yaml_len, SFS_FM_MAX_BYTES);
	if (r == 0)
		r = check_bytes(&c);
	if (r == 0) {
		size_t before = diags->n;
		sfs_sep_fences(&fm->sep, c.open, c.open_len, c.dots_line != 0,
		               c.dots_line);
		r = parse_yaml(&c);
		if (r == -1 && c.mapping_values)
			r = parse_repaired(&c, before);
	}
	if (r < 0) {
		size_t body_offset = fm->body_offset;
		unsigned body_line = fm->body_line;
		sfs_frontmatter_free(fm);
		fm->body_offset = body_offset;
		fm->body_line = body_line;
	}
	return r;
}

void sfs_frontmatter_free(struct sfs_frontmatter *fm)
{
	cJSON_Delete(fm->json);
	free(fm->pos);
	memset(fm, 0, sizeof(*fm));
}

const struct sfs_fm_pos *sfs_frontmatter_pos(const struct sfs_frontmatter *fm,
                                             const char *key)
{
	for (size_t i = 0; i < fm->npos; i++)
		if (strcmp(fm->pos[i].key, key) == 0)
			return &fm->pos[i];
	return NULL;
}
