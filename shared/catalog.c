/*
 * catalog.c - builds the immutable catalog snapshot: every skill folder
 * found, read, validated, checked against the others (shadowing,
 * depends_on), then frozen into one arena with a reference count.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot.h"

#define DEFAULT_MAX_DEPTH   16
#define DEFAULT_MAX_ENTRIES 1000000
#define DEFAULT_MAX_FILES   100000
/* Frontmatter is capped at SFS_FM_MAX_BYTES; the margin leaves room for
 * the BOM, the fences and a little more, so the parser can tell an
 * over-large frontmatter from a missing closing fence. */
#define SKILL_MD_HEAD       (SFS_FM_MAX_BYTES + 4096)
/* The body is read only for its checks, up to the largest skill a host
 * must accept (SEP-2640 limits). */
#define SKILL_MD_BODY_MAX   (16 * 1024 * 1024)

/* One skill folder while the catalog is being built. */
struct cand {
	const struct sfs_found *found;
	struct sfs_diag_list diags;
	struct sfs_tree tree;
	const char *skill_md_path;    /* absolute, as named in the source */
	struct sfs_frontmatter fm;
	bool parsed;                  /* fm needs freeing */
	struct sfs_meta meta;         /* used once the skill is valid */
	const char *id;               /* the frontmatter name, if any */
	int state;                    /* 0 served, SFS_INVALID, SFS_SHADOWED */
	const char *shadowed_by;
	bool duplicate;               /* the same folder via another root */
};

struct build {
	sfs_catalog *cat;
	const struct sfs_config *cfg;
	struct sfs_scan scan;
	struct sfs_diag_list global;
	struct sfs_digest_cache cache;
	struct cand *c;
	size_t n;
};

/* ---- reading one skill -------------------------------------------------- */

static bool has_error(const struct sfs_diag_list *l)
{
	return sfs_diag_count(l, SFS_ERROR) > 0;
}

