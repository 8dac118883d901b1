/*
 * settle_signs.c - what a build saw of the skills it changed, for the
 * settle policy (settle.h): looks at the sources (folders only) through
 * stat, a read lease and the pinning of backing.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backing.h"
#include "settle.h"
#include "settle_signs.h"
#include "tree.h"

/*
 * Whether a process holds dir/name open for writing.  A read lease is
 * refused (EAGAIN) exactly then; it is let go at once.  Where leases are
 * not allowed (a file of another user without CAP_LEASE, a network
 * filesystem) nothing can be told, and the file counts as closed.
 */
static bool open_for_writing(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return false;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
	              O_NOCTTY);
	if (fd < 0)
		return false;
	bool busy = false;
	if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0)
		fcntl(fd, F_SETLEASE, F_UNLCK);
	else
		busy = errno == EAGAIN;
	close(fd);
	return busy;
}

/* Whether path (not followed) changed less than SETTLE_QUIET_MS ago
 * (either way: a clock set back a little); false when it is not there. */
static bool recent(const char *path)
{
	struct stat st;
	struct timespec now;

	if (lstat(path, &st) < 0)
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	long long ms = ((long long)now.tv_sec - st.st_ctim.tv_sec) * 1000 +
	               (now.tv_nsec - st.st_ctim.tv_nsec) / 1000000;
	return ms < SETTLE_QUIET_MS && ms > -SETTLE_QUIET_MS;
}

static bool folder_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool recent_at(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return true;
	return recent(path);
}

/* The file of s at `path` (files are sorted by path), or NULL. */
static const struct sfs_file *file_at(const struct sfs_skill *s,
                                      const char *path)
{
	size_t lo = 0, hi = s->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->files[mid].path, path);
		if (c == 0)
			return &s->files[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Whether a file that g found changed is no longer what the build read
 * (it changed again since, or went): what was read may be half a write. */
static bool changed_since_read(const struct gen *g, const struct node *n)
{
	int fd = backing_pin(g->cat, gen_skill(g, n), gen_file(g, n));

	if (fd >= 0)
		close(fd);
	return fd < 0 && fd != -EOPNOTSUPP;
}

/*
 * What the files g found changed show, per skill of g (settle.h): a
 * malloc'd array indexed like the catalog's skills, or NULL.  Whether a
 * writer holds a file open is asked of the kernel (a lease): events alone
 * cannot tell, for the kernel queues one when the writer's call returns,
 * and a truncation that waits for the journal, or a write throttled
 * after it copied its bytes, shows its new size well before (100 ms and
 * more, measured).
 */
unsigned *settle_file_signs(const struct gen *prev, const struct gen *g)
{
	size_t n = sfs_catalog_nskills(g->cat);
	unsigned *v = calloc(n ? n : 1, sizeof(*v));

	for (uint32_t i = 0; v && i < g->nnodes; i++) {
		const struct node *nd = &g->nodes[i];
		if (nd->kind != NODE_SKILL_FILE || nd->skill == TREE_DOCS ||
		    gen_node(prev, nd->ino))
			continue;
		const struct sfs_skill *t = gen_skill(g, nd);
		const struct sfs_file *f = gen_file(g, nd);
		if (!backing_is_watched(g->cat, t->root) || !S_ISREG(f->mode))
			continue;
		unsigned *sg = &v[nd->skill];
		if (open_for_writing(t->dir, f->source))
			*sg |= SETTLE_WRITING;
		if (changed_since_read(g, nd))
			*sg |= SETTLE_CHANGING;
		const struct sfs_skill *s = sfs_catalog_find(prev->cat, t->id);
		const struct sfs_file *was = s ? file_at(s, f->path) : NULL;
		if (f->size == 0 && was && was->size > 0) {
			*sg |= SETTLE_SHRUNK;
			if (recent_at(t->dir, f->source))
				*sg |= SETTLE_RECENT;
		}
	}
	return v;
}

/* The signs of a skill g lost: its SKILL.md gone, emptied, half written
 * or made invalid, or its folder gone. */
unsigned settle_gone_signs(const struct sfs_skill *s)
{
	const char *md = s->skill_md < s->nfiles ? s->files[s->skill_md].source
	                                         : "SKILL.md";
	unsigned sg = SETTLE_SHRUNK;

	/* a folder taken away whole (rm -r) is no writer's step between
	 * two versions: no editor, checkout or cp -r over a skill does it */
	if (!folder_exists(s->dir))
		return sg;
	if (open_for_writing(s->dir, md))
		sg |= SETTLE_WRITING;
	if (recent_at(s->dir, md) || recent(s->dir))
		sg |= SETTLE_RECENT;
	return sg;
}

/* The signs of the files of a that b lacks (both sorted by path). */
unsigned settle_lost_signs(const struct sfs_skill *a, const struct sfs_skill *b)
{
	unsigned sg = 0;
	char dir[PATH_MAX];

	for (size_t i = 0; i < a->nfiles; i++) {
		if (file_at(b, a->files[i].path))
			continue;
		sg |= SETTLE_SHRUNK;
		const char *src = a->files[i].source;
		const char *slash = strrchr(src, '/');
		int len = snprintf(dir, sizeof(dir), "%s/%.*s", a->dir,
		                   slash ? (int)(slash - src) : 0, src);
		if (len < 0 || len >= (int)sizeof(dir) || recent(dir))
			return sg | SETTLE_RECENT;
	}
	return sg;
}
