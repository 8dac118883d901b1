/*
 * source_mcp_fetch.c - bringing an MCP root up to date, and fetching one
 * of its files: the network side of source_mcp.c.
 *
 * An update lists the server's skills (skills/list, every page) and
 * stores the listing: SEP-2640 has a host fetch "a SKILL.md when the skill
 * is loaded, and a supporting file when it is read", never on listing, and
 * the mount's first generation is built from the frontmatter the listing
 * gives (source_mcp.c).  Every file, SKILL.md included, is fetched on its
 * first read (resources/read) and kept only when its bytes have the size
 * and sha256 the listing gives, and for a SKILL.md a frontmatter equal to
 * the listed one field by field.  (skillsfs check asks for every SKILL.md
 * with the listing, to validate each file itself; a trust policy,
 * withhold or hold, for every file, so that the security pass judges a
 * skill whole before it is served.)
 *
 * The cache folder holds, below mcp/:
 *
 *   blobs/<sha256 hex>             verified bytes, by digest, shared by
 *                                  every server (the same bytes are the
 *                                  same file wherever they come from)
 *   <name>-<hash of URL>/listing-<hex>.json
 *                                  a listing as fetched, named by the
 *                                  digest of its skills: the root's version
 *   <name>-<hash of URL>/current   the hex of the listing to serve
 *   <name>-<hash of URL>/mismatch-<listed hex>.json
 *                                  a file whose bytes did not match the
 *                                  listing (or a SKILL.md whose
 *                                  frontmatter did not): status.json
 *                                  reports it
 *
 * The server is reached through mcp_client/client.h, over HTTP (with the
 * bearer token of the root's token_file, read when a fetch or a read starts) or
 * over the stdio of a command run for the update, and for the reads by
 * the source's state (source_mcp.c), which keeps it.
 *
 * A new listing prunes the cache (mcp_prune.c): the listings but the new
 * one and the one it replaces, and the verified files no listing names.
 *
 * Everything is written under a temporary name and renamed into place, so
 * a reader (the mount, another mount of the same server) never sees half
 * a file.  This runs on the mount's fetcher thread (an update) or on the
 * thread of a read (one file), never in a build.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/base64.h>

#include "cache_gc.h"
#include "mcp_client/client.h"
#include "snapshot.h"
#include "source.h"
#include "trust.h"

/* Pages of skills/list at most: a server whose cursors never end. */
#define MAX_PAGES 10000
/* Skills of one listing at most, all pages together: as many as the
 * files a mount serves by default (catalog.c), each skill being one at
 * least.  Without it a server whose pages never end, each full of
 * skills, grew the daemon by a gigabyte in seconds. */
#define MAX_SKILLS 100000
/* What one update may fetch ahead into the cache at most (the default
 * cache_max): each file is bounded by an answer's size, but a listing
 * whose every SKILL.md is large filled the disk. */
#define MAX_AHEAD_BYTES (1ull << 30)

/* Writes n bytes of p to `path` through a temporary file beside it. */
static int write_file(const char *path, const void *p, size_t n)
{
	return sfs_cache_write(path, p, n, 0600, false);
}

/* ---- one file ------------------------------------------------------------ */

/* The bytes of the content of `uri` in a resources/read result, malloc'd
 * into *out (text as UTF-8, a blob decoded). */
static int content_bytes(const cJSON *result, const char *uri, char **out,
                         size_t *len)
{
	const cJSON *contents = cJSON_GetObjectItemCaseSensitive(result,
	                                                         "contents");
	const cJSON *c, *pick = NULL;

	cJSON_ArrayForEach(c, contents) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(c, "uri");
		if (!pick || (cJSON_IsString(u) &&
		              strcmp(u->valuestring, uri) == 0))
			pick = c;
	}
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(pick, "text");
	const cJSON *blob = cJSON_GetObjectItemCaseSensitive(pick, "blob");
	if (cJSON_IsString(text)) {
		*len = strlen(text->valuestring);
		*out = malloc(*len + 1);
		if (!*out)
			return -ENOMEM;
		memcpy(*out, text->valuestring, *len + 1);
		return 0;
	}
	if (!cJSON_IsString(blob))
		return -EPROTO;
	struct base64_decode_ctx ctx;
	size_t in = strlen(blob->valuestring);
	*out = malloc(BASE64_DECODE_LENGTH(in) + 1);
	if (!*out)
		return -ENOMEM;
	base64_decode_init(&ctx);
	*len = BASE64_DECODE_LENGTH(in);
	if (!base64_decode_update(&ctx, len, (uint8_t *)*out, in,
	                          blob->valuestring) ||
	    !base64_decode_final(&ctx)) {
		free(*out);
		*out = NULL;
		return -EPROTO;
	}
	return 0;
}

