/*
 * validate.c - the frontmatter contract (Agent Skills specification,
 * Claude Code fields, the x-personal-mcp block) and the SKILL.md body.
 *
 * Severity follows issue 2: what keeps a skill from working or from being
 * addressed by its id is an error (the skill is not served); what real
 * public skills get wrong without harm is a warning (served, reported).
 * Checks that need the filesystem or the other skills (reference files
 * existing, depends_on targets, cycles) belong to the catalog builder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contract.h"
#include "internal.h"

#define NAME_MAX_CHARS          64
#define DESCRIPTION_MAX_CHARS   1024
#define COMPATIBILITY_MAX_CHARS 500
#define BODY_MAX_LINES          500
#define XPM                     "x-personal-mcp"

struct vctx {
	const struct sfs_frontmatter *fm;
	const char *file;
	struct sfs_arena *arena;
	struct sfs_diag_list *diags;
	int err;               /* -ENOMEM once anything failed */
};

/* ---- small helpers --------------------------------------------------- */

static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* s, quoted, with control characters escaped and cut after a few dozen
 * characters so that one finding stays one readable line. */
static const char *show(char *out, size_t size, const char *s)
{
	size_t o = 0, chars = 0;

	out[o++] = '"';
	for (; *s && o + 8 < size; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch & 0xC0) != 0x80 && ++chars > 48) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = (char)ch;
		} else if (ch < 0x20 || ch == 0x7F) {
			o += (size_t)snprintf(out + o, size - o, "\\x%02X", ch);
		} else {
			out[o++] = (char)ch;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

static const char *kind(const cJSON *j)
{
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsArray(j))
		return "a list";
	if (cJSON_IsObject(j))
		return "a mapping";
	return "empty";
}

/* Why s is not a valid skill id, or NULL when it is one. */
static const char *id_problem(const char *s)
{
	size_t n = strlen(s);

	if (n == 0)
		return "it is empty";
	if (n > NAME_MAX_CHARS)
		return "it is longer than 64 characters";
	for (const char *p = s; *p; p++) {
		if (*p >= 'A' && *p <= 'Z')
			return "it has uppercase letters";
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '-'))
			return "only a-z, 0-9 and '-' are allowed";
	}
	if (s[0] == '-' || s[n - 1] == '-')
		return "it starts or ends with '-'";
	if (strstr(s, "--"))
		return "it has a doubled '-'";
	return NULL;
}

bool sfs_valid_id(const char *s)
{
	return s && !id_problem(s);
}

/* 0|[1-9][0-9]* */
static bool semver_number(const char **s)
{
	const char *p = *s;

	if (*p == '0') {
		*s = p + 1;
		return true;
	}
	if (!(*p >= '1' && *p <= '9'))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	*s = p;
	return true;
}

/* 1 or more of [0-9A-Za-z.-], the characters of SemVer identifiers. */
static bool semver_suffix(const char **s)
{
	const char *p = *s;

	while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
	       (*p >= 'A' && *p <= 'Z') || *p == '.' || *p == '-')
		p++;
	if (p == *s)
		return false;
	*s = p;
	return true;
}

/* The contract's SEMVER_RE,
 * ^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:[-+][0-9A-Za-z.-]+)?$,
 * widened to take a pre-release and a build suffix together
 * ("1.0.0-rc.1+b.5"): the contract's rule is "a semantic version", and
 * SemVer 2.0.0 allows both, so refusing one would drop a valid skill. */
static bool is_semver(const char *s)
{
	for (int i = 0; i < 3; i++) {
		if (!semver_number(&s))
			return false;
		if (i < 2 && *s++ != '.')
			return false;
	}
	if (*s == '-') {
		s++;
		if (!semver_suffix(&s))
			return false;
	}
	if (*s == '+') {
		s++;
		if (!semver_suffix(&s))
			return false;
	}
	return *s == '\0';
}

static bool is_tag_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
	       ch == ':' || ch == '.';
}

/*
 * The first thing in s that looks like an XML tag: "<name>", "</name>",
 * "<name/>" or "<name attr...>" on one line.  A bare '<' ("x < y",
 * "<5 MB") is not one; real descriptions use it.  Returns its start and
 * length, or NULL.
 */
static const char *find_xml_tag(const char *s, size_t *len)
{
	for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
		const char *q = p + 1;
		if (*q == '/')
			q++;
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
			continue;
		while (is_tag_name_char(*q))
			q++;
		if (*q == '/' && q[1] == '>')
			q++;
		else if (*q == ' ' || *q == '\t')
			q += strcspn(q, "<>\n");
		if (*q == '>') {
			*len = (size_t)(q + 1 - p);
			return p;
		}
	}
	return NULL;
}

/* ---- findings -------------------------------------------------------- */

/*
 * Adds a finding about field.  It stands at the field's value (at_value)
 * or key; a field that is absent borrows the key position of its nearest
 * present parent, and a top-level field that is absent stands at the
 * frontmatter's opening fence (1:1), so that editors still jump to it.
 */
