/*
 * test_lockfile.c - the lockfile (shared/lockfile.c): the digest of a
 * skill's content against a value computed by hand, the same digest from
 * a catalog's skill, a lock written and read back unchanged (an MCP
 * server's too), and every kind of malformed lockfile refused with an
 * error naming its field.
 * Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lockfile.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"
#define OTHER  "89abcdef0123456789abcdef0123456789abcdef"
#define DIGEST "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void hex(const uint8_t d[32], char out[SFS_DIGEST_LEN])
{
	sfs_format_digest(d, out);
}

/* ---- the digest ---------------------------------------------------------- */

static struct sfs_manifest_entry entry(const char *path, const char *text)
{
	struct sfs_manifest_entry e = { .path = path, .size = strlen(text) };

	sfs_sha256(text, strlen(text), e.sha256);
	return e;
}

static void test_digest_by_hand(void)
{
	/* python3: sha256 of b"".join(p + b"\0" + str(len(c)) + b"\0" +
	 * sha256(c).hexdigest() + b"\n") over the files sorted by path */
	struct sfs_manifest_entry v[] = {
		entry("SKILL.md", "hello"), entry("a/b.txt", ""),
		entry("B.md", "abc"),
	};
	uint8_t d[32];
	char got[SFS_DIGEST_LEN];

	sfs_manifest_digest(v, 3, d);
	hex(d, got);
	ok(strcmp(got, "sha256:f6c880330ac4048a57dd25db4c84c5ba8ad7918231c4"
	           "5186a43c5080d591807e") == 0,
	   "the digest of three files is the one computed by hand (%s)", got);
	ok(strcmp(v[0].path, "B.md") == 0 && strcmp(v[2].path, "a/b.txt") == 0,
	   "the files are sorted by path, in byte order");
	sfs_manifest_digest(NULL, 0, d);
	hex(d, got);
	ok(strcmp(got, DIGEST) == 0, "no file: the digest of nothing (%s)",
	   got);
}

/* A skill's digest from the catalog is the one of its files with
 * content: regular files and links to them, not folders. */
static void test_digest_of_skill(void)
{
	const char *dir = at("root/pdf");
	uint8_t d[32], want[32];
	char got[SFS_DIGEST_LEN], expect[SFS_DIGEST_LEN];

	clear_top();
	mkdirs(dir);
	write_skill(dir, NULL, NULL, "Body.\n");
	write_file(at("root/pdf/ref.md"), "# Ref\n");
	write_file(at("root/pdf/sub/x.txt"), "x\n");
	mkdirs(at("root/pdf/empty"));
	if (symlink("ref.md", at("root/pdf/link.md")) < 0)
		die("symlink");

	const char *roots[] = { at("root") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&cfg, NULL);
	const struct sfs_skill *s = sfs_catalog_find(cat, "pdf");
	char md[8192];
	FILE *f = fopen(at("root/pdf/SKILL.md"), "r");
	size_t mdlen = f ? fread(md, 1, sizeof(md) - 1, f) : 0;
	if (f)
		fclose(f);
	md[mdlen] = '\0';
	struct sfs_manifest_entry v[] = {
		entry("SKILL.md", md), entry("ref.md", "# Ref\n"),
		entry("link.md", "# Ref\n"), entry("sub/x.txt", "x\n"),
	};
	sfs_manifest_digest(v, 4, want);
	hex(want, expect);
	int rc = s ? sfs_skill_digest(s, d) : -ENOENT;
	if (rc == 0)
		hex(d, got);
	ok(rc == 0 && memcmp(d, want, 32) == 0,
	   "a catalog's skill has the digest of its manifest (%s, want %s)",
	   rc == 0 ? got : "no skill", expect);
	sfs_catalog_unref(cat);
}

/* ---- writing and reading ------------------------------------------------- */

