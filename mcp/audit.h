/*
 * audit.h - the --audit-log file: one JSON line per request,
 *   {"time":"2026-11-22T10:00:00.123Z","method":"tools/call","id":7,
 *    "tool":"get_skill","skill":"pdf-forms","outcome":"ok",
 *    "duration_ms":0.142}
 * outcome is "ok", "tool_error" (a tools/call result with isError) or
 * "error" with "code" the JSON-RPC error code.
 */
#ifndef MCP_AUDIT_H
#define MCP_AUDIT_H

struct audit_entry {
	const char *method;     /* NULL when the message had none */
	const char *id_raw;     /* NULL: no usable id */
	const char *key;        /* "tool", "uri", "prompt" or NULL */
	const char *value;
	const char *arg_key;    /* "skill" or NULL */
	const char *arg;
	const char *outcome;
	int code;               /* for "error" */
	double duration_ms;
};

/* Appends one line to fd (opened O_APPEND); failures are reported on
 * stderr once and otherwise ignored: auditing never stops the server. */
void audit_write(int fd, const struct audit_entry *e);
/* Opens FILE for appending, 0600 when created.  -errno on failure. */
int audit_open(const char *path);

#endif
