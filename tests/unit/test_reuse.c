/*
 * test_reuse.c - rebuilds with the previous catalog: skill folders whose
 * entries kept their identity are taken whole from it (SKILL.md neither
 * read nor parsed), and stat alone finds them when their folders last
 * changed long enough before the previous build; and whatever was taken,
 * the catalog renders byte for byte what a build from nothing renders.
 * Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "snapshot.h"   /* white box: the listed counter */

/* Rewrites a file in place, keeping its inode (an editor that does not
 * save by rename). */
static void rewrite(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, text, strlen(text)) < 0 || close(fd) < 0)
		die(path);
}

/* A valid skill at root/<dir> with extra frontmatter lines, a reference
 * and a script. */
static void skill(const char *dir, const char *extra)
{
	write_skill(at("%s", dir), NULL, extra,
	            "See [the guide](references/guide.md).\n");
	write_file(at("%s/references/guide.md", dir), "# Guide\n");
	write_file(at("%s/scripts/run.sh", dir), "#!/bin/sh\necho run\n");
}

static sfs_catalog *build(const sfs_catalog *prev, unsigned margin_ms)
{
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .ctime_margin_ms = margin_ms };
	return build_catalog(&cfg, prev);
}

static char *cat_str(char *a, char *b)
{
	if (!a || !b) {
		free(a);
		free(b);
		return NULL;
	}
	size_t la = strlen(a), lb = strlen(b);
	char *r = realloc(a, la + lb + 1);
	if (!r) {
		free(a);
		free(b);
		return NULL;
	}
	memcpy(r + la, b, lb + 1);
	free(b);
	return r;
}

static void add_diag(const struct sfs_diag *d, void *arg)
{
	char **out = arg;
	char *line;
	if (asprintf(&line, "%s:%u:%u: %d: %s: %s\n", d->file, d->line,
	             d->column, d->severity, d->field, d->message) < 0)
		line = NULL;
	*out = cat_str(*out, line);
}

/* Every rendering of the catalog, and the folders it read, in one
 * string. */
static char *render_all(const sfs_catalog *cat)
{
	struct sfs_status_info info = { .generation = 1,
	                                .refresh_mode = "inotify" };
	const char *sources[] = { "--skills-dir" };
	info.root_sources = sources;
	char *all = strdup("");
	all = cat_str(all, sfs_render_index(cat));
	all = cat_str(all, sfs_render_skills_index(cat));
	all = cat_str(all, sfs_render_status(cat, &info));
	all = cat_str(all, sfs_render_findings(cat));
	for (size_t i = 0; i < sfs_catalog_nskills(cat); i++)
		all = cat_str(all, sfs_render_skill_record(cat,
		                                 sfs_catalog_skill(cat, i)));
	size_t n;
	const char *const *dirs = sfs_catalog_dirs(cat, &n);
	for (size_t i = 0; i < n; i++)
		all = cat_str(all, strdup(dirs[i]));
	sfs_catalog_each_diag(cat, add_diag, &all);
	return all;
}

/* The rebuild renders what a build from nothing renders. */
static void same_as_fresh(const sfs_catalog *cat, const char *what)
{
	sfs_catalog *fresh = build(NULL, 0);
	char *a = render_all(cat), *b = render_all(fresh);
	ok(a && b && strcmp(a, b) == 0, "%s: renders as a fresh build", what);
	free(a);
	free(b);
	sfs_catalog_unref(fresh);
}

/* Rebuilds on top of *cat, checks the counters, replaces *cat. */
static void rebuild(sfs_catalog **cat, unsigned margin_ms, size_t parsed,
                    size_t hashed, long listed, const char *what)
{
	sfs_catalog *next = build(*cat, margin_ms);
	ok(sfs_catalog_parsed(next) == parsed &&
	   sfs_catalog_hashed(next) == hashed,
	   "%s: %zu SKILL.md parsed, %zu files hashed (%zu, %zu)", what,
	   parsed, hashed, sfs_catalog_parsed(next),
	   sfs_catalog_hashed(next));
	if (listed >= 0)
		ok(next->listed == (size_t)listed,
		   "%s: %ld skill folders listed (%zu)", what, listed,
		   next->listed);
	same_as_fresh(next, what);
	sfs_catalog_unref(*cat);
	*cat = next;
}

