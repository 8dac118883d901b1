/*
 * source_form.c - the table of the kinds of source, and what a root's
 * text tells of its kind: the prefix that names it, its capabilities, how
 * a lockfile pins it, how its URL parses, and its operations.  A root is
 * of the first kind whose prefix it starts with, or a folder.  A new kind
 * adds its line to `forms` (and, if a URL names it, its parser above the
 * table) here; its operations in sources/<kind>.c; its file in
 * meson.build's source_kinds.  Nothing here links a kind (see the weak
 * references below): reading a configuration needs only this file, and
 * skillsfs-mcp, which reads one, would otherwise load libgit2, libcurl,
 * libarchive and theirs (OpenSSL, ICU, Kerberos, ...), most of its
 * resident memory.
 *
 * Each kind named by a URL has its section below: the syntax it takes
 * and its parser, the kind's parse_url (source.h), which says where the
 * source is read from (url.h: in place, over the network, a command) and
 * names no kind; sfs_source_url_parse asks the kind the URL's prefix
 * names, and sets the form.  A root that no kind claims is a folder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "source.h"
#include "sources/url.h"

static bool has_prefix(const char *s, const char *p)
{
	return s && p && strncmp(s, p, strlen(p)) == 0;
}

/* ---- mcp+: an MCP server --------------------------------------------------
 *
 *   mcp+https://HOST[:PORT]/PATH, mcp+http://HOST[:PORT]/PATH
 *   (an MCP server's Streamable HTTP endpoint; no fragment)
 *   mcp+stdio:NAME (an MCP server the config file runs as a command: the
 *   URL only names it; its command comes with the root's options)
 */

#define MCP_PREFIX "mcp+"
#define STDIO_PREFIX "stdio:"

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
	u->where = SFS_URL_COMMAND;
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
	u->where = SFS_URL_REMOTE;
	u->location = strdup(rest);
	return u->location ? 0 : -ENOMEM;
}

static int mcp_url_parse(const char *s, struct sfs_source_url *u,
                         const char **why)
{
	int rc = take_mcp(s, u, why);

	if (rc < 0)
		sfs_source_url_free(u);
	return rc;
}

/* ---- git+: a commit of a git repository -----------------------------------
 *
 *   git+file:///ABS/PATH[#[REF][:SUBDIR]]
 *   git+https://HOST/PATH[#...], git+ssh://[USER@]HOST/PATH[#...]
 *   git+http://HOST/PATH[#...] (no TLS: a server on a trusted network;
 *   what it sends is still checked against the object ids it names)
 *
 * REF is a branch, a tag or a full commit id (none: the repository's
 * HEAD); SUBDIR a folder of the commit's tree.  A git ref name cannot hold
 * ':' (git-check-ref-format), so the first ':' of the fragment ends REF.
 * Nothing is decoded: the path is taken as written.
 */

#define GIT_PREFIX "git+"

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
		u->where = SFS_URL_LOCAL;
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
		u->where = SFS_URL_REMOTE;
		u->location = strndup(rest, len - (size_t)(rest - s));
		return u->location ? 0 : -ENOMEM;
	}
	*why = "unknown kind of source (known: git+file:///PATH, "
	       "git+https://HOST/PATH, git+ssh://HOST/PATH, "
	       "git+http://HOST/PATH)";
	return -EINVAL;
}

static int git_url_parse(const char *s, struct sfs_source_url *u,
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

/* ---- https://: a website's well-known skills index -------------------------
 *
 *   https://HOST[/BASE], http://HOST[/BASE] (no query, no fragment); the
 *   location is the URL without its trailing slashes.
 */
static int wellknown_url_parse(const char *s, struct sfs_source_url *u,
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
	u->where = SFS_URL_REMOTE;
	u->location = strndup(s, len);
	return u->location ? 0 : -ENOMEM;
}

/* ---- the table of the kinds ---------------------------------------------- */

/* A remote's fetch waits on a server, which a stop can cut short; a
 * git+file:// root is read in place and answers at once. */
#define GIT_CAPS (SFS_SOURCE_VERSIONED | SFS_SOURCE_PUBLISHED | \
                  SFS_SOURCE_SIGNED)

static unsigned git_root_caps(const char *root)
{
	return has_prefix(root, "git+file:") ? GIT_CAPS
	                                     : GIT_CAPS | SFS_SOURCE_STOPPABLE;
}

/* A server run as a command (mcp+stdio:NAME) runs only for an update:
 * it is refreshed by fetch_interval and SIGHUP, never heard, and takes
 * no token. */
#define MCP_CAPS (SFS_SOURCE_VERSIONED | SFS_SOURCE_READS_REMOTE | \
                  SFS_SOURCE_LISTENS | SFS_SOURCE_STOPPABLE | \
                  SFS_SOURCE_PUBLISHED | SFS_SOURCE_TOKEN)

static unsigned mcp_root_caps(const char *root)
{
	if (has_prefix(root, "mcp+stdio:"))
		return (MCP_CAPS & ~(SFS_SOURCE_LISTENS | SFS_SOURCE_TOKEN)) |
		       SFS_SOURCE_COMMAND;
	return MCP_CAPS;
}

