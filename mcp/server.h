/*
 * server.h - the MCP server's entry points, which the stdio loop, the
 * HTTP front end and a fuzzer drive (one message in, zero or more
 * messages out); the state and the types the method handlers share are
 * in handler.h.
 */
#ifndef MCP_SERVER_H
#define MCP_SERVER_H

#include "handler.h"

struct mcp_config {
	const char *mount;         /* absolute path of the mount */
	emit_fn emit;              /* receives each outgoing message */
	void *emit_arg;
	int audit_fd;              /* -1 for none; owned by the caller */
	remount_fn remount;        /* or NULL */
	void *remount_arg;
	const char *view;          /* --view NAME, or NULL */
	const struct sfs_view_def *project;  /* outlives the server; or NULL */
};

/* ---- entry points (server.c) ------------------------------------------ */
struct mcp_server *mcp_server_new(const struct mcp_config *cfg);
/* Handles one line of input (without its newline). */
void mcp_server_handle_line(struct mcp_server *s, const char *line,
                            size_t len);
/* Handles one message already parsed (jsonrpc.h) that arrived at t0
 * (now_ns()), the start of the duration the audit log records. */
void mcp_server_handle_message(struct mcp_server *s, const struct message *m,
                               uint64_t t0);
/* Answers a line that exceeded the size bound. */
void mcp_server_oversized(struct mcp_server *s);
/* While idle: looks for a new mount generation and notifies clients. */
void mcp_server_tick(struct mcp_server *s);
/* Ends open subscriptions gracefully (server shutdown). */
void mcp_server_shutdown(struct mcp_server *s);
void mcp_server_free(struct mcp_server *s);

#endif
