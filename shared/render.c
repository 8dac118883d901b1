/*
 * render.c - the JSON documents made from a catalog: index.json,
 * catalog/skills_index.json, catalog/<id>.json, status.json, and the
 * findings of `skillsfs check --json`.  Each is deterministic: the catalog
 * is sorted, and keys are added in a fixed order.
 *
 * The documents with one part per skill (the line documents and the
 * records) are written as text directly, in exactly cJSON's layout; the
 * others are built as cJSON trees.  Every cJSON call may fail for lack of
 * memory; the builders note a failure in a flag instead of checking each
 * call, and the renderers return NULL when it is set.
 */
#include <errno.h>
#include <limits.h>
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

/*
 * The line documents are written directly, without a cJSON tree per
 * skill: at 10,000 skills the trees cost more than everything else in a
 * refresh.  The bytes are cJSON's own (cJSON_PrintUnformatted): strings
 * escaped as print_string_ptr does, arrays and objects without spaces,
 * the frontmatter printed by cJSON itself.
 */

struct text {
	char *p;
	size_t n, cap;
	bool oom;
};

/* Room for `len` more bytes and a NUL. */
static bool reserve(struct text *t, size_t len)
{
	if (t->oom)
		return false;
	if (t->n + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->n + len + 1)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (!p) {
			t->oom = true;
			return false;
		}
		t->p = p;
		t->cap = cap;
	}
	return true;
}

static void append_n(struct text *t, const char *s, size_t len)
{
	if (!reserve(t, len))
		return;
	memcpy(t->p + t->n, s, len);
	t->n += len;
	t->p[t->n] = '\0';
}

static void append(struct text *t, const char *s)
{
	append_n(t, s, strlen(s));
}

/* A string literal, without measuring it. */
#define APPEND(t, lit) append_n((t), "" lit, sizeof(lit) - 1)

/* The two-letter escape of c, or 0 when it has none. */
static char short_escape(unsigned char c)
{
	switch (c) {
	case '"': return '"';
	case '\\': return '\\';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	default: return 0;
	}
}

/* Whether c ends a run of bytes copied as they are: the NUL, and what
 * cJSON escapes (one table lookup per byte; this loop is most of the
 * rendering). */
static bool needs_escape(unsigned char c)
{
	static const uint32_t below_0x60[3] = {
		0xffffffff,                 /* 0x00-0x1f */
		1u << ('"' - 0x20),         /* 0x20-0x3f */
		1u << ('\\' - 0x40),        /* 0x40-0x5f */
	};
	return c < 0x60 && (below_0x60[c >> 5] >> (c & 31) & 1);
}

/* The inside of a JSON string, escaped as cJSON escapes: the two-letter
 * escapes, other bytes below 0x20 as \u00xx, everything else as is. */
static void append_escaped(struct text *t, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;

	for (;;) {
		size_t plain = 0;
		while (!needs_escape(u[plain]))
			plain++;
		append_n(t, (const char *)u, plain);
		u += plain;
		if (!*u || !reserve(t, 6))
			return;
		char *o = t->p + t->n;
		char e = short_escape(*u);
		o[0] = '\\';
		if (e) {
			o[1] = e;
			t->n += 2;
		} else {
			memcpy(o + 1, "u00", 3);
			o[4] = hex[*u >> 4];
			o[5] = hex[*u & 0xf];
			t->n += 6;
		}
		t->p[t->n] = '\0';
		u++;
	}
}

static void append_string(struct text *t, const char *s)
{
	if (!s) {
		APPEND(t, "null");
		return;
	}
	APPEND(t, "\"");
	append_escaped(t, s);
	APPEND(t, "\"");
}

static void append_strings(struct text *t, const char *const *v, size_t n)
{
	APPEND(t, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			APPEND(t, ",");
		append_string(t, v[i]);
	}
	APPEND(t, "]");
}

/* A number as cJSON prints it: "%d" while it fits an int, cJSON's own
 * printing beyond. */
static void append_number(struct text *t, double v)
{
	char buf[64];

	if (v >= 0 && v <= INT_MAX && v == (double)(int)v) {
		snprintf(buf, sizeof(buf), "%d", (int)v);
	} else {
		cJSON *n = cJSON_CreateNumber(v);
		bool ok = n && cJSON_PrintPreallocated(n, buf, sizeof(buf),
		                                       false);
		cJSON_Delete(n);
		if (!ok) {
			t->oom = true;
			return;
		}
	}
	append(t, buf);
}

