/*
 * wellknown.c - the skills a website publishes at
 * BASE/.well-known/agent-skills/index.json (the Agent Skills Discovery
 * RFC v0.2.0, read by wellknown/index.c) as a source: https://HOST[/BASE]
 * or http://HOST[/BASE].
 *
 * An update (the mount's fetcher thread) fetches the index and writes
 * what a build needs of it into the cache folder as one listing, named by
 * its digest, which is the version the source serves: every skill with
 * its files' paths, digests and sizes.  A file's size is the "size" the
 * index gives it (an optional key of ours), else the Content-Length a
 * HEAD of it answers, else it is fetched whole; a SKILL.md is fetched at
 * the update, since every build reads it; a package is fetched and
 * unpacked (wellknown/package.c) at the update, its files kept; every
 * other file is fetched at its first read.  Only verified bytes are
 * served: the cache's files are named by their digest, and each is
 * hashed at its first open by a generation into a sealed copy that serves
 * it from then on (verified.c, as the MCP kind's: the cache folder is the
 * user's).  A file whose bytes are not those of its digest is an error for
 * its reader (EIO) and makes its skill invalid from the next build on,
 * recorded as an MCP server's mismatch is, and pruned with it; a
 * SKILL.md or a package that does not match leaves its skill out at the
 * update, named in status.json.
 *
 * The index is asked for as an HTTP cache would (sfs_http_get_cached):
 * with the validators kept beside the listing made of it
 * (wellknown/validators.c), so that a 304 keeps that listing with
 * nothing written; its lifetime (max-age, Expires) is the update's ttl,
 * which has the fetcher ask again when it is over.
 *
 * A v0.1 index gives no digests: every file is fetched at the update and
 * served as it came then, with a warning that nothing could be verified.
 * A build never waits for the network: it reads the listing the last
 * update stored.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_gc.h"
#include "grow.h"
#include "mcp_client/client.h"
#include "snapshot.h"
#include "source.h"
#include "trust.h"
#include "verified.h"
#include "wellknown/index.h"
#include "wellknown/package.h"
#include "wellknown/validators.h"

#define PREFIX "https://"
#define PREFIX_PLAIN "http://"
#define HEX_LEN 64
/* What one update may fetch into the cache at most (the default
 * cache_max): each file is bounded (an answer's 32 MiB, a package's
 * 256 MiB), but an index may name 100,000 skills, and a site that gives
 * each a large SKILL.md matching its digest filled the disk. */
#define MAX_UPDATE_BYTES (1u << 30)

/* ---- the URL and the cache ------------------------------------------------ */

/* The folder of the website `location` in the cache, and its verified
 * files: each malloc'd, NULL when out of memory.  The folder keeps an
 * MCP server's layout (mcp_listing.c's names), so that mcp_prune.c prunes
 * this cache too and gc (cache_gc.c) reads which verified files its
 * listings name. */
static char *state_path(const char *cache_dir, const char *location)
{
	uint8_t sum[32];
	char hex[HEX_LEN + 1], *path;

	sfs_sha256(location, strlen(location), sum);
	sfs_hex_encode(sum, 32, hex);
	return asprintf(&path, "%s/wellknown/%.32s", cache_dir, hex) < 0 ?
	       NULL : path;
}

static char *blob_path(const char *cache_dir, const uint8_t sha256[32])
{
	char hex[HEX_LEN + 1], *path;

	sfs_hex_encode(sha256, 32, hex);
	return asprintf(&path, "%s/wellknown/blobs/%s", cache_dir, hex) < 0 ?
	       NULL : path;
}

/* The verified bytes with this digest and size in the cache, from the
 * sealed copy v holds or one made now and kept in v (v NULL: not kept;
 * verified.h): a descriptor, -ENOENT when the cache does not hold them
 * (what is at their name but other bytes is removed), -EIO when what is
 * in their way cannot be removed, or -errno. */
static int open_verified(struct sfs_verified *v, const char *cache_dir,
                         const uint8_t sha256[32], off_t size)
{
	int fd = sfs_verified_reopen(v, sha256);
	char *path, *blocked;

	if (fd >= 0)
		return fd;
	if (!(path = blob_path(cache_dir, sha256)))
		return -ENOMEM;
	fd = sfs_verified_open(v, path, sha256, size, &blocked);
	free(blocked);
	free(path);
	if (fd == -EEXIST)
		return -EIO;
	return fd >= 0 || fd == -ENOMEM ? fd : -ENOENT;
}

