/*
 * test_cache_gc.c - the collection of the cache folder (shared/cache_gc.c)
 * finds its entries where the kinds of source say they keep state
 * (sfs_source_ops.cache_places), whatever the kinds are: one entry is
 * made in every place of every kind of source_form.c's table, by its group,
 * and each must be surveyed under its name and no other; the verified
 * files a folder of listings names are kept as named.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache_gc.h"
#include "fixture.h"
#include "source.h"

#define BLOB_HEX "5d41402abc4b2a76b9719d911017c592" \
                 "5d41402abc4b2a76b9719d911017c592"

/* What one entry of each group is: its name after the place's path, the
 * file made in it (after its name) and that file's text. */
static const struct {
	const char *entry, *file, *text;
} shapes[] = {
	[SFS_CACHE_CLONES] = { "/site-0123.git", "/HEAD", "ref: x\n" },
	[SFS_CACHE_LISTINGS] = { "/server-4567", "/listing-" BLOB_HEX ".json",
	                         "{\"skills\":[\"sha256:" BLOB_HEX "\"]}" },
	[SFS_CACHE_BLOBS] = { "/" BLOB_HEX, "", "hello" },
	[SFS_CACHE_FILES] = { "/kept", "", "bytes" },
	[SFS_CACHE_FILE] = { "", "", "bytes" },
};

/* Makes one entry of place p under top, its name (as the survey must
 * name it) in name. */
static void make_entry(const struct sfs_cache_place *p, char *name,
                       size_t len)
{
	snprintf(name, len, "%s%s", p->path, shapes[p->group].entry);
	write_file(at("%s%s", name, shapes[p->group].file),
	           shapes[p->group].text);
}

int main(void)
{
	char names[32][256];
	enum sfs_cache_group groups[32];
	size_t n = 0;
	const struct sfs_source_ops *k;

	fixture_start("test_cache_gc");
	if (chmod(top, 0700) < 0)
		die(top);
	for (size_t i = 0; (k = sfs_source_kind_at(i)); i++)
		for (const struct sfs_cache_place *p = k->cache_places;
		     p && p->path && n < 32; p++, n++) {
			make_entry(p, names[n], sizeof(names[n]));
			groups[n] = p->group;
		}
	ok(n >= 3, "the kinds declare %zu places", n);
	/* what no kind declares is neither counted nor touched */
	write_file(at("unknown/file"), "not ours");

	struct sfs_cache_gc g;
	struct sfs_cache_gc_args a = { .cache_dir = top, .max = 1LL << 40,
	                               .dry_run = true };
	ok(sfs_cache_gc_run(&a, &g) == 0, "a survey of the cache folder");
	/* (so a folder no kind declares is not surveyed) */
	ok(g.n == n, "one entry per place (%zu of %zu)", g.n, n);
	for (size_t i = 0; i < g.n; i++) {
		const struct sfs_cache_entry *e = &g.v[i];
		size_t j = 0;
		while (j < n && strcmp(names[j], e->name) != 0)
			j++;
		ok(j < n && !e->dropped, "%s: the entry made in a place, kept",
		   e->name);
		if (j < n && groups[j] == SFS_CACHE_BLOBS)
			ok(e->need == SFS_CACHE_NAMED, "%s: named by a listing",
			   e->name);
	}
	sfs_cache_gc_free(&g);
	return tap_end();
}
