/*
 * session.c - one JSON-RPC session with an MCP server (session.h), the
 * same over every transport: what was in each transport twice before
 * (ids, the handshake, the era, the matching of answers, the errors) is
 * here once, and the transports move bytes.
 *
 * The answer to a request is the message with its id and a result or
 * an error.  The server's notifications met on the way are skipped, and
 * its requests answered, so that a server waiting on one is not left
 * hanging.  A message that is not JSON-RPC is an error: over stdio, the
 * transport's rule is that nothing else is written.
 *
 * Two eras.  The handshake one is tried first; the version the server
 * chose then goes with every later message (over HTTP as the
 * MCP-Protocol-Version header, with the Mcp-Session-Id the transport
 * keeps); when that session expires (a 404 for it) one new handshake
 * is made and the request sent again.  A server that refuses initialize
 * and names 2026-07-28 speaks only the stateless era: each request then
 * carries the version, our capabilities and our name in its params'
 * _meta, and the transport mirrors the method and the name in headers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "session.h"

#define META_PREFIX "io.modelcontextprotocol/"
/* JSON-RPC's code for a method the receiver does not have. */
#define METHOD_NOT_FOUND (-32601)

struct mcp_session {
	struct mcp_transport *t;   /* owned */
	long next_id;
	char version[32];      /* negotiated; "" before initialize */
	bool stateless;        /* the stateless era: version in each _meta */
	bool broken;           /* the transport is out of step */
	long timeout_ms;
	bool (*stop)(void *);  /* mcp_session_open's, or NULL */
	void *stop_arg;
};

/* ---- messages ---------------------------------------------------------- */

/* Our capabilities and name, added to o under the keys of either era. */
static void add_client(cJSON *o, const char *caps_key, const char *info_key)
{
	cJSON *caps = cJSON_AddObjectToObject(o, caps_key);
	cJSON *ext = cJSON_AddObjectToObject(caps, "extensions");
	cJSON *info = cJSON_AddObjectToObject(o, info_key);

	cJSON_AddObjectToObject(ext, SFS_MCP_SKILLS_EXTENSION);
	cJSON_AddStringToObject(info, "name", "skillsfs");
	cJSON_AddStringToObject(info, "version", SKILLSFS_VERSION);
}

/* The params of initialize (NULL when out of memory). */
static cJSON *initialize_params(void)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "protocolVersion", SFS_MCP_PROTOCOL_VERSION);
	add_client(p, "capabilities", "clientInfo");
	if (!cJSON_GetObjectItemCaseSensitive(p, "clientInfo")) {
		cJSON_Delete(p);
		return NULL;
	}
	return p;
}

/* The stateless era's _meta of every request, added to params. */
static void add_meta(cJSON *params)
{
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

	if (!meta)
		meta = cJSON_AddObjectToObject(params, "_meta");
	cJSON_AddStringToObject(meta, META_PREFIX "protocolVersion",
	                        SFS_MCP_STATELESS_VERSION);
	add_client(meta, META_PREFIX "clientCapabilities",
	           META_PREFIX "clientInfo");
}

/* The text of a request (id > 0) or a notification (params consumed). */
static char *message_text(const struct mcp_session *s, const char *method,
                          cJSON *params, long id)
{
	cJSON *m = cJSON_CreateObject();
	char *text;

	if (s->stateless && id > 0 && !params)
		params = cJSON_CreateObject();
	if (!m) {
		cJSON_Delete(params);
		return NULL;
	}
	if (s->stateless && id > 0 && params)
		add_meta(params);
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	if (id > 0)
		cJSON_AddNumberToObject(m, "id", (double)id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	text = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	return text;
}

/* Whether m is the answer to request `id`. */
static bool answers(const cJSON *m, long id)
{
	const cJSON *i = cJSON_GetObjectItemCaseSensitive(m, "id");

	return cJSON_IsObject(m) && cJSON_IsNumber(i) && i->valuedouble == id &&
	       !cJSON_HasObjectItem(m, "method") &&
	       (cJSON_HasObjectItem(m, "result") ||
	        cJSON_HasObjectItem(m, "error"));
}

/* A JSON-RPC error answer to `method`, said in *why: -EPROTO. */
static int json_rpc_error(const struct mcp_session *s, const cJSON *m,
                          const char *method, char *why, size_t wlen)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");

	snprintf(why, wlen, "%s answered %s with error %d: %s", s->t->label,
	         method, cJSON_IsNumber(code) ? code->valueint : 0,
	         cJSON_IsString(msg) ? msg->valuestring : "(no message)");
	return -EPROTO;
}

