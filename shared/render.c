/*
 * render.c - the JSON documents made from a catalog: index.json,
 * catalog/skills_index.json, catalog/<id>.json, status.json, and the
 * findings of `skillsfs check --json`.  Each is deterministic: the catalog
 * is sorted, and keys are added in a fixed order.
 *
 * The line documents are written as text directly, in exactly cJSON's
 * layout, with the entry heads of the mount contract (contract.h); the
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

#include "buf.h"
#include "contract.h"
#include "snapshot.h"
#include "source.h"
#include "views.h"

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

/* A string the caller keeps alive until the tree is printed (catalog
 * strings), or null for NULL: no copy. */
static cJSON *ref(struct json *j, const char *s)
{
	return checked(j, s ? cJSON_CreateStringReference(s)
	                    : cJSON_CreateNull());
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
 * skill: a mount renders all of index.json's entries at the first read
 * of every generation, and the trees would cost several times the text.
 * (Measured on 10,000 generated skills of 4 files with
 * tests/perf/catalog_bench --records --render-loops 5: catalog records,
 * which are printed through cJSON trees, take 55-73 ms for 10,000;
 * written this way, without their frontmatter, they took 12-14 ms.)
 * The bytes are cJSON's own (cJSON_PrintUnformatted): strings escaped
 * as print_string_ptr does, arrays and objects without spaces, the
 * frontmatter printed by cJSON itself.
 */

static void append_n(struct buf *t, const char *s, size_t len)
{
	buf_add(t, s, len);
}

static void append(struct buf *t, const char *s)
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

/* Whether cJSON escapes c. */
static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\';
}

/* Whether any of the 8 bytes in w needs escaping: the bit tricks that
 * tell a zero byte, on w (below 0x20) and on w with '"' and '\\' taken
 * out. */
static bool needs_escape8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');

	return (((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) |
	        ((slash - ones) & ~slash)) & highs;
}

/* How many of the n bytes at u are copied as they are, 8 at a time while
 * none needs escaping (this scan is most of the rendering). */
static size_t plain_run(const unsigned char *u, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, u + i, sizeof(w));
		if (needs_escape8(w))
			break;
	}
	while (i < n && !needs_escape(u[i]))
		i++;
	return i;
}

/* The inside of a JSON string, escaped as cJSON escapes: the two-letter
 * escapes, other bytes below 0x20 as \u00xx, everything else as is. */
static void append_escaped(struct buf *t, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	for (;;) {
		size_t plain = plain_run(u, n);
		append_n(t, (const char *)u, plain);
		u += plain;
		n -= plain;
		if (!n || !buf_reserve(t, 6))
			return;
		char *o = t->data + t->len;
		char e = short_escape(*u);
		o[0] = '\\';
		if (e) {
			o[1] = e;
			t->len += 2;
		} else {
			memcpy(o + 1, "u00", 3);
			o[4] = hex[*u >> 4];
			o[5] = hex[*u & 0xf];
			t->len += 6;
		}
		t->data[t->len] = '\0';
		u++;
		n--;
	}
}

static void append_string(struct buf *t, const char *s)
{
	if (!s) {
		APPEND(t, "null");
		return;
	}
	APPEND(t, "\"");
	append_escaped(t, s);
	APPEND(t, "\"");
}

static void append_strings(struct buf *t, const char *const *v, size_t n)
{
	APPEND(t, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			APPEND(t, ",");
		append_string(t, v[i]);
	}
	APPEND(t, "]");
}

/* Decimal digits of u, made here: sizes are printed for every file of
 * every skill, and snprintf costs more than the rest of a resource. */
static void append_uint(struct buf *t, unsigned u)
{
	char buf[16], *end = buf + sizeof(buf), *p = end;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	append_n(t, p, (size_t)(end - p));
}

/* A number as cJSON prints it: "%d" while it fits an int, cJSON's own
 * printing beyond. */
static void append_number(struct buf *t, double v)
{
	char buf[64];

	if (v >= 0 && v <= INT_MAX && v == (double)(int)v) {
		append_uint(t, (unsigned)v);
		return;
	}
	cJSON *n = cJSON_CreateNumber(v);
	bool ok = n && cJSON_PrintPreallocated(n, buf, sizeof(buf), false);
	cJSON_Delete(n);
	if (!ok) {
		t->failed = true;
		return;
	}
	append(t, buf);
}

