/*
 * test_validate.c - the frontmatter contract and the body checks: one
 * fixture per rule, each asserting the severity, field and position of
 * the finding it must produce (and that a good fixture produces none).
 *
 * Usage: test_validate [SKILLS_DIR]; with SKILLS_DIR (tests/skills), the
 * example skills shipped with the project are checked too.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fm_check.h"
#include "internal.h"

#define FILE_NAME "/skills/demo/SKILL.md"

/* name at line 2, description at line 3: extra lines start at line 4. */
#define BASE "name: demo\ndescription: Does a thing. Use when testing.\n"
/* With BASE: x-personal-mcp at 4, id 5, version 6, capabilities 7. */
#define XPM "x-personal-mcp:\n  id: demo\n  version: 1.0.0\n"
#define CAPS "  capabilities: [resource://skills/demo/document]\n"

struct run {
	struct sfs_arena arena;
	struct sfs_diag_list diags;
	struct sfs_frontmatter fm;
	struct sfs_meta meta;
	int r;
};

static void run_text(struct run *v, const char *text, const char *dir)
{
	memset(v, 0, sizeof(*v));
	v->diags.arena = &v->arena;
	v->r = sfs_frontmatter_parse(text, strlen(text), FILE_NAME, &v->arena,
	                             &v->diags, &v->fm);
	if (v->r == 0)
		v->r = sfs_validate_frontmatter(&v->fm, FILE_NAME, dir,
		                                &v->arena, &v->diags, &v->meta);
}

static void run(struct run *v, const char *yaml, const char *dir)
{
	char *text = xmalloc(strlen(yaml) + 16);

	sprintf(text, "---\n%s---\n", yaml);
	run_text(v, text, dir);
	free(text);
}

static void done(struct run *v)
{
	sfs_frontmatter_free(&v->fm);
	sfs_diag_list_free(&v->diags);
	sfs_arena_free(&v->arena);
}

static void print_diags(const struct run *v)
{
	for (size_t i = 0; i < v->diags.n; i++) {
		const struct sfs_diag *d = &v->diags.v[i];
		printf("#   %u:%u: %s: %s: %s\n", d->line, d->column,
		       d->severity == SFS_ERROR ? "error" : "warning",
		       d->field, d->message);
	}
}

static const char *sev_name(enum sfs_severity s)
{
	return s == SFS_ERROR ? "error" : "warning";
}

/* Exactly one finding, of this severity, field and position, whose
 * message contains words. */
static bool is_unlisted(const struct sfs_diag *d)
{
	return strstr(d->message, "left out of skills/list") != NULL;
}

/* The findings but the one that says the skill is left out of
 * skills/list (test_listable checks that one). */
static size_t findings(const struct run *v, const struct sfs_diag **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < v->diags.n; i++) {
		if (is_unlisted(&v->diags.v[i]))
			continue;
		if (!n++)
			*first = &v->diags.v[i];
	}
	return n;
}

static void expect_one(const struct run *v, enum sfs_severity sev,
                       const char *field, unsigned line, unsigned column,
                       const char *words, const char *what)
{
	const struct sfs_diag *d;
	if (findings(v, &d) != 1)
		d = NULL;
	bool good = v->r == 0 && d && d->severity == sev &&
	            strcmp(d->field, field) == 0 && d->line == line &&
	            d->column == column && strstr(d->message, words) &&
	            strcmp(d->file, FILE_NAME) == 0;

	if (!ok(good, "%s: one %s on %s at %u:%u: %s", what, sev_name(sev),
	        field, line, column, words))
		print_diags(v);
}

/* Some finding of this severity and field, on this line. */
static void expect_has(const struct run *v, enum sfs_severity sev,
                       const char *field, unsigned line, const char *words,
                       const char *what)
{
	bool found = false;

	for (size_t i = 0; i < v->diags.n; i++) {
		const struct sfs_diag *d = &v->diags.v[i];
		found |= d->severity == sev && strcmp(d->field, field) == 0 &&
		         d->line == line && strstr(d->message, words);
	}
	if (!ok(found, "%s: %s on %s at line %u: %s", what, sev_name(sev),
	        field, line, words))
		print_diags(v);
}

static void expect_clean(const struct run *v, const char *what)
{
	const struct sfs_diag *d;
	if (!ok(v->r == 0 && findings(v, &d) == 0, "%s: no findings", what))
		print_diags(v);
}

/* ---- the id rule ----------------------------------------------------- */

static void test_valid_id(void)
{
	static const char *good[] = { "a", "pdf", "pdf-forms", "a1", "1a",
		"x-y-z", "0", NULL };
	static const char *bad[] = { "", "-a", "a-", "a--b", "A", "pdf_forms",
		"pdf.forms", "pdf forms", "café", "a/b", NULL };
	char len64[65], len65[66];

	for (const char **s = good; *s; s++)
		ok(sfs_valid_id(*s), "valid id \"%s\"", *s);
	for (const char **s = bad; *s; s++)
		ok(!sfs_valid_id(*s), "invalid id \"%s\"", *s);
	ok(!sfs_valid_id(NULL), "NULL is no id");
	memset(len64, 'a', 64);
	len64[64] = '\0';
	memset(len65, 'a', 65);
	len65[65] = '\0';
	ok(sfs_valid_id(len64), "64 characters are fine");
	ok(!sfs_valid_id(len65), "65 characters are not");
}

/* ---- good fixtures --------------------------------------------------- */

static void test_minimal_meta(void)
{
	struct run v;

	run(&v, BASE, "demo");
	expect_clean(&v, "minimal skill");
	is_str(v.meta.name, "demo", "meta.name");
	is_str(v.meta.description, "Does a thing. Use when testing.",
	       "meta.description");
	ok(v.meta.version == NULL, "no version without x-personal-mcp");
	is_int(v.meta.ntags, 0, "no tags");
	is_int(v.meta.ncapabilities, 1, "one derived capability");
	if (v.meta.ncapabilities)
		is_str(v.meta.capabilities[0],
		       "resource://skills/demo/document", "derived capability");
	is_int(v.meta.ndepends_on, 0, "no depends_on");
	is_int(v.meta.nrefs, 0, "no references");
	ok(v.meta.model_invocable && v.meta.user_invocable,
	   "invocable by model and user by default");
	done(&v);
}