/* ---- exchanges ----------------------------------------------------------- */

/* The wait of one message: the session's timeout from now. */
static struct mcp_wait wait_from_now(const struct mcp_session *s)
{
	return (struct mcp_wait){
		.deadline = mcp_now_ms() + s->timeout_ms,
		.seconds = (s->timeout_ms + 999) / 1000,
		.stop = s->stop, .stop_arg = s->stop_arg,
	};
}

/* Sends text with what env says of it. */
static int send_text(struct mcp_session *s, char *text,
                     const struct mcp_envelope *env, char *why, size_t wlen)
{
	struct mcp_wait w = wait_from_now(s);

	if (!text)
		return mcp_no_memory(why, wlen);
	int rc = s->t->ops->send(s->t, text, strlen(text), env, &w, why, wlen);
	free(text);
	return rc;
}

/* Answers a request of the server's: ping with {}, anything else with
 * "method not found". */
static int answer_server(struct mcp_session *s, const cJSON *request,
                         char *why, size_t wlen)
{
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(request,
	                                                       "method");
	cJSON *m = cJSON_CreateObject();
	struct mcp_envelope env = { .version = s->version,
	                            .stateless = s->stateless };
	char *text = NULL;

	if (m) {
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
		cJSON_AddItemToObject(m, "id", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(request, "id"), true));
		if (cJSON_IsString(method) &&
		    strcmp(method->valuestring, "ping") == 0) {
			cJSON_AddObjectToObject(m, "result");
		} else {
			cJSON *e = cJSON_AddObjectToObject(m, "error");
			cJSON_AddNumberToObject(e, "code", METHOD_NOT_FOUND);
			cJSON_AddStringToObject(e, "message", "Method not found");
		}
		text = cJSON_PrintUnformatted(m);
		cJSON_Delete(m);
	}
	return send_text(s, text, &env, why, wlen);
}

/* Waits for the answer to `id`: 0 with *reply (an error's too). */
static int await_answer(struct mcp_session *s, const char *method, long id,
                        cJSON **reply, char *why, size_t wlen)
{
	struct mcp_wait w = wait_from_now(s);

	for (;;) {
		char *text = NULL;
		int rc = s->t->ops->receive(s->t, &w, &text, why, wlen);
		if (rc == -ENODATA) {
			snprintf(why, wlen, "%s sent no answer to %s", s->t->label,
			         method);
			return -EPROTO;
		}
		if (rc < 0)
			return rc;
		cJSON *m = cJSON_Parse(text);
		free(text);
		if (!cJSON_IsObject(m)) {
			cJSON_Delete(m);
			snprintf(why, wlen, "%s wrote %s that is not a JSON-RPC "
			         "message before answering %s", s->t->label,
			         s->t->frame, method);
			return -EPROTO;
		}
		if (answers(m, id)) {
			*reply = m;
			return 0;
		}
		if (cJSON_HasObjectItem(m, "method") &&
		    cJSON_HasObjectItem(m, "id"))
			rc = answer_server(s, m, why, wlen);
		cJSON_Delete(m);
		if (rc < 0)
			return rc;
	}
}

/* Sends one message (params consumed); with id > 0, a request whose
 * answer is awaited: 0 with *reply, or -errno.  A failure that leaves
 * the transport out of step breaks the session. */
