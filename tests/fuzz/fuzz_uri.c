/*
 * fuzz_uri.c - one input is a resource URI as a client would send it.
 *
 * It is parsed (uri_parse) and, like resources/read and
 * resources/directory/read do, mapped to a path in a mount; the path is
 * then folded lexically and must stay inside the folder its URI family
 * is confined to (skills/<id>, docs, catalog).  The same bytes are also
 * checked as a relative path (uri_clean_path), as a file name that
 * uri_join must turn into a URI that parses back to that name, and as a
 * mount argument (sfs_path_absolute).
 */
#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "contract.h"
#include "fuzz.h"
#include "mount.h"
#include "skillsfs.h"
#include "utf8.h"

#define MOUNT "/run/skillsfs-fuzz/mnt"
#define MAX_INPUT 16384

/* Folds "." and ".." the way the kernel would if every component were a
 * folder (symlinks are open_inside's business, not the parser's). */
static char *fold(const char *path)
{
	char *out = strdup(path);
	size_t o = 0;

	FUZZ_ASSERT(out, "out of memory");
	FUZZ_ASSERT(path[0] == '/', "relative path %s", path);
	for (const char *s = path; *s;) {
		while (*s == '/')
			s++;
		size_t len = strcspn(s, "/");
		if (len == 0 || (len == 1 && s[0] == '.')) {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
		} else {
			out[o++] = '/';
			memcpy(out + o, s, len);
			o += len;
		}
		s += len;
	}
	out[o] = '\0';
	return out;
}

/* path, folded, is `root` or below it. */
static void assert_inside(const char *path, const char *root)
{
	char *f = fold(path);
	size_t n = strlen(root);

	FUZZ_ASSERT(strncmp(f, root, n) == 0 && (f[n] == '\0' || f[n] == '/'),
		    "%s resolves to %s, outside %s", path, f, root);
	FUZZ_ASSERT(strcmp(f, path) == 0, "%s is not already clean", path);
	free(f);
}

/* What contract.h promises of a path taken from a URI. */
static void assert_clean_rel(const char *p)
{
	fuzz_assert_clean_rel(p);
	for (const unsigned char *c = (const unsigned char *)p; *c; c++)
		FUZZ_ASSERT(*c >= 0x20 && *c != 0x7F, "control byte in '%s'", p);
	FUZZ_ASSERT(sfs_utf8_valid(p, strlen(p)), "'%s' is not UTF-8", p);
}

static void resolve(const struct sfs_uri *u)
{
	struct mount m = { .path = (char *)MOUNT };
	char *path = NULL, *root = NULL;

	switch (u->kind) {
	case SFS_URI_INVALID:
		FUZZ_ASSERT(u->error && *u->error, "invalid without a reason");
		return;
	case SFS_URI_UNKNOWN:
	case SFS_URI_CATALOG_INDEX:
		return;
	case SFS_URI_CATALOG_SKILL:
		path = xasprintf("%s/catalog/%s.json", m.path, u->id);
		root = mount_file(&m, SFS_MOUNT_CATALOG);
		break;
	case SFS_URI_DOCUMENT:
		path = mount_skill_file(&m, u->id, "SKILL.md");
		root = mount_skill_file(&m, u->id, NULL);
		break;
	case SFS_URI_REFERENCE:
		/* The ref id only keys the catalog record; it must still be
		 * one path component, safe to show and log. */
		FUZZ_ASSERT(u->path && *u->path && !strchr(u->path, '/') &&
			    strcmp(u->path, ".") && strcmp(u->path, ".."),
			    "reference id '%s'", u->path ? u->path : "(null)");
		path = xasprintf("%s/refs/%s/%s.md", m.path, u->id, u->path);
		root = xasprintf("%s/refs/%s", m.path, u->id);
		break;
	case SFS_URI_DOC:
		FUZZ_ASSERT(u->path, "docs URI without a path");
		assert_clean_rel(u->path);
		path = xasprintf("%s/docs/%s", m.path, u->path);
		root = mount_file(&m, SFS_MOUNT_DOCS);
		break;
	case SFS_URI_SKILL_ROOT:
		FUZZ_ASSERT(!u->path, "skill root with a path");
		path = mount_skill_file(&m, u->id, NULL);
		root = mount_skill_file(&m, u->id, NULL);
		break;
	case SFS_URI_SKILL_PATH:
		FUZZ_ASSERT(u->path, "skill path without a path");
		assert_clean_rel(u->path);
		path = mount_skill_file(&m, u->id, u->path);
		root = mount_skill_file(&m, u->id, NULL);
		break;
	}
	FUZZ_ASSERT(sfs_skill_id_valid(u->id, strlen(u->id)) ||
		    (u->kind == SFS_URI_DOC && !u->id[0]),
		    "kind %d with skill id '%s'", (int)u->kind, u->id);
	FUZZ_ASSERT(path && root, "out of memory");
	assert_inside(root, MOUNT);
	assert_inside(path, root);
	free(path);
	free(root);
}