/* Reads up to `max` bytes at `off` into a NUL-terminated malloc'd buffer. */
static int read_at(int fd, off_t off, size_t max, char **out, size_t *len)
{
	size_t cap = max < 65536 ? max : 65536, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	while (n < max) {
		if (n == cap) {
			cap = cap * 2 < max ? cap * 2 : max;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t r = pread(fd, buf + n, cap - n, off + (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;
			free(buf);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Opens SKILL.md as listed in the tree: a regular file, or an in-skill
 * symlink to one.  Returns a descriptor or -errno. */
static int open_skill_md(const struct cand *c)
{
	const struct sfs_file *f = &c->tree.files[c->tree.skill_md];
	char *real = NULL;
	const char *path = c->skill_md_path;

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
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Looks a skill-relative path up in the sorted tree. */
static const struct sfs_file *tree_find(const struct sfs_tree *t,
                                        const char *path)
{
	size_t lo = 0, hi = t->nfiles;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->files[mid].path, path);
		if (c == 0)
			return &t->files[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* sfs_exists_fn for the body checks: any entry of the tree counts. */
static bool body_link_exists(const char *relpath, const char **actual,
                             void *arg)
{
	const struct cand *c = arg;
	char *p = strdup(relpath);
	bool found = false;

	*actual = NULL;
	if (!p)
		return true;   /* no finding rather than a false one */
	if (!sfs_path_clean_rel(p)) {
		free(p);
		return false;
	}
	if (p[0] == '\0' || tree_find(&c->tree, p)) {
		found = true;
	} else {
		for (size_t i = 0; i < c->tree.nfiles; i++) {
			if (strcasecmp(c->tree.files[i].path, p) == 0) {
				*actual = c->tree.files[i].path;
				break;
			}
		}
	}
	free(p);
	return found;
}

static void fm_position(const struct cand *c, const char *key,
                        unsigned *line, unsigned *col)
{
	const struct sfs_fm_pos *pos =
		c->parsed ? sfs_frontmatter_pos(&c->fm, key) : NULL;
	*line = pos ? pos->line : 0;
	*col = pos ? pos->column : 0;
	if (pos && pos->value_line) {
		*line = pos->value_line;
		*col = pos->value_column;
	}
}

/* Every declared reference must be a regular file of the skill. */
static int check_references(struct build *b, struct cand *c)
{
	struct sfs_arena *a = &b->cat->arena;

	for (size_t i = 0; i < c->meta.nrefs; i++) {
		const struct sfs_ref *r = &c->meta.refs[i];
		char *p = sfs_arena_strdup(a, r->path);
		if (!p)
			return -ENOMEM;
		const struct sfs_file *f =
			sfs_path_clean_rel(p) ? tree_find(&c->tree, p) : NULL;
		if (f && (S_ISREG(f->mode) || (S_ISLNK(f->mode) && f->hashed)))
			continue;

		char *field = sfs_arena_printf(a, "x-personal-mcp.references."
		                               "%s.path", r->id);
		if (!field)
			return -ENOMEM;
		unsigned line, col;
		fm_position(c, field, &line, &col);
		int rc = sfs_diag_add(&c->diags, SFS_ERROR, c->skill_md_path,
		                      line, col, field, f ?
		                      "reference %s is not a regular file" :
		                      "reference %s does not exist in the skill",
		                      r->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* Parses and validates SKILL.md from the open descriptor. */
static int check_skill_md(struct build *b, struct cand *c, int fd)
{
	struct sfs_arena *a = &b->cat->arena;
	char *text;
	size_t len;

	int rc = read_at(fd, 0, SKILL_MD_HEAD, &text, &len);
	if (rc < 0)
		return rc == -ENOMEM ? rc :
		       sfs_diag_add(&c->diags, SFS_ERROR, c->skill_md_path, 0, 0,
		                    "", "cannot read: %s", strerror(-rc));
	rc = sfs_frontmatter_parse(text, len, c->skill_md_path, a, &c->diags,
	                           &c->fm);
	free(text);
	c->parsed = true;
	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;

	const cJSON *name = cJSON_GetObjectItemCaseSensitive(c->fm.json,
	                                                     "name");
	if (cJSON_IsString(name) && name->valuestring[0]) {
		c->id = sfs_arena_strdup(a, name->valuestring);
		if (!c->id)
			return -ENOMEM;
	}
	rc = sfs_validate_frontmatter(&c->fm, c->skill_md_path,
	                              base_name(c->found->dir), a, &c->diags,
	                              &c->meta);
	if (rc < 0)
		return rc;

	rc = read_at(fd, (off_t)c->fm.body_offset, SKILL_MD_BODY_MAX, &text,
	             &len);
	if (rc == -ENOMEM)
		return rc;
	if (rc == 0) {
		rc = sfs_validate_body(text, len, c->fm.body_line,
		                       c->skill_md_path, body_link_exists, c,
		                       &c->diags);
		free(text);
		if (rc < 0)
			return rc;
	}
	return check_references(b, c);
}

/* Lists, reads and validates one skill folder on its own. */
static int check_folder(struct build *b, struct cand *c)
{
	struct sfs_arena *a = &b->cat->arena;
	const struct sfs_found *f = c->found;

	c->diags.arena = a;
	c->skill_md_path = sfs_arena_printf(a, "%s/%s", f->dir, f->skill_md);
	if (!c->skill_md_path)
		return -ENOMEM;
	int rc = sfs_scan_tree(&b->scan, f, &c->diags, &c->tree);
	if (rc < 0)
		return rc;
	if (strcmp(f->skill_md, "SKILL.md") != 0) {
		rc = sfs_diag_add(&c->diags, SFS_WARNING, c->skill_md_path, 0, 0,
		                  "", "spelled %s; rename it to SKILL.md",
		                  f->skill_md);
		if (rc < 0)
			return rc;
	}
	if (c->tree.skill_md == c->tree.nfiles)
		return has_error(&c->diags) ? 0 :
		       sfs_diag_add(&c->diags, SFS_ERROR, c->skill_md_path, 0, 0,
		                    "", "cannot be read; the skill cannot be "
		                    "served");

	int fd = open_skill_md(c);
	if (fd < 0)
		return sfs_diag_add(&c->diags, SFS_ERROR, c->skill_md_path, 0, 0,
		                    "", "cannot read: %s",
		                    fd == -EINVAL ? "not a regular file"
		                                  : strerror(-fd));
	rc = check_skill_md(b, c, fd);
	close(fd);
	return rc;
}

/* ---- the skills together ------------------------------------------------ */

static int cmp_cand_dir(const void *x, const void *y)
{
	const struct cand *const *a = x, *const *b = y;
	int c = strcmp((*a)->found->dir, (*b)->found->dir);
	if (c == 0)
		c = (*a > *b) - (*a < *b);
	return c;
}

/* The same folder found twice (a root listed twice, or one root inside
 * another) is one skill folder: the first finding counts. */
static int mark_duplicates(struct build *b)
{
	if (b->n < 2)
		return 0;
	struct cand **v = malloc(b->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		v[i] = &b->c[i];
	sfs_sort(v, b->n, sizeof(*v), cmp_cand_dir);
	for (size_t i = 1; i < b->n; i++)
		if (strcmp(v[i]->found->dir, v[i - 1]->found->dir) == 0)
			v[i]->duplicate = true;
	free(v);
	return 0;
}

static int cmp_cand_id(const void *x, const void *y)
{
	const struct cand *const *a = x, *const *b = y;
	int c = strcmp((*a)->id, (*b)->id);
	if (c == 0)   /* precedence: root order, then path order */
		c = (*a > *b) - (*a < *b);
	return c;
}

/* Valid skills with the same id: the first in precedence order is served,
 * the others are shadowed. */
static int resolve_shadowing(struct build *b)
{
	struct cand **v = malloc((b->n ? b->n : 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].state == 0 && !b->c[i].duplicate)
			v[n++] = &b->c[i];
	sfs_sort(v, n, sizeof(*v), cmp_cand_id);

	int rc = 0;
	for (size_t i = 1; rc == 0 && i < n; i++) {
		struct cand *c = v[i];
		if (strcmp(c->id, v[i - 1]->id) != 0)
			continue;
		size_t w = i - 1;
		while (v[w]->state != 0)
			w--;   /* stops at the run's first, which is served */
		const struct cand *winner = v[w];
		c->state = SFS_SHADOWED;
		c->shadowed_by = winner->found->dir;
		unsigned line, col;
		fm_position(c, "name", &line, &col);
		rc = sfs_diag_add(&c->diags,
		                  b->cfg->strict ? SFS_ERROR : SFS_WARNING,
		                  c->skill_md_path, line, col, "name",
		                  "skill \"%s\" is shadowed by %s, "
		                  "which is served", c->id, winner->skill_md_path);
	}
	free(v);
	return rc;
}

/* ---- depends_on --------------------------------------------------------- */

/* The served skills sorted by id, and the dependency graph over them. */
struct graph {
	struct cand **v;
	size_t n;
	/* Tarjan's strongly connected components */
	size_t *index, *low, *stack;
	bool *on_stack;
	size_t sp, counter;
	struct build *b;
	int rc;
};

static int cmp_id_key(const void *key, const void *elem)
{
	const struct cand *const *c = elem;
	return strcmp(key, (*c)->id);
}

/* The served skill with this id, as an index into g->v, or -1. */
static long graph_find(const struct graph *g, const char *id)
{
	struct cand **c = bsearch(id, g->v, g->n, sizeof(*g->v), cmp_id_key);
	return c && (*c)->state == 0 ? (long)(c - g->v) : -1;
}

static int dep_error(struct cand *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int dep_error(struct cand *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	unsigned line, col;
	fm_position(c, "x-personal-mcp.depends_on", &line, &col);
	c->state = SFS_INVALID;
	return sfs_diag_add(&c->diags, SFS_ERROR, c->skill_md_path, line, col,
	                    "x-personal-mcp.depends_on", "%s", msg);
}

/* Invalidates served skills that depend on a skill that is not served,
 * until none is left.  Returns 0 or -ENOMEM. */
static int check_missing_deps(struct graph *g)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < g->n; i++) {
			struct cand *c = g->v[i];
			if (c->state != 0)
				continue;
			bool bad = false;
			for (size_t d = 0; d < c->meta.ndepends_on; d++) {
				const char *dep = c->meta.depends_on[d];
				if (graph_find(g, dep) >= 0)
					continue;
				int rc = dep_error(c, "depends on \"%s\", which "
				                   "is not a served skill", dep);
				if (rc < 0)
					return rc;
				bad = true;
			}
			changed |= bad;
		}
	}
	return 0;
}

static int cmp_size(const void *x, const void *y)
{
	const size_t *a = x, *b = y;
	return (*a > *b) - (*a < *b);
}

/* A component of more than one skill, or a skill that depends on itself,
 * is a cycle: every member is invalid. */
static void report_cycle(struct graph *g, size_t *members, size_t n)
{
	struct cand *first = g->v[members[0]];
	bool self = false;
	for (size_t d = 0; d < first->meta.ndepends_on; d++)
		self |= strcmp(first->meta.depends_on[d], first->id) == 0;
	if (n == 1 && !self)
		return;

	sfs_sort(members, n, sizeof(*members), cmp_size);
	char list[512];
	size_t len = 0;
	list[0] = '\0';
	for (size_t i = 0; i < n && len + 1 < sizeof(list); i++) {
		int w = snprintf(list + len, sizeof(list) - len, "%s%s",
		                 i ? ", " : "", g->v[members[i]]->id);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len >= sizeof(list))
		len = sizeof(list) - 1;
	for (size_t i = 0; i < n && g->rc == 0; i++)
		g->rc = dep_error(g->v[members[i]],
		                  "depends_on forms a cycle: %s", list);
}

static void strongconnect(struct graph *g, size_t v)
{
	g->index[v] = g->low[v] = ++g->counter;
	g->stack[g->sp++] = v;
	g->on_stack[v] = true;

	const struct cand *c = g->v[v];
	for (size_t d = 0; d < c->meta.ndepends_on; d++) {
		long w = graph_find(g, c->meta.depends_on[d]);
		if (w < 0)
			continue;
		if (!g->index[w]) {
			strongconnect(g, (size_t)w);
			if (g->low[w] < g->low[v])
				g->low[v] = g->low[w];
		} else if (g->on_stack[w] && g->index[w] < g->low[v]) {
			g->low[v] = g->index[w];
		}
	}
	if (g->low[v] != g->index[v])
		return;
	size_t top = g->sp;
	do
		g->on_stack[g->stack[--g->sp]] = false;
	while (g->stack[g->sp] != v);
	report_cycle(g, g->stack + g->sp, top - g->sp);
}

static int check_cycles(struct graph *g)
{
	g->index = calloc(g->n, sizeof(*g->index));
	g->low = calloc(g->n, sizeof(*g->low));
	g->stack = calloc(g->n, sizeof(*g->stack));
	g->on_stack = calloc(g->n, sizeof(*g->on_stack));
	g->rc = g->index && g->low && g->stack && g->on_stack ? 0 : -ENOMEM;

	/* A reported cycle's members become invalid during the walk; edges
	 * to them are then ignored, as Tarjan ignores edges to finished
	 * components anyway. */
	for (size_t v = 0; g->rc == 0 && v < g->n; v++)
		if (!g->index[v])
			strongconnect(g, v);
	free(g->index);
	free(g->low);
	free(g->stack);
	free(g->on_stack);
	return g->rc;
}

static int check_dependencies(struct build *b)
{
	struct graph g = { .b = b };
	g.v = malloc((b->n ? b->n : 1) * sizeof(*g.v));
	if (!g.v)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].state == 0 && !b->c[i].duplicate)
			g.v[g.n++] = &b->c[i];
	sfs_sort(g.v, g.n, sizeof(*g.v), cmp_cand_id);

	int rc = check_missing_deps(&g);
	if (rc == 0)
		rc = check_cycles(&g);
	if (rc == 0)
		rc = check_missing_deps(&g);
	free(g.v);
	return rc;
}

/* ---- freezing the snapshot ---------------------------------------------- */

struct diag_key {
	const struct sfs_diag *d;
	size_t order;
};

static int cmp_diag(const void *x, const void *y)
{
	const struct diag_key *a = x, *b = y;
	int c = strcmp(a->d->file, b->d->file);
	if (c == 0)
		c = (a->d->line > b->d->line) - (a->d->line < b->d->line);
	if (c == 0)
		c = (a->d->column > b->d->column) -
		    (a->d->column < b->d->column);
	if (c == 0)
		c = (a->order > b->order) - (a->order < b->order);
	return c;
}

/* Copies a folder's findings into the arena, sorted by file and position
 * (stable), the order in which editors and people read them. */
static const struct sfs_diag *freeze_diags(struct sfs_arena *a,
                                           const struct sfs_diag_list *l,
                                           bool sort)
{
	struct sfs_diag *v = sfs_arena_alloc(a, l->n * sizeof(*v));
	struct diag_key *k = malloc((l->n ? l->n : 1) * sizeof(*k));
	if (!v || !k) {
		free(k);
		return NULL;
	}
	for (size_t i = 0; i < l->n; i++)
		k[i] = (struct diag_key){ .d = &l->v[i], .order = i };
	if (sort)
		sfs_sort(k, l->n, sizeof(*k), cmp_diag);
	for (size_t i = 0; i < l->n; i++)
		v[i] = *k[i].d;
	free(k);
	return v;
}

static void count_diags(struct sfs_counts *n, const struct sfs_diag *v,
                        size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (v[i].severity == SFS_ERROR)
			n->errors++;
		else
			n->warnings++;
	}
}

static int cmp_str_ptr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_skill(const void *x, const void *y)
{
	const struct sfs_skill *a = x, *b = y;
	return strcmp(a->id, b->id);
}

static int cmp_unserved(const void *x, const void *y)
{
	const struct sfs_unserved *a = x, *b = y;
	return strcmp(a->dir, b->dir);
}

static int cmp_folder(const void *x, const void *y)
{
	const struct sfs_folder *a = x, *b = y;
	return strcmp(a->dir, b->dir);
}

static void fill_skill(struct sfs_skill *s, struct cand *c)
{
	const struct sfs_meta *m = &c->meta;

	s->id = c->id;
	s->description = m->description;
	s->dir = c->found->dir;
	s->root = c->found->root;
	s->frontmatter = c->fm.json;
	s->body_offset = c->fm.body_offset;
	s->version = m->version;
	s->tags = m->tags;
	s->ntags = m->ntags;
	s->capabilities = m->capabilities;
	s->ncapabilities = m->ncapabilities;
	s->depends_on = m->depends_on;
	s->ndepends_on = m->ndepends_on;
	s->refs = m->refs;
	s->nrefs = m->nrefs;
	s->model_invocable = m->model_invocable;
	s->user_invocable = m->user_invocable;
	s->files = c->tree.files;
	s->nfiles = c->tree.nfiles;
	s->skill_md = c->tree.skill_md;
}

/* The served skills, sorted by id; their frontmatter moves to the
 * catalog. */
static int freeze_skills(struct build *b, const struct sfs_diag **frozen)
{
	sfs_catalog *cat = b->cat;
	size_t n = 0;

	for (size_t i = 0; i < b->n; i++)
		n += !b->c[i].duplicate && b->c[i].state == 0;
	cat->skills = sfs_arena_alloc(&cat->arena, n * sizeof(*cat->skills));
	cat->json = sfs_arena_alloc(&cat->arena, n * sizeof(*cat->json));
	if (!cat->skills || !cat->json)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (c->duplicate || c->state != 0)
			continue;
		struct sfs_skill *s = &cat->skills[cat->nskills++];
		fill_skill(s, c);
		s->diags = frozen[i];
		s->ndiags = c->diags.n;
		cat->json[cat->njson++] = c->fm.json;
		c->fm.json = NULL;
		cat->root_served[c->found->root]++;
	}
	sfs_sort(cat->skills, cat->nskills, sizeof(*cat->skills), cmp_skill);
	return 0;
}

static int freeze_folders(struct build *b, const struct sfs_diag **frozen)
{
	sfs_catalog *cat = b->cat;
	size_t nu = 0, nf = 0;

	for (size_t i = 0; i < b->n; i++) {
		const struct cand *c = &b->c[i];
		nu += !c->duplicate && c->state != 0;
		nf += !c->duplicate && (c->state != 0 || c->diags.n > 0);
	}
	cat->unserved = sfs_arena_alloc(&cat->arena, nu * sizeof(*cat->unserved));
	cat->folders = sfs_arena_alloc(&cat->arena, nf * sizeof(*cat->folders));
	if (!cat->unserved || !cat->folders)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		const struct cand *c = &b->c[i];
		if (c->duplicate)
			continue;
		if (c->state != 0)
			cat->unserved[cat->nunserved++] = (struct sfs_unserved){
				.reason = c->state, .dir = c->found->dir,
				.id = c->id, .root = c->found->root,
				.shadowed_by = c->shadowed_by,
				.diags = frozen[i], .ndiags = c->diags.n,
			};
		if (c->state != 0 || c->diags.n > 0)
			cat->folders[cat->nfolders++] = (struct sfs_folder){
				.dir = c->found->dir, .id = c->id,
				.state = c->state, .shadowed_by = c->shadowed_by,
				.diags = frozen[i], .ndiags = c->diags.n,
			};
		if (c->state == SFS_INVALID)
			cat->counts.invalid++;
		else if (c->state == SFS_SHADOWED)
			cat->counts.shadowed++;
		count_diags(&cat->counts, frozen[i], c->diags.n);
	}
	sfs_sort(cat->unserved, cat->nunserved, sizeof(*cat->unserved),
	      cmp_unserved);
	sfs_sort(cat->folders, cat->nfolders, sizeof(*cat->folders), cmp_folder);
	return 0;
}

static int freeze_dirs(struct build *b)
{
	sfs_catalog *cat = b->cat;
	struct sfs_strvec *d = &b->scan.dirs;

	sfs_sort(d->v, d->n, sizeof(*d->v), cmp_str_ptr);
	cat->dirs = sfs_arena_alloc(&cat->arena, d->n * sizeof(*cat->dirs));
	if (!cat->dirs)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		if (i == 0 || strcmp(d->v[i], d->v[i - 1]) != 0)
			cat->dirs[cat->ndirs++] = d->v[i];
	return 0;
}

static int freeze_spans(struct build *b)
{
	sfs_catalog *cat = b->cat;

	cat->spans = sfs_arena_alloc(&cat->arena, b->n * sizeof(*cat->spans));
	if (!cat->spans)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].tree.nfiles)
			cat->spans[cat->nspans++] = (struct sfs_file_span){
				.v = b->c[i].tree.files, .n = b->c[i].tree.nfiles,
			};
	return 0;
}

static int freeze(struct build *b)
{
	sfs_catalog *cat = b->cat;
	const struct sfs_diag **frozen =
		malloc((b->n ? b->n : 1) * sizeof(*frozen));
	if (!frozen)
		return -ENOMEM;

	int rc = 0;
	for (size_t i = 0; rc == 0 && i < b->n; i++) {
		frozen[i] = freeze_diags(&cat->arena, &b->c[i].diags, true);
		if (!frozen[i])
			rc = -ENOMEM;
	}
	cat->ndiags = b->global.n;
	cat->diags = (struct sfs_diag *)freeze_diags(&cat->arena, &b->global,
	                                             false);
	if (!cat->diags)
		rc = -ENOMEM;
	if (rc == 0)
		rc = freeze_skills(b, frozen);
	if (rc == 0)
		rc = freeze_folders(b, frozen);
	free(frozen);
	if (rc == 0)
		rc = freeze_dirs(b);
	if (rc == 0)
		rc = freeze_spans(b);
	cat->counts.served = cat->nskills;
	count_diags(&cat->counts, cat->diags, cat->ndiags);
	cat->hashed = b->scan.hashed;
	return rc;
}

/* ---- building ----------------------------------------------------------- */

static int init_build(struct build *b, const struct sfs_config *cfg,
                      const sfs_catalog *prev)
{
	sfs_catalog *cat = b->cat;

	b->cfg = cfg;
	b->global.arena = &cat->arena;
	b->scan = (struct sfs_scan){
		.arena = &cat->arena,
		.global = &b->global,
		.max_depth = cfg->max_depth ? cfg->max_depth : DEFAULT_MAX_DEPTH,
		.max_entries = cfg->max_entries ? cfg->max_entries
		                                : DEFAULT_MAX_ENTRIES,
		.max_files = cfg->max_files ? cfg->max_files : DEFAULT_MAX_FILES,
		.cache = &b->cache,
	};

	size_t nprev = 0;
	for (size_t i = 0; prev && i < prev->nspans; i++)
		nprev += prev->spans[i].n;
	int rc = sfs_digest_cache_init(&b->cache, nprev);
	for (size_t i = 0; rc == 0 && prev && i < prev->nspans; i++)
		for (size_t j = 0; j < prev->spans[i].n; j++)
			sfs_digest_cache_add(&b->cache, &prev->spans[i].v[j]);
	if (rc < 0)
		return rc;

	cat->nroots = cfg->nroots;
	cat->roots = sfs_arena_alloc(&cat->arena,
	                             cfg->nroots * sizeof(*cat->roots));
	cat->root_exists = sfs_arena_alloc(&cat->arena,
	                                   cfg->nroots * sizeof(bool));
	cat->root_served = sfs_arena_alloc(&cat->arena,
	                                   cfg->nroots * sizeof(size_t));
	if (!cat->roots || !cat->root_exists || !cat->root_served)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nroots; i++) {
		cat->roots[i] = sfs_arena_strdup(&cat->arena, cfg->roots[i]);
		if (!cat->roots[i])
			return -ENOMEM;
	}
	return 0;
}

static int scan_roots(struct build *b)
{
	sfs_catalog *cat = b->cat;

	for (size_t i = 0; i < cat->nroots; i++) {
		int rc = sfs_scan_root(&b->scan, cat->roots[i], (unsigned)i,
		                       &cat->root_exists[i]);
		if (rc < 0)
			return rc;
	}
	sfs_scan_select(&b->scan, b->cfg);
	b->n = b->scan.nfound;
	b->c = calloc(b->n ? b->n : 1, sizeof(*b->c));
	if (!b->c)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		b->c[i].found = &b->scan.found[i];
		b->c[i].diags.arena = &cat->arena;
	}
	return mark_duplicates(b);
}

