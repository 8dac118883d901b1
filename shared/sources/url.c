/*
 * source_url.c - the URLs that name a source other than a folder.
 *
 *   git+file:///ABS/PATH[#[REF][:SUBDIR]]
 *   git+https://HOST/PATH[#...], git+ssh://[USER@]HOST/PATH[#...]
 *   git+http://HOST/PATH[#...] (no TLS: a server on a trusted network;
 *   what it sends is still checked against the object ids it names)
 *
 *   mcp+https://HOST[:PORT]/PATH, mcp+http://HOST[:PORT]/PATH
 *   (an MCP server's Streamable HTTP endpoint; no fragment)
 *   mcp+stdio:NAME (an MCP server the config file runs as a command: the
 *   URL only names it; its command comes with the root's options)
 *
 *   https://HOST[/BASE], http://HOST[/BASE] (a website's well-known
 *   skills index; no query, no fragment)
 *
 * REF is a branch, a tag or a full commit id (none: the repository's
 * HEAD); SUBDIR a folder of the commit's tree.  A git ref name cannot hold
 * ':' (git-check-ref-format), so the first ':' of the fragment ends REF.
 * Nothing is decoded: the path is taken as written.
 *
 * Each parser is its kind's parse_url (source.h); sfs_source_url_parse
 * asks the kind the URL's prefix names (source_form.c).  A root that
 * no kind claims is a folder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "url.h"

#define GIT_PREFIX "git+"
#define MCP_PREFIX "mcp+"
#define STDIO_PREFIX "stdio:"

static bool has_prefix(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool sfs_source_stdio_name_valid(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-");

	return n > 0 && n <= 64 && name[n] == '\0';
}

/* mcp+stdio:NAME: "stdio:NAME", which names the server's folder in the
 * cache as a URL does. */
static int take_stdio(const char *rest, struct sfs_source_url *u,
                      const char **why)
{
	if (!sfs_source_stdio_name_valid(rest + strlen(STDIO_PREFIX))) {
		*why = "mcp+stdio:NAME needs a NAME of 1-64 of [a-z0-9._-]";
		return -EINVAL;
	}
	u->kind = SFS_URL_MCP_STDIO;
	u->location = strdup(rest);
	return u->location ? 0 : -ENOMEM;
}

/* mcp+https://HOST/PATH or mcp+http://HOST/PATH: the URL after "mcp+",
 * as written (it is the endpoint the client posts to); or mcp+stdio:. */
static int take_mcp(const char *s, struct sfs_source_url *u,
                    const char **why)
{
	const char *rest = s + strlen(MCP_PREFIX);
	size_t n = has_prefix(rest, "https://") ? 8 :
	           has_prefix(rest, "http://") ? 7 : 0;

	if (has_prefix(rest, STDIO_PREFIX))
		return take_stdio(rest, u, why);
	if (n == 0) {
		*why = "an MCP server is named by mcp+https://HOST/PATH, "
		       "mcp+http://HOST/PATH or (run by the config file's "
		       "command:) mcp+stdio:NAME";
		return -EINVAL;
	}
	if (rest[n] == '\0' || rest[n] == '/') {
		*why = "the URL names no host";
		return -EINVAL;
	}
	if (strpbrk(rest, "# \t\r\n")) {
		*why = "an MCP server's URL has no fragment (#) and no spaces";
		return -EINVAL;
	}
	u->kind = SFS_URL_MCP;
	u->location = strdup(rest);
	return u->location ? 0 : -ENOMEM;
}

/* Whether s is a full commit id: 40 hex digits (SHA-1). */
bool sfs_source_is_commit_id(const char *s)
{
	size_t n = 0;

	while (s[n] && sfs_hex_value(s[n]) >= 0)
		n++;
	return n == 40 && s[n] == '\0';
}

/* What git-check-ref-format refuses, as far as a name given here can
 * show it: control characters, space, ~ ^ : ? * [ \, "..", "@{", and a
 * name that starts or ends with '/' or '.', or ends with ".lock". */
static bool bad_ref(const char *r)
{
	size_t n = strlen(r);

	if (n == 0 || r[0] == '/' || r[0] == '.' || r[n - 1] == '/' ||
	    r[n - 1] == '.' || strstr(r, "..") || strstr(r, "@{") ||
	    strstr(r, "//") ||
	    (n >= 5 && strcmp(r + n - 5, ".lock") == 0))
		return true;
	for (const unsigned char *p = (const unsigned char *)r; *p; p++)
		if (*p < 0x20 || *p == 0x7f || strchr(" ~^:?*[\\", *p))
			return true;
	return false;
}