/* The document, or NULL when out of memory; no more memory than it
 * needs. */
static char *finish(struct buf *t)
{
	if (t->failed) {
		free(t->data);
		return NULL;
	}
	char *p = realloc(t->data, t->len + 1);
	return p ? p : t->data;
}

/* The path percent-encoded as every skill:// URI spells it; what
 * sfs_uri_encode writes never needs a JSON escape. */
static void append_uri_path(struct buf *t, const char *path)
{
	size_t n = sfs_uri_encode(path, NULL);

	if (!buf_reserve(t, n))
		return;
	sfs_uri_encode(path, t->data + t->len);
	t->len += n;
}

/* {"uri":"skill://<id>/<path>","digest":"sha256:...","size":N} (the uri
 * member is the index entry's head, SFS_INDEX_ENTRY_HEAD) */
static void append_resource(struct buf *t, const struct sfs_skill *s,
                            const struct sfs_file *f)
{
	char hex[SFS_DIGEST_LEN];

	APPEND(t, SFS_INDEX_ENTRY_HEAD);
	append_escaped(t, s->id);
	APPEND(t, "/");
	append_uri_path(t, f->path);
	sfs_format_digest(f->sha256, hex);
	APPEND(t, "\",\"" SFS_RESOURCE_DIGEST "\":\"");
	append_n(t, hex, SFS_DIGEST_LEN - 1);
	APPEND(t, "\",\"" SFS_RESOURCE_SIZE "\":");
	append_number(t, (double)f->size);
	APPEND(t, "}");
}

/* The entry of index.json; the frontmatter is kept as it shows it. */
static void index_entry(struct buf *t, const struct sfs_skill *s)
{
	APPEND(t, SFS_INDEX_ENTRY_HEAD);
	append_escaped(t, s->id);
	APPEND(t, SFS_INDEX_ENTRY_URI_END "\",\"frontmatter\":");
	append_n(t, s->frontmatter_json.p, s->frontmatter_json.len);
	APPEND(t, ",\"" SFS_INDEX_RESOURCES "\":[");
	append_resource(t, s, &s->files[s->skill_md]);
	for (size_t i = 0; i < s->nfiles; i++) {
		if (i == s->skill_md || !sfs_file_has_content(&s->files[i]))
			continue;
		APPEND(t, ",");
		append_resource(t, s, &s->files[i]);
	}
	APPEND(t, "]}");
}

static void skills_index_entry(struct buf *t, const struct sfs_skill *s)
{
	APPEND(t, SFS_SKILLS_INDEX_ENTRY_HEAD);
	append_string(t, s->id);
	APPEND(t, ",\"" SFS_SKILLS_INDEX_NAME "\":");
	append_string(t, s->id);
	APPEND(t, ",\"" SFS_SKILLS_INDEX_DESCRIPTION "\":");
	append_string(t, s->description);
	APPEND(t, ",\"" SFS_SKILLS_INDEX_TAGS "\":");
	append_strings(t, s->tags, s->ntags);
	APPEND(t, ",\"" SFS_SKILLS_INDEX_CAPABILITIES "\":");
	append_strings(t, s->capabilities, s->ncapabilities);
	APPEND(t, ",\"" SFS_SKILLS_INDEX_VERSION "\":");
	append_string(t, s->version);
	if (s->plugin) {
		APPEND(t, ",\"" SFS_SKILLS_INDEX_PLUGIN "\":");
		append_string(t, s->plugin);
	}
	APPEND(t, "}");
}

typedef void (*entry_fn)(struct buf *t, const struct sfs_skill *s);

/* Whether the skill has an entry in the document: index.json (the
 * skills/list document) leaves out what a conforming client refuses, and
 * both leave out what not every reader may see (sfs_catalog_private). */
static bool in_doc(const sfs_catalog *cat, const struct sfs_skill *s,
                   bool skills_index)
{
	if (sfs_catalog_private(cat, s->dir))
		return false;
	return skills_index || s->nunlisted == 0;
}

