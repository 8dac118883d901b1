/*
 * client.h - a client of an MCP server over whichever transport its root
 * names: Streamable HTTP (http.c) for mcp+https://HOST/PATH, the standard
 * input and output of a command the client runs (stdio.c) for
 * mcp+stdio:NAME, with one JSON-RPC session over either (session.c).  A
 * source asks the same of a server over either (skills/list,
 * resources/read), so the listing, the fetches and their verification
 * (source_mcp_fetch.c) are written once, against this.
 *
 * One client is used by one thread at a time.
 */
#ifndef SKILLSFS_MCP_CLIENT_H
#define SKILLSFS_MCP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "skillsfs.h"

struct sfs_mcp_client;

/* A client of the server at `location` (a root's URL without "mcp+":
 * https://HOST/PATH, or stdio:NAME whose command opts gives), with the
 * root's options (token_file, argv, env; NULL: none).  Returns 0 with
 * *out, or -errno with *why saying what failed, naming the URL or the
 * command: -EACCES when an HTTP server answered 401. */
int sfs_mcp_client_open(const char *location,
                        const struct sfs_source_options *opts,
                        struct sfs_mcp_client **out, char *why, size_t wlen);
/* Sends the request `method` with params (consumed; NULL for none) and
 * waits for its answer: 0 with *result (free it with cJSON_Delete), or
 * -errno with *why (-EPROTO: a JSON-RPC error, or no answer the protocol
 * allows). */
int sfs_mcp_client_call(struct sfs_mcp_client *c, const char *method,
                        cJSON *params, cJSON **result, char *why,
                        size_t wlen);
/* Listens on the server's stream of notifications, calling heard(arg)
 * for each `method` ("notifications/resources/list_changed") as it comes
 * (mcp_session_listen in session.h); -EOPNOTSUPP over stdio, whose
 * server is refreshed by fetch_interval and SIGHUP. */
int sfs_mcp_client_listen(struct sfs_mcp_client *c, const char *method,
                          void (*heard)(void *), bool (*stop)(void *),
                          void *arg, char *why, size_t wlen);
/* Who the client speaks to, for messages: the URL, or the command. */
const char *sfs_mcp_client_name(const struct sfs_mcp_client *c);
/* Ends the client (over stdio: the server, which is reaped).  NULL: no
 * client. */
void sfs_mcp_client_close(struct sfs_mcp_client *c);

/*
 * A plain GET of url (https:// or http://, no redirect followed, the
 * HTTP transport's certificates and limits: at most SFS_MCP_MAX_ANSWER
 * bytes, SFS_MCP_TIMEOUT_S) with the root's options (opts, or NULL):
 * token_file's token as a bearer token (read now, as for a server), and
 * stop asked as the transfer waits.  0 with the body in *body (malloc'd,
 * NUL-terminated, *len bytes without the NUL), or -errno with *why
 * naming the URL (-ENOENT for 404, -EACCES for 401, -ECANCELED,
 * -EFBIG).  With head, a HEAD instead: *body NULL, *length the
 * Content-Length the answer gave (-1 when none).  For the well-known
 * skills source, which reads a website rather than an MCP server.
 */
int sfs_http_get(const char *url, const struct sfs_source_options *opts,
                 bool head, char **body, size_t *len, long long *length,
                 char *why, size_t wlen);

/*
 * What a GET of a cacheable document (RFC 9111) keeps of its answer and
 * asks of the next: the validators (RFC 9110 8.8) and the lifetime.
 */
#define SFS_HTTP_VALIDATOR_MAX 256
struct sfs_http_cache {
	/* In: the stored answer's, sent as If-None-Match and
	 * If-Modified-Since ("": not sent).  Out: the new answer's, to
	 * store with it ("": none, or none worth keeping). */
	char etag[SFS_HTTP_VALIDATOR_MAX];
	char last_modified[SFS_HTTP_VALIDATOR_MAX];
	/* Out: */
	bool not_modified;   /* 304: the stored answer stands (no body) */
	bool no_store;       /* Cache-Control: no-store: keep no validators */
	long long fresh_ms;  /* how long the answer stays fresh: its
	                        max-age, else Expires less Date, less its
	                        Age; 0 stale at once (no-cache, no-store);
	                        -1 when it does not say */
};

/* sfs_http_get (no HEAD) as a cache asks: with c's validators, a 304
 * answer is 0 with c->not_modified and *body "".  c's out fields are
 * set from the answer's headers (curl_easy_header). */
int sfs_http_get_cached(const char *url,
                        const struct sfs_source_options *opts,
                        struct sfs_http_cache *c, char **body, size_t *len,
                        char *why, size_t wlen);
/* c->fresh_ms as sfs_source_update's *ttl_ms: 0 when the answer did not
 * say, at least 1 (the fetcher's floor applies) when stale at once. */
unsigned sfs_http_cache_ttl_ms(const struct sfs_http_cache *c);

#endif
