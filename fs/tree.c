/*
 * tree.c - builds a generation: renders the catalog's documents once and
 * lays out the inode table of the mount (see tree.h).  Pure: no I/O except
 * through gen_params.pin, so it can be tested without a mount.
 *
 * Layout: the mount contract (contract.h), whose table of fixed entries
 * makes / and the head of catalog/; docs/ is laid out like a skill,
 * skills/<id>/ mirrors the skill's files, and refs/<id>/<ref>.md links
 * into skills/<id>/.  views/<view>/<id>/ mirrors skills/<id>/ for the
 * skills of a view (views.h), beside its find-skills/SKILL.md; search/
 * lists nothing, and ops.c answers a lookup in it from the generation's
 * search index.
 *
 * Nodes are laid out breadth first so that every folder's children are
 * contiguous and sorted by name: a lookup is a binary search.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract.h"
#include "grow.h"
#include "search.h"
#include "views.h"
#include "retain.h"
#include "strpool.h"
#include "tree.h"

/* Which of the mount's own folders a NODE_DIR is (its `item`); view v
 * is DIR_VIEW0 + 2v, its find-skills folder the next. */
enum dir_id { DIR_ROOT, DIR_CATALOG, DIR_SKILLS, DIR_REFS, DIR_REFSKILL,
              DIR_SEARCH, DIR_VIEWS, DIR_VIEW0 };

/* Fixed documents; skill records follow at DOC_RECORD + skill index,
 * then each view's find-skills/SKILL.md. */
enum { DOC_INDEX, DOC_SKILLS_INDEX, DOC_STATUS, DOC_RECORD };

/* A child about to become a node. */
struct proto {
	const char *name;
	uint8_t kind;
	uint32_t skill, item;
};

struct builder {
	struct gen *g;
	const struct gen *prev;
	const struct gen_params *p;
	uint32_t cap;          /* nodes allocated */
	uint32_t *prev_of;     /* per node: its counterpart in prev, or NONE */
	size_t pins_cap;
	struct proto *kids;    /* scratch for one folder's children */
	size_t kids_cap;
	/* per skill, where its files start in canon; per file of every
	 * skill, its node under skills/ (what a view's entry links to) */
	size_t *file_base;
	uint32_t *canon;
	/* skills/<id>: file indices grouped by parent folder (see
	 * group_files), for the skill being laid out */
	uint32_t group_skill;
	uint32_t *order, *start;
	size_t group_cap;
};

/* ---- documents ---------------------------------------------------------- */

static int add_doc(struct gen *g, char *data)
{
	if (!data)
		return -ENOMEM;
	g->docs[g->ndocs].data = data;
	g->docs[g->ndocs].len = strlen(data);
	g->ndocs++;
	return 0;
}

/* index.json or skills_index.json: read in place from the skills of the
 * catalog, so that a generation holds no copy of them.  The previous
 * generation's doc gives the lengths of the entries of the skills the
 * catalog took unchanged. */
static int add_lines_doc(struct builder *b, bool skills_index)
{
	struct gen *g = b->g;
	struct doc *d = &g->docs[g->ndocs];
	size_t which = skills_index ? DOC_SKILLS_INDEX : DOC_INDEX;
	const sfs_lines_doc *prev = b->prev && b->prev->ndocs > which ?
	                            b->prev->docs[which].lines : NULL;

	d->lines = sfs_lines_doc_new(g->cat, skills_index, prev);
	if (!d->lines)
		return -ENOMEM;
	d->len = sfs_lines_doc_size(d->lines);
	g->ndocs++;
	return 0;
}

/* The previous generation's record of s when the catalog took s from the
 * previous one unchanged (the same struct, see sfs_catalog_build), or
 * NULL. */