/* Keeps bytes whose digest was checked in the cache. */
static int keep_verified(const char *cache_dir, const uint8_t sha256[32],
                         const void *p, size_t n)
{
	char *path = blob_path(cache_dir, sha256);
	int rc = path ? sfs_cache_mkdirs(path) : -ENOMEM;

	if (rc == 0)
		rc = sfs_cache_write(path, p, n, 0600, false);
	free(path);
	return rc;
}

/* The URL of a skill's file: BASE/.well-known/agent-skills/NAME/PATH. */
static char *file_url(const char *location, const char *name,
                      const char *path)
{
	char *url;

	return asprintf(&url, "%s" SFS_WK_PATH "%s/%s", location, name,
	                path) < 0 ? NULL : url;
}

/* ---- an update: the index fetched and stored as a listing ------------------ */

struct update {
	const char *location;
	const char *cache_dir;
	const char *state;
	const struct sfs_source_options *opts;
	char *why;
	size_t wlen;
	enum sfs_fetch_ahead ahead;
	size_t fetched;         /* bytes kept in the cache so far */
};

/* Counts n more bytes to keep: -EFBIG (why says so) past the bound. */
static int charge(struct update *up, size_t n)
{
	up->fetched += n;
	if (up->fetched <= MAX_UPDATE_BYTES)
		return 0;
	snprintf(up->why, up->wlen, "%s: the update fetched more than %u MiB; "
	         "stopped there", up->location, MAX_UPDATE_BYTES >> 20);
	return -EFBIG;
}

/* Fetches a file whole and keeps it when its bytes are f's (or, f
 * without a digest, whatever they are: f's digest is set to theirs):
 * 0 with *size, -EBADMSG when they are not (*why says so), or -errno. */
static int fetch_file(struct update *up, const char *name,
                      struct sfs_wk_file *f, long long *size)
{
	char *url = file_url(up->location, name, f->path), *body;
	size_t len;
	long long ignored;
	uint8_t sum[32];

	if (!url)
		return -ENOMEM;
	int rc = sfs_http_get(url, up->opts, false, &body, &len, &ignored,
	                      up->why, up->wlen);
	if (rc == 0) {
		sfs_sha256(body, len, sum);
		if (f->has_digest && memcmp(sum, f->sha256, 32) != 0) {
			snprintf(up->why, up->wlen, "%s: its bytes are not "
			         "those of its digest in the index", url);
			rc = -EBADMSG;
		}
	}
	if (rc == 0)
		rc = charge(up, len);
	if (rc == 0) {
		memcpy(f->sha256, sum, 32);
		*size = (long long)len;
		rc = keep_verified(up->cache_dir, sum, body, len);
	}
	free(body);
	free(url);
	return rc;
}

/* The size of the verified bytes of f the cache holds, or -1: hashed,
 * since anything the user runs may write there. */
static long long cached_size(const struct update *up,
                             const struct sfs_wk_file *f)
{
	char *path = blob_path(up->cache_dir, f->sha256);
	int fd = path ? sfs_cache_open_read(path) : -1;
	struct stat st;
	long long size = fd >= 0 && fstat(fd, &st) == 0 ? st.st_size : -1;

	free(path);
	if (fd >= 0)
		close(fd);
	fd = size >= 0 ? open_verified(NULL, up->cache_dir, f->sha256, size)
	               : -1;
	if (fd < 0)
		return -1;
	close(fd);
	return size;
}

/* The size of f: the index's, else the cache's, else a HEAD's, else the
 * file's fetched.  A SKILL.md is fetched when the cache does not hold it
 * (a build reads it), and so is every file of a v0.1 index, and every
 * file under a trust policy (up->ahead: the security pass judges it). */
static int file_size(struct update *up, const char *name,
                     struct sfs_wk_file *f, long long *size)
{
	bool fetch_now = !f->has_digest || strcmp(f->path, "SKILL.md") == 0 ||
	                 up->ahead == SFS_FETCH_ALL_FILES;
	char *url, *body;
	size_t len;

	if (!fetch_now && (*size = f->size) >= 0)
		return 0;
	if (f->has_digest && (*size = cached_size(up, f)) >= 0)
		return 0;
	if (fetch_now)
		return fetch_file(up, name, f, size);
	if (!(url = file_url(up->location, name, f->path)))
		return -ENOMEM;
	int rc = sfs_http_get(url, up->opts, true, &body, &len, size, up->why,
	                      up->wlen);
	free(url);
	/* a server that answers no HEAD (405), or without a length: the
	 * file is fetched now */
	if (rc == -ENOMEM || rc == -EACCES || rc == -ECANCELED ||
	    rc == -ETIMEDOUT || (rc == 0 && *size >= 0))
		return rc;
	return fetch_file(up, name, f, size);
}

