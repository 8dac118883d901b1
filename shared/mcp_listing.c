/*
 * mcp_listing.c - what the MCP source and its fetch both read the same
 * way: a skills/list entry's files (uri, size, "sha256:<hex>" digest) and
 * which of them is SKILL.md, and where the cache folder keeps a server's
 * listings and the verified bytes.  (source_mcp.c and source_mcp_fetch.c
 * each held half and called the other for the rest.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "snapshot.h"
#include "source.h"

#define HEX_LEN 64

/* ---- the listing's entries ---------------------------------------------- */

int sfs_mcp_file_parse(const cJSON *r, struct sfs_mcp_file *out)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(r, "uri");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(r, "size");
	const cJSON *digest = cJSON_GetObjectItemCaseSensitive(r, "digest");

	if (!cJSON_IsString(uri) || !cJSON_IsNumber(size) ||
	    size->valuedouble < 0 || size->valuedouble > (double)(1LL << 50) ||
	    size->valuedouble != (double)(long long)size->valuedouble ||
	    !cJSON_IsString(digest) ||
	    strncmp(digest->valuestring, "sha256:", 7) != 0 ||
	    strlen(digest->valuestring) != 7 + HEX_LEN)
		return -EINVAL;
	if (!sfs_hex_decode(digest->valuestring + 7, 32, out->sha256, false))
		return -EINVAL;
	out->uri = uri->valuestring;
	out->size = (off_t)size->valuedouble;
	out->frontmatter = NULL;
	return 0;
}

int sfs_mcp_skill_md_of(const cJSON *entry, struct sfs_mcp_file *out)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(entry, "uri");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(entry, "resources");
	const cJSON *r;

	if (!cJSON_IsString(uri) || !cJSON_IsArray(list))
		return -EINVAL;
	cJSON_ArrayForEach(r, list)
		if (sfs_mcp_file_parse(r, out) == 0 &&
		    strcmp(out->uri, uri->valuestring) == 0) {
			out->frontmatter = cJSON_GetObjectItemCaseSensitive(
				entry, "frontmatter");
			return 0;
		}
	return -EINVAL;
}

/* ---- the cache's names -------------------------------------------------- */

char *sfs_mcp_state_path(const char *cache_dir, const char *location)
{
	uint8_t sum[32];
	char name[48], *path;
	size_t n = 0;
	const char *p = strstr(location, "://");

	if (!cache_dir || !*cache_dir)
		return NULL;
	sfs_sha256(location, strlen(location), sum);
	/* the host, readable: which server it is */
	for (p = p ? p + 3 : location; *p && *p != '/' && n + 1 < sizeof(name);
	     p++)
		name[n++] = (char)((*p >= 'a' && *p <= 'z') ||
		                   (*p >= '0' && *p <= '9') || *p == '.' ||
		                   *p == '-' ? *p : '_');
	name[n] = '\0';
	if (asprintf(&path, "%s/mcp/%s-%02x%02x%02x%02x%02x%02x%02x%02x",
	             cache_dir, n ? name : "server", sum[0], sum[1], sum[2],
	             sum[3], sum[4], sum[5], sum[6], sum[7]) < 0)
		return NULL;
	return path;
}

char *sfs_mcp_blob_path(const char *cache_dir, const uint8_t sha256[32])
{
	char digest[SFS_DIGEST_LEN], *path;

	sfs_format_digest(sha256, digest);   /* "sha256:<hex>" */
	return asprintf(&path, "%s/mcp/blobs/%s", cache_dir,
	                digest + strlen("sha256:")) < 0 ? NULL : path;
}

char *sfs_mcp_listing_path(const char *state, const char *hex)
{
	char *path;
	return asprintf(&path, "%s/listing-%s.json", state, hex) < 0 ? NULL
	                                                              : path;
}

char *sfs_mcp_current_path(const char *state)
{
	char *path;
	return asprintf(&path, "%s/current", state) < 0 ? NULL : path;
}

char *sfs_mcp_mismatch_path(const char *state, const uint8_t sha256[32])
{
	char digest[SFS_DIGEST_LEN], *path;

	sfs_format_digest(sha256, digest);   /* "sha256:<hex>" */
	return asprintf(&path, "%s/" SFS_MCP_MISMATCH_PREFIX "%s.json", state,
	                digest + strlen("sha256:")) < 0 ? NULL : path;
}
