/*
 * server.c - one JSON-RPC message in, its answer out: era selection,
 * dispatch, result decoration for 2026-07-28, generation checks, audit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "clock.h"
#include "jsonrpc.h"
#include "server.h"

#define META_CAPS "io.modelcontextprotocol/clientCapabilities"

enum { FOR_LEGACY = 1, FOR_MODERN = 2, FOR_BOTH = 3 };

static const struct method {
	const char *name;
	handler_fn fn;
	int eras;
} methods[] = {
	{ "initialize", handle_initialize, FOR_LEGACY },
	/* ping was removed in 2026-07-28 (changelog, SEP-2575). */
	{ "ping", handle_ping, FOR_LEGACY },
	/* 2026-07-28 has no session to set a level in. */
	{ "logging/setLevel", handle_set_level, FOR_LEGACY },
	{ "server/discover", handle_discover, FOR_BOTH },
	{ "tools/list", handle_tools_list, FOR_BOTH },
	{ "tools/call", handle_tools_call, FOR_BOTH },
	{ "resources/list", handle_resources_list, FOR_BOTH },
	{ "resources/templates/list", handle_templates_list, FOR_BOTH },
	{ "resources/read", handle_resources_read, FOR_BOTH },
	{ "resources/directory/read", handle_directory_read, FOR_BOTH },
	{ "skills/list", handle_skills_list, FOR_BOTH },
	{ "skills/get", handle_skills_get, FOR_BOTH },
	{ "prompts/list", handle_prompts_list, FOR_BOTH },
	{ "prompts/get", handle_prompts_get, FOR_BOTH },
	{ "subscriptions/listen", handle_listen, FOR_MODERN },
};

/* ---- generation changes ----------------------------------------------- */

static void check_generation(struct mcp_server *s)
{
	int rc = mount_generation_changed(&s->mount);

	/* A shared mount whose daemon or keeper died comes back. */
	if (rc < 0 && s->remount && s->remount(s->remount_arg) == 0) {
		mount_release(&s->mount);
		s->mount.seen = false;
		rc = mount_generation_changed(&s->mount);
		if (rc == 0)
			rc = 1;   /* a new mount: whatever was listed may differ */
	}
	if (rc < 0) {
		if (!s->mount_failing) {
			char *msg = mount_trouble(s->mount.path, rc);
			fprintf(stderr, "skillsfs-mcp: %s\n",
				msg ? msg : strerror(-rc));
			free(msg);
		}
		s->mount_failing = true;
		/* Nothing of the old model can be trusted (or read: its
		 * index.json descriptor may be of a dead mount), and a mount
		 * that comes back is a new one: start over. */
		mount_release(&s->mount);
		s->mount.seen = false;
		return;
	}
	if (s->mount_failing) {
		fprintf(stderr, "skillsfs-mcp: the mount at %s answers again\n",
			s->mount.path);
		rc = 1;
	}
	s->mount_failing = false;
	if (rc == 1)
		notify_generation_changed(s);
}

/* ---- requests --------------------------------------------------------- */

static const struct method *find_method(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return &methods[i];
	return NULL;
}

/*
 * Which era a request belongs to.  A request whose _meta names a protocol
 * version is served by that version's rules (2026-07-28 basic/versioning:
 * "A request carrying modern per-request _meta is served statelessly");
 * an unsupported version gets -32022 listing ours.  Without that key the
 * request belongs to the handshake era, except server/discover, which
 * exists only in the modern one.
 */
static bool select_era(const struct message *m, struct request *req,
                       struct reply *r)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(m->params, "_meta");

	bool discover = strcmp(m->method, "server/discover") == 0;

	req->era = discover ? ERA_MODERN : ERA_LEGACY;
	/* "An initialize request selects legacy semantics": one that carries
	 * a handshake protocolVersion is a handshake, whatever its _meta says.
	 * One that carries only modern _meta is a modern request for a method
	 * that era removed, and gets -32601 below (SEP-2575). */
	if (!meta || (strcmp(m->method, "initialize") == 0 &&
		      cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
			      m->params, "protocolVersion"))))
		return true;
	if (!cJSON_IsObject(meta)) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: _meta must be an object");
		return false;
	}
	const cJSON *pv = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
	if (!pv)
		return true;
	if (!cJSON_IsString(pv)) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: _meta[\"%s\"] must be a string",
			    META_VERSION);
		return false;
	}
	if (!version_supported(pv->valuestring)) {
		cJSON *data = cJSON_CreateObject();
		if (data) {
			cJSON_AddItemToObject(data, "supported", versions_json());
			cJSON_AddStringToObject(data, "requested", pv->valuestring);
		}
		reply_error(r, MCP_UNSUPPORTED_VERSION, data,
			    "Unsupported protocol version");
		return false;
	}
	req->version = pv->valuestring;
	if (!discover)
		req->era = version_is_modern(pv->valuestring) ? ERA_MODERN
							      : ERA_LEGACY;
	/* RequestMetaObject: clientCapabilities is required (an empty object
	 * means none) and capabilities are never carried over. */
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, META_CAPS);
	if (req->era == ERA_MODERN && !cJSON_IsObject(caps)) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: _meta[\"%s\"] must be an object",
			    META_CAPS);
		return false;
	}
	return true;
}

