/*
 * mcp_http.c - a client of an MCP server over Streamable HTTP (the
 * transport of MCP 2025-03-26 and later), with libcurl.
 *
 * Each JSON-RPC message is one POST.  The server answers a request either
 * with one application/json body or with a text/event-stream whose events
 * carry JSON-RPC messages in `data:` lines; the answer is the message
 * with the request's id (notifications and requests of the server's that
 * come before it are skipped: a source asks for nothing that needs them).
 * A notification is answered 202 without a body.
 *
 * Two eras.  The handshake one (initialize, notifications/initialized)
 * is tried first: every server of 2025 speaks it, and a server of
 * 2026-07-28 that still serves it takes it ("an initialize request selects
 * legacy semantics").  The version the server chose then goes out as
 * MCP-Protocol-Version on every later request, with the Mcp-Session-Id it
 * gave, if any; a 404 for that session (it expired) makes one new
 * handshake and the request again.  A server that refuses initialize with
 * an error but answers server/discover naming 2026-07-28 speaks only the
 * stateless era: each request then carries the version, our capabilities
 * and our name in its params' _meta, and the headers that mirror its body
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name), with no session.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <nettle/base64.h>

#include "config.h"
#include "mcp_client.h"
#include "mcp_http.h"

#define PROTOCOL_VERSION SFS_MCP_PROTOCOL_VERSION
#define MODERN_VERSION "2026-07-28"
#define META_PREFIX "io.modelcontextprotocol/"
#define MAX_ANSWER SFS_MCP_MAX_ANSWER
#define CONNECT_TIMEOUT_S SFS_MCP_CONNECT_TIMEOUT_S
#define TIMEOUT_S SFS_MCP_TIMEOUT_S
/* How often a request waiting on the server asks whether to stop:
 * libcurl's progress callback comes only about once a second while
 * nothing arrives, which made a stop (SIGTERM) take up to a second. */
#define STOP_LOOK_MS 100

struct sfs_mcp_http {
	CURL *curl;
	char *url;
	char *auth;            /* "Authorization: Bearer ..." or NULL */
	char *session;         /* the server's Mcp-Session-Id, or NULL */
	char version[32];      /* negotiated; "" before initialize */
	bool modern;           /* the stateless era: version in each _meta */
	long next_id;
	bool (*stop)(void *);  /* sfs_mcp_http_open's, or NULL */
	void *stop_arg;
	CURLM *multi;          /* with stop: runs curl, keeps connections */
};

/* What one POST brought back. */
struct answer {
	char *body;
	size_t len;
	bool too_big;
	char *session;         /* Mcp-Session-Id of the reply, or NULL */
};

static size_t take_body(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t add = size * n;

	if (a->len + add > MAX_ANSWER) {
		a->too_big = true;
		return 0;
	}
	char *grown = realloc(a->body, a->len + add + 1);
	if (!grown)
		return 0;
	memcpy(grown + a->len, p, add);
	a->body = grown;
	a->len += add;
	a->body[a->len] = '\0';
	return add;
}

static size_t take_header(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t len = size * n;
	static const char name[] = "mcp-session-id:";

	if (len > sizeof(name) - 1 &&
	    strncasecmp(p, name, sizeof(name) - 1) == 0) {
		const char *v = p + sizeof(name) - 1;
		const char *end = p + len;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		while (end > v && (end[-1] == '\r' || end[-1] == '\n' ||
		                   end[-1] == ' '))
			end--;
		free(a->session);
		a->session = strndup(v, (size_t)(end - v));
	}
	return len;
}

/* The value of an Mcp-Name header: `v` itself when it is printable
 * ASCII without surrounding blanks, else "=?base64?...?=" (malloc'd). */
static char *name_value(const char *v)
{
	size_t n = strlen(v);
	bool plain = n && v[0] != ' ' && v[n - 1] != ' ' &&
	             strncmp(v, "=?base64?", 9) != 0;

	for (size_t i = 0; plain && i < n; i++)
		plain = v[i] == '\t' || (v[i] >= 32 && v[i] <= 126);
	if (plain)
		return strdup(v);
	char *out = malloc(9 + BASE64_ENCODE_RAW_LENGTH(n) + 3);
	if (!out)
		return NULL;
	memcpy(out, "=?base64?", 9);
	base64_encode_raw(out + 9, n, (const uint8_t *)v);
	strcpy(out + 9 + BASE64_ENCODE_RAW_LENGTH(n), "?=");
	return out;
}