/* {"skills":[ NL entry,NL ... entry NL ]} NL */
static char *render_lines(const sfs_catalog *cat, bool skills_index)
{
	entry_fn entry = skills_index ? skills_index_entry : index_entry;
	struct buf t = { 0 };
	bool first = true;

	APPEND(&t, SFS_LINES_HEAD);
	for (size_t i = 0; i < cat->nskills && !t.failed; i++) {
		if (!in_doc(cat, cat->skills[i], skills_index))
			continue;
		if (!first)
			APPEND(&t, ",\n");
		entry(&t, cat->skills[i]);
		first = false;
	}
	if (!first)
		APPEND(&t, "\n");
	APPEND(&t, SFS_LINES_TAIL);
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

/* ---- the line documents in place ---------------------------------------- */

/*
 * A lines doc keeps the length of each skill's entry, not the entry: the
 * entries are mostly what the skill holds anyway (its frontmatter as
 * printed, its files' digests and sizes, its description and tags), and
 * made again in microseconds, on the read that needs them.  The kernel
 * keeps the pages it read, so that is once per generation.
 *
 * The lengths are measured when the doc is made, by making each entry
 * once.  A skill that the catalog took unchanged from the previous one is
 * the same struct, so its entry is the same bytes and its length is taken
 * from the previous doc: a refresh measures only the skills it read again.
 */

static const char lines_head[] = SFS_LINES_HEAD;
static const char lines_tail[] = SFS_LINES_TAIL;

struct sfs_lines_doc {
	const sfs_catalog *cat;
	bool skills_index;
	/* The skills with an entry: the catalog's own array when that is
	 * every skill, else a copy without the unlisted ones (owned). */
	const struct sfs_skill *const *v;
	bool own_v;
	size_t n;
	size_t *end;      /* per entry: where it and what follows it
	                     (",\n" or "\n") end, after the head */
	size_t size;
};

/* The skills with an entry in the document, into d->v and d->n.
 * Returns false when out of memory. */
static bool doc_skills(sfs_lines_doc *d)
{
	const sfs_catalog *cat = d->cat;
	size_t n = 0;

	for (size_t i = 0; i < cat->nskills; i++)
		n += in_doc(cat, cat->skills[i], d->skills_index);
	d->n = n;
	if (n == cat->nskills) {
		d->v = cat->skills;
		return true;
	}
	const struct sfs_skill **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return false;
	for (size_t i = 0, o = 0; i < cat->nskills; i++)
		if (in_doc(cat, cat->skills[i], d->skills_index))
			v[o++] = cat->skills[i];
	d->v = v;
	d->own_v = true;
	return true;
}

/* Skill s's entry, made in t from its start. */
static void make_entry(const sfs_lines_doc *d, const struct sfs_skill *s,
                       struct buf *t)
{
	t->len = 0;
	if (d->skills_index)
		skills_index_entry(t, s);
	else
		index_entry(t, s);
}

static size_t entry_start(const sfs_lines_doc *d, size_t i)
{
	return i ? d->end[i - 1] : sizeof(lines_head) - 1;
}

/* The length of entry i, without the separator after it. */
static size_t entry_len(const sfs_lines_doc *d, size_t i)
{
	return d->end[i] - entry_start(d, i) - (i + 1 < d->n ? 2 : 1);
}

/* The length of s's entry in prev when prev has the very same skill, or
 * 0.  Both docs are sorted by id: *j walks prev along with the caller. */
static size_t prev_len(const sfs_lines_doc *prev, size_t *j,
                       const struct sfs_skill *s)
{
	while (*j < prev->n && strcmp(prev->v[*j]->id, s->id) < 0)
		(*j)++;
	return *j < prev->n && prev->v[*j] == s ? entry_len(prev, *j) : 0;
}

/* Measured with tests/perf/catalog_bench.c --lines on 10,000 skills
 * (index.json, 9 MB): a doc made anew takes about 9 ms, as long as the
 * rendering; one made with the previous doc after a rebuild that read one
 * skill again, 0.5 ms. */
sfs_lines_doc *sfs_lines_doc_new(const sfs_catalog *cat, bool skills_index,
                                 const sfs_lines_doc *prev)
{
	sfs_lines_doc *d = calloc(1, sizeof(*d));
	size_t at = sizeof(lines_head) - 1, j = 0;
	struct buf t = { 0 };

	if (!d)
		return NULL;
	d->cat = cat;
	d->skills_index = skills_index;
	if (prev && prev->skills_index != skills_index)
		prev = NULL;
	if (doc_skills(d))
		d->end = malloc((d->n ? d->n : 1) * sizeof(*d->end));
	for (size_t i = 0; d->end && i < d->n && !t.failed; i++) {
		size_t len = prev ? prev_len(prev, &j, d->v[i]) : 0;
		if (!len) {
			make_entry(d, d->v[i], &t);
			len = t.len;
		}
		at += len + (i + 1 < d->n ? 2 : 1);
		d->end[i] = at;
	}
	free(t.data);
	if (!d->end || t.failed) {
		sfs_lines_doc_free(d);
		return NULL;
	}
	d->size = at + sizeof(lines_tail) - 1;
	return d;
}

void sfs_lines_doc_free(sfs_lines_doc *d)
{
	if (!d)
		return;
	if (d->own_v)
		free((void *)d->v);
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

/* Entry i, made in t and copied where it falls in [off, off + size).
 * Returns 0, -ENOMEM, or -EIO when it is not as long as it was when
 * measured (renderings are deterministic: never). */
static int copy_entry(const sfs_lines_doc *d, size_t i, struct buf *t,
                      size_t off, size_t size, char *out)
{
	size_t at = entry_start(d, i), len = entry_len(d, i);

	if (at + len <= off)
		return 0;   /* only its separator is asked for */
	make_entry(d, d->v[i], t);
	if (t->failed)
		return -ENOMEM;
	if (t->len != len)
		return -EIO;
	copy_part(t->data, at, len, off, size, out);
	return 0;
}

int sfs_lines_doc_read(const sfs_lines_doc *d, size_t off, size_t size,
                       char *out)
{
	size_t head = sizeof(lines_head) - 1, n = d->n;
	struct buf t = { 0 };
	int rc = 0;

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
	for (size_t i = lo; i < n && rc == 0; i++) {
		size_t at = entry_start(d, i), len = entry_len(d, i);
		if (at >= off + size)
			break;
		rc = copy_entry(d, i, &t, off, size, out);
		copy_part(i + 1 < n ? ",\n" : "\n", at + len,
		          d->end[i] - at - len, off, size, out);
	}
	free(t.data);
	size_t tail = n ? d->end[n - 1] : head;
	copy_part(lines_tail, tail, sizeof(lines_tail) - 1, off, size, out);
	return rc;
}

/* A skill taken unchanged into the next catalog is the same struct, and
 * its entries the same bytes. */
bool sfs_lines_doc_same(const sfs_lines_doc *a, const sfs_lines_doc *b)
{
	if (a->size != b->size || a->skills_index != b->skills_index ||
	    a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return false;
	return true;
}

/* ---- one skill's record ------------------------------------------------- */

/* An array of strings. */
static cJSON *ref_strings(struct json *j, const char *const *v, size_t n)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < n; i++)
		push(j, arr, ref(j, v[i]));
	return arr;
}

/* A malloc'd string (a URI) as a JSON string; NULL is out of memory. */
static cJSON *owned_str(struct json *j, char *s)
{
	cJSON *item = s ? checked(j, cJSON_CreateString(s)) : NULL;
	if (!s)
		j->oom = true;
	free(s);
	return item;
}

static cJSON *record_document(struct json *j, const struct sfs_skill *s)
{
	cJSON *o = checked(j, cJSON_CreateObject());
	add(j, o, "uri", owned_str(j, sfs_uri_document(s->id)));
	add(j, o, "path", ref(j, "SKILL.md"));
	add(j, o, "skill_uri", owned_str(j, sfs_uri_skill(s->id, "SKILL.md")));
	return o;
}

static cJSON *record_references(struct json *j, const struct sfs_skill *s)
{
	cJSON *refs = checked(j, cJSON_CreateObject());
	for (size_t i = 0; i < s->nrefs; i++) {
		const struct sfs_ref *r = &s->refs[i];
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, SFS_REF_PATH, ref(j, r->path));
		add(j, o, "uri", owned_str(j, sfs_uri_reference(s->id, r->id)));
		add(j, o, SFS_REF_TITLE, ref(j, r->title));
		add(j, o, SFS_REF_MIME_TYPE,
		    ref(j, r->mime_type ? r->mime_type : "text/markdown"));
		add(j, refs, r->id, o);
	}
	return refs;
}

