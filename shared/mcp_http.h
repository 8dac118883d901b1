/*
 * mcp_http.h - a client of an MCP server over Streamable HTTP (libcurl):
 * just what a source of skills needs, JSON-RPC requests with their
 * answers, in either era: the handshake one (initialize, then requests
 * that carry the negotiated MCP-Protocol-Version and the server's
 * Mcp-Session-Id) or the stateless 2026-07-28 one (the version in each
 * request's _meta), whichever the server speaks.
 *
 * One client is used by one thread at a time.
 */
#ifndef SKILLSFS_MCP_HTTP_H
#define SKILLSFS_MCP_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct sfs_mcp_http;

/* Connects to the MCP endpoint `url` (http:// or https://; certificates
 * from SSL_CERT_FILE and SSL_CERT_DIR when set) and finds the era it
 * speaks; `token` (or NULL) is sent as a bearer token and never appears
 * in *why.  stop (or NULL) is asked about once a second while the
 * client waits on the server, its open included: once it says true, the
 * wait ends with -ECANCELED.  Returns 0 with *out, or -errno with *why saying what failed:
 * -EACCES when the server answered 401 (no token, or one it refused). */
int sfs_mcp_http_open(const char *url, const char *token,
                      bool (*stop)(void *), void *stop_arg,
                      struct sfs_mcp_http **out, char *why, size_t wlen);
/* Sends the request `method` with params (consumed; NULL for none) and
 * waits for its answer: 0 with *result (free it with cJSON_Delete), or
 * -errno with *why saying what failed (a JSON-RPC error included). */
int sfs_mcp_http_call(struct sfs_mcp_http *c, const char *method,
                      cJSON *params, cJSON **result, char *why, size_t wlen);
/* Listens on the server's stream of notifications (subscriptions/listen
 * in the stateless era, the session's GET stream in the handshake one)
 * and calls heard(arg) for each notification `method`
 * ("notifications/resources/list_changed") as it comes, the stream kept:
 * one connection however many come.  Returns when stop(arg) says to stop
 * (asked about once a second) or the server ends the stream: 1 when the
 * notification came meanwhile, 0 when not; -EOPNOTSUPP when
 * the server sends none (no session, 405, a JSON-RPC error), -ENOENT when
 * its session expired, -EACCES for a 401, -EIO else; *why says which.
 * Blocks: on a thread of its own, with a client of its own. */
int sfs_mcp_http_listen(struct sfs_mcp_http *c, const char *method,
                        void (*heard)(void *), bool (*stop)(void *),
                        void *arg, char *why, size_t wlen);
/* The endpoint's URL, as given to open. */
const char *sfs_mcp_http_url(const struct sfs_mcp_http *c);
/* The protocol version spoken: "2026-07-28" for the stateless era. */
const char *sfs_mcp_http_version(const struct sfs_mcp_http *c);
void sfs_mcp_http_close(struct sfs_mcp_http *c);

#endif