/* The headers of a POST of `method` (`name`: its Mcp-Name, or NULL);
 * NULL when out of memory. */
static struct curl_slist *headers(const struct sfs_mcp_http *c,
                                  const char *method, const char *name)
{
	struct curl_slist *h = NULL, *t;
	char line[512];

#define ADD(s) do { t = curl_slist_append(h, (s)); \
	if (!t) { curl_slist_free_all(h); return NULL; } h = t; } while (0)
	ADD("Content-Type: application/json");
	ADD("Accept: application/json, text/event-stream");
	if (c->version[0]) {
		snprintf(line, sizeof(line), "MCP-Protocol-Version: %s",
		         c->version);
		ADD(line);
	}
	if (c->session && strlen(c->session) < 400) {
		snprintf(line, sizeof(line), "Mcp-Session-Id: %s", c->session);
		ADD(line);
	}
	if (c->modern && strlen(method) < 400) {
		snprintf(line, sizeof(line), "Mcp-Method: %s", method);
		ADD(line);
	}
	if (c->modern && name) {
		char *v = name_value(name), *l = NULL;
		if (v && asprintf(&l, "Mcp-Name: %s", v) < 0)
			l = NULL;
		free(v);
		t = l ? curl_slist_append(h, l) : NULL;
		free(l);
		if (!t) {
			curl_slist_free_all(h);
			return NULL;
		}
		h = t;
	}
	if (c->auth)
		ADD(c->auth);
#undef ADD
	return h;
}

static bool stopped(const struct sfs_mcp_http *c);

/* The transfer set up on c->curl, run to its end; with stop, through
 * c->multi, asking stop every STOP_LOOK_MS (CURLE_ABORTED_BY_CALLBACK
 * when it said to stop). */
static CURLcode perform(struct sfs_mcp_http *c)
{
	CURLcode rc = CURLE_OK;
	int running = 1, left;
	CURLMsg *m;

	if (!c->multi)
		return curl_easy_perform(c->curl);
	if (curl_multi_add_handle(c->multi, c->curl) != CURLM_OK)
		return CURLE_OUT_OF_MEMORY;
	while (running) {
		CURLMcode mc = curl_multi_perform(c->multi, &running);
		if (mc == CURLM_OK && running)
			mc = curl_multi_poll(c->multi, NULL, 0, STOP_LOOK_MS, NULL);
		if (mc != CURLM_OK) {
			rc = mc == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY
			                               : CURLE_RECV_ERROR;
			break;
		}
		if (running && stopped(c)) {
			rc = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
	}
	while (!running && (m = curl_multi_info_read(c->multi, &left)))
		if (m->msg == CURLMSG_DONE)
			rc = m->data.result;
	curl_multi_remove_handle(c->multi, c->curl);
	return rc;
}

/* POSTs `message`; 0 with the HTTP status in *status, or -errno. */
static int post(struct sfs_mcp_http *c, const char *method,
                const char *name, const char *message, struct answer *a,
                long *status, char *why, size_t wlen)
{
	struct curl_slist *h = headers(c, method, name);

	if (!h)
		return -ENOMEM;
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, message);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, take_header);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, a);
	CURLcode rc = perform(c);
	curl_slist_free_all(h);
	if (a->too_big) {
		snprintf(why, wlen, "%s: the answer is larger than %u MiB",
		         c->url, MAX_ANSWER >> 20);
		return -EFBIG;
	}
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(why, wlen, "%s: %s: stopped while waiting for the "
		         "answer", c->url, method ? method : "");
		return -ECANCELED;
	}
	if (rc != CURLE_OK) {
		snprintf(why, wlen, "cannot reach %s: %s", c->url,
		         curl_easy_strerror(rc));
		return rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

/* Whether m is the answer to request `id`. */
static bool answers(const cJSON *m, long id)
{
	const cJSON *i = cJSON_GetObjectItemCaseSensitive(m, "id");
	return cJSON_IsObject(m) && cJSON_IsNumber(i) && i->valuedouble == id &&
	       (cJSON_HasObjectItem(m, "result") ||
	        cJSON_HasObjectItem(m, "error"));
}

/* The event's data (n bytes in data) when it is the answer to `id`. */
static cJSON *event_answer(char *data, size_t n, long id)
{
	data[n] = '\0';
	cJSON *m = n ? cJSON_Parse(data) : NULL;

	if (answers(m, id))
		return m;
	cJSON_Delete(m);
	return NULL;
}

/* The message answering `id` among the events of an SSE body: each event
 * is the `data:` lines before a blank line, joined by newlines. */
static cJSON *from_events(char *body, long id)
{
	char *data = malloc(strlen(body) + 1);
	size_t n = 0;
	cJSON *found = NULL;

	if (!data)
		return NULL;
	for (char *line = body, *next; line && !found; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		size_t len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strncmp(line, "data:", 5) == 0) {
			const char *v = line + 5 + (line[5] == ' ');
			if (n)
				data[n++] = '\n';
			memcpy(data + n, v, strlen(v));
			n += strlen(v);
		} else if (len == 0) {
			found = event_answer(data, n, id);
			n = 0;
		}
	}
	if (!found && n)   /* the last event, without its blank line */
		found = event_answer(data, n, id);
	free(data);
	return found;
}