static bool same_lock(const struct sfs_lock *a, const struct sfs_lock *b)
{
	if (a->nsources != b->nsources)
		return false;
	for (size_t i = 0; i < a->nsources; i++) {
		const struct sfs_lock_source *x = &a->sources[i];
		const struct sfs_lock_source *y = &b->sources[i];
		if (strcmp(x->root, y->root) != 0 ||
		    (x->commit == NULL) != (y->commit == NULL) ||
		    (x->commit && strcmp(x->commit, y->commit) != 0) ||
		    x->names_skills != y->names_skills ||
		    x->nskills != y->nskills)
			return false;
		for (size_t k = 0; k < x->nskills; k++)
			if (strcmp(x->skills[k].id, y->skills[k].id) != 0 ||
			    memcmp(x->skills[k].digest, y->skills[k].digest, 32))
				return false;
	}
	return true;
}

/* text, as lock was written, read back with home as HOME: the same lock
 * in *back (to be freed when the answer is 0). */
static int read_back(const struct sfs_lock *lock, const char *text,
                     const char *home, struct sfs_lock *back)
{
	struct sfs_lock_error err = { "", "" };
	int rc = text ? sfs_lock_parse(text, strlen(text), home, back, &err)
	              : -ENOMEM;

	ok(rc == 0 && same_lock(lock, back),
	   "read back: the same sources and skills (%d: %s: %s)", rc,
	   err.field, err.message);
	return rc;
}

/* back, read from text, written again (with home as HOME): the same
 * bytes. */
static void same_bytes_again(const struct sfs_lock *back, const char *home,
                             const char *text)
{
	char *again = sfs_lock_format(back, home);

	ok(again && strcmp(text, again) == 0, "written again: the same bytes");
	free(again);
}

static void test_round_trip(void)
{
	struct sfs_lock lock = { 0 }, back;
	uint8_t d1[32], d2[32];
	char *home_path, *text;

	sfs_sha256("one", 3, d1);
	sfs_sha256("two", 3, d2);
	if (asprintf(&home_path, "%s/.agents/skills", top) < 0)
		die("asprintf");
	ok(sfs_lock_add_source(&lock, "git+file:///srv/skills.git#main:skills",
	                       "0123456789ABCDEF0123456789abcdef01234567") == 0 &&
	   strcmp(lock.sources[0].root, "git+file:///srv/skills.git#"
	          COMMIT ":skills") == 0 &&
	   strcmp(lock.sources[0].commit, COMMIT) == 0,
	   "a git source is named by its URL with the commit as REF (%s)",
	   lock.nsources ? lock.sources[0].root : "none");
	ok(sfs_lock_add_source(&lock, home_path, NULL) == 0 &&
	   sfs_lock_add_skill(&lock.sources[1], "csv-report", d1) == 0 &&
	   sfs_lock_add_skill(&lock.sources[1], "pdf-forms", d2) == 0,
	   "a folder below HOME with two skills");
	ok(sfs_lock_add_skill(&lock.sources[1], "apple", d1) == -EINVAL &&
	   sfs_lock_add_skill(&lock.sources[1], "pdf-forms", d1) == -EINVAL &&
	   sfs_lock_add_skill(&lock.sources[0], "zeta", d1) == -EINVAL,
	   "skills come in id order, each once, and only in a folder");
	ok(sfs_lock_add_source(&lock, "/srv/team-skills", NULL) == 0 &&
	   sfs_lock_add_source(&lock, "relative", NULL) == -EINVAL &&
	   sfs_lock_add_source(&lock, "git+file:///r", "abc") == -EINVAL &&
	   lock.nsources == 3,
	   "a folder elsewhere with none; a relative folder and a short "
	   "commit are refused");

	text = sfs_lock_format(&lock, top);
	ok(text && strstr(text, "\"path\": \"~/.agents/skills\"") &&
	   strstr(text, "\"path\": \"/srv/team-skills\"") &&
	   strstr(text, "\"lockfileVersion\": 1,") &&
	   text[strlen(text) - 1] == '\n',
	   "written: a folder below HOME as ~/, elsewhere as it is");
	if (read_back(&lock, text, top, &back) == 0) {
		same_bytes_again(&back, top, text);
		ok(sfs_lock_find(&back.sources[1], "pdf-forms") &&
		   !sfs_lock_find(&back.sources[1], "pdf") &&
		   !sfs_lock_find(&back.sources[2], "pdf-forms"),
		   "skills are found by id");
		sfs_lock_free(&back);
	}
	free(text);
	free(home_path);
	sfs_lock_free(&lock);
}