/* The frontmatter as written, whole: a field the record has no member
 * for is still there for whoever reads the record. */
static cJSON *frontmatter(struct json *j, const struct sfs_skill *s)
{
	return checked(j, cJSON_ParseWithLength(s->frontmatter_json.p,
	                                        s->frontmatter_json.len));
}

static cJSON *diag_object(struct json *j, const struct sfs_diag *d);

/* The skill's findings of the security pass, for whoever decides what to
 * serve (a trust policy) and for the agent that reads the record. */
static cJSON *security_findings(struct json *j, const struct sfs_skill *s)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < s->ndiags; i++)
		if (s->diags[i].rule)
			push(j, arr, diag_object(j, &s->diags[i]));
	return arr;
}

char *sfs_render_skill_record(const sfs_catalog *cat,
                              const struct sfs_skill *s)
{
	struct json j = { 0 };
	cJSON *o = checked(&j, cJSON_CreateObject());
	char hex[SFS_DIGEST_LEN];

	add(&j, o, "id", ref(&j, s->id));
	add(&j, o, "name", ref(&j, s->id));
	add(&j, o, "description", ref(&j, s->description));
	add(&j, o, "version", ref(&j, s->version));
	add(&j, o, "tags", ref_strings(&j, s->tags, s->ntags));
	add(&j, o, "capabilities",
	    ref_strings(&j, s->capabilities, s->ncapabilities));
	add(&j, o, "depends_on",
	    ref_strings(&j, s->depends_on, s->ndepends_on));
	add(&j, o, "document", record_document(&j, s));
	add(&j, o, SFS_RECORD_REFERENCES, record_references(&j, s));
	add(&j, o, SFS_RECORD_ROOT, ref(&j, sfs_catalog_root(cat, s->root)));
	add(&j, o, SFS_RECORD_SOURCE, ref(&j, s->dir));
	if (s->plugin)
		add(&j, o, "plugin", ref(&j, s->plugin));
	sfs_format_digest(s->files[s->skill_md].sha256, hex);
	add(&j, o, "digest", ref(&j, hex));
	add(&j, o, "frontmatter", frontmatter(&j, s));
	add(&j, o, SFS_RECORD_FINDINGS, security_findings(&j, s));
	return print(&j, o, true, true);
}

