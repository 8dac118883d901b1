/*
 * test_source_url.c - the URLs of sources (shared/source_form.c): every
 * form, what each part becomes, and a clear reason for every URL that
 * cannot be used.  Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "source.h"

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Parses url and checks every part of it: its kind's form, where it is
 * read from, and what it names. */
static void good(const char *url, const char *kind, enum sfs_url_where where,
                 const char *location, const char *ref, const char *subdir)
{
	struct sfs_source_url u;
	const char *why;
	int rc = sfs_source_url_parse(url, &u, &why);

	ok(rc == 0 && u.form == sfs_source_form_named(kind) &&
	   u.where == where && same(u.location, location) &&
	   same(u.ref, ref) && same(u.subdir, subdir),
	   "%s: %s, location %s, ref %s, subdir %s "
	   "(got %d: %s | %s | %s | %s)",
	   url, kind, location, ref ? ref : "HEAD", subdir ? subdir : "(all)", rc,
	   rc == 0 ? u.location : why, rc == 0 && u.ref ? u.ref : "-",
	   rc == 0 && u.subdir ? u.subdir : "-", rc == 0 ? "" : why);
	if (rc == 0)
		sfs_source_url_free(&u);
}

/* url is refused, with a reason that holds `says`. */
static void bad(const char *url, const char *says)
{
	struct sfs_source_url u;
	const char *why = NULL;
	int rc = sfs_source_url_parse(url, &u, &why);

	ok(rc == -EINVAL && why && strstr(why, says),
	   "%s is refused: \"%s\" (got %d: %s)", url, says, rc,
	   why ? why : "(none)");
	if (rc == 0)
		sfs_source_url_free(&u);
}

static void test_file_urls(void)
{
	good("git+file:///srv/skills.git", "git", SFS_URL_LOCAL,
	     "/srv/skills.git", NULL, NULL);
	good("git+file:///srv/skills.git#main", "git", SFS_URL_LOCAL,
	     "/srv/skills.git", "main", NULL);
	good("git+file:///srv/skills#v1.2.0:skills", "git", SFS_URL_LOCAL,
	     "/srv/skills", "v1.2.0", "skills");
	good("git+file:///srv/r#feature/pdf:team/skills/", "git", SFS_URL_LOCAL,
	     "/srv/r", "feature/pdf", "team/skills");
	good("git+file:///srv/r#:skills", "git", SFS_URL_LOCAL, "/srv/r", NULL,
	     "skills");
	good("git+file:///srv/r#", "git", SFS_URL_LOCAL, "/srv/r", NULL, NULL);
	good("git+file:///srv/r#main:", "git", SFS_URL_LOCAL, "/srv/r", "main",
	     NULL);
	good("git+file:///srv/r#main:./a//b", "git", SFS_URL_LOCAL, "/srv/r",
	     "main", "a/b");
	good("git+file:///srv/r#0123456789abcdef0123456789abcdef01234567",
	     "git", SFS_URL_LOCAL, "/srv/r",
	     "0123456789abcdef0123456789abcdef01234567", NULL);
}

static void test_remote_urls(void)
{
	good("git+https://example.com/team/skills.git#v2:skills",
	     "git", SFS_URL_REMOTE, "https://example.com/team/skills.git", "v2",
	     "skills");
	good("git+ssh://git@example.com/team/skills.git", "git", SFS_URL_REMOTE,
	     "ssh://git@example.com/team/skills.git", NULL, NULL);
}

static void test_refused(void)
{
	bad("/srv/skills", "not a source URL");
	bad("git+file://srv/skills", "absolute path");
	bad("git+file://", "absolute path");
	bad("git+ftp://example.com/r.git", "unknown kind of source");
	bad("git+https://", "no host");
	bad("git+file:///srv/r#../main", "REF");
	bad("git+file:///srv/r#main..v2", "REF");
	bad("git+file:///srv/r#ma in", "REF");
	bad("git+file:///srv/r#main.lock", "REF");
	bad("git+file:///srv/r#main:../up", "SUBDIR");
	bad("git+file:///srv/r#main:/abs", "SUBDIR");
}

static void test_mcp_urls(void)
{
	good("mcp+https://skills.example.com/mcp", "mcp", SFS_URL_REMOTE,
	     "https://skills.example.com/mcp", NULL, NULL);
	good("mcp+stdio:team.skills-2", "mcp", SFS_URL_COMMAND,
	     "stdio:team.skills-2", NULL, NULL);
	bad("mcp+stdio:", "mcp+stdio:NAME");
	bad("mcp+stdio:Team", "mcp+stdio:NAME");
	bad("mcp+stdio:a/b", "mcp+stdio:NAME");
	bad("mcp+ftp://h/x", "mcp+stdio:NAME");
	ok(sfs_source_is_url("mcp+stdio:x"), "mcp+stdio:NAME is a URL");
}

static void test_wellknown_urls(void)
{
	good("https://example.com/team//", "wellknown", SFS_URL_REMOTE,
	     "https://example.com/team", NULL, NULL);
	good("http://127.0.0.1:8080", "wellknown", SFS_URL_REMOTE,
	     "http://127.0.0.1:8080", NULL, NULL);
	bad("https://example.com/?page=2", "no query");
	bad("https:///x", "no host");
}

