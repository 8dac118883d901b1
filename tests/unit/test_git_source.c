/*
 * test_git_source.c - the git source (shared/source_git.c) through the
 * catalog, over repositories made here with the git command: what a
 * commit's skills hold (modes, sizes, digests, links, the commit's time),
 * one commit per build, a rebuild that keeps the commit unless told to
 * resolve the ref again, and blobs the previous build listed at the same
 * path not hashed again.  Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "git_names.h"
#include "snapshot.h"
#include "source.h"

/* The first line of a git command's output in the work tree. */
#define git_out(args) sh_out("git -C %s %s", at("work"), args)

static void commit(const char *message)
{
	sh("cd %s && git add -A && git commit -q -m '%s'", at("work"), message);
}

static sfs_catalog *build_cached(const char *url, const sfs_catalog *prev,
                                 bool resolve, const char *cache_dir)
{
	const char *roots[] = { url };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .resolve_sources = resolve,
	                          .cache_dir = cache_dir };
	return build_catalog(&cfg, prev);
}

static sfs_catalog *build(const char *url, const sfs_catalog *prev,
                          bool resolve)
{
	return build_cached(url, prev, resolve, NULL);
}

static const struct sfs_file *file_of(const struct sfs_skill *s,
                                      const char *path)
{
	return s ? sfs_file_find(s->files, s->nfiles, path) : NULL;
}

static bool digest_is(const struct sfs_file *f, const char *text)
{
	uint8_t want[32];

	sfs_sha256(text, strlen(text), want);
	return f && f->hashed && f->size == (off_t)strlen(text) &&
	       memcmp(f->sha256, want, sizeof(want)) == 0;
}

static const char *commit_of(const sfs_catalog *cat)
{
	const struct sfs_source *src = sfs_catalog_source(cat, 0);
	return src->ops->version ? src->ops->version(src) : NULL;
}

/* Reads a served file through its source, as the mount does. */
static bool reads(const sfs_catalog *cat, const struct sfs_skill *s,
                  const struct sfs_file *f, const char *text)
{
	const struct sfs_source *src = sfs_catalog_source(cat, s->root);
	char buf[256];
	int fd = src->ops->open_file(src, -1, s, f);
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	return n == (ssize_t)strlen(text) && memcmp(buf, text, (size_t)n) == 0;
}

static void make_repo(void)
{
	mkdirs(at("work"));
	sh("git -C %s init -q -b main", at("work"));
	write_skill(at("work/skills/pdf-forms"), NULL, NULL, "Body.\n");
	write_file(at("work/skills/pdf-forms/guide.md"), "guide one\n");
	write_file(at("work/skills/pdf-forms/run.sh"), "#!/bin/sh\n");
	if (chmod(at("work/skills/pdf-forms/run.sh"), 0755) < 0)
		die("chmod");
	if (symlink("guide.md", at("work/skills/pdf-forms/link.md")) < 0)
		die("symlink");
	write_skill(at("work/skills/csv-report"), NULL, NULL, "Body.\n");
	commit("first");
}