/* ---- findings ----------------------------------------------------------- */

/* A finding of the security pass says its rule, and its severity is
 * the rule's weighing (high, medium, low) rather than error or warning:
 * it never stops a skill from being served by itself. */
static cJSON *diag_object(struct json *j, const struct sfs_diag *d)
{
	cJSON *o = checked(j, cJSON_CreateObject());
	add(j, o, SFS_FINDING_SEVERITY,
	    str(j, d->rule ? sfs_risk_name(d->risk) :
	           d->severity == SFS_ERROR ? "error" : "warning"));
	if (d->rule)
		add(j, o, SFS_FINDING_RULE, str(j, d->rule));
	add(j, o, SFS_FINDING_FILE, str(j, d->file));
	add(j, o, SFS_FINDING_LINE, num(j, d->line));
	add(j, o, "column", num(j, d->column));
	add(j, o, "field", str(j, d->field));
	add(j, o, SFS_FINDING_MESSAGE, str(j, d->message));
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

/* {"skill", "rule", "digest"}: what accept: would take (skillsfs(5)). */
static void collect_accept(const struct sfs_accept *a, void *arg)
{
	struct collect *c = arg;
	char digest[SFS_DIGEST_LEN];
	cJSON *o = checked(c->j, cJSON_CreateObject());

	sfs_format_digest(a->digest, digest);
	add(c->j, o, "skill", str(c->j, a->skill));
	add(c->j, o, "rule", str(c->j, a->rule));
	add(c->j, o, "digest", str(c->j, digest));
	push(c->j, c->arr, o);
}

char *sfs_render_findings(const sfs_catalog *cat)
{
	struct json j = { 0 };
	struct collect c = { &j, checked(&j, cJSON_CreateArray()) };
	struct collect acc = { &j, checked(&j, cJSON_CreateArray()) };
	struct sfs_counts n = cat->counts;
	cJSON *doc = checked(&j, cJSON_CreateObject());

	sfs_catalog_each_diag(cat, collect_diag, &c);
	add(&j, doc, "findings", c.arr);
	if (sfs_catalog_each_accept(cat, collect_accept, &acc) < 0)
		j.oom = true;
	/* only with a high finding: what accept: would take */
	if (cJSON_GetArraySize(acc.arr))
		add(&j, doc, "accept", acc.arr);
	else
		cJSON_Delete(acc.arr);
	cJSON *sum = checked(&j, cJSON_CreateObject());
	add(&j, sum, "skills",
	    num(&j, (double)(n.served + n.invalid + n.shadowed +
	                     n.unlocked + n.withheld)));
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
		add(j, o, SFS_STATUS_ROOT_PATH, str(j, cat->roots[i]));
		add(j, o, "source", str(j, info->root_sources ?
		                              info->root_sources[i] : NULL));
		/* a root that is not a folder: its kind, and what this
		 * generation serves of it (a git root's commit; null when it
		 * could not be resolved, and the findings say why) */
		const struct sfs_source *src = &cat->sources[i];
		if (src->ops->version) {
			add(j, o, SFS_STATUS_ROOT_KIND, str(j, src->ops->kind));
			add(j, o, src->ops->version_key,
			    str(j, src->ops->version(src)));
			/* when it is looked at again (null: on SIGHUP) */
			if (info->fetch_every_ms >= 0)
				add(j, o, SFS_STATUS_ROOT_FETCH_EVERY,
				    info->fetch_every_ms ?
				    num(j, (double)info->fetch_every_ms) :
				    str(j, NULL));
		}
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
	if (cat->locked)
		add(j, o, "unlocked", num(j, (double)n->unlocked));
	if (cat->trust == SFS_TRUST_WITHHOLD)
		add(j, o, "withheld", num(j, (double)n->withheld));
	if (cat->trust == SFS_TRUST_HOLD)
		add(j, o, "held", num(j, (double)n->held));
	return o;
}

static const char *state_name(int state)
{
	if (state == SFS_INVALID)
		return "invalid";
	if (state == SFS_SHADOWED)
		return "shadowed";
	if (state == SFS_UNLOCKED)
		return "unlocked";
	if (state == SFS_WITHHELD)
		return "withheld";
	return "served";
}

static cJSON *status_skills(struct json *j, const sfs_catalog *cat)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < cat->nfolders; i++) {
		const struct sfs_folder *f = &cat->folders[i];
		if (sfs_catalog_private(cat, f->dir))
			continue;   /* in "private", without its findings */
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, "dir", str(j, f->dir));
		add(j, o, "id", str(j, f->id));
		add(j, o, "state", str(j, f->nheld ? "held"
		                                  : state_name(f->state)));
		if (f->state == SFS_SHADOWED)
			add(j, o, "shadowed_by", str(j, f->shadowed_by));
		/* trust hold: what its folder's new version brings */
		if (f->nheld) {
			char digest[SFS_DIGEST_LEN];
			sfs_format_digest(f->held_digest, digest);
			add(j, o, "held_for", diag_array(j, f->held, f->nheld));
			add(j, o, "held_digest", str(j, digest));
		}
		add(j, o, "diagnostics", diag_array(j, f->diags, f->ndiags));
		push(j, arr, o);
	}
	return arr;
}