/* A record of want's file for status.json (mismatch-<hex>.json): its
 * URI and the size and digest listed, to which the caller adds what it
 * found; NULL when out of memory. */
static cJSON *record_of(const struct sfs_mcp_file *want)
{
	char lh[65];
	cJSON *o = cJSON_CreateObject();

	sfs_hex_encode(want->sha256, 32, lh);
	cJSON_AddStringToObject(o, "uri", want->uri);
	cJSON_AddNumberToObject(o, "listed_size", (double)want->size);
	cJSON_AddStringToObject(o, "listed", lh);
	return o;
}

/* Stores record o (taken) of want's file in the server's folder state:
 * 0 or -errno. */
static int store_record(const char *state, const struct sfs_mcp_file *want,
                        cJSON *o)
{
	char *path = state ? sfs_mcp_mismatch_path(state, want->sha256) : NULL;
	char *text = path && o ? cJSON_PrintUnformatted(o) : NULL;
	int rc = text ? write_file(path, text, strlen(text)) : -ENOMEM;

	cJSON_Delete(o);
	free(text);
	free(path);
	return rc;
}

void sfs_mcp_note_mismatch(const char *state, const struct sfs_mcp_file *want,
                           off_t got_size, const uint8_t got[32],
                           const char *field, bool bad)
{
	char gh[65], *path;

	if (!bad) {
		path = state ? sfs_mcp_mismatch_path(state, want->sha256) : NULL;
		if (path)
			sfs_cache_unlink(path);
		free(path);
		return;
	}
	cJSON *o = record_of(want);
	sfs_hex_encode(got, 32, gh);
	cJSON_AddNumberToObject(o, "served_size", (double)got_size);
	cJSON_AddStringToObject(o, "served", gh);
	if (field)
		cJSON_AddStringToObject(o, "frontmatter", field);
	store_record(state, want, o);
}

int sfs_mcp_note_blocked(const char *state, const struct sfs_mcp_file *want,
                         const char *why)
{
	cJSON *o = record_of(want);

	cJSON_AddStringToObject(o, "blocked", why);
	return store_record(state, want, o);
}

/* Appends the name of the field at `key` to the path in p (a dotted
 * field, or an index in brackets). */
static void field_path(char *p, size_t plen, const char *key, int index)
{
	size_t n = strlen(p);

	if (key)
		snprintf(p + n, plen - n, "%s%s", n ? "." : "", key);
	else
		snprintf(p + n, plen - n, "[%d]", index);
}

/* Whether the listed frontmatter and the parsed one differ (SEP-2640:
 * every key both ways, objects in any order, arrays in order, numbers by
 * value, no coercion); p gets the first differing field's path, empty for
 * the whole. */
static bool differs(const cJSON *listed, const cJSON *parsed, char *p,
                    size_t plen)
{
	size_t n = strlen(p);
	const cJSON *c;
	int i = 0;

	if (cJSON_IsArray(listed) && cJSON_IsArray(parsed)) {
		if (cJSON_GetArraySize(listed) != cJSON_GetArraySize(parsed))
			return true;
		for (c = listed->child; c; c = c->next, i++) {
			field_path(p, plen, NULL, i);
			if (differs(c, cJSON_GetArrayItem(parsed, i), p, plen))
				return true;
			p[n] = '\0';
		}
		return false;
	}
	if (cJSON_IsObject(listed) && cJSON_IsObject(parsed)) {
		for (int pass = 0; pass < 2; pass++) {
			const cJSON *from = pass ? parsed : listed;
			const cJSON *to = pass ? listed : parsed;
			for (c = from->child; c; c = c->next) {
				const cJSON *o =
					cJSON_GetObjectItemCaseSensitive(to, c->string);
				field_path(p, plen, c->string, 0);
				if (!o || differs(pass ? o : c, pass ? c : o, p, plen))
					return true;
				p[n] = '\0';
			}
		}
		return false;
	}
	return !cJSON_Compare(listed, parsed, true);
}