/* An object printed by cJSON, into a scratch buffer that grows. */
static void append_json(struct text *t, const cJSON *item, char **scratch,
                        size_t *size)
{
	for (;;) {
		if (*size >= INT_MAX / 2) {
			t->oom = true;
			return;
		}
		if (*scratch && cJSON_PrintPreallocated((cJSON *)item, *scratch,
		                                        (int)*size, false)) {
			append(t, *scratch);
			return;
		}
		size_t want = *size ? *size * 2 : 4096;
		char *p = realloc(*scratch, want);
		if (!p) {
			t->oom = true;
			return;
		}
		*scratch = p;
		*size = want;
	}
}

/* The document, or NULL when out of memory; no more memory than it
 * needs. */
static char *finish(struct text *t)
{
	if (t->oom) {
		free(t->p);
		return NULL;
	}
	char *p = realloc(t->p, t->n + 1);
	return p ? p : t->p;
}

/* Files with content: regular files and in-skill links to them. */
static bool has_content(const struct sfs_file *f)
{
	return S_ISREG(f->mode) || (S_ISLNK(f->mode) && f->hashed);
}

/* {"uri":"skill://<id>/<path>","digest":"sha256:...","size":N} */
static void append_resource(struct text *t, const struct sfs_skill *s,
                            const struct sfs_file *f)
{
	char hex[SFS_DIGEST_LEN];

	APPEND(t, "{\"uri\":\"skill://");
	append_escaped(t, s->id);
	APPEND(t, "/");
	append_escaped(t, f->path);
	sfs_format_digest(f->sha256, hex);
	APPEND(t, "\",\"digest\":\"");
	append(t, hex);
	APPEND(t, "\",\"size\":");
	append_number(t, (double)f->size);
	APPEND(t, "}");
}

static void index_entry(struct text *t, const struct sfs_skill *s,
                        char **scratch, size_t *size)
{
	APPEND(t, "{\"uri\":\"skill://");
	append_escaped(t, s->id);
	APPEND(t, "/SKILL.md\",\"frontmatter\":");
	append_json(t, s->frontmatter, scratch, size);
	APPEND(t, ",\"resources\":[");
	append_resource(t, s, &s->files[s->skill_md]);
	for (size_t i = 0; i < s->nfiles; i++) {
		if (i == s->skill_md || !has_content(&s->files[i]))
			continue;
		APPEND(t, ",");
		append_resource(t, s, &s->files[i]);
	}
	APPEND(t, "]}");
}

static void skills_index_entry(struct text *t, const struct sfs_skill *s,
                               char **scratch, size_t *size)
{
	(void)scratch;
	(void)size;
	APPEND(t, "{\"id\":");
	append_string(t, s->id);
	APPEND(t, ",\"name\":");
	append_string(t, s->id);
	APPEND(t, ",\"description\":");
	append_string(t, s->description);
	APPEND(t, ",\"tags\":");
	append_strings(t, s->tags, s->ntags);
	APPEND(t, ",\"capabilities\":");
	append_strings(t, s->capabilities, s->ncapabilities);
	APPEND(t, ",\"version\":");
	append_string(t, s->version);
	APPEND(t, "}");
}

typedef void (*entry_fn)(struct text *t, const struct sfs_skill *s,
                         char **scratch, size_t *size);

/* The line a skill kept (sfs_config.keep_lines), or an empty span. */
static struct sfs_span kept(const struct sfs_skill *s, bool skills_index)
{
	return skills_index ? s->skills_index_line : s->index_line;
}

/* {"skills":[ NL entry,NL ... entry NL ]} NL */
static char *render_lines(const sfs_catalog *cat, bool skills_index)
{
	entry_fn entry = skills_index ? skills_index_entry : index_entry;
	struct text t = { 0 };
	char *scratch = NULL;
	size_t size = 0;

	APPEND(&t, "{\"skills\":[\n");
	for (size_t i = 0; i < cat->nskills && !t.oom; i++) {
		struct sfs_span line = kept(cat->skills[i], skills_index);
		if (line.p)
			append_n(&t, line.p, line.len);
		else
			entry(&t, cat->skills[i], &scratch, &size);
		append(&t, i + 1 < cat->nskills ? ",\n" : "\n");
	}
	APPEND(&t, "]}\n");
	free(scratch);
	return finish(&t);
}

