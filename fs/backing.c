/*
 * backing.c - reading a skill's files from their source folders.
 *
 * Reads open the file relative to its root's descriptor with openat2's
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: whatever happens to the sources
 * between the scan and the read, nothing outside the root is opened.
 * Where that cannot work (a root reached through a symlinked category
 * folder, a kernel without openat2) the file is opened by its path with
 * O_NOFOLLOW and must be the very inode the scan saw.
 *
 * A file whose inode, size or mtime differs from the scan's is not served
 * (ESTALE): its inode stands for the content the scan saw.  This only
 * happens to a read the page cache cannot answer, between a change in the
 * source and the refresh that gives the file a new inode.  Files that
 * changed since the previous generation are held open from the refresh
 * on (backing_pin), so even a source replaced again right away still
 * serves the bytes whose digest index.json shows.  Most reads never get
 * here: a generation answers them from its copy of the published bytes
 * (retain.h), and a source is read only for files it has no copy of.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backing.h"

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

int backing_open_roots(struct gen *g)
{
	size_t n = sfs_catalog_nroots(g->cat);

	g->root_fds = malloc((n ? n : 1) * sizeof(*g->root_fds));
	if (!g->root_fds)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		g->root_fds[i] = open(sfs_catalog_root(g->cat, i),
		                      O_PATH | O_DIRECTORY | O_CLOEXEC);
	g->nroot_fds = (uint32_t)n;
	return 0;
}

/* The skill folder relative to its root, or NULL when it is not below it. */
static const char *below_root(const struct gen *g, const struct sfs_skill *s)
{
	const char *root = sfs_catalog_root(g->cat, s->root);
	if (!root)
		return NULL;   /* docs/: below no root of the catalog */
	size_t len = strlen(root);

	if (strncmp(s->dir, root, len) != 0)
		return NULL;
	if (len > 0 && root[len - 1] == '/')
		return s->dir + len;
	if (s->dir[len] == '\0')
		return s->dir + len;
	return s->dir[len] == '/' ? s->dir + len + 1 : NULL;
}

static int open_beneath(const struct gen *g, const struct sfs_skill *s,
                        const struct sfs_file *f)
{
	const char *rel = below_root(g, s);
	char path[PATH_MAX];

	if (!rel || s->root >= g->nroot_fds || g->root_fds[s->root] < 0)
		return -EXDEV;
	int len = snprintf(path, sizeof(path), "%s%s%s", rel,
	                   *rel ? "/" : "", f->source);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	struct open_how how = {
		.flags = READ_FLAGS,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		           RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, g->root_fds[s->root], path,
	                      &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

static int open_by_path(const struct sfs_skill *s, const struct sfs_file *f,
                        struct stat *st)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/%s", s->dir, f->source);

	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	int fd = open(path, READ_FLAGS | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || st->st_dev != f->dev ||
	    st->st_ino != f->ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Whether an open source still shows what the scan saw. */
static int check_source(int fd, const struct sfs_file *f)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EIO;
	/* Another file under the same name: it may be a hard link to a
	 * file outside the skill, which the scan would have hidden. */
	if (st.st_dev != f->dev || st.st_ino != f->ino)
		return -ESTALE;
	/* Changed since the scan: the refresh that follows brings a new
	 * inode.  Serving these bytes under the old size could cut them or
	 * mix two versions, so this inode's content is gone. */
	if (st.st_size != f->size || st.st_mtim.tv_sec != f->mtime.tv_sec ||
	    st.st_mtim.tv_nsec != f->mtime.tv_nsec)
		return -ESTALE;
	return 0;
}

int backing_open(const struct gen *g, const struct node *n, bool *borrowed)
{
	const struct sfs_skill *s = gen_skill(g, n);
	const struct sfs_file *f = gen_file(g, n);
	struct stat st;
	int fd, rc;

	*borrowed = false;
	if (!s || !f || n->kind != NODE_SKILL_FILE)
		return -EINVAL;
	fd = gen_pinned(g, n);
	if (fd >= 0) {
		rc = check_source(fd, f);
		*borrowed = rc == 0;
		return rc < 0 ? rc : fd;
	}
	fd = open_beneath(g, s, f);
	if (fd == -EXDEV || fd == -ELOOP || fd == -ENOSYS)
		fd = open_by_path(s, f, &st);
	if (fd < 0)
		return fd;
	rc = check_source(fd, f);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int backing_pin(const struct sfs_skill *s, const struct sfs_file *f)
{
	struct stat st;
	int fd = open_by_path(s, f, &st);

	if (fd < 0)
		return fd;
	if (st.st_size != f->size || st.st_mtim.tv_sec != f->mtime.tv_sec ||
	    st.st_mtim.tv_nsec != f->mtime.tv_nsec || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
