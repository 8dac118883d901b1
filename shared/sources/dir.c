/*
 * source_dir.c - a folder on a local filesystem as a source of skills.
 *
 * Discovery and listing are scan.c's (with plugins.c, docs.c, digest.c
 * and unit.c); this file adds the reads.  Reads of a served file open it
 * relative to its root's descriptor with openat2's RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS: whatever happens to the folders between the scan
 * and the read, nothing outside the root is opened.  Where that cannot
 * work (a root reached through a symlinked category folder, a kernel
 * without openat2) the file is opened by its path with O_NOFOLLOW and
 * must be the very inode the scan saw.
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

#include "snapshot.h"
#include "source.h"

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

static int discover(const struct sfs_source *src, struct sfs_scan *s,
                    unsigned idx, bool *exists)
{
	return sfs_scan_root(s, src->root, idx, exists);
}

static int list(const struct sfs_source *src, struct sfs_scan *s,
                struct sfs_found *f, struct sfs_arena *arena,
                struct sfs_diag_list *diags, struct sfs_tree *out)
{
	(void)src;
	return sfs_scan_tree(s, f, arena, diags, out);
}

/* SKILL.md as listed: a regular file, or an in-skill symlink to one. */
static int open_skill_md(const struct sfs_source *src, const char *path,
                         const struct sfs_file *f, struct stat *st)
{
	char *real = NULL;

	(void)src;
	if (S_ISLNK(f->mode)) {
		real = realpath(path, NULL);
		if (!real)
			return -errno;
		path = real;
	}
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int err = errno;
	free(real);
	if (fd < 0)
		return -err;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* The link's target was proven inside the skill when it was listed;
	 * a folder on the way swapped for a link since then would lead this
	 * open elsewhere, and that file's frontmatter into the catalog. */
	if (S_ISLNK(f->mode) && (st->st_dev != f->dev || st->st_ino != f->ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static int open_root(const struct sfs_source *src)
{
	if (!src->root)
		return -1;   /* the docs folder's: below no root */
	return open(src->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The skill folder relative to its root, or NULL when it is not below it. */
static const char *below_root(const struct sfs_source *src,
                              const struct sfs_skill *s)
{
	const char *root = src->root;
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

static int open_beneath(const struct sfs_source *src, int root_fd,
                        const struct sfs_skill *s, const struct sfs_file *f)
{
	const char *rel = below_root(src, s);
	char path[PATH_MAX];

	if (!rel || root_fd < 0)
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
	int fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
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

/* Whether the open descriptor of f still shows what the listing saw
 * (identity, size and mtime), as open_file requires. */
static int check_pinned(int fd, const struct sfs_file *f)
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

static int open_file(const struct sfs_source *src, int root_fd,
                     const struct sfs_skill *s, const struct sfs_file *f)
{
	struct stat st;
	int fd = open_beneath(src, root_fd, s, f);

	if (fd == -EXDEV || fd == -ELOOP || fd == -ENOSYS)
		fd = open_by_path(s, f, &st);
	if (fd < 0)
		return fd;
	int rc = check_pinned(fd, f);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

static int pin(const struct sfs_skill *s, const struct sfs_file *f)
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

const struct sfs_source_ops sfs_source_dir = {
	.kind = "folder",
	.caps = SFS_SOURCE_WATCHED,
	.lock = SFS_LOCK_SKILLS,
	.discover = discover,
	.list = list,
	.open_skill_md = open_skill_md,
	.open_root = open_root,
	.open_file = open_file,
	.pin = pin,
	.check_pinned = check_pinned,
};
