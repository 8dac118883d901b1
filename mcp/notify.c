/*
 * notify.c - telling clients that the mount's generation changed.
 *
 * Handshake-era clients get notifications/resources/list_changed and
 * notifications/prompts/list_changed unsolicited, as the listChanged
 * capabilities promise.  2026-07-28 removed unsolicited notifications:
 * a client opens subscriptions/listen with the kinds it wants, the server
 * acknowledges with notifications/subscriptions/acknowledged, tags every
 * notification of that stream with _meta["io.modelcontextprotocol/
 * subscriptionId"] (the listen request's id), and answers the listen
 * request only when it ends the stream (schema 2026-07-28,
 * SubscriptionsListenRequest / SubscriptionsListenResult).  The client
 * ends one with notifications/cancelled naming that id.
 */
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "jsonrpc.h"
#include "handler.h"

#define META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"

static cJSON *subscription_params(const struct subscription *sub)
{
	cJSON *params = cJSON_CreateObject();
	cJSON *meta = cJSON_AddObjectToObject(params, "_meta");

	cJSON_AddItemToObject(meta, META_SUBSCRIPTION,
			      cJSON_CreateRaw(sub->id_raw));
	return params;
}

static ssize_t find_subscription(struct mcp_server *s, const char *id_raw)
{
	for (size_t i = 0; i < s->nsubs; i++)
		if (strcmp(s->subs[i].id_raw, id_raw) == 0)
			return (ssize_t)i;
	return -1;
}

static void drop_subscription(struct mcp_server *s, size_t i)
{
	free(s->subs[i].id_raw);
	s->subs[i] = s->subs[--s->nsubs];
}

void handle_listen(struct mcp_server *s, const struct request *req,
                   struct reply *r)
{
	const cJSON *filter = cJSON_GetObjectItemCaseSensitive(req->params,
							       "notifications");

	if (!cJSON_IsObject(filter)) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: notifications must be an object");
		return;
	}
	ssize_t old = find_subscription(s, req->id_raw);
	if (old >= 0)
		drop_subscription(s, (size_t)old);
	if (s->nsubs == MAX_SUBSCRIPTIONS) {
		reply_error(r, JSONRPC_INVALID_REQUEST, NULL,
			    "Too many open subscriptions (at most %d)",
			    MAX_SUBSCRIPTIONS);
		return;
	}
	struct subscription sub = {
		.id_raw = strdup(req->id_raw),
		/* Tools never change and resources/updated is not offered:
		 * only these two kinds are honored. */
		.prompts = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			filter, "promptsListChanged")),
		.resources = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			filter, "resourcesListChanged")),
	};
	if (!sub.id_raw) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "Out of memory");
		return;
	}
	s->subs[s->nsubs++] = sub;

	cJSON *params = subscription_params(&sub);
	cJSON *honored = cJSON_AddObjectToObject(params, "notifications");
	if (sub.prompts)
		cJSON_AddBoolToObject(honored, "promptsListChanged", true);
	if (sub.resources)
		cJSON_AddBoolToObject(honored, "resourcesListChanged", true);
	server_notify(s, "notifications/subscriptions/acknowledged", params);
	r->deferred = true;
}

void notify_cancelled(struct mcp_server *s, const cJSON *params)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "requestId");

	if (!cJSON_IsString(id) && !cJSON_IsNumber(id))
		return;
	/* Listen ids are kept as written; compare them as JSON values. */
	for (size_t i = 0; i < s->nsubs; i++) {
		cJSON *mine = cJSON_Parse(s->subs[i].id_raw);
		bool same = mine && cJSON_Compare(mine, id, true);
		cJSON_Delete(mine);
		if (same) {
			drop_subscription(s, i);
			break;
		}
	}
}

#define MAX_LOGGED_FINDINGS 50

static void add_findings(cJSON *out, const cJSON *diags)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, diags) {
		if (cJSON_GetArraySize(out) >= MAX_LOGGED_FINDINGS)
			return;
		cJSON *copy = cJSON_Duplicate(d, true);
		if (copy)
			cJSON_AddItemToArray(out, copy);
	}
}

/*
 * logging: after a refresh, one notifications/message with the counts and
 * the findings of status.json, at level error, warning or info (none
 * found), sent when at or above the level the client set.
 */
static void notify_findings(struct mcp_server *s)
{
	char *file = mount_file(&s->mount, SFS_MOUNT_STATUS), *text = NULL;
	size_t len;

	if (!file || read_file(file, MOUNT_MAX_INDEX, &text, &len) < 0) {
		free(file);
		return;
	}
	free(file);
	cJSON *status = cJSON_ParseWithLength(text, len);
	free(text);
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(status, "counts");
	double errors = cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(counts, "errors"));
	double warnings = cJSON_GetNumberValue(
		cJSON_GetObjectItemCaseSensitive(counts, "warnings"));
	int level = errors > 0 ? 4 : warnings > 0 ? 3 : 1;
	if (!status || level < s->log_level) {
		cJSON_Delete(status);
		return;
	}
	cJSON *params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "level", log_levels[level]);
	cJSON_AddStringToObject(params, "logger", "skillsfs");
	cJSON *data = cJSON_AddObjectToObject(params, "data");
	cJSON_AddItemToObject(data, "generation", cJSON_Duplicate(
		cJSON_GetObjectItemCaseSensitive(status, SFS_STATUS_GENERATION), true));
	cJSON_AddItemToObject(data, "counts", cJSON_Duplicate(counts, true));
	cJSON *findings = cJSON_AddArrayToObject(data, "findings");
	const cJSON *sk;
	add_findings(findings, cJSON_GetObjectItemCaseSensitive(status,
							       "diagnostics"));
	cJSON_ArrayForEach(sk, cJSON_GetObjectItemCaseSensitive(status, SFS_STATUS_SKILLS))
		add_findings(findings, cJSON_GetObjectItemCaseSensitive(
			sk, "diagnostics"));
	cJSON_Delete(status);
	server_notify(s, "notifications/message", params);
}

void notify_generation_changed(struct mcp_server *s)
{
	if (s->legacy_session && s->log_level >= 0)
		notify_findings(s);
	if (s->legacy_session) {
		server_notify(s, "notifications/resources/list_changed", NULL);
		server_notify(s, "notifications/prompts/list_changed", NULL);
	}
	for (size_t i = 0; i < s->nsubs; i++) {
		if (s->subs[i].resources)
			server_notify(s, "notifications/resources/list_changed",
				      subscription_params(&s->subs[i]));
		if (s->subs[i].prompts)
			server_notify(s, "notifications/prompts/list_changed",
				      subscription_params(&s->subs[i]));
	}
}

/* A graceful end: the listen request finally gets its (empty) result,
 * with the subscription id in _meta. */
void notify_close_subscriptions(struct mcp_server *s)
{
	while (s->nsubs) {
		struct subscription *sub = &s->subs[s->nsubs - 1];
		cJSON *result = subscription_params(sub);
		server_decorate_modern(result, CACHE_NONE);
		char *text = jsonrpc_result(sub->id_raw, result);
		if (text) {
			s->emit(s->emit_arg, text, strlen(text));
			free(text);
		}
		drop_subscription(s, s->nsubs - 1);
	}
}
