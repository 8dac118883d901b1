/*
 * fixture.c - builds the mount-like folder described in fixture.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "skillsfs.h"

/* Half of PATH_MAX leaves room for the paths made inside it. */
static char base[PATH_MAX / 2]; /* the temporary folder */
static char mnt[PATH_MAX];      /* base/mnt, the "mount" */

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fixture: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* base/mnt/<rel> (or base/<rel> with outside set). */
__attribute__((format(printf, 2, 3)))
static const char *at(int outside, const char *fmt, ...)
{
	static char path[PATH_MAX];
	char rel[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", outside ? base : mnt,
			     rel) >= sizeof(path))
		die("path too long: %s", rel);
	return path;
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static void write_bytes(const char *path, const void *data, size_t len,
                        mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0)
			die("write %s: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, mode) < 0 || close(fd) < 0)
		die("finish %s: %s", path, strerror(errno));
}

/* Writes a rendering and frees it. */
static void write_text(const char *path, char *text)
{
	if (!text)
		die("out of memory rendering %s", path);
	write_bytes(path, text, strlen(text), 0444);
	free(text);
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	char *data = NULL;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		die("open %s: %s", from, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		char *p = realloc(data, len + (size_t)n);
		if (!p)
			die("out of memory");
		memcpy(p + len, buf, (size_t)n);
		data = p;
		len += (size_t)n;
	}
	if (n < 0)
		die("read %s: %s", from, strerror(errno));
	close(fd);
	write_bytes(to, data ? data : "", len, mode & 07777);
	free(data);
}

static void make_link(const char *target, const char *path)
{
	if (symlink(target, path) < 0)
		die("symlink %s: %s", path, strerror(errno));
}

/* skills/<id>/..., as the daemon serves it: same paths, bytes, modes. */
static void copy_skill(const struct sfs_skill *s)
{
	make_dir(at(0, "skills/%s", s->id));
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfs_file *f = &s->files[i];
		char from[PATH_MAX];
		const char *to = at(0, "skills/%s/%s", s->id, f->path);
		snprintf(from, sizeof(from), "%s/%s", s->dir, f->source);
		if (S_ISDIR(f->mode))
			make_dir(to);
		else if (S_ISLNK(f->mode))
			make_link(f->link, to);
		else
			copy_file(from, to, f->mode);
	}
	if (s->nrefs) {
		make_dir(at(0, "refs/%s", s->id));
		for (size_t i = 0; i < s->nrefs; i++) {
			char target[PATH_MAX];
			snprintf(target, sizeof(target), "../../skills/%s/%s",
				 s->id, s->refs[i].path);
			make_link(target, at(0, "refs/%s/%s.md", s->id,
					     s->refs[i].id));
		}
	}
}

static void render(const sfs_catalog *cat)
{
	const char *source = "--skills-dir";
	struct sfs_status_info info = {
		.generation = 1,
		.last_refresh = { .tv_sec = 1767323045 },
		.refresh_mode = "polling",
		.root_sources = &source,
	};

	make_dir(at(0, "catalog"));
	make_dir(at(0, "skills"));
	make_dir(at(0, "refs"));
	write_text(at(0, "index.json"), sfs_render_index(cat));
	write_text(at(0, "status.json"), sfs_render_status(cat, &info));
	write_text(at(0, "catalog/skills_index.json"),
		   sfs_render_skills_index(cat));
	for (size_t i = 0; i < sfs_catalog_nskills(cat); i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		write_text(at(0, "catalog/%s.json", s->id),
			   sfs_render_skill_record(cat, s));
		copy_skill(s);
	}
}

/* Authored docs (resource://docs/...), a folder the mount may carry. */
static void add_docs(void)
{
	static const char guide[] = "# Guide\n\nHow the skills fit together.\n";
	static const char deep[] = "# Deep\n\nA nested page.\n";

	make_dir(at(0, "docs"));
	make_dir(at(0, "docs/nested"));
	write_bytes(at(0, "docs/guide.md"), guide, sizeof(guide) - 1, 0444);
	write_bytes(at(0, "docs/nested/deep.md"), deep, sizeof(deep) - 1, 0444);
	write_bytes(at(0, "docs/notes.txt"), guide, sizeof(guide) - 1, 0444);
}

/* Ways out of the mount that a hostile or broken tree could offer. */
static void add_escapes(void)
{
	static const char secret[] = FIXTURE_SECRET "\n";
	char abs_secret[PATH_MAX];

	write_bytes(at(1, "secret.txt"), secret, sizeof(secret) - 1, 0644);
	write_bytes(at(1, "secret.md"), secret, sizeof(secret) - 1, 0644);
	snprintf(abs_secret, sizeof(abs_secret), "%s/secret.txt", base);
	make_link(abs_secret, at(0, "skills/pdf-forms/escape-abs.md"));
	make_link("../../../../secret.txt",
		  at(0, "skills/pdf-forms/scripts/escape-rel"));
	make_link("../../../secret.md", at(0, "docs/escape.md"));
	make_link(base, at(0, "skills/pdf-forms/escape-dir"));
	make_link("/", at(0, "skills/csv-report/root"));
	make_link("loop", at(0, "skills/csv-report/loop"));
	make_link("../../../secret.md", at(0, "refs/pdf-forms/escape.md"));
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_fixture(void)
{
	if (base[0])
		nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fixture_mount(const char *skills_dir)
{
	const char *tmp = getenv("TMPDIR");
	char root[PATH_MAX];

	if (!realpath(skills_dir, root))
		die("%s: %s", skills_dir, strerror(errno));
	snprintf(base, sizeof(base), "%s/skillsfs-fuzz-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		die("mkdtemp %s: %s", base, strerror(errno));
	atexit(remove_fixture);
	snprintf(mnt, sizeof(mnt), "%s/mnt", base);
	make_dir(mnt);

	const char *roots[] = { root };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat;
	int rc = sfs_catalog_build(&cfg, NULL, &cat);
	if (rc < 0)
		die("cannot build a catalog of %s: %s", root, strerror(-rc));
	if (sfs_catalog_nskills(cat) == 0)
		die("no skills in %s", root);
	render(cat);
	sfs_catalog_unref(cat);
	add_docs();
	add_escapes();
	return mnt;
}