/* A package's files, each kept in the cache as its digest is checked. */
struct pkg_sink {
	struct update *up;
	const struct sfs_wk_file *f;
	char *buf;
	size_t len, cap;
};

static int sink_open(void *arg, const struct sfs_wk_file *f)
{
	struct pkg_sink *k = arg;

	k->f = f;
	k->len = 0;
	return 0;
}

static int sink_write(void *arg, const void *p, size_t n)
{
	struct pkg_sink *k = arg;

	if (sfs_grow(&k->buf, &k->cap, k->len + n, 1) < 0)
		return -ENOMEM;
	memcpy(k->buf + k->len, p, n);
	k->len += n;
	return 0;
}

static int sink_close(void *arg, bool ok)
{
	struct pkg_sink *k = arg;

	if (!ok)
		return 0;
	int rc = charge(k->up, k->len);
	return rc < 0 ? rc : keep_verified(k->up->cache_dir, k->f->sha256,
	                                   k->buf, k->len);
}

/* The length of location's origin ("http://HOST:PORT"). */
static int origin_len(const char *location)
{
	const char *host = strstr(location, "://") + 3;
	const char *slash = strchr(host, '/');

	return slash ? (int)(slash - location) : (int)strlen(location);
}

/* Whether url is on the site's own origin, spelled as location spells it:
 * the site's token goes there only (as no redirect is followed), never to
 * a package the index names elsewhere, whose digest alone vouches for it. */
static bool same_origin(const char *location, const char *url)
{
	int origin = origin_len(location);

	return strncmp(url, location, (size_t)origin) == 0 &&
	       (url[origin] == '/' || url[origin] == '\0');
}

/* The package's URL: as given when absolute, else from the site's root
 * ("/...") or the index's folder. */
static char *package_url(const char *location, const char *url)
{
	char *out;
	int origin = origin_len(location);

	if (strncmp(url, PREFIX, strlen(PREFIX)) == 0 ||
	    strncmp(url, PREFIX_PLAIN, strlen(PREFIX_PLAIN)) == 0)
		return strdup(url);
	if (url[0] == '/')
		return asprintf(&out, "%.*s%s", origin, location, url) < 0 ?
		       NULL : out;
	return asprintf(&out, "%s" SFS_WK_PATH "%s", location, url) < 0 ?
	       NULL : out;
}

static int unpack(struct update *up, const struct sfs_wk_skill *s)
{
	char *url = package_url(up->location, s->package_url), *body;
	struct pkg_sink k = { .up = up };
	struct sfs_wk_sink sink = { .open = sink_open, .write = sink_write,
	                            .close = sink_close, .arg = &k };
	struct sfs_source_options opts = { 0 };
	size_t len;
	long long ignored;

	if (!url)
		return -ENOMEM;
	if (up->opts)
		opts = *up->opts;
	if (!same_origin(up->location, url))
		opts.token_file = NULL;
	int rc = sfs_http_get(url, &opts, false, &body, &len, &ignored,
	                      up->why, up->wlen);
	if (rc == 0) {
		rc = sfs_wk_package_unpack(body, len, s, &sink, up->why,
		                           up->wlen);
		if (rc == -EBADMSG && !strstr(up->why, url)) {
			size_t at = strlen(up->why);
			snprintf(up->why + at, up->wlen - at, "%s(package %s)",
			         at ? " " : "", url);
		}
	}
	free(body);
	free(k.buf);
	free(url);
	return rc < 0 ? rc : 0;
}

