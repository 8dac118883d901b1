/*
 * test_frontmatter.c - the SKILL.md frontmatter parser: fences, BOM, CRLF,
 * YAML 1.2 core scalars, key order, positions, and hostile input.
 */
#include <stdlib.h>
#include <string.h>

#include "fm_check.h"
#include "internal.h"

struct parsed {
	struct sfs_arena arena;
	struct sfs_diag_list diags;
	struct sfs_frontmatter fm;
	int r;
};

static void parse_n(struct parsed *p, const char *text, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->diags.arena = &p->arena;
	p->r = sfs_frontmatter_parse(text, len, "/s/x/SKILL.md", &p->arena,
	                          &p->diags, &p->fm);
}

static void parse(struct parsed *p, const char *text)
{
	parse_n(p, text, strlen(text));
}

static void done(struct parsed *p)
{
	sfs_frontmatter_free(&p->fm);
	sfs_diag_list_free(&p->diags);
	sfs_arena_free(&p->arena);
}

/* The parse was refused with exactly one error, at line, whose message
 * contains words. */
static void refused(struct parsed *p, unsigned line, const char *words,
                    const char *what)
{
	const struct sfs_diag *d = p->diags.n ? &p->diags.v[0] : NULL;

	ok(p->r == -1 && p->fm.json == NULL, "%s: refused", what);
	if (!ok(p->diags.n == 1 && d->severity == SFS_ERROR &&
	        strstr(d->message, words), "%s: one error saying '%s'",
	        what, words) && d)
		printf("#   got %zu: \"%s\"\n", p->diags.n, d->message);
	if (d) {
		if (!ok(d->line == line, "%s: at line %u", what, line))
			printf("#   got line %u\n", d->line);
		is_str(d->file, "/s/x/SKILL.md", "diagnostic names the file");
	}
}

static const cJSON *get(const struct parsed *p, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(p->fm.json, key);
}

static char *repeat(const char *head, const char *unit, size_t n,
                    const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = xmalloc(hl + ul * n + tl + 1), *o = s;

	memcpy(o, head, hl);
	o += hl;
	for (size_t i = 0; i < n; i++, o += ul)
		memcpy(o, unit, ul);
	memcpy(o, tail, tl + 1);
	return s;
}

/* ---- good input ------------------------------------------------------ */

static void test_minimal(void)
{
	struct parsed p;
	const char *text = "---\nname: a\ndescription: b\n---\n# Body\n";

	parse(&p, text);
	is_int(p.r, 0, "minimal: parsed");
	is_int(p.diags.n, 0, "minimal: no findings");
	is_str(cJSON_GetStringValue(get(&p, "name")), "a", "minimal: name");
	is_int(p.fm.body_offset, strlen("---\nname: a\ndescription: b\n---\n"),
	       "minimal: body offset after the closing fence");
	is_str(text + p.fm.body_offset, "# Body\n", "minimal: body text");
	is_int(p.fm.body_line, 5, "minimal: body line");
	done(&p);
}

static void test_bom_crlf(void)
{
	struct parsed p;
	const char *text = "\xEF\xBB\xBF---\r\nname: a\r\n"
	                "description: two words\r\n---\r\nBody\r\n";

	parse(&p, text);
	is_int(p.r, 0, "BOM+CRLF: parsed");
	is_str(cJSON_GetStringValue(get(&p, "name")), "a",
	       "BOM+CRLF: no \\r in values");
	is_str(cJSON_GetStringValue(get(&p, "description")), "two words",
	       "BOM+CRLF: description");
	is_str(text + p.fm.body_offset, "Body\r\n", "BOM+CRLF: body offset");
	is_int(p.fm.body_line, 5, "BOM+CRLF: body line");
	const struct sfs_fm_pos *pos = sfs_frontmatter_pos(&p.fm, "name");
	ok(pos && pos->line == 2 && pos->column == 1,
	   "BOM+CRLF: name at 2:1");
	done(&p);
}

static void test_fence_variants(void)
{
	struct parsed p;

	parse(&p, "---  \nname: a\n...\nbody");
	is_int(p.r, 0, "'...' closes, blanks after the opening fence");
	is_int(p.fm.body_line, 4, "'...': body line");
	done(&p);

	parse(&p, "---\nname: a\n---");
	is_int(p.r, 0, "closing fence at end of file");
	is_int(p.fm.body_offset, strlen("---\nname: a\n---"),
	       "closing fence at end of file: body offset is the length");
	done(&p);

	parse(&p, "---\ndescription: |\n  ---x\n  ok\nname: a\n---\n");
	is_int(p.r, 0, "an indented '---' inside a block scalar");
	is_str(cJSON_GetStringValue(get(&p, "description")), "---x\nok\n",
	       "block scalar keeps its text");
	done(&p);
}