/* A file name listed by resources/directory/read becomes a child URI
 * with uri_join; resources/read of that URI must name the same file. */
static void check_join(const char *name)
{
	size_t n = strlen(name);
	bool readable = n > 0 && !strchr(name, '/') && strcmp(name, ".") &&
			strcmp(name, "..") && sfs_utf8_valid(name, n);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7F)
			readable = false;
	char *uri = sfs_uri_join("skill://pdf-forms", name);
	FUZZ_ASSERT(uri, "out of memory");
	/* The canonical spelling of SEP-2640 clients: kept bytes as they
	 * are, everything else %XX in uppercase hex. */
	for (const char *p = uri + strlen("skill://pdf-forms/"); *p; p++) {
		if (*p == '%') {
			FUZZ_ASSERT(strchr("0123456789ABCDEF", p[1]) && p[1] &&
				    strchr("0123456789ABCDEF", p[2]) && p[2],
				    "'%s' joined to %s: a bad escape", name, uri);
			p += 2;
		} else {
			FUZZ_ASSERT(sfs_uri_keeps((unsigned char)*p),
				    "'%s' joined to %s: '%c' left unencoded",
				    name, uri, *p);
		}
	}
	struct sfs_uri u;
	sfs_uri_parse(uri, &u);
	if (readable && strlen(uri) <= 8192)
		FUZZ_ASSERT(u.kind == SFS_URI_SKILL_PATH && strcmp(u.path, name) == 0,
			    "'%s' joined to %s parses back as kind %d, '%s' (%s)",
			    name, uri, (int)u.kind, u.path ? u.path : "",
			    u.error ? u.error : "");
	sfs_uri_free(&u);
	free(uri);
}

static void check_path_absolute(const char *arg)
{
	char *abs = sfs_path_absolute(arg);

	if (!abs)
		return;
	FUZZ_ASSERT(abs[0] == '/', "'%s' made %s", arg, abs);
	if (strcmp(abs, "/") != 0) {
		char *f = fold(abs);
		FUZZ_ASSERT(strcmp(f, abs) == 0, "'%s' made %s, not clean", arg, abs);
		free(f);
	}
	free(abs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;

	/* uri_clean_path takes a length: give it the bytes as they are. */
	const char *why = NULL;
	char *clean = sfs_uri_clean_path((const char *)data, size, &why);
	if (clean)
		assert_clean_rel(clean);
	else
		FUZZ_ASSERT(why && *why, "refused without a reason");
	free(clean);

	/* The rest takes strings: up to the first NUL, as JSON would. */
	char *text = malloc(size + 1);
	FUZZ_ASSERT(text, "out of memory");
	memcpy(text, data, size);
	text[size] = '\0';

	struct sfs_uri u;
	sfs_uri_parse(text, &u);
	resolve(&u);
	sfs_uri_free(&u);
	check_join(text);
	check_path_absolute(text);
	free(text);
	return 0;
}
