/*
 * contract.c - the mount contract (contract.h): the mount's fixed paths,
 * the URIs of its resources, and the reader of its one-skill-per-line
 * documents, whose writer (render.c) begins each entry with the heads
 * defined in contract.h.  tests/unit/test_contract.c writes entries with
 * the one and reads them with the other, so the two cannot drift.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "internal.h"
#include "utf8.h"

#define MAX_URI 8192

/* ---- paths -------------------------------------------------------------- */

static const struct sfs_mount_fixed fixed[SFS_MOUNT_NENTRIES] = {
#define ROW(e, name, path, in_root, folder) \
	[SFS_MOUNT_##e] = { name, path, in_root, folder },
	SFS_MOUNT_TABLE(ROW)
#undef ROW
};

const struct sfs_mount_fixed *sfs_mount_row(enum sfs_mount_entry e)
{
	return &fixed[e];
}

/* A malloc'd string made by vasprintf, or NULL when out of memory. */
static char *printf_alloc(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *printf_alloc(const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	int n = vasprintf(&out, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : out;
}

char *sfs_mount_path(const char *mount, enum sfs_mount_entry e)
{
	return printf_alloc("%s/%s", mount, fixed[e].path);
}

char *sfs_mount_record(const char *mount, const char *id)
{
	return printf_alloc("%s/%s/%s" SFS_RECORD_SUFFIX, mount,
	                    fixed[SFS_MOUNT_CATALOG].path, id);
}

char *sfs_mount_skill(const char *mount, const char *id, const char *rel)
{
	const char *skills = fixed[SFS_MOUNT_SKILLS].path;

	if (rel && *rel)
		return printf_alloc("%s/%s/%s/%s", mount, skills, id, rel);
	return printf_alloc("%s/%s/%s", mount, skills, id);
}

char *sfs_mount_doc(const char *mount, const char *rel)
{
	return printf_alloc("%s/%s/%s", mount, fixed[SFS_MOUNT_DOCS].path, rel);
}

char *sfs_mount_view(const char *mount, const char *view, const char *id,
                     const char *rel)
{
	return printf_alloc("%s/%s/%s%s%s%s%s", mount,
	                    fixed[SFS_MOUNT_VIEWS].path, view, id ? "/" : "",
	                    id ? id : "", id && rel ? "/" : "",
	                    id && rel ? rel : "");
}

char *sfs_mount_search(const char *mount, const char *words)
{
	char name[SFS_SEARCH_NAME_MAX + 1];
	size_t n = strlen(words);

	if (n > SFS_SEARCH_NAME_MAX) {
		n = SFS_SEARCH_NAME_MAX;
		while (n > 0 && words[n] != ' ')
			n--;   /* a word cut in two would search for half */
		if (n == 0)
			n = SFS_SEARCH_NAME_MAX;
	}
	/* '/' separates names; "", "." and ".." name folders, not words */
	bool dots = strspn(words, ".") >= n;
	for (size_t i = 0; i < n; i++)
		name[i] = words[i] == '/' || dots ? ' ' : words[i];
	if (n == 0)
		name[n++] = ' ';
	name[n] = '\0';
	return printf_alloc("%s/%s/%s", mount, fixed[SFS_MOUNT_SEARCH].path,
	                    name);
}

bool sfs_search_line(const char *line, size_t len, char *id, size_t cap)
{
	const char *tab = memchr(line, SFS_SEARCH_SEP, len);

	if (!tab || !memchr(tab + 1, SFS_SEARCH_SEP,
	                    len - (size_t)(tab + 1 - line)))
		return false;
	size_t n = (size_t)(tab - line);
	if (n >= cap || !sfs_skill_id_valid(line, n))
		return false;
	memcpy(id, line, n);
	id[n] = '\0';
	return true;
}

/* ---- catalog/<id>.json ------------------------------------------------- */

/* The text of o's member key when it is a string, else "". */
static const char *member_text(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* file relative to the folder dir when it lies in it, else file. */
static const char *in_folder(const char *file, const char *dir)
{
	size_t n = strlen(dir);
	if (n && strncmp(file, dir, n) == 0 && file[n] == '/')
		return file + n + 1;
	return file;
}

cJSON *sfs_record_findings(const cJSON *record)
{
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(record,
	                                                    SFS_RECORD_FINDINGS);
	const char *dir = member_text(record, SFS_RECORD_SOURCE);
	cJSON *out = cJSON_CreateArray();
	const cJSON *f;

	cJSON_ArrayForEach(f, all) {
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(
			f, SFS_FINDING_LINE);
		cJSON *o = cJSON_CreateObject();
		if (!out || !o ||
		    !cJSON_AddStringToObject(o, SFS_FINDING_RULE,
		                             member_text(f, SFS_FINDING_RULE)) ||
		    !cJSON_AddStringToObject(o, SFS_FINDING_SEVERITY,
		                             member_text(f, SFS_FINDING_SEVERITY)) ||
		    !cJSON_AddStringToObject(o, SFS_FINDING_FILE,
		                             in_folder(member_text(f, SFS_FINDING_FILE),
		                                       dir)) ||
		    !cJSON_AddNumberToObject(o, SFS_FINDING_LINE,
		                             cJSON_IsNumber(line) ? line->valuedouble
		                                                  : 0) ||
		    !cJSON_AddStringToObject(o, SFS_FINDING_MESSAGE,
		                             member_text(f, SFS_FINDING_MESSAGE))) {
			cJSON_Delete(o);
			cJSON_Delete(out);
			return NULL;
		}
		cJSON_AddItemToArray(out, o);
	}
	return out;
}

/* ---- building URIs ------------------------------------------------------ */

#define RESOURCE "resource://"
#define SKILLS_PART "skills/"
#define DOCUMENT_PART "/document"
#define REFERENCES_PART "/references/"
#define RECORD_PART "catalog/skills/"
#define DOCS_PART "docs/"

char *sfs_uri_document(const char *id)
{
	return printf_alloc(SFS_URI_DOCUMENT_FMT, id);
}

char *sfs_uri_reference(const char *id, const char *ref)
{
	return printf_alloc(RESOURCE SKILLS_PART "%s" REFERENCES_PART "%s",
	                    id, ref);
}

char *sfs_uri_record(const char *id)
{
	return printf_alloc(RESOURCE RECORD_PART "%s", id);
}

char *sfs_uri_doc(const char *path)
{
	return printf_alloc(RESOURCE DOCS_PART "%s", path);
}

/*
 * SEP-2640 clients compare URIs in their WHATWG-serialised form, and the
 * official TypeScript SDK keys a skill's files by a canonical spelling of
 * each segment (ENCODED_IN_SEGMENT in its skills extension).  Writing
 * every URI that way (index.json, the MCP server's lists, directory
 * reads) makes the spelling a client receives equal to the one it
 * computes, so its keys, its "inside the skill" check and its lookups all
 * agree with ours.
 */
bool sfs_uri_keeps(unsigned char c)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c && strchr("_!$&'()*+,.:;=@[]|~-/", c) != NULL;
}

size_t sfs_uri_encode(const char *path, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (sfs_uri_keeps(*p)) {
			if (out)
				out[n] = (char)*p;
			n++;
			continue;
		}
		if (out) {
			out[n] = '%';
			out[n + 1] = hex[*p >> 4];
			out[n + 2] = hex[*p & 0xF];
		}
		n += 3;
	}
	if (out)
		out[n] = '\0';
	return n;
}

char *sfs_uri_join(const char *base, const char *name)
{
	size_t blen = strlen(base);
	char *out = malloc(blen + 1 + sfs_uri_encode(name, NULL) + 1);

	if (!out)
		return NULL;
	memcpy(out, base, blen);
	out[blen] = '/';
	sfs_uri_encode(name, out + blen + 1);
	return out;
}

char *sfs_uri_skill(const char *id, const char *path)
{
	char *base = printf_alloc(SFS_URI_SKILL_SCHEME "%s", id);

	if (!base || !path || !*path)
		return base;
	char *out = sfs_uri_join(base, path);
	free(base);
	return out;
}

/* ---- parsing URIs ------------------------------------------------------- */

bool sfs_skill_id_valid(const char *s, size_t n)
{
	if (n == 0 || n > 64 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-'))
			return false;
		if (c == '-' && i + 1 < n && s[i + 1] == '-')
			return false;
	}
	return true;
}

/* The byte that %XX at p (n bytes left) stands for, or -1 when p is not
 * such an escape. */
static int percent_byte(const char *p, size_t n)
{
	if (n < 3 || p[0] != '%' || sfs_hex_value(p[1]) < 0 ||
	    sfs_hex_value(p[2]) < 0)
		return -1;
	return sfs_hex_value(p[1]) * 16 + sfs_hex_value(p[2]);
}

/* Where a segment ends: refuses an empty, "." or ".." one. */
static const char *segment_error(const char *seg, size_t len)
{
	if (len == 0)
		return "the path has an empty segment";
	if ((len == 1 && seg[0] == '.') ||
	    (len == 2 && seg[0] == '.' && seg[1] == '.'))
		return "the path has a '.' or '..' segment";
	return NULL;
}

char *sfs_uri_clean_path(const char *p, size_t n, const char **why)
{
	char *out = malloc(n + 1);
	size_t o = 0, seg = 0;   /* seg: start of the current segment */

	if (!out) {
		*why = "out of memory";
		return NULL;
	}
	*why = NULL;
	if (n == 0 || p[0] == '/')
		*why = "the path must be relative and not empty";
	for (size_t i = 0; i <= n && !*why; i++) {
		if (i == n || p[i] == '/') {
			*why = segment_error(out + seg, o - seg);
			if (i < n)
				out[o++] = '/';
			seg = o;
			continue;
		}
		int c = percent_byte(p + i, n - i);
		if (c >= 0) {
			i += 2;
			/* '\\' is an ordinary byte in a Linux file name; the
			 * SDK's canonical form spells it %5C. */
			if (c == '/' || c == '\0')
				*why = "the path encodes '/' or NUL";
		} else {
			c = (unsigned char)p[i];
			if (c == '?' || c == '#')
				*why = "query and fragment are not supported";
		}
		if (c < 0x20 || c == 0x7F)
			*why = *why ? *why : "the path has a control character";
		out[o++] = (char)c;
	}
	if (!*why && !sfs_utf8_valid(out, o))
		*why = "the path is not UTF-8";
	if (*why) {
		free(out);
		return NULL;
	}
	out[o] = '\0';
	return out;
}

/* A plugin name as a skill reference may carry it: what Claude Code's
 * plugin names are made of, nothing that separates or escapes. */
static bool plugin_valid(const char *s, size_t n)
{
	if (n == 0 || n >= sizeof(((struct sfs_uri *)0)->plugin) || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

static void copy_id(struct sfs_uri *u, const char *s, size_t n)
{
	memcpy(u->id, s, n);
	u->id[n] = '\0';
}

/* "<id>" or "<plugin>:<id>" in a resource:// URI. */
static bool set_ref(struct sfs_uri *u, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t pn = colon ? (size_t)(colon - s) : 0;

	if (colon && !plugin_valid(s, pn))
		return false;
	if (colon) {
		memcpy(u->plugin, s, pn);
		u->plugin[pn] = '\0';
		s += pn + 1;
		n -= pn + 1;
	}
	if (!sfs_skill_id_valid(s, n))
		return false;
	copy_id(u, s, n);
	return true;
}

static void invalid(struct sfs_uri *u, const char *why)
{
	u->kind = SFS_URI_INVALID;
	u->error = why;
}

/* A path taken from the URI into u->path, as kind; else invalid. */
static bool take_path(struct sfs_uri *u, const char *p, enum sfs_uri_kind kind)
{
	u->path = sfs_uri_clean_path(p, strlen(p), &u->error);
	u->kind = u->path ? kind : SFS_URI_INVALID;
	return u->path != NULL;
}

/* "<id>" or "<id>/<path>" after "skill://". */
static void parse_skill(const char *rest, struct sfs_uri *u)
{
	const char *slash = strchr(rest, '/');
	size_t idlen = slash ? (size_t)(slash - rest) : strlen(rest);

	if (!sfs_skill_id_valid(rest, idlen)) {
		invalid(u, "not a valid skill id");
		return;
	}
	copy_id(u, rest, idlen);
	if (!slash)
		u->kind = SFS_URI_SKILL_ROOT;
	else if (!slash[1])   /* "skill://id/": the root with a slash */
		invalid(u, "directory URIs are written without a trailing slash");
	else
		take_path(u, slash + 1, SFS_URI_SKILL_PATH);
}

/* Ref ids are lowercase kebab-case; '_' and '.' are tolerated, nothing
 * that could separate or traverse is. */
static bool ref_id_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 128 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			return false;
	}
	return strstr(s, "..") == NULL;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "docs/<path>": a markdown file of the docs folder. */
static void parse_doc(const char *p, struct sfs_uri *u)
{
	if (!take_path(u, p, SFS_URI_DOC))
		return;
	size_t n = strlen(u->path);
	if (n < 3 || strcmp(u->path + n - 3, ".md") != 0)
		invalid(u, "docs serve markdown (.md) files only");
}

/* "skills/<ref>/document" or "skills/<ref>/references/<ref id>". */
static void parse_skill_resource(const char *id, struct sfs_uri *u)
{
	const char *slash = strchr(id, '/');

	if (!slash || !set_ref(u, id, (size_t)(slash - id))) {
		invalid(u, "not a valid skill id");
		return;
	}
	if (strcmp(slash, DOCUMENT_PART) == 0) {
		u->kind = SFS_URI_DOCUMENT;
		return;
	}
	if (!has_prefix(slash, REFERENCES_PART)) {
		u->kind = SFS_URI_UNKNOWN;
		return;
	}
	const char *ref = slash + strlen(REFERENCES_PART);
	if (!ref_id_valid(ref)) {
		invalid(u, "not a valid reference id");
		return;
	}
	u->path = strdup(ref);
	if (u->path)
		u->kind = SFS_URI_REFERENCE;
	else
		invalid(u, "out of memory");
}

static void parse_resource(const char *rest, struct sfs_uri *u)
{
	if (has_prefix(rest, RECORD_PART)) {
		const char *id = rest + strlen(RECORD_PART);
		if (set_ref(u, id, strlen(id)))
			u->kind = SFS_URI_CATALOG_SKILL;
		else
			invalid(u, "not a valid skill id");
	} else if (has_prefix(rest, DOCS_PART))
		parse_doc(rest + strlen(DOCS_PART), u);
	else if (has_prefix(rest, SKILLS_PART))
		parse_skill_resource(rest + strlen(SKILLS_PART), u);
	else
		u->kind = SFS_URI_UNKNOWN;
}

void sfs_uri_parse(const char *text, struct sfs_uri *u)
{
	size_t n = strlen(text);

	memset(u, 0, sizeof(*u));
	if (n > MAX_URI) {
		invalid(u, "the URI is too long");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7F) {
			invalid(u, "the URI has a control character");
			return;
		}
	}
	if (strcmp(text, SFS_URI_SKILLS_INDEX) == 0)
		u->kind = SFS_URI_CATALOG_INDEX;
	else if (has_prefix(text, SFS_URI_SKILL_SCHEME))
		parse_skill(text + strlen(SFS_URI_SKILL_SCHEME), u);
	else if (has_prefix(text, RESOURCE))
		parse_resource(text + strlen(RESOURCE), u);
	else
		u->kind = SFS_URI_UNKNOWN;
}

void sfs_uri_free(struct sfs_uri *u)
{
	free(u->path);
	u->path = NULL;
}

/* ---- reading the one-skill-per-line documents --------------------------- */

bool sfs_lines_entry(const char *line, size_t len, size_t *entry_len)
{
	while (len && strchr(" \t\r,", line[len - 1]))
		len--;
	if (len < 2 || line[0] != '{' || line[len - 1] != '}')
		return false;
	*entry_len = len;
	return true;
}

/* The value of the string member `key` copied to out (cap bytes): read
 * in place after `head` when the entry starts with it (how render.c
 * writes it), else from the parsed entry. */
static bool string_member(const char *e, size_t len, const char *head,
                          const char *key, char *out, size_t cap)
{
	size_t hlen = strlen(head);
	const char *start = NULL, *end = NULL;
	cJSON *root = NULL;

	if (hlen < len && memcmp(e, head, hlen) == 0) {
		start = e + hlen;
		end = memchr(start, '"', len - hlen);
		/* an escape: the value is not its bytes */
		if (end && memchr(start, '\\', (size_t)(end - start)))
			start = end = NULL;
	}
	if (!start) {
		root = cJSON_ParseWithLength(e, len);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
		if (cJSON_IsString(v)) {
			start = v->valuestring;
			end = start + strlen(start);
		}
	}
	bool ok = start && end && (size_t)(end - start) < cap;
	if (ok) {
		memcpy(out, start, (size_t)(end - start));
		out[end - start] = '\0';
	}
	cJSON_Delete(root);
	return ok;
}

bool sfs_index_entry_id(const char *e, size_t len, char *id, size_t cap)
{
	const size_t slen = strlen(SFS_URI_SKILL_SCHEME);
	char uri[96];

	if (!string_member(e, len, SFS_INDEX_ENTRY_OPEN, "uri", uri,
	                   sizeof(uri)) ||
	    !has_prefix(uri, SFS_URI_SKILL_SCHEME))
		return false;
	const char *slash = strchr(uri + slen, '/');
	size_t n = slash ? (size_t)(slash - uri - slen) : 0;
	if (!slash || strcmp(slash, SFS_INDEX_ENTRY_URI_END) != 0 ||
	    n >= cap || !sfs_skill_id_valid(uri + slen, n))
		return false;
	memcpy(id, uri + slen, n);
	id[n] = '\0';
	return true;
}

bool sfs_skills_index_entry_id(const char *e, size_t len, char *id,
                               size_t cap)
{
	return string_member(e, len, SFS_SKILLS_INDEX_ENTRY_HEAD "\"",
	                     SFS_SKILLS_INDEX_ID,
	                     id, cap) &&
	       sfs_skill_id_valid(id, strlen(id));
}

/* Parsed only when the key is there at all: most entries have none. */
bool sfs_skills_index_entry_plugin(const char *e, size_t len, char *out,
                                   size_t cap)
{
	const char key[] = "\"" SFS_SKILLS_INDEX_PLUGIN "\"";

	if (!memmem(e, len, key, sizeof(key) - 1))
		return false;
	cJSON *root = cJSON_ParseWithLength(e, len);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root,
	                                               SFS_SKILLS_INDEX_PLUGIN);
	bool ok = cJSON_IsString(v) && *v->valuestring &&
	          strlen(v->valuestring) < cap;
	if (ok)
		strcpy(out, v->valuestring);
	cJSON_Delete(root);
	return ok;
}

#define NO_MODEL "disable-model-invocation"
#define USER "user-invocable"

/* The catalog reads them as YAML gives them: a JSON true, a JSON false. */
struct sfs_invocable sfs_frontmatter_invocable(const cJSON *fm)
{
	return (struct sfs_invocable){
		.model = !cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(fm, NO_MODEL)),
		.user = !cJSON_IsFalse(
			cJSON_GetObjectItemCaseSensitive(fm, USER)),
	};
}