static void test_helpers(void)
{
	ok(sfs_source_is_url("git+file:///x") && !sfs_source_is_url("/x") &&
	   !sfs_source_is_url("git") && !sfs_source_is_url(NULL),
	   "sfs_source_is_url tells URLs from folders");
	ok(sfs_source_is_commit_id("0123456789abcdef0123456789ABCDEF01234567"),
	   "40 hex digits are a commit id");
	ok(!sfs_source_is_commit_id("0123456789abcdef") &&
	   !sfs_source_is_commit_id("0123456789abcdef0123456789abcdef0123456g") &&
	   !sfs_source_is_commit_id("0123456789abcdef0123456789abcdef012345678"),
	   "a short id, a non-hex digit or 41 digits are not");
}

/* The table of kinds: which kind a root names, and what it can do. */
static void test_kinds(void)
{
	ok(strcmp(sfs_source_kind("/srv/skills")->kind, "folder") == 0 &&
	   strcmp(sfs_source_kind("git+file:///x")->kind, "git") == 0 &&
	   strcmp(sfs_source_kind("mcp+stdio:x")->kind, "mcp") == 0 &&
	   strcmp(sfs_source_kind("gitx")->kind, "folder") == 0,
	   "a root is of the kind its prefix names, else a folder");
	ok(sfs_source_kind_named("git") == sfs_source_kind("git+file:///x") &&
	   !sfs_source_kind_named("svn") && !sfs_source_kind_named(NULL),
	   "a kind is found by its status.json name");
	ok(sfs_source_caps("/srv/skills") == SFS_SOURCE_WATCHED,
	   "a folder is watched, and nothing else");
	unsigned git = sfs_source_caps("git+https://example.com/r.git");
	unsigned local = sfs_source_caps("git+file:///srv/r.git");
	ok((git & SFS_SOURCE_VERSIONED) && (git & SFS_SOURCE_PUBLISHED) &&
	   (git & SFS_SOURCE_STOPPABLE) &&
	   !(git & (SFS_SOURCE_WATCHED | SFS_SOURCE_LISTENS |
	            SFS_SOURCE_READS_REMOTE)),
	   "git is versioned and published, not watched nor heard; a "
	   "remote's fetch is stopped");
	ok(local == (git & ~(unsigned)SFS_SOURCE_STOPPABLE),
	   "a git+file:// root is read in place: nothing to stop");
	unsigned http = sfs_source_caps("mcp+https://example.com/mcp");
	unsigned stdio = sfs_source_caps("mcp+stdio:team");
	ok((http & SFS_SOURCE_LISTENS) && (http & SFS_SOURCE_TOKEN) &&
	   (http & SFS_SOURCE_READS_REMOTE) && !(http & SFS_SOURCE_COMMAND),
	   "an MCP server over HTTP is heard and takes a token");
	ok(!(stdio & SFS_SOURCE_LISTENS) && !(stdio & SFS_SOURCE_TOKEN) &&
	   (stdio & SFS_SOURCE_COMMAND) && (stdio & SFS_SOURCE_STOPPABLE),
	   "an MCP server run as a command is not heard and takes none");
	ok(sfs_source_form("git+x")->lock == SFS_LOCK_COMMIT &&
	   sfs_source_form("mcp+https://h/x")->lock == SFS_LOCK_SKILLS &&
	   sfs_source_form("/x")->lock == SFS_LOCK_SKILLS,
	   "git is locked by its commit, MCP and folders by their skills");
}

/* The forms (source_form.c) and the kinds' operations (source.c) are two
 * tables under the same names: each kind has its form, each form its
 * kind, and a root is of the kind its form names. */
static void test_forms_match_kinds(void)
{
	static const char *const roots[] = {
		"git+file:///srv/r", "git+https://h/r", "mcp+https://h/mcp",
		"mcp+stdio:team", "https://example.com", "http://example.com/b",
		"/srv/skills", "skills", NULL,
	};
	const struct sfs_source_ops *k;
	size_t n = 0, paired = 0;

	for (size_t i = 0; (k = sfs_source_kind_at(i)); i++, n++)
		if (sfs_source_form_named(k->kind) &&
		    sfs_source_kind_named(k->kind) == k)
			paired++;
	size_t nforms = 0;
	while (sfs_source_form_at(nforms))
		nforms++;
	ok(n == nforms && paired == n, "every kind has its form (%zu of %zu, "
	   "%zu forms)", paired, n, nforms);
	bool same_kind = true;
	for (size_t i = 0; i < sizeof(roots) / sizeof(*roots); i++)
		same_kind = same_kind && strcmp(sfs_source_kind(roots[i])->kind,
		                                sfs_source_form(roots[i])->kind) == 0;
	ok(same_kind, "a root is of the kind its form names");
	bool urls = !sfs_source_is_url("/srv/skills") && !sfs_source_is_url(NULL);
	const struct sfs_source_form *f;
	for (size_t i = 0; (f = sfs_source_form_at(i)); i++)
		urls = urls && (!f->prefix || sfs_source_is_url(f->prefix)) &&
		       (!f->prefix2 || sfs_source_is_url(f->prefix2)) &&
		       !f->parse_url == !f->prefix && !f->help == !f->prefix;
	ok(urls, "URLs are the roots of a kind with a prefix, which parses "
	   "them and says what they bring in --help");
	ok(!sfs_source_form_named("nothing"), "no form of an unknown kind");
}

int main(void)
{
	test_file_urls();
	test_remote_urls();
	test_refused();
	test_mcp_urls();
	test_wellknown_urls();
	test_helpers();
	test_kinds();
	test_forms_match_kinds();
	return tap_end();
}