/* Why the SKILL.md bytes do not give the listed frontmatter, or NULL:
 * "the frontmatter" when it cannot be parsed, else the first field that
 * differs (in field, flen bytes). */
static const char *frontmatter_differs(const char *bytes, size_t len,
                                       const cJSON *listed, char *field,
                                       size_t flen)
{
	cJSON *parsed = sfs_skillmd_frontmatter(bytes, len, NULL);
	bool bad;

	field[0] = '\0';
	bad = !parsed || differs(listed, parsed, field, flen);
	cJSON_Delete(parsed);
	if (!bad)
		return NULL;
	if (!field[0])
		snprintf(field, flen, "the frontmatter");
	return field;
}

/* resources/read of want->uri through c, kept in the blob cache when its
 * size and digest are the listing's (and for a SKILL.md, its
 * frontmatter). */
static int fetch_with(struct sfs_mcp_client *c, const char *cache_dir,
                      const char *state, const struct sfs_mcp_file *want,
                      char *why, size_t wlen)
{
	cJSON *params = cJSON_CreateObject(), *result;
	char *bytes = NULL, *blob;
	size_t len = 0;
	uint8_t got[32];

	cJSON_AddStringToObject(params, "uri", want->uri);
	int rc = sfs_mcp_client_call(c, "resources/read", params, &result, why,
	                           wlen);
	if (rc < 0)
		return rc;
	rc = content_bytes(result, want->uri, &bytes, &len);
	cJSON_Delete(result);
	if (rc < 0) {
		snprintf(why, wlen, "%s: no content in the answer to "
		         "resources/read", want->uri);
		return rc;
	}
	sfs_sha256(bytes, len, got);
	if ((off_t)len != want->size || memcmp(got, want->sha256, 32) != 0) {
		char lh[65], gh[65];
		sfs_hex_encode(want->sha256, 32, lh);
		sfs_hex_encode(got, 32, gh);
		snprintf(why, wlen, "%s: the server sent %zu bytes with sha256:%s"
		         ", not the %lld bytes with sha256:%s it listed; not "
		         "served", want->uri, len, gh, (long long)want->size, lh);
		sfs_mcp_note_mismatch(state, want, (off_t)len, got, NULL,
		                      true);
		free(bytes);
		return -EBADMSG;
	}
	char fbuf[256];
	const char *field = want->frontmatter ?
		frontmatter_differs(bytes, len, want->frontmatter, fbuf,
		                    sizeof(fbuf)) : NULL;
	if (field) {
		snprintf(why, wlen, "%s: its frontmatter differs from the "
		         "listing's in %s; not served", want->uri, field);
		sfs_mcp_note_mismatch(state, want, (off_t)len, got, field,
		                      true);
		free(bytes);
		return -EBADMSG;
	}
	sfs_mcp_note_mismatch(state, want, (off_t)len, got, NULL, false);
	blob = sfs_mcp_blob_path(cache_dir, got);
	rc = blob ? write_file(blob, bytes, len) : -ENOMEM;
	if (rc < 0)
		snprintf(why, wlen, "cannot store %s in %s: %s", want->uri,
		         blob ? blob : cache_dir, sfs_strerror(-rc));
	free(blob);
	free(bytes);
	return rc;
}

int sfs_mcp_fetch_file(struct sfs_mcp_client **client, const char *location,
                       const struct sfs_source_options *opts,
                       const char *cache_dir, const struct sfs_mcp_file *want,
                       char *why, size_t wlen)
{
	char *state = sfs_mcp_state_path(cache_dir, location);
	int rc = state ? 0 : -ENOMEM;

	/* a client kept from before may have lost its connection, its token
	 * (rotated in the file) or its server (a command that ended): once
	 * more with a new one */
	for (int fresh = !*client; rc == 0 && fresh < 2; fresh++) {
		if (!*client)
			rc = sfs_mcp_client_open(location, opts, client, why,
			                         wlen);
		if (rc == 0)
			rc = fetch_with(*client, cache_dir, state, want, why, wlen);
		if (rc == 0 || rc == -EBADMSG || rc == -ENOMEM)
			break;
		sfs_mcp_client_close(*client);
		*client = NULL;
		if (!fresh)
			rc = 0;
	}
	free(state);
	return rc;
}