/* The listing's entry of one skill, or its "bad" reason. */
static int take_skill(struct update *up, struct sfs_wk_skill *s,
                      cJSON *skills)
{
	cJSON *o = cJSON_CreateObject(), *files = cJSON_CreateArray();
	char hex[7 + HEX_LEN + 1];
	int rc = o && files ? 0 : -ENOMEM;

	cJSON_AddItemToArray(skills, o);
	cJSON_AddItemToObject(o, "files", files);
	cJSON_AddStringToObject(o, "name", s->name);
	cJSON_AddStringToObject(o, "description", s->description);
	up->why[0] = '\0';
	if (rc == 0 && s->package_url)
		rc = unpack(up, s);
	for (size_t i = 0; rc == 0 && i < s->nfiles; i++) {
		long long size = -1;
		rc = file_size(up, s->name, &s->files[i], &size);
		cJSON *f = rc == 0 ? cJSON_CreateObject() : NULL;
		if (rc == 0 && !f)
			rc = -ENOMEM;
		if (rc < 0)
			break;
		memcpy(hex, "sha256:", 7);
		sfs_hex_encode(s->files[i].sha256, 32, hex + 7);
		cJSON_AddItemToArray(files, f);
		cJSON_AddStringToObject(f, "path", s->files[i].path);
		cJSON_AddStringToObject(f, "digest", hex);
		cJSON_AddNumberToObject(f, "size", (double)size);
	}
	/* a site that stopped answering ends the update at its first
	 * silence: each of its files would hold the other roots' updates
	 * again */
	if (rc == -ENOMEM || rc == -ECANCELED || rc == -EACCES ||
	    rc == -ETIMEDOUT || rc == -EFBIG)
		return rc;
	if (rc < 0)
		cJSON_AddStringToObject(o, "bad", up->why[0] ? up->why :
		                        sfs_strerror(-rc));
	return 0;
}

static cJSON *problems_of(const struct sfs_wk_index *idx)
{
	cJSON *v = cJSON_CreateArray();

	for (size_t i = 0; v && i < idx->nproblems; i++) {
		const struct sfs_wk_problem *p = &idx->problems[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToArray(v, o);
		cJSON_AddBoolToObject(o, "error", p->error);
		cJSON_AddStringToObject(o, "field", p->field);
		cJSON_AddStringToObject(o, "message", p->message);
	}
	return v;
}

/* Writes the listing doc as state/listing-<hex>, hex its digest, and
 * names it current, under the shared flock of leases/ (cache_gc.h's
 * sfs_cache_leases_share: a collection reads it or has moved away before
 * what it names; stored all the same when the flock cannot be had). */
static int store_listing(struct update *up, cJSON *doc, char *version,
                         size_t vlen)
{
	char *text = cJSON_PrintUnformatted(doc), *path = NULL;
	char hex[HEX_LEN + 1];
	uint8_t sum[32];
	int rc = text ? 0 : -ENOMEM;
	int held = sfs_cache_leases_share(up->cache_dir);

	if (rc == 0) {
		sfs_sha256(text, strlen(text), sum);
		sfs_hex_encode(sum, 32, hex);
		path = sfs_mcp_listing_path(up->state, hex);
		rc = path ? sfs_cache_mkdirs(path) : -ENOMEM;
	}
	if (rc == 0)
		rc = sfs_cache_write(path, text, strlen(text), 0600, false);
	free(path);
	path = NULL;
	if (rc == 0 && !(path = sfs_mcp_current_path(up->state)))
		rc = -ENOMEM;
	if (rc == 0)
		rc = sfs_cache_write(path, hex, HEX_LEN, 0600, false);
	if (rc < 0 && rc != -ENOMEM)
		snprintf(up->why, up->wlen, "cannot store the index of %s in "
		         "%s: %s", up->location, up->state, sfs_strerror(-rc));
	if (rc == 0)
		snprintf(version, vlen, "%s", hex);
	if (held >= 0)
		close(held);
	free(path);
	free(text);
	return rc;
}

/* The index at up->location, read into *idx, asked as the cache c
 * says (c->not_modified: the stored one stands, *idx left empty). */
static int fetch_index(struct update *up, struct sfs_http_cache *c,
                       struct sfs_wk_index *idx)
{
	char *url, *body;
	size_t len;

	if (asprintf(&url, "%s" SFS_WK_INDEX, up->location) < 0)
		return -ENOMEM;
	int rc = sfs_http_get_cached(url, up->opts, c, &body, &len, up->why,
	                             up->wlen);
	if (rc == 0 && !c->not_modified) {
		rc = sfs_wk_index_parse(body, len, idx);
		if (rc == -EINVAL && idx->nproblems)
			snprintf(up->why, up->wlen, "%s: %s%s%s", url,
			         idx->problems[idx->nproblems - 1].field,
			         idx->problems[idx->nproblems - 1].field[0] ?
			         ": " : "",
			         idx->problems[idx->nproblems - 1].message);
	}
	free(body);
	free(url);
	return rc;
}

/* Whether no skill of the listing's was left out. */
static bool whole(const cJSON *skills)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, skills)
		if (cJSON_GetObjectItemCaseSensitive(k, "bad"))
			return false;
	return true;
}