__attribute__((format(printf, 5, 6)))
static void report(struct vctx *v, enum sfs_severity sev, const char *field,
                   bool at_value, const char *fmt, ...)
{
	const struct sfs_fm_pos *pos = sfs_frontmatter_pos(v->fm, field);
	unsigned line = 0, column = 0;
	va_list ap;

	if (pos) {
		line = at_value ? pos->value_line : pos->line;
		column = at_value ? pos->value_column : pos->column;
	} else {
		char parent[256];
		snprintf(parent, sizeof(parent), "%s", field);
		for (char *dot; !pos && (dot = strrchr(parent, '.'));) {
			*dot = '\0';
			pos = sfs_frontmatter_pos(v->fm, parent);
		}
		if (pos) {
			line = pos->line;
			column = pos->column;
		} else {
			line = column = 1;
		}
	}
	va_start(ap, fmt);
	if (sfs_diag_addv(v->diags, sev, v->file, line, column, field,
	                  fmt, ap) < 0)
		v->err = -ENOMEM;
	va_end(ap);
}

/* "<parent>.<child>" for a field name, in a caller's buffer. */
static const char *join(char *out, size_t size, const char *parent,
                        const char *child)
{
	snprintf(out, size, "%s.%s", parent, child);
	return out;
}

static const char *join_index(char *out, size_t size, const char *parent,
                              int i)
{
	snprintf(out, size, "%s.%d", parent, i);
	return out;
}

static const char *copy(struct vctx *v, const char *s)
{
	char *p = sfs_arena_strdup(v->arena, s);
	if (!p && s)
		v->err = -ENOMEM;
	return p;
}

/* ---- name and description -------------------------------------------- */

/* A required string: an error when missing or not a string, a warning
 * when blank; returns it when it is a string. */
static const char *required_string(struct vctx *v, const cJSON *fm,
                                   const char *key, const char *what)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(fm, key);

	if (!j) {
		report(v, SFS_ERROR, key, false,
		       "required field is missing: %s", what);
		return NULL;
	}
	if (!cJSON_IsString(j)) {
		report(v, SFS_ERROR, key, true, "must be a string, not %s",
		       kind(j));
		return NULL;
	}
	/* Blank, it is still a description: served, with a warning. */
	if (j->valuestring[strspn(j->valuestring, " \t\r\n")] == '\0')
		report(v, SFS_WARNING, key, true, "must not be empty: %s",
		       what);
	return j->valuestring;
}

/*
 * The skill id: the frontmatter name when it is a valid id, else the
 * folder name when that is one (Claude Code and the `skills` installers
 * load such skills by their folder).  Each departure from the Agent
 * Skills name rules is a warning; a skill with neither usable name is an
 * error.
 */
static const char *choose_id(struct vctx *v, const cJSON *fm,
                             const char *dir_name)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(fm, "name");
	const char *name = cJSON_IsString(j) ? j->valuestring : NULL;
	bool dir_ok = dir_name && !id_problem(dir_name);
	enum sfs_severity sev = dir_ok ? SFS_WARNING : SFS_ERROR;
	char buf[128], dbuf[128];
	const char *fallback = dir_ok ? "; the folder name is the skill id" :
	                       "; the folder name is no valid skill id either";

	if (!j) {
		report(v, sev, "name", false, "required field is missing%s",
		       fallback);
	} else if (!name) {
		report(v, sev, "name", true, "must be a string, not %s%s",
		       kind(j), fallback);
	} else if (id_problem(name)) {
		report(v, sev, "name", true,
		       "%s is not a valid skill id: %s (use 1-64 of "
		       "a-z, 0-9 and '-', no leading, trailing or doubled "
		       "'-')%s", show(buf, sizeof(buf), name),
		       id_problem(name), fallback);
	} else {
		if (dir_name && strcmp(name, dir_name) != 0)
			report(v, SFS_WARNING, "name", true,
			       "%s does not match the folder name %s",
			       show(buf, sizeof(buf), name),
			       show(dbuf, sizeof(dbuf), dir_name));
		return name;
	}
	return dir_ok ? dir_name : NULL;
}

static void check_reserved(struct vctx *v, const char *id)
{
	char buf[128];

	/* Reserved by Anthropic's upload API, but real public skills use
	 * them and agents load them fine: a warning. */
	if (strstr(id, "anthropic") || strstr(id, "claude"))
		report(v, SFS_WARNING, "name", true,
		       "%s contains the reserved word '%s'",
		       show(buf, sizeof(buf), id),
		       strstr(id, "anthropic") ? "anthropic" : "claude");
}

static void check_description(struct vctx *v, const char *desc)
{
	size_t chars = utf8_chars(desc), taglen;
	const char *tag = find_xml_tag(desc, &taglen);

	if (chars > DESCRIPTION_MAX_CHARS)
		report(v, SFS_WARNING, "description", true,
		       "is %zu characters; the limit is %d",
		       chars, DESCRIPTION_MAX_CHARS);
	/* The contract forbids XML tags outright.  A lone '<' is common and
	 * harmless, so only something shaped like a tag is an error. */
	if (tag) {
		/* show() keeps 48 characters, fewer bytes than buf holds. */
		char buf[256], shown[128];
		snprintf(buf, sizeof(buf), "%.*s",
		         taglen < sizeof(buf) ? (int)taglen : 255, tag);
		report(v, SFS_WARNING, "description", true,
		       "contains the XML tag %s; XML tags are not allowed in "
		       "descriptions", show(shown, sizeof(shown), buf));
	}
}

/* ---- optional top-level fields --------------------------------------- */

enum want {
	W_ANY,          /* checked elsewhere, or no type to check */
	W_STRING,
	W_BOOL,
	W_MAP,
	W_STR_OR_LIST,  /* a string or a list of strings */
	W_STR_MAP,      /* a mapping of strings to strings */
	W_COMPAT,       /* a string of 1-500 characters */
};

