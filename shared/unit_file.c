/*
 * unit_file.c - a unit (unit.c) as bytes, to keep it across mounts, and
 * read back.
 *
 * A unit is one allocation whose pointers all point inside it, but for a
 * security finding's rule (static text).  Kept, every pointer becomes its
 * offset in the allocation plus one (0: NULL) and the rules' text follows
 * the allocation; read back, the bytes are copied into one allocation
 * again and every offset turned back into a pointer, each checked to
 * stand inside it (a string ending in it), so that bytes that are not a
 * unit give NULL, never a unit that points elsewhere.  One walk over the
 * unit's pointers serves both directions, so none can be forgotten in
 * one and not the other.
 *
 * Whoever keeps the bytes says which program made them
 * (sfs_program_id): a unit is what this build's code made of a folder,
 * and another build may read and validate it otherwise.
 */
#include <errno.h>
#include <link.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "snapshot.h"

struct head {
	uint64_t block;    /* the unit's allocation */
	uint64_t rules;    /* the rules' text after it */
};
_Static_assert(sizeof(struct head) == SFS_UNIT_HEAD, "a kept unit's head");

struct walk {
	bool saving;
	const char *base;    /* saving: the unit; reading: the new copy */
	size_t size;         /* saving: the unit's allocation; reading: all */
	char *copy;          /* saving: where the offsets go */
	char **out;          /* saving: the rules' text, appended */
	size_t *len, *cap, rules_at;
	bool bad;
};

/* Room for n more bytes at the end of *out. */
static char *room(struct walk *w, size_t n)
{
	if (sfs_grow(w->out, w->cap, *w->len + n, 1) < 0)
		return NULL;
	char *at = *w->out + *w->len;
	*w->len += n;
	return at;
}

/* Saving: the offset of *slot in the copy; reading: the pointer back,
 * checked to hold `bytes` bytes inside the allocation (with `string`, a
 * NUL-terminated string).  An empty array may point at the very end. */
static void fix_at(struct walk *w, const void *const *slot, size_t bytes,
                   bool string)
{
	size_t at = (size_t)((const char *)slot - w->base);
	uint64_t off;

	if (w->bad)
		return;
	if (w->saving) {
		const char *p = *slot;
		if (!p)
			off = 0;
		else if (p >= w->base && (p < w->base + w->size ||
		                          (!string && p == w->base + w->size)))
			off = (uint64_t)(p - w->base) + 1;
		else {
			w->bad = true;
			return;
		}
		memcpy(w->copy + at, &off, sizeof(off));
		return;
	}
	memcpy(&off, slot, sizeof(off));
	const char *p = off ? w->base + off - 1 : NULL;
	if (off && (off - 1 > w->size || w->size - (off - 1) < bytes ||
	            (string && (off - 1 == w->size ||
	                        !memchr(p, '\0', w->size - (off - 1))))))
		w->bad = true;
	memcpy((void *)slot, &p, sizeof(p));
}

static void fix(struct walk *w, const void *const *slot, size_t bytes)
{
	fix_at(w, slot, bytes, false);
}

/* A rule: static text, kept after the unit. */
static void fix_rule(struct walk *w, const char *const *slot)
{
	if (!w->saving || !*slot || w->bad) {
		fix_at(w, (const void *const *)slot, 0, true);
		return;
	}
	size_t n = strlen(*slot) + 1;
	size_t at = *w->len - w->rules_at;
	char *d = room(w, n);
	if (!d) {
		w->bad = true;
		return;
	}
	memcpy(d, *slot, n);
	uint64_t off = w->size + at + 1;
	memcpy(w->copy + ((const char *)slot - w->base), &off, sizeof(off));
}

/* A string */
#define FIX(w, slot) \
	fix_at(w, (const void *const *)&(slot), 0, true)

/* An array of n elements: the slot, then whether it can be walked. */
static bool fix_array(struct walk *w, const void *const *slot, size_t n,
                      size_t elem, size_t align)
{
	if (n && SIZE_MAX / n < elem) {
		w->bad = true;
		return false;
	}
	fix(w, slot, n * elem);
	if (!*slot && n)
		w->bad = true;   /* n elements at NULL */
	/* bytes that are no unit may set an array off its alignment (the
	 * block itself is malloc's, aligned for any element) */
	if (*slot && (uintptr_t)*slot % align != 0)
		w->bad = true;
	return !w->bad;
}

#define ARRAY(w, slot, n) \
	fix_array(w, (const void *const *)&(slot), n, sizeof(*(slot)), \
	          _Alignof(__typeof__(*(slot))))

/* Strings, each at its slot (where the string's pointer is). */
static void strings(struct walk *w, const char *const *const *slots,
                    size_t n)
{
	for (size_t i = 0; i < n; i++)
		FIX(w, *slots[i]);
}

#define STRINGS(w, ...) \
	strings(w, (const char *const *[]){ __VA_ARGS__ }, \
	        sizeof((const char *const *[]){ __VA_ARGS__ }) / \
	        sizeof(const char *const *))

/* One element of an array of each kind. */
static void string(struct walk *w, const char *const *v)
{
	FIX(w, *v);
}