static const struct doc *prev_record(const struct builder *b,
                                     const struct sfs_skill *s)
{
	const sfs_catalog *old = b->prev ? b->prev->cat : NULL;
	size_t lo = 0, hi = old ? sfs_catalog_nskills(old) : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sfs_skill *o = sfs_catalog_skill(old, mid);
		int c = strcmp(o->id, s->id);
		if (c == 0)
			return o == s && strcmp(sfs_catalog_root(old, o->root),
			                        sfs_catalog_root(b->g->cat,
			                                         s->root)) == 0 ?
			       &b->prev->docs[DOC_RECORD + mid] : NULL;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A skill's record: its size and digest now, its bytes when read
 * (gen_record). */
static int add_record(struct builder *b, size_t i)
{
	struct gen *g = b->g;
	const struct sfs_skill *s = sfs_catalog_skill(g->cat, i);
	const struct doc *old = prev_record(b, s);
	struct doc *d = &g->docs[g->ndocs];

	if (old) {
		d->len = old->len;
		memcpy(d->sha256, old->sha256, sizeof(d->sha256));
	} else {
		char *text = sfs_render_skill_record(g->cat, s);
		if (!text)
			return -ENOMEM;
		d->len = strlen(text);
		uint8_t digest[32];
		sfs_sha256(text, d->len, digest);
		memcpy(d->sha256, digest, sizeof(d->sha256));
		free(text);
	}
	g->ndocs++;
	return 0;
}

/* The views, and the search index of prev for the same catalog (a
 * generation that only tells status.json of a pending change); a new
 * catalog's index is made when first needed (gen_search_prepare). */
static int select_views(struct builder *b)
{
	struct gen *g = b->g;
	const struct gen_params *p = b->p;
	int rc;

	if (b->prev && b->prev->cat == g->cat) {
		struct gen *prev = (struct gen *)b->prev;
		pthread_mutex_lock(&prev->search_lock);
		g->search = sfs_search_ref(prev->search);
		pthread_mutex_unlock(&prev->search_lock);
	}
	rc = sfs_views_build(g->cat, p->views, p->nviews,
	                     p->mountpoint ? p->mountpoint : "", &g->views);
	return rc == -EINVAL ? sfs_views_build(g->cat, NULL, 0,
	                                       p->mountpoint ? p->mountpoint
	                                                     : "", &g->views)
	                     : rc;
}

static int render_docs(struct builder *b)
{
	struct gen *g = b->g;
	const sfs_catalog *cat = g->cat;
	size_t n = sfs_catalog_nskills(cat);
	int rc = select_views(b);

	if (rc < 0)
		return rc;
	g->docs = calloc(DOC_RECORD + n + g->views->n, sizeof(*g->docs));
	if (!g->docs)
		return -ENOMEM;

	struct sfs_status_info info = {
		.generation = g->number,
		.last_refresh = g->built,
		.refresh_mode = g->refresh_mode,
		.root_sources = b->p->root_sources,
		.cache_dir = b->p->cache_dir,
		.cache_max = b->p->cache_max,
		.fetch_every_ms = b->p->fetch_every_ms,
		.pending = b->p->pending,
		.views = g->views,
	};
	if (add_lines_doc(b, false) < 0 || add_lines_doc(b, true) < 0 ||
	    add_doc(g, sfs_render_status(cat, &info)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (add_record(b, i) < 0)
			return -ENOMEM;
	for (size_t v = 0; v < g->views->n; v++) {
		/* find-skills/SKILL.md: the document takes the view's text */
		rc = add_doc(g, g->views->v[v].find_skills);
		g->views->v[v].find_skills = NULL;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- children of each kind of folder ----------------------------------- */

static struct proto *kid_slot(struct builder *b, size_t i)
{
	if (sfs_grow(&b->kids, &b->kids_cap, i + 1, sizeof(*b->kids)) < 0)
		return NULL;
	return &b->kids[i];
}

static int push_kid(struct builder *b, size_t *n, const char *name,
                    uint8_t kind, uint32_t skill, uint32_t item)
{
	struct proto *k = kid_slot(b, *n);

	if (!k || !name)
		return -ENOMEM;
	*k = (struct proto){ name, kind, skill, item };
	(*n)++;
	return 0;
}

static int cmp_proto(const void *a, const void *b)
{
	return strcmp(((const struct proto *)a)->name,
	              ((const struct proto *)b)->name);
}

static void sort_kids(struct proto *k, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (strcmp(k[i - 1].name, k[i].name) > 0) {
			qsort(k, n, sizeof(*k), cmp_proto);
			return;
		}
	}
}

/* Groups the skill's file indices by parent folder with a counting sort:
 * the children of folder f are order[start[f + 1] .. start[f + 2]), those
 * of the skill folder itself order[start[0] .. start[1]). */
static int group_files(struct builder *b, uint32_t skill)
{
	const struct sfs_skill *s = gen_skill_at(b->g, skill);
	size_t n = s->nfiles;

	if (b->group_skill == skill)
		return 0;
	if (n + 2 > b->group_cap) {
		free(b->order);
		free(b->start);
		b->order = malloc((n + 2) * sizeof(*b->order));
		b->start = malloc((n + 2) * sizeof(*b->start));
		if (!b->order || !b->start) {
			b->group_cap = 0;
			return -ENOMEM;
		}
		b->group_cap = n + 2;
	}
	memset(b->start, 0, (n + 2) * sizeof(*b->start));
	for (size_t f = 0; f < n; f++)
		b->start[s->files[f].parent + 2]++;
	for (size_t i = 1; i < n + 2; i++)
		b->start[i] += b->start[i - 1];
	for (size_t f = 0; f < n; f++)
		b->order[b->start[s->files[f].parent + 1]++] = (uint32_t)f;
	/* start[i] now ends group i - 1; shift back to starts */
	memmove(b->start + 1, b->start, (n + 1) * sizeof(*b->start));
	b->start[0] = 0;
	b->group_skill = skill;
	return 0;
}

static int skill_dir_kids(struct builder *b, const struct node *dir,
                          size_t *n)
{
	const struct sfs_skill *s = gen_skill_at(b->g, dir->skill);
	int rc = group_files(b, dir->skill);

	if (rc < 0)
		return rc;
	size_t group = dir->item == TREE_NONE ? 0 : (size_t)dir->item + 1;
	for (uint32_t i = b->start[group]; i < b->start[group + 1]; i++) {
		const struct sfs_file *f = &s->files[b->order[i]];
		uint8_t kind;
		if (S_ISDIR(f->mode))
			kind = NODE_SKILL_DIR;
		else if (S_ISREG(f->mode))
			kind = NODE_SKILL_FILE;
		else if (S_ISLNK(f->mode) && f->link)
			kind = NODE_SKILL_LINK;
		else
			continue;   /* the library hides the rest already */
		rc = push_kid(b, n, f->name, kind, dir->skill, b->order[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* How the daemon serves each fixed entry of the mount (contract.h). */
static const struct {
	uint8_t kind;
	uint32_t skill, item;
} fixed_nodes[SFS_MOUNT_NENTRIES] = {
	[SFS_MOUNT_CATALOG] = { NODE_DIR, TREE_NONE, DIR_CATALOG },
	[SFS_MOUNT_DOCS] = { NODE_SKILL_DIR, TREE_DOCS, TREE_NONE },
	[SFS_MOUNT_INDEX] = { NODE_DOC, TREE_NONE, DOC_INDEX },
	[SFS_MOUNT_REFS] = { NODE_DIR, TREE_NONE, DIR_REFS },
	[SFS_MOUNT_SEARCH] = { NODE_DIR, TREE_NONE, DIR_SEARCH },
	[SFS_MOUNT_SKILLS] = { NODE_DIR, TREE_NONE, DIR_SKILLS },
	[SFS_MOUNT_STATUS] = { NODE_DOC, TREE_NONE, DOC_STATUS },
	[SFS_MOUNT_VIEWS] = { NODE_DIR, TREE_NONE, DIR_VIEWS },
	[SFS_MOUNT_SKILLS_INDEX] = { NODE_DOC, TREE_NONE, DOC_SKILLS_INDEX },
};

/* The fixed entries of / (in_root) or of catalog/, in the contract's
 * order; docs/ only with a docs folder. */
static int push_fixed_kids(struct builder *b, size_t *n, bool in_root)
{
	int rc = 0;

	for (int e = 0; e < SFS_MOUNT_NENTRIES && rc == 0; e++) {
		const struct sfs_mount_fixed *f = sfs_mount_row(e);
		if (f->in_root != in_root ||
		    (e == SFS_MOUNT_DOCS && !sfs_catalog_docs(b->g->cat)))
			continue;
		rc = push_kid(b, n, f->name, fixed_nodes[e].kind,
		              fixed_nodes[e].skill, fixed_nodes[e].item);
	}
	return rc;
}

/* views/<view>: its skills, laid out as in skills/, and find-skills/;
 * views/<view>/find-skills: its SKILL.md. */
static int view_kids(struct builder *b, uint32_t item, size_t *n)
{
	const struct gen *g = b->g;
	size_t vi = (item - DIR_VIEW0) / 2;
	const struct sfs_view *v = &g->views->v[vi];
	uint32_t doc = DOC_RECORD + (uint32_t)sfs_catalog_nskills(g->cat) +
	               (uint32_t)vi;   /* see render_docs */
	int rc;

	if ((item - DIR_VIEW0) % 2)
		return push_kid(b, n, "SKILL.md", NODE_DOC, TREE_NONE, doc);
	rc = push_kid(b, n, SFS_FIND_SKILLS, NODE_DIR, TREE_NONE, item + 1);
	for (size_t i = 0; i < v->nskills && rc == 0; i++)
		rc = push_kid(b, n, sfs_catalog_skill(g->cat, v->skills[i])->id,
		              NODE_SKILL_DIR, v->skills[i], TREE_NONE);
	return rc;
}

static int own_dir_kids(struct builder *b, const struct node *dir, size_t *n)
{
	const sfs_catalog *cat = b->g->cat;
	struct strpool *pool = b->g->names;
	size_t ns = sfs_catalog_nskills(cat);
	int rc = 0;

	switch (dir->item) {
	case DIR_ROOT:
		rc = push_fixed_kids(b, n, true);
		break;
	case DIR_CATALOG:
		rc = push_fixed_kids(b, n, false);
		for (uint32_t i = 0; i < ns && rc == 0; i++)
			rc = push_kid(b, n, strpool_cat(pool,
			              sfs_catalog_skill(cat, i)->id,
			              SFS_RECORD_SUFFIX),
			              NODE_DOC, i, DOC_RECORD + i);
		break;
	case DIR_SKILLS:
		for (uint32_t i = 0; i < ns && rc == 0; i++)
			rc = push_kid(b, n, sfs_catalog_skill(cat, i)->id,
			              NODE_SKILL_DIR, i, TREE_NONE);
		break;
	case DIR_REFS:
		for (uint32_t i = 0; i < ns && rc == 0; i++)
			if (sfs_catalog_skill(cat, i)->nrefs)
				rc = push_kid(b, n, sfs_catalog_skill(cat, i)->id,
				              NODE_DIR, i, DIR_REFSKILL);
		break;
	case DIR_REFSKILL: {
		const struct sfs_skill *s = sfs_catalog_skill(cat, dir->skill);
		for (uint32_t r = 0; r < s->nrefs && rc == 0; r++)
			rc = push_kid(b, n, strpool_cat(pool, s->refs[r].id, ".md"),
			              NODE_REFLINK, dir->skill, r);
		break;
	}
	case DIR_SEARCH:
		break;   /* ops.c answers lookups */
	case DIR_VIEWS:
		for (uint32_t v = 0; v < b->g->views->n && rc == 0; v++)
			rc = push_kid(b, n, b->g->views->v[v].name, NODE_DIR,
			              TREE_NONE, DIR_VIEW0 + 2 * v);
		break;
	default:
		rc = view_kids(b, dir->item, n);
		break;
	}
	return rc ? -ENOMEM : 0;
}

/* ---- inode numbers: carried over when unchanged ------------------------ */

static bool same_timespec(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool same_doc(const struct doc *a, const struct doc *b)
{
	if (a->lines || b->lines)   /* the same skills' lines */
		return a->lines && b->lines &&
		       sfs_lines_doc_same(a->lines, b->lines);
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* Whether prev's node `o` shows exactly what the new node `n` shows, so
 * that the kernel's cached attributes and pages for o->ino stay true. */
static bool unchanged(const struct builder *b, const struct node *n,
                      const struct node *o)
{
	const struct gen *g = b->g, *prev = b->prev;

	if (n->kind != o->kind)
		return false;
	switch (n->kind) {
	case NODE_DIR:
	case NODE_SKILL_DIR:
		return true;   /* listings are invalidated, not renumbered */
	case NODE_DOC:
		if (n->skill != TREE_NONE)   /* a record: by digest, and who
		                              * may read it */
			return gen_mode(g, n) == gen_mode(prev, o) &&
			       g->docs[n->item].len == prev->docs[o->item].len &&
			       memcmp(g->docs[n->item].sha256,
			              prev->docs[o->item].sha256,
			              sizeof(g->docs[n->item].sha256)) == 0;
		return same_doc(&g->docs[n->item], &prev->docs[o->item]);
	case NODE_REFLINK:   /* at the same path: in the same skill */
		return strcmp(gen_skill(g, n)->refs[n->item].path,
		              gen_skill(prev, o)->refs[o->item].path) == 0;
	case NODE_SKILL_FILE:
	case NODE_SKILL_LINK: {
		const struct sfs_file *f = gen_file(g, n), *pf = gen_file(prev, o);
		if (f->mode != pf->mode || f->size != pf->size ||
		    f->uid != pf->uid || f->gid != pf->gid ||
		    f->dev != pf->dev || f->ino != pf->ino ||
		    !same_timespec(f->mtime, pf->mtime) ||
		    strcmp(f->source, pf->source) != 0)
			return false;
		if (n->kind == NODE_SKILL_LINK)
			return strcmp(f->link, pf->link) == 0;
		/* same source path too: reads open it */
		return strcmp(gen_skill(g, n)->dir, gen_skill(prev, o)->dir) == 0;
	}
	}
	return false;
}

static int64_t ns_of(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct timespec timespec_of(int64_t ns)
{
	int64_t sec = ns / 1000000000, rem = ns % 1000000000;

	if (rem < 0) {
		rem += 1000000000;
		sec--;
	}
	return (struct timespec){ .tv_sec = (time_t)sec, .tv_nsec = rem };
}

/* Holds a changed source open, if gen_params.pin can (see there). */
static void pin_node(struct builder *b, uint32_t idx)
{
	struct gen *g = b->g;
	const struct node *n = &g->nodes[idx];
	int fd = b->p->pin(g->cat, gen_skill(g, n), gen_file(g, n));

	g->unpinned += fd == -ESTALE || fd == -ENOENT;
	if (fd < 0)
		return;
	if (sfs_grow(&g->pins, &b->pins_cap, (size_t)g->npins + 1,
	             sizeof(*g->pins)) < 0) {
		close(fd);   /* served unpinned, as past max_pins */
		return;
	}
	/* nodes are numbered in index order: the array stays sorted */
	g->pins[g->npins++] = (struct pin){ idx, fd };
}

/* A file or link of a view: the inode of its entry under skills/, laid
 * out before it (one level less deep, breadth first).  Its bytes are
 * read, kept and pinned through that entry. */
static bool number_alias(struct builder *b, uint32_t idx)
{
	struct node *n = &b->g->nodes[idx];

	if (n->skill >= sfs_catalog_nskills(b->g->cat) ||
	    (n->kind != NODE_SKILL_FILE && n->kind != NODE_SKILL_LINK))
		return false;
	uint32_t *canon = &b->canon[b->file_base[n->skill] + n->item];
	if (!n->in_view) {
		*canon = idx;
		return false;
	}
	n->ino = b->g->nodes[*canon].ino;
	b->prev_of[idx] = TREE_NONE;
	return true;
}

static void number_node(struct builder *b, uint32_t idx, const struct node *o)
{
	struct node *n = &b->g->nodes[idx];
	const struct gen_params *p = b->p;

	if (number_alias(b, idx))
		return;

	if (o && unchanged(b, n, o)) {
		n->ino = o->ino;
		if (!node_is_dir(n))
			n->mtime = o->mtime;
		b->prev_of[idx] = gen_index(b->prev, o);
		return;
	}
	n->ino = (*p->next_ino)++;
	b->prev_of[idx] = TREE_NONE;
	if (n->kind == NODE_SKILL_FILE && b->prev && p->pin &&
	    b->g->npins < p->max_pins)
		pin_node(b, idx);
}

/* ---- layout -------------------------------------------------------------- */

static int fill_dir(struct builder *b, uint32_t d)
{
	struct gen *g = b->g;
	size_t n = 0;
	int rc;

	if (g->nodes[d].kind == NODE_SKILL_DIR)
		rc = skill_dir_kids(b, &g->nodes[d], &n);
	else
		rc = own_dir_kids(b, &g->nodes[d], &n);
	if (rc < 0)
		return rc;
	sort_kids(b->kids, n);
	if (g->nnodes + n > b->cap)
		return -EOVERFLOW;   /* the count in gen_build is wrong */

	const struct node *pdir = b->prev_of[d] != TREE_NONE ?
	                          &b->prev->nodes[b->prev_of[d]] : NULL;
	g->nodes[d].first = g->nnodes;
	g->nodes[d].nkids = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		uint32_t idx = g->nnodes++;
		struct node *c = &g->nodes[idx];
		*c = (struct node){
			.name = b->kids[i].name,
			.mtime = ns_of(b->p->now),
			.parent = d,
			.skill = b->kids[i].skill,
			.item = b->kids[i].item,
			.kind = b->kids[i].kind,
			.in_view = g->nodes[d].in_view ||
			           (g->nodes[d].kind == NODE_DIR &&
			            g->nodes[d].item >= DIR_VIEW0),
		};
		number_node(b, idx, pdir ? gen_child(b->prev, pdir, c->name)
		                         : NULL);
		if (!node_is_dir(c))
			g->bytes += (uint64_t)gen_size(g, c);
	}
	return 0;
}

/* A folder keeps its previous mtime while its listing is unchanged. */
static void date_dir(struct builder *b, struct node *d)
{
	uint32_t pi = b->prev_of[gen_index(b->g, d)];

	if (pi == TREE_NONE)
		return;
	const struct node *o = &b->prev->nodes[pi];
	if (o->nkids != d->nkids)
		return;
	for (uint32_t i = 0; i < d->nkids; i++) {
		const struct node *c = &b->g->nodes[d->first + i];
		const struct node *oc = &b->prev->nodes[o->first + i];
		if (c->ino != oc->ino || strcmp(c->name, oc->name) != 0)
			return;
	}
	d->mtime = o->mtime;
}

static uint64_t mix(uint64_t ino)
{
	return ino * 0x9E3779B97F4A7C15ull;
}

/* The inode hash, at most three quarters full: probes stay short, and
 * it costs a little over 5 bytes a node. */
static int index_inodes(struct gen *g)
{
	uint32_t size = 16;

	while (size * 3ull < 4ull * g->nnodes)
		size *= 2;
	g->slots = calloc(size, sizeof(*g->slots));
	if (!g->slots)
		return -ENOMEM;
	g->mask = size - 1;
	for (uint32_t i = 0; i < g->nnodes; i++) {
		uint32_t s = (uint32_t)(mix(g->nodes[i].ino) >> 32) & g->mask;
		while (g->slots[s])
			s = (s + 1) & g->mask;
		g->slots[s] = i + 1;
	}
	return 0;
}

static uint32_t count_nodes(const sfs_catalog *cat,
                            const struct sfs_views *views)
{
	size_t n = sfs_catalog_nskills(cat);
	uint64_t total = 9 + 2 * (uint64_t)n;   /* /, 7 entries, skills_index */
	const struct sfs_skill *docs = sfs_catalog_docs(cat);

	for (size_t v = 0; v < views->n; v++) {
		total += 3;   /* views/<v>, find-skills/, its SKILL.md */
		for (size_t i = 0; i < views->v[v].nskills; i++)
			total += 1 + sfs_catalog_skill(cat,
			                               views->v[v].skills[i])->nfiles;
	}

	if (docs)
		total += 1 + docs->nfiles;

	for (size_t i = 0; i < n; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		total += s->nfiles + s->nrefs + (s->nrefs ? 1 : 0);
	}
	return total >= UINT32_MAX / 2 ? 0 : (uint32_t)total;
}

/* Unchanged files keep the copies of their bytes the previous
 * generation held (see retain.h). */
static int carry_kept(struct builder *b)
{
	struct gen *g = b->g;

	g->kept = calloc(g->nnodes, sizeof(*g->kept));
	if (!g->kept)
		return -ENOMEM;
	for (uint32_t i = 0; b->prev && i < g->nnodes; i++) {
		const struct node *n = &g->nodes[i];
		if (n->kind != NODE_SKILL_FILE || b->prev_of[i] == TREE_NONE ||
		    n->in_view)
			continue;
		const struct node *o = &b->prev->nodes[b->prev_of[i]];
		struct kept *k = gen_kept(b->prev, o);
		if (k && memcmp(gen_file(g, n)->sha256, gen_file(b->prev, o)->sha256,
		                sizeof(gen_file(g, n)->sha256)) == 0)
			atomic_init(&g->kept[i], kept_ref(k));
	}
	return 0;
}

static int index_files(struct builder *b)
{
	size_t n = sfs_catalog_nskills(b->g->cat), total = 0;

	b->file_base = malloc((n + 1) * sizeof(*b->file_base));
	if (!b->file_base)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		b->file_base[i] = total;
		total += sfs_catalog_skill(b->g->cat, i)->nfiles;
	}
	b->canon = malloc((total ? total : 1) * sizeof(*b->canon));
	return b->canon ? 0 : -ENOMEM;
}

static int layout(struct builder *b)
{
	struct gen *g = b->g;

	b->cap = count_nodes(g->cat, g->views);
	if (!b->cap)
		return -EOVERFLOW;
	g->nodes = calloc(b->cap, sizeof(*g->nodes));
	b->prev_of = malloc(b->cap * sizeof(*b->prev_of));
	if (!g->nodes || !b->prev_of || index_files(b) < 0)
		return -ENOMEM;

	struct node *root = &g->nodes[0];
	*root = (struct node){ .ino = TREE_ROOT_INO, .name = "",
	                       .mtime = ns_of(b->p->now), .parent = 0,
	                       .skill = TREE_NONE, .item = DIR_ROOT,
	                       .kind = NODE_DIR };
	b->prev_of[0] = b->prev ? 0 : TREE_NONE;
	g->nnodes = 1;

	/* breadth first: the node array is its own queue */
	for (uint32_t i = 0; i < g->nnodes; i++) {
		if (!node_is_dir(&g->nodes[i]))
			continue;
		int rc = fill_dir(b, i);
		if (rc < 0)
			return rc;
	}
	int rc = carry_kept(b);
	if (rc < 0)
		return rc;
	if (b->prev) {
		root->mtime = b->prev->nodes[0].mtime;
		for (uint32_t i = 0; i < g->nnodes; i++)
			if (node_is_dir(&g->nodes[i]))
				date_dir(b, &g->nodes[i]);
	}
	return index_inodes(g);
}

struct gen *gen_build(sfs_catalog *cat, const struct gen *prev,
                      const struct gen_params *p)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct builder b = { .g = g, .prev = prev, .p = p,
	                     .group_skill = TREE_NONE };

	if (!g)
		return NULL;
	atomic_init(&g->refs, 1);
	atomic_init(&g->active, 0);
	if (pthread_mutex_init(&g->search_lock, NULL) != 0) {
		free(g);
		return NULL;
	}
	g->number = p->number;
	g->built = p->now;
	g->uid = p->uid;
	g->gid = p->gid;
	g->refresh_mode = p->refresh_mode;
	g->cat = sfs_catalog_ref(cat);
	g->names = strpool_new();

	int rc = g->names ? render_docs(&b) : -ENOMEM;
	if (rc == 0)
		rc = layout(&b);
	free(b.prev_of);
	free(b.file_base);
	free(b.canon);
	free(b.kids);
	free(b.order);
	free(b.start);
	if (rc < 0) {
		gen_free(g);
		return NULL;
	}
	return g;
}

/* ---- lifetime and queries ---------------------------------------------- */

struct gen *gen_ref(struct gen *g)
{
	atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed);
	return g;
}

bool gen_drop(struct gen *g)
{
	return atomic_fetch_sub_explicit(&g->refs, 1,
	                                 memory_order_acq_rel) == 1;
}

void gen_free(struct gen *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; i < g->ndocs; i++) {
		free(g->docs[i].data);
		sfs_lines_doc_free(g->docs[i].lines);
	}
	free(g->docs);
	sfs_views_free(g->views);
	sfs_search_unref(g->search);
	pthread_mutex_destroy(&g->search_lock);
	for (uint32_t i = 0; i < g->nroot_fds; i++)
		if (g->root_fds[i] >= 0)
			close(g->root_fds[i]);
	for (uint32_t i = 0; i < g->npins; i++)
		close(g->pins[i].fd);
	for (uint32_t i = 0; g->kept && i < g->nnodes; i++)
		kept_unref(atomic_load(&g->kept[i]));
	free(g->kept);
	free(g->pins);
	free(g->root_fds);
	free(g->nodes);
	free(g->slots);
	strpool_free(g->names);
	sfs_catalog_unref(g->cat);
	free(g);
}

const struct node *gen_node(const struct gen *g, uint64_t ino)
{
	uint32_t s = (uint32_t)(mix(ino) >> 32) & g->mask;

	for (; g->slots[s]; s = (s + 1) & g->mask) {
		const struct node *n = &g->nodes[g->slots[s] - 1];
		if (n->ino == ino)
			return n;
	}
	return NULL;
}

const struct node *gen_child(const struct gen *g, const struct node *dir,
                             const char *name)
{
	const struct node *kids = &g->nodes[dir->first];
	size_t lo = 0, hi = dir->nkids;

	if (!node_is_dir(dir))
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, kids[mid].name);
		if (c == 0)
			return &kids[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

bool gen_is_search_dir(const struct node *n)
{
	return n->kind == NODE_DIR && n->skill == TREE_NONE &&
	       n->item == DIR_SEARCH;
}

/*
 * The search index is made when first needed, not with the generation:
 * at 10,000 skills it took 500-900 ms more of a loaded machine's tree
 * build, which a mount's start and every refresh would wait for.  Once
 * search/ is in use, the refresh thread makes it after each publish
 * (generation.c), so a search rarely waits.
 */
struct sfs_search *gen_search_prepare(struct gen *g)
{
	struct sfs_search *s;

	pthread_mutex_lock(&g->search_lock);
	if (!g->search && sfs_search_build(g->cat, &g->search) < 0)
		g->search = NULL;
	s = sfs_search_ref(g->search);
	pthread_mutex_unlock(&g->search_lock);
	return s;
}

char *gen_search(struct gen *g, const char *mount, const char *words)
{
	uint32_t hits[SFS_SEARCH_MAX_HITS];
	struct sfs_search *s = gen_search_prepare(g);
	size_t n;
	int rc = s ? sfs_search_run(s, words, hits, SFS_SEARCH_MAX_HITS, &n)
	           : -ENOMEM;

	sfs_search_unref(s);
	return rc < 0 ? NULL : sfs_render_search(g->cat, hits, n, mount);
}

const struct node *gen_child_nocase(const struct gen *g,
                                    const struct node *dir,
                                    const char *name)
{
	const struct node *found = NULL;

	if (!node_is_dir(dir))
		return NULL;
	for (uint32_t i = 0; i < dir->nkids; i++) {
		const struct node *c = &g->nodes[dir->first + i];
		if (strcasecmp(c->name, name) == 0) {
			if (found)
				return NULL;
			found = c;
		}
	}
	return found;
}

/* A ref link's target, made in buf; *len without the NUL.  NULL when it
 * does not fit. */
static const char *ref_target(const struct gen *g, const struct node *n,
                              char *buf, size_t *len)
{
	const struct sfs_skill *s = gen_skill(g, n);
	int k = snprintf(buf, PATH_MAX, "../../skills/%s/%s", s->id,
	                 s->refs[n->item].path);

	if (k < 0 || k >= PATH_MAX)
		return NULL;
	*len = (size_t)k;
	return buf;
}

const char *gen_link(const struct gen *g, const struct node *n, char *buf)
{
	size_t len;

	if (n->kind == NODE_SKILL_LINK)
		return gen_file(g, n)->link;
	if (n->kind == NODE_REFLINK)
		return ref_target(g, n, buf, &len);
	return NULL;
}

/*
 * The SKILL.md of a skill that not every user may read (see
 * sfs_catalog_private) when n is one of its entries that show its
 * frontmatter's text (catalog/<id>.json, skills/<id>, refs/<id>); else
 * NULL.  Those take SKILL.md's owner and group, and access for the owner only,
 * so that default_permissions turns other users away as the source does.
 */
static const struct sfs_file *private_owner(const struct gen *g,
                                            const struct node *n)
{
	bool top = (n->kind == NODE_SKILL_DIR && n->item == TREE_NONE) ||
	           (n->kind == NODE_DOC && n->skill != TREE_NONE) ||
	           (n->kind == NODE_DIR && n->skill < TREE_DOCS);
	if (!top || n->skill >= sfs_catalog_nskills(g->cat))
		return NULL;
	const struct sfs_skill *s = sfs_catalog_skill(g->cat, n->skill);
	if (!sfs_catalog_private(g->cat, s->dir))
		return NULL;
	return &s->files[s->skill_md];
}

mode_t gen_mode(const struct gen *g, const struct node *n)
{
	if (private_owner(g, n))
		return n->kind == NODE_DOC ? S_IFREG | 0400 : S_IFDIR | 0500;
	switch (n->kind) {
	case NODE_DOC:
		return S_IFREG | 0444;
	case NODE_REFLINK:
		return S_IFLNK | 0777;
	case NODE_SKILL_FILE:
	case NODE_SKILL_LINK:
		return gen_file(g, n)->mode;
	default:
		return S_IFDIR | 0555;
	}
}

off_t gen_size(const struct gen *g, const struct node *n)
{
	char buf[PATH_MAX];
	size_t len = 0;

	switch (n->kind) {
	case NODE_DOC:
		return (off_t)g->docs[n->item].len;
	case NODE_REFLINK:
		ref_target(g, n, buf, &len);
		return (off_t)len;
	case NODE_SKILL_FILE:
		return gen_file(g, n)->size;
	case NODE_SKILL_LINK:
		return (off_t)strlen(gen_file(g, n)->link);
	default:
		return 4096;
	}
}

/* A folder's link count: itself, its entry in its parent, and the ".."
 * of each subfolder. */
static nlink_t dir_nlink(const struct gen *g, const struct node *n)
{
	nlink_t k = 2;

	for (uint32_t i = 0; i < n->nkids; i++)
		k += node_is_dir(&g->nodes[n->first + i]);
	return k;
}

void gen_stat(const struct gen *g, const struct node *n, struct stat *st)
{
	const struct sfs_file *f = n->kind == NODE_SKILL_FILE ||
	                           n->kind == NODE_SKILL_LINK ?
	                           gen_file(g, n) : NULL;

	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_mode = gen_mode(g, n);
	st->st_nlink = node_is_dir(n) ? dir_nlink(g, n) : 1;
	if (!f)
		f = private_owner(g, n);
	st->st_uid = f ? f->uid : g->uid;
	st->st_gid = f ? f->gid : g->gid;
	st->st_size = gen_size(g, n);
	st->st_blksize = 4096;
	st->st_blocks = (st->st_size + 511) / 512;
	st->st_mtim = f ? f->mtime : timespec_of(n->mtime);
	st->st_atim = st->st_ctim = st->st_mtim;
}

char *gen_record(const struct gen *g, const struct node *n)
{
	if (n->kind != NODE_DOC || n->skill == TREE_NONE)
		return NULL;
	char *text = sfs_render_skill_record(g->cat, gen_skill(g, n));
	if (text && strlen(text) != g->docs[n->item].len) {
		free(text);   /* renderings are deterministic: never */
		text = NULL;
	}
	return text;
}
