/*
 * mcp_http.h - a client of an MCP server over Streamable HTTP (libcurl):
 * just what a source of skills needs, JSON-RPC requests with their
 * answers, in the handshake era (initialize, then requests that carry the
 * negotiated MCP-Protocol-Version and the server's Mcp-Session-Id).
 *
 * One client is used by one thread at a time.
 */
#ifndef SKILLSFS_MCP_HTTP_H
#define SKILLSFS_MCP_HTTP_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct sfs_mcp_http;

/* Connects to the MCP endpoint `url` (http:// or https://) and makes the
 * initialize handshake; `token` (or NULL) is sent as a bearer token.
 * Returns the client, or NULL with *why saying what failed. */
struct sfs_mcp_http *sfs_mcp_http_open(const char *url, const char *token,
                                       char *why, size_t wlen);
/* Sends the request `method` with params (consumed; NULL for none) and
 * waits for its answer: 0 with *result (free it with cJSON_Delete), or
 * -errno with *why saying what failed (a JSON-RPC error included). */
int sfs_mcp_http_call(struct sfs_mcp_http *c, const char *method,
                      cJSON *params, cJSON **result, char *why, size_t wlen);
/* The endpoint's URL, as given to open. */
const char *sfs_mcp_http_url(const struct sfs_mcp_http *c);
void sfs_mcp_http_close(struct sfs_mcp_http *c);

#endif