static void test_listing(void)
{
	char url[1024];
	snprintf(url, sizeof(url), "git+file://%s#main:skills", at("work"));
	sfs_catalog *cat = build(url, NULL, false);
	const struct sfs_skill *s = sfs_catalog_find(cat, "pdf-forms");
	const struct sfs_file *guide = file_of(s, "guide.md");
	const struct sfs_file *run = file_of(s, "run.sh");
	const struct sfs_file *link = file_of(s, "link.md");

	ok(sfs_catalog_nskills(cat) == 2 && s, "both skills of the commit "
	   "are served");
	ok(s && strncmp(s->dir, url, strlen(url)) == 0 &&
	   strcmp(s->dir + strlen(url), "/pdf-forms") == 0,
	   "a skill is named by the URL and its path (%s)", s ? s->dir : "-");
	ok(commit_of(cat) && strcmp(commit_of(cat), git_out("rev-parse HEAD")) == 0,
	   "the source serves HEAD of main");
	ok(guide && S_ISREG(guide->mode) && (guide->mode & 0777) == 0644 &&
	   digest_is(guide, "guide one\n"), "a file: mode 644, its digest");
	ok(run && (run->mode & 0777) == 0755, "an executable file: mode 755");
	ok(link && S_ISLNK(link->mode) && link->link &&
	   strcmp(link->link, "guide.md") == 0 &&
	   digest_is(link, "guide one\n"),
	   "a symbolic link: its target, and the target's digest");
	ok(guide && guide->mtime.tv_sec ==
	   atol(git_out("log -1 --format=%ct")),
	   "the mtime is the commit's time");
	ok(s && guide && reads(cat, s, guide, "guide one\n"),
	   "a read gives the blob's bytes");
	sfs_catalog_unref(cat);
}

/* A second build without prev, with the cache folder of a first one,
 * reads no blob again: the digests were kept in cache/git-digests. */
static void test_kept_digests(void)
{
	char url[1024];
	snprintf(url, sizeof(url), "git+file://%s#main:skills", at("work"));
	sfs_catalog *first = build_cached(url, NULL, false, at("digests"));
	sfs_catalog *second = build_cached(url, NULL, false, at("digests"));
	const struct sfs_skill *s = sfs_catalog_find(second, "pdf-forms");

	ok(sfs_catalog_hashed(first) > 0 && sfs_catalog_hashed(second) == 0,
	   "a second mount hashes no blob the first read: %zu then %zu",
	   sfs_catalog_hashed(first), sfs_catalog_hashed(second));
	ok(digest_is(file_of(s, "guide.md"), "guide one\n"),
	   "and gives the same digests");
	size_t hashed_first = sfs_catalog_hashed(first);
	sfs_catalog_unref(first);
	sfs_catalog_unref(second);

	/* a damaged file is a cache: started again, never believed */
	FILE *f = fopen(at("digests/git-digests"), "w");
	fputs("not a digest file\n", f);
	fclose(f);
	/* without the skills kept whole, which would read no blob */
	ok(remove_tree(at("digests/git-units")) == 0,
	   "a first mount keeps the skills in git-units");
	sfs_catalog *third = build_cached(url, NULL, false, at("digests"));
	s = sfs_catalog_find(third, "pdf-forms");
	ok(sfs_catalog_hashed(third) == hashed_first &&
	   digest_is(file_of(s, "guide.md"), "guide one\n"),
	   "a file that is not a digest file is started again");
	sfs_catalog_unref(third);
}

static void test_rebuilds(void)
{
	char url[1024];
	snprintf(url, sizeof(url), "git+file://%s#main:skills", at("work"));
	sfs_catalog *first = build(url, NULL, false);
	char old[64];
	snprintf(old, sizeof(old), "%s", commit_of(first));

	write_file(at("work/skills/pdf-forms/guide.md"), "guide two\n");
	commit("second");
	sfs_catalog *kept = build(url, first, false);
	const struct sfs_skill *s = sfs_catalog_find(kept, "pdf-forms");
	ok(strcmp(commit_of(kept), old) == 0 &&
	   digest_is(file_of(s, "guide.md"), "guide one\n"),
	   "a rebuild not told to resolve keeps the commit");
	ok(s == sfs_catalog_find(first, "pdf-forms") &&
	   sfs_catalog_hashed(kept) == 0 && sfs_catalog_parsed(kept) == 0,
	   "and takes every skill unchanged, nothing hashed or parsed");

	sfs_catalog *moved = build(url, kept, true);
	s = sfs_catalog_find(moved, "pdf-forms");
	ok(strcmp(commit_of(moved), git_out("rev-parse HEAD")) == 0 &&
	   digest_is(file_of(s, "guide.md"), "guide two\n"),
	   "a rebuild that resolves serves the branch's new commit");
	/* SKILL.md, run.sh and link.md (whose target changed) of pdf-forms,
	 * and csv-report's SKILL.md kept their blobs; guide.md's new blob
	 * is read once, for the file and the link to it */
	ok(sfs_catalog_hashed(moved) == 1,
	   "only the changed blob is hashed, once for its file and its "
	   "link: %zu",
	   sfs_catalog_hashed(moved));
	ok(s && reads(moved, s, file_of(s, "guide.md"), "guide two\n") &&
	   reads(kept, sfs_catalog_find(kept, "pdf-forms"),
	         file_of(sfs_catalog_find(kept, "pdf-forms"), "guide.md"),
	         "guide one\n"),
	   "each catalog reads its own commit's bytes");
	sfs_catalog_unref(first);
	sfs_catalog_unref(kept);
	sfs_catalog_unref(moved);
}

