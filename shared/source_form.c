/*
 * source_form.c - what a root's text tells of its kind: the prefix that
 * names it, its capabilities, how a lockfile pins it and how its URL
 * parses.  A root is of the first kind whose prefix it starts with, or a
 * folder.  The forms are apart from the kinds' operations (source.c's
 * table, which links every kind and so libgit2, libcurl and libarchive)
 * because reading a configuration needs only this: skillsfs-mcp, which
 * reads one, would otherwise load those libraries and theirs (OpenSSL,
 * ICU, Kerberos, ...), most of its resident memory.  A new kind adds its
 * line here, which also names its operations (a weak reference, below).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "snapshot.h"
#include "source.h"
#include "sources/url.h"

/*
 * Each kind's operations, defined in its file (sources/<kind>.c) and named
 * nowhere else.  The references are WEAK, and that crosses a module wall
 * on purpose: a weak undefined symbol does not pull its object out of
 * libskillsfs.a, so skillsfs-mcp, which reads configurations through this
 * table but builds no catalog, links no kind and none of libgit2, libcurl
 * and libarchive (and what they load: OpenSSL, ICU, Kerberos...).  That
 * measured, at N=10,000 (BENCHMARKS.md, skillsfs-mcp): peak RSS 17.3 ->
 * 10.2 MiB, start 35 -> 15 ms.  Its ops are then NULL, and every caller
 * of sfs_source_kind copes.  The programs that build catalogs (skillsfs,
 * the tests, the perf tools) link every kind: shared/meson.build's
 * skillsfs_dep asks the linker for each kind's ops by name (-u), from the
 * same line of that file that adds the kind's source file.
 */
extern const struct sfs_source_ops sfs_source_git __attribute__((weak));
extern const struct sfs_source_ops sfs_source_mcp __attribute__((weak));
extern const struct sfs_source_ops sfs_source_wellknown __attribute__((weak));
extern const struct sfs_source_ops sfs_source_dir __attribute__((weak));

static bool has_prefix(const char *root, const char *p)
{
	return p && strncmp(root, p, strlen(p)) == 0;
}

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

static const struct sfs_source_form forms[] = {
	{ .kind = "git", .ops = &sfs_source_git, .prefix = "git+", .caps = GIT_CAPS,
	  .root_caps = git_root_caps, .lock = SFS_LOCK_COMMIT,
	  .parse_url = sfs_source_git_url_parse },
	{ .kind = "mcp", .ops = &sfs_source_mcp, .prefix = "mcp+", .caps = MCP_CAPS,
	  .root_caps = mcp_root_caps, .lock = SFS_LOCK_SKILLS,
	  .parse_url = sfs_source_mcp_url_parse },
	{ .kind = "wellknown", .ops = &sfs_source_wellknown,
	  .prefix = "https://", .prefix2 = "http://",
	  .caps = SFS_SOURCE_VERSIONED | SFS_SOURCE_READS_REMOTE |
	          SFS_SOURCE_STOPPABLE | SFS_SOURCE_PUBLISHED |
	          SFS_SOURCE_TOKEN,
	  .lock = SFS_LOCK_SKILLS,
	  .parse_url = sfs_source_wellknown_url_parse },
	/* last: every root no prefix claims */
	{ .kind = "folder", .ops = &sfs_source_dir, .caps = SFS_SOURCE_WATCHED,
	  .lock = SFS_LOCK_SKILLS },
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
	return f->parse_url(s, u, why);
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