char *sfs_render_index(const sfs_catalog *cat)
{
	return render_lines(cat, false);
}

char *sfs_render_skills_index(const sfs_catalog *cat)
{
	return render_lines(cat, true);
}

void sfs_buf_free(struct sfs_buf *b)
{
	free(b->p);
	free(b->scratch);
	memset(b, 0, sizeof(*b));
}

int sfs_render_lines(const struct sfs_skill *s, struct sfs_buf *b,
                     size_t *index_len, size_t *skills_len)
{
	struct text t = { .p = b->p, .cap = b->cap };

	index_entry(&t, s, &b->scratch, &b->scratch_cap);
	*index_len = t.n;
	skills_index_entry(&t, s, &b->scratch, &b->scratch_cap);
	*skills_len = t.n - *index_len;
	b->p = t.p;
	b->cap = t.cap;
	return t.oom ? -ENOMEM : 0;
}

/* ---- the line documents in place ---------------------------------------- */

static const char lines_head[] = "{\"skills\":[\n", lines_tail[] = "]}\n";

struct sfs_lines_doc {
	const sfs_catalog *cat;
	bool skills_index;
	size_t *end;      /* per skill: where its line and what follows it
	                     (",\n" or "\n") end, after the head */
	size_t size;
};

sfs_lines_doc *sfs_lines_doc_new(const sfs_catalog *cat, bool skills_index)
{
	sfs_lines_doc *d = calloc(1, sizeof(*d));
	size_t at = sizeof(lines_head) - 1;

	if (!d)
		return NULL;
	d->cat = cat;
	d->skills_index = skills_index;
	d->end = malloc((cat->nskills ? cat->nskills : 1) * sizeof(*d->end));
	for (size_t i = 0; d->end && i < cat->nskills; i++) {
		struct sfs_span line = kept(cat->skills[i], skills_index);
		if (!line.p) {
			free(d->end);
			d->end = NULL;
			break;
		}
		at += line.len + (i + 1 < cat->nskills ? 2 : 1);
		d->end[i] = at;
	}
	if (!d->end) {
		free(d);
		return NULL;
	}
	d->size = at + sizeof(lines_tail) - 1;
	return d;
}

void sfs_lines_doc_free(sfs_lines_doc *d)
{
	if (d)
		free(d->end);
	free(d);
}

size_t sfs_lines_doc_size(const sfs_lines_doc *d)
{
	return d->size;
}

/* Copies what of [from, from + len) falls in [off, off + size). */
static void copy_part(const char *from, size_t at, size_t len, size_t off,
                      size_t size, char *out)
{
	size_t lo = at > off ? at : off;
	size_t hi = at + len < off + size ? at + len : off + size;
	if (lo < hi)
		memcpy(out + (lo - off), from + (lo - at), hi - lo);
}

void sfs_lines_doc_read(const sfs_lines_doc *d, size_t off, size_t size,
                        char *out)
{
	const sfs_catalog *cat = d->cat;
	size_t head = sizeof(lines_head) - 1, n = cat->nskills;

	copy_part(lines_head, 0, head, off, size, out);
	/* the first skill whose part ends after off */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->end[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n; i++) {
		size_t at = i ? d->end[i - 1] : head;
		if (at >= off + size)
			break;
		struct sfs_span line = kept(cat->skills[i], d->skills_index);
		copy_part(line.p, at, line.len, off, size, out);
		copy_part(i + 1 < n ? ",\n" : "\n", at + line.len,
		          d->end[i] - at - line.len, off, size, out);
	}
	size_t tail = n ? d->end[n - 1] : head;
	copy_part(lines_tail, tail, sizeof(lines_tail) - 1, off, size, out);
}

bool sfs_lines_doc_same(const sfs_lines_doc *a, const sfs_lines_doc *b)
{
	if (a->size != b->size || a->skills_index != b->skills_index ||
	    a->cat->nskills != b->cat->nskills)
		return false;
	for (size_t i = 0; i < a->cat->nskills; i++) {
		struct sfs_span x = kept(a->cat->skills[i], a->skills_index);
		struct sfs_span y = kept(b->cat->skills[i], b->skills_index);
		if (x.p != y.p || x.len != y.len)
			return false;
	}
	return true;
}