static void diag(struct walk *w, const struct sfs_diag *d)
{
	STRINGS(w, &d->file, &d->field, &d->message);
	fix_rule(w, &d->rule);
}

static void file(struct walk *w, const struct sfs_file *f)
{
	STRINGS(w, &f->path, &f->source, &f->name, &f->link);
}

static void ref(struct walk *w, const struct sfs_ref *r)
{
	STRINGS(w, &r->id, &r->path, &r->title, &r->mime_type);
}

/* An array (the slot, n elements), then each element by `one`. */
#define EACH(w, slot, n, one) \
	do { \
		if (ARRAY(w, slot, n)) \
			for (size_t i_ = 0; i_ < (n) && !(w)->bad; i_++) \
				one(w, &(slot)[i_]); \
	} while (0)

/* Every pointer of u; an array's elements after the array itself. */
static void walk(struct walk *w, const struct sfs_unit *u)
{
	const struct sfs_skill *s = &u->skill;

	STRINGS(w, &u->dir, &u->skill_md, &u->skill_md_path, &u->id);
	EACH(w, u->dirs, u->ndirs, string);
	EACH(w, u->listing, u->nlisting, diag);
	STRINGS(w, &s->id, &s->description, &s->dir, &s->version, &s->plugin,
	        &s->headings);
	EACH(w, s->tags, s->ntags, string);
	EACH(w, s->capabilities, s->ncapabilities, string);
	EACH(w, s->depends_on, s->ndepends_on, string);
	EACH(w, s->refs, s->nrefs, ref);
	EACH(w, s->files, s->nfiles, file);
	EACH(w, s->diags, s->ndiags, diag);
	EACH(w, s->unlisted, s->nunlisted, string);
	if (s->frontmatter_json.len >= w->size)
		w->bad = true;
	fix(w, (const void *const *)&s->frontmatter_json.p,
	    s->frontmatter_json.len + 1);
}

int sfs_unit_save(const struct sfs_unit *u, char **out, size_t *len,
                  size_t *cap)
{
	size_t start = *len;
	struct head h = { .block = u->size };
	struct walk w = {
		.saving = true, .base = (const char *)u, .size = u->size,
		.out = out, .len = len, .cap = cap,
	};

	if (!room(&w, sizeof(h) + u->size))
		return -ENOMEM;
	w.rules_at = *len;
	/* the copy moves when the rules' text grows *out: fixed after */
	char *copy = malloc(u->size);
	if (!copy) {
		*len = start;
		return -ENOMEM;
	}
	memcpy(copy, u, u->size);
	w.copy = copy;
	walk(&w, u);
	if (w.bad) {
		free(copy);
		*len = start;
		return -EINVAL;
	}
	memcpy(*out + start + sizeof(h), copy, u->size);
	free(copy);
	h.rules = *len - w.rules_at;
	memcpy(*out + start, &h, sizeof(h));
	return 0;
}

uint64_t sfs_unit_kept_len(const char *p)
{
	struct head h;

	memcpy(&h, p, sizeof(h));
	if (h.block > UINT64_MAX / 2 || h.rules > UINT64_MAX / 2)
		return UINT64_MAX;
	return sizeof(h) + h.block + h.rules;
}

struct sfs_unit *sfs_unit_load(const char *p, size_t n, size_t *used)
{
	struct head h;

	if (n < sizeof(h))
		return NULL;
	memcpy(&h, p, sizeof(h));
	if (h.block < sizeof(struct sfs_unit) || h.block > n - sizeof(h) ||
	    h.rules > n - sizeof(h) - h.block)
		return NULL;
	size_t total = (size_t)(h.block + h.rules);
	struct sfs_unit *u = malloc(total);
	if (!u)
		return NULL;
	memcpy(u, p + sizeof(h), total);
	struct walk w = { .base = (const char *)u, .size = total };
	walk(&w, u);
	if (w.bad || u->size != h.block ||
	    (u->skill.nfiles && u->skill.skill_md >= u->skill.nfiles)) {
		free(u);
		return NULL;
	}
	atomic_init(&u->refs, 1);
	*used = sizeof(h) + total;
	return u;
}

/* ---- which program made them -------------------------------------------- */

struct id_search {
	uint8_t *out;
	size_t n;
};

/* The first object is the program itself (dl_iterate_phdr's order). */
static int build_id_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct id_search *q = arg;

	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		size_t left = ph->p_memsz;
		while (left >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name = (nh->n_namesz + 3) & ~(size_t)3;
			size_t desc = (nh->n_descsz + 3) & ~(size_t)3;
			size_t all = sizeof(*nh) + name + desc;
			if (all > left)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(p + sizeof(*nh), "GNU", 4) == 0) {
				q->n = nh->n_descsz < SFS_PROGRAM_ID_MAX ?
				       nh->n_descsz : SFS_PROGRAM_ID_MAX;
				memcpy(q->out, p + sizeof(*nh) + name, q->n);
				return 1;
			}
			p += all;
			left -= all;
		}
	}
	return 1;
}

size_t sfs_program_id(uint8_t out[SFS_PROGRAM_ID_MAX])
{
	struct id_search q = { .out = out };

	dl_iterate_phdr(build_id_of, &q);
	return q.n;
}
