/*
 * render.c - the JSON documents made from a catalog: index.json,
 * catalog/skills_index.json, catalog/<id>.json, status.json, and the
 * findings of `skillsfs check --json`.  Each is deterministic: the catalog
 * is sorted, and keys are added in a fixed order.
 *
 * Every cJSON call may fail for lack of memory; the builders below note a
 * failure in a flag instead of checking each call, and the renderers
 * return NULL when it is set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "snapshot.h"

/* ---- building JSON ------------------------------------------------------ */

struct json {
	bool oom;
};

static cJSON *checked(struct json *j, cJSON *item)
{
	if (!item)
		j->oom = true;
	return item;
}

static void add(struct json *j, cJSON *obj, const char *key, cJSON *item)
{
	if (!item || !obj || !cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		j->oom = true;
	}
}

static void push(struct json *j, cJSON *arr, cJSON *item)
{
	if (!item || !arr || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		j->oom = true;
	}
}

/* A string, or null for NULL. */
static cJSON *str(struct json *j, const char *s)
{
	return checked(j, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static cJSON *num(struct json *j, double v)
{
	return checked(j, cJSON_CreateNumber(v));
}

static cJSON *boolean(struct json *j, bool v)
{
	return checked(j, cJSON_CreateBool(v));
}

/* scheme id "/" rest more: "skill://" "pdf-forms" "/" "SKILL.md" "" */
static cJSON *uri(struct json *j, const char *scheme, const char *id,
                  const char *rest, const char *more)
{
	size_t ls = strlen(scheme), li = strlen(id), lr = strlen(rest);
	size_t lm = strlen(more);
	char *s = malloc(ls + li + 1 + lr + lm + 1);
	if (!s) {
		j->oom = true;
		return NULL;
	}
	memcpy(s, scheme, ls);
	memcpy(s + ls, id, li);
	s[ls + li] = '/';
	memcpy(s + ls + li + 1, rest, lr);
	memcpy(s + ls + li + 1 + lr, more, lm + 1);
	cJSON *item = checked(j, cJSON_CreateString(s));
	free(s);
	return item;
}

static cJSON *str_array(struct json *j, const char *const *v, size_t n)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; arr && i < n; i++)
		push(j, arr, str(j, v[i]));
	return arr;
}

static cJSON *digest(struct json *j, const uint8_t sha256[32])
{
	char hex[SFS_DIGEST_LEN];
	sfs_format_digest(sha256, hex);
	return str(j, hex);
}

/* Prints and frees item; with a trailing newline when `nl`.  NULL when
 * any step ran out of memory. */
static char *print(struct json *j, cJSON *item, bool pretty, bool nl)
{
	char *text = NULL;
	if (!j->oom && item)
		text = pretty ? cJSON_Print(item) : cJSON_PrintUnformatted(item);
	cJSON_Delete(item);
	if (!text || !nl)
		return text;
	size_t n = strlen(text);
	char *out = realloc(text, n + 2);
	if (!out) {
		free(text);
		return NULL;
	}
	out[n] = '\n';
	out[n + 1] = '\0';
	return out;
}

/* ---- one skill per line ------------------------------------------------- */

struct text {
	char *p;
	size_t n, cap;
	bool oom;
};

static void append(struct text *t, const char *s)
{
	size_t len = strlen(s);
	if (t->oom)
		return;
	if (t->n + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->n + len + 1)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (!p) {
			t->oom = true;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->n, s, len + 1);
	t->n += len;
}

typedef cJSON *(*entry_fn)(struct json *j, const struct sfs_skill *s);

/* {"skills":[ NL entry,NL ... entry NL ]} NL */
static char *render_lines(const sfs_catalog *cat, entry_fn entry)
{
	struct text t = { 0 };

	append(&t, "{\"skills\":[\n");
	for (size_t i = 0; i < cat->nskills && !t.oom; i++) {
		struct json j = { 0 };
		char *line = print(&j, entry(&j, cat->skills[i]), false,
		                   false);
		if (!line) {
			t.oom = true;
			break;
		}
		append(&t, line);
		append(&t, i + 1 < cat->nskills ? ",\n" : "\n");
		free(line);
	}
	append(&t, "]}\n");
	if (t.oom) {
		free(t.p);
		return NULL;
	}
	return t.p;
}

