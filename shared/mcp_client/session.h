/*
 * session.h - one JSON-RPC session with an MCP server over a transport
 * (transport.h), whichever it is: request ids, the handshake, the era,
 * matching answers to requests, errors as -errno with a message, the
 * deadline of each answer and the owner's stop.  client.c opens one for
 * a source; the unit tests drive it over a real transport.  Private to
 * shared/mcp_client/.
 *
 * One session is used by one thread at a time.
 */
#ifndef SKILLSFS_MCP_SESSION_H
#define SKILLSFS_MCP_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "transport.h"

/* The handshake era's version we ask for, and the stateless era's. */
#define SFS_MCP_PROTOCOL_VERSION "2025-11-25"
#define SFS_MCP_STATELESS_VERSION "2026-07-28"
/* The extension a client says it speaks, in either era's capabilities. */
#define SFS_MCP_SKILLS_EXTENSION "io.modelcontextprotocol/skills"

struct mcp_session;

/* A session over t (taken: closed with the session, also when this
 * fails), after the era is found: the handshake one (initialize, then
 * notifications/initialized) is tried first, every server of 2025
 * speaking it; a server that refuses it but names 2026-07-28 (in the
 * refusal, or in server/discover's answer) speaks the stateless one,
 * where each request carries the version and our capabilities in its
 * _meta.  Each answer is awaited timeout_ms at most; stop (or NULL) is
 * asked about four times a second while waiting, and once it says true
 * the wait ends with -ECANCELED.  0 with *out, or -errno with *why. */
int mcp_session_open(struct mcp_transport *t, long timeout_ms,
                     bool (*stop)(void *), void *stop_arg,
                     struct mcp_session **out, char *why, size_t wlen);
/* Sends the request `method` with params (consumed; NULL for none) and
 * waits for its answer, skipping the server's notifications and
 * answering its requests (ping with {}, any other with "method not
 * found": a source offers the server nothing).  0 with *result (free it
 * with cJSON_Delete), or -errno with *why: -EPROTO for a JSON-RPC error
 * or what the protocol does not allow (a message that is not JSON-RPC,
 * no answer).  A session expired on the server (-ENOENT with a session
 * id) is opened anew once and the request sent again.  After a failure
 * that leaves the transport out of step (a half-read answer may follow
 * on a pipe) every later call fails with -EIO. */
int mcp_session_call(struct mcp_session *s, const char *method,
                     cJSON *params, cJSON **result, char *why, size_t wlen);
/* Listens on the server's stream of notifications (subscriptions/listen
 * in the stateless era, the session's own stream in the handshake one)
 * and calls heard(arg) for each notification `method` as it comes, the
 * stream kept.  Returns when stop(arg) or the session's stop says to
 * stop, or the server ends the stream: 1 when the notification came
 * meanwhile, 0 when not; -EOPNOTSUPP when the server sends none (no
 * stream, a JSON-RPC error), else the transport's -errno; *why says
 * which.  Blocks: on a thread of its own, with a session of its own. */
int mcp_session_listen(struct mcp_session *s, const char *method,
                       void (*heard)(void *), bool (*stop)(void *),
                       void *arg, char *why, size_t wlen);
/* The protocol version spoken: SFS_MCP_STATELESS_VERSION for the
 * stateless era. */
const char *mcp_session_version(const struct mcp_session *s);
/* The transport's name: the URL, or the command. */
const char *mcp_session_name(const struct mcp_session *s);
/* Ends the session and its transport.  NULL: nothing. */
void mcp_session_close(struct mcp_session *s);

#endif