/* An MCP server is named by its URL, like a git source, and names its
 * skills, like a folder. */
static void test_mcp_source(void)
{
	static const char url[] = "mcp+https://skills.example.com/mcp";
	struct sfs_lock lock = { 0 }, back;
	uint8_t d1[32], d2[32];

	sfs_sha256("one", 3, d1);
	sfs_sha256("two", 3, d2);
	ok(sfs_lock_add_source(&lock, url, NULL) == 0 &&
	   strcmp(lock.sources[0].root, url) == 0 && !lock.sources[0].commit &&
	   lock.sources[0].names_skills &&
	   sfs_lock_add_skill(&lock.sources[0], "csv-report", d1) == 0 &&
	   sfs_lock_add_skill(&lock.sources[0], "pdf-forms", d2) == 0,
	   "an MCP server: its URL as it is, and its skills");
	ok(sfs_lock_add_source(&lock, url, COMMIT) == -EINVAL &&
	   sfs_lock_add_source(&lock, "git+file:///r", NULL) == -EINVAL &&
	   sfs_lock_add_source(&lock, "mcp+ftp://skills.example.com/mcp",
	                       NULL) == -EINVAL &&
	   sfs_lock_add_source(&lock, "mcp+https://h/mcp#x", NULL) == -EINVAL &&
	   lock.nsources == 1,
	   "refused: an MCP server with a commit, a git source without one, "
	   "URLs that name no MCP server");

	/* a HOME that is a prefix of the URL: a URL is never written ~/ */
	char *text = sfs_lock_format(&lock, "mcp+https://skills.example.com");
	ok(text && strstr(text, "\"url\": \"mcp+https://skills.example.com/"
	                  "mcp\",\n      \"skills\": {\n        "
	                  "\"csv-report\": \"sha256:") &&
	   !strstr(text, "\"commit\"") && !strstr(text, "\"path\"") &&
	   !strstr(text, "~"),
	   "written: url and skills, the URL as it is");
	if (read_back(&lock, text, "/h", &back) == 0) {
		ok(!back.sources[0].commit && back.sources[0].names_skills &&
		   sfs_lock_find(&back.sources[0], "pdf-forms") &&
		   memcmp(sfs_lock_find(&back.sources[0], "pdf-forms")->digest,
		          d2, 32) == 0,
		   "read back: the URL, no commit, the skills' digests");
		same_bytes_again(&back, NULL, text);
		sfs_lock_free(&back);
	}
	free(text);
	sfs_lock_free(&lock);
}

/* A server run from the config file (mcp+stdio:NAME) is locked the same
 * way: by its name and its skills; a mount takes its command from
 * --config. */
static void test_stdio_source(void)
{
	static const char root[] = "mcp+stdio:team";
	struct sfs_lock lock = { 0 }, back;
	uint8_t d[32];

	sfs_sha256("one", 3, d);
	ok(sfs_lock_add_source(&lock, root, NULL) == 0 &&
	   lock.sources[0].names_skills &&
	   sfs_lock_add_skill(&lock.sources[0], "pdf-forms", d) == 0 &&
	   sfs_lock_add_source(&lock, root, COMMIT) == -EINVAL &&
	   lock.nsources == 1,
	   "a stdio server: its name and its skills, and no commit");
	char *text = sfs_lock_format(&lock, NULL);
	ok(text && strstr(text, "\"url\": \"mcp+stdio:team\""),
	   "written: its name as the url");
	if (read_back(&lock, text, "/h", &back) == 0) {
		ok(back.sources[0].names_skills, "read back: it names skills");
		sfs_lock_free(&back);
	}
	free(text);
	sfs_lock_free(&lock);
}

/* ---- what is refused ----------------------------------------------------- */

#define V1 "{\"lockfileVersion\":1,\"sources\":["
#define FOLDER "{\"path\":\"/x\",\"skills\":{}}"
#define MCP "mcp+https://skills.example.com/mcp"