static void test_full_meta(void)
{
	struct run v;

	run(&v, BASE
	    "license: MIT\n"
	    "compatibility: Needs python3\n"
	    "metadata:\n  author: me\n  version: \"1.0\"\n"
	    "allowed-tools: Bash(git:*) Read\n"
	    "disallowed-tools: [Write, Edit]\n"
	    "when_to_use: When testing.\n"
	    "argument-hint: [file]\n"
	    "arguments: [file, mode]\n"
	    "disable-model-invocation: true\n"
	    "user-invocable: false\n"
	    "model: sonnet\neffort: high\ncontext: fork\nagent: Explore\n"
	    "hooks:\n  PreToolUse: []\n"
	    "paths: [\"src/**\"]\n"
	    "shell: bash\n"
	    "version: 1.0\n"
	    "license-file: ~\n"
	    "x-personal-mcp:\n"
	    "  id: demo\n"
	    "  version: 2.1.0-rc.1+build.5\n"
	    "  tags: [pdf, forms-2]\n"
	    "  capabilities:\n"
	    "    - resource://skills/demo/document\n"
	    "    - resource://skills/demo/references/b\n"
	    "  depends_on: [other, third-one]\n"
	    "  extra: ignored\n"
	    "  references:\n"
	    "    zeta:\n"
	    "      path: ./references//z.MD\n"
	    "      title: Zeta\n"
	    "    alpha:\n"
	    "      path: references/nested/a.md\n"
	    "      mime_type: text/plain\n"
	    "      title: ~\n", "demo");
	/* license-file is the one unknown key. */
	expect_one(&v, SFS_WARNING, "license-file", 25, 1,
	           "unknown key \"license-file\"", "full skill");
	is_str(v.meta.version, "2.1.0-rc.1+build.5", "meta.version");
	ok(v.meta.ntags == 2 && strcmp(v.meta.tags[1], "forms-2") == 0,
	   "meta.tags");
	ok(v.meta.ncapabilities == 2 &&
	   strcmp(v.meta.capabilities[1],
	          "resource://skills/demo/references/b") == 0,
	   "meta.capabilities as authored");
	ok(v.meta.ndepends_on == 2 &&
	   strcmp(v.meta.depends_on[0], "other") == 0, "meta.depends_on");
	ok(!v.meta.model_invocable, "disable-model-invocation: true");
	ok(!v.meta.user_invocable, "user-invocable: false");
	if (ok(v.meta.nrefs == 2, "two references")) {
		const struct sfs_ref *a = &v.meta.refs[0], *z = &v.meta.refs[1];
		is_str(a->id, "alpha", "references sorted by id");
		is_str(a->path, "references/nested/a.md", "nested path");
		is_str(a->mime_type, "text/plain", "mime_type as given");
		ok(a->title == NULL, "null title is no title");
		is_str(z->id, "zeta", "second reference");
		is_str(z->path, "references/z.MD", "path normalized");
		is_str(z->mime_type, "text/markdown", "default mime_type");
		is_str(z->title, "Zeta", "title");
	}
	done(&v);
}

static void test_nulls_are_absent(void)
{
	struct run v;

	run(&v, BASE "license:\ncompatibility: ~\nmetadata:\nhooks: null\n"
	    "user-invocable:\n", "demo");
	expect_clean(&v, "empty optional fields");
	ok(v.meta.user_invocable, "empty user-invocable keeps the default");
	done(&v);
}

/* ---- name and description -------------------------------------------- */

static void test_name(void)
{
	static const struct {
		const char *name, *words;
	} bad[] = {
		{ "PDF-Forms", "uppercase" },
		{ "-pdf", "starts or ends with '-'" },
		{ "pdf-", "starts or ends with '-'" },
		{ "pdf--forms", "doubled '-'" },
		{ "pdf_forms", "only a-z, 0-9 and '-'" },
		{ "\"pdf forms\"", "only a-z, 0-9 and '-'" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaa", "longer than 64" },
	};
	char yaml[256];
	struct run v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *n = bad[i].name;
		char dir[128];
		snprintf(yaml, sizeof(yaml), "name: %s\ndescription: d\n", n);
		/* The folder has the same (unquoted) name, so that the id
		 * rule is the only finding. */
		snprintf(dir, sizeof(dir), "%.*s",
		         (int)strlen(n) - (n[0] == '"') * 2, n + (n[0] == '"'));
		run(&v, yaml, dir);
		expect_one(&v, SFS_ERROR, "name", 2, 7, bad[i].words, n);
		done(&v);
	}

	/* Without a usable name the folder's name is the id: a warning,
	 * and a client would refuse its skills/list entry. */
	run(&v, "description: d\n", "demo");
	expect_has(&v, SFS_WARNING, "name", 1,
	           "required field is missing; the folder name is the skill id",
	           "no name");
	expect_has(&v, SFS_WARNING, "name", 1,
	           "left out of skills/list (SEP-2640)", "no name");
	is_int(sfs_diag_count(&v.diags, SFS_ERROR), 0, "no name: no error");
	is_str(v.meta.name, "demo", "no name: the folder's name is the id");
	is_int(v.meta.ncapabilities, 1, "no name: the derived capability");
	is_int(v.meta.nunlisted, 1, "no name: one reason to leave it out");
	done(&v);

	run(&v, "description: d\n", "Demo Skill");
	expect_one(&v, SFS_ERROR, "name", 1, 1,
	           "missing; the folder name is no valid skill id either",
	           "no name, folder no id");
	ok(v.meta.name == NULL, "no name, folder no id: no id");
	is_int(v.meta.ncapabilities, 0, "no name, folder no id: no "
	       "derived capability");
	done(&v);

	run(&v, "name: 42\ndescription: d\n", "42");
	expect_has(&v, SFS_WARNING, "name", 2, "must be a string, not a number",
	           "numeric name");
	is_str(v.meta.name, "42", "numeric name: the folder's name is the id");
	done(&v);

	run(&v, "name: \"\"\ndescription: d\n", "demo");
	expect_has(&v, SFS_WARNING, "name", 2, "it is empty", "empty name");
	is_str(v.meta.name, "demo", "empty name: the folder's name is the id");
	done(&v);

	run(&v, "name:\ndescription: d\n", "demo");
	expect_has(&v, SFS_WARNING, "name", 2, "not empty", "null name");
	done(&v);

	run(&v, "name: Ahrefs Automation\ndescription: d\n",
	    "ahrefs-automation");
	expect_has(&v, SFS_WARNING, "name", 2, "\"Ahrefs Automation\" is not "
	           "a valid skill id: it has uppercase letters", "display name");
	expect_has(&v, SFS_WARNING, "name", 2, "left out of skills/list",
	           "display name");
	is_int(sfs_diag_count(&v.diags, SFS_ERROR), 0, "display name: no "
	       "error");
	is_str(v.meta.name, "ahrefs-automation",
	       "display name: the folder's name is the id");
	done(&v);

	/* A valid name that is not the folder's is the id, and listable. */
	run(&v, BASE, "other");
	expect_one(&v, SFS_WARNING, "name", 2, 7,
	           "\"demo\" does not match the folder name \"other\"",
	           "name differs from the folder");
	is_str(v.meta.name, "demo", "name differs: the name is the id");
	is_int(v.meta.nunlisted, 0, "name differs: listable");
	done(&v);

	run(&v, "name: claude-helper\ndescription: d\n", "claude-helper");
	expect_one(&v, SFS_WARNING, "name", 2, 7, "reserved word 'claude'",
	           "reserved word claude");
	done(&v);

	run(&v, "name: my-anthropic-tool\ndescription: d\n",
	    "my-anthropic-tool");
	expect_one(&v, SFS_WARNING, "name", 2, 7, "reserved word 'anthropic'",
	           "reserved word anthropic");
	done(&v);
}