/* Stores what the index idx serves as the listing doc, named `version`,
 * with the answer's validators; what only the listing `before` (or "")
 * named goes. */
static int store_index(struct update *up, struct sfs_wk_index *idx,
                       cJSON *doc, const struct sfs_http_cache *cache,
                       const char *before, char *version, size_t vlen)
{
	cJSON *skills = cJSON_AddArrayToObject(doc, "skills");
	char v[24];
	int rc = skills ? 0 : -ENOMEM;

	snprintf(v, sizeof(v), "%u.%u", idx->major, idx->minor);
	cJSON_AddStringToObject(doc, "index", v);
	cJSON_AddBoolToObject(doc, "verifiable", idx->verifiable);
	cJSON_AddItemToObject(doc, "problems", problems_of(idx));
	for (size_t i = 0; rc == 0 && i < idx->nskills; i++)
		rc = take_skill(up, &idx->skills[i], skills);
	if (rc == 0)
		rc = store_listing(up, doc, version, vlen);
	/* a skill left out (a file the site did not send) is fetched again
	 * at the next update, never confirmed by a 304 */
	if (rc == 0 && (whole(skills) ? sfs_wk_validators_store(
	                    up->state, version, up->ahead, cache) : -EAGAIN) < 0)
		sfs_wk_validators_drop(up->state);
	/* a new listing: what only the ones before it named goes (a
	 * failure to remove is no failure of the update) */
	if (rc == 0 && strcmp(before, version) != 0)
		sfs_mcp_prune(up->cache_dir, up->state, before[0] ? before : NULL);
	return rc;
}

static int update(const char *root, const struct sfs_source_options *opts,
                  const char *cache_dir, enum sfs_fetch_ahead ahead,
                  char *version, size_t vlen, unsigned *ttl_ms, char *why,
                  size_t wlen)
{
	struct sfs_source_url u;
	struct sfs_wk_index idx = { 0 };
	struct sfs_http_cache cache = { 0 };
	cJSON *doc = cJSON_CreateObject();
	int rc = sfs_source_url_parse_why(root, &u, why, wlen);

	if (rc < 0) {
		cJSON_Delete(doc);
		return rc;
	}
	char *state = cache_dir ? state_path(cache_dir, u.location) : NULL;
	struct update up = { .location = u.location, .cache_dir = cache_dir,
	                     .state = state, .opts = opts, .why = why,
	                     .wlen = wlen, .ahead = ahead };
	if (!state) {
		snprintf(why, wlen, "no cache folder to fetch into (set "
		         "XDG_CACHE_HOME or HOME, or -o cache_dir)");
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = sfs_cache_check(cache_dir, why, wlen);
	char before[HEX_LEN + 1] = "";
	if (rc == 0 && sfs_mcp_current_hex(state, before) < 0)
		before[0] = '\0';
	/* asked conditionally only of the listing served now */
	if (rc == 0 && before[0])
		sfs_wk_validators_load(state, before, ahead, &cache);
	if (rc == 0)
		rc = !doc ? -ENOMEM : fetch_index(&up, &cache, &idx);
	if (rc == 0 && ttl_ms)
		*ttl_ms = sfs_http_cache_ttl_ms(&cache);
	if (rc == 0 && cache.not_modified)   /* nothing written, nor built */
		snprintf(version, vlen, "%s", before);
	else if (rc == 0)
		rc = store_index(&up, &idx, doc, &cache, before, version, vlen);
	if (rc == -ENOMEM && !why[0])
		snprintf(why, wlen, "out of memory");
	sfs_wk_index_free(&idx);
	cJSON_Delete(doc);
	free(state);
	sfs_source_url_free(&u);
	return rc;
}

/* ---- a build: the stored listing ------------------------------------------- */

struct wk_source {
	struct sfs_source_owned own;   /* url: the root as configured;
	                                  note: why the last update failed */
	struct sfs_fetched_root root;   /* its location, its folder in the
	                                   cache, the listing served */
	char *token_file;
	struct sfs_source_options opts;   /* token_file and stop */
	char keep[HEX_LEN + 1]; /* the listing to serve again, or "" */
	struct sfs_verified verified;   /* cache files verified since the
	                                   build, as sealed copies */
	void (*found)(void *);
	void *found_arg;
};

/* All of w, also a w open_state() gave up on half made. */
static void release(void *state)
{
	struct wk_source *w = state;

	sfs_verified_free(&w->verified);
	sfs_source_owned_free(&w->own);
	sfs_fetched_root_free(&w->root);
	free(w->token_file);
	free(w);
}

static void *open_state(const struct sfs_source_args *a)
{
	struct wk_source *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	sfs_verified_init(&w->verified);
	if (a->version)
		snprintf(w->keep, sizeof(w->keep), "%s", a->version);
	if (sfs_source_owned_copy(a, &w->own) < 0 ||
	    !sfs_strdup_or_null(a->opts ? a->opts->token_file : NULL,
	                        &w->token_file)) {
		release(w);
		return NULL;
	}
	w->opts = (struct sfs_source_options){
		.token_file = w->token_file,
		.stop = a->opts ? a->opts->stop : NULL,
		.stop_arg = a->opts ? a->opts->stop_arg : NULL,
	};
	w->found = a->found;
	w->found_arg = a->found_arg;
	return w;
}

static const char *version(const struct sfs_source *src)
{
	const struct wk_source *w = src->state;
	return w && w->root.ready ? w->root.served.hex : NULL;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* What the index itself was found to hold wrong, as findings. */
static int report_index(struct wk_source *w, struct sfs_scan *s)
{
	const cJSON *p, *doc = w->root.served.doc;
	int rc = 0;

	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "verifiable")))
		rc = sfs_diag_add_root(s->global, SFS_WARNING, w->own.url, "the "
		                       "index (version %s) gives no digests: "
		                       "nothing it serves can be verified",
		                       str_of(doc, "index"));
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc,
	                                                       "problems")) {
		const char *field = str_of(p, "field");
		if (rc == 0)
			rc = sfs_diag_add_root(s->global, cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(p, "error")) ?
			    SFS_ERROR : SFS_WARNING, w->own.url,
			    "index.json%s%s: %s", field && *field ? ": " : "",
			    field ? field : "", str_of(p, "message"));
	}
	return rc;
}

