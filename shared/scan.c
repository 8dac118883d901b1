/*
 * scan.c - finds the skill folders under each root, and lists each skill's
 * tree with its digests.
 *
 * Every folder is opened relative to its parent's descriptor with
 * O_NOFOLLOW and every entry is examined with AT_SYMLINK_NOFOLLOW, so a
 * folder swapped for a symlink between two calls is not followed either.
 *
 * Discovery follows a symlink to a folder, as agents do (the `skills`
 * installer links .claude/skills/x to ../../.agents/skills/x, and users
 * link skills they develop elsewhere): a linked skill folder is served,
 * with the folder the link resolves to as its boundary, and a linked
 * category folder is searched.  A link to a folder that holds it (a loop)
 * or to a folder above the root is reported and not followed.
 *
 * Inside a skill, a symlink is kept when it resolves, lexically and on the
 * filesystem, to an entry inside the same skill folder; anything else is
 * hidden with a warning, because the mount must not lead readers outside
 * the skill.
 *
 * These are the folder's discovery and listing (struct sfs_source_ops in
 * source.h, whose folder implementation is source_dir.c).  The catalog
 * asks a root's source to discover its skills, list each one with the
 * identities and digests of its entries, and open SKILL.md; the mount
 * asks it to open a served file.  Below that line everything here is a
 * folder's: the stat identities that tell a folder unchanged
 * (sfs_unit_if_unchanged in unit.c, sfs_digest_reuse in digest.c), the
 * hashing (sfs_sha256_at in digest.c), plugins.c and docs.c.  Another
 * kind of source fills the same sfs_found and sfs_tree in its own file,
 * with whatever stamps a version of an entry (a blob id for git) as its
 * identity.  Change detection (fs/watch.c, fs/refresh.c) stays a
 * folder's too: see source.h.
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

/* ---- small helpers ------------------------------------------------------ */

/* "dir/name" in the arena, without doubling the slash of "/". */
static char *join(struct sfs_arena *a, const char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);
	bool slash = !(n > 0 && dir[n - 1] == '/');
	char *p = sfs_arena_alloc(a, n + slash + m + 1);   /* zeroed */

	if (p) {
		memcpy(p, dir, n);
		if (slash)
			p[n] = '/';
		memcpy(p + n + slash, name, m);
	}
	return p;
}

/* Folders that are not served inside a skill: hidden ones (".git") and
 * package caches, which can hold thousands of files nobody authored. */
bool sfs_scan_hidden_in_skill(const char *name)
{
	return name[0] == '.' || strcmp(name, "node_modules") == 0;
}

/* Folders discovery does not search: version control, dependencies,
 * caches and editor state, which hold no skills of their own but can hold
 * many thousands of files (or other projects' skills, vendored).  Other
 * dot folders (skills/.system, .curated, .experimental) are searched.
 * None of these names is a valid skill id, so no skill folder is among
 * them. */
static const char *const not_searched[] = {
	".git", ".hg", ".svn", ".bzr", ".jj", "_darcs", "CVS",
	"node_modules", "bower_components", ".venv", "__pycache__",
	".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
	".cache", ".npm", ".yarn", ".pnpm-store", ".gradle", ".idea", ".vscode",
	".Trash", ".claude-plugin",
};

bool sfs_scan_skipped_folder(const char *name)
{
	for (size_t i = 0; i < sizeof(not_searched) / sizeof(*not_searched); i++)
		if (strcmp(name, not_searched[i]) == 0)
			return true;
	return false;
}

/* ---- reading one folder ------------------------------------------------- */

/* Tells the caller that `path` is about to be listed (a watcher then
 * watches it before the listing, not after). */
static void will_list(const struct sfs_scan *s, const char *path)
{
	if (s->before_listing)
		s->before_listing(path, s->before_listing_arg);
}

/* The names of one folder, sorted, with their d_type (DT_UNKNOWN when the
 * filesystem does not tell).  Names live in one pool. */
struct name {
	const char *s;
	unsigned char type;
};

struct names {
	struct name *v;   /* owned (malloc) */
	size_t n, cap;
	char *pool;       /* owned (malloc) */
	size_t used, pool_cap;
};

static void names_free(struct names *nm)
{
	free(nm->v);
	free(nm->pool);
	memset(nm, 0, sizeof(*nm));
}

/* Appends a name; its string is an offset into the pool until
 * names_seal() turns offsets into pointers (the pool may move). */
static int names_push(struct names *nm, const char *name, unsigned char type)
{
	size_t len = strlen(name) + 1;

	if (sfs_grow(&nm->v, &nm->cap, nm->n + 1, sizeof(*nm->v)) < 0)
		return -ENOMEM;
	if (sfs_grow(&nm->pool, &nm->pool_cap, nm->used + len, 1) < 0)
		return -ENOMEM;
	memcpy(nm->pool + nm->used, name, len);
	nm->v[nm->n++] = (struct name){ (const char *)(uintptr_t)nm->used,
	                                type };
	nm->used += len;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct name *)a)->s, ((const struct name *)b)->s);
}

static void names_seal(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		nm->v[i].s = nm->pool + (uintptr_t)nm->v[i].s;
	sfs_sort(nm->v, nm->n, sizeof(*nm->v), cmp_name);
}

/*
 * Reads the names in the folder dfd (not "." and ".."), at most `limit`
 * of them, sorted.  dfd must be freshly opened (at offset 0); getdents64
 * on it directly saves the dup, fcntl and lseek of fdopendir and
 * rewinddir, which add up over tens of thousands of folders.  *cut says
 * whether more were left unread.  Returns 0, -ENOMEM, or another -errno
 * when the folder cannot be read.
 */