static char *long_description(size_t chars, const char *unit)
{
	size_t ul = strlen(unit);
	char *s = xmalloc(64 + chars * ul), *o = s;

	o += sprintf(o, "name: demo\ndescription: ");
	for (size_t i = 0; i < chars; i++, o += ul)
		memcpy(o, unit, ul);
	strcpy(o, "\n");
	return s;
}

static void test_description(void)
{
	struct run v;
	char *yaml;

	run(&v, "name: demo\n", "demo");
	expect_one(&v, SFS_ERROR, "description", 1, 1,
	           "required field is missing: what the skill", "no description");
	done(&v);

	run(&v, "name: demo\ndescription: \"  \"\n", "demo");
	expect_one(&v, SFS_WARNING, "description", 3, 14, "must not be empty: what the skill",
	           "blank description");
	done(&v);

	run(&v, "name: demo\ndescription:\n  - a\n", "demo");
	expect_one(&v, SFS_ERROR, "description", 4, 3,
	           "must be a string, not a list", "list description");
	done(&v);

	yaml = long_description(1024, "é");
	run(&v, yaml, "demo");
	expect_clean(&v, "1024 two-byte characters");
	done(&v);
	free(yaml);

	yaml = long_description(1025, "a");
	run(&v, yaml, "demo");
	expect_one(&v, SFS_WARNING, "description", 3, 14,
	           "is 1025 characters; the limit is 1024",
	           "1025 characters");
	done(&v);
	free(yaml);

	static const char *tags[] = {
		"Use <example> here.", "Bold </b> end", "Line <br/> break",
		"Has <a href=\"x\"> link", "Generic List<String> type",
		"A <<heredoc>>?",
	};
	static const char *not_tags[] = {
		"When x < y and y > z.", "Files <5 MB.", "Arrows <- and ->.",
		"Compare a<b, c>d", "Less than < at end <",
	};
	char buf[256];
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		snprintf(buf, sizeof(buf), "name: demo\ndescription: '%s'\n",
		         tags[i]);
		run(&v, buf, "demo");
		expect_one(&v, SFS_WARNING, "description", 3, 14, "XML tag",
		           tags[i]);
		done(&v);
	}
	for (size_t i = 0; i < sizeof(not_tags) / sizeof(not_tags[0]); i++) {
		snprintf(buf, sizeof(buf), "name: demo\ndescription: '%s'\n",
		         not_tags[i]);
		run(&v, buf, "demo");
		expect_clean(&v, not_tags[i]);
		done(&v);
	}
}

/* ---- optional fields: one warning each ------------------------------- */

/* A top-level key's value that breaks it: a warning at the value, on
 * line 4 (after BASE). */
static const struct top_level_value {
	const char *key, *value, *words;
} bad_top_level[] = {
	{ "license", "3", "should be a string, not a number" },
	{ "compatibility", "''", "is empty" },
	{ "compatibility", "[a]", "should be a string, not a list" },
	{ "metadata", "[a]", "mapping of strings to strings, not a list" },
	{ "allowed-tools", "{Read: true}", "string or a list of strings, not a mapping" },
	{ "allowed-tools", "[Read, 3]", "string or a list of strings" },
	{ "disallowed-tools", "5", "string or a list of strings" },
	{ "when_to_use", "[a]", "should be a string" },
	{ "argument-hint", "{a: 1}", "string or a list of strings" },
	{ "arguments", "1", "string or a list of strings" },
	{ "disable-model-invocation", "yes", "should be true or false, not a string" },
	{ "user-invocable", "1", "should be true or false, not a number" },
	{ "model", "4", "should be a string" },
	{ "effort", "[high]", "should be a string" },
	{ "context", "{}", "should be a string" },
	{ "agent", "true", "should be a string, not a boolean" },
	{ "shell", "[bash]", "should be a string" },
	{ "hooks", "[a]", "should be a mapping, not a list" },
	{ "paths", "3", "string or a list of strings" },
};