static int json_rpc_error(const cJSON *m, const char *method,
                          const char *url, char *why, size_t wlen)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");

	snprintf(why, wlen, "%s answered %s with error %d: %s", url, method,
	         cJSON_IsNumber(code) ? code->valueint : 0,
	         cJSON_IsString(msg) ? msg->valuestring : "(no message)");
	return -EPROTO;
}

/* The stateless era's _meta of every request, added to params. */
static void add_meta(cJSON *params)
{
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

	if (!meta)
		meta = cJSON_AddObjectToObject(params, "_meta");
	cJSON *caps = cJSON_AddObjectToObject(meta, META_PREFIX
	                                      "clientCapabilities");
	cJSON *ext = cJSON_AddObjectToObject(caps, "extensions");
	cJSON *info = cJSON_AddObjectToObject(meta, META_PREFIX "clientInfo");

	cJSON_AddStringToObject(meta, META_PREFIX "protocolVersion",
	                        MODERN_VERSION);
	cJSON_AddObjectToObject(ext, SFS_MCP_SKILLS_EXTENSION);
	cJSON_AddStringToObject(info, "name", "skillsfs");
	cJSON_AddStringToObject(info, "version", SKILLSFS_VERSION);
}

/* The JSON-RPC message of a request (params consumed), as text. */
static char *message_text(const struct sfs_mcp_http *c, const char *method,
                          cJSON *params, long id)
{
	cJSON *m = cJSON_CreateObject();
	char *text;

	if (c->modern && id > 0 && !params)
		params = cJSON_CreateObject();
	if (!m) {
		cJSON_Delete(params);
		return NULL;
	}
	if (c->modern && id > 0 && params)
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

/* The JSON-RPC answer to `id` in a's body, or NULL. */
static cJSON *reply_of(struct sfs_mcp_http *c, struct answer *a, long id)
{
	char *ct = NULL;

	if (!a->body)
		return NULL;
	curl_easy_getinfo(c->curl, CURLINFO_CONTENT_TYPE, &ct);
	bool sse = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
	cJSON *reply = sse ? from_events(a->body, id) : cJSON_Parse(a->body);
	if (answers(reply, id))
		return reply;
	cJSON_Delete(reply);
	return NULL;
}

/* What a status that is not 2xx means; -EACCES for 401 alone, which the
 * caller turns into a finding about the token. */
static int http_error(const struct sfs_mcp_http *c, const char *method,
                      long status, char *why, size_t wlen)
{
	snprintf(why, wlen, "%s answered %s with HTTP status %ld", c->url,
	         method, status);
	return status == 401 ? -EACCES : status == 403 ? -EPERM :
	       status == 404 ? -ENOENT : -EIO;
}

/* Sends one message; with id > 0, waits for its answer: 0 with *reply
 * (the whole message, a JSON-RPC error too, which a server may send with
 * an HTTP error status), or -errno. */
static int exchange(struct sfs_mcp_http *c, const char *method,
                    cJSON *params, long id, cJSON **reply, char *why,
                    size_t wlen)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	char *name = cJSON_IsString(uri) ? strdup(uri->valuestring) : NULL;
	char *text = message_text(c, method, params, id);
	struct answer a = { 0 };
	long status = 0;
	int rc = text ? post(c, method, name, text, &a, &status, why, wlen)
	              : -ENOMEM;

	free(text);
	free(name);
	if (rc == 0 && a.session && !c->session && !c->modern) {
		c->session = a.session;
		a.session = NULL;
	}
	if (rc == 0 && id > 0)
		*reply = reply_of(c, &a, id);
	if (rc == 0 && (status < 200 || status > 299) &&
	    !(id > 0 && *reply && cJSON_HasObjectItem(*reply, "error"))) {
		rc = http_error(c, method, status, why, wlen);
	} else if (rc == 0 && id > 0 && !*reply) {
		snprintf(why, wlen, "%s sent no answer to %s", c->url, method);
		rc = -EPROTO;
	}
	if (rc < 0 && id > 0) {
		cJSON_Delete(*reply);
		*reply = NULL;
	}
	free(a.body);
	free(a.session);
	return rc;
}