/* text is refused with an error on `field` whose message holds `says`. */
static void bad(const char *text, const char *home, const char *field,
                const char *says)
{
	struct sfs_lock lock;
	struct sfs_lock_error err;
	int rc = sfs_lock_parse(text, strlen(text), home, &lock, &err);
	char shown[512];

	/* on one TAP line */
	snprintf(shown, sizeof(shown), "%s", text);
	for (char *p = shown; *p; p++)
		if (*p == '\n')
			*p = ' ';
	ok(rc == -EINVAL && strcmp(err.field, field) == 0 &&
	   strstr(err.message, says),
	   "%s: refused on \"%s\" (got %d: \"%s\": %s)", shown, field, rc,
	   err.field, err.message);
	if (rc == 0)
		sfs_lock_free(&lock);
}

static void test_malformed(void)
{
	bad("not json", "/h", "", "not JSON (at line 1, column 1)");
	bad("{\"lockfileVersion\":1,\n \"sources\": [}", "/h", "",
	    "not JSON (at line 2");
	bad("[]", "/h", "", "expected a JSON object");
	bad("{\"sources\":[]}", "/h", "lockfileVersion", "missing");
	bad("{\"lockfileVersion\":\"1\",\"sources\":[]}", "/h",
	    "lockfileVersion", "expected a number");
	bad("{\"lockfileVersion\":2,\"sources\":[],\"files\":1}", "/h",
	    "lockfileVersion", "version 2 is not one this skillsfs reads");
	bad("{\"lockfileVersion\":1}", "/h", "sources", "missing");
	bad("{\"lockfileVersion\":1,\"sources\":{}}", "/h", "sources",
	    "expected an array");
	bad(V1 "]}", "/h", "sources", "names no source");
	bad(V1 FOLDER "],\"extra\":true}", "/h", "extra", "unknown member");
	bad(V1 "1]}", "/h", "sources[0]", "expected an object");
	bad(V1 "{}]}", "/h", "sources[0]", "missing url");
	bad(V1 "{\"url\":\"git+file:///r\",\"path\":\"/x\"}]}", "/h",
	    "sources[0]", "both url and path");
	bad(V1 FOLDER ",{\"path\":\"/y\",\"skills\":{},\"tag\":1}]}", "/h",
	    "sources[1].tag", "unknown member");
	bad(V1 "{\"url\":\"git+file:///r\"}]}", "/h", "sources[0].commit",
	    "missing");
	bad(V1 "{\"url\":\"git+file:///r\",\"commit\":\"abc\"}]}", "/h",
	    "sources[0].commit", "40 hex digits");
	bad(V1 "{\"url\":\"git+file:///r\",\"commit\":7}]}", "/h",
	    "sources[0].commit", "expected a full commit id");
	bad(V1 "{\"url\":3,\"commit\":\"" COMMIT "\"}]}", "/h",
	    "sources[0].url", "expected a source URL");
	bad(V1 "{\"url\":\"ftp://x/r\",\"commit\":\"" COMMIT "\"}]}", "/h",
	    "sources[0].url", "not a source URL");
	bad(V1 "{\"url\":\"git+file:///r#" OTHER "\",\"commit\":\"" COMMIT
	    "\"}]}", "/h", "sources[0].url", "another commit");
	bad(V1 "{\"url\":\"git+file:///r\",\"commit\":\"" COMMIT
	    "\",\"skills\":{}}]}", "/h", "sources[0].skills",
	    "pinned by its commit");
	bad(V1 "{\"url\":\"git+file:///r\",\"skills\":{}}]}", "/h",
	    "sources[0].skills", "a git source is pinned by its commit; "
	    "skills is for a folder (path) or a source pinned by its "
	    "skills");
	bad(V1 "{\"url\":\"" MCP "\",\"commit\":\"" COMMIT
	    "\",\"skills\":{}}]}", "/h", "sources[0].commit",
	    "this source has no commit: a source of its kind is pinned");
	bad(V1 "{\"url\":\"" MCP "\"}]}", "/h", "sources[0].skills",
	    "missing: an MCP server names the skills it served");
	bad(V1 "{\"url\":\"" MCP "\",\"skills\":[]}]}", "/h",
	    "sources[0].skills", "expected an object");
	bad(V1 "{\"url\":\"" MCP "\",\"skills\":{\"a\":\"md5:00\"}}]}",
	    "/h", "sources[0].skills.a", "\"sha256:\" and 64 lowercase hex");
	bad(V1 "{\"url\":\"mcp+ftp://h/mcp\",\"skills\":{}}]}", "/h",
	    "sources[0].url", "an MCP server is named by mcp+https://");
	bad(V1 "{\"url\":\"" MCP "#x\",\"skills\":{}}]}", "/h",
	    "sources[0].url", "no fragment");
	bad(V1 "{\"path\":\"/x\"}]}", "/h", "sources[0].skills", "missing");
	bad(V1 "{\"path\":\"/x\",\"skills\":[]}]}", "/h", "sources[0].skills",
	    "expected an object");
	bad(V1 "{\"path\":\"rel\",\"skills\":{}}]}", "/h", "sources[0].path",
	    "absolute");
	bad(V1 "{\"path\":\"~/s\",\"skills\":{}}]}", NULL, "sources[0].path",
	    "HOME is not set");
	bad(V1 "{\"path\":\"/x\",\"commit\":\"" COMMIT "\",\"skills\":{}}]}",
	    "/h", "sources[0].commit", "has no commit");
	bad(V1 "{\"path\":\"/x\",\"skills\":{\"Bad_Id\":\"" DIGEST "\"}}]}",
	    "/h", "sources[0].skills.Bad_Id", "not a skill id");
	bad(V1 "{\"path\":\"/x\",\"skills\":{\"a\":\"md5:00\"}}]}", "/h",
	    "sources[0].skills.a", "\"sha256:\" and 64 lowercase hex");
	bad(V1 "{\"path\":\"/x\",\"skills\":{\"a\":\"" DIGEST "\",\"a\":\""
	    DIGEST "\"}}]}", "/h", "sources[0].skills.a", "given twice");
}