static const struct rule {
	const char *yaml;           /* after BASE; starts at line 4 */
	enum sfs_severity sev;
	const char *field;
	unsigned line, column;
	const char *words;
} optional_rules[] = {
	{ "metadata:\n  author: me\n  version: 1.0\n", SFS_WARNING,
	  "metadata.version", 6, 12, "should be a string, not a number (quote it)" },
	{ "metadata:\n  nested: {a: b}\n", SFS_WARNING, "metadata.nested", 5,
	  11, "not a mapping" },
	{ "foo: bar\n", SFS_WARNING, "foo", 4, 1, "unknown key \"foo\"" },
	{ "  # comment\nName: x\n", SFS_WARNING, "Name", 5, 1,
	  "unknown key \"Name\"" },
	/* x-personal-mcp: every break is an error */
	{ "x-personal-mcp: 3\n", SFS_ERROR, "x-personal-mcp", 4, 17,
	  "must be a mapping, not a number" },
	{ "x-personal-mcp:\n", SFS_ERROR, "x-personal-mcp", 4, 16,
	  "must be a mapping, not empty" },
	{ "x-personal-mcp:\n  version: 1.0.0\n" CAPS, SFS_ERROR,
	  "x-personal-mcp.id", 4, 1, "is missing; it must equal the skill id" },
	{ "x-personal-mcp:\n  id: other\n  version: 1.0.0\n"
	  "  capabilities: [resource://skills/other/document]\n", SFS_ERROR,
	  "x-personal-mcp.id", 5, 7,
	  "\"other\" does not match the skill id \"demo\"" },
	{ "x-personal-mcp:\n  id: Demo\n  version: 1.0.0\n"
	  "  capabilities: [resource://skills/Demo/document]\n", SFS_ERROR,
	  "x-personal-mcp.id", 5, 7, "not a valid skill id: it has uppercase" },
	{ "x-personal-mcp:\n  id: [demo]\n  version: 1.0.0\n" CAPS, SFS_ERROR,
	  "x-personal-mcp.id", 5, 7, "must be a string, not a list" },
	{ "x-personal-mcp:\n  id: demo\n" CAPS, SFS_ERROR,
	  "x-personal-mcp.version", 4, 1, "is missing; give a semantic version" },
	{ XPM CAPS "  tags: pdf\n", SFS_ERROR, "x-personal-mcp.tags", 8, 9,
	  "must be a list of kebab-case tags, not a string" },
	{ XPM CAPS "  tags: [pdf, Bad_Tag]\n", SFS_ERROR,
	  "x-personal-mcp.tags.1", 8, 15, "\"Bad_Tag\" is not lowercase "
	  "kebab-case" },
	{ XPM CAPS "  tags: [pdf, 3]\n", SFS_ERROR, "x-personal-mcp.tags.1", 8,
	  15, "must be a string, not a number" },
	{ XPM, SFS_ERROR, "x-personal-mcp.capabilities", 4, 1,
	  "is missing; list at least \"resource://skills/demo/document\"" },
	{ XPM "  capabilities: []\n", SFS_ERROR, "x-personal-mcp.capabilities",
	  7, 17, "not an empty list" },
	{ XPM "  capabilities: resource://skills/demo/document\n", SFS_ERROR,
	  "x-personal-mcp.capabilities", 7, 17, "not a string" },
	{ XPM "  capabilities: [resource://skills/demo/references/a]\n",
	  SFS_ERROR, "x-personal-mcp.capabilities", 7, 17,
	  "must include \"resource://skills/demo/document\"" },
	{ XPM "  capabilities:\n    - resource://skills/demo/document\n"
	  "    - {uri: x}\n", SFS_ERROR, "x-personal-mcp.capabilities.1", 9, 7,
	  "must be a string, not a mapping" },
	{ XPM CAPS "  depends_on: other\n", SFS_ERROR,
	  "x-personal-mcp.depends_on", 8, 15, "must be a list of skill ids" },
	{ XPM CAPS "  depends_on: [ok-one, -bad]\n", SFS_ERROR,
	  "x-personal-mcp.depends_on.1", 8, 24, "\"-bad\"" },
	{ XPM CAPS "  references: [references/a.md]\n", SFS_ERROR,
	  "x-personal-mcp.references", 8, 15, "must be a mapping of reference "
	  "ids" },
	{ XPM CAPS "  references:\n    Bad_Ref:\n      path: references/a.md\n",
	  SFS_ERROR, "x-personal-mcp.references.Bad_Ref", 9, 5,
	  "reference id \"Bad_Ref\" is not lowercase kebab-case" },
	{ XPM CAPS "  references:\n    a: references/a.md\n", SFS_ERROR,
	  "x-personal-mcp.references.a", 9, 8,
	  "must be a mapping with path" },
	{ XPM CAPS "  references:\n    a:\n      title: A\n", SFS_ERROR,
	  "x-personal-mcp.references.a.path", 9, 5, "reference \"a\" needs a path" },
	{ XPM CAPS "  references:\n    a:\n      path: references/a.md\n"
	  "      mime_type: [text/markdown]\n", SFS_ERROR,
	  "x-personal-mcp.references.a.mime_type", 11, 18,
	  "must be a string, not a list" },
	{ XPM CAPS "  references:\n    a:\n      path: references/a.md\n"
	  "      title: 7\n", SFS_ERROR, "x-personal-mcp.references.a.title",
	  11, 14, "must be a string, not a number" },
};

/* BASE then text: one finding, as expect_one() says. */
static void expect_one_after_base(const char *text, enum sfs_severity sev,
                                  const char *field, unsigned line,
                                  unsigned column, const char *words,
                                  const char *what)
{
	char yaml[1024];
	struct run v;

	snprintf(yaml, sizeof(yaml), BASE "%s", text);
	run(&v, yaml, "demo");
	expect_one(&v, sev, field, line, column, words, what);
	done(&v);
}

static void test_rules(void)
{
	char text[256], what[64];

	for (size_t i = 0; i < sizeof(bad_top_level) /
	                       sizeof(bad_top_level[0]); i++) {
		const struct top_level_value *t = &bad_top_level[i];

		snprintf(text, sizeof(text), "%s: %s\n", t->key, t->value);
		snprintf(what, sizeof(what), "%s: %s", t->key, t->value);
		expect_one_after_base(text, SFS_WARNING, t->key, 4,
		                      (unsigned)strlen(t->key) + 3, t->words,
		                      what);
	}
	for (size_t i = 0; i < sizeof(optional_rules) /
	                       sizeof(optional_rules[0]); i++) {
		const struct rule *r = &optional_rules[i];

		snprintf(what, sizeof(what), "rule %zu (%s)", i, r->field);
		expect_one_after_base(r->yaml, r->sev, r->field, r->line,
		                      r->column, r->words, what);
	}
}

/* ---- one field's bad values: one error each, at the value ----------- */

struct bad_value {
	const char *value, *words;
};

static const struct bad_value bad_versions[] = {
	{ "1.0", "not the number 1" },
	{ "\"1.0\"", "\"1.0\" is not a semantic version" },
	{ "01.2.3", "not a semantic version" },
	{ "1.2.3-", "not a semantic version" },
	{ "v1.2.3", "not a semantic version" },
	{ "1.2.3.4", "not a semantic version" },
	{ "1.0.0-rc.1+", "not a semantic version" },
	{ "1.0.0+b_5", "not a semantic version" },
};

static const struct bad_value bad_reference_paths[] = {
	{ "[x]", "must be a string" },
	{ "/etc/passwd.md", "must be relative" },
	{ "references/../../x.md", "must not contain '..'" },
	{ "docs/a.md", "must be under references/" },
	{ "references.md", "must be under references/" },
	{ "references/a.txt", "ending in .md" },
	{ "references/.md", "ending in .md" },
};

/* Each value stands between before and after (after BASE) as field, whose
 * value starts at line:column. */
static void expect_bad_values(const char *before, const char *after,
                              const struct bad_value *values, size_t n,
                              const char *field, unsigned line,
                              unsigned column)
{
	char text[512], what[128];

	for (size_t i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "%s%s%s", before, values[i].value,
		         after);
		snprintf(what, sizeof(what), "%s: %s", field, values[i].value);
		expect_one_after_base(text, SFS_ERROR, field, line, column,
		                      values[i].words, what);
	}
}

static void test_bad_values(void)
{
	expect_bad_values("x-personal-mcp:\n  id: demo\n  version: ",
	                  "\n" CAPS, bad_versions,
	                  sizeof(bad_versions) / sizeof(bad_versions[0]),
	                  "x-personal-mcp.version", 6, 12);
	expect_bad_values(XPM CAPS "  references:\n    a:\n      path: ", "\n",
	                  bad_reference_paths,
	                  sizeof(bad_reference_paths) /
	                  sizeof(bad_reference_paths[0]),
	                  "x-personal-mcp.references.a.path", 10, 13);
}