static int read_names(int dfd, size_t limit, struct names *nm, bool *cut)
{
	char buf[32768] __attribute__((aligned(8)));
	int rc = 0;

	*cut = false;
	for (;;) {
		ssize_t got = getdents64(dfd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -errno : 0;
			break;
		}
		for (ssize_t off = 0; off < got && rc == 0;) {
			const struct dirent64 *e = (const void *)(buf + off);
			off += e->d_reclen;
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			if (nm->n >= limit) {
				*cut = true;
				break;
			}
			rc = names_push(nm, e->d_name, e->d_type);
		}
		if (rc < 0 || *cut)
			break;
	}
	if (rc < 0) {
		names_free(nm);
		return rc;
	}
	names_seal(nm);
	return 0;
}

/* ---- discovery ---------------------------------------------------------- */

/* A folder by identity, to tell a symlink loop. */
struct folder_id {
	dev_t dev;
	ino_t ino;
};

struct walk {
	struct sfs_scan *s;
	unsigned root;
	size_t budget;          /* entries this root may still read */
	bool out_of_budget;
	const char *too_deep;   /* the first folder left unsearched */
	size_t searched;        /* folders listed */
	/* The folders being searched, by level: stack[0] is the root. */
	struct folder_id *stack;    /* owned; max_depth + 1 entries */
	char *real_root;            /* owned; realpath, or NULL */
	/* What the plugin manifests of the folders being searched say. */
	struct sfs_plugin_rules rules;
	bool via_link;          /* the folder being searched was reached
	                           through a symlink */
};

static int add_found(struct sfs_scan *s, const char *dir,
                     const char *skill_md, unsigned root,
                     struct sfs_unit *same, const char *plugin)
{
	if (sfs_grow(&s->found, &s->capfound, s->nfound + 1,
	             sizeof(*s->found)) < 0)
		return -ENOMEM;
	s->found[s->nfound++] = (struct sfs_found){
		.dir = dir, .skill_md = skill_md, .root = root, .same = same,
		.plugin = plugin,
	};
	return 0;
}

/* One reached through a symlink records its real path too. */
static int found_real(struct walk *w, bool link)
{
	if (!(link || w->via_link))
		return 0;
	char *real = realpath(w->s->found[w->s->nfound - 1].dir, NULL);
	if (real) {
		w->s->found[w->s->nfound - 1].real =
			sfs_arena_strdup(w->s->arena, real);
		free(real);
	}
	return 0;
}

/* A skill folder found by discovery. */
static int found_at(struct walk *w, const char *dir, const char *skill_md,
                    bool link, const char *plugin)
{
	int rc = add_found(w->s, dir, skill_md, w->root, NULL, plugin);
	return rc < 0 ? rc : found_real(w, link);
}

/* The spelling of SKILL.md in a folder's names, or NULL. */
static const char *skill_md_name(const struct names *nm)
{
	const char *found = NULL;

	for (size_t i = 0; i < nm->n; i++) {
		if (strcmp(nm->v[i].s, "SKILL.md") == 0)
			return "SKILL.md";
		if (strcmp(nm->v[i].s, "skill.md") == 0)
			found = "skill.md";
	}
	return found;
}

static int walk_dir(struct walk *w, int dfd, const char *path, unsigned depth);

/* The unit of the previous snapshot for a folder whose author is still
 * at work (sfs_config.held), or NULL. */
static struct sfs_unit *held_unit(const struct walk *w, const char *dir)
{
	const struct sfs_scan *s = w->s;

	for (size_t i = 0; i < s->nheld; i++) {
		if (strcmp(s->held[i], dir) != 0)
			continue;
		struct sfs_unit *u = sfs_unit_find(s->reuse, dir);
		return u && u->root == w->root ? u : NULL;
	}
	return NULL;
}

/*
 * A skill folder of the previous snapshot that stat shows unchanged, or
 * that is held, is found without being opened or listed, nor are its
 * subfolders; returns whether it was.  *st is its identity if known
 * (mode 0 when not; a linked folder's (`link`): its target's).  A
 * folder reached through a link is looked at anew in a rebuild (its link
 * may have changed, which no watcher of the skill's folders sees); a
 * start compares it with the unit a former mount kept, whose identity
 * is its target's.
 */
static int found_unchanged(struct walk *w, int dfd, const char *child,
                           const char *name, struct stat *st,
                           const char *plugin, bool link, bool *done)
{
	const struct sfs_probe p = {
		.dfd = dfd, .name = name, .dir = child, .st = st,
		.root = w->root, .plugin = plugin,
	};
	bool linked = link || w->via_link;
	struct sfs_unit *u = NULL;

	if (!linked)
		u = held_unit(w, child);
	if (!u && (!linked || !w->s->reuse) && w->s->unit_if_unchanged)
		u = w->s->unit_if_unchanged(w->s, &p);
	*done = u != NULL;
	int rc = u ? add_found(w->s, child, u->skill_md, w->root, u, plugin) : 0;
	return u && rc == 0 ? found_real(w, link) : rc;
}

/*
 * The spelling of SKILL.md in the folder `name` of dfd, found by stat, or
 * NULL when there is none (or the folder cannot be searched: listing it
 * will tell why).  One call where listing the folder would take four;
 * the skill's own listing (sfs_scan_tree) has the last word on the
 * spelling, which a case-insensitive filesystem does not keep here.
 */