static cJSON *resource(struct json *j, const struct sfs_skill *s,
                       const struct sfs_file *f)
{
	cJSON *r = checked(j, cJSON_CreateObject());
	add(j, r, "uri", uri(j, "skill://", s->id, f->path, ""));
	add(j, r, "digest", digest(j, f->sha256));
	add(j, r, "size", num(j, (double)f->size));
	return r;
}

/* Files with content: regular files and in-skill links to them. */
static bool has_content(const struct sfs_file *f)
{
	return S_ISREG(f->mode) || (S_ISLNK(f->mode) && f->hashed);
}

static cJSON *index_entry(struct json *j, const struct sfs_skill *s)
{
	cJSON *e = checked(j, cJSON_CreateObject());
	add(j, e, "uri", uri(j, "skill://", s->id, "SKILL.md", ""));
	/* A reference to the frontmatter's members (cJSON takes the first
	 * child): the catalog keeps owning them. */
	add(j, e, "frontmatter",
	    checked(j, cJSON_CreateObjectReference(s->frontmatter->child)));
	cJSON *res = checked(j, cJSON_CreateArray());
	push(j, res, resource(j, s, &s->files[s->skill_md]));
	for (size_t i = 0; i < s->nfiles; i++)
		if (i != s->skill_md && has_content(&s->files[i]))
			push(j, res, resource(j, s, &s->files[i]));
	add(j, e, "resources", res);
	return e;
}

char *sfs_render_index(const sfs_catalog *cat)
{
	return render_lines(cat, index_entry);
}

static cJSON *skills_index_entry(struct json *j, const struct sfs_skill *s)
{
	cJSON *e = checked(j, cJSON_CreateObject());
	add(j, e, "id", str(j, s->id));
	add(j, e, "name", str(j, s->id));
	add(j, e, "description", str(j, s->description));
	add(j, e, "tags", str_array(j, s->tags, s->ntags));
	add(j, e, "capabilities",
	    str_array(j, s->capabilities, s->ncapabilities));
	add(j, e, "version", str(j, s->version));
	return e;
}

char *sfs_render_skills_index(const sfs_catalog *cat)
{
	return render_lines(cat, skills_index_entry);
}

/* ---- one skill's record ------------------------------------------------- */

static cJSON *references(struct json *j, const struct sfs_skill *s)
{
	cJSON *refs = checked(j, cJSON_CreateObject());
	for (size_t i = 0; i < s->nrefs; i++) {
		const struct sfs_ref *r = &s->refs[i];
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, "path", str(j, r->path));
		add(j, o, "uri", uri(j, "resource://skills/", s->id,
		                     "references/", r->id));
		add(j, o, "title", str(j, r->title));
		add(j, o, "mime_type",
		    str(j, r->mime_type ? r->mime_type : "text/markdown"));
		add(j, refs, r->id, o);
	}
	return refs;
}

char *sfs_render_skill_record(const sfs_catalog *cat,
                              const struct sfs_skill *s)
{
	struct json j = { 0 };
	cJSON *rec = checked(&j, cJSON_CreateObject());

	add(&j, rec, "id", str(&j, s->id));
	add(&j, rec, "name", str(&j, s->id));
	add(&j, rec, "description", str(&j, s->description));
	add(&j, rec, "version", str(&j, s->version));
	add(&j, rec, "tags", str_array(&j, s->tags, s->ntags));
	add(&j, rec, "capabilities",
	    str_array(&j, s->capabilities, s->ncapabilities));
	add(&j, rec, "depends_on",
	    str_array(&j, s->depends_on, s->ndepends_on));
	cJSON *doc = checked(&j, cJSON_CreateObject());
	add(&j, doc, "uri", uri(&j, "resource://skills/", s->id,
	                        "document", ""));
	add(&j, doc, "path", str(&j, "SKILL.md"));
	add(&j, doc, "skill_uri", uri(&j, "skill://", s->id, "SKILL.md", ""));
	add(&j, rec, "document", doc);
	add(&j, rec, "references", references(&j, s));
	add(&j, rec, "root", str(&j, sfs_catalog_root(cat, s->root)));
	add(&j, rec, "source", str(&j, s->dir));
	add(&j, rec, "digest", digest(&j, s->files[s->skill_md].sha256));
	return print(&j, rec, true, true);
}

/* ---- findings ----------------------------------------------------------- */

static cJSON *diag_object(struct json *j, const struct sfs_diag *d)
{
	cJSON *o = checked(j, cJSON_CreateObject());
	add(j, o, "severity",
	    str(j, d->severity == SFS_ERROR ? "error" : "warning"));
	add(j, o, "file", str(j, d->file));
	add(j, o, "line", num(j, d->line));
	add(j, o, "column", num(j, d->column));
	add(j, o, "field", str(j, d->field));
	add(j, o, "message", str(j, d->message));
	return o;
}