/* Each folder on its own, then --strict, then the checks across skills. */
static int check_all(struct build *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (c->duplicate)
			continue;
		int rc = check_folder(b, c);
		if (rc < 0)
			return rc;
		if (b->cfg->strict)
			sfs_diag_promote_warnings(&c->diags);
		if (!has_error(&c->diags) && !c->id)
			rc = sfs_diag_add(&c->diags, SFS_ERROR, c->skill_md_path,
			                  0, 0, "name", "no usable name");
		if (rc < 0)
			return rc;
		c->state = has_error(&c->diags) ? SFS_INVALID : 0;
	}
	if (b->cfg->strict)
		sfs_diag_promote_warnings(&b->global);
	int rc = resolve_shadowing(b);
	if (rc == 0)
		rc = check_dependencies(b);
	return rc;
}

static void end_build(struct build *b)
{
	for (size_t i = 0; b->c && i < b->n; i++) {
		sfs_diag_list_free(&b->c[i].diags);
		if (b->c[i].parsed)
			sfs_frontmatter_free(&b->c[i].fm);
	}
	free(b->c);
	sfs_scan_free(&b->scan);
	sfs_digest_cache_free(&b->cache);
	sfs_diag_list_free(&b->global);
}

static void destroy(sfs_catalog *cat)
{
	for (size_t i = 0; i < cat->njson; i++)
		cJSON_Delete(cat->json[i]);
	sfs_arena_free(&cat->arena);
	free(cat);
}

