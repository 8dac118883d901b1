/*
 * fingerprint.c - a cheap summary of the sources for polling (see
 * fingerprint.h).  A new entry changes its folder's mtime; an edit in
 * place changes only the file's, so files are stat'ed too.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "backing.h"
#include "fingerprint.h"
#include "source.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static void keep_newest(struct timespec *newest, const struct timespec *t)
{
	if (t->tv_sec > newest->tv_sec ||
	    (t->tv_sec == newest->tv_sec && t->tv_nsec > newest->tv_nsec))
		*newest = *t;
}

static uint64_t mix_stat(uint64_t h, const char *path,
                         struct timespec *newest)
{
	struct stat st;

	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return mix(h, (uint64_t)errno);
	if (newest)
		keep_newest(newest, &st.st_ctim);
	h = mix(h, st.st_ino);
	h = mix(h, st.st_dev);
	h = mix(h, (uint64_t)st.st_size);
	h = mix(h, st.st_mode);
	h = mix(h, (uint64_t)st.st_mtim.tv_sec);
	h = mix(h, (uint64_t)st.st_mtim.tv_nsec);
	h = mix(h, (uint64_t)st.st_ctim.tv_sec);
	return mix(h, (uint64_t)st.st_ctim.tv_nsec);
}

static uint64_t mix_file(uint64_t h, const char *dir, const char *name,
                         struct timespec *newest)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/%s", dir, name);

	if (len < 0 || (size_t)len >= sizeof(path))
		return mix(h, ENAMETOOLONG);
	return mix_stat(h, path, newest);
}

uint64_t fingerprint(const sfs_catalog *cat, const struct roots *roots,
                     struct timespec *newest)
{
	uint64_t h = 0;
	size_t n;

	if (newest)
		*newest = (struct timespec){ 0 };
	/* only watched roots: another changes when it is updated */
	for (size_t i = 0; i < roots->n; i++)
		if (sfs_source_caps(roots->paths[i]) & SFS_SOURCE_WATCHED)
			h = mix_stat(h, roots->paths[i], newest);
	const char *const *dirs = sfs_catalog_dirs(cat, &n);
	for (size_t i = 0; i < n; i++)
		h = mix_stat(h, dirs[i], newest);
	for (size_t i = 0; i < sfs_catalog_nskills(cat); i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		if (!backing_is_watched(cat, s->root))
			continue;
		for (size_t f = 0; f < s->nfiles; f++)
			h = mix_file(h, s->dir, s->files[f].source, newest);
	}
	const struct sfs_skill *docs = sfs_catalog_docs(cat);
	if (docs)
		h = mix_stat(h, docs->dir, newest);
	for (size_t f = 0; docs && f < docs->nfiles; f++)
		h = mix_file(h, docs->dir, docs->files[f].source, newest);
	const struct sfs_unserved *u = sfs_catalog_unserved(cat, &n);
	for (size_t i = 0; i < n; i++) {
		if (!backing_is_watched(cat, u[i].root))
			continue;
		h = mix_file(h, u[i].dir, "SKILL.md", newest);
		h = mix_file(h, u[i].dir, "skill.md", newest);
	}
	return h;
}