static const struct known_key {
	const char *key;
	enum want want;
} known_keys[] = {
	{ "name", W_ANY },
	{ "description", W_ANY },
	/* Agent Skills specification */
	{ "license", W_STRING },
	{ "compatibility", W_COMPAT },
	{ "metadata", W_STR_MAP },
	{ "allowed-tools", W_STR_OR_LIST },
	/* Claude Code */
	{ "when_to_use", W_STRING },
	/* Claude Code's own examples write `argument-hint: [file]`, which
	 * YAML reads as a list; both forms are accepted. */
	{ "argument-hint", W_STR_OR_LIST },
	{ "arguments", W_STR_OR_LIST },
	{ "disable-model-invocation", W_BOOL },
	{ "user-invocable", W_BOOL },
	{ "disallowed-tools", W_STR_OR_LIST },
	{ "model", W_STRING },
	{ "effort", W_STRING },
	{ "context", W_STRING },
	{ "agent", W_STRING },
	{ "hooks", W_MAP },
	{ "paths", W_STR_OR_LIST },
	{ "shell", W_STRING },
	/* No documented type; authors write both 1.0 and "1.0.0". */
	{ "version", W_ANY },
	{ XPM, W_ANY },
};

static const struct known_key *find_known(const char *key)
{
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
		if (strcmp(known_keys[i].key, key) == 0)
			return &known_keys[i];
	return NULL;
}

/* An array (list) or object (map) of strings only. */
static bool all_strings(const cJSON *j, bool map)
{
	const cJSON *item;

	if (!(map ? cJSON_IsObject(j) : cJSON_IsArray(j)))
		return false;
	cJSON_ArrayForEach(item, j)
		if (!cJSON_IsString(item))
			return false;
	return true;
}

static cJSON_bool is_str_or_list(const cJSON *j)
{
	return cJSON_IsString(j) || all_strings(j, false);
}

/* What each want takes, and how a warning names it. */
static const struct want_type {
	cJSON_bool (*is)(const cJSON *j);   /* NULL: anything */
	const char *should;
} want_types[] = {
	[W_ANY] = { NULL, NULL },
	[W_STRING] = { cJSON_IsString, "a string" },
	[W_BOOL] = { cJSON_IsBool, "true or false" },
	[W_MAP] = { cJSON_IsObject, "a mapping" },
	[W_STR_OR_LIST] = { is_str_or_list, "a string or a list of strings" },
	[W_STR_MAP] = { cJSON_IsObject, "a mapping of strings to strings" },
	[W_COMPAT] = { cJSON_IsString, "a string" },
};

/* The members of a mapping of strings to strings that are not strings. */
static void check_string_members(struct vctx *v, const char *key,
                                 const cJSON *j)
{
	const cJSON *item;
	char field[320];

	cJSON_ArrayForEach(item, j) {
		if (cJSON_IsString(item))
			continue;
		join(field, sizeof(field), key, item->string);
		report(v, SFS_WARNING, field, true,
		       "should be a string, not %s (quote it)", kind(item));
	}
}

static void check_compatibility(struct vctx *v, const char *key,
                                const cJSON *j)
{
	if (!*j->valuestring)
		report(v, SFS_WARNING, key, true, "is empty");
	else if (utf8_chars(j->valuestring) > COMPATIBILITY_MAX_CHARS)
		report(v, SFS_WARNING, key, true,
		       "is %zu characters; the limit is %d",
		       utf8_chars(j->valuestring), COMPATIBILITY_MAX_CHARS);
}

/*
 * Wrong types of optional fields are warnings: agents ignore what they do
 * not understand, and the skill itself still works.  An empty (null) value
 * counts as absent, as in the contract's model.
 */
static void check_optional(struct vctx *v, const struct known_key *k,
                           const cJSON *j)
{
	const struct want_type *t = &want_types[k->want];

	if (cJSON_IsNull(j) || !t->is)
		return;
	if (!t->is(j))
		report(v, SFS_WARNING, k->key, true, "should be %s, not %s",
		       t->should, kind(j));
	else if (k->want == W_STR_MAP)
		check_string_members(v, k->key, j);
	else if (k->want == W_COMPAT)
		check_compatibility(v, k->key, j);
}

static void check_top_level(struct vctx *v, const cJSON *fm)
{
	const cJSON *item;
	char buf[128];

	cJSON_ArrayForEach(item, fm) {
		const struct known_key *k = find_known(item->string);
		if (k)
			check_optional(v, k, item);
		else
			report(v, SFS_WARNING, item->string, false,
			       "unknown key %s",
			       show(buf, sizeof(buf), item->string));
	}
}

/* ---- x-personal-mcp -------------------------------------------------- */

/* A list of strings each satisfying the id rule; what is a list of
 * entries ("tags", "depends_on"). */
static void check_id_list(struct vctx *v, const cJSON *j, const char *field,
                          const char *what)
{
	const cJSON *item;
	char f[64], buf[128];
	int i = 0;

	if (!cJSON_IsArray(j)) {
		report(v, SFS_ERROR, field, true, "must be a list of %s, "
		       "not %s", what, kind(j));
		return;
	}
	cJSON_ArrayForEach(item, j) {
		join_index(f, sizeof(f), field, i++);
		if (!cJSON_IsString(item))
			report(v, SFS_ERROR, f, true, "must be a string, "
			       "not %s", kind(item));
		else if (id_problem(item->valuestring))
			report(v, SFS_ERROR, f, true,
			       "%s is not lowercase kebab-case: %s",
			       show(buf, sizeof(buf), item->valuestring),
			       id_problem(item->valuestring));
	}
}