/* Lets the clock pass the margin, so that the folders written so far
 * count as older than the next build. */
static void age(void)
{
	const struct timespec pause = { 0, 60 * 1000 * 1000 };
	nanosleep(&pause, NULL);
}

enum { N = 50, MARGIN_MS = 1, LIST_ALL_MS = 3600 * 1000 };

/* s01 depends on s02. */
#define DEPENDS "x-personal-mcp:\n  id: s01\n  version: 1.0.0\n" \
	"  capabilities: [resource://skills/s01/document]\n" \
	"  depends_on: [s02]\n"

static void populate(void)
{
	clear_top();
	for (int i = 0; i < N; i++) {
		char dir[64];
		snprintf(dir, sizeof(dir), "r/%ss%02d", i % 5 ? "" : "cat/", i);
		skill(dir, i == 1 ? DEPENDS : NULL);
	}
}

/* Reuse by listing: with a margin longer than the test, no folder's ctime
 * proves its listing, so every folder is listed again (however slowly the
 * test runs), but only changed skills are parsed. */
static void test_listing(void)
{
	populate();
	sfs_catalog *cat = build(NULL, 0);
	ok(sfs_catalog_parsed(cat) == N && sfs_catalog_nskills(cat) == N,
	   "a first build parses every SKILL.md (%zu)",
	   sfs_catalog_parsed(cat));
	rebuild(&cat, LIST_ALL_MS, 0, 0, N, "nothing changed");

	rewrite(at("r/s01/SKILL.md"), "---\nname: s01\ndescription: Edited."
	        "\n" DEPENDS "---\n# Edited\n");
	rebuild(&cat, LIST_ALL_MS, 1, 1, N, "SKILL.md edited in place");

	write_file(at("r/s03/references/more.md"), "# More\n");
	rebuild(&cat, LIST_ALL_MS, 1, 1, N, "a file added to a subfolder");

	if (unlink(at("r/s03/references/more.md")) < 0)
		die("unlink");
	rebuild(&cat, LIST_ALL_MS, 1, 0, N, "a file removed");

	if (chmod(at("r/s04/scripts/run.sh"), 0700) < 0)
		die("chmod");
	rebuild(&cat, LIST_ALL_MS, 1, 0, N, "a mode changed");

	/* s01 depends on s02: taken from prev, it must still be checked
	 * against the skills of this build. */
	if (rename(at("r/s02/SKILL.md"), at("r/s02/README.md")) < 0)
		die("rename");
	rebuild(&cat, LIST_ALL_MS, 0, 0, N - 1, "a dependency gone");
	const struct sfs_unserved *u;
	size_t n;
	bool s01_invalid = false;
	u = sfs_catalog_unserved(cat, &n);
	for (size_t i = 0; i < n; i++)
		s01_invalid |= strcmp(u[i].dir, at("r/s01")) == 0;
	ok(s01_invalid && !sfs_catalog_find(cat, "s01"),
	   "a skill taken from prev loses its missing dependency");
	if (rename(at("r/s02/README.md"), at("r/s02/SKILL.md")) < 0)
		die("rename");
	rebuild(&cat, LIST_ALL_MS, 1, 3, N, "a dependency back");
	ok(sfs_catalog_find(cat, "s01") != NULL, "and is served again");

	/* A listing with findings of its own is taken when a new listing
	 * finds the same. */
	if (mkfifo(at("r/s08/pipe"), 0644) < 0)
		die("mkfifo");
	rebuild(&cat, LIST_ALL_MS, 1, 0, N, "a FIFO hidden");
	rebuild(&cat, LIST_ALL_MS, 0, 0, N, "the same FIFO hidden");
	if (unlink(at("r/s08/pipe")) < 0)
		die("unlink");
	rebuild(&cat, LIST_ALL_MS, 1, 0, N, "the FIFO gone");

	/* Same name twice: the shadowed one is taken from prev too. */
	skill("r/zz/s07", NULL);
	rebuild(&cat, LIST_ALL_MS, 1, 3, N + 1, "a shadowing skill added");
	rebuild(&cat, LIST_ALL_MS, 0, 0, N + 1, "shadowing unchanged");

	/* Strictness changes every finding: nothing is taken. */
	const char *roots[] = { at("r") };
	struct sfs_config strict = { .roots = roots, .nroots = 1,
	                             .strict = true };
	sfs_catalog *s = NULL;
	if (sfs_catalog_build(&strict, cat, &s) < 0)
		die("strict build");
	ok(sfs_catalog_parsed(s) == N + 1 && sfs_catalog_hashed(s) == 0,
	   "--strict against a lenient prev parses again, hashes nothing");
	sfs_catalog_unref(s);
	sfs_catalog_unref(cat);
}