/* The skill's entry of the listing at dir (URL/NAME), or NULL. */
static const cJSON *find_skill(const struct wk_source *w, const char *dir)
{
	size_t n = strlen(w->own.url);
	const cJSON *k;

	if (strncmp(dir, w->own.url, n) != 0 || dir[n] != '/')
		return NULL;
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(w->root.served.doc,
	                                                       "skills")) {
		const char *name = str_of(k, "name");
		if (name && strcmp(name, dir + n + 1) == 0 &&
		    !str_of(k, "bad"))
			return k;
	}
	return NULL;
}

static int add_found(struct wk_source *w, struct sfs_scan *s, unsigned idx)
{
	struct sfs_arena *a = s->paths ? s->paths : s->arena;
	const cJSON *k;
	size_t n = 0;
	int rc = 0;

	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(w->root.served.doc,
	                                                       "skills")) {
		const char *bad = str_of(k, "bad");
		if (rc < 0)
			break;
		if (bad) {
			rc = sfs_diag_add_root(s->global, SFS_ERROR, w->own.url,
			                       "%s: not served: %s",
			                       str_of(k, "name"), bad);
			continue;
		}
		const char *dir = sfs_arena_printf(a, "%s/%s", w->own.url,
		                                   str_of(k, "name"));
		if (!dir || sfs_grow(&s->found, &s->capfound, s->nfound + 1,
		                     sizeof(*s->found)) < 0)
			return -ENOMEM;
		s->found[s->nfound++] = (struct sfs_found){
			.dir = dir, .skill_md = "SKILL.md", .root = idx,
		};
		n++;
	}
	if (rc == 0 && n == 0)
		rc = sfs_diag_add_root(s->global, SFS_WARNING, w->own.url,
		                       "no skill found: %s" SFS_WK_INDEX
		                       " lists none", w->root.location);
	return rc;
}

static int discover(const struct sfs_source *src, struct sfs_scan *s,
                    unsigned idx, bool *exists)
{
	struct wk_source *w = src->state;
	int rc = sfs_fetched_discover(s, &w->own, state_path, w->keep, "index",
	                              &w->root, exists);

	if (rc <= 0)
		return rc;
	rc = report_index(w, s);
	if (rc == 0)
		rc = add_found(w, s, idx);
	return rc;
}

/* ---- one skill's files ------------------------------------------------------ */

struct lister {
	const struct wk_source *w;
	const struct sfs_found *f;
	struct sfs_arena *arena;
	struct sfs_diag_list *diags;
	struct sfs_listed *out;     /* what is listed so far */
};

