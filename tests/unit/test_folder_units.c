/*
 * test_folder_units.c - a folder root's units kept across starts
 * (shared/kept_units.c, shared/sources/dir.c): a start with the cache
 * folder of a former one reads no skill whose entries all kept their stat
 * identity (also one reached through a link to its folder), reads again
 * every skill changed in between (an edit of the same size, a touch, a
 * rename, a file added or removed, a linked skill's target changed or
 * its link pointed at a copy), a skill changed too close to the former
 * start (racy) and every skill when the kept file is damaged, made for
 * other options, or by another key; and whatever it took, it renders
 * what a build without the cache renders.  A kept file of many units,
 * read a piece at a time, is taken whole, and not at all with a byte
 * flipped past its first piece.  Prints TAP.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "snapshot.h"   /* white box: the listed counter, started */

#define MARGIN_MS 50
/* the skills: six plain folders and two linked as the `skills` installer
 * links them (r/linked -> ../elsewhere/linked, and r/relinked) */
#define NSKILLS 8

static const char *const plain[] = { "edited", "touched", "renamed",
                                     "added", "removed", "still" };

static sfs_catalog *build(const char *cache, bool strict, unsigned margin)
{
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .cache_dir = cache, .strict = strict,
	                          .ctime_margin_ms = margin };
	return build_catalog(&cfg, NULL);
}

/* Lets the clock pass the margin, so that what was written so far is
 * older than the next start. */
static void age(unsigned ms)
{
	const struct timespec pause = { ms / 1000,
	                                (long)(ms % 1000 + 10) * 1000000 };
	nanosleep(&pause, NULL);
}

/* A start with the cache: its counters checked, and its index.json that
 * of a build without the cache. */
static sfs_catalog *start(bool strict, unsigned margin, size_t parsed,
                          size_t listed, const char *what)
{
	sfs_catalog *cat = build(at("cache"), strict, margin);
	sfs_catalog *fresh = build(NULL, strict, margin);
	char *a = sfs_render_index(cat), *b = sfs_render_index(fresh);

	ok(sfs_catalog_parsed(cat) == parsed && cat->listed == listed,
	   "%s: %zu SKILL.md parsed, %zu folders listed (%zu, %zu)", what,
	   parsed, listed, sfs_catalog_parsed(cat), cat->listed);
	ok(a && b && strcmp(a, b) == 0 && sfs_catalog_nskills(cat) == NSKILLS,
	   "%s: renders as a build without the cache", what);
	free(a);
	free(b);
	sfs_catalog_unref(fresh);
	return cat;
}

/* The one file of cache/folder-units. */
static const char *kept_file(void)
{
	return sh_out("ls -d %s/folder-units/*", at("cache"));
}

static void replace_bytes(const char *path, const char *text, off_t at_byte)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, text, strlen(text), at_byte) < 0 ||
	    close(fd) < 0)
		die(path);
}

/* The description of the skill at dir edited in place, its size kept. */
static void edit_description(const char *dir)
{
	char path[4096];
	size_t len;
	snprintf(path, sizeof(path), "%s/SKILL.md", dir);
	char *text = slurp(path, &len);
	const char *the = strstr(text, "description: The ");
	if (!the)
		die(path);
	replace_bytes(path, "THE", the - text + strlen("description: "));
	free(text);
}

static void test_restarts(void)
{
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		write_skill(at("r/%s", plain[i]), NULL, NULL, "Body.\n");
		write_file(at("r/%s/references/guide.md", plain[i]), "guide\n");
	}
	write_skill(at("elsewhere/linked"), NULL, NULL, "Body.\n");
	sh("ln -s ../elsewhere/linked %s", at("r/linked"));
	write_skill(at("elsewhere/one/relinked"), NULL, NULL, "Body.\n");
	sh("cp -a %s %s", at("elsewhere/one"), at("elsewhere/two"));
	sh("ln -s ../elsewhere/one/relinked %s", at("r/relinked"));
	mkdirs(at("cache"));
	chmod(at("cache"), 0700);
	age(MARGIN_MS);

	sfs_catalog_unref(start(false, MARGIN_MS, NSKILLS, NSKILLS,
	                        "a first start"));
	const char *kept = kept_file();
	ok(kept[0] == '/', "it keeps the units in folder-units: %s", kept);
	sfs_catalog_unref(start(false, MARGIN_MS, 0, 0,
	                        "a second start of unchanged folders"));

	/* changed while no mount ran */
	edit_description(at("r/edited"));
	sh("touch %s", at("r/touched/references/guide.md"));
	sh("mv %s %s", at("r/renamed/references/guide.md"),
	   at("r/renamed/references/moved.md"));
	write_file(at("r/added/notes.md"), "notes\n");
	sh("rm %s", at("r/removed/references/guide.md"));
	write_skill(at("elsewhere/linked"), NULL, "version: \"2\"\n",
	            "Body.\n");
	/* the same bytes and times, in other inodes */
	sh("ln -sfn ../elsewhere/two/relinked %s", at("r/relinked"));
	age(MARGIN_MS);
	sfs_catalog *cat = start(false, MARGIN_MS, NSKILLS - 1, NSKILLS - 1,
	                         "a start after seven changes");
	const struct sfs_skill *s = sfs_catalog_find(cat, "linked");
	ok(s && strstr(s->frontmatter_json.p, "\"version\":\"2\""),
	   "the linked skill's new frontmatter is served: %s",
	   s ? s->frontmatter_json.p : "(none)");
	sfs_catalog_unref(cat);
	age(MARGIN_MS);
	sfs_catalog_unref(start(false, MARGIN_MS, 0, 0,
	                        "and the next start reads none again"));
}