static void test_compatibility_length(void)
{
	char yaml[1200];
	struct run v;
	int n = snprintf(yaml, sizeof(yaml), BASE "compatibility: ");

	memset(yaml + n, 'c', 501);
	strcpy(yaml + n + 501, "\n");
	run(&v, yaml, "demo");
	expect_one(&v, SFS_WARNING, "compatibility", 4, 16,
	           "is 501 characters; the limit is 500",
	           "501-character compatibility");
	done(&v);
	strcpy(yaml + n + 500, "\n");
	run(&v, yaml, "demo");
	expect_clean(&v, "500-character compatibility");
	done(&v);
}

/* Each rule of the official SDK client's SkillsClient that a served
 * skill breaks is a reason to leave it out of skills/list, with one
 * warning that names them all. */
static void test_listable(void)
{
	static const struct {
		const char *yaml, *dir, *reason;
	} cases[] = {
		{ "description: d\n", "demo", "no string name" },
		{ "name: [a]\ndescription: d\n", "demo", "no string name" },
		{ "name: My Skill\ndescription: d\n", "demo",
		  "\"My Skill\" is not 1-64" },
		{ "name: demo\ndescription: \"\"\n", "demo",
		  "description is 0 characters" },
		{ BASE "compatibility:\n", "demo", "compatibility is not" },
		{ BASE "compatibility: 12\n", "demo", "compatibility is not" },
		{ BASE "metadata: {a: 1}\n", "demo", "metadata is not" },
		{ BASE "metadata:\n", "demo", "metadata is not" },
		{ BASE "__proto__: x\n", "demo", "\"__proto__\" key" },
	};
	struct run v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run(&v, cases[i].yaml, cases[i].dir);
		bool one = v.meta.nunlisted == 1 &&
		           strstr(v.meta.unlisted[0], cases[i].reason);
		size_t warned = 0;
		for (size_t k = 0; k < v.diags.n; k++)
			warned += is_unlisted(&v.diags.v[k]) &&
			          v.diags.v[k].severity == SFS_WARNING &&
			          strstr(v.diags.v[k].message, cases[i].reason);
		if (!ok(one && warned == 1, "unlisted: %s", cases[i].reason))
			print_diags(&v);
		done(&v);
	}

	char *yaml = long_description(1025, "\xf0\x9f\x98\x80");
	run(&v, yaml, "demo");
	ok(v.meta.nunlisted == 1 && strstr(v.meta.unlisted[0],
	   "description is 1025 characters, not 1-1024"),
	   "unlisted: 1025 code points of 4 bytes");
	done(&v);
	free(yaml);
	yaml = long_description(1024, "\xf0\x9f\x98\x80");
	run(&v, yaml, "demo");
	is_int(v.meta.nunlisted, 0, "listed: 1024 code points of 4 bytes");
	done(&v);
	free(yaml);

	run(&v, BASE "compatibility: ok\nmetadata: {a: \"1\"}\n", "other");
	is_int(v.meta.nunlisted, 0, "listed: a valid name unlike its folder");
	done(&v);

	run(&v, "name: My Skill\ndescription: \"\"\nmetadata: [1]\n", "demo");
	is_int(v.meta.nunlisted, 3, "three reasons at once");
	done(&v);
}

/* A frontmatter that the official SEP-2640 client's own YAML reader
 * cannot read to the JSON index.json lists (shared/sep_readable.c): one
 * reason, and one warning at the construct that says how to write it. */
static void test_client_readable(void)
{
	static const struct {
		const char *text;
		unsigned line, column;
		const char *what, *fix;
	} cases[] = {
		{ "---\n" BASE "license: \"MIT\n  or not\"\n---\n", 4, 10,
		  "quoted value over several lines", "on one line" },
		{ "---\n" BASE "license: !!str MIT\n---\n", 4, 10,
		  "YAML tag", "remove the tag" },
		{ "---\n" BASE "allowed-tools: [Read,\n  Write]\n---\n", 4, 16,
		  "over several lines", "on one line" },
		{ "---\n" BASE "allowed-tools: [a: b]\n---\n", 4, 17,
		  "key: value pair inside a [ ] list", "{ key: value }" },
		{ "---\n" BASE "license: |2\n    MIT\n---\n", 4, 10,
		  "indentation indicator", "drop the digit" },
		{ "---\n" BASE "license: MIT\n \tmore\n---\n", 5, 2,
		  "tab in the indentation", "indent with spaces" },
		{ "---\n" BASE "license: \"a\\0b\"\n---\n", 4, 10,
		  "NUL character", "remove it" },
		{ "---\n" BASE "hooks:\n  __proto__: x\n---\n", 5, 3,
		  "\"__proto__\" key", "rename the key" },
		{ "---\n" BASE "1: x\n---\n", 4, 1,
		  "key that YAML reads as a number", "quote the key" },
		{ "---\n" BASE "? license\n: MIT\n---\n", 4, 3,
		  "complex key", "key: value on one line" },
		{ "---\n" BASE "\"license\" : MIT\n---\n", 4, 1,
		  "not followed by ':'", "key: value on one line" },
		{ "---\n" BASE "version: .inf\n---\n", 4, 10,
		  "infinity or NaN", "quote the value" },
		{ "---\n" BASE "version: 1e400\n---\n", 4, 10,
		  "too large for JSON", "quote the value" },
		{ "---\n" BASE "version: 0x20000000000001\n---\n", 4, 10,
		  "more digits than index.json keeps", "quote the value" },
		{ "---\n" BASE "version: 0x1FFFFFFFFFFFFFFFFF\n---\n", 4, 10,
		  "too large for 64 bits", "quote the value" },
		{ "---\n" BASE "license: {a: }\n---\n", 4, 14,
		  "empty value in a flow collection", "write null" },
		{ "---\n" BASE "license: [-, a]\n---\n", 4, 11,
		  "starts with '-', '?' or ':'", "quote the value" },
		{ "---\n" BASE "allowed-tools:\n  - ?x\n---\n", 5, 5,
		  "complex key", "quote the value" },
		{ "---\n" BASE "allowed-tools:\n\xEF\xBB\xBF  - Read\n---\n", 5, 1,
		  "byte order mark", "remove it" },
		{ "---\n" BASE "license: a\r  b\n---\n", 4, 11,
		  "carriage return", "\\r\\n" },
		{ "---\n" BASE "license: a\xC2\x85  b\n---\n", 4, 11,
		  "NEL", "\\r\\n" },
		{ "---\n" BASE "license: a\xE2\x80\xA8  b\n---\n", 4, 11,
		  "U+2028 or U+2029", "quote the value" },
		{ "---\n{name: demo, description: d}\n---\n", 2, 1,
		  "one { } mapping", "one key: value a line" },
		{ "---  \n" BASE "---\n", 1, 4,
		  "blanks after the opening", "right after '---'" },
		{ "---\n" BASE "...\n", 4, 1,
		  "closed by '...'", "'---' line" },
	};
	static const char *const readable[] = {
		"---\n" BASE "license: 'MIT'\n---\n",
		"---\r\n" BASE "license: |\r\n  MIT\r\n  \tcode\r\n---\r\n",
		"---\n" BASE "allowed-tools: [Read, {a: b}, \"c d\"]\n---\n",
		"---\n" BASE "version: 12345678901234567890\n---\n",
		"---\n" BASE "license: ?x\nwhen_to_use: yes\n---\n",
		"---\n" BASE "license: \"a\xE2\x80\xA8" "b\"\n---\n",
		"\xEF\xBB\xBF---\n" BASE "license: a\xEF\xBB\xBF" "b\n---\n",
	};
	struct run v;
	char what[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "unreadable %zu (%s)", i,
		         cases[i].what);
		run_text(&v, cases[i].text, "demo");
		bool one = v.meta.nunlisted == 1 &&
		           strstr(v.meta.unlisted[0], "the official SEP-2640 "
		                  "client cannot read") &&
		           strstr(v.meta.unlisted[0], cases[i].what);
		const struct sfs_diag *d = NULL;
		size_t warned = 0;
		for (size_t k = 0; k < v.diags.n; k++)
			if (strstr(v.diags.v[k].message, cases[i].fix) &&
			    strstr(v.diags.v[k].message, cases[i].what)) {
				d = &v.diags.v[k];
				warned++;
			}
		if (!ok(one && warned == 1 && d->severity == SFS_WARNING &&
		        d->line == cases[i].line &&
		        d->column == cases[i].column, "%s", what)) {
			print_diags(&v);
			for (size_t k = 0; k < v.meta.nunlisted; k++)
				printf("#   unlisted: %s\n", v.meta.unlisted[k]);
		}
		done(&v);
	}
	for (size_t i = 0; i < sizeof(readable) / sizeof(readable[0]); i++) {
		run_text(&v, readable[i], "demo");
		if (!ok(v.r == 0 && v.meta.nunlisted == 0, "readable %zu", i))
			for (size_t k = 0; k < v.meta.nunlisted; k++)
				printf("#   unlisted: %s\n", v.meta.unlisted[k]);
		done(&v);
	}
}