static void send_reply(struct mcp_server *s, const struct message *m,
                       const struct request *req, struct reply *r)
{
	if (r->code) {
		server_emit(s, jsonrpc_error(m->id_raw, r->code,
					   r->message ? r->message : "Error",
					   r->data));
		r->data = NULL;
		return;
	}
	if (!r->result) {
		server_emit(s, jsonrpc_error(m->id_raw, JSONRPC_INTERNAL_ERROR,
					   "Internal error: out of memory", NULL));
		return;
	}
	if (req->era == ERA_MODERN)
		server_decorate_modern(r->result, r->cache);
	server_emit(s, jsonrpc_result(m->id_raw, r->result));
	r->result = NULL;
}

static void audit(struct mcp_server *s, const char *method, const char *id_raw,
                  const struct reply *r, uint64_t t0)
{
	struct audit_entry e = {
		.method = method,
		.id_raw = id_raw,
		.key = r->audit_key,
		.value = r->audit_value,
		.arg_key = r->audit_arg_key,
		.arg = r->audit_arg,
		.outcome = r->code ? "error" : r->tool_error ? "tool_error" : "ok",
		.code = r->code,
		.duration_ms = (double)(now_ns() - t0) / 1e6,
	};
	audit_write(s->audit_fd, &e);
}

static void handle_request(struct mcp_server *s, const struct message *m,
                           uint64_t t0)
{
	struct request req = {
		.method = m->method,
		.params = m->params,
		.id_raw = m->id_raw,
	};
	struct reply r = { 0 };

	check_generation(s);
	if (!select_era(m, &req, &r)) {
		s->outcome.envelope = true;
	} else {
		const struct method *meth = find_method(m->method);
		int era = req.era == ERA_MODERN ? FOR_MODERN : FOR_LEGACY;
		if (!meth || !(meth->eras & era))
			reply_error(&r, JSONRPC_METHOD_NOT_FOUND, NULL,
				    "Method not found: %s", m->method);
		else if (m->has_nul)
			reply_error(&r, JSONRPC_INVALID_PARAMS, NULL,
				    "Invalid params: strings must not contain NUL (\\u0000)");
		else
			meth->fn(s, &req, &r);
	}
	s->outcome.code = r.code ? r.code : r.result || r.deferred
		? 0 : JSONRPC_INTERNAL_ERROR;   /* out of memory: see send_reply */
	s->outcome.deferred = r.deferred;
	if (!r.deferred)
		send_reply(s, m, &req, &r);
	audit(s, m->method, m->id_raw, &r, t0);
	cJSON_Delete(r.result);
	cJSON_Delete(r.data);
	free(r.message);
	free(r.audit_value);
	free(r.audit_arg);
}

static void handle_notification(struct mcp_server *s, const struct message *m)
{
	if (strcmp(m->method, "notifications/initialized") == 0)
		s->legacy_session = true;
	else if (strcmp(m->method, "notifications/cancelled") == 0)
		notify_cancelled(s, m->params);
	/* Anything else is ignored: notifications are never answered. */
}

void mcp_server_handle_message(struct mcp_server *s, const struct message *m,
                               uint64_t t0)
{
	memset(&s->outcome, 0, sizeof(s->outcome));
	switch (m->kind) {
	case MSG_EMPTY:
	case MSG_RESPONSE:
		break;
	case MSG_NOTIFICATION:
		handle_notification(s, m);
		break;
	case MSG_INVALID: {
		struct reply r = { .code = m->error_code };
		server_emit(s, jsonrpc_error(m->id_raw, m->error_code,
					   m->error_message, NULL));
		s->outcome.code = m->error_code;
		audit(s, m->method, m->id_raw, &r, t0);
		break;
	}
	case MSG_REQUEST:
		handle_request(s, m, t0);
		break;
	}
}

void mcp_server_handle_line(struct mcp_server *s, const char *line, size_t len)
{
	uint64_t t0 = now_ns();
	struct message m;

	message_parse(line, len, &m);
	mcp_server_handle_message(s, &m, t0);
	message_free(&m);
}

void mcp_server_oversized(struct mcp_server *s)
{
	uint64_t t0 = now_ns();
	char msg[96];
	struct reply r = { .code = JSONRPC_INVALID_REQUEST };

	snprintf(msg, sizeof(msg), "Invalid Request: message longer than %zu bytes",
		 MCP_MAX_LINE);
	server_emit(s, jsonrpc_error(NULL, JSONRPC_INVALID_REQUEST, msg, NULL));
	memset(&s->outcome, 0, sizeof(s->outcome));
	s->outcome.code = JSONRPC_INVALID_REQUEST;
	audit(s, NULL, NULL, &r, t0);
}

void mcp_server_tick(struct mcp_server *s)
{
	check_generation(s);
}

/* ---- life cycle ------------------------------------------------------- */

struct mcp_server *mcp_server_new(const struct mcp_config *cfg)
{
	struct mcp_server *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->mount.path = strdup(cfg->mount);
	if (!s->mount.path) {
		free(s);
		return NULL;
	}
	s->emit = cfg->emit;
	s->emit_arg = cfg->emit_arg;
	s->audit_fd = cfg->audit_fd;
	s->log_level = -1;
	s->remount = cfg->remount;
	s->remount_arg = cfg->remount_arg;
	s->project = cfg->project;
	if (cfg->view && !(s->view = strdup(cfg->view))) {
		free(s->mount.path);
		free(s);
		return NULL;
	}
	return s;
}

void mcp_server_shutdown(struct mcp_server *s)
{
	notify_close_subscriptions(s);
}

void mcp_server_free(struct mcp_server *s)
{
	if (!s)
		return;
	mount_release(&s->mount);
	free(s->mount.path);
	free(s->view);
	for (size_t i = 0; i < s->nsubs; i++)
		free(s->subs[i].id_raw);
	free(s);
}