/* After a change: a rebuild once the clock has passed the margin, so that
 * the next change is the only one.  The changed folder may be listed
 * again (it changed shortly before the last build), nothing is parsed. */
static void settle(sfs_catalog **cat)
{
	age();
	rebuild(cat, MARGIN_MS, 0, 0, -1, "settled");
}

/* A change the caller made: the rebuild sees what rebuild() is told, and
 * the tree settles before the next one. */
static void seen(sfs_catalog **cat, size_t parsed, size_t hashed, long listed,
                 const char *what)
{
	rebuild(cat, MARGIN_MS, parsed, hashed, listed, what);
	settle(cat);
}

/* A system call the test needs (rc < 0: it failed, the test stops). */
static void must(int rc, const char *what)
{
	if (rc < 0)
		die(what);
}

/* Reuse by stat alone, once the folders are older than the margin. */
static void test_stat_only(void)
{
	populate();
	age();
	sfs_catalog *cat = build(NULL, MARGIN_MS);
	rebuild(&cat, MARGIN_MS, 0, 0, 0, "old folders, nothing changed");

	/* In place: no folder changes, the file does. */
	rewrite(at("r/cat/s05/references/guide.md"), "# Guide, edited\n");
	seen(&cat, 1, 1, 1, "a file edited in place");
	rebuild(&cat, MARGIN_MS, 0, 0, 0, "an edited skill found by stat");

	write_file(at("r/s06/scripts/extra.sh"), "#!/bin/sh\n");
	seen(&cat, 1, 1, 1, "a file added to a subfolder");

	write_file(at("r/cat/s10/NOTES.txt"), "notes\n");
	seen(&cat, 1, 1, 1, "a file added at the top");

	must(mkdir(at("r/s11/scripts/empty"), 0755), "mkdir");
	seen(&cat, 1, 0, 1, "an empty folder added");

	/* A hard link made outside the skill changes the file's link
	 * count, hence its ctime, not its folder. */
	must(link(at("r/s12/scripts/run.sh"), at("outside-link")), "link");
	rebuild(&cat, MARGIN_MS, 1, 0, 1, "a hard link made outside");
	ok(sfs_catalog_find(cat, "s12") &&
	   sfs_catalog_find(cat, "s12")->nfiles == 4,
	   "and the linked file is hidden");
	must(unlink(at("outside-link")), "unlink");
	seen(&cat, 1, 1, 1, "the hard link removed");

	must(rename(at("r/s13"), at("r/s13-moved")), "rename");
	seen(&cat, 1, 0, 1, "a skill folder renamed");

	skill("r/cat/new", NULL);
	seen(&cat, 1, 3, 1, "a skill added to a category");

	must(remove_tree(at("r/cat/new")), "remove");
	seen(&cat, 0, 0, 0, "a skill removed");

	/* A folder touched recently is listed again even when nothing in
	 * it changed. */
	struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	must(utimensat(AT_FDCWD, at("r/s14/references"), now, 0), "utimensat");
	seen(&cat, 1, 0, 1, "a subfolder touched");

	sfs_catalog *again = build(cat, 60 * 1000);
	ok(again->listed == N && sfs_catalog_parsed(again) == 0,
	   "with a margin longer than the folders' age, every folder is "
	   "listed and none parsed (%zu listed)", again->listed);
	sfs_catalog_unref(again);
	sfs_catalog_unref(cat);
}

