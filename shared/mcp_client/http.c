/*
 * http.c - the Streamable HTTP transport (MCP 2025-03-26 and later), with
 * libcurl: bytes in, bytes out; session.c says what they mean.
 *
 * Each message the session sends is one POST.  The server answers a
 * request either with one application/json body or with a
 * text/event-stream whose events carry messages in `data:` lines: the
 * body is kept whole and handed to the session a message at a time.  A
 * notification or an answer is taken with 202 and no body.
 *
 * The headers mirror what the session's envelope says: the protocol
 * version once it is known, the Mcp-Session-Id the server gave in the
 * handshake era (kept here; a 404 for it is the session's to mend), and
 * in the stateless era Mcp-Method and Mcp-Name.  A stream of
 * notifications is a GET on the session, or a POST that opens one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <nettle/base64.h>

#include "grow.h"
#include "http_cache.h"
#include "sources/tls_exit.h"
#include "transport.h"

#define MAX_ANSWER SFS_MCP_MAX_ANSWER
/* How often a transfer waiting on the server asks whether to stop:
 * libcurl's progress callback comes only about once a second while
 * nothing arrives, which made a stop (SIGTERM) take up to a second. */
#define STOP_LOOK_MS 100

struct http {
	struct mcp_transport t;
	CURL *curl;
	CURLM *multi;          /* runs curl, asking stop between turns */
	char *url;
	char *auth;            /* "Authorization: Bearer ..." or NULL */
	char *session;         /* the server's Mcp-Session-Id, or NULL */
	char asked[64];        /* the last request's method, for messages */
	/* the last request's answer, handed out by receive: */
	char *body;            /* NUL-terminated; events cut in place */
	size_t len, pos;       /* body[pos..len) not handed out yet */
	bool events;           /* a text/event-stream */
	long status;
};

/* What one transfer brought back. */
struct answer {
	char *body;
	size_t len, cap;       /* cap: room in body, which doubles */
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
	/* room doubled, not grown by each piece: a realloc that copies
	 * (as sanitizers' do) made a 30 MB answer copy gigabytes */
	if (sfs_grow(&a->body, &a->cap, a->len + add + 1, 1) < 0)
		return 0;
	memcpy(a->body + a->len, p, add);
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

/* ---- events --------------------------------------------------------- */

/* Cuts the next event out of buf[*pos..len): its lines up to a blank
 * line, or with `last` to the end, NUL-terminated in place (buf[len]
 * is NUL); NULL when no whole event is there. */
static char *cut_event(char *buf, size_t len, size_t *pos, bool last)
{
	char *start = buf + *pos, *p = start, *end = buf + len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		if (nl == p || (nl == p + 1 && *p == '\r')) {
			*p = '\0';
			*pos = (size_t)(nl + 1 - buf);
			return start;
		}
		p = nl + 1;
	}
	if (!last || start == end)
		return NULL;
	*pos = len;
	return start;
}

/* The data of an event (its lines, NUL-terminated): its `data:` lines
 * joined by newlines (malloc'd; "" for none), or NULL. */
static char *event_data(char *e)
{
	char *data = malloc(strlen(e) + 1);
	size_t n = 0;

	if (!data)
		return NULL;
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
	return data;
}

/* ---- transfers ------------------------------------------------------- */

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

/* The headers of a transfer of what env says; NULL when out of memory. */
static struct curl_slist *headers(const struct http *h,
                                  const struct mcp_envelope *env)
{
	struct curl_slist *l = NULL, *t;
	char line[512];

#define ADD(s) do { t = curl_slist_append(l, (s)); \
	if (!t) { curl_slist_free_all(l); return NULL; } l = t; } while (0)
	ADD("Content-Type: application/json");
	ADD("Accept: application/json, text/event-stream");
	if (env->version && env->version[0] && strlen(env->version) < 400) {
		snprintf(line, sizeof(line), "MCP-Protocol-Version: %s",
		         env->version);
		ADD(line);
	}
	if (h->session && strlen(h->session) < 400) {
		snprintf(line, sizeof(line), "Mcp-Session-Id: %s", h->session);
		ADD(line);
	}
	if (env->stateless && env->method && strlen(env->method) < 400) {
		snprintf(line, sizeof(line), "Mcp-Method: %s", env->method);
		ADD(line);
	}
	if (env->stateless && env->name) {
		char *v = name_value(env->name), *n = NULL;
		if (v && asprintf(&n, "Mcp-Name: %s", v) < 0)
			n = NULL;
		free(v);
		t = n ? curl_slist_append(l, n) : NULL;
		free(n);
		if (!t) {
			curl_slist_free_all(l);
			return NULL;
		}
		l = t;
	}
	if (h->auth)
		ADD(h->auth);
#undef ADD
	return l;
}