/* A request and its result: 0 with *result, or -errno (-EPROTO for a
 * JSON-RPC error, whose message is then in *error when asked for). */
static int request(struct sfs_mcp_http *c, const char *method,
                   cJSON *params, cJSON **result, cJSON **error, char *why,
                   size_t wlen)
{
	cJSON *reply = NULL;
	int rc = exchange(c, method, params, c->next_id++, &reply, why, wlen);

	*result = NULL;
	if (rc == 0 && cJSON_HasObjectItem(reply, "error")) {
		rc = json_rpc_error(reply, method, c->url, why, wlen);
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

static int handshake(struct sfs_mcp_http *c, char *why, size_t wlen);

int sfs_mcp_http_call(struct sfs_mcp_http *c, const char *method,
                      cJSON *params, cJSON **result, char *why, size_t wlen)
{
	bool session = c->session != NULL;
	cJSON *again = session ? cJSON_Duplicate(params, true) : NULL;
	int rc = request(c, method, params, result, NULL, why, wlen);

	/* a 404 for the session we sent: it expired; one new handshake */
	if (rc == -ENOENT && session) {
		free(c->session);
		c->session = NULL;
		c->version[0] = '\0';
		rc = handshake(c, why, wlen);
		if (rc == 0)
			rc = request(c, method, again, result, NULL, why, wlen);
		again = NULL;
	}
	cJSON_Delete(again);
	return rc;
}

/* Whether a list of versions (strings) names the stateless era. */
static bool names_modern(const cJSON *versions)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, versions)
		if (cJSON_IsString(v) && strcmp(v->valuestring,
		                                MODERN_VERSION) == 0)
			return true;
	return false;
}

/* After initialize was refused: whether the server speaks the stateless
 * era, which server/discover answers (SEP-2575) with the versions it
 * supports.  The refusal's own text stays in *why when it does not. */
static bool stateless_era(struct sfs_mcp_http *c, const cJSON *refusal)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(refusal, "error");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
	bool said = names_modern(cJSON_GetObjectItemCaseSensitive(data,
	                                                          "supported"));
	char ignored[256];
	cJSON *result;

	c->modern = true;
	int rc = request(c, "server/discover", NULL, &result, NULL, ignored,
	                 sizeof(ignored));
	bool offers = rc == 0 && names_modern(
		cJSON_GetObjectItemCaseSensitive(result, "supportedVersions"));
	cJSON_Delete(result);
	c->modern = said || offers;
	return c->modern;
}

static int handshake(struct sfs_mcp_http *c, char *why, size_t wlen)
{
	cJSON *result, *refusal = NULL;
	int rc = request(c, "initialize", sfs_mcp_initialize_params(), &result,
	                 &refusal, why, wlen);

	if (rc == -EPROTO && refusal && stateless_era(c, refusal)) {
		cJSON_Delete(refusal);
		snprintf(c->version, sizeof(c->version), "%s", MODERN_VERSION);
		return 0;
	}
	cJSON_Delete(refusal);
	if (rc < 0)
		return rc;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(result,
	                                                  "protocolVersion");
	snprintf(c->version, sizeof(c->version), "%s",
	         cJSON_IsString(v) ? v->valuestring : PROTOCOL_VERSION);
	cJSON_Delete(result);
	return exchange(c, "notifications/initialized", NULL, 0, NULL, why,
	                wlen);
}

/* ---- listening ------------------------------------------------------------ */

/* A stream of events being read: the events are taken as they come. */
struct listening {
	struct sfs_mcp_http *c;
	const char *wanted;    /* the notification's method */
	long id;               /* of subscriptions/listen; 0 for a GET */
	char *buf;             /* what came and is not a whole event yet */
	size_t len;
	bool heard;            /* the wanted notification came */
	cJSON *error;          /* a JSON-RPC error that came instead */
	void (*on_heard)(void *);
	bool (*stop)(void *);
	void *arg;
};