/* The served skills left out of index.json (skills/list), and why. */
static cJSON *status_unlisted(struct json *j, const sfs_catalog *cat)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < cat->nskills; i++) {
		const struct sfs_skill *s = cat->skills[i];
		if (!s->nunlisted || sfs_catalog_private(cat, s->dir))
			continue;
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, "id", str(j, s->id));
		add(j, o, "source", str(j, s->dir));
		cJSON *why = checked(j, cJSON_CreateArray());
		for (size_t k = 0; k < s->nunlisted; k++)
			push(j, why, str(j, s->unlisted[k]));
		add(j, o, "reasons", why);
		push(j, arr, o);
	}
	return arr;
}

/* The skill folders left out for not every user may read them: their
 * folders only, since their findings and names quote their SKILL.md. */
static cJSON *status_private(struct json *j, const sfs_catalog *cat)
{
	cJSON *arr = checked(j, cJSON_CreateArray());
	for (size_t i = 0; i < cat->nprivate; i++) {
		cJSON *o = checked(j, cJSON_CreateObject());
		add(j, o, "dir", str(j, cat->private_dirs[i]));
		add(j, o, "message", str(j, "SKILL.md or a folder above it is "
		    "not readable by every user: left out of the shared "
		    "documents"));
		push(j, arr, o);
	}
	return arr;
}