static int exchange(struct mcp_session *s, const char *method,
                    cJSON *params, long id, cJSON **reply, char *why,
                    size_t wlen)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	char *name = cJSON_IsString(uri) ? strdup(uri->valuestring) : NULL;
	struct mcp_envelope env = { .method = method, .name = name,
	                            .version = s->version,
	                            .stateless = s->stateless,
	                            .answered = id > 0 };
	int rc;

	if (s->broken) {
		cJSON_Delete(params);
		free(name);
		snprintf(why, wlen, "%s: its session broke earlier", s->t->label);
		return -EIO;
	}
	rc = send_text(s, message_text(s, method, params, id), &env, why,
	               wlen);
	free(name);
	if (rc == 0 && id > 0)
		rc = await_answer(s, method, id, reply, why, wlen);
	if (rc < 0 && !s->t->in_step)
		s->broken = true;   /* a half-read answer may follow */
	return rc;
}

/* A request and its result: 0 with *result, or -errno (-EPROTO for a
 * JSON-RPC error, whose message is then in *error when asked for). */
static int ask(struct mcp_session *s, const char *method, cJSON *params,
               cJSON **result, cJSON **error, char *why, size_t wlen)
{
	cJSON *reply = NULL;
	int rc = exchange(s, method, params, s->next_id++, &reply, why, wlen);

	*result = NULL;
	if (rc == 0 && cJSON_HasObjectItem(reply, "error")) {
		rc = json_rpc_error(s, reply, method, why, wlen);
		if (error) {
			*error = reply;
			reply = NULL;
		}
	} else if (rc == 0) {
		*result = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
	}
	cJSON_Delete(reply);
	return rc;
}

/* ---- the era ------------------------------------------------------------- */

/* Whether a list of versions (strings) names the stateless era. */
static bool names_stateless(const cJSON *versions)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, versions)
		if (cJSON_IsString(v) && strcmp(v->valuestring,
		                                SFS_MCP_STATELESS_VERSION) == 0)
			return true;
	return false;
}

/* After initialize was refused: whether the server speaks the stateless
 * era, which its refusal or server/discover (SEP-2575) says with the
 * versions it supports.  The refusal's own text stays in *why when it
 * does not. */
static bool stateless_era(struct mcp_session *s, const cJSON *refusal)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(refusal, "error");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
	bool said = names_stateless(cJSON_GetObjectItemCaseSensitive(
		data, "supported"));
	char ignored[256];
	cJSON *result;

	s->stateless = true;
	int rc = ask(s, "server/discover", NULL, &result, NULL, ignored,
	             sizeof(ignored));
	bool offers = rc == 0 && names_stateless(
		cJSON_GetObjectItemCaseSensitive(result, "supportedVersions"));
	cJSON_Delete(result);
	s->stateless = said || offers;
	return s->stateless;
}

static int handshake(struct mcp_session *s, char *why, size_t wlen)
{
	cJSON *params = initialize_params(), *result, *refusal = NULL;

	if (!params)
		return mcp_no_memory(why, wlen);
	s->version[0] = '\0';
	int rc = ask(s, "initialize", params, &result, &refusal, why, wlen);
	if (rc == -EPROTO && refusal && stateless_era(s, refusal)) {
		cJSON_Delete(refusal);
		snprintf(s->version, sizeof(s->version), "%s",
		         SFS_MCP_STATELESS_VERSION);
		return 0;
	}
	cJSON_Delete(refusal);
	if (rc < 0)
		return rc;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(result,
	                                                  "protocolVersion");
	snprintf(s->version, sizeof(s->version), "%s",
	         cJSON_IsString(v) ? v->valuestring : SFS_MCP_PROTOCOL_VERSION);
	cJSON_Delete(result);
	return exchange(s, "notifications/initialized", NULL, 0, NULL, why,
	                wlen);
}

/* Whether -ENOENT said that the session the transport kept expired:
 * then it is forgotten, for a new handshake. */
static bool expired(struct mcp_session *s, int rc)
{
	return rc == -ENOENT && s->t->ops->forget && s->t->ops->forget(s->t);
}

/* ---- the session's life ------------------------------------------------ */