static const char *skill_md_at(int dfd, const char *name)
{
	static const char *const spellings[] = { "SKILL.md", "skill.md" };
	char path[NAME_MAX + sizeof("/SKILL.md")];
	struct stat st;

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", name, spellings[i]);
		if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return spellings[i];
		if (errno != ENOENT)
			return NULL;
	}
	return NULL;
}

/* Whether path lies strictly below dir. */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/' && path[1];
	return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1];
}

/*
 * Whether the symlink `name` (at lpath) to the folder *target may be
 * followed: not when it leads to a folder being searched (a loop) or to
 * one that holds the root; those are reported.
 */
static int may_follow(struct walk *w, const char *lpath,
                      const struct stat *target, unsigned depth, bool *ok)
{
	*ok = false;
	for (unsigned i = 0; i <= depth; i++)
		if (w->stack[i].dev == target->st_dev &&
		    w->stack[i].ino == target->st_ino)
			return sfs_diag_add(w->s->global, SFS_WARNING, lpath, 0, 0,
			                    "", "symbolic link to a folder that "
			                    "holds it (a loop): not followed");
	char *real = realpath(lpath, NULL);
	bool above = real && w->real_root &&
	             (strcmp(real, w->real_root) == 0 ||
	              under(w->real_root, real));
	int rc = 0;
	if (above)
		rc = sfs_diag_add(w->s->global, SFS_WARNING, lpath, 0, 0, "",
		                  "symbolic link to %s, which holds the skills "
		                  "folder: not followed", real);
	free(real);
	*ok = !above;
	return rc;
}

/* Looks at one entry of a category folder: a skill folder, a folder to
 * search, or a symlink to either.  The folder's d_type spares a stat of
 * every entry; openat with O_NOFOLLOW | O_DIRECTORY still refuses a
 * folder swapped for something else since it was listed. */
static int walk_entry(struct walk *w, int dfd, const char *path,
                      const struct name *nm, unsigned depth)
{
	struct sfs_scan *s = w->s;
	const char *name = nm->s;
	struct stat st;
	bool link = false;

	if (sfs_scan_skipped_folder(name))
		return 0;
	memset(&st, 0, sizeof(st));
	if (nm->type == DT_DIR)
		;   /* a folder; stat only when needed */
	else if (nm->type != DT_UNKNOWN && nm->type != DT_LNK)
		return 0;   /* a file, fifo, socket or device */
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;   /* gone since it was listed */
	if (S_ISLNK(st.st_mode) && nm->type != DT_DIR) {
		const char *lpath = join(s->arena, path, name);
		if (!lpath)
			return -ENOMEM;
		if (fstatat(dfd, name, &st, 0) < 0)
			return errno != ELOOP ? 0 :   /* dangling: no folder */
			       sfs_diag_add(s->global, SFS_WARNING, lpath, 0, 0,
			                    "", "symbolic link loops: not "
			                    "followed");
		if (!S_ISDIR(st.st_mode))
			return 0;
		bool ok;
		int rc = may_follow(w, lpath, &st, depth, &ok);
		if (rc < 0 || !ok)
			return rc;
		link = true;
	}
	if (nm->type != DT_DIR && !S_ISDIR(st.st_mode))
		return 0;

	const char *child = join(s->paths ? s->paths : s->arena, path, name);
	if (!child)
		return -ENOMEM;
	const char *bad = sfs_bad_name(name);
	if (bad)
		return sfs_diag_add(s->global, SFS_WARNING, child, 0, 0, "",
		                    "not searched: the folder's %s", bad);
	if (depth + 1 > s->max_depth) {
		if (!w->too_deep)
			w->too_deep = child;
		return 0;
	}
	const char *plugin = sfs_plugins_match(&w->rules, child);
	bool done;
	int rc = found_unchanged(w, dfd, child, name, &st, plugin, link,
	                         &done);
	if (rc < 0 || done)
		return rc;
	/* A skill is not searched for more skills. */
	const char *skill_md = skill_md_at(dfd, name);
	if (skill_md)
		return found_at(w, child, skill_md, link, plugin);
	int cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	                 (link ? 0 : O_NOFOLLOW));
	if (cfd < 0 && nm->type == DT_DIR &&
	    (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)) {
		/* changed since it was listed: look again, as if the
		 * listing had not told */
		struct name again = { name, DT_UNKNOWN };
		return walk_entry(w, dfd, path, &again, depth);
	}
	if (cfd < 0)
		return sfs_diag_add(s->global, SFS_WARNING, child, 0, 0, "",
		                    "cannot open folder: %s",
		                    sfs_strerror(errno));
	bool via_link = w->via_link;
	w->via_link |= link;
	rc = walk_dir(w, cfd, child, depth + 1);
	w->via_link = via_link;
	close(cfd);
	return rc;
}

/* Forgets the levels between the root and a folder searched without
 * walking down to it (an installed plugin's): none is being searched. */
static void clear_stack(struct walk *w, unsigned depth)
{
	for (unsigned i = 1; i < depth; i++)
		w->stack[i] = (struct folder_id){ 0, 0 };
}

static bool has_name(const struct names *nm, const char *name)
{
	for (size_t i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i].s, name) == 0)
			return true;
	return false;
}