/* The transfer set up on h->curl, run to its end through h->multi,
 * asking w->stop every STOP_LOOK_MS (CURLE_ABORTED_BY_CALLBACK when it
 * said to stop). */
static CURLcode perform(struct http *h, const struct mcp_wait *w)
{
	CURLcode rc = CURLE_OK;
	int running = 1, left;
	CURLMsg *m;
	long long ms = w->deadline ? w->deadline - mcp_now_ms() : 0;

	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS,
	                 w->deadline ? (ms > 0 ? (long)ms : 1L) : 0L);
	if (curl_multi_add_handle(h->multi, h->curl) != CURLM_OK)
		return CURLE_OUT_OF_MEMORY;
	while (running) {
		CURLMcode mc = curl_multi_perform(h->multi, &running);
		if (mc == CURLM_OK && running)
			mc = curl_multi_poll(h->multi, NULL, 0, STOP_LOOK_MS, NULL);
		if (mc != CURLM_OK) {
			rc = mc == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY
			                               : CURLE_RECV_ERROR;
			break;
		}
		if (running && mcp_stopped(w)) {
			rc = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
	}
	while (!running && (m = curl_multi_info_read(h->multi, &left)))
		if (m->msg == CURLMSG_DONE)
			rc = m->data.result;
	curl_multi_remove_handle(h->multi, h->curl);
	return rc;
}

/* What a status that is not 2xx means; -EACCES for 401 alone, which the
 * client turns into a finding about the token. */
static int http_error(const struct http *h, const char *what, long status,
                      char *why, size_t wlen)
{
	snprintf(why, wlen, "%s answered %s with HTTP status %ld", h->url,
	         what, status);
	return status == 401 ? -EACCES : status == 403 ? -EPERM :
	       status == 404 ? -ENOENT : -EIO;
}

/* POSTs msg; 0 with the HTTP status in *status, or -errno. */
static int post(struct http *h, const char *msg, size_t n,
                const struct mcp_envelope *env, const struct mcp_wait *w,
                struct answer *a, long *status, char *why, size_t wlen)
{
	struct curl_slist *l = headers(h, env);
	const char *what = env->method ? env->method : "an answer";