static void test_several_findings(void)
{
	struct run v;

	/* Findings of one skill come together, each with its own place. */
	run(&v, "name: Bad--Name\ndescription: <b>x</b>\nfoo: 1\n"
	    "x-personal-mcp: {id: bad, version: x}\n", "other");
	expect_has(&v, SFS_WARNING, "name", 2, "uppercase", "several");
	expect_has(&v, SFS_WARNING, "name", 2, "left out of skills/list",
	           "several");
	expect_has(&v, SFS_WARNING, "description", 3, "XML tag \"<b>\"",
	           "several");
	expect_has(&v, SFS_WARNING, "foo", 4, "unknown key", "several");
	expect_has(&v, SFS_ERROR, "x-personal-mcp.id", 5, "does not match "
	           "the skill id \"other\"", "several");
	expect_has(&v, SFS_ERROR, "x-personal-mcp.version", 5,
	           "\"x\" is not a semantic version", "several");
	expect_has(&v, SFS_ERROR, "x-personal-mcp.capabilities", 5,
	           "is missing; list at least", "several");
	is_int(v.diags.n, 7, "several: exactly seven findings");
	done(&v);

	/* A long value is cut in the message. */
	run(&v, "name: demo\ndescription: d\nx-personal-mcp:\n  id: demo\n"
	    "  version: \"1.0.0-this is a very long and broken version string "
	    "that goes on and on\"\n" CAPS, "demo");
	ok(v.diags.n == 1 && strstr(v.diags.v[0].message, "...\"") &&
	   strlen(v.diags.v[0].message) < 160, "long values are cut");
	done(&v);
}

/* ---- the body -------------------------------------------------------- */

struct body_run {
	struct sfs_arena arena;
	struct sfs_diag_list diags;
	int r;
	char asked[16][128];
	int nasked;
};

static const char *const skill_files[] = {
	"SKILL.md", "references/guide.md", "scripts/run.sh",
	"assets/My File.png", "docs", "docs/a b.md", NULL,
};

static bool fake_exists(const char *path, const char **actual, void *arg)
{
	struct body_run *b = arg;

	if (b->nasked < 16)
		snprintf(b->asked[b->nasked++], 128, "%s", path);
	*actual = NULL;
	for (const char *const *f = skill_files; *f; f++) {
		if (strcmp(*f, path) == 0)
			return true;
		if (strcasecmp(*f, path) == 0)
			*actual = *f;
	}
	return false;
}

static void body(struct body_run *b, const char *text)
{
	memset(b, 0, sizeof(*b));
	b->diags.arena = &b->arena;
	b->r = sfs_validate_body(text, strlen(text), 10, FILE_NAME,
	                         fake_exists, b, &b->diags);
}

static void body_done(struct body_run *b)
{
	sfs_diag_list_free(&b->diags);
	sfs_arena_free(&b->arena);
}

static void expect_body(const struct body_run *b, size_t n, size_t i,
                        unsigned line, unsigned column, const char *words,
                        const char *what)
{
	const struct sfs_diag *d = i < b->diags.n ? &b->diags.v[i] : NULL;

	if (!ok(b->r == 0 && b->diags.n == n && d &&
	        d->severity == SFS_WARNING && d->line == line &&
	        d->column == column && strcmp(d->field, "body") == 0 &&
	        strstr(d->message, words), "%s: warning %zu at %u:%u: %s",
	        what, i, line, column, words)) {
		for (size_t k = 0; k < b->diags.n; k++)
			printf("#   %u:%u: %s\n", b->diags.v[k].line,
			       b->diags.v[k].column, b->diags.v[k].message);
	}
}

