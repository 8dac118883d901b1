/*
 * handler.c - the helpers every method handler uses to read its request
 * and fill its reply (handler.h), kept apart from the dispatcher
 * (server.c) so that the handlers depend on these and the dispatcher on
 * the handlers, never the other way round.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "cursor.h"
#include "handler.h"
#include "jsonrpc.h"

#define META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* Freshness hints (ms) for 2026-07-28 CacheableResult.  Mount-derived
 * lists change with the mount's generation; subscriptions/listen tells
 * subscribers at once, the hint bounds staleness for the others. */
#define TTL_STATIC_MS 3600000
#define TTL_MOUNT_MS 5000

static void set_error(struct reply *r, int code, cJSON *data, const char *fmt,
                      va_list ap) __attribute__((format(printf, 4, 0)));

static void set_error(struct reply *r, int code, cJSON *data, const char *fmt,
                      va_list ap)
{
	char *msg = NULL;

	cJSON_Delete(r->result);
	r->result = NULL;
	cJSON_Delete(r->data);
	free(r->message);
	r->code = code;
	r->data = data;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	r->message = msg;
}

void reply_error(struct reply *r, int code, cJSON *data, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(r, code, data, fmt, ap);
	va_end(ap);
}

void reply_bad_uri(struct reply *r, const char *uri, const char *fmt, ...)
{
	va_list ap;
	cJSON *data = cJSON_CreateObject();

	if (data)
		cJSON_AddStringToObject(data, "uri", uri);
	va_start(ap, fmt);
	set_error(r, JSONRPC_INVALID_PARAMS, data, fmt, ap);
	va_end(ap);
}

void reply_audit(struct reply *r, const char *key, const char *value)
{
	free(r->audit_value);
	r->audit_key = key;
	r->audit_value = value ? strdup(value) : NULL;
}

void reply_audit_arg(struct reply *r, const char *key, const char *value)
{
	free(r->audit_arg);
	r->audit_arg_key = key;
	r->audit_arg = value ? strdup(value) : NULL;
}

char *mount_trouble(const char *path, int err)
{
	if (err == -ENOTCONN)
		return xasprintf("The skillsfs mount at %s is broken (%s): the "
				 "skillsfs daemon serving it is gone. Unmount it "
				 "with 'fusermount3 -u %s' and mount it again",
				 path, strerror(-err), path);
	if (err == -ENOENT)
		return xasprintf("Cannot read the skillsfs mount at %s (%s): is "
				 "it still mounted? Mount it with 'skillsfs %s "
				 "--skills-dir DIR'", path, strerror(-err), path);
	return xasprintf("Cannot read the skillsfs mount at %s: %s", path,
			 strerror(-err));
}

const struct model *server_model(struct mcp_server *s, struct reply *r)
{
	int err = 0;
	const struct model *md = mount_model(&s->mount, &err);

	if (!md) {
		char *msg = mount_trouble(s->mount.path, err);
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "%s",
			    msg ? msg : "Cannot read the skillsfs mount");
		free(msg);
	}
	return md;
}

const char *param_string(const struct request *req, const char *name,
                         struct reply *r, bool *bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->params, name);

	*bad = false;
	if (!v)
		return NULL;
	if (!cJSON_IsString(v)) {
		*bad = true;
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: %s must be a string", name);
		return NULL;
	}
	return v->valuestring;
}

const char *param_required(const struct request *req, const char *name,
                           struct reply *r)
{
	bool bad;
	const char *v = param_string(req, name, r, &bad);

	if (!v && !bad)
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: %s is required", name);
	return v;
}

const char *param_uri(const struct request *req, struct reply *r)
{
	const char *uri = param_required(req, "uri", r);

	if (uri)
		reply_audit(r, "uri", uri);
	return uri;
}

const char *param_call(const struct request *req, const char *kind,
                       struct reply *r, const cJSON **args)
{
	const char *name = param_required(req, "name", r);

	if (!name)
		return NULL;
	reply_audit(r, kind, name);
	*args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
	if (*args && !cJSON_IsObject(*args)) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: arguments must be an object");
		return NULL;
	}
	return name;
}

bool param_cursor(const struct request *req, const char *kind,
                  struct reply *r, char **key)
{
	bool bad;
	const char *cursor = param_string(req, "cursor", r, &bad);

	*key = NULL;
	if (bad)
		return false;
	if (cursor && !(*key = cursor_key(cursor, kind))) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: unknown cursor");
		return false;
	}
	return true;
}

const struct model *list_begin(struct mcp_server *s, const struct request *req,
                               const char *kind, struct reply *r, char **key)
{
	const struct model *md = NULL;

	if (param_cursor(req, kind, r, key))
		md = server_model(s, r);
	if (!md) {
		free(*key);
		*key = NULL;
	}
	return md;
}

void server_emit(struct mcp_server *s, char *text)
{
	if (!text) {
		fprintf(stderr, "skillsfs-mcp: out of memory for a reply\n");
		return;
	}
	s->emit(s->emit_arg, text, strlen(text));
	free(text);
}

void server_notify(struct mcp_server *s, const char *method, cJSON *params)
{
	server_emit(s, jsonrpc_notification(method, params));
}

/* 2026-07-28 results carry resultType, the server's identity in _meta,
 * and cache hints on the cacheable ones. */
void server_decorate_modern(cJSON *result, enum cache_hint cache)
{
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
	if (!meta)
		meta = cJSON_AddObjectToObject(result, "_meta");
	cJSON *info = cJSON_CreateObject();
	if (info) {
		cJSON_AddStringToObject(info, "name", SERVER_NAME);
		cJSON_AddStringToObject(info, "version", SKILLSFS_VERSION);
		if (!cJSON_AddItemToObject(meta, META_SERVER_INFO, info))
			cJSON_Delete(info);
	}
	cJSON_AddStringToObject(result, "resultType", "complete");
	if (cache != CACHE_NONE) {
		cJSON_AddNumberToObject(result, "ttlMs", cache == CACHE_STATIC
						 ? TTL_STATIC_MS : TTL_MOUNT_MS);
		/* Local skills may be private to the user: no shared caches. */
		cJSON_AddStringToObject(result, "cacheScope", "private");
	}
}
