/*
 * http_cache.h - what http.c's plain GET asks and learns as an HTTP
 * cache (RFC 9111) for sfs_http_get_cached (client.h).
 */
#ifndef SFS_MCP_HTTP_CACHE_H
#define SFS_MCP_HTTP_CACHE_H

#include <curl/curl.h>

#include "client.h"

/* Appends c's conditional headers (If-None-Match, If-Modified-Since) to
 * *l: 0, or -ENOMEM. */
int mcp_http_cache_ask(const struct sfs_http_cache *c,
                       struct curl_slist **l);
/* Sets c's out fields from the answer curl holds (status 200 or 304). */
void mcp_http_cache_learn(CURL *curl, long status, struct sfs_http_cache *c);

#endif
