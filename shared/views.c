/*
 * views.c - fills the views of views.h from a catalog: for each, the
 * skills it admits, in its order, until the agent's listing would pass
 * 90% of its budget, and the text of its find-skills.
 *
 * The order: pins first, as given, so that what a team or a project
 * names is always there; then the other admitted skills by what their
 * entry costs, cheapest first, then by id.  Cheapest first lists the
 * most skills with their descriptions in the budget: every skill left
 * out is one search away through find-skills, but a skill the agent
 * lists is found with no step at all.  The order depends on nothing but
 * the catalog, so a view is the same at every build of the same skills.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "grow.h"
#include "internal.h"
#include "views.h"

/* What a view may spend: 90% of the budget, room for the listing's own
 * lines and for an agent's count that differs a little from ours. */
#define FILL_PERCENT 90

/* Characters of UTF-8 text: its bytes but continuation bytes. */
static size_t chars(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Per skill of the catalog, the characters of its description and of
 * its when_to_use, counted once for every view (they were a third of a
 * 10,000-skill generation's tree build, counted per view). */
struct sizes {
	size_t *desc;
	size_t *when;
};

static size_t when_to_use_chars(const struct sfs_skill *s)
{
	size_t n = 0;

	/* the frontmatter is parsed only when it may hold the key */
	if (!s->frontmatter_json.p ||
	    !strstr(s->frontmatter_json.p, "\"when_to_use\""))
		return 0;
	cJSON *fm = cJSON_ParseWithLength(s->frontmatter_json.p,
	                                  s->frontmatter_json.len);
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(fm, "when_to_use");
	if (cJSON_IsString(w))
		n = chars(w->valuestring);
	cJSON_Delete(fm);
	return n;
}

static int sizes_count(struct sizes *z, const sfs_catalog *cat)
{
	size_t n = sfs_catalog_nskills(cat);

	z->desc = malloc((n ? n : 1) * sizeof(*z->desc));
	z->when = malloc((n ? n : 1) * sizeof(*z->when));
	if (!z->desc || !z->when)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		z->desc[i] = chars(s->description);
		z->when[i] = when_to_use_chars(s);
	}
	return 0;
}

/* The characters of skill i's text the agent lists: its description,
 * and for an agent that lists it too, its when_to_use (Claude Code). */
static size_t listed_chars(const struct sfs_profile *p,
                           const struct sizes *z, size_t i)
{
	return z->desc[i] + (p->lists_when_to_use ? z->when[i] : 0);
}

/* What one entry of the agent's listing costs: text is what
 * listed_chars counts. */
static size_t entry_cost(const struct sfs_profile *p, const char *mount,
                         const char *view, const char *id, size_t text)
{
	size_t idlen = strlen(id);   /* ASCII, by the name rule */
	size_t cost = p->entry_extra + idlen + text;

	if (p->lists_path)   /* MOUNT/views/VIEW/ID/SKILL.md */
		cost += chars(mount) + strlen("/views//") + strlen(view) +
		        idlen + strlen("/SKILL.md");
	return cost;
}

/* ---- find-skills --------------------------------------------------------- */

static char *find_skills_description(size_t more)
{
	char *s = NULL;

	if (asprintf(&s, "Search the %zu more skills of the catalog. Use "
	             "when no listed skill fits the task.", more) < 0)
		return NULL;
	return s;
}

static char *find_skills_text(size_t more, const char *mount)
{
	char *desc = find_skills_description(more), *s = NULL;
	char *dir = sfs_mount_path(mount, SFS_MOUNT_SEARCH);
	int rc = -1;

	if (desc && dir)
		rc = asprintf(&s,
"---\n"
"name: " SFS_FIND_SKILLS "\n"
"description: %s\n"
"---\n"
"\n"
"# Find a skill\n"
"\n"
"Besides the skills listed to you, the catalog has %zu more. When none of\n"
"the listed skills fits the task, search the catalog by reading one file\n"
"whose name is a few words about the task:\n"
"\n"
"    cat \"%s/<words>\"\n"
"\n"
"for example `cat \"%s/fill pdf form\"`. Any tool that reads a file will\n"
"do. Each line of the file is one match, best first: the skill's id, its\n"
"description and the absolute path of its SKILL.md, separated by tabs.\n"
"\n"
"Pick the match that fits, read its SKILL.md at that path and follow it;\n"
"the skill's other files are in the same folder. When nothing fits, try\n"
"other words (a synonym, the file type, the tool's name). The file is\n"
"empty when no skill matches any of the words.\n",
		              desc, more, dir, dir);
	free(desc);
	free(dir);
	return rc < 0 ? NULL : s;
}

/* ---- admitting and ordering ---------------------------------------------- */

/* Why the agent would not list skill i as it is, or NULL. */
static const char *refusal(const struct sfs_profile *p,
                           const struct sizes *z, size_t i)
{
	if (!p->per_skill || listed_chars(p, z, i) <= p->per_skill)
		return NULL;
	return p->refuses_long ?
	       "description longer than the agent loads: it would refuse "
	       "the skill" :
	       "description longer than the agent lists whole: it would "
	       "cut it";
}

struct cand {
	size_t cost;
	uint32_t skill;
};

/* By cost, then by id: the catalog's order is the ids'. */
static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	return x->skill < y->skill ? -1 : x->skill > y->skill;
}