/* One whole event (its lines in e, NUL-terminated): the data of its
 * `data:` lines, joined by newlines, as a JSON-RPC message. */
static void take_event(struct listening *l, char *e)
{
	char *data = malloc(strlen(e) + 1);
	size_t n = 0;

	if (!data)
		return;
	for (char *line = e, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		size_t len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strncmp(line, "data:", 5) != 0)
			continue;
		const char *v = line + 5 + (line[5] == ' ');
		if (n)
			data[n++] = '\n';
		memcpy(data + n, v, strlen(v));
		n += strlen(v);
	}
	data[n] = '\0';
	cJSON *m = n ? cJSON_Parse(data) : NULL;
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
	free(data);
	if (cJSON_IsString(method) && strcmp(method->valuestring,
	                                     l->wanted) == 0) {
		l->heard = true;
		l->on_heard(l->arg);
	}
	else if (l->id && answers(m, l->id) && !l->error)
		l->error = cJSON_Duplicate(m, true);
	cJSON_Delete(m);
}

/* libcurl's write callback for a stream: each whole event is taken as it
 * comes. */
static size_t take_stream(char *p, size_t size, size_t n, void *arg)
{
	struct listening *l = arg;
	size_t add = size * n;
	char *grown;

	if (l->len + add > MAX_ANSWER ||
	    !(grown = realloc(l->buf, l->len + add + 1)))
		return 0;
	memcpy(grown + l->len, p, add);
	l->buf = grown;
	l->len += add;
	l->buf[l->len] = '\0';
	for (;;) {
		char *end = strstr(l->buf, "\n\n");
		char *crlf = strstr(l->buf, "\r\n\r\n");
		size_t skip = 2;
		if (crlf && (!end || crlf < end)) {
			end = crlf;
			skip = 4;
		}
		if (!end)
			break;
		*end = '\0';
		take_event(l, l->buf);
		size_t rest = l->len - (size_t)(end + skip - l->buf);
		memmove(l->buf, end + skip, rest + 1);
		l->len = rest;
	}
	return add;
}

/* The headers of a stream: none is needed (without a header callback,
 * libcurl would hand them to the write callback). */
static size_t skip_header(char *p, size_t size, size_t n, void *arg)
{
	(void)p, (void)arg;
	return size * n;
}

/* Whether the client's owner said to stop waiting. */
static bool stopped(const struct sfs_mcp_http *c)
{
	return c->stop && c->stop(c->stop_arg);
}

/* libcurl's progress callback, about once a second also while nothing
 * comes: a nonzero answer ends the transfer. */
static int keep_waiting(void *arg, curl_off_t dt, curl_off_t dn,
                        curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	return stopped(arg) ? 1 : 0;
}

/* The same while a stream is listened to. */
static int keep_listening(void *arg, curl_off_t dt, curl_off_t dn,
                          curl_off_t ut, curl_off_t un)
{
	struct listening *l = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return l->stop(l->arg) || stopped(l->c) ? 1 : 0;
}

/* Every request waits on the server only as long as stop says nothing. */
static void watch_stop(struct sfs_mcp_http *c)
{
	curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, c->stop ? 0L : 1L);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, keep_waiting);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, c);
}

/* The request that opens the stream: subscriptions/listen in the
 * stateless era, a GET on the session in the handshake one. */
static int open_stream(struct listening *l, struct curl_slist **h,
                       char **body)
{
	struct sfs_mcp_http *c = l->c;

	*body = NULL;
	if (!c->modern && !c->session)
		return -EOPNOTSUPP;   /* no session: nowhere to listen */
	const char *method = c->modern ? "subscriptions/listen" : "";
	*h = headers(c, method, NULL);
	if (!*h)
		return -ENOMEM;
	if (!c->modern) {
		curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
		return 0;
	}
	cJSON *params = cJSON_CreateObject();
	cJSON *filter = cJSON_AddObjectToObject(params, "notifications");
	cJSON_AddBoolToObject(filter, "resourcesListChanged", 1);
	l->id = c->next_id++;
	*body = message_text(c, method, params, l->id);
	if (!*body)
		return -ENOMEM;
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, *body);
	return 0;
}

