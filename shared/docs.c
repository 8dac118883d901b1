/*
 * docs.c - the markdown documents of resource://docs/{path*}: every ".md"
 * file under the docs folder, and nothing else, as a tree shaped like a
 * skill's so the mount serves it with the same code.
 *
 * The URI contract allows relative POSIX paths inside docs/ only, so the
 * walk never leaves the folder: folders are opened relative to their
 * parent with O_NOFOLLOW, symbolic links to folders are not followed, and
 * a symbolic link to a file is kept only when its target is a ".md" file
 * inside the docs folder, by its text and on the filesystem.  Dot entries
 * (".git", ".draft.md") are not served, as in skills.  Every folder read
 * is recorded for the watcher, so a document added anywhere shows up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "snapshot.h"
#include "trust.h"

struct docs_walk {
	struct sfs_scan *s;
	const char *top;        /* the docs folder, absolute */
	char *real_top;         /* its real path; malloc */
	struct sfs_file *v;     /* owned (malloc) until copied */
	size_t n, cap;
	bool capped;
	unsigned depth;
};

/* A hard link's content is that of all its names, which may lie outside
 * the docs folder (a link to another user's file): not served. */
#define HARD_LINK "hard link (the file has other names)"

static bool is_markdown(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".md") == 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The names in folder dfd but dot entries, sorted; *out malloc'd. */
static int list_names(int dfd, char ***out, size_t *nout)
{
	DIR *d = sfs_dir_read(dfd);
	char **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return -errno;
	for (struct dirent *e; (errno = 0, e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.')
			continue;
		if (sfs_grow(&v, &cap, n + 1, sizeof(*v)) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (!(v[n] = strdup(e->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	if (rc == 0 && errno)
		rc = -errno;
	closedir(d);
	if (rc < 0) {
		free_names(v, n);
		return rc;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_name);
	*out = v;
	*nout = n;
	return 0;
}

static struct sfs_file *new_entry(struct docs_walk *w)
{
	return sfs_file_push(&w->v, &w->n, &w->cap);
}

/* st: what the entry shows (a link: its target); own: the entry itself,
 * for its owner. */
static int fill_entry(struct docs_walk *w, const char *rel,
                      const struct stat *st, const struct stat *own,
                      const char *link)
{
	struct sfs_arena *a = w->s->arena;
	struct sfs_file *e = new_entry(w);

	if (!e)
		return -ENOMEM;
	e->path = e->source = sfs_arena_strdup(a, rel);
	if (!e->path)
		return -ENOMEM;
	const char *slash = strrchr(e->path, '/');
	e->name = slash ? slash + 1 : e->path;
	e->mode = st->st_mode;
	sfs_file_set_identity(e, st);
	e->uid = own->st_uid;
	e->gid = own->st_gid;
	if (link) {
		e->mode = S_IFLNK | 0777;
		e->link = sfs_arena_strdup(a, link);
		if (!e->link)
			return -ENOMEM;
	}
	return 0;
}

static int warn(struct docs_walk *w, const char *rel, const char *why)
{
	const char *file = sfs_arena_printf(w->s->arena, "%s/%s", w->top, rel);

	if (!file)
		return -ENOMEM;
	return sfs_diag_add(w->s->global, SFS_WARNING, file, 0, 0, "",
	                    "%s; not served under docs/", why);
}

/* Keeps a symbolic link to a markdown file inside the docs folder. */
static int add_link(struct docs_walk *w, int dfd, const char *name,
                    const char *rel, const struct stat *lst)
{
	char target[PATH_MAX], *abs = NULL, *real = NULL, *joined = NULL;
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	struct stat st;
	int rc;

	if (n < 0)
		return warn(w, rel, "cannot read the symbolic link");
	target[n] = '\0';
	const char *slash = strrchr(rel, '/');
	if (asprintf(&joined, "%.*s%s%s", slash ? (int)(slash - rel) : 0, rel,
	             slash ? "/" : "", target) < 0)
		return -ENOMEM;
	if (target[0] == '/' || !sfs_path_clean_rel(joined) || !*joined) {
		free(joined);
		return warn(w, rel, "symbolic link leads out of the docs folder");
	}
	free(joined);
	if (asprintf(&abs, "%s/%s", w->top, rel) < 0)
		return -ENOMEM;
	real = realpath(abs, NULL);
	size_t tl = w->real_top ? strlen(w->real_top) : 0;
	if (!real || stat(real, &st) < 0)
		rc = warn(w, rel, "symbolic link is dangling");
	else if (!w->real_top || strncmp(real, w->real_top, tl) != 0 ||
	         real[tl] != '/')
		rc = warn(w, rel, "symbolic link leads out of the docs folder");
	else if (!S_ISREG(st.st_mode) || !is_markdown(real))
		rc = warn(w, rel, "symbolic link does not lead to a markdown "
		          "file");
	else if (st.st_nlink > 1)
		rc = warn(w, rel, "symbolic link to a " HARD_LINK);
	else
		rc = fill_entry(w, rel, &st, lst, target);
	free(real);
	free(abs);
	return rc;
}

static int walk(struct docs_walk *w, int dfd, const char *rel);

static int add_folder(struct docs_walk *w, int dfd, const char *name,
                      const char *rel, const struct stat *st)
{
	if (w->depth + 1 > w->s->max_depth)
		return warn(w, rel, "nested too deep");
	int cfd = openat(dfd, name,
	                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0)
		return warn(w, rel, "cannot open the folder");
	size_t at = w->n;
	int rc = fill_entry(w, rel, st, st, NULL);
	if (rc == 0) {
		w->depth++;
		rc = walk(w, cfd, rel);
		w->depth--;
	}
	close(cfd);
	if (rc == 0 && w->n == at + 1)
		w->n = at;   /* no document below: not served */
	return rc;
}

static int add_entry(struct docs_walk *w, int dfd, const char *rel,
                     const char *name)
{
	struct stat st;
	char *path = NULL;
	int rc = 0;

	if (*rel ? asprintf(&path, "%s/%s", rel, name) < 0
	         : !(path = strdup(name)))
		return -ENOMEM;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = 0;   /* gone since it was listed */
	else if (!S_ISDIR(st.st_mode) && !is_markdown(name))
		rc = 0;
	else if (sfs_bad_name(name))
		rc = warn(w, path, sfs_bad_name(name));
	else if (S_ISDIR(st.st_mode))
		rc = add_folder(w, dfd, name, path, &st);
	else if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		rc = warn(w, path, HARD_LINK);
	else if (S_ISREG(st.st_mode))
		rc = fill_entry(w, path, &st, &st, NULL);
	else if (S_ISLNK(st.st_mode))
		rc = add_link(w, dfd, name, path, &st);
	else
		rc = warn(w, path, "not a regular file (a FIFO, socket or "
		          "device)");
	free(path);
	return rc;
}

static int walk(struct docs_walk *w, int dfd, const char *rel)
{
	struct sfs_scan *s = w->s;
	char **names = NULL;
	size_t n = 0;

	const char *abs = *rel ? sfs_arena_printf(s->arena, "%s/%s", w->top,
	                                          rel) : w->top;
	if (!abs)
		return -ENOMEM;
	int rc = list_names(dfd, &names, &n);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return warn(w, *rel ? rel : ".", "cannot read the folder");
	rc = sfs_strvec_push(&s->dirs, abs);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (w->n >= s->max_files) {
			w->capped = true;
			break;
		}
		rc = add_entry(w, dfd, rel, names[i]);
	}
	free_names(names, n);
	return rc;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct sfs_file *)a)->path,
	              ((const struct sfs_file *)b)->path);
}

/* Sorts the entries, links each to its folder, moves them to the arena. */
static int finish(struct docs_walk *w, struct sfs_skill *docs)
{
	sfs_sort(w->v, w->n, sizeof(*w->v), cmp_file);
	for (size_t i = 0; i < w->n; i++) {
		const char *slash = strrchr(w->v[i].path, '/');
		size_t len = slash ? (size_t)(slash - w->v[i].path) : 0;
		for (size_t j = i; slash && j-- > 0;) {
			if (strncmp(w->v[j].path, w->v[i].path, len) == 0 &&
			    w->v[j].path[len] == '\0') {
				w->v[i].parent = (int32_t)j;
				break;
			}
		}
	}
	struct sfs_file *files = sfs_arena_alloc(w->s->arena,
	                                         (w->n ? w->n : 1) *
	                                         sizeof(*files));
	if (!files)
		return -ENOMEM;
	if (w->n)
		memcpy(files, w->v, w->n * sizeof(*files));
	docs->files = files;
	docs->nfiles = w->n;
	docs->skill_md = w->n;
	return 0;
}

int sfs_scan_docs(struct sfs_scan *s, const char *dir, unsigned root,
                  struct sfs_skill **out)
{
	struct sfs_skill *docs = sfs_arena_alloc(s->arena, sizeof(*docs));
	struct docs_walk w = { .s = s };

	*out = NULL;
	if (!docs || !(w.top = sfs_arena_strdup(s->arena, dir)))
		return -ENOMEM;
	docs->id = "";
	docs->description = "";
	docs->dir = w.top;
	docs->root = root;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*out = docs;
		if (errno == ENOENT)
			return sfs_diag_add(s->global, SFS_ERROR, dir, 0, 0, "",
			                    "docs folder does not exist");
		return sfs_diag_add(s->global, SFS_ERROR, dir, 0, 0, "",
		                    "cannot open docs folder: %s",
		                    strerror(errno));
	}
	w.real_top = realpath(dir, NULL);
	int rc = walk(&w, fd, "");
	close(fd);
	free(w.real_top);
	if (rc == 0 && w.capped)
		rc = sfs_diag_add(s->global, SFS_WARNING, dir, 0, 0, "",
		                  "more than %zu entries; only the first %zu "
		                  "are served", s->max_files, s->max_files);
	if (rc == 0)
		rc = finish(&w, docs);
	free(w.v);
	if (rc == 0)
		*out = docs;
	return rc;
}
