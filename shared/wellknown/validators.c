/*
 * validators.c - the index's validators, kept as state/validators.json:
 * {"listing": HEX, "ahead": N, "etag": "...", "last_modified": "..."}.
 * They name the listing they were stored with: a listing made another
 * way (another mount's update, a cache entry removed) is never taken for
 * the one a 304 confirms.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "trust.h"
#include "validators.h"

#define NAME "validators.json"
#define MAX_BYTES 4096

static char *path_of(const char *state)
{
	char *path;
	return asprintf(&path, "%s/" NAME, state) < 0 ? NULL : path;
}

static bool listing_kept(const char *state, const char *hex)
{
	char *path = sfs_mcp_listing_path(state, hex);
	struct stat st;
	bool kept = path && lstat(path, &st) == 0 && S_ISREG(st.st_mode);

	free(path);
	return kept;
}

/* Copies the string `key` of o into out (SFS_HTTP_VALIDATOR_MAX). */
static void copy_string(const cJSON *o, const char *key, char *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *s = cJSON_IsString(v) ? v->valuestring : "";

	if (strlen(s) < SFS_HTTP_VALIDATOR_MAX && !strpbrk(s, "\r\n"))
		memcpy(out, s, strlen(s) + 1);
	else
		out[0] = '\0';
}

int sfs_wk_validators_load(const char *state, const char *hex,
                           enum sfs_fetch_ahead ahead,
                           struct sfs_http_cache *c)
{
	int dfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *text = dfd < 0 ? NULL : sfs_cache_read_at(dfd, NAME, MAX_BYTES,
	                                                NULL);
	cJSON *o = text ? cJSON_Parse(text) : NULL;
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "listing");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "ahead");
	int rc = cJSON_IsString(l) && strcmp(l->valuestring, hex) == 0 &&
	         cJSON_IsNumber(a) && a->valuedouble >= (double)ahead &&
	         listing_kept(state, hex) ? 0 : -ENOENT;

	if (rc == 0) {
		copy_string(o, "etag", c->etag);
		copy_string(o, "last_modified", c->last_modified);
		if (!c->etag[0] && !c->last_modified[0])
			rc = -ENOENT;
	}
	cJSON_Delete(o);
	free(text);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

void sfs_wk_validators_drop(const char *state)
{
	char *path = path_of(state);

	if (path)
		sfs_cache_unlink(path);
	free(path);
}

int sfs_wk_validators_store(const char *state, const char *hex,
                            enum sfs_fetch_ahead ahead,
                            const struct sfs_http_cache *c)
{
	if (!c->etag[0] && !c->last_modified[0]) {
		sfs_wk_validators_drop(state);
		return 0;
	}
	cJSON *o = cJSON_CreateObject();
	char *path = path_of(state), *text = NULL;
	int rc = o && path && cJSON_AddStringToObject(o, "listing", hex) &&
	         cJSON_AddNumberToObject(o, "ahead", ahead) &&
	         cJSON_AddStringToObject(o, "etag", c->etag) &&
	         cJSON_AddStringToObject(o, "last_modified",
	                                 c->last_modified) &&
	         (text = cJSON_PrintUnformatted(o)) ? 0 : -ENOMEM;

	if (rc == 0)
		rc = sfs_cache_write(path, text, strlen(text), 0600, false);
	free(text);
	free(path);
	cJSON_Delete(o);
	return rc;
}