static void test_reading(void)
{
	struct sfs_lock lock;
	struct sfs_lock_error err;
	int rc = sfs_lock_read(at("no-such.lock"), "/h", &lock, &err);

	ok(rc == -ENOENT && strstr(err.message, "cannot read: No such file"),
	   "a missing lockfile: %s", err.message);
	write_file(at("s.lock"), V1 "{\"path\":\"~/skills\",\"skills\":{\"a\":"
	           "\"" DIGEST "\"}}]}\n");
	rc = sfs_lock_read(at("s.lock"), "/home/me/", &lock, &err);
	ok(rc == 0 && lock.nsources == 1 &&
	   strcmp(lock.sources[0].root, "/home/me/skills") == 0 &&
	   lock.sources[0].names_skills && lock.sources[0].nskills == 1,
	   "a lockfile read: ~/ is HOME (%s)",
	   rc == 0 ? lock.sources[0].root : err.message);
	if (rc == 0)
		sfs_lock_free(&lock);
}

/* ---- a catalog built with a lock ---------------------------------------- */

static bool says(const struct sfs_unserved *u, enum sfs_severity sev,
                 const char *text)
{
	for (size_t i = 0; u && i < u->ndiags; i++)
		if (u->diags[i].severity == sev &&
		    strstr(u->diags[i].message, text))
			return true;
	return false;
}

/* Locks what a build of roots serves: both are folders. */
static void lock_catalog(const sfs_catalog *cat, struct sfs_lock *lock)
{
	for (size_t r = 0; r < sfs_catalog_nroots(cat); r++) {
		if (sfs_lock_add_source(lock, sfs_catalog_root(cat, r), NULL))
			die("sfs_lock_add_source");
		for (size_t i = 0; i < sfs_catalog_nskills(cat); i++) {
			const struct sfs_skill *s = sfs_catalog_skill(cat, i);
			uint8_t d[32];
			if (s->root == r && (sfs_skill_digest(s, d) ||
			    sfs_lock_add_skill(&lock->sources[r], s->id, d)))
				die("sfs_lock_add_skill");
		}
	}
}