static unsigned levels(const char *rel)
{
	unsigned n = 1;
	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

/* An installed plugin whose marketplace entry lists its skill folders:
 * those are searched, not the rest of the copy (a marketplace repository
 * installed whole for each of its plugins). */
static int walk_listed(struct walk *w, int dfd, const char *path,
                       unsigned depth, const char *plugin,
                       const char *const *listed, size_t n)
{
	struct sfs_scan *s = w->s;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *abs = join(s->paths ? s->paths : s->arena, path,
		                       listed[i]);
		const char *rule = abs ? sfs_arena_strdup(s->arena, abs) : NULL;
		if (!rule)
			return -ENOMEM;
		unsigned d = depth + levels(listed[i]);
		if (d > s->max_depth)
			continue;
		int fd = openat(dfd, listed[i], O_RDONLY | O_DIRECTORY |
		                O_CLOEXEC);
		if (fd < 0)
			continue;   /* listed, not there: Claude Code skips it */
		rc = sfs_plugins_rule(s, &w->rules, rule, plugin);
		clear_stack(w, d);
		if (rc == 0)
			rc = walk_dir(w, fd, abs, d);
		close(fd);
	}
	return rc;
}

/*
 * Claude Code's own plugins folder (~/.claude/plugins) keeps every
 * marketplace it knows (marketplaces/) and every version it fetched
 * (cache/): only the plugin folders that installed_plugins.json names are
 * searched, each as its plugin.
 */
static int walk_installed(struct walk *w, int dfd, const char *path,
                          const struct sfs_installed *v, size_t n)
{
	struct sfs_scan *s = w->s;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			seen |= strcmp(v[k].rel, v[i].rel) == 0;
		unsigned depth = levels(v[i].rel);
		const char *abs = join(s->paths ? s->paths : s->arena, path,
		                       v[i].rel);
		const char *skills = join(s->arena, abs ? abs : "", "skills");
		if (!abs || !skills)
			return -ENOMEM;
		if (seen)
			continue;
		if (depth > s->max_depth) {
			if (!w->too_deep)
				w->too_deep = abs;
			continue;
		}
		int fd = openat(dfd, v[i].rel,
		                O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			rc = sfs_diag_add(s->global, SFS_WARNING, abs, 0, 0, "",
			                  "installed plugin %s: cannot open its "
			                  "folder: %s", v[i].name,
			                  sfs_strerror(errno));
			continue;
		}
		const char **listed;
		size_t nlisted;
		size_t mark = w->rules.n;
		rc = sfs_plugins_listed(s, dfd, path, &v[i], &listed, &nlisted);
		if (rc == 0)
			rc = sfs_plugins_rule(s, &w->rules, skills, v[i].name);
		if (rc == 0 && nlisted)
			rc = walk_listed(w, fd, abs, depth, v[i].name, listed,
			                 nlisted);
		else if (rc == 0) {
			clear_stack(w, depth);
			rc = walk_dir(w, fd, abs, depth);
		}
		w->rules.n = mark;
		close(fd);
	}
	return rc;
}

static int walk_dir(struct walk *w, int dfd, const char *path, unsigned depth)
{
	struct sfs_scan *s = w->s;
	struct names nm = { 0 };
	struct stat self;
	bool cut;

	w->stack[depth] = (struct folder_id){ 0, 0 };
	if (fstat(dfd, &self) == 0)
		w->stack[depth] = (struct folder_id){ self.st_dev, self.st_ino };
	will_list(s, path);
	int rc = read_names(dfd, w->budget, &nm, &cut);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return sfs_diag_add(s->global, SFS_WARNING, path, 0, 0, "",
		                    "cannot read folder: %s", sfs_strerror(-rc));
	w->budget -= nm.n;
	w->searched++;
	if (cut)
		w->out_of_budget = true;

	/* A skill is not searched for more skills; the tree listing
	 * records its folder for the watcher. */
	const char *skill_md = skill_md_name(&nm);
	if (skill_md) {
		rc = found_at(w, path, skill_md, false,
		              sfs_plugins_match(&w->rules, path));
		names_free(&nm);
		return rc;
	}
	/* a folder to watch: its path lives as long as the catalog */
	rc = sfs_strvec_push(&s->dirs, s->paths ?
	                     sfs_arena_strdup(s->arena, path) : path);
	size_t mark = w->rules.n;
	if (rc == 0 && has_name(&nm, ".claude-plugin"))
		rc = sfs_plugins_read(s, dfd, path, &w->rules);
	if (rc == 0 && depth == 0 && has_name(&nm, "installed_plugins.json")) {
		struct sfs_installed *v;
		size_t n;
		rc = sfs_plugins_installed(s, dfd, path, &v, &n);
		if (rc == 0)
			rc = walk_installed(w, dfd, path, v, n);
		free(v);
		names_free(&nm);
		return rc;
	}
	for (size_t i = 0; rc == 0 && i < nm.n; i++)
		rc = walk_entry(w, dfd, path, &nm.v[i], depth);
	w->rules.n = mark;
	names_free(&nm);
	return rc;
}

static int cmp_found(const void *a, const void *b)
{
	const struct sfs_found *x = a, *y = b;
	return strcmp(x->dir, y->dir);
}

static int root_missing(struct sfs_scan *s, const char *root, int err)
{
	if (err == ENOENT)
		return sfs_diag_add(s->global, SFS_ERROR, root, 0, 0, "",
		                    "skills folder does not exist");
	if (err == ENOTDIR)
		return sfs_diag_add(s->global, SFS_ERROR, root, 0, 0, "",
		                    "skills folder is not a folder");
	return sfs_diag_add(s->global, SFS_ERROR, root, 0, 0, "",
	                    "cannot open skills folder: %s", sfs_strerror(err));
}