static void test_body_links(void)
{
	struct body_run b;

	body(&b, "# Title\n\n"
	         "See [the guide](references/guide.md) and "
	         "[run](./scripts/run.sh \"title\").\n"
	         "![img](assets/My%20File.png) [a](<docs/a b.md>)\n"
	         "[web](https://example.com/x.md) [mail](mailto:a@b) "
	         "[top](#usage) [abs](/etc/passwd) [net](//host/x)\n"
	         "[frag](references/guide.md#part) [q](scripts/run.sh?x=1)\n"
	         "[up](references/../docs) [dir](docs/)\n"
	         "[^1]: a footnote, not a link\n"
	         "[def]: references/guide.md \"Guide\"\n");
	if (!ok(b.r == 0 && b.diags.n == 0, "links to existing files"))
		for (size_t k = 0; k < b.diags.n; k++)
			printf("#   %u:%u: %s\n", b.diags.v[k].line,
			       b.diags.v[k].column, b.diags.v[k].message);
	ok(b.nasked == 9, "exists() asked for each relative target (%d)",
	   b.nasked);
	is_str(b.asked[1], "scripts/run.sh", "./ dropped");
	is_str(b.asked[2], "assets/My File.png", "percent-decoded");
	is_str(b.asked[3], "docs/a b.md", "<...> target");
	is_str(b.asked[4], "references/guide.md", "fragment cut");
	is_str(b.asked[5], "scripts/run.sh", "query cut");
	is_str(b.asked[6], "docs", ".. applied");
	is_str(b.asked[7], "docs", "trailing slash dropped");
	body_done(&b);

	body(&b, "Intro\n\n"
	         "Read [this](references/missing.md) first.\n");
	expect_body(&b, 1, 0, 12, 6,
	            "links to \"references/missing.md\", which does not exist",
	            "missing file");
	body_done(&b);

	body(&b, "x\n  ![logo](assets/my%20file.png) é [g](References/Guide.md)"
	         "\n");
	expect_body(&b, 2, 0, 11, 3, "\"assets/my%20file.png\", which exists "
	            "only as \"assets/My File.png\" (letter case differs)",
	            "case differs (image)");
	expect_body(&b, 2, 1, 11, 35, "\"References/Guide.md\", which exists "
	            "only as \"references/guide.md\" (letter case differs)",
	            "case differs, column in characters");
	body_done(&b);

	body(&b, "[![badge](assets/none.svg)](references/nope.md)\n");
	expect_body(&b, 2, 0, 10, 2, "assets/none.svg", "image inside a link");
	expect_body(&b, 2, 1, 10, 1, "references/nope.md", "the outer link");
	body_done(&b);

	body(&b, "[ref]: scripts/gone.sh\n");
	expect_body(&b, 1, 0, 10, 1, "scripts/gone.sh", "reference definition");
	body_done(&b);

	body(&b, "[a](../outside.md) [b](http://x) [c]( ) [d] (nope.md)\n"
	         "[e](broken\n[f](has space.md) [g](x.md 'unclosed)\n");
	ok(b.diags.n == 0 && b.nasked == 0,
	   "outside, URL, empty and not-a-link targets are not checked");
	body_done(&b);
}

static void test_body_code(void)
{
	struct body_run b;

	body(&b, "```\n[x](missing-1.md)\n```\n"
	         "~~~~ markdown\n[x](missing-2.md)\n~~~\nstill code\n~~~~\n"
	         "   ```python\n    [x](missing-3.md)\n   ```\n"
	         "Use `[x](missing-4.md)` or ``a ` [x](missing-5.md)`` here.\n"
	         "\\[not](missing-6.md)\n"
	         "after [x](missing-7.md)\n");
	expect_body(&b, 1, 0, 23, 7, "missing-7.md",
	            "links in code blocks and spans are ignored");
	body_done(&b);

	body(&b, "```\nunclosed fence\n[x](missing.md)\n");
	ok(b.diags.n == 0, "an unclosed fence runs to the end");
	body_done(&b);
}

static void test_body_length(void)
{
	struct body_run b;
	char *text = xmalloc(600 * 3 + 1), *o = text;

	for (int i = 0; i < 500; i++)
		o += sprintf(o, "x\n");
	body(&b, text);
	ok(b.diags.n == 0, "500 lines are fine");
	body_done(&b);
	sprintf(o, "y");
	body(&b, text);
	expect_body(&b, 1, 0, 510, 1, "the body is 501 lines",
	            "501 lines (the last without a newline)");
	body_done(&b);
	free(text);

	body(&b, "");
	ok(b.diags.n == 0, "an empty body is fine");
	body_done(&b);
}

/*
 * The body's findings as "line:column target" entries, one space apart,
 * the target as the message quotes it: compact enough to pin every
 * finding of an input in one string.
 */
static const char *body_findings(const struct body_run *b, char *out,
                                 size_t size)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t k = 0; k < b->diags.n && o < size; k++) {
		const struct sfs_diag *d = &b->diags.v[k];
		const char *t = strstr(d->message, "links to ");
		const char *e = t ? strstr(t, ", which") : NULL;
		int n = t && e ? (int)(e - t - 9) : 0;
		o += (size_t)snprintf(out + o, size - o, "%s%u:%u %.*s",
		                      k ? " " : "", d->line, d->column, n,
		                      t ? t + 9 : "");
	}
	return out;
}

/* The body of text with an explicit length (it may hold a NUL). */
static void body_n(struct body_run *b, const char *text, size_t len)
{
	memset(b, 0, sizeof(*b));
	b->diags.arena = &b->arena;
	b->r = sfs_validate_body(text, len, 10, FILE_NAME, fake_exists, b,
	                         &b->diags);
}

/*
 * Where the scanner finds links and where it must not: code spans and
 * fences, escapes, reference definitions, <...> targets, titles, the
 * end of the buffer without a newline, CRLF, NUL bytes.  Each input's
 * findings are pinned exactly (lines start at 10).
 */
/* A string literal and its length, NUL bytes included. */
#define WITH_NUL(s) s, sizeof(s) - 1

