/*
 * http_guard.h - bounds on the connections of skillsfs-mcp --http before
 * and between requests, so that idle or trickling connections cannot
 * lock others out (http_guard.c says the bounds).
 */
#ifndef MCP_HTTP_GUARD_H
#define MCP_HTTP_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

/* How long a connection may take to send a request's headers (from its
 * accept, or from the end of its last answer): before authentication. */
#define HTTP_HEADERS_DEADLINE_S 10
/* How long an authorized request may take to send its body, and how
 * long its client may then keep the connection before the next request's
 * headers are in (keep-alive). */
#define HTTP_BODY_DEADLINE_S 60
#define HTTP_KEEPALIVE_DEADLINE_S 30
/* Connections from one address at most (libmicrohttpd refuses more). */
#define HTTP_PER_ADDRESS_LIMIT 32
/* Connections at most, when the descriptors allow it. */
#define HTTP_CONNECTION_LIMIT 1024

struct http_guard;

/* Every open connection and its deadline. */
struct http_guards {
	struct http_guard *head;
};

/* MHD_OPTION_NOTIFY_CONNECTION's callback; cls is the struct http_guards. */
void http_guard_notify(void *cls, struct MHD_Connection *c,
                       void **socket_context,
                       enum MHD_ConnectionNotificationCode toe);
/* A request's headers are in: its body gets HTTP_BODY_DEADLINE_S when it
 * was let in, HTTP_HEADERS_DEADLINE_S when it was refused. */
void http_guard_headers_in(struct MHD_Connection *c, bool let_in);
/* The request is being answered (a stream may last): no deadline. */
void http_guard_answering(struct MHD_Connection *c);
/* Its answer went: the next request's headers get HTTP_KEEPALIVE_DEADLINE_S
 * after a request that was let in, else HTTP_HEADERS_DEADLINE_S. */
void http_guard_completed(struct MHD_Connection *c, bool let_in);
/* Cuts every connection past its deadline (shut down: libmicrohttpd
 * sees it end and closes it). */
void http_guards_expire(struct http_guards *gs, uint64_t now);
/* The overall limit: HTTP_CONNECTION_LIMIT, or fewer when the process may
 * not open that many descriptors (its soft limit raised first). */
unsigned http_connection_limit(void);

#endif