static const char **copy_string_list(struct vctx *v, const cJSON *j,
                                     size_t *n)
{
	const cJSON *item;
	const char **out;
	size_t count = 0;

	*n = 0;
	if (!cJSON_IsArray(j))
		return NULL;
	cJSON_ArrayForEach(item, j)
		count += cJSON_IsString(item);
	out = sfs_arena_alloc(v->arena, (count ? count : 1) * sizeof(*out));
	if (!out) {
		v->err = -ENOMEM;
		return NULL;
	}
	cJSON_ArrayForEach(item, j)
		if (cJSON_IsString(item))
			out[(*n)++] = copy(v, item->valuestring);
	return out;
}

static void check_xpm_id(struct vctx *v, const cJSON *x, const char *name)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(x, "id");
	char buf[128], nbuf[128];

	if (!id) {
		report(v, SFS_ERROR, XPM ".id", false,
		       "is missing; it must equal the skill id");
	} else if (!cJSON_IsString(id)) {
		report(v, SFS_ERROR, XPM ".id", true,
		       "must be a string, not %s", kind(id));
	} else if (id_problem(id->valuestring)) {
		report(v, SFS_ERROR, XPM ".id", true,
		       "%s is not a valid skill id: %s",
		       show(buf, sizeof(buf), id->valuestring),
		       id_problem(id->valuestring));
	} else if (name && strcmp(name, id->valuestring) != 0) {
		report(v, SFS_ERROR, XPM ".id", true,
		       "%s does not match the skill id %s",
		       show(buf, sizeof(buf), id->valuestring),
		       show(nbuf, sizeof(nbuf), name));
	}
}

static void check_xpm_version(struct vctx *v, const cJSON *x,
                              struct sfs_meta *meta)
{
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(x, "version");
	char buf[128];

	if (!ver) {
		report(v, SFS_ERROR, XPM ".version", false,
		       "is missing; give a semantic version such as "
		       "\"1.0.0\"");
	} else if (cJSON_IsNumber(ver)) {
		report(v, SFS_ERROR, XPM ".version", true,
		       "must be a semantic version string such as "
		       "\"1.0.0\", not the number %g",
		       ver->valuedouble);
	} else if (!cJSON_IsString(ver)) {
		report(v, SFS_ERROR, XPM ".version", true,
		       "must be a string, not %s",
		       kind(ver));
	} else {
		if (!is_semver(ver->valuestring))
			report(v, SFS_ERROR, XPM ".version", true,
			       "%s is not a semantic "
			       "version (MAJOR.MINOR.PATCH, e.g. \"1.0.0\")",
			       show(buf, sizeof(buf), ver->valuestring));
		meta->version = copy(v, ver->valuestring);
	}
}

static void check_xpm_capabilities(struct vctx *v, const cJSON *x,
                                   const char *id)
{
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(x, "capabilities");
	const cJSON *item;
	char want[128], f[64];
	bool found = false;
	int i = 0;

	snprintf(want, sizeof(want), SFS_URI_DOCUMENT_FMT,
	         id ? id : "<id>");
	if (!caps) {
		report(v, SFS_ERROR, XPM ".capabilities", false,
		       "is missing; list at least \"%s\"", want);
		return;
	}
	if (!cJSON_IsArray(caps) || cJSON_GetArraySize(caps) == 0) {
		report(v, SFS_ERROR, XPM ".capabilities", true,
		       "must be a non-empty list of URIs including \"%s\", not %s", want,
		       cJSON_IsArray(caps) ? "an empty list" : kind(caps));
		return;
	}
	cJSON_ArrayForEach(item, caps) {
		join_index(f, sizeof(f), XPM ".capabilities", i++);
		if (!cJSON_IsString(item))
			report(v, SFS_ERROR, f, true,
			       "must be a string, not %s", kind(item));
		else if (strcmp(item->valuestring, want) == 0)
			found = true;
	}
	if (!found && id)
		report(v, SFS_ERROR, XPM ".capabilities", true,
		       "must include \"%s\"", want);
}

/*
 * A reference path as PurePosixPath would have it ("a//b", "./a" and
 * "a/./b" collapse), or NULL with *why when it breaks the contract:
 * relative, no "..", under references/, ending in .md.
 */
static char *ref_path(struct vctx *v, const char *path, const char **why)
{
	size_t len = strlen(path), o = 0;
	char *out, *last;

	*why = NULL;
	if (path[0] == '/') {
		*why = "it must be relative to the skill folder";
		return NULL;
	}
	out = sfs_arena_alloc(v->arena, len + 1);
	if (!out) {
		v->err = -ENOMEM;
		return NULL;
	}
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && memcmp(p, "..", 2) == 0) {
			*why = "it must not contain '..'";
			return NULL;
		}
		if (n > 0 && !(n == 1 && *p == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n + (p[n] == '/');
	}
	out[o] = '\0';
	last = strrchr(out, '/');
	if (strncmp(out, "references/", 11) != 0 || !last) {
		*why = "it must be under references/";
		return NULL;
	}
	last++;
	if (strlen(last) <= 3 || last[0] == '.' ||
	    strcasecmp(last + strlen(last) - 3, ".md") != 0) {
		*why = "it must name a markdown file ending in .md";
		return NULL;
	}
	return out;
}