/* Parsed only when either key is there at all: most entries have none. */
struct sfs_invocable sfs_index_entry_invocable(const char *e, size_t len)
{
	if (!memmem(e, len, "\"" NO_MODEL "\"", sizeof(NO_MODEL) + 1) &&
	    !memmem(e, len, "\"" USER "\"", sizeof(USER) + 1))
		return (struct sfs_invocable){ true, true };
	cJSON *root = cJSON_ParseWithLength(e, len);
	struct sfs_invocable inv = sfs_frontmatter_invocable(
		cJSON_GetObjectItemCaseSensitive(root, "frontmatter"));
	cJSON_Delete(root);
	return inv;
}

/* ---- status.json -------------------------------------------------------- */

/* Where the value of member `key` of the head starts (after its ':'),
 * or NULL when the head does not hold it. */
static const char *member_value(const char *head, size_t len, const char *key)
{
	char quoted[32];
	int qlen = snprintf(quoted, sizeof(quoted), "\"%s\"", key);
	const char *k = memmem(head, len, quoted, (size_t)qlen);
	const char *end = head + len;

	if (!k)
		return NULL;
	k += qlen;
	while (k < end && (*k == ' ' || *k == '\t' || *k == '\n' || *k == ':'))
		k++;
	return k < end ? k : NULL;
}

unsigned long long sfs_status_generation(const char *head, size_t len)
{
	const char *v = member_value(head, len, SFS_STATUS_GENERATION);
	unsigned long long gen = 0;

	for (; v && v < head + len && *v >= '0' && *v <= '9'; v++)
		gen = gen * 10 + (unsigned)(*v - '0');
	return gen;
}

/* Length of the JSON array or object at p (up to its closing bracket),
 * or 0 when it does not end within n bytes. */
static size_t json_span(const char *p, size_t n)
{
	int depth = 0;
	bool in_string = false;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

cJSON *sfs_status_roots(const char *head, size_t len)
{
	const char *v = member_value(head, len, SFS_STATUS_ROOTS);
	size_t n = v && *v == '[' ? json_span(v, len - (size_t)(v - head)) : 0;

	return n ? cJSON_ParseWithLength(v, n) : NULL;
}
