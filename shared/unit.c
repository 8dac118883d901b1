/*
 * unit.c - one skill folder as the catalog keeps it (see struct sfs_unit):
 * copied from the build's scratch memory into one allocation of exactly
 * the size it needs, shared by reference between the snapshots that find
 * the folder unchanged.
 *
 * The copy runs twice over the same code: once to add up the sizes, once
 * to fill the allocation.  So nothing can be forgotten in one pass and
 * not the other, and the unit costs no more than its bytes.  Both passes
 * must take room in the same order: every copy is its own statement
 * (initializers of one struct are not sequenced).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kept_units.h"
#include "snapshot.h"

/* ---- the two passes ----------------------------------------------------- */

struct pack {
	char *base;    /* NULL while measuring */
	size_t off;
};

/* Room for `size` bytes; NULL while measuring. */
static void *take(struct pack *p, size_t size, size_t align)
{
	p->off = (p->off + align - 1) / align * align;
	void *at = p->base ? p->base + p->off : NULL;
	p->off += size;
	return at;
}

static const char *str(struct pack *p, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = take(p, n, 1);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* s, sharing `same` (already copied from `same_src`) when equal. */
static const char *str_or(struct pack *p, const char *s, const char *same_src,
                          const char *same)
{
	if (s && same_src && strcmp(s, same_src) == 0)
		return same;
	return str(p, s);
}

static const char *const *strs(struct pack *p, const char *const *v,
                               size_t n)
{
	const char **d = take(p, n * sizeof(*d), alignof(const char *));
	for (size_t i = 0; i < n; i++) {
		const char *s = str(p, v[i]);
		if (d)
			d[i] = s;
	}
	return d;
}

/* n elements of src, `size` bytes each, copied by `one` (to NULL while
 * measuring). */
static void *array(struct pack *p, const void *src, size_t n, size_t size,
                   size_t align,
                   void (*one)(struct pack *p, const void *from, void *to))
{
	char *v = take(p, n * size, align);

	for (size_t i = 0; i < n; i++)
		one(p, (const char *)src + i * size, v ? v + i * size : NULL);
	return v;
}

#define ARRAY(p, src, n, one) \
	array(p, src, n, sizeof(*(src)), alignof(__typeof__(*(src))), one)

static void file(struct pack *p, const void *from, void *to)
{
	const struct sfs_file *f = from;
	struct sfs_file *c = to;
	const char *path = str(p, f->path);
	const char *source = str_or(p, f->source, f->path, path);
	const char *link = str(p, f->link);

	if (!c)
		return;
	*c = *f;
	c->path = path;
	c->source = source;
	c->name = path + (f->name - f->path);
	c->link = link;
}

static void ref(struct pack *p, const void *from, void *to)
{
	const struct sfs_ref *r = from;
	struct sfs_ref c;

	c.id = str(p, r->id);
	c.path = str(p, r->path);
	c.title = str(p, r->title);
	c.mime_type = str(p, r->mime_type);
	if (to)
		*(struct sfs_ref *)to = c;
}

/* The findings in `order` (sorted), their file names shared with the
 * unit's own paths where they are the same. */
static const struct sfs_diag *diags(struct pack *p, const struct sfs_diag_key *k,
                                    size_t n, const struct sfs_unit_draft *d,
                                    const char *dir, const char *md)
{
	struct sfs_diag *v = take(p, n * sizeof(*v), alignof(struct sfs_diag));
	for (size_t i = 0; i < n; i++) {
		const struct sfs_diag *s = k[i].d;
		struct sfs_diag c = *s;
		c.file = strcmp(s->file, d->skill_md_path) == 0 ? md :
		         str_or(p, s->file, d->found->dir, dir);
		c.field = str(p, s->field);
		c.message = str(p, s->message);
		if (v)
			v[i] = c;
	}
	return v;
}

static struct sfs_span span(struct pack *p, const char *s, size_t len)
{
	char *d = take(p, len + 1, 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return (struct sfs_span){ d, len };
}

/* Everything that only a skill valid on its own needs. */
static void meta(struct pack *p, const struct sfs_unit_draft *d,
                 const char *fm, struct sfs_skill *s)
{
	const struct sfs_meta *m = d->meta;
	struct sfs_skill c = {
		.ntags = m->ntags, .ncapabilities = m->ncapabilities,
		.ndepends_on = m->ndepends_on, .nrefs = m->nrefs,
		.model_invocable = m->model_invocable,
		.user_invocable = m->user_invocable,
		.body_offset = d->body_offset,
	};
	c.description = str(p, m->description);
	c.version = str(p, m->version);
	c.tags = strs(p, (const char *const *)m->tags, m->ntags);
	c.capabilities = strs(p, (const char *const *)m->capabilities,
	                      m->ncapabilities);
	c.depends_on = strs(p, (const char *const *)m->depends_on,
	                    m->ndepends_on);
	c.refs = ARRAY(p, m->refs, m->nrefs, ref);
	c.nunlisted = m->nunlisted;
	c.unlisted = m->nunlisted ? strs(p, m->unlisted, m->nunlisted) : NULL;
	c.frontmatter_json = span(p, fm, strlen(fm));
	c.headings = str(p, m->headings);
	if (s)
		*s = c;
}

/* k: the findings sorted, then the listing's as listed. */
static void pack(struct pack *p, const struct sfs_unit_draft *d,
                 const struct sfs_diag_key *k, const char *fm)
{
	struct sfs_unit *u = take(p, sizeof(*u), alignof(struct sfs_unit));
	const struct sfs_tree *t = d->tree;
	const char *dir = str(p, d->found->dir);
	const char *md = str(p, d->skill_md_path);
	const char *spelling = str(p, d->found->skill_md);
	const char *id = str(p, d->id);
	const char *plugin = str(p, d->found->plugin);
	const struct sfs_file *fv = ARRAY(p, t->files, t->nfiles, file);
	const char *const *dirs = take(p, t->ndirs * sizeof(*dirs),
	                               alignof(const char *));
	for (size_t i = 0; i < t->ndirs; i++) {
		const char *s = str_or(p, t->dirs[i], d->found->dir, dir);
		if (dirs)
			((const char **)dirs)[i] = s;
	}
	const struct sfs_diag *dv = diags(p, k, d->diags->n, d, dir, md);
	/* the listing's findings again, as listed, for comparing */
	const struct sfs_diag *lv = diags(p, k + d->diags->n, d->nlisting, d,
	                                  dir, md);
	struct sfs_skill s = { 0 };
	if (!d->invalid)
		meta(p, d, fm, u ? &s : NULL);
	if (!u)
		return;

	s.id = id;
	s.plugin = plugin;
	s.dir = dir;
	s.root = d->found->root;
	s.files = fv;
	s.nfiles = t->nfiles;
	s.skill_md = t->skill_md;
	s.diags = dv;
	s.ndiags = d->diags->n;
	bool links = false;
	for (size_t i = 0; i < t->nfiles; i++)
		links |= S_ISLNK(t->files[i].mode);
	*u = (struct sfs_unit){
		.dir = dir, .skill_md = spelling, .skill_md_path = md,
		.id = id, .root = d->found->root,
		.invalid = d->invalid,
		.statable = !d->nlisting && !links && S_ISDIR(t->self.mode),
		.listing = lv, .nlisting = d->nlisting,
		.self = {
			/* and the version they share memory with */
			.dev = t->self.dev, .ino = t->self.ino,
			.ctime = t->self.ctime,
			.size = t->self.size, .mtime = t->self.mtime,
			.mode = t->self.mode,
		},
		.name_line = d->name_line, .name_column = d->name_column,
		.deps_line = d->deps_line, .deps_column = d->deps_column,
		.skill = s, .dirs = dirs, .ndirs = t->ndirs,
	};
	atomic_init(&u->refs, 1);
}

/* The findings sorted, then the listing's again as listed; malloc'd. */
static struct sfs_diag_key *diag_keys(const struct sfs_unit_draft *d)
{
	const struct sfs_diag_list *l = d->diags;
	size_t n = l->n + d->nlisting;
	struct sfs_diag_key *k = malloc((n ? n : 1) * sizeof(*k));
	if (!k)
		return NULL;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct sfs_diag_key){
			.d = &l->v[i < l->n ? i : i - l->n], .order = i,
		};
	sfs_sort(k, l->n, sizeof(*k), sfs_diag_cmp);
	return k;
}

struct sfs_unit *sfs_unit_make(const struct sfs_unit_draft *d)
{
	/* The frontmatter as index.json shows it, printed once here: a
	 * valid skill always has one. */
	char *fm = d->invalid ? NULL :
	           cJSON_PrintUnformatted(d->frontmatter);
	struct sfs_diag_key *k = diag_keys(d);
	struct pack measure = { 0 }, fill = { 0 };

	if (k && (d->invalid || fm)) {
		pack(&measure, d, k, fm);
		/* zeroed: the padding too is written when it is kept
		 * (unit_file.c) */
		fill.base = calloc(1, measure.off);
		if (fill.base) {
			pack(&fill, d, k, fm);
			((struct sfs_unit *)fill.base)->size = measure.off;
		}
	}
	cJSON_free(fm);
	free(k);
	return (struct sfs_unit *)fill.base;
}

SFS_REFCOUNTED(struct sfs_unit, sfs_unit, free)

struct sfs_unit *sfs_unit_find(const struct sfs_catalog *cat, const char *dir)
{
	size_t lo = 0, hi = cat ? cat->nunits : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(cat->units[mid]->dir, dir);
		if (c == 0)
			return cat->units[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- comparing with a new listing --------------------------------------- */

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_file(const struct sfs_file *a, const struct sfs_file *b)
{
	return a->mode == b->mode && a->size == b->size &&
	       a->dev == b->dev && a->ino == b->ino &&
	       same_time(a->mtime, b->mtime) &&
	       /* with dev and ino: the whole identity, or version */
	       same_time(a->ctime, b->ctime) && a->hashed == b->hashed &&
	       strcmp(a->path, b->path) == 0 &&
	       strcmp(a->source, b->source) == 0 && same_str(a->link, b->link);
}

/* The same finding, whatever its severity (--strict is the same for
 * both, or nothing is reused). */
static bool same_diag(const struct sfs_diag *a, const struct sfs_diag *b)
{
	return a->line == b->line && a->column == b->column &&
	       strcmp(a->file, b->file) == 0 &&
	       strcmp(a->field, b->field) == 0 &&
	       strcmp(a->message, b->message) == 0;
}

bool sfs_unit_same_tree(const struct sfs_unit *u, const struct sfs_found *f,
                        const struct sfs_tree *t,
                        const struct sfs_diag_list *listing)
{
	const struct sfs_skill *s = &u->skill;

	if (u->nlisting != listing->n)
		return false;
	for (size_t i = 0; i < listing->n; i++)
		if (!same_diag(&u->listing[i], &listing->v[i]))
			return false;
	if (u->root != f->root ||
	    strcmp(u->skill_md, f->skill_md) != 0 || s->nfiles != t->nfiles ||
	    s->skill_md != t->skill_md || u->ndirs != t->ndirs)
		return false;
	for (size_t i = 0; i < t->nfiles; i++)
		if (!same_file(&s->files[i], &t->files[i]))
			return false;
	return true;
}

/* ---- comparing by stat alone -------------------------------------------- */

static bool before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec ||
	       (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

static bool same_stat(const struct sfs_file *f, const struct stat *st)
{
	return f->mode == st->st_mode && f->dev == st->st_dev &&
	       f->ino == st->st_ino && f->size == st->st_size &&
	       same_time(f->mtime, st->st_mtim) &&
	       same_time(f->ctime, st->st_ctim);
}

static bool same_stamp(const struct sfs_stamp *s, const struct stat *st)
{
	return s->mode == st->st_mode && s->dev == st->st_dev &&
	       s->ino == st->st_ino && s->size == st->st_size &&
	       same_time(s->mtime, st->st_mtim) &&
	       same_time(s->ctime, st->st_ctim);
}

static int cmp_str_key(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Whether the folder whose identity is *st is the unit's and none of the
 * unit's folders is among the sorted `changed` ones. */
static bool untouched(const struct sfs_unit *u, const struct stat *st,
                      const char *const *changed, size_t nchanged)
{
	if (!u->statable || !same_stamp(&u->self, st))
		return false;
	for (size_t i = 0; i < u->ndirs; i++)
		if (nchanged && bsearch(u->dirs[i], changed, nchanged,
		                        sizeof(*changed), cmp_str_key))
			return false;
	return true;
}

/*
 * Whether the folder `name` in dfd, whose identity is *st, still holds
 * exactly what the unit was made from, by stat alone: the folder and
 * every subfolder kept their identity and last changed (ctime) before
 * `trusted`, so their listings are the same; and every file kept its
 * identity.  A folder changed in the same clock tick as it was listed
 * would show the same ctime, hence the margin in `trusted`.  With
 * `every`, a file must have last changed before `trusted` too: no
 * watcher saw what happened to it since (git's racy entries).
 */
static bool unchanged(const struct sfs_unit *u, int dfd, const char *name,
                      const struct stat *st, struct timespec trusted,
                      bool every)
{
	const struct sfs_skill *s = &u->skill;
	char path[PATH_MAX];
	size_t n = strlen(name);

	if (!u->statable || !same_stamp(&u->self, st) ||
	    !before(st->st_ctim, trusted) || n + 2 > sizeof(path))
		return false;
	memcpy(path, name, n);
	path[n++] = '/';
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfs_file *f = &s->files[i];
		struct stat fst;
		size_t len = strlen(f->source);
		if (n + len + 1 > sizeof(path))
			return false;
		memcpy(path + n, f->source, len + 1);
		/* A folder on the way swapped for a symlink since its stat
		 * would lead elsewhere, but then no identity matches. */
		if (fstatat(dfd, path, &fst, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !same_stat(f, &fst) ||
		    ((every || S_ISDIR(f->mode)) &&
		     !before(fst.st_ctim, trusted)))
			return false;
	}
	return true;
}

struct sfs_unit *sfs_unit_if_unchanged(const struct sfs_scan *s,
                                       const struct sfs_probe *p)
{
	/* a start: a former mount's unit (kept_units.c), watched by no
	 * one since it was made */
	bool kept = !s->reuse;
	struct sfs_unit *u = kept ? sfs_kept_units_find(s->kept, p->dir, NULL) :
	                     sfs_unit_find(s->reuse, p->dir);

	if (!u || !u->statable)
		return NULL;
	if (u->root != p->root || !same_str(u->skill.plugin, p->plugin) ||
	    (!p->st->st_mode &&
	     fstatat(p->dfd, p->name, p->st, AT_SYMLINK_NOFOLLOW) < 0))
		u = NULL;
	/* A watcher saw nothing happen in its folders: its own stat is
	 * enough (a folder put in its place is another inode).  Else stat
	 * tells, file by file. */
	else if (!kept && s->changed &&
	         untouched(u, p->st, (const char *const *)s->changed,
	                   s->nchanged))
		return u;
	else if (!unchanged(u, p->dfd, p->name, p->st, s->trusted, kept))
		u = NULL;
	/* a kept unit no folder took is made anew: the two must not be
	 * held together (a start after every file changed held both) */
	if (kept && !u)
		sfs_kept_units_drop(s->kept, p->dir);
	return u;
}

struct timespec sfs_ms_before(struct timespec t, unsigned ms)
{
	long long ns = t.tv_nsec - (long long)(ms % 1000) * 1000000;

	t.tv_sec -= ms / 1000 + (ns < 0 ? 1 : 0);
	t.tv_nsec = ns < 0 ? ns + 1000000000 : ns;
	return t;
}