/* The frontmatter printed as JSON is want: each key's type and value at
 * once, and no key more. */
static void expect_json(const struct parsed *p, const char *want,
                        const char *what)
{
	char *got = cJSON_PrintUnformatted(p->fm.json);

	is_str(got, want, what);
	free(got);
}

static void test_block_and_quoted(void)
{
	struct parsed p;

	parse(&p, "---\n"
	          "lit: |-\n  line one\n  line two\n"
	          "fold: >\n  folded\n  text\n"
	          "q: \"a: b\"\n"
	          "sq: 'it''s: here'\n"
	          "plain: a:b\n"
	          "utf: café ☕ 日本\n"
	          "---\n");
	is_int(p.r, 0, "block and quoted scalars parse");
	/* |- keeps lines and strips the final newline, > folds lines,
	 * ': ' stays in quoted strings, plain a:b is a string, non-ASCII
	 * bytes are kept verbatim */
	expect_json(&p, "{\"lit\":\"line one\\nline two\","
	            "\"fold\":\"folded text\\n\","
	            "\"q\":\"a: b\",\"sq\":\"it's: here\","
	            "\"plain\":\"a:b\",\"utf\":\"café ☕ 日本\"}",
	            "block and quoted scalars: their strings");
	done(&p);
}

/* Each plain or quoted scalar as the YAML 1.2 core schema reads it:
 * yes/no/on stay strings, .inf/.nan and an overflowing number too. */
static void test_core_schema(void)
{
	struct parsed p;

	parse(&p, "---\n"
	          "t1: true\nt2: True\nt3: TRUE\nf1: false\nf2: FALSE\n"
	          "y: yes\nn: no\non: on\n"
	          "z1: null\nz2: ~\nz3:\nz4: Null\n"
	          "i1: 42\ni2: -7\ni3: +3\ni4: 012\nh: 0x1F\no: 0o17\n"
	          "d1: 1.5\nd2: -.5\nd3: 1e3\nd4: 1.0\nd5: 6.02E+23\n"
	          "inf: .inf\nnan: .nan\nhuge: 1e999\n"
	          "qi: '42'\nqb: \"true\"\nqn: \"null\"\n"
	          "v: 1.2.3\nbad: 1.2e\nstr: !!str 42\nx: 0x\n"
	          "---\n");
	is_int(p.r, 0, "core schema: parsed");
	expect_json(&p, "{\"t1\":true,\"t2\":true,\"t3\":true,\"f1\":false,"
	            "\"f2\":false,"
	            "\"y\":\"yes\",\"n\":\"no\",\"on\":\"on\","
	            "\"z1\":null,\"z2\":null,\"z3\":null,\"z4\":null,"
	            "\"i1\":42,\"i2\":-7,\"i3\":3,\"i4\":12,\"h\":31,\"o\":15,"
	            "\"d1\":1.5,\"d2\":-0.5,\"d3\":1000,\"d4\":1,"
	            "\"d5\":6.02e+23,"
	            "\"inf\":\".inf\",\"nan\":\".nan\",\"huge\":\"1e999\","
	            "\"qi\":\"42\",\"qb\":\"true\",\"qn\":\"null\","
	            "\"v\":\"1.2.3\",\"bad\":\"1.2e\",\"str\":\"42\",\"x\":\"0x\"}",
	            "core schema: each scalar's type and value");
	done(&p);
}

static void test_order_and_nesting(void)
{
	struct parsed p;
	const char *want[] = { "zeta", "alpha", "mid", "list", "map" };
	const cJSON *item;
	int i = 0;
	char *json;

	parse(&p, "---\nzeta: 1\nalpha: 2\nmid: 3\n"
	          "list: [a, 'b', 3]\nmap:\n  k: v\n  inner: {x: [1, {y: z}]}\n"
	          "---\n");
	is_int(p.r, 0, "order: parsed");
	cJSON_ArrayForEach(item, p.fm.json) {
		if (i < 5)
			is_str(item->string, want[i], "authored key order");
		i++;
	}
	is_int(i, 5, "five top-level keys");
	json = cJSON_PrintUnformatted(p.fm.json);
	is_str(json, "{\"zeta\":1,\"alpha\":2,\"mid\":3,"
	       "\"list\":[\"a\",\"b\",3],"
	       "\"map\":{\"k\":\"v\",\"inner\":{\"x\":[1,{\"y\":\"z\"}]}}}",
	       "nested JSON");
	free(json);
	done(&p);
}