/* ---- the listing ---------------------------------------------------------- */

/* The smallest of *ttl_ms and a result's ttlMs (SEP-2549: how long the
 * listing stays fresh), which 0 or none leaves as it is. */
static void take_ttl(const cJSON *result, unsigned *ttl_ms)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(result, "ttlMs");

	if (!cJSON_IsNumber(t) || t->valuedouble < 1 ||
	    t->valuedouble > 86400e3 * 24)
		return;
	if (!*ttl_ms || (unsigned)t->valuedouble < *ttl_ms)
		*ttl_ms = (unsigned)t->valuedouble;
}

/* About the bytes n and the nodes after it take in JSON: every key and
 * string with its quotes, 24 for a number, true, false or null.  Walked,
 * not printed: printing each page again cost 2.6 ms per 1,000 skills (a
 * fortieth of a first mount), walking 0.18 ms. */
static size_t json_size(const cJSON *n)
{
	size_t s = 0;

	for (; n; n = n->next) {
		if (n->string)
			s += strlen(n->string) + 3;
		if (cJSON_IsString(n))
			s += strlen(n->valuestring) + 2;
		else if (cJSON_IsArray(n) || cJSON_IsObject(n))
			s += 2 + json_size(n->child);
		else
			s += 24;
	}
	return s;
}

/* Adds a page's skills to the *listed skills and *bytes of the pages
 * before it: -EFBIG (why says so) once the listing passes what a mount
 * keeps of one, in skills or in the bytes it is stored in. */
static int bound_listing(struct sfs_mcp_client *c, const cJSON *list,
                         size_t *listed, size_t *bytes, char *why,
                         size_t wlen)
{
	*bytes += json_size(list->child);
	*listed += (size_t)cJSON_GetArraySize(list);
	if (*listed > MAX_SKILLS) {
		snprintf(why, wlen, "%s: skills/list lists more than %d skills",
		         sfs_mcp_client_name(c), MAX_SKILLS);
		return -EFBIG;
	}
	if (*bytes > SFS_FETCHED_LISTING_MAX) {
		snprintf(why, wlen, "%s: skills/list lists more than %d MiB of "
		         "skills", sfs_mcp_client_name(c),
		         SFS_FETCHED_LISTING_MAX >> 20);
		return -EFBIG;
	}
	return 0;
}

/* Every skills/list page, its entries appended to `skills`. */
static int list_all(struct sfs_mcp_client *c, cJSON *skills, unsigned *ttl_ms,
                    char *why, size_t wlen)
{
	char *cursor = NULL;
	size_t listed = 0, bytes = 0;
	int rc = 0;

	for (int page = 0; rc == 0; page++) {
		cJSON *params = cJSON_CreateObject(), *result, *e;
		if (cursor)
			cJSON_AddStringToObject(params, "cursor", cursor);
		free(cursor);
		cursor = NULL;
		rc = sfs_mcp_client_call(c, "skills/list", params, &result, why,
		                       wlen);
		if (rc < 0)
			break;
		take_ttl(result, ttl_ms);
		cJSON *list = cJSON_GetObjectItemCaseSensitive(result, "skills");
		const cJSON *next = cJSON_GetObjectItemCaseSensitive(result,
		                                                     "nextCursor");
		if (!cJSON_IsArray(list)) {
			snprintf(why, wlen, "%s: skills/list answered without "
			         "a list of skills", sfs_mcp_client_name(c));
			rc = -EPROTO;
		}
		if (rc == 0)
			rc = bound_listing(c, list, &listed, &bytes, why, wlen);
		while (rc == 0 && (e = cJSON_DetachItemFromArray(list, 0)))
			cJSON_AddItemToArray(skills, e);
		if (rc == 0 && cJSON_IsString(next) && *next->valuestring) {
			cursor = strdup(next->valuestring);
			rc = !cursor ? -ENOMEM : page + 1 < MAX_PAGES ? 0 :
			     (snprintf(why, wlen, "%s: skills/list has more "
			               "than %d pages", sfs_mcp_client_name(c),
			               MAX_PAGES), -EPROTO);
		}
		cJSON_Delete(result);
		if (!cursor)
			break;
	}
	free(cursor);
	return rc;
}