/* ---- one view ------------------------------------------------------------ */

/* What every view is filled from. */
struct from {
	const sfs_catalog *cat;
	const char *mount;
	struct sizes z;
};

struct filling {
	struct sfs_view *v;
	size_t limit;
	const sfs_catalog *cat;
	const char *mount;
	const struct sizes *z;
};

static int add_out(struct sfs_view *v, const char *id, const char *why)
{
	struct sfs_view_out *o = sfs_append(&v->out, &v->nout, sizeof(*o));

	if (!o)
		return -ENOMEM;
	*o = (struct sfs_view_out){ id, why };
	return 0;
}

/* Adds the skill when it fits; counts it over budget when not. */
static void take(struct filling *f, uint32_t i, size_t cost)
{
	if (f->v->spend + cost > f->limit) {
		f->v->over_budget++;
		return;
	}
	f->v->spend += cost;
	f->v->skills[f->v->nskills++] = i;
}

static int take_pins(struct filling *f, const struct sfs_view_def *d)
{
	struct sfs_view *v = f->v;

	for (size_t k = 0; d && k < d->npins; k++) {
		long i = sfs_catalog_index(f->cat, d->pins[k]);
		const struct sfs_skill *s = i < 0 ? NULL :
		                            sfs_catalog_skill(f->cat, (size_t)i);
		if (s && sfs_catalog_private(f->cat, s->dir))
			s = NULL;   /* as if absent: its id stays private */
		const char *why = s ? refusal(&v->profile, f->z, (size_t)i) :
		                  "pinned, but not in the catalog";
		bool twice = false;
		for (size_t j = 0; j < k; j++)
			twice |= strcmp(d->pins[j], d->pins[k]) == 0;
		if (twice)
			continue;
		if (why) {
			if (add_out(v, d->pins[k], why) < 0)
				return -ENOMEM;
			continue;
		}
		size_t before = v->over_budget;
		take(f, (uint32_t)i, entry_cost(&v->profile, f->mount, v->name,
		                                s->id, listed_chars(&v->profile,
		                                                    f->z,
		                                                    (size_t)i)));
		if (v->over_budget != before &&
		    add_out(v, s->id, "pinned, but over the budget") < 0)
			return -ENOMEM;
	}
	return 0;
}

static int take_rest(struct filling *f, const struct sfs_view_def *d)
{
	struct sfs_view *v = f->v;
	size_t n = sfs_catalog_nskills(f->cat), nc = 0;
	struct cand *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(f->cat, i);
		if (sfs_view_def_pin(d, s->id) >= 0 ||
		    sfs_catalog_private(f->cat, s->dir))
			continue;   /* private: shared views list it nowhere */
		if (!sfs_view_def_admits(d, s->id)) {
			v->excluded++;
			continue;
		}
		const char *why = refusal(&v->profile, f->z, i);
		if (why) {
			if (add_out(v, s->id, why) < 0) {
				free(c);
				return -ENOMEM;
			}
			continue;
		}
		c[nc++] = (struct cand){
			entry_cost(&v->profile, f->mount, v->name, s->id,
			           listed_chars(&v->profile, f->z, i)), (uint32_t)i };
	}
	qsort(c, nc, sizeof(*c), cmp_cand);
	for (size_t k = 0; k < nc; k++)
		take(f, c[k].skill, c[k].cost);
	free(c);
	return 0;
}

