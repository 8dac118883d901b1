/*
 * listed.c - a skill's tree as a fetched source lists it (struct
 * sfs_listed, snapshot.h): its files with their sizes and digests, and
 * the folders above them made up, each with a version of its own.  Apart
 * from grow.c, whose lookups digest.c uses, since this needs digest.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "snapshot.h"

void sfs_listed_stamp(const struct sfs_listed *l, struct sfs_file *e,
                      const uint8_t sum[32])
{
	memcpy(e->version.id, sum, sizeof(e->version.id));
	e->mtime = l->time;
	e->uid = l->uid;
	e->gid = l->gid;
}

/* The folder at rel[0..len), added when it is not yet. */
static int listed_folder(struct sfs_listed *l, const char *rel, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (S_ISDIR(l->v[i].mode) && strlen(l->v[i].path) == len &&
		    strncmp(l->v[i].path, rel, len) == 0)
			return 0;
	char *path = sfs_arena_strndup(l->arena, rel, len), *key;
	uint8_t sum[32];
	if (!path || asprintf(&key, "%.*s/%s", 32, (const char *)l->id,
	                      path) < 0)
		return -ENOMEM;
	sfs_sha256(key, strlen(key), sum);
	free(key);
	struct sfs_file *e = sfs_file_push(&l->v, &l->n, &l->cap);
	if (!e)
		return -ENOMEM;
	e->mode = S_IFDIR | 0755;
	e->size = 4096;
	e->path = e->source = path;
	const char *slash = strrchr(path, '/');
	e->name = slash ? slash + 1 : path;
	sfs_listed_stamp(l, e, sum);
	return 0;
}

int sfs_listed_add_file(struct sfs_listed *l, const char *rel, off_t size,
                        const uint8_t sha256[32], struct sfs_file **added)
{
	int rc = 0;

	for (const char *p = strchr(rel, '/'); rc == 0 && p;
	     p = strchr(p + 1, '/'))
		rc = listed_folder(l, rel, (size_t)(p - rel));
	struct sfs_file *e = rc == 0 ? sfs_file_push(&l->v, &l->n, &l->cap)
	                             : NULL;
	if (!e)
		return rc < 0 ? rc : -ENOMEM;
	e->mode = S_IFREG | 0644;
	e->size = size;
	e->hashed = true;
	e->path = e->source = rel;
	const char *slash = strrchr(rel, '/');
	e->name = slash ? slash + 1 : rel;
	memcpy(e->sha256, sha256, 32);
	sfs_listed_stamp(l, e, sha256);
	if (added)
		*added = e;
	return 0;
}
