/*
 * mcp_prune.c - removing from the MCP cache what no longer serves: a
 * server whose listing keeps changing would otherwise leave a listing
 * behind for each change, and the verified files of every version it
 * ever listed, for ever.
 *
 * In a server's folder, a listing is kept while it is the current one
 * or the one before it (which a generation built before the last fetch
 * may still serve; a build that finds neither reads the current one).
 * A record of a file that did not match (mismatch-<hex>.json) is kept
 * while a kept listing names that digest: status.json reports only those.
 *
 * The verified files (blobs/) are shared by every server of the cache
 * folder, and by every mount that uses it: a file is kept while any
 * listing in the cache names its digest, and is removed only once it is
 * BLOB_GRACE_S old, so that a fetch under way (in this mount or in
 * another), which stores its SKILL.mds before its listing, does not lose
 * them.  A digest counts as named when "sha256:<hex>" appears anywhere in
 * a listing: a scan of the text, which never removes too much, and costs
 * far less than parsing every listing.
 *
 * The well-known kind (wellknown.c) keeps the same layout under
 * wellknown/ (a site's folder of listings, blobs/ beside it) and is
 * pruned here too: the blobs/ swept are those of the folder that holds
 * `state`, and only the listings of that folder name them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "snapshot.h"
#include "source.h"
#include "trust.h"

#define HEX_LEN 64
/* How old an unnamed verified file must be before it is removed. */
#define BLOB_GRACE_S 600

struct digests {
	uint8_t (*v)[32];
	size_t n, cap;
};

static int cmp_digest(const void *a, const void *b)
{
	return memcmp(a, b, 32);
}

/* Whether name is PREFIX<64 hex>SUFFIX; its digest in out. */
static bool named(const char *name, const char *prefix, const char *suffix,
                  uint8_t out[32])
{
	size_t p = strlen(prefix), s = strlen(suffix), n = strlen(name);

	return n == p + HEX_LEN + s && strncmp(name, prefix, p) == 0 &&
	       strcmp(name + p + HEX_LEN, suffix) == 0 &&
	       sfs_hex_decode(name + p, 32, out, false);
}

/* Adds every digest "sha256:<hex>" of text to set. */
static int add_named(struct digests *set, const char *text)
{
	const char *end = text + strlen(text);

	/* memchr with the length left, not strstr: a sanitizer's strstr
	 * measures the whole rest of text at each call, which made a
	 * listing of 30,000 files take past 20 s to prune under ASan */
	for (const char *p = text; (p = memchr(p, 's', (size_t)(end - p)));
	     p++) {
		uint8_t sum[32];
		if (strncmp(p, "sha256:", 7) != 0)
			continue;
		p += 6;
		if (strnlen(p + 1, HEX_LEN) < HEX_LEN ||
		    !sfs_hex_decode(p + 1, 32, sum, false))
			continue;
		if (sfs_grow(&set->v, &set->cap, set->n + 1,
		             sizeof(*set->v)) < 0)
			return -ENOMEM;
		memcpy(set->v[set->n++], sum, 32);
	}
	return 0;
}