int sfs_scan_root(struct sfs_scan *s, const char *root, unsigned idx,
                  bool *exists)
{
	/* The root itself may be a symlink: the user named it. */
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*exists = fd >= 0;
	if (fd < 0)
		return root_missing(s, root, errno);

	struct walk w = { .s = s, .root = idx, .budget = s->max_entries };
	size_t first = s->nfound;
	const char *path = sfs_arena_strdup(s->arena, root);
	w.stack = calloc(s->max_depth + 1, sizeof(*w.stack));
	w.real_root = realpath(root, NULL);
	int rc = path && w.stack ? walk_dir(&w, fd, path, 0) : -ENOMEM;
	close(fd);
	free(w.stack);
	free(w.real_root);
	free(w.rules.v);
	if (rc < 0)
		return rc;

	if (s->nfound > first)   /* found is NULL while nothing was found */
		sfs_sort(s->found + first, s->nfound - first,
		         sizeof(*s->found), cmp_found);
	else
		rc = sfs_diag_add(s->global, SFS_WARNING, root, 0, 0, "",
		                  "no skill found: searched %zu folders up to "
		                  "%u levels down for a SKILL.md (not in "
		                  "version-control, dependency and cache "
		                  "folders)", w.searched, s->max_depth);
	if (rc == 0 && w.out_of_budget)
		rc = sfs_diag_add(s->global, SFS_WARNING, root, 0, 0, "",
		                  "search stopped after %zu entries; "
		                  "skills further on were not found",
		                  s->max_entries);
	if (rc == 0 && w.too_deep)
		rc = sfs_diag_add(s->global, SFS_WARNING, w.too_deep, 0, 0, "",
		                  "not searched: more than %u folder levels "
		                  "below the skills folder", s->max_depth);
	return rc;
}

/* ---- one skill's tree --------------------------------------------------- */

struct tree_walk {
	struct sfs_scan *s;
	const struct sfs_found *f;
	struct sfs_arena *arena;   /* for every string of the tree */
	struct sfs_diag_list *diags;
	struct sfs_strvec dirs;    /* folders read, absolute */
	char *real_dir;            /* realpath of the skill folder; malloc */
	bool real_tried;           /* real_dir was asked for */
	struct sfs_file *v;        /* owned (malloc) until copied */
	size_t n, cap;
	bool capped;
	unsigned depth;            /* folder levels below the skill folder */
	struct multi *multi;       /* entries whose file has several names */
	size_t nmulti, capmulti;
	struct sfs_tree_keep kept; /* bytes read to hash entries */
};

/* An entry whose content is a file with more than one hard link. */
struct multi {
	size_t entry;              /* index into tree_walk.v */
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	bool is_name;              /* a name of the file, not a symlink to it */
};

/* Remembers entry `entry` when its file has other names: they may lie
 * outside the skill (see drop_outside_links). */
static int note_links(struct tree_walk *t, size_t entry, const struct stat *st,
                      bool is_name)
{
	if (st->st_nlink <= 1)
		return 0;
	if (sfs_grow(&t->multi, &t->capmulti, t->nmulti + 1,
	             sizeof(*t->multi)) < 0)
		return -ENOMEM;
	t->multi[t->nmulti++] = (struct multi){
		.entry = entry, .dev = st->st_dev, .ino = st->st_ino,
		.nlink = st->st_nlink, .is_name = is_name,
	};
	return 0;
}

static struct sfs_file *new_entry(struct tree_walk *t)
{
	return sfs_file_push(&t->v, &t->n, &t->cap);
}

/* A hidden entry: a warning, or an error when it is SKILL.md itself, which
 * the skill cannot do without. */
static int hide(struct tree_walk *t, bool is_skill_md, const char *rel,
                const char *why)
{
	const char *abs = join(t->arena, t->f->dir, rel);
	return abs ? sfs_diag_hidden(t->diags, abs, is_skill_md, why) : -ENOMEM;
}

static int hide_errno(struct tree_walk *t, bool is_skill_md, const char *rel,
                      int err)
{
	char why[256];
	snprintf(why, sizeof(why), "cannot read: %s", sfs_strerror(err));
	return hide(t, is_skill_md, rel, why);
}

/* Hashes `name` into e->sha256 and e->size (what was hashed, even when
 * the file changed since it was examined), keeping its bytes for
 * e->path when they fit.  Returns 0 or -errno. */
static int hash_entry(struct tree_walk *t, int dfd, const char *name,
                      struct sfs_file *e, struct stat *st)
{
	unsigned char *bytes;
	off_t len;
	int rc = sfs_sha256_keep_at(dfd, name, sfs_tree_keep_room(&t->kept),
	                            e->sha256, &len, st, &bytes);
	if (rc < 0)
		return rc;
	e->size = len;
	if (bytes)
		sfs_tree_keep_add(&t->kept, e->path, bytes, (size_t)len);
	t->s->hashed++;
	return 0;
}

/* Fills the digest of e (path and identity set) from the previous
 * snapshot or by reading the file. */
static int digest_entry(struct tree_walk *t, int dfd, const char *name,
                        struct sfs_file *e)
{
	const uint8_t *known = sfs_digest_reuse(t->s, e);
	if (known) {
		/* the same bytes, but perhaps no longer readable (chmod):
		 * hidden then, as an unreadable file is at the first scan */
		if (faccessat(dfd, name, R_OK, AT_EACCESS) < 0)
			return -errno;
		memcpy(e->sha256, known, sizeof(e->sha256));
	} else {
		int rc = hash_entry(t, dfd, name, e, NULL);
		if (rc < 0)
			return rc;
	}
	e->hashed = true;
	return 0;
}