/* SUBDIR cleaned ("a//b/" is "a/b"); NULL for the whole tree.  Sets
 * *why when it climbs out of the tree. */
static int take_subdir(const char *s, char **out, const char **why)
{
	char *p = strdup(s);

	*out = NULL;
	if (!p)
		return -ENOMEM;
	if (s[0] == '/' || !sfs_path_clean_rel(p)) {
		free(p);
		*why = "SUBDIR must be a folder inside the repository's tree "
		       "(relative, without \"..\" above it)";
		return -EINVAL;
	}
	if (p[0] == '\0') {
		free(p);
		return 0;
	}
	*out = p;
	return 0;
}

/* "REF[:SUBDIR]" after '#'. */
static int take_fragment(const char *frag, struct sfs_source_url *u,
                         const char **why)
{
	const char *colon = strchr(frag, ':');
	size_t rlen = colon ? (size_t)(colon - frag) : strlen(frag);

	if (rlen > 0) {
		u->ref = strndup(frag, rlen);
		if (!u->ref)
			return -ENOMEM;
		if (bad_ref(u->ref)) {
			*why = "REF is not a branch, tag or commit id "
			       "(see git-check-ref-format(1))";
			return -EINVAL;
		}
	}
	return colon ? take_subdir(colon + 1, &u->subdir, why) : 0;
}

static int take_location(const char *s, size_t len, struct sfs_source_url *u,
                         const char **why)
{
	static const char *const remote[] = { "https://", "ssh://",
	                                      "http://" };
	const char *rest = s + strlen(GIT_PREFIX);

	if (strncmp(rest, "file://", 7) == 0) {
		u->kind = SFS_URL_GIT_FILE;
		rest += 7;
		if (rest[0] != '/' || rest == s + len) {
			*why = "git+file:// needs an absolute path "
			       "(git+file:///srv/skills.git)";
			return -EINVAL;
		}
		u->location = strndup(rest, len - (size_t)(rest - s));
		return u->location ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(remote) / sizeof(*remote); i++) {
		size_t n = strlen(remote[i]);
		if (strncmp(rest, remote[i], n) != 0)
			continue;
		if (rest + n == s + len) {
			*why = "the URL names no host";
			return -EINVAL;
		}
		u->kind = SFS_URL_GIT_REMOTE;
		u->location = strndup(rest, len - (size_t)(rest - s));
		return u->location ? 0 : -ENOMEM;
	}
	*why = "unknown kind of source (known: git+file:///PATH, "
	       "git+https://HOST/PATH, git+ssh://HOST/PATH, "
	       "git+http://HOST/PATH)";
	return -EINVAL;
}

int sfs_source_mcp_url_parse(const char *s, struct sfs_source_url *u,
                             const char **why)
{
	int rc = take_mcp(s, u, why);

	if (rc < 0)
		sfs_source_url_free(u);
	return rc;
}

int sfs_source_git_url_parse(const char *s, struct sfs_source_url *u,
                             const char **why)
{
	const char *hash = strchr(s, '#');
	size_t len = hash ? (size_t)(hash - s) : strlen(s);
	int rc = take_location(s, len, u, why);

	if (rc == 0 && hash)
		rc = take_fragment(hash + 1, u, why);
	if (rc < 0)
		sfs_source_url_free(u);
	return rc;
}

/* A website's well-known skills index: https://HOST[/BASE], or
 * http://; the location is the URL without its trailing slashes. */
int sfs_source_wellknown_url_parse(const char *s, struct sfs_source_url *u,
                                   const char **why)
{
	size_t n = strncmp(s, "https://", 8) == 0 ? 8 : strlen("http://");
	size_t len = strlen(s);

	memset(u, 0, sizeof(*u));
	if (s[n] == '\0' || s[n] == '/') {
		*why = "the URL names no host";
		return -EINVAL;
	}
	if (strpbrk(s, "#? \t\r\n")) {
		*why = "a website's URL has no query (?), no fragment (#) and "
		       "no spaces";
		return -EINVAL;
	}
	while (len > n && s[len - 1] == '/')
		len--;
	u->kind = SFS_URL_WELLKNOWN;
	u->location = strndup(s, len);
	return u->location ? 0 : -ENOMEM;
}

void sfs_source_url_free(struct sfs_source_url *u)
{
	free(u->location);
	free(u->ref);
	free(u->subdir);
	memset(u, 0, sizeof(*u));
}
