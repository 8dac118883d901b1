/*
 * grow.c - arrays that double as they fill (grow.h), and the two the
 * scan fills: the entries of a skill's tree (and their lookup by path)
 * and the folders it read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "snapshot.h"

int sfs_grow(void *array, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap;
	void *v;

	if (need <= n)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n = n ? n * 2 : 16;
	}
	/* Through memcpy: `array` points at a T *, not at a void *. */
	memcpy(&v, array, sizeof(v));
	v = realloc(v, n * elem);
	if (!v)
		return -ENOMEM;
	memcpy(array, &v, sizeof(v));
	*cap = n;
	return 0;
}

void *sfs_append(void *array, size_t *n, size_t elem)
{
	void *v;

	if (*n >= SIZE_MAX / elem - 1)
		return NULL;
	memcpy(&v, array, sizeof(v));
	v = realloc(v, (*n + 1) * elem);
	if (!v)
		return NULL;
	memcpy(array, &v, sizeof(v));
	void *e = (char *)v + *n * elem;
	memset(e, 0, elem);
	(*n)++;
	return e;
}

struct sfs_file *sfs_file_push(struct sfs_file **v, size_t *n, size_t *cap)
{
	if (sfs_grow(v, cap, *n + 1, sizeof(**v)) < 0)
		return NULL;
	struct sfs_file *e = &(*v)[(*n)++];
	memset(e, 0, sizeof(*e));
	e->parent = -1;
	return e;
}

const struct sfs_file *sfs_file_find(const struct sfs_file *v, size_t n,
                                     const char *path)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].path, path);
		if (c == 0)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_file(const void *a, const void *b)
{
	const struct sfs_file *x = a, *y = b;
	return strcmp(x->path, y->path);
}

/* The index of the entry whose path is the first len bytes of path, in
 * v sorted by path, or -1. */
static int32_t find_prefix(const struct sfs_file *v, size_t n,
                           const char *path, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(v[mid].path, path, len);
		if (c == 0 && v[mid].path[len] != '\0')
			c = 1;
		if (c == 0)
			return (int32_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int sfs_tree_take_files(struct sfs_file *v, size_t n, struct sfs_arena *a,
                        struct sfs_tree *out)
{
	sfs_sort(v, n, sizeof(*v), cmp_file);
	out->nfiles = n;
	out->skill_md = n;
	out->files = sfs_arena_alloc(a, (n ? n : 1) * sizeof(*v));
	if (!out->files)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct sfs_file *e = &v[i];
		const char *slash = strrchr(e->path, '/');
		if (slash)
			e->parent = find_prefix(v, n, e->path,
			                        (size_t)(slash - e->path));
		else if (strcmp(e->path, "SKILL.md") == 0)
			out->skill_md = i;
	}
	if (n)
		memcpy(out->files, v, n * sizeof(*v));
	return 0;
}

int sfs_strvec_push(struct sfs_strvec *v, const char *s)
{
	if (!s || sfs_grow(&v->v, &v->cap, v->n + 1, sizeof(*v->v)) < 0)
		return -ENOMEM;
	v->v[v->n++] = s;
	return 0;
}

void sfs_file_set_identity(struct sfs_file *f, const struct stat *st)
{
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->ctime = st->st_ctim;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->uid = st->st_uid;
	f->gid = st->st_gid;
}

void sfs_source_listed_stat(const struct sfs_file *f, struct stat *st)
{
	*st = (struct stat){
		.st_mode = S_IFREG | (S_ISREG(f->mode) ? (f->mode & 07777) : 0644),
		.st_size = f->size, .st_dev = f->dev, .st_ino = f->ino,
		.st_mtim = f->mtime, .st_ctim = f->ctime,
		.st_uid = f->uid, .st_gid = f->gid,
	};
}