static void test_catalog_lock(void)
{
	struct sfs_lock lock = { 0 };
	char *a = strdup(at("a")), *b = strdup(at("b"));   /* at() reuses */
	const char *roots[] = { a, b };
	struct sfs_config cfg = { .roots = roots, .nroots = 2 };
	char want[SFS_DIGEST_LEN];

	clear_top();
	mkdirs(at("a/alpha"));
	write_skill(at("a/alpha"), NULL, NULL, "Alpha.\n");
	mkdirs(at("a/beta"));
	write_skill(at("a/beta"), NULL, NULL, "Beta.\n");
	mkdirs(at("b/delta"));
	write_skill(at("b/delta"), NULL, NULL, "Delta.\n");
	sfs_catalog *cat = build_catalog(&cfg, NULL);
	lock_catalog(cat, &lock);
	const struct sfs_lock_skill *beta = sfs_lock_find(&lock.sources[0],
	                                                  "beta");
	sfs_catalog_unref(cat);

	cfg.lock = &lock;
	cat = build_catalog(&cfg, NULL);
	struct sfs_counts n = sfs_catalog_counts(cat);
	ok(n.served == 3 && n.invalid == 0 && n.unlocked == 0 &&
	   n.warnings == 0, "the locked sources as locked: all served");
	sfs_catalog_unref(cat);

	/* a new skill, one edited, and one of a later root's locked id */
	mkdirs(at("a/gamma"));
	write_skill(at("a/gamma"), NULL, NULL, "Gamma.\n");
	write_file(at("a/beta/notes.md"), "A file more.\n");
	mkdirs(at("a/delta"));
	write_skill(at("a/delta"), NULL, NULL, "Another delta.\n");
	cat = build_catalog(&cfg, NULL);
	n = sfs_catalog_counts(cat);
	const struct sfs_unserved *g = unserved_at(cat, at("a/gamma"));
	ok(g && g->reason == SFS_UNLOCKED &&
	   says(g, SFS_WARNING, "skill \"gamma\" is not in the lock of"),
	   "a skill the lock does not name: not served, with a warning");
	const struct sfs_unserved *e = unserved_at(cat, at("a/beta"));
	sfs_format_digest(beta->digest, want);
	char text[256];
	snprintf(text, sizeof(text), "skill \"beta\" differs from the lock: "
	         "locked %s, found sha256:", want);
	ok(e && e->reason == SFS_INVALID && says(e, SFS_ERROR, text),
	   "an edited skill: withdrawn, with an error naming both digests");
	const struct sfs_skill *s = sfs_catalog_find(cat, "delta");
	ok(s && strcmp(s->dir, at("b/delta")) == 0 &&
	   unserved_at(cat, at("a/delta")) &&
	   unserved_at(cat, at("a/delta"))->reason == SFS_UNLOCKED,
	   "a skill not in the lock shadows no locked one of a later root");
	ok(n.served == 2 && n.invalid == 1 && n.unlocked == 2 &&
	   n.shadowed == 0, "counts: %zu served, %zu invalid, %zu unlocked",
	   n.served, n.invalid, n.unlocked);
	ok(status_says(cat, "\"unlocked\":\t2", "\"state\":\t\"unlocked\""),
	   "status.json counts them and names their state");
	sfs_catalog_unref(cat);

	cfg.strict = true;
	cat = build_catalog(&cfg, NULL);
	ok(says(unserved_at(cat, at("a/gamma")), SFS_ERROR, "not in the lock"),
	   "with strict, a skill not in the lock is an error");
	sfs_catalog_unref(cat);

	/* the file goes again: served as locked */
	unlink(at("a/beta/notes.md"));
	cfg.strict = false;
	cat = build_catalog(&cfg, NULL);
	s = sfs_catalog_find(cat, "beta");
	uint8_t d[32];
	ok(s && sfs_skill_digest(s, d) == 0 && memcmp(d, beta->digest, 32) == 0,
	   "the skill as locked again: served again");
	sfs_catalog_unref(cat);
	sfs_lock_free(&lock);
	free(a);
	free(b);
}

int main(void)
{
	fixture_start("test_lockfile");
	test_digest_by_hand();
	test_digest_of_skill();
	test_round_trip();
	test_mcp_source();
	test_stdio_source();
	test_malformed();
	test_reading();
	test_catalog_lock();
	return tap_end();
}