/* The finding of the only root, or "". */
static const char *root_finding(const sfs_catalog *cat)
{
	size_t n;
	const struct sfs_diag *d = sfs_catalog_diags(cat, &n);
	return n ? d[0].message : "";
}

static void test_failures(void)
{
	char url[1024];
	snprintf(url, sizeof(url), "git+file://%s#nope", at("work"));
	sfs_catalog *cat = build(url, NULL, false);
	ok(strstr(root_finding(cat), "nope is not a branch, tag or commit") &&
	   !commit_of(cat) && sfs_catalog_nskills(cat) == 0,
	   "a ref that does not exist: %s", root_finding(cat));
	sfs_catalog_unref(cat);

	mkdirs(at("plain"));
	snprintf(url, sizeof(url), "git+file://%s", at("plain"));
	cat = build(url, NULL, false);
	ok(strstr(root_finding(cat), "is not a git repository") != NULL,
	   "a folder that is no repository: %s", root_finding(cat));
	sfs_catalog_unref(cat);

	cat = build("git+ssh://git@example.com/skills.git", NULL, false);
	ok(strstr(root_finding(cat), "no cache folder") != NULL,
	   "a remote repository without a cache folder: %s",
	   root_finding(cat));
	sfs_catalog_unref(cat);

	cat = build_cached("git+ssh://git@example.com/skills.git", NULL,
	                   false, at("cache"));
	ok(strstr(root_finding(cat), "not fetched yet") != NULL,
	   "a remote repository never fetched: %s", root_finding(cat));
	sfs_catalog_unref(cat);
}

/* The names git fsck refuses (fsck.c, path.c's is_ntfs_dotgit, utf8.c's
 * is_hfs_dotgit), and near misses it accepts. */
static void test_entry_names(void)
{
	static const char *const refused[] = {
		"", ".", "..", "a/b", "/", ".git", ".GIT", ".Git", ".git.",
		".git ", ".git. . ", "git~1", "GIT~1", ".git:stream",
		"dir\\.git", ".g\xe2\x80\x8cit", "\xef\xbb\xbf.git",
		".\xe2\x80\x8fgi\xe2\x80\xaat",
	};
	static const char *const accepted[] = {
		"...", ".gitignore", ".git-blame", "git", "git~2", ".gi",
		"a.git", ".g\xc3\xaft", "SKILL.md", "\xe2\x80\x8c",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		ok(sfs_git_bad_entry_name(refused[i]) != NULL,
		   "a tree entry named \"%s\" is refused", refused[i]);
	for (size_t i = 0; i < sizeof(accepted) / sizeof(*accepted); i++)
		ok(sfs_git_bad_entry_name(accepted[i]) == NULL,
		   "a tree entry named \"%s\" is accepted", accepted[i]);
}

int main(void)
{
	fixture_start("test_git_source");
	setenv("HOME", top, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "Test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
	make_repo();
	test_listing();
	test_kept_digests();
	test_rebuilds();
	test_failures();
	test_entry_names();
	return tap_end();
}