/* want fetched unless the blob cache holds it: 0, or what stops the
 * update (a file that does not match the listing is recorded and left
 * out: discover or its read reports it). */
static int fetch_missing(struct sfs_mcp_client *c, const char *cache_dir,
                         const char *state, const struct sfs_mcp_file *want,
                         unsigned long long *fetched, char *why, size_t wlen)
{
	char *blob = sfs_mcp_blob_path(cache_dir, want->sha256);
	if (!blob)
		return -ENOMEM;
	if (access(blob, F_OK) == 0) {
		free(blob);
		why[0] = '\0';
		return 0;
	}
	free(blob);
	/* the listed size: bytes of another size are not kept */
	*fetched += want->size > 0 ? (unsigned long long)want->size : 0;
	if (*fetched > MAX_AHEAD_BYTES) {
		snprintf(why, wlen, "%s: the update would fetch more than %llu "
		         "MiB of files ahead; stopped there",
		         sfs_mcp_client_name(c), MAX_AHEAD_BYTES >> 20);
		return -ENOSPC;   /* not -EFBIG: one answer too large */
	}
	int rc = fetch_with(c, cache_dir, state, want, why, wlen);
	if (rc < 0 && rc != -EBADMSG && rc != -EPROTO)
		return rc;
	why[0] = '\0';
	return 0;
}

/* Every file an entry lists besides its SKILL.md (a trust policy's: the
 * security pass judges each before the skill is served).  A resource
 * without a size and a digest is left for list() to report. */
static int fetch_resources(struct sfs_mcp_client *c, const char *cache_dir,
                           const char *state, const cJSON *entry,
                           const struct sfs_mcp_file *md,
                           unsigned long long *fetched, char *why,
                           size_t wlen)
{
	const cJSON *r;
	int rc = 0;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(entry,
	                                                       "resources")) {
		struct sfs_mcp_file want;
		if (sfs_mcp_file_parse(r, &want) < 0 ||
		    strcmp(want.uri, md->uri) == 0)
			continue;
		rc = fetch_missing(c, cache_dir, state, &want, fetched, why,
		                   wlen);
		/* larger than an answer may be: never served, and the
		 * security pass says it could not judge it */
		if (rc == -EFBIG)
			rc = 0;
		if (rc < 0)
			break;
		why[0] = '\0';
	}
	return rc;
}

/* Reads and keeps what the blob cache does not hold yet of each skill:
 * its SKILL.md when the entry gives no frontmatter to build from, or
 * (ahead) every SKILL.md, or every file. */
static int fetch_ahead(struct sfs_mcp_client *c, const char *cache_dir,
                       const char *state, const cJSON *skills,
                       enum sfs_fetch_ahead ahead, char *why, size_t wlen)
{
	const cJSON *entry;
	unsigned long long fetched = 0;
	int rc = 0;

	cJSON_ArrayForEach(entry, skills) {
		struct sfs_mcp_file want;
		if (sfs_mcp_skill_md_of(entry, &want) < 0)
			continue;   /* discover says what is wrong with it */
		if (ahead == SFS_FETCH_LISTING &&
		    cJSON_IsObject(want.frontmatter))
			continue;   /* fetched when it is read */
		rc = fetch_missing(c, cache_dir, state, &want, &fetched, why,
		                   wlen);
		if (rc == 0 && ahead == SFS_FETCH_ALL_FILES)
			rc = fetch_resources(c, cache_dir, state, entry, &want,
			                     &fetched, why, wlen);
		if (rc < 0)
			break;
	}
	return rc;
}