int mcp_session_open(struct mcp_transport *t, long timeout_ms,
                     bool (*stop)(void *), void *stop_arg,
                     struct mcp_session **out, char *why, size_t wlen)
{
	struct mcp_session *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s) {
		t->ops->close(t, false);
		return mcp_no_memory(why, wlen);
	}
	*s = (struct mcp_session){ .t = t, .next_id = 1,
	                           .timeout_ms = timeout_ms, .stop = stop,
	                           .stop_arg = stop_arg };
	int rc = handshake(s, why, wlen);
	/* the session expired before its initialized notification (a
	 * server that expires them by count or by time): one new
	 * handshake, as for any request */
	if (expired(s, rc))
		rc = handshake(s, why, wlen);
	if (rc < 0) {
		mcp_session_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int mcp_session_call(struct mcp_session *s, const char *method,
                     cJSON *params, cJSON **result, char *why, size_t wlen)
{
	cJSON *again = s->t->ops->forget ? cJSON_Duplicate(params, true)
	                                 : NULL;
	int rc = ask(s, method, params, result, NULL, why, wlen);

	if (expired(s, rc)) {
		rc = handshake(s, why, wlen);
		if (rc == 0)
			rc = ask(s, method, again, result, NULL, why, wlen);
		again = NULL;
	}
	cJSON_Delete(again);
	return rc;
}

const char *mcp_session_version(const struct mcp_session *s)
{
	return s->version;
}

const char *mcp_session_name(const struct mcp_session *s)
{
	return s->t->name;
}

void mcp_session_close(struct mcp_session *s)
{
	if (!s)
		return;
	s->t->ops->close(s->t, s->stop && s->stop(s->stop_arg));
	free(s);
}

/* ---- listening ----------------------------------------------------------- */

/* A stream being listened to. */
struct listening {
	struct mcp_session *s;
	const char *wanted;    /* the notification's method */
	long id;               /* of subscriptions/listen; 0: none */
	bool heard;            /* the wanted notification came */
	cJSON *error;          /* a JSON-RPC error that came instead */
	void (*on_heard)(void *);
	bool (*stop)(void *);
	void *arg;
};

/* One message of the stream. */
static void take_message(void *arg, const char *text)
{
	struct listening *l = arg;
	cJSON *m = cJSON_Parse(text);
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");

	if (cJSON_IsString(method) && strcmp(method->valuestring,
	                                     l->wanted) == 0) {
		l->heard = true;
		l->on_heard(l->arg);
	} else if (l->id && answers(m, l->id) && !l->error) {
		l->error = cJSON_Duplicate(m, true);
	}
	cJSON_Delete(m);
}

/* Whether the listener's owner, or the session's, says to stop. */
static bool listen_stopped(void *arg)
{
	const struct listening *l = arg;

	return l->stop(l->arg) || (l->s->stop && l->s->stop(l->s->stop_arg));
}

int mcp_session_listen(struct mcp_session *s, const char *method,
                       void (*heard)(void *), bool (*stop)(void *),
                       void *arg, char *why, size_t wlen)
{
	static const char listen_method[] = "subscriptions/listen";
	struct listening l = { .s = s, .wanted = method, .on_heard = heard,
	                       .stop = stop, .arg = arg };
	struct mcp_envelope env = { .version = s->version,
	                            .stateless = s->stateless };
	struct mcp_wait w = { .stop = listen_stopped, .stop_arg = &l };
	char *text = NULL;

	if (!s->t->ops->stream) {
		snprintf(why, wlen, "%s sends no notifications between "
		         "requests", s->t->label);
		return -EOPNOTSUPP;
	}
	if (s->stateless) {
		cJSON *params = cJSON_CreateObject();
		cJSON *filter = cJSON_AddObjectToObject(params, "notifications");
		cJSON_AddBoolToObject(filter, "resourcesListChanged", 1);
		l.id = s->next_id++;
		env.method = listen_method;
		if (!(text = message_text(s, listen_method, params, l.id)))
			return mcp_no_memory(why, wlen);
	}
	int rc = s->t->ops->stream(s->t, text, &env, &w, take_message, &l,
	                           why, wlen);
	free(text);
	if (l.heard)
		rc = 1;
	else if (l.error)
		rc = (json_rpc_error(s, l.error, method, why, wlen), -EOPNOTSUPP);
	cJSON_Delete(l.error);
	return rc;
}
