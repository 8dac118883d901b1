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

#include "jsonrpc.h"
#include "server.h"

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

void notify_generation_changed(struct mcp_server *s)
{
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