static int fill_view(struct sfs_view *v, const struct sfs_view_def *d,
                     const struct from *src)
{
	const sfs_catalog *cat = src->cat;
	const char *mount = src->mount;
	size_t n = sfs_catalog_nskills(cat);
	struct filling f = { v, v->profile.budget / 100 * FILL_PERCENT +
	                        v->profile.budget % 100 * FILL_PERCENT / 100,
	                     cat, mount, &src->z };

	v->skills = malloc((n ? n : 1) * sizeof(*v->skills));
	char *desc = find_skills_description(n);   /* the most it says */
	if (!v->skills || !desc) {
		free(desc);
		return -ENOMEM;
	}
	/* find-skills first: without it the rest is out of reach */
	v->spend = entry_cost(&v->profile, mount, v->name, SFS_FIND_SKILLS,
	                      chars(desc));
	free(desc);
	int rc = take_pins(&f, d);
	if (rc == 0)
		rc = take_rest(&f, d);
	if (rc == 0) {
		v->find_skills = find_skills_text(n - v->nskills, mount);
		if (!v->find_skills)
			rc = -ENOMEM;
	}
	return rc;
}

/* The figures of a def: its profile's, with its own budget and
 * per-skill limit over them. */
static int def_profile(const struct sfs_view_def *d, struct sfs_profile *p)
{
	const struct sfs_profile *base = d->profile ?
	                                 sfs_profile_find(d->profile) : NULL;

	if (d->profile && !base)
		return -EINVAL;
	if (base)
		*p = *base;
	else
		*p = (struct sfs_profile){ .name = NULL, .entry_extra = 4 };
	if (d->budget != SFS_UNSET)
		p->budget = (size_t)d->budget;
	if (d->per_skill != SFS_UNSET)
		p->per_skill = (size_t)d->per_skill;
	return 0;
}

/* ---- all views ----------------------------------------------------------- */

void sfs_views_free(struct sfs_views *vs)
{
	if (!vs)
		return;
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].name);
		free(vs->v[i].skills);
		free(vs->v[i].out);
		free(vs->v[i].find_skills);
	}
	free(vs->v);
	free(vs);
}

static const struct sfs_view_def *def_named(const struct sfs_view_def *defs,
                                            size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return &defs[i];
	return NULL;
}

static int cmp_view(const void *a, const void *b)
{
	return strcmp(((const struct sfs_view *)a)->name,
	              ((const struct sfs_view *)b)->name);
}

/* Adds the view `name` (of def d, or of the built-in profile p). */
static int add_view(struct sfs_views *vs, const char *name,
                    const struct sfs_view_def *d,
                    const struct sfs_profile *p, const struct from *src)
{
	struct sfs_view *v = &vs->v[vs->n];

	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	if (!v->name)
		return -ENOMEM;
	vs->n++;
	if (d) {
		int rc = def_profile(d, &v->profile);
		if (rc < 0)
			return rc;
	} else {
		v->profile = *p;
	}
	return fill_view(v, d, src);
}

int sfs_views_build(const sfs_catalog *cat, const struct sfs_view_def *defs,
                    size_t ndefs, const char *mount, struct sfs_views **out)
{
	size_t np = sfs_profile_count();
	struct sfs_views *vs = calloc(1, sizeof(*vs));
	struct from src = { cat, mount, { NULL, NULL } };
	int rc = 0;

	*out = NULL;
	if (!vs || !(vs->v = calloc(np + ndefs + 1, sizeof(*vs->v)))) {
		free(vs);
		return -ENOMEM;
	}
	rc = sizes_count(&src.z, cat);
	for (size_t i = 0; i < np && rc == 0; i++) {
		const struct sfs_profile *p = sfs_profile_at(i);
		if (!def_named(defs, ndefs, p->name))
			rc = add_view(vs, p->name, NULL, p, &src);
	}
	for (size_t i = 0; i < ndefs && rc == 0; i++)
		if (def_named(defs, ndefs, defs[i].name) == &defs[i])
			rc = add_view(vs, defs[i].name, &defs[i], NULL,
			              &src);
	free(src.z.desc);
	free(src.z.when);
	if (rc < 0) {
		sfs_views_free(vs);
		return rc;
	}
	qsort(vs->v, vs->n, sizeof(*vs->v), cmp_view);
	*out = vs;
	return 0;
}
