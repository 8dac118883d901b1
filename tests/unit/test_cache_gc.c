/*
 * test_cache_gc.c - the collection of the cache folder (shared/cache_gc.c)
 * finds its entries where the kinds of source say they keep state
 * (sfs_source_ops.cache_places), whatever the kinds are: one entry is
 * made in every place of every kind of source.c's table, by its group,
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

/* Makes one entry of place p under top, named as the survey must name it,
 * into name (the entry of a folder of listings names BLOB_HEX). */
static void make_entry(const struct sfs_cache_place *p, char *name,
                       size_t len)
{
	switch (p->group) {
	case SFS_CACHE_CLONES:
		snprintf(name, len, "%s/site-0123.git", p->path);
		write_file(at("%s/HEAD", name), "ref: refs/heads/main\n");
		break;
	case SFS_CACHE_LISTINGS:
		snprintf(name, len, "%s/server-4567", p->path);
		write_file(at("%s/listing-%s.json", name, BLOB_HEX),
		           "{\"skills\":[{\"digest\":\"sha256:" BLOB_HEX "\"}]}");
		break;
	case SFS_CACHE_BLOBS:
		snprintf(name, len, "%s/%s", p->path, BLOB_HEX);
		write_file(at("%s", name), "hello");
		break;
	case SFS_CACHE_FILES:
		snprintf(name, len, "%s/kept", p->path);
		write_file(at("%s", name), "bytes");
		break;
	case SFS_CACHE_FILE:
		snprintf(name, len, "%s", p->path);
		write_file(at("%s", name), "bytes");
		break;
	}
}

static const struct sfs_cache_entry *entry_named(const struct sfs_cache_gc *g,
                                                 const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].name, name) == 0)
			return &g->v[i];
	return NULL;
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
	ok(g.n == n, "one entry per place (%zu of %zu)", g.n, n);
	for (size_t i = 0; i < n; i++) {
		const struct sfs_cache_entry *e = entry_named(&g, names[i]);
		ok(e && !e->dropped, "%s is an entry, kept", names[i]);
		if (e && groups[i] == SFS_CACHE_BLOBS)
			ok(e->need == SFS_CACHE_NAMED, "%s: named by a listing",
			   names[i]);
	}
	ok(!entry_named(&g, "unknown/file"), "a folder no kind declares is "
	   "not surveyed");
	sfs_cache_gc_free(&g);
	return tap_end();
}