static sfs_catalog *build_told(const sfs_catalog *prev,
                               const char *const *changed, size_t n)
{
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .changed = changed, .nchanged = n };
	sfs_catalog *cat = build_catalog(&cfg, prev);
	return cat;
}

/* Told which folders changed, a rebuild looks at nothing else but each
 * skill folder's own stat. */
static void test_told(void)
{
	populate();
	sfs_catalog *cat = build(NULL, 0);
	static const char *none[1];

	/* an edit in place that nobody reports is not looked for */
	rewrite(at("r/s03/references/guide.md"), "# Guide, told\n");
	sfs_catalog *next = build_told(cat, none, 0);
	ok(sfs_catalog_parsed(next) == 0 && sfs_catalog_hashed(next) == 0 &&
	   next->listed == 0, "told nothing changed, nothing is looked at");
	sfs_catalog_unref(next);

	/* reported: that skill is looked at, by stat, and read again */
	const char *refs[] = { at("r/s03/references") };
	next = build_told(cat, refs, 1);
	ok(sfs_catalog_parsed(next) == 1 && sfs_catalog_hashed(next) == 1 &&
	   next->listed == 1, "told about one folder, its skill is read");
	same_as_fresh(next, "told about one folder");
	sfs_catalog_unref(cat);
	cat = next;

	/* a skill folder put in place of another is another inode */
	if (rename(at("r/s04"), at("s04-old")) < 0 ||
	    rename(at("r/s06"), at("r/s04")) < 0)
		die("rename");
	next = build_told(cat, none, 0);
	ok(next->listed >= 1, "a folder swapped in is looked at anyway "
	   "(%zu listed)", next->listed);
	same_as_fresh(next, "a folder swapped in, told nothing");
	sfs_catalog_unref(next);

	/* NULL: not known, so every file is looked at */
	next = build_told(cat, NULL, 0);
	same_as_fresh(next, "not told");
	sfs_catalog_unref(next);
	sfs_catalog_unref(cat);
}

/* Folders read on several threads give what one thread gives. */
static void test_threads(void)
{
	populate();
	skill("r/zz/s07", NULL);   /* shadowing, across threads */
	write_file(at("r/s09/bad/SKILL.md"), "---\nname: nope\n---\n");
	const char *roots[] = { at("r") };
	struct sfs_config one = { .roots = roots, .nroots = 1, .threads = 1 };
	struct sfs_config four = { .roots = roots, .nroots = 1, .threads = 4 };
	sfs_catalog *a = NULL, *b = NULL, *c = NULL;
	if (sfs_catalog_build(&one, NULL, &a) < 0 ||
	    sfs_catalog_build(&four, NULL, &b) < 0 ||
	    sfs_catalog_build(&four, b, &c) < 0)
		die("sfs_catalog_build");
	char *ra = render_all(a), *rb = render_all(b), *rc = render_all(c);
	ok(ra && rb && strcmp(ra, rb) == 0 &&
	   sfs_catalog_parsed(a) == sfs_catalog_parsed(b) &&
	   sfs_catalog_hashed(a) == sfs_catalog_hashed(b),
	   "4 threads build what 1 builds (%zu parsed, %zu hashed)",
	   sfs_catalog_parsed(b), sfs_catalog_hashed(b));
	ok(rc && strcmp(ra, rc) == 0 && sfs_catalog_parsed(c) == 0 &&
	   sfs_catalog_hashed(c) == 0, "and so does a rebuild on 4");
	free(ra);
	free(rb);
	free(rc);
	sfs_catalog_unref(a);
	sfs_catalog_unref(b);
	sfs_catalog_unref(c);
}

/* The line document (measured with prev's help) read in pieces of every
 * size and at every offset gives the rendering. */
