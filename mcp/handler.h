/*
 * handler.h - what a method's handler works with: the server's state, the
 * request and the reply it fills, the helpers that fill them
 * (handler.c), and the handlers that server.c dispatches to.  The
 * handlers' files include this, never server.h: the dispatcher sits
 * above them.
 */
#ifndef MCP_HANDLER_H
#define MCP_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "mount.h"

struct sfs_view_def;   /* views.h */

#define SERVER_NAME "skillsfs-mcp"
/* _meta key carrying the absolute path inside the mount of a resource. */
#define META_PATH "io.skillsfs/path"
/* 2026-07-28 per-request _meta: the protocol version a request is for. */
#define META_VERSION "io.modelcontextprotocol/protocolVersion"

struct message;

/* Protocol eras (MCP 2026-07-28 basic/versioning): legacy revisions open
 * with an initialize handshake, modern ones declare their version in each
 * request's _meta. */
enum era { ERA_LEGACY, ERA_MODERN };

/* How long a client may cache a result (2026-07-28 CacheableResult). */
enum cache_hint { CACHE_NONE, CACHE_STATIC, CACHE_MOUNT };

struct request {
	const char *method;
	const cJSON *params;       /* an object, or NULL */
	const char *id_raw;        /* the id as written */
	enum era era;
	const char *version;       /* declared or negotiated; may be NULL */
};

struct reply {
	cJSON *result;             /* owned; the result object on success */
	int code;                  /* non-zero: an error reply */
	char *message;             /* owned */
	cJSON *data;               /* owned; error data or NULL */
	enum cache_hint cache;
	bool tool_error;           /* a tools/call result with isError */
	bool deferred;             /* answered later (subscriptions/listen) */
	const char *audit_key;     /* "tool", "uri" or "prompt" */
	char *audit_value;         /* owned */
	const char *audit_arg_key; /* what the call was about: "skill" */
	char *audit_arg;           /* owned */
};

typedef void (*emit_fn)(void *arg, const char *text, size_t len);
/* Mounts again a mount that stopped answering; 0 when it answers. */
typedef int (*remount_fn)(void *arg);

struct subscription {
	char *id_raw;              /* the subscriptions/listen request id */
	bool prompts, resources;   /* list_changed kinds the client wants */
};

#define MAX_SUBSCRIPTIONS 16

/* How the last message was answered, for a transport that maps the
 * outcome to status codes of its own (http.c); reset by each message. */
struct mcp_outcome {
	int code;                  /* the error code of the reply; 0: none */
	bool envelope;             /* the error is about the request's _meta
	                              or protocol version, not its method */
	bool deferred;             /* a request left open (subscriptions/listen) */
};

struct mcp_server {
	struct mount mount;
	emit_fn emit;
	void *emit_arg;
	int audit_fd;              /* -1: no audit log */
	bool legacy_session;       /* initialize was answered */
	int log_level;             /* logging/setLevel: index in log_levels,
	                              -1 until a client asks for messages */
	bool mount_failing;        /* last generation check failed: logged */
	remount_fn remount;        /* may bring a failed mount back, or NULL */
	void *remount_arg;
	struct subscription subs[MAX_SUBSCRIPTIONS];
	size_t nsubs;
	struct mcp_outcome outcome;
	char *view;                /* --view: the view listed, or NULL */
	const struct sfs_view_def *project;   /* the session's project
	                              file (selection.h), or NULL */
};

/* ---- helpers for handlers (server.c) ---------------------------------- */
void reply_error(struct reply *r, int code, cJSON *data, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* -32602 with data {uri}. */
void reply_bad_uri(struct reply *r, const char *uri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void reply_audit(struct reply *r, const char *key, const char *value);
/* A second field for the audit line: the skill a get_skill asked for. */
void reply_audit_arg(struct reply *r, const char *key, const char *value);
/* Why the mount at path cannot be read (err: -errno), and what to do
 * about it.  malloc'd; NULL when out of memory. */
char *mount_trouble(const char *path, int err);
/* The model, or NULL after setting an error reply. */
const struct model *server_model(struct mcp_server *s, struct reply *r);
/* params.<name> as a string: NULL when absent; sets an error reply and
 * returns NULL with *bad set when present but not a string. */
const char *param_string(const struct request *req, const char *name,
                         struct reply *r, bool *bad);
/* params.<name> as a string that must be there: NULL after setting an
 * error reply ("Invalid params: NAME is required") when it is not. */
const char *param_required(const struct request *req, const char *name,
                           struct reply *r);
/*
 * The params of a call by name (tools/call, prompts/get): {name,
 * arguments?}.  Returns the name, audited as `kind`, with *args the
 * arguments object or NULL; or NULL after setting an error reply.
 */
const char *param_call(const struct request *req, const char *kind,
                       struct reply *r, const cJSON **args);
/* params.uri, which the request must carry, noted in the audit line;
 * NULL after setting an error reply. */
const char *param_uri(const struct request *req, struct reply *r);
/* The key of params.cursor, a cursor of `kind` lists (malloc'd; NULL on
 * the first page) in *key; false after setting an error reply. */
bool param_cursor(const struct request *req, const char *kind,
                  struct reply *r, char **key);
/* The start of a paged list: param_cursor, then the model; NULL (and
 * no key) after setting an error reply. */
const struct model *list_begin(struct mcp_server *s, const struct request *req,
                               const char *kind, struct reply *r, char **key);
/* Adds what every 2026-07-28 result carries: resultType, the server's
 * identity in _meta, and the cache hints when `cache` asks for them. */
void server_decorate_modern(cJSON *result, enum cache_hint cache);
/* Emits one message (malloc'd text, taken; NULL: out of memory, said
 * on stderr). */
void server_emit(struct mcp_server *s, char *text);
/* Emits one notification. */
void server_notify(struct mcp_server *s, const char *method, cJSON *params);

/* ---- handlers --------------------------------------------------------- */
/* A method's handler: answers req in r, a result or an error. */
typedef void mcp_handler(struct mcp_server *s, const struct request *req,
                         struct reply *r);
typedef mcp_handler *handler_fn;

/* protocol.c */
extern const char *const mcp_versions[];  /* newest first, NULL-ended */
bool version_supported(const char *v);
bool version_is_modern(const char *v);
cJSON *versions_json(void);
mcp_handler handle_initialize, handle_ping, handle_discover;
/* RFC 5424 severities, least severe first, NULL-ended. */
extern const char *const log_levels[];
mcp_handler handle_set_level;
/* tools.c */
mcp_handler handle_tools_list, handle_tools_call;
/* resources.c */
mcp_handler handle_resources_list, handle_templates_list, handle_resources_read;
/* skills_ext.c */
mcp_handler handle_skills_list, handle_skills_get, handle_directory_read;
/* prompts.c */
mcp_handler handle_prompts_list, handle_prompts_get;
/* notify.c */
mcp_handler handle_listen;
void notify_cancelled(struct mcp_server *s, const cJSON *params);
void notify_generation_changed(struct mcp_server *s);
void notify_close_subscriptions(struct mcp_server *s);

#endif
