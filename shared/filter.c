/*
 * filter.c - the include and exclude patterns of sfs_config: which of the
 * skill folders discovery found are read at all.  Applied before a folder
 * is read, so a left-out folder costs nothing and reports nothing (it may
 * be left out precisely because it is broken or someone else's).
 */
#include <fnmatch.h>
#include <string.h>

#include "snapshot.h"

/* The folder's path below its root ("" for the root itself). */
static const char *below(const char *dir, const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(dir, root, n) != 0)
		return dir;
	if (dir[n] == '/')
		return dir + n + 1;
	return dir[n] == '\0' ? "" : dir;
}

static bool matches(const char *pattern, const char *dir, const char *root)
{
	const char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir;

	if (pattern[0] == '/')
		return fnmatch(pattern, dir, 0) == 0;
	if (strchr(pattern, '/'))
		return fnmatch(pattern, below(dir, root), 0) == 0;
	return fnmatch(pattern, name, 0) == 0;
}

static bool any(const char *const *patterns, size_t n, const char *dir,
                const char *root)
{
	for (size_t i = 0; i < n; i++)
		if (patterns[i] && matches(patterns[i], dir, root))
			return true;
	return false;
}

bool sfs_selected(const struct sfs_config *cfg, const char *dir,
                  const char *root)
{
	if (cfg->ninclude && !any(cfg->include, cfg->ninclude, dir, root))
		return false;
	return !any(cfg->exclude, cfg->nexclude, dir, root);
}

void sfs_scan_select(struct sfs_scan *s, const struct sfs_config *cfg)
{
	size_t kept = 0;

	if (!cfg->ninclude && !cfg->nexclude)
		return;
	for (size_t i = 0; i < s->nfound; i++) {
		const struct sfs_found *f = &s->found[i];
		if (sfs_selected(cfg, f->dir, cfg->roots[f->root]))
			s->found[kept++] = *f;
	}
	s->nfound = kept;
}