/* ctime in ms since the epoch */
static long long ms_of(struct timespec t)
{
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void test_racy(void)
{
	/* what others last changed lies 300 ms before the edit, so that a
	 * margin can put the edit alone inside it, whatever the load */
	age(300);
	edit_description(at("r/still"));
	/* past the margin: the start after the next trusts it again */
	age(MARGIN_MS);
	sfs_catalog *cat = start(false, MARGIN_MS, 1, 1,
	                         "a start just after an edit");
	struct stat st;
	if (stat(at("r/still/SKILL.md"), &st) < 0)
		die("stat");
	long long margin = ms_of(cat->started) - ms_of(st.st_ctim) + 100;
	sfs_catalog_unref(cat);
	/* the edit was in the kept units' margin: a change in the same
	 * clock tick after the listing would show the same identity */
	sfs_catalog_unref(start(false, (unsigned)margin, 1, 1,
	                        "an entry changed within the margin before "
	                        "the units were kept is read again"));
}

static void test_damaged(void)
{
	const char *kept = kept_file();
	char path[4096];
	snprintf(path, sizeof(path), "%s", kept);
	age(MARGIN_MS);
	sfs_catalog_unref(start(false, MARGIN_MS, 0, 0, "before damage"));

	struct stat st;
	if (stat(path, &st) < 0)
		die(path);
	replace_bytes(path, "X", st.st_size / 2);
	sfs_catalog *cat = start(false, MARGIN_MS, NSKILLS, NSKILLS,
	                         "a flipped byte");
	ok(status_says(cat, "folder-units) are not used", "corrupt or forged"),
	   "status.json says the kept units are not used");
	sfs_catalog_unref(cat);
	sfs_catalog_unref(start(false, MARGIN_MS, 0, 0,
	                        "the next start takes the units kept again"));

	if (truncate(path, st.st_size / 3) < 0)
		die(path);
	sfs_catalog_unref(start(false, MARGIN_MS, NSKILLS, NSKILLS,
	                        "a file cut short"));

	/* another key: another account's or a copied cache */
	write_file(at("cache/git-digests.key.new"),
	           "0123456789abcdef0123456789abcdef");
	chmod(at("cache/git-digests.key.new"), 0600);
	sh("mv %s %s", at("cache/git-digests.key.new"),
	   at("cache/git-digests.key"));
	sfs_catalog_unref(start(false, MARGIN_MS, NSKILLS, NSKILLS,
	                        "units kept under another key"));

	/* units depend on --strict: other options read every skill */
	sfs_catalog_unref(start(true, MARGIN_MS, NSKILLS, NSKILLS,
	                        "another option"));
	sfs_catalog_unref(start(true, MARGIN_MS, 0, 0,
	                        "and that option's next start"));
}

/* A root of MANY skills, each with a long frontmatter: a kept file
 * larger than the pieces kept_units.c reads it in (256 KiB), units
 * across their edges. */
#define MANY 400

static sfs_catalog *build_many(const char *cache)
{
	const char *roots[] = { at("many") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .cache_dir = cache,
	                          .ctime_margin_ms = MARGIN_MS };
	return build_catalog(&cfg, NULL);
}

static void start_many(size_t parsed, const char *what)
{
	sfs_catalog *cat = build_many(at("cache-many"));
	sfs_catalog *fresh = build_many(NULL);
	char *a = sfs_render_index(cat), *b = sfs_render_index(fresh);

	ok(sfs_catalog_parsed(cat) == parsed &&
	   a && b && strcmp(a, b) == 0 && sfs_catalog_nskills(cat) == MANY,
	   "%s: %zu SKILL.md parsed (%zu), renders as without the cache", what,
	   parsed, sfs_catalog_parsed(cat));
	free(a);
	free(b);
	sfs_catalog_unref(fresh);
	sfs_catalog_unref(cat);
}

static void test_many(void)
{
	char pad[1001], extra[1100];
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = 0;
	for (int i = 0; i < MANY; i++) {
		snprintf(extra, sizeof(extra), "metadata:\n  pad: %d%s\n", i,
		         pad);
		write_skill(at("many/s%03d", i), NULL, extra, "Body.\n");
	}
	mkdirs(at("cache-many"));
	chmod(at("cache-many"), 0700);
	age(MARGIN_MS);
	start_many(MANY, "a first start of many");
	char path[4096];
	snprintf(path, sizeof(path), "%s",
	         sh_out("ls -d %s/folder-units/*", at("cache-many")));
	struct stat st;
	if (stat(path, &st) < 0)
		die(path);
	ok(st.st_size > 2 * (256 << 10), "the kept file spans pieces: %lld "
	   "bytes", (long long)st.st_size);
	start_many(0, "a second start takes every unit");
	replace_bytes(path, "X", st.st_size / 4 * 3);
	start_many(MANY, "a byte flipped past the first piece");
}

int main(void)
{
	fixture_start("folder-units");
	test_restarts();
	test_racy();
	test_damaged();
	test_many();
	return tap_end();
}