/* Stores the listing of `location` under state; its digest in version. */
static int store_listing(const char *state, const char *location,
                         cJSON *skills, char *version, size_t vlen,
                         char *why, size_t wlen)
{
	char *text = cJSON_PrintUnformatted(skills), *path = NULL, h[65];
	uint8_t sum[32];
	int rc = -ENOMEM;

	if (!text)
		return -ENOMEM;
	sfs_sha256(text, strlen(text), sum);
	sfs_hex_encode(sum, 32, h);
	free(text);
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "url", location);
	cJSON_AddItemReferenceToObject(doc, "skills", skills);
	text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (text && (path = sfs_mcp_listing_path(state, h))) {
		rc = access(path, F_OK) == 0 ? 0 :
		     write_file(path, text, strlen(text));
		free(path);
		path = NULL;
		if (rc == 0 && !(path = sfs_mcp_current_path(state)))
			rc = -ENOMEM;
		if (rc == 0)
			rc = write_file(path, h, strlen(h));
		if (rc < 0 && rc != -ENOMEM)
			snprintf(why, wlen, "cannot store the listing of %s "
			         "in %s: %s", location, state, sfs_strerror(-rc));
	}
	free(path);
	free(text);
	snprintf(version, vlen, "%s", h);
	return rc;
}

int sfs_source_mcp_update(const char *root,
                          const struct sfs_source_options *opts,
                          const char *cache_dir, enum sfs_fetch_ahead ahead,
                          char *version, size_t vlen, unsigned *ttl_ms,
                          char *why, size_t wlen)
{
	struct sfs_source_url u;
	int rc = sfs_source_url_parse_why(root, &u, why, wlen);

	if (rc < 0)
		return rc;
	char *state = sfs_mcp_state_path(cache_dir, u.location);
	if (!state) {
		snprintf(why, wlen, "no cache folder to fetch into "
		         "(set XDG_CACHE_HOME or HOME, or -o cache_dir)");
		sfs_source_url_free(&u);
		return -EINVAL;
	}
	if ((rc = sfs_cache_check(cache_dir, why, wlen)) < 0) {
		free(state);
		sfs_source_url_free(&u);
		return rc;
	}
	struct sfs_mcp_client *c;
	cJSON *skills = cJSON_CreateArray();
	char before[65] = "";
	if (sfs_mcp_current_hex(state, before) < 0)
		before[0] = '\0';
	rc = sfs_mcp_client_open(u.location, opts, &c, why, wlen);
	if (rc == 0)
		rc = !skills ? -ENOMEM : list_all(c, skills, ttl_ms, why, wlen);
	if (rc == 0)
		rc = fetch_ahead(c, cache_dir, state, skills, ahead, why,
		                 wlen);
	if (rc == 0) {
		/* under the shared flock of leases/: a collection reads
		 * this listing or has moved away, before, what it names
		 * (then fetched again when read); without it (a cache
		 * folder it cannot be had in) stored all the same */
		int held = sfs_cache_leases_share(cache_dir);
		rc = store_listing(state, u.location, skills, version, vlen,
		                   why, wlen);
		if (held >= 0)
			close(held);
	}
	/* a new listing: what only the ones before it named goes (a
	 * failure to remove is no failure of the update) */
	if (rc == 0 && strcmp(before, version) != 0)
		sfs_mcp_prune(cache_dir, state, before[0] ? before : NULL);
	if (rc == -ENOMEM && !why[0])
		snprintf(why, wlen, "out of memory");
	cJSON_Delete(skills);
	sfs_mcp_client_close(c);
	free(state);
	sfs_source_url_free(&u);
	return rc;
}

int sfs_source_mcp_listen(const char *root,
                          const struct sfs_source_options *opts,
                          void (*heard)(void *), bool (*stop)(void *),
                          void *arg, char *why, size_t wlen)
{
	struct sfs_source_url u;
	int rc = sfs_source_url_parse_why(root, &u, why, wlen);

	if (rc < 0)
		return rc;
	struct sfs_mcp_client *c = NULL;
	if (u.where == SFS_URL_COMMAND) {
		/* a server run for each fetch: none runs between them to
		 * listen to */
		snprintf(why, wlen, "%s is run for each fetch, and listened "
		         "to by none", root);
		rc = -EOPNOTSUPP;
	} else {
		rc = sfs_mcp_client_open(u.location, opts, &c, why, wlen);
	}
	if (rc == 0)
		rc = sfs_mcp_client_listen(c, "notifications/resources/"
		                           "list_changed", heard, stop, arg, why,
		                           wlen);
	sfs_mcp_client_close(c);
	sfs_source_url_free(&u);
	return rc;
}