static void expect_pos(const struct parsed *p, const char *key,
                       unsigned line, unsigned col, unsigned vline,
                       unsigned vcol)
{
	const struct sfs_fm_pos *pos = sfs_frontmatter_pos(&p->fm, key);

	if (!ok(pos && pos->line == line && pos->column == col &&
	        pos->value_line == vline && pos->value_column == vcol,
	        "position of %s: %u:%u value %u:%u", key, line, col, vline,
	        vcol) && pos)
		printf("#   got %u:%u value %u:%u\n", pos->line, pos->column,
		       pos->value_line, pos->value_column);
}

static void test_positions(void)
{
	struct parsed p;

	parse(&p, "---\n"
	          "name:   spaced\n"                 /* 2 */
	          "description: >-\n"                /* 3 */
	          "  folded\n"                       /* 4 */
	          "x-personal-mcp:\n"                /* 5 */
	          "  tags:\n"                        /* 6 */
	          "    - one\n"                      /* 7 */
	          "    - two\n"                      /* 8 */
	          "  references:\n"                  /* 9 */
	          "    ref-a:\n"                     /* 10 */
	          "      path: references/a.md\n"    /* 11 */
	          "é: [p, q]\n"                      /* 12 */
	          "---\n");
	is_int(p.r, 0, "positions: parsed");
	expect_pos(&p, "name", 2, 1, 2, 9);
	expect_pos(&p, "description", 3, 1, 3, 14);
	expect_pos(&p, "x-personal-mcp", 5, 1, 6, 3);
	expect_pos(&p, "x-personal-mcp.tags", 6, 3, 7, 5);
	expect_pos(&p, "x-personal-mcp.tags.0", 7, 7, 7, 7);
	expect_pos(&p, "x-personal-mcp.tags.1", 8, 7, 8, 7);
	expect_pos(&p, "x-personal-mcp.references.ref-a.path", 11, 7, 11, 13);
	expect_pos(&p, "é.1", 12, 8, 12, 8);
	ok(sfs_frontmatter_pos(&p.fm, "absent") == NULL, "absent key: NULL");
	ok(sfs_frontmatter_pos(&p.fm, "x-personal-mcp.tags.2") == NULL,
	   "absent item: NULL");
	done(&p);
}

/* Parses text and expects it refused (see refused()). */
static void refuses(const char *text, unsigned line, const char *words,
                    const char *what)
{
	struct parsed p;

	parse(&p, text);
	refused(&p, line, words, what);
	done(&p);
}

/* As refuses(), and the error is at column (unless 0) and names field
 * (unless NULL). */
static void refuses_at(const char *text, unsigned line, unsigned column,
                       const char *field, const char *words, const char *what)
{
	const struct sfs_diag *d;
	char label[128];
	struct parsed p;

	parse(&p, text);
	refused(&p, line, words, what);
	d = p.diags.n ? &p.diags.v[0] : NULL;
	snprintf(label, sizeof(label), "%s: column", what);
	if (column)
		is_int(d ? d->column : 0, column, label);
	snprintf(label, sizeof(label), "%s: field", what);
	if (field)
		is_str(d ? d->field : NULL, field, label);
	done(&p);
}

/* ---- refusals -------------------------------------------------------- */

static void test_fences_refused(void)
{
	struct parsed p;

	parse_n(&p, "", 0);
	refused(&p, 1, "no frontmatter", "empty file");
	done(&p);
	refuses("# Title\n\nname: a\n", 1, "no frontmatter",
	        "no opening fence");
	refuses("\n---\nname: a\n---\n", 1, "no frontmatter",
	        "blank line before the fence");
	refuses("---", 1, "no closing", "only an opening fence");
	refuses("---\nname: a\ndescription: b\n\n# Body\n", 1, "no closing",
	        "no closing fence");
	refuses("---\n---\n", 2, "empty", "empty frontmatter");
	refuses("---\n# only a comment\n---\n", 2, "empty",
	        "comment-only frontmatter");
}