	if (!l)
		return mcp_no_memory(why, wlen);
	curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, l);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, msg);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, take_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, a);
	CURLcode rc = perform(h, w);
	curl_slist_free_all(l);
	if (a->too_big) {
		snprintf(why, wlen, "%s: the answer is larger than %u MiB",
		         h->url, MAX_ANSWER >> 20);
		return -EFBIG;
	}
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(why, wlen, "%s: %s: stopped while waiting for the "
		         "answer", h->url, what);
		return -ECANCELED;
	}
	if (rc != CURLE_OK) {
		snprintf(why, wlen, "cannot reach %s: %s", h->url,
		         curl_easy_strerror(rc));
		return rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

/* Whether the transfer's body is JSON or events: an error status with
 * such a body may carry a JSON-RPC error, one with a page of HTML says
 * only its status. */
static bool has_messages(const struct http *h, const struct answer *a)
{
	char *ct = NULL;

	curl_easy_getinfo(h->curl, CURLINFO_CONTENT_TYPE, &ct);
	return a->body && a->body[strspn(a->body, " \t\r\n")] && ct &&
	       (strncasecmp(ct, "application/json", 16) == 0 ||
	        strncasecmp(ct, "text/event-stream", 17) == 0);
}

/* The answer of a request, kept for receive. */
static void keep_answer(struct http *h, struct answer *a, long status)
{
	char *ct = NULL;

	curl_easy_getinfo(h->curl, CURLINFO_CONTENT_TYPE, &ct);
	free(h->body);
	h->events = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
	h->body = a->body;
	h->len = a->len;
	h->pos = 0;
	h->status = status;
	a->body = NULL;
}

static int http_send(struct mcp_transport *t, const char *msg, size_t n,
                     const struct mcp_envelope *env,
                     const struct mcp_wait *w, char *why, size_t wlen)
{
	struct http *h = (struct http *)t;
	const char *what = env->method ? env->method : "an answer";
	struct answer a = { 0 };
	long status = 0;
	int rc = post(h, msg, n, env, w, &a, &status, why, wlen);

	if (rc == 0 && a.session && !h->session && !env->stateless) {
		h->session = a.session;
		a.session = NULL;
	}
	bool ok = status >= 200 && status <= 299;
	/* an error status may carry a JSON-RPC error: the session reads it */
	if (rc == 0 && !ok && !(env->answered && has_messages(h, &a)))
		rc = http_error(h, what, status, why, wlen);
	if (rc == 0 && env->answered) {
		snprintf(h->asked, sizeof(h->asked), "%s", what);
		keep_answer(h, &a, status);
	}
	free(a.body);
	free(a.session);
	return rc;
}

static int http_receive(struct mcp_transport *t, const struct mcp_wait *w,
                        char **msg, char *why, size_t wlen)
{
	struct http *h = (struct http *)t;

	(void)w;
	*msg = NULL;
	while (h->body && h->pos < h->len && !*msg) {
		if (!h->events) {
			*msg = strdup(h->body + h->pos);
			h->pos = h->len;
			if (!*msg)
				return -ENOMEM;
			continue;
		}
		char *e = cut_event(h->body, h->len, &h->pos, true);
		*msg = e ? event_data(e) : NULL;
		if (e && !*msg)
			return -ENOMEM;
		if (*msg && !**msg) {   /* an event without data */
			free(*msg);
			*msg = NULL;
		}
	}
	if (*msg)
		return 0;
	why[0] = '\0';
	if (h->status < 200 || h->status > 299)
		return http_error(h, h->asked, h->status, why, wlen);
	return -ENODATA;
}

static bool http_forget(struct mcp_transport *t)
{
	struct http *h = (struct http *)t;
	bool had = h->session != NULL;

	free(h->session);
	h->session = NULL;
	return had;
}

/* ---- a stream ---------------------------------------------------------- */

/* A stream being read: its events are handed on as they come. */
struct listening {
	char *buf;             /* what came and is not a whole event yet */
	size_t len;
	void (*heard)(void *, const char *);
	void *arg;
};

/* libcurl's write callback for a stream: each whole event's data is
 * handed on as it comes. */
static size_t take_stream(char *p, size_t size, size_t n, void *arg)
{
	struct listening *l = arg;
	size_t add = size * n, pos = 0;
	char *grown, *e;

	if (l->len + add > MAX_ANSWER ||
	    !(grown = realloc(l->buf, l->len + add + 1)))
		return 0;
	memcpy(grown + l->len, p, add);
	l->buf = grown;
	l->len += add;
	l->buf[l->len] = '\0';
	while ((e = cut_event(l->buf, l->len, &pos, false))) {
		char *data = event_data(e);
		if (data && *data)
			l->heard(l->arg, data);
		free(data);
	}
	memmove(l->buf, l->buf + pos, l->len - pos + 1);
	l->len -= pos;
	return add;
}

/* The headers of a stream: none is needed (without a header callback,
 * libcurl would hand them to the write callback). */
static size_t skip_header(char *p, size_t size, size_t n, void *arg)
{
	(void)p, (void)arg;
	return size * n;
}

/* What the end of a stream says: 0 when stop ended it or the server
 * closed it with a 2xx, else -errno with *why. */
static int stream_end(const struct http *h, CURLcode cc, long status,
                      char *why, size_t wlen)
{
	if (cc == CURLE_ABORTED_BY_CALLBACK ||
	    (cc == CURLE_OK && status >= 200 && status < 300))
		return 0;
	if (cc == CURLE_OK && (status == 405 || status == 400)) {
		snprintf(why, wlen, "%s sends no notifications (HTTP status "
		         "%ld)", h->url, status);
		return -EOPNOTSUPP;
	}
	if (cc != CURLE_OK)
		snprintf(why, wlen, "cannot reach %s: %s", h->url,
		         curl_easy_strerror(cc));
	else
		snprintf(why, wlen, "%s ended its stream of notifications "
		         "(HTTP status %ld)", h->url, status);
	return status == 401 ? -EACCES :
	       status == 404 && h->session ? -ENOENT : -EIO;
}

static int http_stream(struct mcp_transport *t, const char *msg,
                       const struct mcp_envelope *env,
                       const struct mcp_wait *w,
                       void (*heard)(void *, const char *), void *arg,
                       char *why, size_t wlen)
{
	struct http *h = (struct http *)t;
	struct listening l = { .heard = heard, .arg = arg };
	long status = 0;

	if (!msg && !h->session) {
		snprintf(why, wlen, "%s keeps no session to send "
		         "notifications on", h->url);
		return -EOPNOTSUPP;
	}
	struct curl_slist *hl = headers(h, env);
	if (!hl)
		return mcp_no_memory(why, wlen);
	curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, hl);
	if (msg) {
		curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE,
		                 (curl_off_t)strlen(msg));
		curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, msg);
	} else {
		curl_easy_setopt(h->curl, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, take_stream);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &l);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, skip_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, NULL);
	curl_easy_setopt(h->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	CURLcode cc = perform(h, w);
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hl);
	free(l.buf);
	return stream_end(h, cc, status, why, wlen);
}

/* ---- the transport's life ------------------------------------------------ */