static bool lines_doc_renders_after(const sfs_catalog *cat, bool skills_index,
                                    const sfs_lines_doc *prev)
{
	sfs_lines_doc *d = sfs_lines_doc_new(cat, skills_index, prev);
	char *whole = skills_index ? sfs_render_skills_index(cat)
	                           : sfs_render_index(cat);
	bool same = d && whole && sfs_lines_doc_size(d) == strlen(whole);
	size_t size = same ? strlen(whole) : 0;
	char *buf = malloc(size + 1);
	static const size_t pieces[] = { 1, 2, 7, 100, 4096, 131072 };

	for (size_t k = 0; same && buf && k < 6; k++) {
		memset(buf, 0, size + 1);
		for (size_t off = 0; same && off < size; off += pieces[k]) {
			size_t n = size - off < pieces[k] ? size - off : pieces[k];
			same = sfs_lines_doc_read(d, off, n, buf + off) == 0;
		}
		same = memcmp(buf, whole, size) == 0;
	}
	free(buf);
	free(whole);
	sfs_lines_doc_free(d);
	return same && buf;
}

static bool lines_doc_renders(const sfs_catalog *cat, bool skills_index)
{
	return lines_doc_renders_after(cat, skills_index, NULL);
}

/* Skills a conforming client would refuse are left out of index.json but
 * not of skills_index.json, and the documents read in place agree. */
static void test_unlisted_lines(void)
{
	populate();
	/* first, middle and last by id, so every separator is exercised */
	write_file(at("r/a0/SKILL.md"), "---\nname: A Zero\ndescription: "
	           "Id from the folder, not the name.\n---\n# a\n");
	skill("r/s05b", "metadata:\n  n: 1\n");
	skill("r/zz", "compatibility: \"\"\n");
	const char *roots[] = { at("r") };
	struct sfs_config lines = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&lines, NULL);
	char *index = sfs_render_index(cat);
	char *skills = sfs_render_skills_index(cat);
	const struct sfs_skill *a = sfs_catalog_find(cat, "a0");
	ok(a && a->nunlisted == 1 && sfs_catalog_find(cat, "s05b") &&
	   sfs_catalog_find(cat, "zz") && sfs_catalog_nskills(cat) == N + 3,
	   "skills that break a client rule are served");
	ok(index && skills && !strstr(index, "skill://a0/") &&
	   !strstr(index, "skill://s05b/") && !strstr(index, "skill://zz/") &&
	   strstr(index, "skill://s00/") && strstr(skills, "\"a0\"") &&
	   strstr(skills, "\"s05b\"") && strstr(skills, "\"zz\""),
	   "left out of index.json only");
	ok(lines_doc_renders(cat, false) && lines_doc_renders(cat, true),
	   "and read in place the same, in pieces");
	ok(status_says(cat, "\"unlisted\"", "is not 1-64 of a-z"),
	   "status.json lists them with their reasons");
	free(index);
	free(skills);
	sfs_catalog_unref(cat);
}

/* Each skill keeps its frontmatter as index.json shows it; a lines doc
 * takes the entries' lengths of the skills a rebuild took unchanged from
 * the previous doc, and reads the same. */
