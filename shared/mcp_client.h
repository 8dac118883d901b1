/*
 * mcp_client.h - a client of an MCP server over whichever transport its
 * root names: Streamable HTTP (mcp_http.c) for mcp+https://HOST/PATH, the
 * standard input and output of a command the client runs (mcp_stdio.c)
 * for mcp+stdio:NAME.  A source asks the same of a server over either
 * (skills/list, resources/read), so the listing, the fetches and their
 * verification (source_mcp_fetch.c) are written once, against this.
 *
 * One client is used by one thread at a time.
 */
#ifndef SKILLSFS_MCP_CLIENT_H
#define SKILLSFS_MCP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "skillsfs.h"

/* The limits of both transports: a server is reached (an HTTP connection
 * made) within CONNECT_TIMEOUT_S, and answers a request within TIMEOUT_S
 * (over stdio: from the request's last byte written; initialize
 * included, a server's start-up being its part of a connection). */
#define SFS_MCP_CONNECT_TIMEOUT_S 10L
#define SFS_MCP_TIMEOUT_S 120L
/* An answer larger than this is refused: a skill's files are at most
 * 16 MiB (SEP-2640's limit), base64 makes a third more of them. */
#define SFS_MCP_MAX_ANSWER (32u << 20)
/* The handshake era's version we ask for. */
#define SFS_MCP_PROTOCOL_VERSION "2025-11-25"
/* The extension a client says it speaks, in either era's capabilities. */
#define SFS_MCP_SKILLS_EXTENSION "io.modelcontextprotocol/skills"

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
/* sfs_mcp_http_listen (mcp_http.h); -EOPNOTSUPP over stdio, whose
 * server is refreshed by fetch_interval and SIGHUP. */
int sfs_mcp_client_listen(struct sfs_mcp_client *c, const char *method,
                          void (*heard)(void *), bool (*stop)(void *),
                          void *arg, char *why, size_t wlen);
/* Who the client speaks to, for messages: the URL, or the command. */
const char *sfs_mcp_client_name(const struct sfs_mcp_client *c);
/* Ends the client (over stdio: the server, which is reaped).  NULL: no
 * client. */
void sfs_mcp_client_close(struct sfs_mcp_client *c);

/* The params of initialize: our version, the Skills extension, our
 * name (a new object; NULL when out of memory). */
cJSON *sfs_mcp_initialize_params(void);

#endif