/* One entry of x-personal-mcp.references; fills *ref when usable. */
static bool check_ref(struct vctx *v, const cJSON *entry, struct sfs_ref *ref)
{
	const char *rid = entry->string, *why;
	char field[320], f[400], buf[128];
	const cJSON *path, *mime, *title;

	join(field, sizeof(field), XPM ".references", rid);
	if (id_problem(rid))
		report(v, SFS_ERROR, field, false,
		       "reference id %s is not lowercase kebab-case: %s",
		       show(buf, sizeof(buf), rid), id_problem(rid));
	if (!cJSON_IsObject(entry)) {
		report(v, SFS_ERROR, field, true,
		       "must be a mapping with path (and optionally title, "
		       "mime_type), not %s", kind(entry));
		return false;
	}
	path = cJSON_GetObjectItemCaseSensitive(entry, "path");
	mime = cJSON_GetObjectItemCaseSensitive(entry, "mime_type");
	title = cJSON_GetObjectItemCaseSensitive(entry, "title");
	join(f, sizeof(f), field, "path");
	if (!path) {
		report(v, SFS_ERROR, f, false, "is missing; reference %s "
		       "needs a path under references/",
		       show(buf, sizeof(buf), rid));
		return false;
	}
	if (!cJSON_IsString(path)) {
		report(v, SFS_ERROR, f, true, "must be a string, not %s",
		       kind(path));
		return false;
	}
	ref->path = ref_path(v, path->valuestring, &why);
	if (!ref->path) {
		if (why)
			report(v, SFS_ERROR, f, true,
			       "%s is not allowed: %s",
			       show(buf, sizeof(buf), path->valuestring), why);
		return false;
	}
	join(f, sizeof(f), field, "mime_type");
	if (mime && !cJSON_IsString(mime))
		report(v, SFS_ERROR, f, true, "must be a string, not %s",
		       kind(mime));
	join(f, sizeof(f), field, "title");
	if (title && !cJSON_IsString(title) && !cJSON_IsNull(title))
		report(v, SFS_ERROR, f, true, "must be a string, not %s",
		       kind(title));
	ref->id = copy(v, rid);
	ref->mime_type = copy(v, cJSON_IsString(mime) ? mime->valuestring :
	                                                "text/markdown");
	ref->title = cJSON_IsString(title) ? copy(v, title->valuestring) : NULL;
	return true;
}

static int ref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sfs_ref *)a)->id,
	              ((const struct sfs_ref *)b)->id);
}

static void check_xpm_references(struct vctx *v, const cJSON *x,
                                 struct sfs_meta *meta)
{
	const cJSON *refs = cJSON_GetObjectItemCaseSensitive(x, "references");
	const cJSON *entry;
	int n;

	if (!refs)
		return;
	if (!cJSON_IsObject(refs)) {
		report(v, SFS_ERROR, XPM ".references", true,
		       "must be a mapping of reference ids to {path, title, mime_type}, not %s",
		       kind(refs));
		return;
	}
	n = cJSON_GetArraySize(refs);
	meta->refs = sfs_arena_alloc(v->arena,
	                             (size_t)(n ? n : 1) * sizeof(*meta->refs));
	if (!meta->refs) {
		v->err = -ENOMEM;
		return;
	}
	cJSON_ArrayForEach(entry, refs)
		if (check_ref(v, entry, &meta->refs[meta->nrefs]) &&
		    meta->refs[meta->nrefs].id)
			meta->nrefs++;
	qsort(meta->refs, meta->nrefs, sizeof(*meta->refs), ref_cmp);
}

/* Invalid x-personal-mcp is an error: the block is this project's own
 * contract, and the catalog would publish wrong URIs from it. */
static void check_xpm(struct vctx *v, const cJSON *x, const char *name,
                      struct sfs_meta *meta)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(x, "id");
	const cJSON *j;

	if (!cJSON_IsObject(x)) {
		report(v, SFS_ERROR, XPM, true,
		       "must be a mapping, not %s", kind(x));
		return;
	}
	check_xpm_id(v, x, name);
	check_xpm_version(v, x, meta);
	if ((j = cJSON_GetObjectItemCaseSensitive(x, "tags"))) {
		check_id_list(v, j, XPM ".tags", "kebab-case tags");
		meta->tags = copy_string_list(v, j, &meta->ntags);
	}
	check_xpm_capabilities(v, x, cJSON_IsString(id) ? id->valuestring :
	                                                 name);
	meta->capabilities = copy_string_list(v,
		cJSON_GetObjectItemCaseSensitive(x, "capabilities"),
		&meta->ncapabilities);
	if ((j = cJSON_GetObjectItemCaseSensitive(x, "depends_on"))) {
		check_id_list(v, j, XPM ".depends_on", "skill ids");
		meta->depends_on = copy_string_list(v, j, &meta->ndepends_on);
	}
	check_xpm_references(v, x, meta);
}

/* Without an x-personal-mcp block: capabilities = the skill document. */
static void derive_meta(struct vctx *v, struct sfs_meta *meta)
{
	const char **caps;

	if (!meta->name)
		return;
	caps = sfs_arena_alloc(v->arena, sizeof(*caps));
	if (!caps) {
		v->err = -ENOMEM;
		return;
	}
	caps[0] = sfs_arena_printf(v->arena, SFS_URI_DOCUMENT_FMT,
	                           meta->name);
	if (!caps[0]) {
		v->err = -ENOMEM;
		return;
	}
	meta->capabilities = caps;
	meta->ncapabilities = 1;
}