/* Whether a read found the file with this digest served with other
 * bytes: 1 with *message saying what it got (malloc'd), from the record
 * open_file wrote (sfs_mcp_note_mismatch's, which mcp_prune.c removes
 * once no kept listing names the digest); 0 when none; -ENOMEM. */
static int mismatched(const struct wk_source *w, const uint8_t sha256[32],
                      char **message)
{
	char *path = sfs_mcp_mismatch_path(w->root.state, sha256), *text;
	struct stat st;
	size_t len;

	*message = NULL;
	if (!path)
		return -ENOMEM;
	int rc = sfs_fetched_read(path, 4096, &text, &len, &st);
	free(path);
	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	cJSON *o = cJSON_ParseWithLength(text, len);
	const cJSON *gn = cJSON_GetObjectItemCaseSensitive(o, "served_size");
	const cJSON *wn = cJSON_GetObjectItemCaseSensitive(o, "listed_size");
	const char *url = str_of(o, "uri"), *got = str_of(o, "served");
	const char *want = str_of(o, "listed");
	free(text);
	if (url && got && want && cJSON_IsNumber(gn) && cJSON_IsNumber(wn))
		rc = asprintf(message, "%s sent %.0f bytes with sha256:%s, not "
		              "the %.0f bytes with sha256:%s the index gives",
		              url, gn->valuedouble, got, wn->valuedouble, want);
	else
		rc = asprintf(message, "its bytes were found not to be those "
		              "of its digest");
	cJSON_Delete(o);
	return rc < 0 ? -ENOMEM : 1;
}

/* Whether rel lies in a folder a skill does not serve (a hidden one,
 * node_modules), as a folder's scan skips it. */
static bool in_hidden_folder(const char *rel)
{
	char part[SFS_WK_MAX_PATH + 1];

	for (const char *c = rel, *end; (end = strchr(c, '/')); c = end + 1) {
		snprintf(part, sizeof(part), "%.*s", (int)(end - c), c);
		if (sfs_scan_hidden_in_skill(part))
			return true;
	}
	return false;
}

static int add_file(void *arg, struct sfs_listed *out, const cJSON *jf)
{
	struct lister *l = arg;

	l->out = out;
	const char *rel = str_of(jf, "path"), *hex = str_of(jf, "digest");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(jf, "size");
	uint8_t sha256[32];
	char *message;

	if (hex && strncmp(hex, "sha256:", 7) == 0)
		hex += 7;
	else
		hex = NULL;
	if (!rel || !hex || !cJSON_IsNumber(size) ||
	    strlen(hex) != HEX_LEN || !sfs_hex_decode(hex, 32, sha256, true))
		return sfs_diag_add(l->diags, SFS_ERROR, l->f->dir, 0, 0, "",
		                    "the stored index is damaged; fetch again");
	int bad = mismatched(l->w, sha256, &message);
	if (bad < 0)
		return bad;
	if (bad) {
		int rc = sfs_diag_add(l->diags, SFS_ERROR, l->f->dir, 0, 0, "",
		                      "%s: %s; the skill is not served", rel,
		                      message);
		free(message);
		return rc;
	}
	if (in_hidden_folder(rel))
		return 0;
	char *path = sfs_arena_strdup(l->arena, rel);
	if (!path)
		return -ENOMEM;
	return sfs_listed_add_file(l->out, path, (off_t)size->valuedouble,
	                           sha256, NULL);
}

static int list(const struct sfs_source *src, struct sfs_scan *s,
                struct sfs_found *f, struct sfs_arena *arena,
                struct sfs_diag_list *diags, struct sfs_tree *out)
{
	struct wk_source *w = src->state;
	struct lister l = { .w = w, .f = f, .arena = arena, .diags = diags };
	const cJSON *k = find_skill(w, f->dir);
	uint8_t id[32];

	memset(out, 0, sizeof(*out));
	if (!k)
		return sfs_diag_add(diags, SFS_ERROR, f->dir, 0, 0, "",
		                    "not in the index of %s", w->root.location);
	char *text = cJSON_PrintUnformatted(k);
	if (!text)
		return -ENOMEM;
	sfs_sha256(text, strlen(text), id);
	free(text);
	return sfs_fetched_list(s, f->dir, arena, diags, &w->root.served, id,
	                        cJSON_GetObjectItemCaseSensitive(k, "files"),
	                        add_file, &l, out);
}

/* ---- reads ------------------------------------------------------------------ */

