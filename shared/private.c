/*
 * private.c - which skill folders every user of the machine could read
 * natively.  A mount that other users may enter (allow_other) shares
 * index.json, skills_index.json and status.json with all of them, and
 * those quote frontmatter; with sfs_config.shared_only they leave out
 * every skill folder whose SKILL.md another user could not read from
 * the source (sfs_catalog_private).
 *
 * "Could read" is the classic permission check for a user who is neither
 * owner nor group member: the file is world-readable and every folder
 * from / down to it is world-searchable, for the folder's real path and,
 * when SKILL.md is a symlink, for its target's too.  ACLs and groups are
 * not consulted: a skill they open to some users only is left out.
 *
 * A git commit or an MCP server's listing (a source that is `published`)
 * has no file on disk to judge: it is what the repository or server gives
 * whoever mounts it, so its skills are shared, with the modes the tree or
 * listing gives, unless the root's options say private (private: true in
 * the config file's sources:).  Judged by the files of a clone or of the
 * cache, a system mount of a team's repository listed no skill at all.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "snapshot.h"
#include "source.h"

/* The last folder found searchable by every user, and so each folder
 * above it: skill folders side by side (units come sorted by folder)
 * then cost one stat each rather than one per level. */
struct memo {
	char ok[PATH_MAX];
};

/* How much of p the memo proves searchable: the length of the folders
 * p and m->ok share, whole components only. */
static size_t known(const char *p, const struct memo *m)
{
	size_t i = 0, last = 0;

	while (p[i] && p[i] == m->ok[i]) {
		i++;
		if (p[i] == '/' || (!p[i] && !m->ok[i]))
			last = i;
	}
	if (!p[i] && m->ok[i] == '/')
		last = i;
	return last;
}

/* Whether every folder from / down to the absolute, resolved path p is
 * searchable by every user. */
static bool searchable(const char *p, struct memo *m)
{
	char buf[PATH_MAX];
	size_t n = strlen(p), start = known(p, m);

	if (n >= sizeof(buf))
		return false;
	if (start == 0)
		start = 1;
	memcpy(buf, p, n + 1);
	for (size_t i = start; i <= n; i++) {
		if (i < n && buf[i] != '/')
			continue;
		struct stat st;
		char c = buf[i];
		buf[i] = '\0';
		bool ok = stat(buf, &st) == 0 && S_ISDIR(st.st_mode) &&
		          (st.st_mode & S_IXOTH);
		buf[i] = c;
		if (!ok)
			return false;
	}
	memcpy(m->ok, p, n + 1);
	return true;
}

/* The folder that holds the resolved path p, searchable all the way. */
static bool parent_searchable(char *p, struct memo *m)
{
	char *slash = strrchr(p, '/');

	if (!slash)
		return false;
	if (slash == p)
		return true;   /* in / itself */
	*slash = '\0';
	bool ok = searchable(p, m);
	*slash = '/';
	return ok;
}

/* The unit's SKILL.md, readable by every user. */
static bool skill_md_public(const struct sfs_unit *u, struct memo *m)
{
	char *real = u->skill_md_path ? realpath(u->skill_md_path, NULL)
	                              : NULL;
	struct stat st;

	if (!real)
		return false;
	bool ok = stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	          (st.st_mode & S_IROTH) && parent_searchable(real, m);
	free(real);
	return ok;
}

static bool folder_public(const sfs_catalog *cat, const struct sfs_unit *u,
                          struct memo *m)
{
	const struct sfs_source *src = sfs_catalog_source(cat, u->root);

	if (src && (src->caps & SFS_SOURCE_PUBLISHED))
		return !src->private_skills;
	char *real = realpath(u->dir, NULL);

	if (!real)
		return false;
	bool ok = searchable(real, m);
	free(real);
	return ok && skill_md_public(u, m);
}

static int cmp_str_ptr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int sfs_find_private(sfs_catalog *cat)
{
	struct memo *m;
	size_t n = 0;

	if (!cat->shared_only || !cat->nunits)
		return 0;
	m = calloc(1, sizeof(*m));
	cat->private_dirs = sfs_arena_alloc(&cat->arena, cat->nunits *
	                                    sizeof(*cat->private_dirs));
	if (!m || !cat->private_dirs) {
		free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cat->nunits; i++)
		if (!folder_public(cat, cat->units[i], m))
			cat->private_dirs[n++] = cat->units[i]->dir;
	free(m);
	cat->nprivate = n;
	sfs_sort(cat->private_dirs, n, sizeof(*cat->private_dirs),
	         cmp_str_ptr);
	return 0;
}

bool sfs_catalog_private(const sfs_catalog *cat, const char *dir)
{
	if (!cat->nprivate || !dir)
		return false;
	return bsearch(&dir, cat->private_dirs, cat->nprivate,
	               sizeof(*cat->private_dirs), cmp_str_ptr) != NULL;
}

size_t sfs_catalog_nprivate(const sfs_catalog *cat)
{
	return cat->nprivate;
}