/* ---- what a conforming client lists ----------------------------------- */

/* What check_listable finds. */
struct listing {
	struct vctx *v;
	struct sfs_meta *meta;
	const char *field;     /* of the first reason */
};

/* Adds one reason the skill is left out of skills/list. */
__attribute__((format(printf, 3, 4)))
static void unlisted(struct listing *l, const char *field,
                     const char *fmt, ...)
{
	struct sfs_meta *meta = l->meta;
	char reason[512];
	va_list ap;

	if (meta->nunlisted == SFS_MAX_UNLISTED)
		return;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	meta->unlisted[meta->nunlisted] = copy(l->v, reason);
	if (!meta->unlisted[meta->nunlisted])
		return;
	if (meta->nunlisted++ == 0)
		l->field = field;
}

/*
 * The official SEP-2640 client reads a listed skill's SKILL.md with its
 * own YAML reader and refuses the skill when that reader cannot read the
 * frontmatter or reads other JSON than the listing's (sep_readable.c).
 * Its own warning stands at the construct.
 */
static void check_client_readable(struct vctx *v, struct listing *l)
{
	const struct sfs_fm_unreadable *u = &v->fm->sep;

	if (!u->what)
		return;
	unlisted(l, "", "the official SEP-2640 client cannot read its "
	         "frontmatter alike: %s at line %u", u->what, u->line);
	if (sfs_diag_add(v->diags, SFS_WARNING, v->file, u->line, u->column,
	                 "", "the official SEP-2640 client cannot read %s: "
	                 "%s; left out of skills/list",
	                 u->what, u->fix) < 0)
		v->err = -ENOMEM;
}

/*
 * The rules the official SDK's SkillsClient applies to every skills/list
 * entry, refusing the whole listing for one entry that breaks them
 * (../shared/spec/README.md).  A served skill that breaks one is left out
 * of skills/list, never rewritten to fit: the reasons go to
 * meta->unlisted, and a warning says so.
 */
static void check_listable(struct vctx *v, const cJSON *fm,
                           struct sfs_meta *meta)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(fm, "name");
	const cJSON *desc = cJSON_GetObjectItemCaseSensitive(fm, "description");
	struct listing l = { .v = v, .meta = meta };
	const cJSON *j;
	char buf[128];

	if (!cJSON_IsString(name))
		unlisted(&l, "name", "frontmatter has no string name");
	else if (id_problem(name->valuestring))
		unlisted(&l, "name", "name %s is not 1-64 of a-z, 0-9 and "
		         "single hyphens",
		         show(buf, sizeof(buf), name->valuestring));
	/* else the name is the id (choose_id) */
	if (cJSON_IsString(desc) && (!*desc->valuestring ||
	    utf8_chars(desc->valuestring) > DESCRIPTION_MAX_CHARS))
		unlisted(&l, "description", "description is %zu characters, "
		         "not 1-%d", utf8_chars(desc->valuestring),
		         DESCRIPTION_MAX_CHARS);
	j = cJSON_GetObjectItemCaseSensitive(fm, "compatibility");
	if (j && (!cJSON_IsString(j) || !*j->valuestring ||
	          utf8_chars(j->valuestring) > COMPATIBILITY_MAX_CHARS))
		unlisted(&l, "compatibility", "compatibility is not a string "
		         "of 1-%d characters", COMPATIBILITY_MAX_CHARS);
	j = cJSON_GetObjectItemCaseSensitive(fm, "metadata");
	if (j && !all_strings(j, true))
		unlisted(&l, "metadata", "metadata is not a mapping of "
		         "strings to strings");
	/* The client's own frontmatter reader refuses this key, so it
	 * could list the skill but never read it verified. */
	if (cJSON_GetObjectItemCaseSensitive(fm, "__proto__"))
		unlisted(&l, "__proto__", "frontmatter has a \"__proto__\" "
		         "key, which the client cannot read");
	if (meta->nunlisted > 0 && !v->err) {
		char why[1024];
		size_t o = 0;
		for (size_t i = 0; i < meta->nunlisted && o < sizeof(why); i++)
			o += (size_t)snprintf(why + o, sizeof(why) - o, "%s%s",
			                      i ? "; " : "", meta->unlisted[i]);
		report(v, SFS_WARNING, l.field, false, "left out "
		       "of skills/list (SEP-2640), which conforming MCP "
		       "clients would refuse whole for it: %s", why);
	}
	check_client_readable(v, &l);
}

int sfs_validate_frontmatter(const struct sfs_frontmatter *fm,
                             const char *file, const char *dir_name,
                             struct sfs_arena *arena,
                             struct sfs_diag_list *diags,
                             struct sfs_meta *meta)
{
	struct vctx v = { .fm = fm, .file = file, .arena = arena,
	                  .diags = diags };
	const cJSON *root = fm->json, *x, *j;
	const char *id, *desc;

	memset(meta, 0, sizeof(*meta));
	meta->model_invocable = true;
	meta->user_invocable = true;
	if (!cJSON_IsObject(root))
		return 0;

	id = choose_id(&v, root, dir_name);
	desc = required_string(&v, root, "description",
	                       "what the skill does and when to use it");
	if (id)
		check_reserved(&v, id);
	if (desc)
		check_description(&v, desc);
	check_top_level(&v, root);
	meta->name = copy(&v, id);
	meta->description = copy(&v, desc);

