/*
 * view_def.c - a view's definition as a configuration file gives it
 * (views.h): which skills it admits and pins, and freeing it.  Apart
 * from views.c, which fills views from a catalog, so that a program that
 * only reads the configuration (skillsfs-mcp) links no catalog and no
 * kind of source (libgit2, libcurl, libarchive and what they load).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "views.h"

void sfs_view_def_free(struct sfs_view_def *d)
{
	if (!d)
		return;
	free(d->name);
	free(d->profile);
	free(d->project);
	for (size_t i = 0; i < d->ninclude; i++)
		free(d->include[i]);
	for (size_t i = 0; i < d->nexclude; i++)
		free(d->exclude[i]);
	for (size_t i = 0; i < d->npins; i++)
		free(d->pins[i]);
	free(d->include);
	free(d->exclude);
	free(d->pins);
	memset(d, 0, sizeof(*d));
}

static bool any_match(char *const *patterns, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(patterns[i], id, 0) == 0)
			return true;
	return false;
}

static bool admitted(const struct sfs_view_def *d, const char *id)
{
	if (!d)
		return true;
	if (d->ninclude && !any_match(d->include, d->ninclude, id))
		return false;
	return !any_match(d->exclude, d->nexclude, id);
}

long sfs_view_def_pin(const struct sfs_view_def *d, const char *id)
{
	for (size_t i = 0; d && i < d->npins; i++)
		if (strcmp(d->pins[i], id) == 0)
			return (long)i;
	return -1;
}

static bool pinned(const struct sfs_view_def *d, const char *id)
{
	return sfs_view_def_pin(d, id) >= 0;
}

bool sfs_view_def_admits(const struct sfs_view_def *d, const char *id)
{
	return pinned(d, id) || admitted(d, id);
}