/* A change that waits to settle, and the skills still served as they
 * were ("pending"); the skills others may not see are left out. */
static cJSON *status_pending(struct json *j, const sfs_catalog *cat,
                             const struct sfs_status_pending *p)
{
	cJSON *o = checked(j, cJSON_CreateObject());
	cJSON *arr = checked(j, cJSON_CreateArray());

	add(j, o, "since", timestamp(j, p->since));
	add(j, o, "why", str(j, p->why));
	for (size_t i = 0; i < p->nstale; i++) {
		const struct sfs_skill *s = p->stale[i];
		if (sfs_catalog_private(cat, s->dir))
			continue;
		cJSON *e = checked(j, cJSON_CreateObject());
		add(j, e, "id", str(j, s->id));
		add(j, e, "source", str(j, s->dir));
		push(j, arr, e);
	}
	add(j, o, "stale", arr);
	return o;
}

/* What a view holds and leaves out (views.h); after the counts, so a
 * reader of the head of status.json has it. */
static cJSON *status_view(struct json *j, const struct sfs_view *v)
{
	cJSON *o = checked(j, cJSON_CreateObject());
	cJSON *left = checked(j, cJSON_CreateObject());
	cJSON *named = checked(j, cJSON_CreateArray());

	add(j, o, "profile", str(j, v->profile.name));
	add(j, o, "skills", num(j, (double)v->nskills));
	add(j, o, "spend", num(j, (double)v->spend));
	add(j, o, "budget", num(j, (double)v->profile.budget));
	add(j, left, "over_budget", num(j, (double)v->over_budget));
	add(j, left, "not_admitted", num(j, (double)v->excluded));
	for (size_t i = 0; i < v->nout; i++) {
		cJSON *e = checked(j, cJSON_CreateObject());
		add(j, e, "id", str(j, v->out[i].id));
		add(j, e, "why", str(j, v->out[i].why));
		push(j, named, e);
	}
	add(j, left, "skills", named);
	add(j, o, "left_out", left);
	return o;
}

static cJSON *status_views(struct json *j, const struct sfs_views *vs)
{
	cJSON *o = checked(j, cJSON_CreateObject());

	for (size_t i = 0; i < vs->n; i++)
		add(j, o, vs->v[i].name, status_view(j, &vs->v[i]));
	return o;
}

char *sfs_render_status(const sfs_catalog *cat,
                        const struct sfs_status_info *info)
{
	struct json j = { 0 };
	cJSON *doc = checked(&j, cJSON_CreateObject());

	add(&j, doc, SFS_STATUS_GENERATION, num(&j, (double)info->generation));
	add(&j, doc, "last_refresh", timestamp(&j, info->last_refresh));
	add(&j, doc, "refresh_mode", str(&j, info->refresh_mode));
	add(&j, doc, SFS_STATUS_ROOTS, status_roots(&j, cat, info));
	add(&j, doc, "counts", status_counts(&j, cat));
	if (info->views)
		add(&j, doc, SFS_STATUS_VIEWS, status_views(&j, info->views));
	add(&j, doc, SFS_STATUS_SKILLS, status_skills(&j, cat));
	add(&j, doc, SFS_STATUS_UNLISTED, status_unlisted(&j, cat));
	if (cat->shared_only)
		add(&j, doc, SFS_STATUS_PRIVATE, status_private(&j, cat));
	if (info->pending)
		add(&j, doc, "pending", status_pending(&j, cat, info->pending));
	add(&j, doc, "diagnostics", diag_array(&j, cat->diags, cat->ndiags));
	if (info->cache_dir) {
		add(&j, doc, SFS_STATUS_CACHE_DIR, str(&j, info->cache_dir));
		add(&j, doc, SFS_STATUS_CACHE_MAX,
		    num(&j, (double)info->cache_max));
	}
	return print(&j, doc, true, true);
}