	j = cJSON_GetObjectItemCaseSensitive(root, "disable-model-invocation");
	meta->model_invocable = !cJSON_IsTrue(j);
	j = cJSON_GetObjectItemCaseSensitive(root, "user-invocable");
	meta->user_invocable = !cJSON_IsBool(j) || cJSON_IsTrue(j);

	x = cJSON_GetObjectItemCaseSensitive(root, XPM);
	if (x)
		check_xpm(&v, x, id, meta);
	else
		derive_meta(&v, meta);
	if (id && desc)
		check_listable(&v, root, meta);
	return v.err;
}

/* ---- the body -------------------------------------------------------- */

struct bctx {
	const char *file;
	sfs_exists_fn exists;
	void *arg;
	struct sfs_diag_list *diags;
	int err;
};

/* Column (1-based, in characters) of p within the line starting at line. */
static unsigned char_column(const char *line, const char *p)
{
	unsigned c = 1;
	for (; line < p; line++)
		c += ((unsigned char)*line & 0xC0) != 0x80;
	return c;
}

/* Whether a link target names a URL or an anchor rather than a file of
 * the skill: a scheme ("https:", "mailto:"), "#...", "/..." or "//...". */
static bool is_url(const char *t, size_t n)
{
	size_t i = 0;

	if (n == 0 || t[0] == '#' || t[0] == '/' || t[0] == '?')
		return true;
	if (!((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z')))
		return false;
	while (i < n && ((t[i] >= 'a' && t[i] <= 'z') ||
	                 (t[i] >= 'A' && t[i] <= 'Z') ||
	                 (t[i] >= '0' && t[i] <= '9') ||
	                 t[i] == '+' || t[i] == '.' || t[i] == '-'))
		i++;
	return i < n && t[i] == ':';
}

/* Drops "." and empty components of the n-byte path p and applies "..",
 * in place; false when nothing is left or ".." leaves the top. */
static bool normalize(char *p, size_t n)
{
	size_t w = 0;

	for (size_t r = 0; r < n;) {
		size_t len = strcspn(p + r, "/");
		if (len == 2 && memcmp(p + r, "..", 2) == 0) {
			if (w == 0)
				return false;
			while (w > 0 && p[w - 1] != '/')
				w--;
			if (w > 0)
				w--;
		} else if (len > 0 && !(len == 1 && p[r] == '.')) {
			if (w)
				p[w++] = '/';
			memmove(p + w, p + r, len);
			w += len;
		}
		r += len + (p[r + len] == '/');
	}
	p[w] = '\0';
	return w > 0;
}

/*
 * The skill-relative path a link target names: fragment and query cut,
 * percent-escapes decoded, "." and empty components dropped, ".."
 * applied.  False when nothing is left, the target leaves the skill
 * folder, or holds a NUL, raw or decoded (no file name has one, and
 * normalize() works on the text as a string).
 */
static bool link_path(const char *t, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t k = 0; k < n; k++)
		if (t[k] == '#' || t[k] == '?')
			n = k;
	if (n + 1 > size)
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (t[i] == '\0')
			return false;
		if (t[i] == '%' && i + 2 < n &&
		    (hi = sfs_hex_value(t[i + 1])) >= 0 &&
		    (lo = sfs_hex_value(t[i + 2])) >= 0) {
			if (hi == 0 && lo == 0)
				return false;
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			out[o++] = t[i];
		}
	}
	out[o] = '\0';
	return normalize(out, o);
}


static void check_link(struct bctx *b, const char *t, size_t n,
                       unsigned line, unsigned column)
{
	char path[1024], written[1024], shown[128], shown_actual[128];
	const char *actual = NULL;
	int rc;

	if (is_url(t, n) || !link_path(t, n, path, sizeof(path)))
		return;
	if (b->exists(path, &actual, b->arg))
		return;
	snprintf(written, sizeof(written), "%.*s", (int)n, t);
	show(shown, sizeof(shown), written);
	if (actual) {
		show(shown_actual, sizeof(shown_actual), actual);
		rc = sfs_diag_add(b->diags, SFS_WARNING, b->file, line, column,
		                  "body", "links to %s, which exists only as %s "
		                  "(letter case differs)", shown, shown_actual);
	} else {
		rc = sfs_diag_add(b->diags, SFS_WARNING, b->file, line, column,
		                  "body", "links to %s, which does not exist",
		                  shown);
	}
	if (rc < 0)
		b->err = -ENOMEM;
}

/* After a link target: optional blanks and a title ("...", '...' or
 * (...)), then the closing ')'.  Returns where scanning goes on, or NULL
 * when this is not a link. */
static const char *link_end(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && (*p == '"' || *p == '\'' || *p == '(')) {
		char close = *p == '(' ? ')' : *p;
		const char *q = memchr(p + 1, close, (size_t)(end - p - 1));
		if (!q)
			return NULL;
		p = q + 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	return p < end && *p == ')' ? p + 1 : NULL;
}

/*
 * The target of "(target ...)" starting at p (just past the '('), in
 * [*t, *t + *n).  Returns where scanning goes on, or NULL when this is not
 * a link after all.
 */
static const char *link_target(const char *p, const char *end,
                               const char **t, size_t *n)
{
	int depth = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '<') {
		const char *q = memchr(p, '>', (size_t)(end - p));
		if (!q)
			return NULL;
		*t = p + 1;
		*n = (size_t)(q - p - 1);
		return link_end(q + 1, end);
	}
	*t = p;
	for (; p < end && *p != ' ' && *p != '\t' && *p != '\r'; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && depth-- == 0)
			break;
	}
	*n = (size_t)(p - *t);
	return link_end(p, end);
}

