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
 *
 * A start (a build with no previous catalog) takes the units a former
 * mount kept of the root (kept_units.c, CACHE/folder-units/HASH) for
 * each skill folder that stat shows as it was, every entry changed
 * before that mount started (sfs_unit_if_unchanged): it lists every
 * folder and stats every file, and reads nothing else of those.
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

#include "kept_units.h"
#include "snapshot.h"
#include "source.h"

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* A folder root's state for one build: what a former mount kept. */
struct dir_source {
	struct sfs_source_owned own;
	struct sfs_kept_units *kept;   /* owned until the build took them */
	bool starting;                 /* this build is a start */
	bool missed;                   /* it read a skill: keep them again */
};

static void *open_state(const struct sfs_source_args *a)
{
	struct dir_source *d = calloc(1, sizeof(*d));

	if (d && sfs_source_owned_copy(a, &d->own) < 0) {
		sfs_source_owned_free(&d->own);
		free(d);
		d = NULL;
	}
	return d;
}

static void release(void *state)
{
	struct dir_source *d = state;

	sfs_kept_units_free(d->kept);
	sfs_source_owned_free(&d->own);
	free(d);
}

static void units_for(unsigned idx, bool strict, unsigned trust,
                      unsigned max_depth, size_t max_files,
                      struct timespec made, struct sfs_kept_for *f)
{
	*f = (struct sfs_kept_for){
		.place = "folder-units", .strict = strict, .trust = trust,
		.max_depth = max_depth, .max_files = max_files, .root = idx,
		.made = made,
	};
}

/* What a former mount kept of the root's units, into d->kept; *made:
 * when that mount started.  A file that is not what this program wrote
 * under its key is a warning and ignored. */
static int take_kept(struct dir_source *d, struct sfs_scan *s, unsigned idx,
                     struct timespec *made)
{
	struct sfs_kept_for f;
	uint8_t key[SFS_CACHE_KEY_LEN];

	units_for(idx, s->strict, s->trust, s->max_depth, s->max_files,
	          (struct timespec){ 0, 0 }, &f);
	if (sfs_cache_key(d->own.cache_dir, key) < 0)
		return 0;   /* nothing can be kept */
	int rc = sfs_kept_units_take(d->own.cache_dir, d->own.url, key, &f,
	                             &d->kept, s->global);
	*made = f.made;
	return rc;
}

/* Whether a start should keep the units again for the skills found from
 * `first` on: one was read that a kept unit could stand for next time (a
 * new one, changed, or one too fresh to be believed).  A unit stat
 * cannot prove (a symlink inside, a finding of the listing) is read at
 * every start: not a reason. */
static bool read_one(const struct dir_source *d, const struct sfs_scan *s,
                     size_t first)
{
	for (size_t i = first; i < s->nfound; i++) {
		const struct sfs_found *f = &s->found[i];
		const struct sfs_unit *u = sfs_kept_units_find(d->kept, f->dir,
		                                               NULL);
		if (!f->same && (!u || u->statable))
			return true;
	}
	return false;
}

static int discover(const struct sfs_source *src, struct sfs_scan *s,
                    unsigned idx, bool *exists)
{
	struct dir_source *d = src->state;

	if (!d || !d->own.cache_dir || s->reuse)
		return sfs_scan_root(s, src->root, idx, exists);
	struct timespec made = { 0, 0 };
	int rc = take_kept(d, s, idx, &made);
	if (rc < 0)
		return rc;
	struct sfs_scan was = *s;
	size_t first = s->nfound;
	d->starting = true;
	if (d->kept) {
		s->kept = d->kept;
		s->unit_if_unchanged = sfs_unit_if_unchanged;
		s->trusted = sfs_ms_before(made, s->ctime_margin_ms);
	}
	rc = sfs_scan_root(s, src->root, idx, exists);
	s->kept = was.kept;
	s->unit_if_unchanged = was.unit_if_unchanged;
	s->trusted = was.trusted;
	d->missed = rc == 0 && read_one(d, s, first);
	return rc;
}

/* After a start that read a skill no former mount's unit stood for: the
 * root's units kept for the next start, in place of the former ones.  As
 * a git root's (git.c), not after a rebuild, whose new generation would
 * wait for the file. */
static void built(const struct sfs_source *src, const struct sfs_catalog *cat,
                  unsigned idx)
{
	struct dir_source *d = src->state;
	struct sfs_kept_for f;
	uint8_t key[SFS_CACHE_KEY_LEN];

	if (!d)
		return;
	/* the catalog holds its own references */
	sfs_kept_units_free(d->kept);
	d->kept = NULL;
	if (d->starting && d->missed &&
	    sfs_cache_key(d->own.cache_dir, key) == 0) {
		units_for(idx, cat->strict, cat->trust, cat->max_depth,
		          cat->max_files, cat->started, &f);
		/* a cache that cannot be written: the next start reads every
		 * skill, as this one did */
		(void)sfs_kept_units_save(d->own.cache_dir, d->own.url, key,
		                          &f, cat->units, cat->nunits);
	}
	d->starting = d->missed = false;
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

/* a folder root's skills as its last start built them (kept_units.c):
 * read at a start only, made again by the next one */
static const struct sfs_cache_place cache_places[] = {
	{ "folder-units", SFS_CACHE_FILES },
	{ NULL, 0 },
};

const struct sfs_source_ops sfs_source_dir = {
	.kind = "folder",
	.open = open_state,
	.cache_places = cache_places,
	.discover = discover,
	.list = list,
	.open_skill_md = open_skill_md,
	.open_root = open_root,
	.open_file = open_file,
	.pin = pin,
	.check_pinned = check_pinned,
	.built = built,
	.release = release,
};