static void test_body_scan(void)
{
	static const struct {
		const char *text;
		size_t len;             /* 0: strlen(text) */
		const char *want;
		const char *what;
	} cases[] = {
		{ "[x](m1.md)", 0, "10:1 \"m1.md\"",
		  "a link at the end without a newline" },
		{ "a\nb [x](m2.md", 0, "",
		  "an unclosed link at the end without a newline" },
		{ "text [", 0, "", "a '[' as the last byte" },
		{ "a\r\n[x](m3.md)\r\n[d]: m4.md\r\n b [y](m5.md \"t\")\r\n",
		  0, "11:1 \"m3.md\" 12:1 \"m4.md\" 13:4 \"m5.md\"", "CRLF lines" },
		{ "x \\\\[a](m6.md) \\[b](m7.md) \\", 0, "10:5 \"m6.md\"",
		  "escaped backslash, escaped '[', backslash at the end" },
		{ "\\![a](m8.md) !![b](m9.md)\n", 0,
		  "10:2 \"m8.md\" 10:15 \"m9.md\"", "escaped and doubled '!'" },
		{ "`a` [x](m10.md) ``b`` ``c ` [y](in.md)`` [z](m11.md)\n", 0,
		  "10:5 \"m10.md\" 10:42 \"m11.md\"", "links after code spans" },
		{ "``unclosed [x](m12.md) `x` [y](m13.md) ```[z](m13a.md)\n",
		  0, "10:12 \"m12.md\" 10:28 \"m13.md\" 10:43 \"m13a.md\"",
		  "unmatched backtick runs are literal" },
		{ "`a\n[x](m14.md)` [y](in.md)`\n", 0, "11:1 \"m14.md\"",
		  "code spans end at the line" },
		{ "`[` [x](m15.md) [a `]` b](m16.md)\n", 0,
		  "10:5 \"m15.md\" 10:17 \"m16.md\"",
		  "brackets inside code spans" },
		{ "[text][ref] [t2][] [t3]\n[ref]: m17.md\n"
		  "   [r2]: <m 18.md> \"T\"\n    [r3]: in.md\n[^n]: in.md\n"
		  "[r4]:\tm19.md\n[r5]: <m20.md\n[r6]:\n", 0,
		  "11:1 \"m17.md\" 12:4 \"m 18.md\" 15:1 \"m19.md\"",
		  "reference-style links and definitions" },
		{ "x [r]: in.md\n[a]:m21.md\n[[r]]: m22.md\n[b][c]: in.md\n", 0,
		  "11:1 \"m21.md\" 12:1 \"m22.md\"",
		  "definitions only at the line start" },
		{ "[a](<m 22b.md>) [b](<m23.md> 't') [c](<m24.md\n", 0,
		  "10:1 \"m 22b.md\" 10:17 \"m23.md\"", "<...> targets" },
		{ "[a](m25.md \"t\") [b](m26.md 't') [c](m27.md (t)) "
		  "[d](m28.md \"open) [e](  m29.md  )\n", 0,
		  "10:1 \"m25.md\" 10:17 \"m26.md\" 10:33 \"m27.md\" "
		  "10:67 \"m29.md\"", "titles and blanks" },
		{ "[a](m(30).md) [b](m\\)31.md) [c](m(32.md)\n", 0,
		  "10:1 \"m(30).md\" 10:15 \"m\\\\)31.md\"",
		  "parentheses and escapes in targets" },
		{ "[a [b] c](m33.md) [[x]](m34.md) ]] [y](m35.md)\n", 0,
		  "10:1 \"m33.md\" 10:19 \"m34.md\" 10:36 \"m35.md\"",
		  "nested brackets" },
		{ "[[[[[[[[[[[[[[[[[[x](m36.md) [y](m37.md)\n", 0,
		  "10:16 \"m36.md\" 10:30 \"m37.md\"", "more than 16 '['" },
		{ "[a]\n(in.md)\n](in.md)\n[b]\t(in.md)\n", 0, "",
		  "no link across lines or without '['" },
		{ "[a\n```\n[x](in.md) [\n```\n[y](m38.md)\n", 0,
		  "14:1 \"m38.md\"", "'[' before and inside a fence" },
		{ "````\n```\n[x](in.md)\n````\n[y](m39.md)\n~~~\n```\n"
		  "[z](in.md)\n~~~ \r\n[w](m40.md)", 0,
		  "14:1 \"m39.md\" 19:1 \"m40.md\"",
		  "a fence closes only on its own kind and length" },
		{ "```\n``` x\n[a](in.md)\n```\n[b](m41.md)\n", 0,
		  "14:1 \"m41.md\"", "a fence line with text does not close" },
		{ WITH_NUL("a\0[x](m42.md)\n[y](m\0z.md) [z](m43\0.md)\n"),
		  "10:3 \"m42.md\"", "NUL bytes in the body and in targets" },
		{ "\xc3\xa9 \xc3\xbc [x](m44.md)\n", 0, "10:5 \"m44.md\"",
		  "columns count characters" },
		{ "\n\n\n[x](m45.md)\n\n", 0, "13:1 \"m45.md\"",
		  "empty lines" },
		{ "A long line of plain words that goes on for a while before "
		  "`a code span` and an escaped \\[bracket] and then a link "
		  "[x](m46.md) near its end, then more words.\nA second line "
		  "without any link at all but with a stray ] and `code`.\n"
		  "```\nfenced [x](in.md)\n```", 0, "10:116 \"m46.md\"",
		  "a link far into a long line" },
	};
	char got[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct body_run b;
		size_t len = cases[i].len ? cases[i].len :
		                            strlen(cases[i].text);
		body_n(&b, cases[i].text, len);
		body_findings(&b, got, sizeof(got));
		if (!ok(b.r == 0 && strcmp(got, cases[i].want) == 0, "%s",
		        cases[i].what))
			printf("#   got  %s\n#   want %s\n", got, cases[i].want);
		body_done(&b);
	}
}

/* ---- the example skills ---------------------------------------------- */

struct dir_arg {
	const char *dir;
};

static bool fs_exists(const char *path, const char **actual, void *arg)
{
	const struct dir_arg *d = arg;
	char full[8192];
	struct stat st;

	*actual = NULL;
	snprintf(full, sizeof(full), "%s/%s", d->dir, path);
	return stat(full, &st) == 0;
}

static void check_example(const char *dir, const char *name)
{
	char path[4200];
	struct run v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/SKILL.md", dir);
	f = fopen(path, "rb");
	if (!ok(f != NULL, "example %s: readable", name))
		return;
	char *text = xmalloc(1 << 20);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	run_text(&v, text, name);
	expect_clean(&v, name);
	struct dir_arg d = { dir };
	int r = sfs_validate_body(text + v.fm.body_offset,
	                          n - v.fm.body_offset, v.fm.body_line, path,
	                          fs_exists, &d, &v.diags);
	ok(r == 0 && v.diags.n == 0, "example %s: body links resolve", name);
	print_diags(&v);
	done(&v);
	free(text);
}

/* Every folder under root holding a SKILL.md, category folders too. */
static void check_examples(const char *root, int depth)
{
	char sub[4096];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(root);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", root, e->d_name);
		if (stat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		char md[4200];
		snprintf(md, sizeof(md), "%s/SKILL.md", sub);
		if (stat(md, &st) == 0)
			check_example(sub, e->d_name);
		else if (depth < 3)
			check_examples(sub, depth + 1);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	test_valid_id();
	test_minimal_meta();
	test_full_meta();
	test_nulls_are_absent();
	test_name();
	test_description();
	test_rules();
	test_bad_values();
	test_compatibility_length();
	test_several_findings();
	test_listable();
	test_client_readable();
	test_body_links();
	test_body_code();
	test_body_length();
	test_body_scan();
	if (argc > 1)
		check_examples(argv[1], 0);
	return tap_done();
}
