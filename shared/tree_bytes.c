/*
 * tree_bytes.c - the bytes a listing read to hash its files, kept for the
 * security pass and the daemon's copies (sfs_tree.bytes): a folder's
 * listing keeps what it read to hash a file (scan.c), a git root's what
 * it inflated to hash a blob (sources/git.c), so that neither file is
 * read, nor blob inflated, a second time in the same build.
 */
#include <errno.h>
#include <stdlib.h>

#include "grow.h"
#include "snapshot.h"

size_t sfs_tree_keep_room(const struct sfs_tree_keep *k)
{
	if (k->total >= k->s->keep_skill_max)
		return 0;
	size_t room = k->s->keep_skill_max - k->total;
	return room < k->s->keep_file_max ? room : k->s->keep_file_max;
}

void sfs_tree_keep_add(struct sfs_tree_keep *k, const char *path,
                       unsigned char *bytes, size_t len)
{
	if (sfs_grow(&k->v, &k->cap, k->n + 1, sizeof(*k->v)) < 0) {
		free(bytes);   /* not kept: read again when needed */
		return;
	}
	k->v[k->n].path = path;
	k->v[k->n].bytes = bytes;
	k->v[k->n++].len = len;
	k->total += len;
}

int sfs_tree_keep_hand(struct sfs_tree_keep *k, struct sfs_tree *out)
{
	if (k->n == 0)
		return 0;
	out->bytes = calloc(out->nfiles ? out->nfiles : 1,
	                    sizeof(*out->bytes));
	for (size_t i = 0; i < k->n; i++) {
		const struct sfs_file *e = out->bytes ?
			sfs_file_find(out->files, out->nfiles, k->v[i].path) :
			NULL;
		if (e && e->size >= 0 && (size_t)e->size == k->v[i].len &&
		    !out->bytes[e - out->files])
			out->bytes[e - out->files] = k->v[i].bytes;
		else
			free(k->v[i].bytes);
	}
	k->n = 0;
	return out->bytes ? 0 : -ENOMEM;
}

void sfs_tree_keep_free(struct sfs_tree_keep *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].bytes);
	free(k->v);
	k->v = NULL;
	k->n = k->cap = 0;
}

void sfs_tree_drop_bytes(struct sfs_tree *t)
{
	for (size_t i = 0; t->bytes && i < t->nfiles; i++)
		free(t->bytes[i]);
	free(t->bytes);
	t->bytes = NULL;
}
