/*
 * fixture.c - the shared unit test fixture described in fixture.h.
 */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"

static int tests, failures;
static char top_buf[64];
const char *top = top_buf;

void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		failures++;
}

int tap_end(void)
{
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}

void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void remove_top(void)
{
	remove_tree(top);
}

void fixture_start(const char *name)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(top_buf, sizeof(top_buf), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(top_buf))
		die("mkdtemp");
	atexit(remove_top);
}

const char *at(const char *fmt, ...)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];
	va_list ap;

	int n = snprintf(b, 4096, "%s/", top);
	va_start(ap, fmt);
	vsnprintf(b + n, 4096 - (size_t)n, fmt, ap);
	va_end(ap);
	return b;
}

void mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			die(buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		die(buf);
}

const char *write_file(const char *path, const char *text)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die(path);
	return path;
}

void write_skill(const char *dir, const char *md, const char *extra,
                 const char *body)
{
	const char *name = strrchr(dir, '/') + 1;
	char text[8192], path[4096];

	snprintf(text, sizeof(text),
	         "---\nname: %s\ndescription: The %s skill, for tests.\n%s"
	         "---\n# %s\n\n%s", name, name, extra ? extra : "", name, body);
	snprintf(path, sizeof(path), "%s/%s", dir, md ? md : "SKILL.md");
	write_file(path, text);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

int remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void clear_top(void)
{
	remove_tree(top);
	mkdirs(top);
}

void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		errno = EIO;
		die(cmd);
	}
}

const char *sh_out(const char *fmt, ...)
{
	static char line[256];
	char cmd[4096];
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p || !fgets(line, sizeof(line), p))
		die(cmd);
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return line;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc((size_t)n + 1)))
		die(path);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

bool status_says(const sfs_catalog *cat, const char *a, const char *b)
{
	char *status = sfs_render_status(cat, &(struct sfs_status_info){ 0 });
	bool says = status && strstr(status, a) && strstr(status, b);

	free(status);
	return says;
}

const struct sfs_unserved *unserved_at(const sfs_catalog *cat,
                                       const char *dir)
{
	size_t n;
	const struct sfs_unserved *u = sfs_catalog_unserved(cat, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(u[i].dir, dir) == 0)
			return &u[i];
	return NULL;
}

sfs_catalog *build_catalog(const struct sfs_config *cfg,
                           const sfs_catalog *prev)
{
	sfs_catalog *cat = NULL;
	int rc = sfs_catalog_build(cfg, prev, &cat);

	if (rc < 0) {
		errno = -rc;
		die("sfs_catalog_build");
	}
	return cat;
}
