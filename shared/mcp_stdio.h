/*
 * mcp_stdio.h - a client of an MCP server run as a command, over its
 * standard input and output (MCP's stdio transport): the handshake era,
 * JSON-RPC requests with their answers, one message a line.
 *
 * One client is used by one thread at a time.
 */
#ifndef SKILLSFS_MCP_STDIO_H
#define SKILLSFS_MCP_STDIO_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct sfs_mcp_stdio;

/* Runs argv (argv[0] an absolute path; NULL-terminated) with the
 * process's environment and the NAME=VALUE strings of env (or NULL) over
 * it, and makes the handshake.  Returns 0 with *out, or -errno with *why
 * naming the command: it cannot be run, ended, wrote what is not JSON-RPC,
 * refused initialize, or did not answer within SFS_MCP_TIMEOUT_S.
 * stop (or NULL) is asked about four times a second while the client
 * waits on the server: once it says true, the wait ends with -ECANCELED
 * and the close ends the server without a grace. */
int sfs_mcp_stdio_open(const char *const *argv, const char *const *env,
                       bool (*stop)(void *), void *stop_arg,
                       struct sfs_mcp_stdio **out, char *why, size_t wlen);
/* As sfs_mcp_http_call.  After an error other than a JSON-RPC one the
 * client is out of step with its server: every later call fails. */
int sfs_mcp_stdio_call(struct sfs_mcp_stdio *c, const char *method,
                       cJSON *params, cJSON **result, char *why,
                       size_t wlen);
/* The command run (argv[0]). */
const char *sfs_mcp_stdio_command(const struct sfs_mcp_stdio *c);
/* Ends the server: its standard input closed (the transport's way to
 * ask it to exit), SIGTERM to its process group a second later, SIGKILL
 * a second after that; it is reaped in every case.  NULL: nothing. */
void sfs_mcp_stdio_close(struct sfs_mcp_stdio *c);

#endif
