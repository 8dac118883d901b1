/*
 * backing.c - reading a skill's files from their sources.
 *
 * A file is opened by its root's source (shared/source.h), which serves
 * it only while it holds the content the scan saw: its inode stands for
 * that content.  For a folder, a file whose inode, size or mtime differs
 * from the scan's is not served (ESTALE).  This only happens to a read
 * the page cache cannot answer, between a change in the source and the
 * refresh that gives the file a new inode.  Files that changed since the
 * previous generation are held open from the refresh on (backing_pin),
 * so even a source replaced again right away still serves the bytes
 * whose digest index.json shows.  Most reads never get here: a
 * generation answers them from its copy of the published bytes
 * (retain.h), and a source is read only for files it has no copy of.
 */
#include <errno.h>
#include <stdlib.h>

#include "backing.h"
#include "source.h"

int backing_open_roots(struct gen *g)
{
	size_t n = sfs_catalog_nroots(g->cat);

	g->root_fds = malloc((n ? n : 1) * sizeof(*g->root_fds));
	if (!g->root_fds)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct sfs_source *src = sfs_catalog_source(g->cat, i);
		g->root_fds[i] = src->ops->open_root ? src->ops->open_root(src)
		                                     : -1;
	}
	g->nroot_fds = (uint32_t)n;
	return 0;
}

int backing_open(const struct gen *g, const struct node *n, bool *borrowed)
{
	const struct sfs_skill *s = gen_skill(g, n);
	const struct sfs_file *f = gen_file(g, n);

	*borrowed = false;
	if (!s || !f || n->kind != NODE_SKILL_FILE)
		return -EINVAL;
	const struct sfs_source *src = sfs_catalog_source(g->cat, s->root);
	if (!src)
		return -EINVAL;
	int fd = gen_pinned(g, n);
	if (fd >= 0 && src->ops->check_pinned) {
		/* only a watched source's files are pinned (backing_pin) */
		int rc = src->ops->check_pinned(fd, f);
		*borrowed = rc == 0;
		return rc < 0 ? rc : fd;
	}
	int root_fd = s->root < g->nroot_fds ? g->root_fds[s->root] : -1;
	return src->ops->open_file(src, root_fd, s, f);
}

bool backing_may_wait(const struct gen *g, const struct node *n)
{
	const struct sfs_skill *s = gen_skill(g, n);
	const struct sfs_source *src = s ? sfs_catalog_source(g->cat, s->root)
	                                 : NULL;

	return src && (src->caps & SFS_SOURCE_READS_REMOTE);
}

bool backing_may_read_ahead(const struct gen *g, const struct node *n)
{
	const struct sfs_skill *s = gen_skill(g, n);

	return s && sfs_catalog_source(g->cat, s->root) &&
	       !backing_may_wait(g, n);
}

/* Pinning is part of change detection, which only a watched source has:
 * the bytes of a git blob or of a verified cache file cannot change again
 * before the next refresh. */
bool backing_is_watched(const sfs_catalog *cat, size_t i)
{
	const struct sfs_source *src = sfs_catalog_source(cat, i);
	return src && (src->caps & SFS_SOURCE_WATCHED);
}

int backing_pin(const sfs_catalog *cat, const struct sfs_skill *s,
                const struct sfs_file *f)
{
	const struct sfs_source *src = sfs_catalog_source(cat, s->root);

	if (!src || !src->ops->pin)
		return -EOPNOTSUPP;
	return src->ops->pin(s, f);
}