static void http_close(struct mcp_transport *t, bool hurry)
{
	struct http *h = (struct http *)t;

	(void)hurry;
	if (!h)
		return;
	if (h->multi)
		curl_multi_cleanup(h->multi);
	if (h->curl)
		curl_easy_cleanup(h->curl);
	if (h->auth) {
		/* the token leaves no copy behind in freed memory */
		explicit_bzero(h->auth, strlen(h->auth));
		free(h->auth);
	}
	free(h->url);
	free(h->session);
	free(h->body);
	free(h);
}

static const struct mcp_transport_ops http_ops = {
	.send = http_send, .receive = http_receive, .forget = http_forget,
	.stream = http_stream, .close = http_close,
};

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

int mcp_http_open(const char *url, const char *token,
                  struct mcp_transport **out, char *why, size_t wlen)
{
	struct http *h = calloc(1, sizeof(*h));

	*out = NULL;
	sfs_tls_no_atexit();   /* before libcurl starts OpenSSL */
	if (h && (!(h->url = strdup(url)) || !(h->curl = curl_easy_init()) ||
	          !(h->multi = curl_multi_init()) ||
	          (token && asprintf(&h->auth, "Authorization: Bearer %s",
	                             token) < 0))) {
		h->auth = NULL;
		http_close(&h->t, false);
		h = NULL;
	}
	if (!h)
		return mcp_no_memory(why, wlen);
	h->t = (struct mcp_transport){ .ops = &http_ops, .name = h->url,
	                               .label = h->url, .frame = "an answer",
	                               .in_step = true };
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT,
	                 SFS_MCP_CONNECT_TIMEOUT_S);
	curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	/* a redirect would send the token elsewhere: none is followed */
	curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 0L);
	use_cert_locations(h->curl);
	*out = &h->t;
	return 0;
}

/* ---- a plain GET --------------------------------------------------------- */

/* Content-Length of a HEAD's answer, which libcurl reads itself. */
static long long head_length(CURL *curl)
{
	curl_off_t n = -1;

	if (curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &n) !=
	    CURLE_OK)
		return -1;
	return n;
}

int mcp_http_get(const char *url, const char *token, bool head,
                 struct sfs_http_cache *cache, const struct mcp_wait *w,
                 char **body, size_t *len, long long *length, char *why,
                 size_t wlen)
{
	struct mcp_transport *t;
	struct answer a = { 0 };
	struct curl_slist *l = NULL;
	long status = 0;

	*body = NULL;
	*len = 0;
	*length = -1;
	int rc = mcp_http_open(url, token, &t, why, wlen);
	if (rc < 0)
		return rc;
	struct http *h = (struct http *)t;
	if ((h->auth && !(l = curl_slist_append(NULL, h->auth))) ||
	    (cache && mcp_http_cache_ask(cache, &l) < 0)) {
		curl_slist_free_all(l);
		http_close(t, false);
		return mcp_no_memory(why, wlen);
	}
	curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, l);
	curl_easy_setopt(h->curl, CURLOPT_NOBODY, head ? 1L : 0L);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &a);
	/* a server that sends nothing is given up after idle_s, not after
	 * the whole deadline: the caller may have many to ask in turn */
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, w->idle_s ? 1L : 0L);
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, w->idle_s);
	CURLcode cc = perform(h, w);
	curl_slist_free_all(l);
	if (a.too_big) {
		snprintf(why, wlen, "%s: larger than %u MiB", url,
		         MAX_ANSWER >> 20);
		rc = -EFBIG;
	} else if (cc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(why, wlen, "%s: stopped while waiting for it", url);
		rc = -ECANCELED;
	} else if (cc == CURLE_OPERATION_TIMEDOUT) {
		snprintf(why, wlen, "%s: given up: nothing came for %ld s, or "
		         "it took past %ld s", url, w->idle_s, w->seconds);
		rc = -ETIMEDOUT;
	} else if (cc != CURLE_OK) {
		snprintf(why, wlen, "cannot reach %s: %s", url,
		         curl_easy_strerror(cc));
		rc = cc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	} else {
		curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
		/* a 304 only when a stored answer was asked about */
		bool kept = cache && status == 304 &&
		            (cache->etag[0] || cache->last_modified[0]);
		if ((status < 200 || status > 299) && !kept)
			rc = http_error(h, head ? "HEAD" : "GET", status, why,
			                wlen);
		else if (cache)
			mcp_http_cache_learn(h->curl, status, cache);
	}
	if (rc == 0 && head)
		*length = head_length(h->curl);
	if (rc == 0 && !head && !a.body && !(a.body = strdup("")))
		rc = mcp_no_memory(why, wlen);
	if (rc == 0) {
		*body = a.body;
		*len = a.len;
		a.body = NULL;
	}
	free(a.body);
	free(a.session);
	http_close(t, false);
	return rc;
}