static cJSON *diag_array(struct json *j, const struct sfs_diag *v, size_t n)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < n; i++)
		push(j, arr, diag_object(j, &v[i]));
	return arr;
}

struct collect {
	struct json *j;
	cJSON *arr;
};

static void collect_diag(const struct sfs_diag *d, void *arg)
{
	struct collect *c = arg;
	push(c->j, c->arr, diag_object(c->j, d));
}

char *sfs_render_findings(const sfs_catalog *cat)
{
	struct json j = { 0 };
	struct collect c = { &j, checked(&j, cJSON_CreateArray()) };
	struct sfs_counts n = cat->counts;
	cJSON *doc = checked(&j, cJSON_CreateObject());

	sfs_catalog_each_diag(cat, collect_diag, &c);
	add(&j, doc, "findings", c.arr);
	cJSON *sum = checked(&j, cJSON_CreateObject());
	add(&j, sum, "skills",
	    num(&j, (double)(n.served + n.invalid + n.shadowed)));
	add(&j, sum, "errors", num(&j, (double)n.errors));
	add(&j, sum, "warnings", num(&j, (double)n.warnings));
	add(&j, sum, "shadowed", num(&j, (double)n.shadowed));
	add(&j, doc, "summary", sum);
	return print(&j, doc, false, true);
}

/* ---- status.json -------------------------------------------------------- */

/* "2026-11-22T10:00:00.123Z" */
static cJSON *timestamp(struct json *j, struct timespec ts)
{
	struct tm tm;
	char buf[64];
	time_t sec = ts.tv_sec;

	if (!gmtime_r(&sec, &tm))
		return str(j, NULL);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03ldZ", ts.tv_nsec / 1000000);
	return str(j, buf);
}

static cJSON *status_roots(struct json *j, const sfs_catalog *cat,
                           const struct sfs_status_info *info)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < cat->nroots; i++) {
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, "path", str(j, cat->roots[i]));
		add(j, o, "source", str(j, info->root_sources ?
		                              info->root_sources[i] : NULL));
		add(j, o, "exists", boolean(j, cat->root_exists[i]));
		add(j, o, "skills", num(j, (double)cat->root_served[i]));
		push(j, arr, o);
	}
	return arr;
}

static cJSON *status_counts(struct json *j, const sfs_catalog *cat)
{
	const struct sfs_counts *n = &cat->counts;
	cJSON *o = checked(j, cJSON_CreateObject());
	add(j, o, "served", num(j, (double)n->served));
	add(j, o, "invalid", num(j, (double)n->invalid));
	add(j, o, "shadowed", num(j, (double)n->shadowed));
	add(j, o, "errors", num(j, (double)n->errors));
	add(j, o, "warnings", num(j, (double)n->warnings));
	return o;
}

static const char *state_name(int state)
{
	if (state == SFS_INVALID)
		return "invalid";
	if (state == SFS_SHADOWED)
		return "shadowed";
	return "served";
}

static cJSON *status_skills(struct json *j, const sfs_catalog *cat)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < cat->nfolders; i++) {
		const struct sfs_folder *f = &cat->folders[i];
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, "dir", str(j, f->dir));
		add(j, o, "id", str(j, f->id));
		add(j, o, "state", str(j, state_name(f->state)));
		if (f->state == SFS_SHADOWED)
			add(j, o, "shadowed_by", str(j, f->shadowed_by));
		add(j, o, "diagnostics", diag_array(j, f->diags, f->ndiags));
		push(j, arr, o);
	}
	return arr;
}

char *sfs_render_status(const sfs_catalog *cat,
                        const struct sfs_status_info *info)
{
	struct json j = { 0 };
	cJSON *doc = checked(&j, cJSON_CreateObject());

	add(&j, doc, "generation", num(&j, (double)info->generation));
	add(&j, doc, "last_refresh", timestamp(&j, info->last_refresh));
	add(&j, doc, "refresh_mode", str(&j, info->refresh_mode));
	add(&j, doc, "roots", status_roots(&j, cat, info));
	add(&j, doc, "counts", status_counts(&j, cat));
	add(&j, doc, "skills", status_skills(&j, cat));
	add(&j, doc, "diagnostics", diag_array(&j, cat->diags, cat->ndiags));
	return print(&j, doc, true, true);
}