/* ---- one skill's record ------------------------------------------------- */

/*
 * Written directly too, in cJSON_Print's layout: one member per line,
 * indented with tabs, "key":<tab>value, arrays on one line with ", ".
 */

static void tabs(struct text *t, int depth)
{
	static const char many[] = "\t\t\t\t";
	append_n(t, many, (size_t)depth);
}

static void key(struct text *t, int depth, const char *k)
{
	tabs(t, depth);
	APPEND(t, "\"");
	append_escaped(t, k);
	APPEND(t, "\":\t");
}

/* After a member: a comma unless it is the last. */
static void next(struct text *t, bool last)
{
	if (last)
		APPEND(t, "\n");
	else
		APPEND(t, ",\n");
}

static void pretty_strings(struct text *t, const char *const *v, size_t n)
{
	APPEND(t, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			APPEND(t, ", ");
		append_string(t, v[i]);
	}
	APPEND(t, "]");
}

static void record_document(struct text *t, const struct sfs_skill *s)
{
	APPEND(t, "{\n");
	key(t, 2, "uri");
	APPEND(t, "\"resource://skills/");
	append_escaped(t, s->id);
	APPEND(t, "/document\"");
	next(t, false);
	key(t, 2, "path");
	APPEND(t, "\"SKILL.md\"");
	next(t, false);
	key(t, 2, "skill_uri");
	APPEND(t, "\"skill://");
	append_escaped(t, s->id);
	APPEND(t, "/SKILL.md\"");
	next(t, true);
	tabs(t, 1);
	APPEND(t, "}");
}

static void record_references(struct text *t, const struct sfs_skill *s)
{
	APPEND(t, "{\n");
	for (size_t i = 0; i < s->nrefs; i++) {
		const struct sfs_ref *r = &s->refs[i];
		key(t, 2, r->id);
		APPEND(t, "{\n");
		key(t, 3, "path");
		append_string(t, r->path);
		next(t, false);
		key(t, 3, "uri");
		APPEND(t, "\"resource://skills/");
		append_escaped(t, s->id);
		APPEND(t, "/references/");
		append_escaped(t, r->id);
		APPEND(t, "\"");
		next(t, false);
		key(t, 3, "title");
		append_string(t, r->title);
		next(t, false);
		key(t, 3, "mime_type");
		append_string(t, r->mime_type ? r->mime_type : "text/markdown");
		next(t, true);
		tabs(t, 2);
		APPEND(t, "}");
		next(t, i + 1 == s->nrefs);
	}
	tabs(t, 1);
	APPEND(t, "}");
}

static void record(struct text *t, const sfs_catalog *cat,
                   const struct sfs_skill *s)
{
	char hex[SFS_DIGEST_LEN];

	APPEND(t, "{\n");
	key(t, 1, "id");
	append_string(t, s->id);
	next(t, false);
	key(t, 1, "name");
	append_string(t, s->id);
	next(t, false);
	key(t, 1, "description");
	append_string(t, s->description);
	next(t, false);
	key(t, 1, "version");
	append_string(t, s->version);
	next(t, false);
	key(t, 1, "tags");
	pretty_strings(t, s->tags, s->ntags);
	next(t, false);
	key(t, 1, "capabilities");
	pretty_strings(t, s->capabilities, s->ncapabilities);
	next(t, false);
	key(t, 1, "depends_on");
	pretty_strings(t, s->depends_on, s->ndepends_on);
	next(t, false);
	key(t, 1, "document");
	record_document(t, s);
	next(t, false);
	key(t, 1, "references");
	record_references(t, s);
	next(t, false);
	key(t, 1, "root");
	append_string(t, sfs_catalog_root(cat, s->root));
	next(t, false);
	key(t, 1, "source");
	append_string(t, s->dir);
	next(t, false);
	key(t, 1, "digest");
	sfs_format_digest(s->files[s->skill_md].sha256, hex);
	append_string(t, hex);
	next(t, true);
	APPEND(t, "}\n");
}

char *sfs_render_skill_record(const sfs_catalog *cat,
                              const struct sfs_skill *s)
{
	struct text t = { 0 };

	record(&t, cat, s);
	return finish(&t);
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