/* The real path of the skill folder, asked for only when a symlink needs
 * it (realpath reads every component of the path); NULL when it cannot
 * be had, and then every symlink is hidden. */
static const char *real_dir(struct tree_walk *t)
{
	if (!t->real_tried) {
		t->real_tried = true;
		t->real_dir = realpath(t->f->dir, NULL);
	}
	return t->real_dir;
}

/* Whether the link at `rel` with target `target` stays inside the skill
 * by its text alone. */
static bool link_lexically_inside(const char *rel, const char *target)
{
	if (target[0] == '/')
		return false;
	const char *slash = strrchr(rel, '/');
	char *joined = NULL;
	if (!slash)
		joined = strdup(target);
	else if (asprintf(&joined, "%.*s/%s", (int)(slash - rel), rel,
	                  target) < 0)
		joined = NULL;
	if (!joined)
		return false;
	bool ok = sfs_path_clean_rel(joined) && joined[0] != '\0';
	free(joined);
	return ok;
}


/* Adds the kept link: a folder link with its own identity, a file link
 * with its target's size, identity and digest. */
static int keep_link(struct tree_walk *t, const struct sfs_file *model,
                     const struct stat *lst, const char *real,
                     const struct stat *st, const char *target)
{
	struct sfs_file *e = new_entry(t);
	if (!e)
		return -ENOMEM;
	*e = *model;
	e->link = sfs_arena_strdup(t->arena, target);
	if (!e->link)
		return -ENOMEM;
	if (S_ISDIR(st->st_mode)) {
		sfs_file_set_identity(e, lst);
		return 0;
	}
	/* The content is the target's, so is its identity: an edit of the
	 * target changes the digest.  The owner is the link's own. */
	sfs_file_set_identity(e, st);
	e->uid = lst->st_uid;
	e->gid = lst->st_gid;
	int rc = digest_entry(t, AT_FDCWD, real, e);
	if (rc < 0) {
		t->n--;
		if (rc != -ENOMEM)
			rc = hide(t, strcmp(model->path, "SKILL.md") == 0,
			          model->source,
			          "cannot read the target of the symbolic link");
		return rc;
	}
	return note_links(t, t->n - 1, st, false);
}

/*
 * Keeps the symlink `name` (at model->source) when it resolves inside the
 * skill to a folder or a regular file; hides it with a finding otherwise.
 */