static int open_skill_md(const struct sfs_source *src, const char *path,
                         const struct sfs_file *f, struct stat *st)
{
	struct wk_source *w = src->state;

	(void)path;
	if (!w || !sfs_fetched_can_open(&w->root, f))
		return -EINVAL;
	int fd = open_verified(&w->verified, w->own.cache_dir, f->sha256,
	                       f->size);
	if (fd == -ENOENT)
		return -EAGAIN;   /* gone from the cache: the index's name and
		                     description are validated meanwhile */
	if (fd >= 0)
		sfs_source_listed_stat(f, st);
	return fd;
}

static cJSON *listed_frontmatter(const struct sfs_source *src,
                                 const char *dir)
{
	const struct wk_source *w = src->state;
	const cJSON *k = w ? find_skill(w, dir) : NULL;
	cJSON *fm = k ? cJSON_CreateObject() : cJSON_CreateNull();

	if (k && fm) {
		cJSON_AddStringToObject(fm, "name", str_of(k, "name"));
		cJSON_AddStringToObject(fm, "description",
		                        str_of(k, "description"));
	}
	return fm;
}

/* Records that url served other bytes than f's digest, for the next
 * build, and says so to the caller (sfs_config.found). */
static void note_mismatch(const struct wk_source *w, const char *url,
                          const struct sfs_file *f, const uint8_t got[32],
                          size_t len)
{
	struct sfs_mcp_file want = { .uri = url, .size = f->size };

	memcpy(want.sha256, f->sha256, 32);
	sfs_mcp_note_mismatch(w->root.state, &want, (off_t)len, got, NULL, true);
	if (w->found)
		w->found(w->found_arg);
}

/* A file not in the cache yet is fetched at its first read: served only
 * when its bytes are those of its digest, else an error (EIO) for the
 * reader and a finding of a build made at once (sfs_config.found). */
static int open_file(const struct sfs_source *src, int root_fd,
                     const struct sfs_skill *s, const struct sfs_file *f)
{
	struct wk_source *w = src->state;
	char why[1024], *body, *url;
	size_t len;
	long long ignored;
	uint8_t sum[32];

	(void)root_fd;
	if (!w || !sfs_fetched_can_open(&w->root, f))
		return -EINVAL;
	int fd = open_verified(&w->verified, w->own.cache_dir, f->sha256,
	                       f->size);
	if (fd != -ENOENT)
		return fd;
	const cJSON *k = find_skill(w, s->dir);
	if (!k || !(url = file_url(w->root.location, str_of(k, "name"), f->source)))
		return k ? -ENOMEM : -EIO;
	int rc = sfs_http_get(url, &w->opts, false, &body, &len, &ignored, why,
	                      sizeof(why));
	if (rc == 0) {
		sfs_sha256(body, len, sum);
		if ((off_t)len != f->size || memcmp(sum, f->sha256, 32) != 0) {
			note_mismatch(w, url, f, sum, len);
			rc = -EIO;
		}
	}
	free(url);
	if (rc == 0) {
		keep_verified(w->own.cache_dir, sum, body, len);
		rc = sfs_verified_add(&w->verified, sum, body, len);
	}
	free(body);
	return rc == -ENOMEM || rc >= 0 ? rc : -EIO;
}

/* The website's folder of listings (its verified files are shared). */
static char *cache_path(const struct sfs_source_url *u, const char *cache_dir)
{
	return state_path(cache_dir, u->location);
}

/* A file's verified bytes, only from the cache (the security pass's). */
static int open_at_hand(const struct sfs_source *src,
                        const struct sfs_file *f)
{
	struct wk_source *w = src->state;

	if (!w || !sfs_fetched_can_open(&w->root, f))
		return -EINVAL;
	return open_verified(&w->verified, w->own.cache_dir, f->sha256, f->size);
}

static const struct sfs_cache_place cache_places[] = {
	{ "wellknown", SFS_CACHE_LISTINGS },
	{ "wellknown/blobs", SFS_CACHE_BLOBS },
	{ NULL, 0 },
};

const struct sfs_source_ops sfs_source_wellknown = {
	.kind = "wellknown",
	.open = open_state,
	.update = update,
	.cache_path = cache_path,
	.cache_places = cache_places,
	.discover = discover,
	.list = list,
	.open_skill_md = open_skill_md,
	.listed_frontmatter = listed_frontmatter,
	.open_file = open_file,
	.open_at_hand = open_at_hand,
	.version = version,
	.version_key = "index",
	.release = release,
};
