/*
 * http.h - skillsfs-mcp --http: the MCP server over Streamable HTTP at
 * http://ADDR:PORT/mcp (http.c says how).
 */
#ifndef MCP_HTTP_H
#define MCP_HTTP_H

#include <signal.h>

#include "http_access.h"
#include "server.h"

struct http_config {
	const struct http_listen *listen;  /* the address, with its port */
	int listen_fd;             /* http_listen_open(); http_serve closes it */
	const char *token;         /* the bearer token required, or NULL */
	struct mcp_config server;  /* what each server is made with (its emit
	                              and emit_arg are http.c's) */
};

/* The path of the MCP endpoint; every other path is 404. */
#define HTTP_ENDPOINT "/mcp"

/*
 * Prints "skillsfs-mcp: serving http://HOST:PORT/mcp" on stderr once it
 * answers, and serves until *stop; then ends every open stream, sessions
 * and all.  Returns the exit status: 0, or 1 when it could not start.
 */
int http_serve(const struct http_config *cfg, volatile sig_atomic_t *stop);

#endif