int sfs_catalog_build(const struct sfs_config *cfg, const sfs_catalog *prev,
                      sfs_catalog **out)
{
	struct build b = { 0 };

	*out = NULL;
	b.cat = calloc(1, sizeof(*b.cat));
	if (!b.cat)
		return -ENOMEM;
	atomic_init(&b.cat->refs, 1);

	int rc = init_build(&b, cfg, prev);
	if (rc == 0)
		rc = scan_roots(&b);
	if (rc == 0 && cfg->docs_dir)
		rc = sfs_scan_docs(&b.scan, cfg->docs_dir, (unsigned)cfg->nroots,
		                   &b.cat->docs);
	if (rc == 0)
		rc = check_all(&b);
	if (rc == 0)
		rc = freeze(&b);
	end_build(&b);
	if (rc < 0) {
		destroy(b.cat);
		return rc;
	}
	*out = b.cat;
	return 0;
}

/* ---- sharing and reading ------------------------------------------------ */

sfs_catalog *sfs_catalog_ref(sfs_catalog *cat)
{
	if (cat)
		atomic_fetch_add_explicit(&cat->refs, 1, memory_order_relaxed);
	return cat;
}

void sfs_catalog_unref(sfs_catalog *cat)
{
	/* acq_rel: every reader's last access happens before the free. */
	if (cat && atomic_fetch_sub_explicit(&cat->refs, 1,
	                                     memory_order_acq_rel) == 1)
		destroy(cat);
}