/*
 * Each kind's operations, defined in its file (sources/<kind>.c) and named
 * nowhere else.  The references are WEAK, and that crosses a module wall
 * on purpose: a weak undefined symbol does not pull its object out of
 * libskillsfs.a, so skillsfs-mcp, which reads configurations through this
 * table but builds no catalog, links no kind and none of libgit2, libcurl
 * and libarchive (and what they load: OpenSSL, ICU, Kerberos...).  That
 * measured, at N=10,000 (BENCHMARKS.md, skillsfs-mcp): peak RSS 17.3 ->
 * 10.2 MiB, start 35 -> 15 ms.  Its ops are then NULL, and every caller
 * of sfs_source_kind copes.  The programs that build catalogs (the tests,
 * the perf tools) link every kind: shared/meson.build's skillsfs_dep asks
 * the linker for each kind's ops by name (-u), from the same line of that
 * file that adds the kind's source file.  skillsfs links the folder's
 * alone and loads the others from the module of the kinds when a root of
 * one is opened (kinds.c): a mount of folders loads none of those
 * libraries either.
 */
extern const struct sfs_source_ops sfs_source_git __attribute__((weak));
extern const struct sfs_source_ops sfs_source_mcp __attribute__((weak));
extern const struct sfs_source_ops sfs_source_wellknown __attribute__((weak));
extern const struct sfs_source_ops sfs_source_dir __attribute__((weak));

static const struct sfs_source_form forms[] = {
	{ .kind = "git", .ops = &sfs_source_git, .ops_name = "sfs_source_git",
	  .prefix = "git+", .caps = GIT_CAPS,
	  .root_caps = git_root_caps, .lock = SFS_LOCK_COMMIT,
	  .parse_url = git_url_parse,
	  .help = "a git repository, git+file:///PATH[#REF][:SUBDIR] read "
	          "in place, git+https://HOST/PATH[#REF][:SUBDIR] (or "
	          "git+ssh://, git+http://) fetched into the cache; REF a "
	          "branch, tag or full commit id (default HEAD), a branch or "
	          "tag followed every fetch_interval and on kill -HUP" },
	{ .kind = "mcp", .ops = &sfs_source_mcp, .ops_name = "sfs_source_mcp",
	  .prefix = "mcp+", .caps = MCP_CAPS,
	  .root_caps = mcp_root_caps, .lock = SFS_LOCK_SKILLS,
	  .parse_url = mcp_url_parse,
	  .help = "mcp+https://HOST/PATH: an MCP server's skills (SEP-2640), "
	          "each file verified by its sha256 (one run over stdio is a "
	          "--config sources: entry with command:, skillsfs(5))" },
	{ .kind = "wellknown", .ops = &sfs_source_wellknown,
	  .ops_name = "sfs_source_wellknown",
	  .prefix = "https://", .prefix2 = "http://",
	  .caps = SFS_SOURCE_VERSIONED | SFS_SOURCE_READS_REMOTE |
	          SFS_SOURCE_STOPPABLE | SFS_SOURCE_PUBLISHED |
	          SFS_SOURCE_TOKEN,
	  .lock = SFS_LOCK_SKILLS,
	  .parse_url = wellknown_url_parse,
	  .help = "https://HOST[/BASE] (or http://): the skills a website "
	          "lists in BASE/.well-known/agent-skills/index.json, each "
	          "file verified by its sha256" },
	/* last: every root no prefix claims */
	{ .kind = "folder", .ops = &sfs_source_dir, .ops_name = "sfs_source_dir",
	  .caps = SFS_SOURCE_WATCHED, .lock = SFS_LOCK_SKILLS },
};

#define NFORMS (sizeof(forms) / sizeof(*forms))

const struct sfs_source_form *sfs_source_form(const char *root)
{
	for (size_t i = 0; root && i < NFORMS; i++) {
		const struct sfs_source_form *f = &forms[i];
		if (!f->prefix || has_prefix(root, f->prefix) ||
		    has_prefix(root, f->prefix2))
			return f;
	}
	return &forms[NFORMS - 1];
}

const struct sfs_source_form *sfs_source_form_named(const char *name)
{
	for (size_t i = 0; name && i < NFORMS; i++)
		if (strcmp(forms[i].kind, name) == 0)
			return &forms[i];
	return NULL;
}

const struct sfs_source_form *sfs_source_form_at(size_t i)
{
	return i < NFORMS ? &forms[i] : NULL;
}

bool sfs_source_is_url(const char *root)
{
	return root && sfs_source_form(root)->prefix != NULL;
}

unsigned sfs_source_caps(const char *root)
{
	const struct sfs_source_form *f = sfs_source_form(root);

	return f->root_caps && root ? f->root_caps(root) : f->caps;
}

/* ---- URLs: which kind parses one ------------------------------------------ */

int sfs_source_url_parse(const char *s, struct sfs_source_url *u,
                         const char **why)
{
	const struct sfs_source_form *f = sfs_source_form(s);

	memset(u, 0, sizeof(*u));
	*why = "";
	if (!f->parse_url) {
		*why = "not a source URL (git+file:///PATH[#REF][:SUBDIR], "
		       "mcp+https://HOST/PATH, or a website's well-known "
		       "skills index, https://HOST[/BASE] or "
		       "http://HOST[/BASE])";
		return -EINVAL;
	}
	int rc = f->parse_url(s, u, why);
	if (rc == 0)
		u->form = f;
	return rc;
}

int sfs_source_url_parse_why(const char *s, struct sfs_source_url *u,
                             char *why, size_t wlen)
{
	const char *bad;
	int rc = sfs_source_url_parse(s, u, &bad);

	if (rc < 0)
		snprintf(why, wlen, "%s", bad);
	return rc;
}

void sfs_source_url_free(struct sfs_source_url *u)
{
	free(u->location);
	free(u->ref);
	free(u->subdir);
	memset(u, 0, sizeof(*u));
}
