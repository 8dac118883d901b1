/*
 * uri.c - parsing and validating resource URIs.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "skillsfs.h"
#include "uri.h"
#include "utf8.h"

#define MAX_URI 8192

bool skill_id_valid(const char *s, size_t n)
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *uri_clean_path(const char *p, size_t n, const char **why)
{
	char *out = malloc(n + 1);
	size_t o = 0, seg = 0;   /* seg: start of the current segment */

	if (!out) {
		*why = "out of memory";
		return NULL;
	}
	if (n == 0 || p[0] == '/') {
		*why = "the path must be relative and not empty";
		goto bad;
	}
	for (size_t i = 0; i <= n; i++) {
		if (i == n || p[i] == '/') {
			size_t len = o - seg;
			if (len == 0) {
				*why = "the path has an empty segment";
				goto bad;
			}
			if ((len == 1 && out[seg] == '.') ||
			    (len == 2 && out[seg] == '.' && out[seg + 1] == '.')) {
				*why = "the path has a '.' or '..' segment";
				goto bad;
			}
			if (i < n)
				out[o++] = '/';
			seg = o;
			continue;
		}
		unsigned char c = (unsigned char)p[i];
		if (c == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 &&
		    hexval(p[i + 2]) >= 0) {
			c = (unsigned char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
			i += 2;
			/* '\\' is an ordinary byte in a Linux file name; the
			 * SDK's canonical form spells it %5C. */
			if (c == '/' || c == '\0') {
				*why = "the path encodes '/' or NUL";
				goto bad;
			}
		} else if (c == '?' || c == '#') {
			*why = "query and fragment are not supported";
			goto bad;
		}
		if (c < 0x20 || c == 0x7F) {
			*why = "the path has a control character";
			goto bad;
		}
		out[o++] = (char)c;
	}
	out[o] = '\0';
	if (!sfs_utf8_valid(out, o)) {
		*why = "the path is not UTF-8";
		goto bad;
	}
	return out;
bad:
	free(out);
	return NULL;
}

char *uri_join(const char *base, const char *name)
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

char *uri_skill(const char *id, const char *path)
{
	char *base = xasprintf("skill://%s", id);

	if (!base || !path || !*path)
		return base;
	char *out = uri_join(base, path);
	free(base);
	return out;
}

static void set_id(struct uri *u, const char *s, size_t n)
{
	memcpy(u->id, s, n);
	u->id[n] = '\0';
}

/* A plugin name as a skill reference may carry it: what Claude Code's
 * plugin names are made of, nothing that separates or escapes. */
static bool plugin_valid(const char *s, size_t n)
{
	if (n == 0 || n >= sizeof(((struct uri *)0)->plugin) || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

/* "<id>" or "<plugin>:<id>" in a resource:// URI. */
static bool set_ref(struct uri *u, const char *s, size_t n)
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
	if (!skill_id_valid(s, n))
		return false;
	memcpy(u->id, s, n);
	u->id[n] = '\0';
	return true;
}

static void invalid(struct uri *u, const char *why)
{
	u->kind = URI_INVALID;
	u->error = why;
}

/* "<id>" or "<id>/<path>" after "skill://". */
static void parse_skill(const char *rest, struct uri *u)
{
	const char *slash = strchr(rest, '/');
	size_t idlen = slash ? (size_t)(slash - rest) : strlen(rest);

	if (!skill_id_valid(rest, idlen)) {
		invalid(u, "not a valid skill id");
		return;
	}
	set_id(u, rest, idlen);
	if (!slash) {
		u->kind = URI_SKILL_ROOT;
		return;
	}
	if (!slash[1]) {   /* "skill://id/": the root written with a slash */
		invalid(u, "directory URIs are written without a trailing slash");
		return;
	}
	u->path = uri_clean_path(slash + 1, strlen(slash + 1), &u->error);
	u->kind = u->path ? URI_SKILL_PATH : URI_INVALID;
}

/* Ref ids are lowercase kebab-case (uri-contract.md); '_' and '.' are
 * tolerated, nothing that could separate or traverse is. */
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

static void parse_resource(const char *rest, struct uri *u)
{
	if (strcmp(rest, "catalog/skills_index") == 0) {
		u->kind = URI_CATALOG_INDEX;
		return;
	}
	if (strncmp(rest, "catalog/skills/", 15) == 0) {
		const char *id = rest + 15;
		if (!set_ref(u, id, strlen(id))) {
			invalid(u, "not a valid skill id");
			return;
		}
		u->kind = URI_CATALOG_SKILL;
		return;
	}
	if (strncmp(rest, "docs/", 5) == 0) {
		const char *p = rest + 5;
		size_t n = strlen(p);
		u->path = uri_clean_path(p, n, &u->error);
		if (!u->path) {
			u->kind = URI_INVALID;
			return;
		}
		n = strlen(u->path);
		if (n < 3 || strcmp(u->path + n - 3, ".md") != 0) {
			invalid(u, "docs serve markdown (.md) files only");
			return;
		}
		u->kind = URI_DOC;
		return;
	}
	if (strncmp(rest, "skills/", 7) == 0) {
		const char *id = rest + 7;
		const char *slash = strchr(id, '/');
		if (!slash || !set_ref(u, id, (size_t)(slash - id))) {
			invalid(u, "not a valid skill id");
			return;
		}
		if (strcmp(slash, "/document") == 0) {
			u->kind = URI_DOCUMENT;
			return;
		}
		if (strncmp(slash, "/references/", 12) == 0) {
			const char *ref = slash + 12;
			if (!ref_id_valid(ref)) {
				invalid(u, "not a valid reference id");
				return;
			}
			u->path = strdup(ref);
			if (u->path)
				u->kind = URI_REFERENCE;
			else
				invalid(u, "out of memory");
			return;
		}
	}
	u->kind = URI_UNKNOWN;
}

void uri_parse(const char *text, struct uri *u)
{
	memset(u, 0, sizeof(*u));
	size_t n = strlen(text);
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
	if (strncmp(text, "skill://", 8) == 0)
		parse_skill(text + 8, u);
	else if (strncmp(text, "resource://", 11) == 0)
		parse_resource(text + 11, u);
	else
		u->kind = URI_UNKNOWN;
}

void uri_free(struct uri *u)
{
	free(u->path);
	u->path = NULL;
}
