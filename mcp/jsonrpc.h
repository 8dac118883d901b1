/*
 * jsonrpc.h - JSON-RPC 2.0 over newline-delimited stdio: line framing with
 * a size bound, classification of one message (a line, or the body of an
 * HTTP request), and the response texts.
 *
 * Rules followed (jsonrpc.org/specification and the MCP base protocol):
 * a message that is not JSON gets -32700 with id null; a message that is
 * JSON but not a request object (a batch array included: MCP removed
 * batches in 2025-06-18) gets -32600, with id null unless a valid id could
 * be read; a request id is a string or a number (MCP forbids null) and is
 * echoed byte for byte as it was written, so large, negative or fractional
 * numbers come back unchanged; notifications are never answered.
 */
#ifndef MCP_JSONRPC_H
#define MCP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define JSONRPC_PARSE_ERROR      (-32700)
#define JSONRPC_INVALID_REQUEST  (-32600)
#define JSONRPC_METHOD_NOT_FOUND (-32601)
#define JSONRPC_INVALID_PARAMS   (-32602)
#define JSONRPC_INTERNAL_ERROR   (-32603)
/* MCP 2026-07-28 UnsupportedProtocolVersionError, data {supported, requested} */
#define MCP_UNSUPPORTED_VERSION  (-32022)

/* Longest message accepted, newline excluded. */
#define MCP_MAX_LINE ((size_t)4 << 20)

/* ---- framing ---------------------------------------------------------- */

typedef void (*line_fn)(void *arg, const char *line, size_t len);
typedef void (*overflow_fn)(void *arg);

struct line_reader {
	char *buf;          /* owned; the unterminated tail of the input */
	size_t len, cap;
	bool discarding;    /* inside an oversized line: drop up to '\n' */
};

/*
 * Splits `data` into lines.  Each complete line (without its '\n') goes
 * to on_line; a line that grows past MCP_MAX_LINE is reported once to
 * on_overflow and then skipped up to its newline, so the stream goes on.
 */
void line_reader_feed(struct line_reader *r, const char *data, size_t n,
                      line_fn on_line, overflow_fn on_overflow, void *arg);
/* Bytes of an unterminated message held at the moment. */
size_t line_reader_pending(const struct line_reader *r);
void line_reader_free(struct line_reader *r);

/* ---- messages --------------------------------------------------------- */

enum msg_kind {
	MSG_REQUEST,
	MSG_NOTIFICATION,
	MSG_RESPONSE,       /* a reply to us; we send no requests: ignored */
	MSG_INVALID,        /* answer with error_code / error_message */
	MSG_EMPTY,          /* a blank line: ignored */
};

struct message {
	enum msg_kind kind;
	cJSON *root;               /* owned parse tree, or NULL */
	char *copy;                /* owned: the line mended for cJSON, or NULL */
	const char *method;        /* in root */
	cJSON *params;             /* in root: an object, or NULL when absent */
	char *id_raw;              /* owned JSON text of the id, or NULL */
	bool has_nul;              /* some string held \u0000 */
	int error_code;            /* MSG_INVALID */
	const char *error_message; /* MSG_INVALID, static */
};

/* Classifies one line, or one HTTP body (which may hold line feeds
 * between tokens).  Always fills *m; free with message_free(). */
void message_parse(const char *line, size_t len, struct message *m);
void message_free(struct message *m);

/* ---- responses ---------------------------------------------------------
 * Each returns the message text without newline (malloc'd), or NULL when
 * out of memory.  `id_raw` NULL means id null.  They take ownership of
 * `result`, `data` and `params`. */
char *jsonrpc_result(const char *id_raw, cJSON *result);
char *jsonrpc_error(const char *id_raw, int code, const char *message,
                    cJSON *data);
char *jsonrpc_notification(const char *method, cJSON *params);

#endif