/* "[label]: target" at the start of a line (a link reference definition;
 * not a footnote "[^1]: text"). */
static void check_definition(struct bctx *b, const char *s, const char *end,
                             const char *open, const char *close,
                             unsigned lineno)
{
	const char *p = close + 2, *t;

	if (open - s > 3 || open[1] == '^')
		return;
	for (const char *q = s; q < open; q++)
		if (*q != ' ')
			return;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '<') {
		const char *q = memchr(p, '>', (size_t)(end - p));
		if (q)
			check_link(b, p + 1, (size_t)(q - p - 1), lineno,
			           char_column(s, open));
		return;
	}
	for (t = p; p < end && *p != ' ' && *p != '\t' && *p != '\r'; p++)
		;
	if (p > t)
		check_link(b, t, (size_t)(p - t), lineno, char_column(s, open));
}

/* The length of the run of backticks at p. */
static size_t backtick_run(const char *p, const char *end)
{
	size_t run = 0;

	while (p + run < end && p[run] == '`')
		run++;
	return run;
}

/* Skips the code span that the backtick run at p opens (or the run
 * itself when nothing closes it): returns where scanning goes on.  Only
 * a run of the same length closes it, so memchr() hops from run to run. */
static const char *skip_code_span(const char *p, const char *end)
{
	size_t run = backtick_run(p, end);
	const char *q = p + run;

	while ((q = memchr(q, '`', (size_t)(end - q)))) {
		size_t r = backtick_run(q, end);
		if (r == run)
			return q + r;
		q += r;
	}
	return p + run;   /* unmatched: literal backticks */
}

/* The bytes scan_line() acts on: escapes, code spans and brackets.  All
 * else is prose or link text, which next_stop() passes over with one
 * table lookup a byte. */
static const bool scan_stop[256] = {
	['\\'] = true, ['`'] = true, ['['] = true, [']'] = true,
};

static const char *next_stop(const char *p, const char *end)
{
	while (p < end && !scan_stop[(unsigned char)*p])
		p++;
	return p;
}

/* Finds the links and images of one line outside code spans. */
static void scan_line(struct bctx *b, const char *s, const char *end,
                      unsigned lineno)
{
	const char *open[16];
	int nopen = 0;

	for (const char *p = next_stop(s, end); p < end;
	     p = next_stop(p, end)) {
		if (*p == '\\') {
			p += p + 1 < end ? 2 : 1;
		} else if (*p == '`') {
			p = skip_code_span(p, end);
		} else if (*p == '[') {
			if (nopen < 16)
				open[nopen++] = p;
			p++;
		} else if (*p == ']' && nopen > 0) {
			const char *start = open[--nopen], *t, *next;
			size_t n;
			if (p + 1 < end && p[1] == '(' &&
			    (next = link_target(p + 2, end, &t, &n))) {
				if (start > s && start[-1] == '!')
					start--;
				check_link(b, t, n, lineno,
				           char_column(s, start));
				p = next;
			} else {
				if (p + 1 < end && p[1] == ':' && nopen == 0)
					check_definition(b, s, end, start, p,
					                 lineno);
				p++;
			}
		} else {
			p++;
		}
	}
}

/* The fence character of a ``` or ~~~ line and its run length, or 0. */
static char fence_of(const char *s, const char *end, size_t *run)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || (*s != '`' && *s != '~'))
		return 0;
	*run = 0;
	while (s + *run < end && s[*run] == *s)
		(*run)++;
	return *run >= 3 ? *s : 0;
}

static bool blank_after_fence(const char *s, const char *end, char ch)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (s < end && *s == ch)
		s++;
	for (; s < end; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return false;
	return true;
}

int sfs_validate_body(const char *body, size_t len, unsigned first_line,
                      const char *file, sfs_exists_fn exists, void *arg,
                      struct sfs_diag_list *diags)
{
	struct bctx b = { .file = file, .exists = exists, .arg = arg,
	                  .diags = diags };
	const char *p = body, *end = body + len;
	unsigned lineno = first_line, lines = 0;
	char fence = 0;
	size_t fence_run = 0;
	/* The first '[' at or after p, or NULL.  scan_line() reports only at
	 * a ']' closing a '[' of the same line, so lines without one (most
	 * lines of a body) are not scanned at all. */
	const char *bracket = len ? memchr(body, '[', len) : NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t run;
		char f = fence_of(p, eol, &run);

		if (fence) {
			if (f == fence && run >= fence_run &&
			    blank_after_fence(p, eol, f))
				fence = 0;
		} else if (f) {
			fence = f;
			fence_run = run;
		} else if (exists && bracket && bracket < eol) {
			scan_line(&b, p, eol, lineno);
		}
		lines++;
		lineno++;
		p = nl ? nl + 1 : end;
		if (bracket && bracket < p)
			bracket = memchr(p, '[', (size_t)(end - p));
	}
	if (lines > BODY_MAX_LINES &&
	    sfs_diag_add(diags, SFS_WARNING, file,
	                 first_line + BODY_MAX_LINES, 1, "body",
	                 "the body is %u lines; keep SKILL.md under %d lines "
	                 "and move detail into references/", lines,
	                 BODY_MAX_LINES) < 0)
		b.err = -ENOMEM;
	return b.err;
}