static int add_link(struct tree_walk *t, int dfd, const char *name,
                    const struct stat *lst, bool is_skill_md,
                    const struct sfs_file *model)
{
	const char *rel = model->source;
	char target[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return hide(t, is_skill_md, rel, "cannot read symbolic link");
	target[n] = '\0';

	if (target[0] == '/')
		return hide(t, is_skill_md, rel,
		            "symbolic link has an absolute target");
	const char *top = real_dir(t);
	if (!top || !link_lexically_inside(rel, target))
		return hide(t, is_skill_md, rel,
		            "symbolic link points outside the skill folder");

	const char *abs = join(t->arena, t->f->dir, rel);
	if (!abs)
		return -ENOMEM;
	char *real = realpath(abs, NULL);
	if (!real)
		return hide(t, is_skill_md, rel, errno == ELOOP ?
		            "symbolic link loops" : "symbolic link is dangling");

	struct stat st;
	int rc;
	if (!under(real, top))
		rc = hide(t, is_skill_md, rel,
		          "symbolic link points outside the skill folder");
	else if (stat(real, &st) < 0)
		rc = hide(t, is_skill_md, rel, "symbolic link is dangling");
	else if (S_ISREG(st.st_mode) || (S_ISDIR(st.st_mode) && !is_skill_md))
		rc = keep_link(t, model, lst, real, &st, target);
	else if (S_ISDIR(st.st_mode))
		rc = hide(t, true, rel, "SKILL.md is a folder");
	else
		rc = hide(t, is_skill_md, rel, "symbolic link does not point "
		          "to a regular file or folder");
	free(real);
	return rc;
}

static int list_entries(struct tree_walk *t, int dfd, const char *rel,
                        const struct names *nm);

static int add_folder(struct tree_walk *t, int dfd, const char *name,
                      const struct stat *st, struct sfs_file *model)
{
	struct sfs_scan *s = t->s;
	const char *abs = join(t->arena, t->f->dir, model->path);
	if (!abs)
		return -ENOMEM;

	/* Each level holds a descriptor and a stack frame: bounded like
	 * discovery. */
	if (t->depth + 1 > s->max_depth)
		return hide(t, false, model->path, "folder nested too deep");
	will_list(s, abs);
	int cfd = openat(dfd, name,
	                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0)
		return hide_errno(t, false, model->path, errno);
	struct names nm = { 0 };
	bool cut;
	int rc = read_names(cfd, s->max_files + 1, &nm, &cut);
	if (rc == -ENOMEM) {
		close(cfd);
		return rc;
	}
	if (rc < 0) {
		close(cfd);
		return hide_errno(t, false, model->path, -rc);
	}
	struct sfs_file *e = new_entry(t);
	if (!e)
		rc = -ENOMEM;
	else
		*e = *model;
	if (rc == 0) {
		sfs_file_set_identity(e, st);
		rc = sfs_strvec_push(&t->dirs, abs);
	}
	if (rc == 0) {
		t->depth++;
		rc = list_entries(t, cfd, model->path, &nm);
		t->depth--;
	}
	names_free(&nm);
	close(cfd);
	return rc;
}

static const char *kind_name(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "not a regular file (a FIFO)";
	if (S_ISSOCK(mode))
		return "not a regular file (a socket)";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "not a regular file (a device)";
	return "not a regular file, folder or symbolic link";
}

/*
 * In a build with no digest to reuse, an entry the listing calls a regular
 * file is opened and hashed at once: the open tells its identity, which
 * saves a stat per file.  Returns 1, having added nothing, when that does
 * not work out (the entry changed since it was listed, or cannot be
 * read): the caller then examines it the long way, which says why.
 */
static int add_listed_file(struct tree_walk *t, int dfd, const char *name,
                           const struct sfs_file *model)
{
	struct sfs_file e = *model;
	struct stat st;

	if (hash_entry(t, dfd, name, &e, &st) < 0)
		return 1;
	off_t len = e.size;   /* what was hashed, see hash_entry */
	sfs_file_set_identity(&e, &st);
	e.mode = st.st_mode;
	e.size = len;
	e.hashed = true;
	struct sfs_file *slot = new_entry(t);
	if (!slot)
		return -ENOMEM;
	*slot = e;
	return note_links(t, t->n - 1, &st, true);
}

static bool nothing_to_reuse(const struct sfs_scan *s)
{
	return !s->prev && s->nhint == 0;
}

static int list_one(struct tree_walk *t, int dfd, const char *rel,
                    const char *name, unsigned char type)
{
	struct sfs_arena *a = t->arena;
	bool is_skill_md = !rel && strcmp(name, t->f->skill_md) == 0;
	struct sfs_file model = { .parent = -1 };

	model.source = rel ? join(a, rel, name) : sfs_arena_strdup(a, name);
	model.path = is_skill_md ? "SKILL.md" : model.source;
	if (!model.source)
		return -ENOMEM;
	const char *slash = strrchr(model.path, '/');
	model.name = slash ? slash + 1 : model.path;
	const char *bad = sfs_bad_name(name);
	if (bad)
		return hide(t, false, model.source, bad);
	/* Reads and watches name the source by its path: one longer than
	 * the system takes could be listed but never read nor watched. */
	if (strlen(t->f->dir) + 1 + strlen(model.source) >= PATH_MAX) {
		char why[64];
		snprintf(why, sizeof(why), "path longer than %d bytes",
		         PATH_MAX - 1);
		return hide(t, false, model.source, why);
	}

	if (type == DT_REG && !is_skill_md && nothing_to_reuse(t->s)) {
		int rc = add_listed_file(t, dfd, name, &model);
		if (rc <= 0)
			return rc;
	}
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return hide_errno(t, is_skill_md, model.source, errno);
	model.mode = st.st_mode;

	if (S_ISDIR(st.st_mode)) {
		if (is_skill_md)
			return hide(t, true, model.source, "SKILL.md is a folder");
		if (sfs_scan_hidden_in_skill(name))
			return 0;
		return add_folder(t, dfd, name, &st, &model);
	}
	if (S_ISLNK(st.st_mode))
		return add_link(t, dfd, name, &st, is_skill_md, &model);
	if (!S_ISREG(st.st_mode))
		return hide(t, is_skill_md, model.source, kind_name(st.st_mode));

	struct sfs_file *e = new_entry(t);
	if (!e)
		return -ENOMEM;
	*e = model;
	sfs_file_set_identity(e, &st);
	/* SKILL.md, read anyway to be parsed, is hashed from what is read
	 * there (catalog.c): it is not read twice. */
	if (is_skill_md && !sfs_digest_reuse(t->s, e))
		return note_links(t, t->n - 1, &st, true);
	int rc = digest_entry(t, dfd, name, e);
	if (rc < 0) {
		t->n--;
		if (rc == -ENOMEM)
			return rc;
		return hide_errno(t, is_skill_md, model.source, -rc);
	}
	return note_links(t, t->n - 1, &st, true);
}

static int list_entries(struct tree_walk *t, int dfd, const char *rel,
                        const struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++) {
		if (t->n >= t->s->max_files) {
			t->capped = true;
			return 0;
		}
		int rc = list_one(t, dfd, rel, nm->v[i].s, nm->v[i].type);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int cmp_multi(const void *a, const void *b)
{
	const struct multi *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

/*
 * Hides every entry whose file has more hard links than names in this
 * skill folder: another name lies outside it, and the content is that
 * outside file's (a link to /etc/shadow, or to another user's file,
 * made where the skill's author may write).  Names that all lie inside
 * the skill are kept.
 */
static int drop_outside_links(struct tree_walk *t)
{
	sfs_sort(t->multi, t->nmulti, sizeof(*t->multi), cmp_multi);
	for (size_t i = 0, j; i < t->nmulti; i = j) {
		nlink_t nlink = 0;
		size_t names = 0;
		for (j = i; j < t->nmulti && t->multi[j].dev == t->multi[i].dev &&
		     t->multi[j].ino == t->multi[i].ino; j++) {
			names += t->multi[j].is_name;
			if (t->multi[j].nlink > nlink)
				nlink = t->multi[j].nlink;
		}
		if (names >= nlink)
			continue;
		for (size_t k = i; k < j; k++) {
			struct sfs_file *e = &t->v[t->multi[k].entry];
			char why[160];
			if (t->multi[k].is_name)
				snprintf(why, sizeof(why), "hard link to a file "
				         "that also has a name outside the skill "
				         "folder (%lu links, %zu inside)",
				         (unsigned long)nlink, names);
			else
				snprintf(why, sizeof(why), "symbolic link to a "
				         "hard link that has a name outside the "
				         "skill folder");
			int rc = hide(t, strcmp(e->path, "SKILL.md") == 0,
			              e->source, why);
			if (rc < 0)
				return rc;
			e->path = NULL;
		}
	}
	size_t out = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].path)
			t->v[out++] = t->v[i];
	t->n = out;
	return 0;
}

/* SEP-2640 fixes what every host must accept of one skill: 512 files
 * and 16 MiB in all.  Larger skills are served, with a warning that
 * hosts may refuse them. */
#define HOST_MAX_FILES 512
#define HOST_MAX_BYTES ((off_t)16 << 20)

static int check_limits(const struct sfs_file *v, size_t n,
                        const char *dir, struct sfs_diag_list *diags)
{
	size_t files = 0;
	off_t bytes = 0;

	for (size_t i = 0; i < n; i++) {
		/* files with content: hashed, or SKILL.md left to be */
		if (!v[i].hashed && !S_ISREG(v[i].mode))
			continue;
		files++;
		bytes += v[i].size;
	}
	int rc = 0;
	if (files > HOST_MAX_FILES)
		rc = sfs_diag_add(diags, SFS_WARNING, dir, 0, 0, "",
		                  "%zu files: more than the %d that MCP hosts "
		                  "must accept of a skill (SEP-2640)", files,
		                  HOST_MAX_FILES);
	if (rc == 0 && bytes > HOST_MAX_BYTES)
		rc = sfs_diag_add(diags, SFS_WARNING, dir, 0, 0, "",
		                  "%lld bytes of files: more than the 16 MiB "
		                  "that MCP hosts must accept of a skill "
		                  "(SEP-2640)", (long long)bytes);
	return rc;
}

int sfs_scan_finish_listing(const struct sfs_scan *s, const char *dir,
                            struct sfs_file *v, size_t n, bool capped,
                            struct sfs_arena *arena,
                            struct sfs_diag_list *diags,
                            struct sfs_tree *out)
{
	int rc = check_limits(v, n, dir, diags);

	if (rc == 0 && capped)
		rc = sfs_diag_add(diags, SFS_WARNING, dir, 0, 0, "",
		                  "more than %zu entries; only the first %zu "
		                  "are served", s->max_files, s->max_files);
	if (rc == 0)
		rc = sfs_tree_take_files(v, n, arena, out);
	return rc;
}

/* The folders read, into the arena. */
static int take_dirs(struct tree_walk *t, struct sfs_tree *out)
{
	out->dirs = sfs_arena_alloc(t->arena,
	                            (t->dirs.n ? t->dirs.n : 1) *
	                            sizeof(*out->dirs));
	if (!out->dirs)
		return -ENOMEM;
	out->ndirs = t->dirs.n;
	if (t->dirs.n)
		memcpy(out->dirs, t->dirs.v, t->dirs.n * sizeof(*out->dirs));
	return 0;
}

int sfs_scan_tree(struct sfs_scan *s, struct sfs_found *f,
                  struct sfs_arena *arena, struct sfs_diag_list *diags,
                  struct sfs_tree *out)
{
	struct tree_walk t = { .s = s, .f = f, .arena = arena,
	                       .diags = diags, .kept = { .s = s } };
	struct names nm = { 0 };
	bool cut;

	memset(out, 0, sizeof(*out));
	will_list(s, f->dir);
	int fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return sfs_diag_add(diags, SFS_ERROR, f->dir, 0, 0, "",
		                    "cannot open skill folder: %s",
		                    sfs_strerror(errno));
	/* Its identity before its listing: a change after the stat shows
	 * in the next stat (see sfs_unit_unchanged). */
	struct stat st;
	if (fstat(fd, &st) == 0) {
		sfs_file_set_identity(&out->self, &st);
		out->self.mode = st.st_mode;
	}
	int rc = read_names(fd, s->max_files + 1, &nm, &cut);
	if (rc < 0 && rc != -ENOMEM)
		rc = sfs_diag_add(diags, SFS_ERROR, f->dir, 0, 0, "",
		                  "cannot read skill folder: %s",
		                  sfs_strerror(-rc));
	else if (rc == 0)
		rc = sfs_strvec_push(&t.dirs, f->dir);
	/* Discovery found SKILL.md by stat, which on a case-insensitive
	 * filesystem answers for skill.md too: the listing spells it. */
	const char *spelling = rc == 0 ? skill_md_name(&nm) : NULL;
	if (spelling)
		f->skill_md = spelling;
	if (rc == 0)
		rc = list_entries(&t, fd, NULL, &nm);
	close(fd);
	names_free(&nm);
	free(t.real_dir);

	if (rc == 0)
		rc = drop_outside_links(&t);
	if (rc == 0)
		rc = take_dirs(&t, out);
	if (rc == 0)
		rc = sfs_scan_finish_listing(s, f->dir, t.v, t.n, t.capped,
		                             arena, diags, out);
	if (rc == 0)
		rc = sfs_tree_keep_hand(&t.kept, out);
	sfs_tree_keep_free(&t.kept);
	free(t.multi);
	free(t.v);
	free(t.dirs.v);
	return rc;
}

void sfs_scan_free(struct sfs_scan *s)
{
	free(s->dirs.v);
	free(s->found);
	s->dirs.v = NULL;
	s->found = NULL;
	s->dirs.n = s->dirs.cap = s->nfound = s->capfound = 0;
}