size_t sfs_catalog_nskills(const sfs_catalog *cat)
{
	return cat->nskills;
}

const struct sfs_skill *sfs_catalog_skill(const sfs_catalog *cat, size_t i)
{
	return i < cat->nskills ? &cat->skills[i] : NULL;
}

static int cmp_skill_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct sfs_skill *)elem)->id);
}

const struct sfs_skill *sfs_catalog_find(const sfs_catalog *cat,
                                         const char *id)
{
	if (!id)
		return NULL;
	return bsearch(id, cat->skills, cat->nskills, sizeof(*cat->skills),
	               cmp_skill_key);
}

const struct sfs_unserved *sfs_catalog_unserved(const sfs_catalog *cat,
                                                size_t *n)
{
	*n = cat->nunserved;
	return cat->unserved;
}

const struct sfs_diag *sfs_catalog_diags(const sfs_catalog *cat, size_t *n)
{
	*n = cat->ndiags;
	return cat->diags;
}

size_t sfs_catalog_nroots(const sfs_catalog *cat)
{
	return cat->nroots;
}

const char *sfs_catalog_root(const sfs_catalog *cat, size_t i)
{
	return i < cat->nroots ? cat->roots[i] : NULL;
}

const char *const *sfs_catalog_dirs(const sfs_catalog *cat, size_t *n)
{
	*n = cat->ndirs;
	return cat->dirs;
}

struct sfs_counts sfs_catalog_counts(const sfs_catalog *cat)
{
	return cat->counts;
}

size_t sfs_catalog_hashed(const sfs_catalog *cat)
{
	return cat->hashed;
}

void sfs_catalog_each_diag(const sfs_catalog *cat, sfs_diag_fn fn, void *arg)
{
	for (size_t i = 0; i < cat->ndiags; i++)
		fn(&cat->diags[i], arg);
	for (size_t i = 0; i < cat->nfolders; i++)
		for (size_t j = 0; j < cat->folders[i].ndiags; j++)
			fn(&cat->folders[i].diags[j], arg);
}