static void test_lines_reuse(void)
{
	populate();
	skill("r/zz/s07", NULL);
	const char *roots[] = { at("r") };
	struct sfs_config lines = { .roots = roots, .nroots = 1 };
	sfs_catalog *b = NULL, *c = NULL;
	b = build_catalog(&lines, NULL);
	const struct sfs_skill *s = sfs_catalog_find(b, "s03");
	ok(s && s->frontmatter_json.p &&
	   strlen(s->frontmatter_json.p) == s->frontmatter_json.len &&
	   s->frontmatter_json.p[0] == '{', "the frontmatter as JSON text");
	ok(lines_doc_renders(b, false) && lines_doc_renders(b, true),
	   "index.json and skills_index.json read in place, in pieces");
	sfs_lines_doc *x = sfs_lines_doc_new(b, false, NULL);
	sfs_lines_doc *xs = sfs_lines_doc_new(b, true, NULL);

	rewrite(at("r/s04/SKILL.md"), "---\nname: s04\ndescription: New, "
	        "and longer than it was.\n---\n# s04\n");
	c = build_catalog(&lines, b);
	ok(sfs_catalog_parsed(c) == 1 && sfs_catalog_find(c, "s03") ==
	   sfs_catalog_find(b, "s03"), "a rebuild keeps the skills it takes");
	same_as_fresh(c, "lines after an edit");
	ok(lines_doc_renders_after(c, false, x) &&
	   lines_doc_renders_after(c, true, xs) &&
	   lines_doc_renders_after(c, false, xs),
	   "and its documents, measured with the previous ones, still read");
	sfs_lines_doc *y = sfs_lines_doc_new(c, false, x);
	sfs_lines_doc *z = sfs_lines_doc_new(b, false, x);
	ok(x && y && z && sfs_lines_doc_same(x, z) &&
	   !sfs_lines_doc_same(x, y), "the same lines, or not");
	sfs_lines_doc_free(x);
	sfs_lines_doc_free(xs);
	sfs_lines_doc_free(y);
	sfs_lines_doc_free(z);
	sfs_catalog_unref(b);
	sfs_catalog_unref(c);
}

/* Units are shared: the previous catalog may go first. */
static void test_lifetime(void)
{
	populate();
	sfs_catalog *a = build(NULL, 0);
	sfs_catalog *b = build(a, 0);
	char *before = render_all(b);
	sfs_catalog_unref(a);
	char *after = render_all(b);
	ok(before && after && strcmp(before, after) == 0,
	   "a rebuild outlives the catalog it took its skills from");
	free(before);
	free(after);
	sfs_catalog_unref(b);
}

/* sfs_config.held: a skill folder whose author is at work is taken from
 * the previous catalog as it was, its SKILL.md emptied or gone, its files
 * changed; once it is no longer held, a rebuild reads it as it is. */
static void test_held(void)
{
	populate();
	const char *roots[] = { at("r") };
	const char *held[] = { at("r/s02") };
	struct sfs_config plain = { .roots = roots, .nroots = 1 };
	struct sfs_config holding = plain;
	holding.held = held;
	holding.nheld = 1;
	sfs_catalog *a = build_catalog(&plain, NULL);
	const struct sfs_skill *s = sfs_catalog_find(a, "s02");

	rewrite(at("r/s02/SKILL.md"), "");
	rewrite(at("r/s02/references/guide.md"), "# Guide, half");
	rewrite(at("r/s03/references/guide.md"), "# Guide, new\n");
	sfs_catalog *b = build_catalog(&holding, a);
	ok(s && sfs_catalog_find(b, "s02") == s,
	   "a held skill with an empty SKILL.md is served as it was");
	const struct sfs_skill *t = sfs_catalog_find(b, "s03");
	ok(t && t != sfs_catalog_find(a, "s03") && t->nfiles &&
	   sfs_catalog_nskills(b) == sfs_catalog_nskills(a),
	   "and the others' changes are read");
	if (unlink(at("r/s02/SKILL.md")) < 0)
		die("unlink");
	sfs_catalog *c = build_catalog(&holding, b);
	ok(sfs_catalog_find(c, "s02") == s,
	   "a held skill without its SKILL.md is served as it was");
	sfs_catalog *d = build_catalog(&plain, c);
	ok(!sfs_catalog_find(d, "s02"), "no longer held, it is gone");
	remove_tree(at("r/s02"));
	sfs_catalog *e = build_catalog(&holding, c);
	ok(!sfs_catalog_find(e, "s02"), "a held folder that is gone is gone");
	sfs_catalog_unref(a);
	sfs_catalog_unref(b);
	sfs_catalog_unref(c);
	sfs_catalog_unref(d);
	sfs_catalog_unref(e);
}

int main(void)
{
	fixture_start("test_reuse");
	test_listing();
	test_stat_only();
	test_threads();
	test_told();
	test_lines_reuse();
	test_unlisted_lines();
	test_lifetime();
	test_held();
	return tap_end();
}