int sfs_mcp_current_hex(const char *state, char hex[HEX_LEN + 1])
{
	int dfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *text = dfd < 0 ? NULL :
	             sfs_cache_read_at(dfd, "current", SFS_FETCHED_LISTING_MAX,
	                               NULL);
	uint8_t sum[32];
	int rc = text && strlen(text) == HEX_LEN && sfs_hex_decode(text, 32, sum, false) ?
	         0 : -ENOENT;

	if (rc == 0)
		memcpy(hex, text, HEX_LEN + 1);
	free(text);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

struct named_walk {
	const char *prefix, *suffix;
	sfs_mcp_each_fn *each;
	void *arg;
};

static int each_if_named(int dfd, const char *name, const struct stat *st,
                         void *arg)
{
	const struct named_walk *w = arg;
	uint8_t sum[32];

	(void)st;
	return named(name, w->prefix, w->suffix, sum) ?
	       w->each(w->arg, dfd, name, sum) : 0;
}

int sfs_mcp_each_named(int dfd, const char *prefix, const char *suffix,
                       sfs_mcp_each_fn *each, void *arg)
{
	struct named_walk w = { prefix, suffix, each, arg };

	return sfs_dir_each(dfd, each_if_named, &w);
}

/* Removes a listing that keep (hex names, NULL or "" for none) does not
 * name. */
static int prune_listing(void *arg, int dfd, const char *name,
                         const uint8_t sum[32])
{
	const char *const *keep = arg;
	bool kept = false;

	(void)sum;
	for (int i = 0; i < 2; i++)
		kept |= keep[i] && strncmp(name + 8, keep[i], HEX_LEN) == 0;
	if (!kept)
		unlinkat(dfd, name, 0);
	return 0;
}

/* Adds the digests a listing names to the set arg. */
static int mark_listing(void *arg, int dfd, const char *name,
                        const uint8_t sum[32])
{
	char *text = sfs_cache_read_at(dfd, name, SFS_FETCHED_LISTING_MAX,
	                               NULL);
	int rc = text ? add_named(arg, text) : 0;

	(void)sum;
	free(text);
	return rc;
}

/* Adds the digests named by each listing of the server's folder dfd. */
static int mark_listings(int dfd, struct digests *set)
{
	int rc = sfs_mcp_each_named(dfd, "listing-", ".json", mark_listing,
	                            set);
	return rc == -ENOMEM ? rc : 0;
}

int sfs_mcp_listings_named(int dfd, uint8_t (**v)[32], size_t *n)
{
	struct digests set = { .v = *v, .n = *n, .cap = *n };
	int rc = mark_listings(dfd, &set);

	*v = set.v;
	*n = set.n;
	return rc;
}

/* Removes a mismatch record whose digest no kept listing of its folder
 * names (arg: those digests, sorted). */
static int prune_mismatch(void *arg, int dfd, const char *name,
                          const uint8_t sum[32])
{
	const struct digests *set = arg;

	if (!bsearch(sum, set->v, set->n, sizeof(*set->v), cmp_digest))
		unlinkat(dfd, name, 0);
	return 0;
}

/* Adds the digests that every server folder of mcp/ (dfd) names. */
static int mark_server(int mcp, const char *name, const struct stat *st,
                       void *arg)
{
	if (name[0] == '.' || strcmp(name, "blobs") == 0 || !S_ISDIR(st->st_mode))
		return 0;
	int dfd = openat(mcp, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	                            O_NOFOLLOW);
	if (dfd < 0)
		return 0;
	int rc = mark_listings(dfd, arg);
	close(dfd);
	return rc;
}

static int mark_every_server(int mcp, struct digests *set)
{
	return sfs_dir_each(mcp, mark_server, set);
}

/* Removes a file of blobs/ that no digest of the set arg (sorted) names,
 * once BLOB_GRACE_S old; a temporary left by a fetch that died, too. */
static int sweep_blob(int dfd, const char *name, const struct stat *st,
                      void *arg)
{
	const struct digests *set = arg;
	uint8_t sum[32];

	if (name[0] == '.' ||
	    S_ISDIR(st->st_mode) || st->st_mtime > time(NULL) - BLOB_GRACE_S)
		return 0;
	if (!named(name, "", "", sum) ||
	    !bsearch(sum, set->v, set->n, sizeof(*set->v), cmp_digest))
		unlinkat(dfd, name, 0);
	return 0;
}

/* Sweeps blobs/ (in mcp/, dfd) with sweep_blob. */
static void sweep_blobs(int mcp, const struct digests *set)
{
	int dfd = openat(mcp, "blobs", O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	                               O_NOFOLLOW);

	if (dfd >= 0) {
		sfs_dir_each(dfd, sweep_blob, (void *)set);
		close(dfd);
	}
}

/* The folder of the kind that holds `state` (mcp/, wellknown/) in *out,
 * malloc'd; -EINVAL when it is not a folder of cache_dir. */
static int kind_folder(const char *cache_dir, const char *state, char **out)
{
	const char *slash = strrchr(state, '/');
	size_t n = strlen(cache_dir);

	*out = NULL;
	if (!slash || strncmp(state, cache_dir, n) != 0 || state[n] != '/' ||
	    slash == state + n || memchr(state + n + 1, '/',
	                                 (size_t)(slash - state - n - 1)))
		return -EINVAL;
	*out = strndup(state, (size_t)(slash - state));
	return *out ? 0 : -ENOMEM;
}

int sfs_mcp_prune(const char *cache_dir, const char *state,
                  const char *previous)
{
	char current[HEX_LEN + 1] = "", *mcp = NULL;
	struct digests own = { 0 }, all = { 0 };
	int sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = sfd < 0 ? -errno : sfs_mcp_current_hex(state, current);

	if (rc == 0) {
		const char *keep[2] = { current, previous };
		sfs_mcp_each_named(sfd, "listing-", ".json", prune_listing,
		                   keep);
		rc = mark_listings(sfd, &own);
	}
	if (rc == 0) {
		sfs_sort(own.v, own.n, sizeof(*own.v), cmp_digest);
		sfs_mcp_each_named(sfd, SFS_MCP_MISMATCH_PREFIX, ".json",
		                   prune_mismatch, &own);
		rc = kind_folder(cache_dir, state, &mcp);
	}
	int mfd = rc == 0 ? open(mcp, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (rc == 0 && mfd < 0)
		rc = -errno;
	if (rc == 0)
		rc = mark_every_server(mfd, &all);
	if (rc == 0) {
		sfs_sort(all.v, all.n, sizeof(*all.v), cmp_digest);
		sweep_blobs(mfd, &all);
	}
	if (mfd >= 0)
		close(mfd);
	if (sfd >= 0)
		close(sfd);
	free(mcp);
	free(own.v);
	free(all.v);
	return rc;
}