int sfs_mcp_http_listen(struct sfs_mcp_http *c, const char *method,
                        void (*heard)(void *), bool (*stop)(void *),
                        void *arg, char *why, size_t wlen)
{
	struct listening l = { .c = c, .wanted = method, .on_heard = heard,
	                       .stop = stop, .arg = arg };
	struct curl_slist *h = NULL;
	char *body;
	long status = 0;
	int rc = open_stream(&l, &h, &body);

	if (rc == -EOPNOTSUPP)
		snprintf(why, wlen, "%s keeps no session to send "
		         "notifications on", c->url);
	if (rc < 0) {
		curl_slist_free_all(h);
		return rc;
	}
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, take_stream);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &l);
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, skip_header);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, NULL);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 0L);
	curl_easy_setopt(c->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, keep_listening);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, &l);
	CURLcode cc = curl_easy_perform(c->curl);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	watch_stop(c);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, TIMEOUT_S);
	curl_slist_free_all(h);
	free(body);
	free(l.buf);
	if (l.heard)
		rc = 1;
	else if (cc == CURLE_ABORTED_BY_CALLBACK ||
	         (cc == CURLE_OK && status >= 200 && status < 300 && !l.error))
		rc = 0;
	else if (l.error || status == 405 || status == 400)
		rc = -EOPNOTSUPP;
	else if (status == 401)
		rc = -EACCES;
	else if (status == 404 && c->session)
		rc = -ENOENT;
	else
		rc = -EIO;
	if (l.error)
		json_rpc_error(l.error, method, c->url, why, wlen);
	else if (rc == -EOPNOTSUPP)
		snprintf(why, wlen, "%s sends no notifications (HTTP status "
		         "%ld)", c->url, status);
	else if (rc < 0 && cc != CURLE_OK)
		snprintf(why, wlen, "cannot reach %s: %s", c->url,
		         curl_easy_strerror(cc));
	else if (rc < 0)
		snprintf(why, wlen, "%s ended its stream of notifications "
		         "(HTTP status %ld)", c->url, status);
	cJSON_Delete(l.error);
	return rc;
}

/* Certificates: what OpenSSL's variables name, when set (a private
 * certificate authority), else libcurl's own default, as git sources do. */
static void use_cert_locations(CURL *curl)
{
	const char *file = getenv("SSL_CERT_FILE");
	const char *dir = getenv("SSL_CERT_DIR");

	if (file && *file)
		curl_easy_setopt(curl, CURLOPT_CAINFO, file);
	if (dir && *dir)
		curl_easy_setopt(curl, CURLOPT_CAPATH, dir);
}

int sfs_mcp_http_open(const char *url, const char *token,
                      bool (*stop)(void *), void *stop_arg,
                      struct sfs_mcp_http **out, char *why, size_t wlen)
{
	struct sfs_mcp_http *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c || !(c->url = strdup(url)) || !(c->curl = curl_easy_init()) ||
	    (token && asprintf(&c->auth, "Authorization: Bearer %s",
	                       token) < 0)) {
		if (c)
			c->auth = NULL;
		snprintf(why, wlen, "out of memory");
		sfs_mcp_http_close(c);
		return -ENOMEM;
	}
	c->next_id = 1;
	c->stop = stop;
	c->stop_arg = stop_arg;
	if (stop && !(c->multi = curl_multi_init())) {
		snprintf(why, wlen, "out of memory");
		sfs_mcp_http_close(c);
		return -ENOMEM;
	}
	watch_stop(c);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	/* a redirect would send the token elsewhere: none is followed */
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	use_cert_locations(c->curl);
	rc = handshake(c, why, wlen);
	if (rc == -ENOENT && c->session) {
		/* the session expired before its initialized notification
		 * (a server that expires them by count or by time): one new
		 * handshake, as for any request */
		free(c->session);
		c->session = NULL;
		c->version[0] = '\0';
		rc = handshake(c, why, wlen);
	}
	if (rc < 0) {
		sfs_mcp_http_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

const char *sfs_mcp_http_url(const struct sfs_mcp_http *c)
{
	return c->url;
}

const char *sfs_mcp_http_version(const struct sfs_mcp_http *c)
{
	return c->version;
}

void sfs_mcp_http_close(struct sfs_mcp_http *c)
{
	if (!c)
		return;
	if (c->multi)
		curl_multi_cleanup(c->multi);
	if (c->curl)
		curl_easy_cleanup(c->curl);
	if (c->auth) {
		/* the token leaves no copy behind in freed memory */
		explicit_bzero(c->auth, strlen(c->auth));
		free(c->auth);
	}
	free(c->url);
	free(c->session);
	free(c);
}