static void test_not_mapping(void)
{
	refuses("---\n- a\n- b\n---\n", 2, "not a list", "a list document");
	refuses("---\njust some text\n---\n", 2, "not a single value",
	        "a scalar document");
	refuses("---\nname: a\n--- second\n---\n", 3,
	        "more than one YAML document", "two documents");
}

static void test_syntax_errors(void)
{
	struct parsed p;

	parse(&p, "---\nname: a\ndescription: [b, c\nlicense: x\n---\n");
	ok(p.r == -1 && p.diags.n == 1 &&
	   strstr(p.diags.v[0].message, "invalid YAML"),
	   "unclosed flow list: invalid YAML");
	ok(p.diags.n == 1 && p.diags.v[0].line >= 3 && p.diags.v[0].line <= 6,
	   "unclosed flow list: line within the frontmatter (got %u)",
	   p.diags.n ? p.diags.v[0].line : 0);
	done(&p);

	/* a field that is no string by the format is not read as one */
	refuses_at("---\nname: a\ndescription: b\nversion: 1: 2\n---\n", 4, 11,
	           NULL, "invalid YAML", "': ' in a plain version");
	refuses_at("---\nname: a\ndescription: b\nmetadata:\n  k: v: w\n---\n",
	           5, 7, NULL, "invalid YAML", "': ' in a nested plain value");

	refuses("---\nname: a\n\tdescription: b\n---\n", 3, "invalid YAML",
	        "a tab indenting a key");

	refuses_at("---\nname: a\nname: b\n---\n", 3, 0, "name",
	           "duplicate key \"name\"", "duplicate top-level key");

	refuses_at("---\nmetadata:\n  a: 1\n  b: 2\n  a: 3\n---\n", 5, 0,
	           "metadata.a", "duplicate key", "duplicate nested key");

	refuses("---\n? [a, b]\n: c\n---\n", 2, "not a list",
	        "a list as a key");

	refuses("---\n{a: 1}: x\n---\n", 2, "not a mapping",
	        "a mapping as a key");
}

