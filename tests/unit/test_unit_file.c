/*
 * test_unit_file.c - units (shared/unit.c) kept as bytes and read back
 * (shared/unit_file.c): the example skills and a skill with findings give
 * the same units back, and bytes that are not a unit (every bit of one
 * flipped in turn, every length cut short) give NULL or a unit that
 * points only inside itself, never a crash (run under ASan in CI).
 * Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "snapshot.h"

#define ZWSP "\xe2\x80\x8b"

static bool same_s(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_diags(const struct sfs_diag *a, const struct sfs_diag *b,
                       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].line != b[i].line || a[i].severity != b[i].severity ||
		    a[i].risk != b[i].risk || !same_s(a[i].file, b[i].file) ||
		    !same_s(a[i].field, b[i].field) ||
		    !same_s(a[i].message, b[i].message) ||
		    !same_s(a[i].rule, b[i].rule))
			return false;
	return true;
}

static bool same_unit(const struct sfs_unit *a, const struct sfs_unit *b)
{
	const struct sfs_skill *x = &a->skill, *y = &b->skill;

	if (a->size != b->size || !same_s(a->dir, b->dir) ||
	    !same_s(a->id, b->id) || a->invalid != b->invalid ||
	    a->ndirs != b->ndirs || x->nfiles != y->nfiles ||
	    x->ndiags != y->ndiags || x->ntags != y->ntags ||
	    x->nrefs != y->nrefs || x->frontmatter_json.len !=
	    y->frontmatter_json.len || !same_s(x->description, y->description) ||
	    !same_s(x->headings, y->headings) ||
	    !same_diags(x->diags, y->diags, x->ndiags))
		return false;
	if (x->frontmatter_json.len &&
	    memcmp(x->frontmatter_json.p, y->frontmatter_json.p,
	           x->frontmatter_json.len) != 0)
		return false;
	for (size_t i = 0; i < x->nfiles; i++)
		if (!same_s(x->files[i].path, y->files[i].path) ||
		    !same_s(x->files[i].name, y->files[i].name) ||
		    memcmp(x->files[i].sha256, y->files[i].sha256, 32) != 0)
			return false;
	for (size_t i = 0; i < x->ntags; i++)
		if (!same_s(x->tags[i], y->tags[i]))
			return false;
	for (size_t i = 0; i < x->nrefs; i++)
		if (!same_s(x->refs[i].path, y->refs[i].path))
			return false;
	for (size_t i = 0; i < a->ndirs; i++)
		if (!same_s(a->dirs[i], b->dirs[i]))
			return false;
	return true;
}

/* Whether the string p (or NULL) lies in the allocation of u. */
static bool inside(const struct sfs_unit *u, size_t total, const char *p)
{
	const char *b = (const char *)u;
	return !p || (p >= b && p < b + total &&
	              memchr(p, '\0', (size_t)(b + total - p)));
}

/* Whether every string a unit read back points to, through its arrays,
 * lies in its allocation (ASan would see a read outside it too). */
static bool points_inside(const struct sfs_unit *u, size_t total)
{
	const struct sfs_skill *s = &u->skill;
	bool in = inside(u, total, u->dir) && inside(u, total, s->description) &&
	          inside(u, total, s->headings) && inside(u, total, s->id);

	for (size_t i = 0; in && i < s->nfiles; i++)
		in = inside(u, total, s->files[i].path) &&
		     inside(u, total, s->files[i].name) &&
		     inside(u, total, s->files[i].link);
	for (size_t i = 0; in && i < s->ndiags; i++)
		in = inside(u, total, s->diags[i].message) &&
		     inside(u, total, s->diags[i].rule);
	for (size_t i = 0; in && i < s->ntags; i++)
		in = inside(u, total, s->tags[i]);
	for (size_t i = 0; in && i < u->ndirs; i++)
		in = inside(u, total, u->dirs[i]);
	return in && (!s->frontmatter_json.p ||
	              inside(u, total, s->frontmatter_json.p));
}

int main(void)
{
	fixture_start("test_unit_file");
	write_skill(at("r/plain"), "SKILL.md", "metadata:\n  tags: [a, b]",
	            "# Plain\n\nBody.\n");
	write_skill(at("r/hidden"), "SKILL.md", NULL,
	            "# Hidden\n\npass" ZWSP "word\n");
	write_file(at("r/hidden/notes.md"), "more" ZWSP "notes\n");
	mkdirs(at("r/broken"));
	write_file(at("r/broken/SKILL.md"), "no frontmatter here\n");
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&cfg, NULL);

	ok(cat && cat->nunits == 3, "three units built");
	size_t rules = 0, same = 0;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (size_t i = 0; cat && i < cat->nunits; i++) {
		const struct sfs_unit *u = cat->units[i];
		len = 0;
		size_t used = 0;
		if (sfs_unit_save(u, &buf, &len, &cap) < 0)
			continue;
		struct sfs_unit *back = sfs_unit_load(buf, len, &used);
		same += back && used == len && same_unit(u, back);
		for (size_t k = 0; k < u->skill.ndiags; k++)
			rules += u->skill.diags[k].rule != NULL;
		sfs_unit_unref(back);
	}
	ok(same == 3, "every unit read back is the unit kept (%zu of 3)", same);
	ok(rules > 0, "with security findings, whose rules are kept too");

	/* the last unit kept: every bit flipped, every length cut */
	size_t loaded = 0, outside = 0, cut = 0;
	for (size_t at_byte = 0; at_byte < len; at_byte++)
		for (int bit = 0; bit < 8; bit++) {
			size_t used;
			buf[at_byte] ^= (char)(1 << bit);
			struct sfs_unit *u = sfs_unit_load(buf, len, &used);
			if (u) {
				loaded++;
				/* the allocation: all the bytes after
				 * the head (two 8-byte sizes) */
				outside += !points_inside(u, len - 16);
				sfs_unit_unref(u);
			}
			buf[at_byte] ^= (char)(1 << bit);
		}
	for (size_t n = 0; n < len; n++) {
		size_t used;
		struct sfs_unit *u = sfs_unit_load(buf, n, &used);
		cut += u != NULL;
		sfs_unit_unref(u);
	}
	ok(len > 0 && outside == 0, "%zu units with one bit flipped: %zu read "
	   "as a unit, %zu of them pointing outside it", len * 8, loaded,
	   outside);
	ok(cut == 0, "a unit cut short is not read: %zu of %zu lengths read",
	   cut, len);
	free(buf);
	sfs_catalog_unref(cat);
	return tap_end();
}
