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
 * The era is the handshake one (initialize, notifications/initialized),
 * which every server of 2025 speaks and which a server of 2026-07-28
 * still accepts ("an initialize request selects legacy semantics"): the
 * version the server chose goes out as MCP-Protocol-Version on every
 * later request, and the Mcp-Session-Id it gave, if any, with it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "config.h"
#include "mcp_http.h"

#define PROTOCOL_VERSION "2025-11-25"
#define SKILLS_EXTENSION "io.modelcontextprotocol/skills"
/* An answer larger than this is refused: a skill's files are at most
 * 16 MiB (SEP-2640's limit), base64 makes a third more of them. */
#define MAX_ANSWER (32u << 20)
#define CONNECT_TIMEOUT_S 10L
#define TIMEOUT_S 120L

struct sfs_mcp_http {
	CURL *curl;
	char *url;
	char *auth;            /* "Authorization: Bearer ..." or NULL */
	char *session;         /* the server's Mcp-Session-Id, or NULL */
	char version[32];      /* negotiated; "" before initialize */
	long next_id;
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

/* The headers of a POST; NULL when out of memory. */
static struct curl_slist *headers(const struct sfs_mcp_http *c)
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
	if (c->auth)
		ADD(c->auth);
#undef ADD
	return h;
}

/* POSTs `message`; 0 with the HTTP status in *status, or -errno. */
static int post(struct sfs_mcp_http *c, const char *message,
                struct answer *a, long *status, char *why, size_t wlen)
{
	struct curl_slist *h = headers(c);

	if (!h)
		return -ENOMEM;
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, message);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, take_header);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, a);
	CURLcode rc = curl_easy_perform(c->curl);
	curl_slist_free_all(h);
	if (a->too_big) {
		snprintf(why, wlen, "%s: the answer is larger than %u MiB",
		         c->url, MAX_ANSWER >> 20);
		return -EFBIG;
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

/* Sends one message; with id > 0, waits for and returns its answer's
 * result in *result. */
static int exchange(struct sfs_mcp_http *c, const char *method,
                    cJSON *params, long id, cJSON **result, char *why,
                    size_t wlen)
{
	cJSON *m = cJSON_CreateObject();
	struct answer a = { 0 };
	long status = 0;
	char *text = NULL;
	int rc = -ENOMEM;

	if (!m) {
		cJSON_Delete(params);
		return -ENOMEM;
	}
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	if (id > 0)
		cJSON_AddNumberToObject(m, "id", (double)id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	text = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	if (text)
		rc = post(c, text, &a, &status, why, wlen);
	free(text);
	if (rc == 0 && a.session && !c->session) {
		c->session = a.session;
		a.session = NULL;
	}
	if (rc == 0 && (status < 200 || status > 299)) {
		snprintf(why, wlen, "%s answered %s with HTTP status %ld",
		         c->url, method, status);
		rc = status == 401 || status == 403 ? -EACCES : -EIO;
	}
	if (rc == 0 && id > 0) {
		char *ct = NULL;
		curl_easy_getinfo(c->curl, CURLINFO_CONTENT_TYPE, &ct);
		bool sse = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
		cJSON *reply = !a.body ? NULL : sse ? from_events(a.body, id)
		                                    : cJSON_Parse(a.body);
		if (!answers(reply, id)) {
			snprintf(why, wlen, "%s sent no answer to %s", c->url,
			         method);
			rc = -EPROTO;
		} else if (cJSON_HasObjectItem(reply, "error")) {
			rc = json_rpc_error(reply, method, c->url, why, wlen);
		} else {
			*result = cJSON_DetachItemFromObjectCaseSensitive(reply,
			                                                  "result");
		}
		cJSON_Delete(reply);
	}
	free(a.body);
	free(a.session);
	return rc;
}

int sfs_mcp_http_call(struct sfs_mcp_http *c, const char *method,
                      cJSON *params, cJSON **result, char *why, size_t wlen)
{
	*result = NULL;
	return exchange(c, method, params, c->next_id++, result, why, wlen);
}

static cJSON *initialize_params(void)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *caps = cJSON_AddObjectToObject(p, "capabilities");
	cJSON *ext = cJSON_AddObjectToObject(caps, "extensions");
	cJSON *info = cJSON_AddObjectToObject(p, "clientInfo");

	cJSON_AddStringToObject(p, "protocolVersion", PROTOCOL_VERSION);
	cJSON_AddObjectToObject(ext, SKILLS_EXTENSION);
	cJSON_AddStringToObject(info, "name", "skillsfs");
	cJSON_AddStringToObject(info, "version", SKILLSFS_VERSION);
	return p;
}

static int handshake(struct sfs_mcp_http *c, char *why, size_t wlen)
{
	cJSON *result;
	int rc = sfs_mcp_http_call(c, "initialize", initialize_params(),
	                           &result, why, wlen);

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

struct sfs_mcp_http *sfs_mcp_http_open(const char *url, const char *token,
                                       char *why, size_t wlen)
{
	struct sfs_mcp_http *c = calloc(1, sizeof(*c));

	if (!c || !(c->url = strdup(url)) || !(c->curl = curl_easy_init()) ||
	    (token && asprintf(&c->auth, "Authorization: Bearer %s",
	                       token) < 0)) {
		if (c)
			c->auth = NULL;
		snprintf(why, wlen, "out of memory");
		sfs_mcp_http_close(c);
		return NULL;
	}
	c->next_id = 1;
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	/* a redirect would send the token elsewhere: none is followed */
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	if (handshake(c, why, wlen) < 0) {
		sfs_mcp_http_close(c);
		return NULL;
	}
	return c;
}

const char *sfs_mcp_http_url(const struct sfs_mcp_http *c)
{
	return c->url;
}

void sfs_mcp_http_close(struct sfs_mcp_http *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->url);
	free(c->auth);
	free(c->session);
	free(c);
}