/* Whether s is whole UTF-8 (continuation bytes where expected). */
static bool whole_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 0 : *p >= 0xF0 ? 3 : *p >= 0xE0 ? 2 : 1;
		p++;
		for (; n > 0; n--, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

/* The value of a string field, quoted on its line, then parsed: one
 * warning naming the field at the value, and the text as one string. */
static void quoted_as(const char *text, const char *field, unsigned line,
                      unsigned column, const char *want, const char *what)
{
	struct parsed p;
	const struct sfs_diag *d;
	char label[128];

	parse(&p, text);
	d = p.diags.n ? &p.diags.v[0] : NULL;
	ok(p.r == 0, "%s: parsed", what);
	if (!ok(p.diags.n == 1 && d->severity == SFS_WARNING &&
	        strstr(d->message, "read as one string"),
	        "%s: one warning", what) && d)
		printf("#   got %zu: \"%s\"\n", p.diags.n, d->message);
	if (d) {
		snprintf(label, sizeof(label), "%s: the field", what);
		is_str(d->field, field, label);
		snprintf(label, sizeof(label), "%s: at its line", what);
		is_int(d->line, line, label);
		snprintf(label, sizeof(label), "%s: at its value", what);
		is_int(d->column, column, label);
	}
	snprintf(label, sizeof(label), "%s: the value", what);
	is_str(cJSON_GetStringValue(get(&p, field)), want, label);
	ok(p.fm.sep.what != NULL, "%s: the SEP-2640 client's reader told apart",
	   what);
	done(&p);
}

/* A string field's plain value holding ": " (the commonest reason a
 * published skill fails to load) is read as the string it was meant as;
 * nothing else is guessed. */
static void test_colon_in_string_fields(void)
{
	struct parsed p;

	quoted_as("---\nname: a\ndescription: Use when: asked\n---\n",
	          "description", 3, 14, "Use when: asked", "one line");
	quoted_as("---\r\nname: a\r\ndescription: Triggers on: a, b\r\n---\r\n",
	          "description", 3, 14, "Triggers on: a, b", "CRLF");
	quoted_as("---\nname: a\ndescription:\n  Pairs with the skill: grill first,\n"
	          "  then build.\n\n  Second: paragraph\nlicense: MIT\n---\n",
	          "description", 3, 14,
	          "Pairs with the skill: grill first, then build.\nSecond: paragraph",
	          "folded lines");
	quoted_as("---\nname: a\ndescription: say \"hi\": a \\ b\n---\n",
	          "description", 3, 14, "say \"hi\": a \\ b", "quotes and backslashes");
	quoted_as("---\nname: a\ndescription: Ends with a colon:\nx: 1\n---\n",
	          "description", 3, 14, "Ends with a colon:", "a colon at the end");

	/* later keys keep their lines: the folded lines stay, empty */
	parse(&p, "---\nname: a\ndescription:\n  b: c\n  d\nlicense: MIT\n---\n");
	is_int(p.r, 0, "folded: parsed");
	const struct sfs_fm_pos *pos = sfs_frontmatter_pos(&p.fm, "license");
	is_int(pos ? pos->line : 0, 6, "folded: the next key's line");
	done(&p);

	/* a comment, a quoted value, a duplicate: refused as written */
	refuses("---\nname: a\ndescription: b # note: c\nx: y: z\n---\n", 4,
	        "invalid YAML", "a value with a comment");
	refuses("---\nname: a\ndescription: \"b\": c\n---\n", 3,
	        "invalid YAML", "a quoted value with more after it");
	refuses("---\nname: a\ndescription: b: c\ndescription: d: e\n---\n", 3,
	        "invalid YAML", "the field twice");
	/* a value that no quoting makes readable keeps the first refusal */
	refuses("---\nname: a\ndescription: b: c\nlicense: [\n---\n", 3,
	        "invalid YAML", "another error after it");
}

static void test_long_names_cut(void)
{
	struct parsed p;
	char *key = repeat("a", "é", 40, ""), text[512];

	snprintf(text, sizeof(text), "---\n%s: 1\n%s: 2\n---\n", key, key);
	parse(&p, text);
	refused(&p, 3, "duplicate key", "duplicate long non-ASCII key");
	ok(p.diags.n && whole_utf8(p.diags.v[0].message) &&
	   strlen(p.diags.v[0].message) < 100,
	   "a long key is cut on a character boundary");
	done(&p);
	free(key);
}

static void test_aliases(void)
{
	struct parsed p;
	const char *lol =
		"---\n"
		"a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
		"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
		"i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
		"---\n";

	refuses_at(lol, 2, 0, "a", "anchors (&a) are not allowed",
	           "billion laughs");

	refuses_at("---\nname: a\ndescription: *undefined\n---\n", 3, 0,
	           "description", "aliases (*undefined) are not allowed",
	           "an alias");

	refuses("---\nbase: &base {x: 1}\nother:\n  <<: *base\n---\n", 2,
	        "anchors", "a merge key's anchor");

	refuses("---\n&root\nname: a\n---\n", 2, "anchors",
	        "an anchored document");

	/* libyaml counts LS, PS, NEL and a lone CR as line breaks; SKILL.md
	 * lines end at "\n" only */
	parse(&p, "---\nname: a\ndescription: \"x\xe2\x80\xa8y\xc2\x85z\r!\"\n"
	          "x: *alias\n---\n");
	refused(&p, 4, "aliases (*alias)", "an alias after odd line breaks");
	ok(p.diags.n && p.diags.v[0].column == 4, "odd line breaks: column 4");
	done(&p);
}

static void test_size_limits(void)
{
	struct parsed p;
	char *text;
	size_t big = 10 * 1024 * 1024;

	/* 10 MB: "k: " then a very long value. */
	text = repeat("---\nk: ", "x", big, "\n---\nbody\n");
	refuses(text, 1, "the limit is 65536", "10 MB frontmatter");
	free(text);

	text = repeat("---\nk: ", "x", big, "\n");
	refuses(text, 1, "no closing '---' line within 65536 bytes",
	        "10 MB without a closing fence");
	free(text);

	/* Just over and just under 64 KiB. */
	text = repeat("---\nk: ", "y", SFS_FM_MAX_BYTES - 4 + 1, "\n---\n");
	refuses(text, 1, "is 65537 bytes", "one byte over the limit");
	free(text);
	text = repeat("---\nk: ", "y", SFS_FM_MAX_BYTES - 4, "\n---\n");
	parse(&p, text);
	is_int(p.r, 0, "exactly at the limit parses");
	done(&p);
	free(text);
}

static char *nested(size_t levels)
{
	/* levels collections: the top mapping, then "a:" mappings. */
	size_t cap = 16 + levels * (2 * levels + 8), o = 0;
	char *s = xmalloc(cap);

	o += (size_t)snprintf(s, cap, "---\n");
	for (size_t i = 1; i < levels; i++)
		o += (size_t)snprintf(s + o, cap - o, "%*sa:\n",
		                      (int)(2 * (i - 1)), "");
	snprintf(s + o, cap - o, "%*sleaf: 1\n---\n", (int)(2 * (levels - 1)),
	         "");
	return s;
}

static void test_depth_and_nodes(void)
{
	struct parsed p;
	char *text;

	text = repeat("---\nk: ", "[", 10000, "");
	char *both = repeat(text, "]", 10000, "\n---\n");
	refuses(both, 2, "nested more than 32 levels", "10,000-deep nesting");
	free(text);
	free(both);

	text = repeat("---\nk: ", "{a: ", 10000, "1");
	both = repeat(text, "}", 10000, "\n---\n");
	refuses(both, 2, "nested more than 32 levels", "deep flow mappings");
	free(text);
	free(both);

	text = nested(SFS_FM_MAX_DEPTH);
	parse(&p, text);
	is_int(p.r, 0, "32 levels of block mappings parse");
	ok(sfs_frontmatter_pos(&p.fm, "a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a."
	                           "a.a.a.a.a.a.a.a.a.a.a.a.leaf") != NULL,
	   "deepest key has a position");
	done(&p);
	free(text);
	text = nested(SFS_FM_MAX_DEPTH + 1);
	refuses(text, 34, "nested more than 32 levels",
	        "33 levels of mappings");
	free(text);

	text = repeat("---\nk: [", "1,", SFS_FM_MAX_NODES, "1]\n---\n");
	refuses(text, 2, "more than 20000 values", "too many nodes");
	free(text);

	text = repeat("---\nk: [", "1,", SFS_FM_MAX_NODES - 10, "1]\n---\n");
	parse(&p, text);
	is_int(p.r, 0, "just under the node limit parses");
	is_int(cJSON_GetArraySize(get(&p, "k")), SFS_FM_MAX_NODES - 9,
	       "all items kept");
	done(&p);
	free(text);
}

static void test_bytes(void)
{
	struct parsed p;
	const char nul[] = "---\nname: a\ndescription: b\0c\n---\n";

	parse_n(&p, nul, sizeof(nul) - 1);
	refused(&p, 3, "NUL byte", "a NUL byte");
	is_int(p.diags.v[0].column, 15, "NUL byte: column");
	done(&p);

	refuses("---\nname: a\ndescription: \x01\x02\x03\n---\n", 3,
	        "control byte 0x01", "binary bytes");

	refuses("---\nname: a\n\x7f" "ELF\x02\x01\n---\n", 3,
	        "control byte 0x7F", "an ELF header");

	refuses_at("---\nname: a\ndescription: caf\xC3\x28\n---\n", 3, 17, NULL,
	           "not valid UTF-8 (byte 0xC3)", "invalid UTF-8");

	refuses("---\nname: \xC0\xAF\n---\n", 2, "not valid UTF-8",
	        "overlong UTF-8");

	refuses("---\nname: \xED\xA0\x80\n---\n", 2, "not valid UTF-8",
	        "a UTF-16 surrogate");

	refuses("---\nname: \xF4\x90\x80\x80\n---\n", 2, "not valid UTF-8",
	        "past U+10FFFF");

	refuses("---\nname: \xE2\x82\n---\n", 2, "not valid UTF-8",
	        "truncated sequence");

	/* The body may hold anything: only the frontmatter is checked. */
	const char body[] = "---\nname: a\n---\n\x01\0\xff";
	parse_n(&p, body, sizeof(body) - 1);
	is_int(p.r, 0, "binary bytes in the body are not the parser's business");
	done(&p);
}

int main(void)
{
	test_minimal();
	test_bom_crlf();
	test_fence_variants();
	test_block_and_quoted();
	test_core_schema();
	test_order_and_nesting();
	test_positions();
	test_fences_refused();
	test_not_mapping();
	test_syntax_errors();
	test_colon_in_string_fields();
	test_long_names_cut();
	test_aliases();
	test_size_limits();
	test_depth_and_nodes();
	test_bytes();
	return tap_done();
}
