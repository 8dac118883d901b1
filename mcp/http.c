/*
 * http.c - skillsfs-mcp --http: the MCP server over Streamable HTTP
 * (libmicrohttpd), one JSON-RPC message per POST to /mcp.
 *
 * Both eras of the protocol, as on stdio:
 *   - the handshake era: a POST of initialize opens a session, whose id
 *     its answer carries in Mcp-Session-Id and every later request names;
 *     a GET naming it opens the session's stream of notifications
 *     (list_changed, log messages), resumed after a drop from its
 *     Last-Event-ID (http_events.c); DELETE ends it (http_session.c).
 *   - 2026-07-28: a request whose _meta names its protocol version stands
 *     alone, answered by a server made for it and freed after it, except
 *     subscriptions/listen, whose POST stays open as an event stream with
 *     that server behind it until the client goes.
 * Which request goes where follows the official TypeScript SDK's server
 * (classifyInboundRequest): the body decides, the headers that mirror it
 * must agree (-32020), and a request with a 2026-07-28
 * MCP-Protocol-Version header but no version in its _meta is refused.
 * Answers are application/json; only streams are text/event-stream.
 *
 * Who may ask is decided before a body is read (http_access.c): Host and
 * Origin, then the bearer token, then the path and the method.
 *
 * Everything runs on the calling thread, so no server is ever used by two
 * threads: libmicrohttpd in external epoll mode is polled here, between
 * ticks that look for a new generation of the mount for the servers with
 * a stream to tell (http_stream.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base64.h"
#include "buf.h"
#include "clock.h"
#include "http.h"
#include "http_guard.h"
#include "http_session.h"
#include "http_stream.h"
#include "jsonrpc.h"
#include "wellknown.h"
#include "wellknown/index.h"

#define MAX_STREAMS 64
/* libmicrohttpd's own: a connection silent this long is closed (one that
 * trickles is cut by http_guard.c's deadlines instead). */
#define CONNECTION_TIMEOUT_S 30
#define TICK_NS ((uint64_t)1000000000)
/* How long the streams get at shutdown to send their last events. */
#define FLUSH_NS ((uint64_t)1000000000)

/* JSON-RPC codes of what the transport refuses by itself (those of the
 * official SDKs); -32020 is 2026-07-28's HeaderMismatch. */
#define REFUSED (-32000)
#define SESSION_NOT_FOUND (-32001)
#define HEADER_MISMATCH (-32020)

struct http {
	const struct http_config *cfg;
	struct MHD_Daemon *daemon;
	struct http_guards guards;
	struct sessions sessions;
	struct http_streams streams;
	struct mount published;    /* what /.well-known/agent-skills/ reads */
	bool stopping;
};

/* One HTTP request. */
struct exchange {
	uint64_t t0;               /* when its headers came */
	struct buf body;
	bool too_big;              /* longer than MCP_MAX_LINE: not kept */
	bool refused;              /* answered before its body */
};

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* ---- responses -------------------------------------------------------- */

static enum MHD_Result send_response(struct MHD_Connection *c, unsigned status,
                                     struct MHD_Response *r)
{
	if (!r)
		return MHD_NO;
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* A response with this JSON text (taken); NULL when text is. */
static struct MHD_Response *json_response(char *text)
{
	if (!text)
		return NULL;
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	return r;
}

static enum MHD_Result send_empty(struct MHD_Connection *c, unsigned status)
{
	return send_response(c, status, MHD_create_response_from_buffer(
		0, NULL, MHD_RESPMEM_PERSISTENT));
}

/* Answers with `status` and a JSON-RPC error, plus one more header when
 * extra_name is not NULL. */
static enum MHD_Result refuse_with(struct MHD_Connection *c, unsigned status,
                                   const char *extra_name, const char *extra_value,
                                   int code, const char *id_raw,
                                   const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static enum MHD_Result refuse_with(struct MHD_Connection *c, unsigned status,
                                   const char *extra_name, const char *extra_value,
                                   int code, const char *id_raw,
                                   const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	struct MHD_Response *r = msg ? json_response(jsonrpc_error(id_raw, code,
								   msg, NULL))
				     : NULL;
	free(msg);
	if (r && extra_name)
		MHD_add_response_header(r, extra_name, extra_value);
	return send_response(c, status, r);
}

#define refuse(c, status, ...) refuse_with(c, status, NULL, NULL, __VA_ARGS__)

static enum MHD_Result session_not_found(struct MHD_Connection *c)
{
	return refuse(c, MHD_HTTP_NOT_FOUND, SESSION_NOT_FOUND, NULL,
		      "Session not found: it ended or expired; open a new one "
		      "with initialize");
}

/* The HTTP status of a POST's answer (2026-07-28 transports: errors
 * about the request's version or _meta are 400, an unknown method 404;
 * other errors ride on 200, as they do in the handshake era). */
static unsigned status_for(const struct mcp_outcome *o, bool modern)
{
	if (!o->code)
		return MHD_HTTP_OK;
	if (o->envelope || o->code == JSONRPC_PARSE_ERROR ||
	    o->code == JSONRPC_INVALID_REQUEST)
		return MHD_HTTP_BAD_REQUEST;
	if (modern && o->code == JSONRPC_METHOD_NOT_FOUND)
		return MHD_HTTP_NOT_FOUND;
	return MHD_HTTP_OK;
}

/* Answers with the reply in cap (its last message). */
static enum MHD_Result answer(struct MHD_Connection *c, struct capture *cap,
                              unsigned status, const char *session_id)
{
	struct MHD_Response *r = json_response(cap->last);

	cap->last = NULL;
	if (!r)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, JSONRPC_INTERNAL_ERROR,
			      NULL, "Internal error: out of memory");
	if (session_id)
		MHD_add_response_header(r, "Mcp-Session-Id", session_id);
	return send_response(c, status, r);
}

/* Whether an Accept header (NULL: none) takes `type`, or a range of it. */
static bool accepts(const char *accept, const char *type)
{
	size_t major = strcspn(type, "/");

	if (!accept)
		return true;
	for (const char *p = accept; *p; p += *p == ',') {
		p += strspn(p, " \t");
		size_t n = strcspn(p, ",;");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if ((n == strlen(type) && strncasecmp(p, type, n) == 0) ||
		    (n == 3 && strncmp(p, "*/*", 3) == 0) ||
		    (n == major + 2 && strncasecmp(p, type, major + 1) == 0 &&
		     p[major + 1] == '*'))
			return true;
		p += strcspn(p, ",");
	}
	return false;
}

/* ---- serving a message ------------------------------------------------ */

/* A message of a session.  Notifications that came before the reply (a
 * new generation of the mount) went to the session's event log, and to
 * its stream if it is open (http_session.c). */
static enum MHD_Result serve_session(struct MHD_Connection *c,
                                     struct session *se, const struct message *m,
                                     uint64_t t0, bool modern)
{
	struct capture cap = { 0 };

	peer_ask(&se->peer, m, t0, &cap, false);
	enum MHD_Result rc = answer(c, &cap,
		status_for(&se->peer.server->outcome, modern), NULL);
	capture_free(&cap);
	return rc;
}

/* A message that stands alone, with a server of its own; the POST of a
 * subscriptions/listen becomes its stream. */
static enum MHD_Result serve_alone(struct http *h, struct MHD_Connection *c,
                                   const struct message *m, uint64_t t0,
                                   bool modern)
{
	struct capture cap = { 0 };
	struct peer *p = peer_new(&h->cfg->server);

	if (!p)
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, JSONRPC_INTERNAL_ERROR,
			      m->id_raw, "Internal error: out of memory");
	bool may_stream = !h->stopping && h->streams.n < MAX_STREAMS &&
			  accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream");
	peer_ask(p, m, t0, &cap, may_stream);
	struct mcp_outcome o = p->server->outcome;
	enum MHD_Result rc;
	if (o.deferred && may_stream) {
		if (cap.last)   /* the acknowledgement */
			http_sse_event(&cap.events, cap.last, cap.last_len);
		rc = peer_stream_open(p, true, &h->streams, c, &cap.events)
			? MHD_YES : MHD_NO;
	} else {
		peer_free(p);
		rc = answer(c, &cap, status_for(&o, modern), NULL);
	}
	capture_free(&cap);
	return rc;
}

static enum MHD_Result serve(struct http *h, struct MHD_Connection *c,
                             struct session *se, const struct message *m,
                             uint64_t t0, bool modern)
{
	return se ? serve_session(c, se, m, t0, modern)
		  : serve_alone(h, c, m, t0, modern);
}

/* initialize without a session: a new one, kept if it succeeds. */
static enum MHD_Result handshake(struct http *h, struct MHD_Connection *c,
                                 const struct message *m, uint64_t t0)
{
	struct capture cap = { 0 };
	struct session *se = sessions_open(&h->sessions);

	if (!se)
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, JSONRPC_INTERNAL_ERROR,
			      m->id_raw, "Internal error: cannot open a session");
	peer_ask(&se->peer, m, t0, &cap, false);
	struct mcp_outcome o = se->peer.server->outcome;
	if (o.code)
		sessions_close(&h->sessions, se);
	enum MHD_Result rc = answer(c, &cap, status_for(&o, false),
				    o.code ? NULL : se->id);
	capture_free(&cap);
	return rc;
}

/* ---- the POST of a request -------------------------------------------- */

/* The field of params that the Mcp-Name header mirrors, or NULL. */
static const char *name_field(const char *method)
{
	if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
		return "name";
	return strcmp(method, "resources/read") == 0 ? "uri" : NULL;
}

/* An Mcp-Name header says `value`: as it is, or in base64 between
 * =?base64? and ?= (for a value a header cannot carry as it is). */
static bool name_matches(const char *hdr, const char *value)
{
	size_t n = strlen(hdr);

	if (n < 11 || strncmp(hdr, "=?base64?", 9) != 0 ||
	    strcmp(hdr + n - 2, "?=") != 0)
		return strcmp(hdr, value) == 0;
	char *b64 = base64_encode((const unsigned char *)value, strlen(value));
	bool same = b64 && strlen(b64) == n - 11 &&
		    strncmp(hdr + 9, b64, n - 11) == 0;
	free(b64);
	return same;
}

/* Why the headers that mirror a request of `version` disagree with its
 * body (malloc'd), or NULL when they agree or are absent. */
static char *mismatch(struct MHD_Connection *c, const struct message *m,
                      const char *version)
{
	const char *hv = header(c, "MCP-Protocol-Version");
	const char *hm = header(c, "Mcp-Method");
	const char *hn = header(c, "Mcp-Name");
	const char *field = name_field(m->method);
	const char *value = field ? cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(m->params, field)) : NULL;

	if (hv && strcmp(hv, version) != 0)
		return xasprintf("the MCP-Protocol-Version header names %s, the "
				 "body's _meta %s", hv, version);
	if (hm && strcmp(hm, m->method) != 0)
		return xasprintf("the Mcp-Method header names %s, the body %s",
				 hm, m->method);
	if (hn && value && !name_matches(hn, value))
		return xasprintf("the Mcp-Name header is not the body's params.%s",
				 field);
	return NULL;
}

static enum MHD_Result refuse_mismatch(struct MHD_Connection *c,
                                       const struct message *m, char *why)
{
	enum MHD_Result rc = refuse(c, MHD_HTTP_BAD_REQUEST, HEADER_MISMATCH,
		m->id_raw, "Bad Request: the request headers and body disagree: %s",
		why ? why : "out of memory");
	free(why);
	return rc;
}

static enum MHD_Result request(struct http *h, struct MHD_Connection *c,
                               struct session *se, const struct message *m,
                               uint64_t t0)
{
	const char *hv = header(c, "MCP-Protocol-Version");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(m->params, "_meta");
	const cJSON *claim = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
	const char *version = cJSON_GetStringValue(claim);
	bool modern = version && version_is_modern(version);
	char *why;

	if (strcmp(m->method, "initialize") == 0 && !modern) {
		if (hv && version_is_modern(hv))
			return refuse_mismatch(c, m, xasprintf("initialize (the "
				"handshake) with MCP-Protocol-Version %s", hv));
		return se ? serve_session(c, se, m, t0, false) : handshake(h, c, m, t0);
	}
	if (claim) {   /* the server itself refuses a claim that is no string */
		if (version && (why = mismatch(c, m, version)))
			return refuse_mismatch(c, m, why);
		return serve(h, c, se, m, t0, modern);
	}
	if (hv && version_is_modern(hv))
		return refuse(c, MHD_HTTP_BAD_REQUEST, JSONRPC_INVALID_PARAMS, m->id_raw,
			      "Invalid params: the MCP-Protocol-Version header names %s, "
			      "but _meta[\"%s\"] is missing: a request of that revision "
			      "names its version (and clientCapabilities) in _meta",
			      hv, META_VERSION);
	if (!se)
		return refuse(c, MHD_HTTP_BAD_REQUEST, JSONRPC_INVALID_REQUEST, m->id_raw,
			      "Bad Request: no Mcp-Session-Id header: open a session "
			      "with initialize first, or name the protocol version in "
			      "_meta[\"%s\"] (2026-07-28)", META_VERSION);
	if (hv && !version_supported(hv))
		return refuse(c, MHD_HTTP_BAD_REQUEST, JSONRPC_INVALID_REQUEST, m->id_raw,
			      "Bad Request: unsupported MCP-Protocol-Version %s", hv);
	return serve_session(c, se, m, t0, false);
}

/* A body over MCP_MAX_LINE, answered as stdio answers such a line. */
static enum MHD_Result oversized(struct http *h, struct MHD_Connection *c,
                                 struct session *se)
{
	struct capture cap = { 0 };
	struct peer *p = se ? &se->peer : peer_new(&h->cfg->server);

	if (!p)
		return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, JSONRPC_INVALID_REQUEST,
			      NULL, "Invalid Request: message too long");
	p->capture = &cap;
	mcp_server_oversized(p->server);
	p->capture = NULL;
	if (!se)
		peer_free(p);
	enum MHD_Result rc = answer(c, &cap, MHD_HTTP_CONTENT_TOO_LARGE, NULL);
	capture_free(&cap);
	return rc;
}

static enum MHD_Result post(struct http *h, struct MHD_Connection *c,
                            struct exchange *ex)
{
	const char *sid = header(c, "Mcp-Session-Id");
	struct session *se = sid ? sessions_find(&h->sessions, sid) : NULL;
	struct capture none = { 0 };
	enum MHD_Result rc;
	struct message m;

	if (sid && !se)
		return session_not_found(c);
	if (se)
		se->last_used = now_ns();
	if (ex->too_big)
		return oversized(h, c, se);
	message_parse(ex->body.data ? ex->body.data : "", ex->body.len, &m);
	buf_free(&ex->body);
	switch (m.kind) {
	case MSG_EMPTY:
		rc = refuse(c, MHD_HTTP_BAD_REQUEST, JSONRPC_INVALID_REQUEST, NULL,
			    "Invalid Request: the body holds no JSON-RPC message");
		break;
	case MSG_NOTIFICATION:
	case MSG_RESPONSE:
		/* Taken note of by a session (initialized, cancelled);
		 * never answered. */
		if (se)
			peer_ask(&se->peer, &m, ex->t0, &none, false);
		capture_free(&none);
		rc = send_empty(c, MHD_HTTP_ACCEPTED);
		break;
	case MSG_INVALID:
		rc = serve(h, c, se, &m, ex->t0, false);
		break;
	case MSG_REQUEST:
	default:
		rc = request(h, c, se, &m, ex->t0);
		break;
	}
	message_free(&m);
	return rc;
}

/* ---- GET and DELETE --------------------------------------------------- */

/* A Last-Event-ID the session cannot resume from (as the official SDK's
 * server: 400, -32000). */
static enum MHD_Result lost_events(struct MHD_Connection *c, const char *id,
                                   int why)
{
	if (why == -ERANGE)
		return refuse(c, MHD_HTTP_BAD_REQUEST, REFUSED, NULL,
			      "Bad Request: Last-Event-ID %.80s: the events after it "
			      "are no longer kept (a session keeps its last %d, at "
			      "most %zu KiB); open the stream without Last-Event-ID "
			      "and list again", id, EVENT_LOG_EVENTS,
			      EVENT_LOG_BYTES / 1024);
	return refuse(c, MHD_HTTP_BAD_REQUEST, REFUSED, NULL,
		      "Bad Request: Last-Event-ID %.80s is not an event of this "
		      "session's stream; open the stream without Last-Event-ID",
		      id);
}

static enum MHD_Result get(struct http *h, struct MHD_Connection *c)
{
	const char *sid = header(c, "Mcp-Session-Id");
	const char *last_id = header(c, "Last-Event-ID");
	struct session *se = sid ? sessions_find(&h->sessions, sid) : NULL;
	struct buf first = { 0 };
	int rc;

	if (!sid)
		return refuse_with(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				   MHD_HTTP_HEADER_ALLOW, "POST, DELETE", REFUSED, NULL,
				   "Method Not Allowed: a GET opens the stream of a "
				   "session (name it in Mcp-Session-Id); 2026-07-28 "
				   "clients call subscriptions/listen");
	if (!se)
		return session_not_found(c);
	if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
		return refuse(c, MHD_HTTP_NOT_ACCEPTABLE, REFUSED, NULL,
			      "Not Acceptable: the stream is text/event-stream");
	if (se->peer.stream)
		return refuse(c, MHD_HTTP_CONFLICT, REFUSED, NULL,
			      "Conflict: the session's stream is open already");
	if (h->streams.n >= MAX_STREAMS || h->stopping)
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, REFUSED, NULL,
			      "Service Unavailable: %d streams are open already",
			      MAX_STREAMS);
	se->last_used = now_ns();
	if (last_id && (rc = event_log_replay(&se->events, last_id, &first)) < 0) {
		buf_free(&first);
		return lost_events(c, last_id, rc);
	}
	/* After the replay, so that a client cut off during it resumes
	 * from the last event it really got. */
	event_log_prime(&se->events, &first);
	se->streamed = true;
	return peer_stream_open(&se->peer, false, &h->streams, c, &first)
		? MHD_YES : MHD_NO;
}

static enum MHD_Result end_session(struct http *h, struct MHD_Connection *c)
{
	const char *sid = header(c, "Mcp-Session-Id");
	struct session *se = sid ? sessions_find(&h->sessions, sid) : NULL;

	if (!sid)
		return refuse(c, MHD_HTTP_BAD_REQUEST, JSONRPC_INVALID_REQUEST, NULL,
			      "Bad Request: name the session to end in Mcp-Session-Id");
	if (!se)
		return session_not_found(c);
	sessions_close(&h->sessions, se);
	return send_empty(c, MHD_HTTP_NO_CONTENT);
}

/* ---- the request handler ---------------------------------------------- */

/* The address a request came to: the one listened on, unless that is
 * every address of the machine (0.0.0.0, ::). */
static struct sockaddr_storage local_address(const struct http_listen *l,
                                             struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct sockaddr_storage local = l->addr;
	socklen_t len = sizeof(local);

	if (info && getsockname(info->connect_fd, (struct sockaddr *)&local, &len) < 0)
		local = l->addr;
	return local;
}

/* ---- /.well-known/agent-skills/ ---------------------------------------- */

static bool is_wellknown(const char *url)
{
	return strncmp(url, SFS_WK_PATH, strlen(SFS_WK_PATH)) == 0;
}

/* A file of the mount, streamed from its descriptor (which MHD closes). */
static enum MHD_Result send_file(struct MHD_Connection *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return refuse(c, MHD_HTTP_NOT_FOUND, REFUSED, NULL,
			      "Not Found: no such skill file");
	}
	struct MHD_Response *r = MHD_create_response_from_fd(
		(uint64_t)st.st_size, fd);
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"application/octet-stream");
	return send_response(c, MHD_HTTP_OK, r);
}

/* The mount's skills as a website's well-known index, and their files
 * (wellknown.c), under the same token as the MCP endpoint. */
static enum MHD_Result serve_wellknown(struct http *h, struct MHD_Connection *c,
                                       const char *url)
{
	int err = 0;

	mount_generation_changed(&h->published);   /* a new one: read anew */
	if (strcmp(url, SFS_WK_INDEX) == 0) {
		char *text = wellknown_index(&h->published, &err);
		if (text)
			return send_response(c, MHD_HTTP_OK, json_response(text));
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, REFUSED, NULL,
			      "Service Unavailable: the mount cannot be read: "
			      "%s", strerror(-err));
	}
	char *path = wellknown_file(&h->published, url + strlen(SFS_WK_PATH),
	                            &err);
	if (!path)
		return refuse(c, err == -ENOENT ? MHD_HTTP_NOT_FOUND :
			      MHD_HTTP_SERVICE_UNAVAILABLE, REFUSED, NULL,
			      "%s", err == -ENOENT ? "Not Found: no such skill "
			      "file" : strerror(-err));
	enum MHD_Result rc = send_file(c, path);
	free(path);
	return rc;
}

/* The checks made before the body is read; true when they refused it. */
static bool refused(struct http *h, struct MHD_Connection *c, const char *url,
                    const char *method, enum MHD_Result *rc)
{
	const struct http_listen *l = h->cfg->listen;
	const char *host = header(c, MHD_HTTP_HEADER_HOST);
	const char *origin = header(c, MHD_HTTP_HEADER_ORIGIN);
	const char *type = header(c, MHD_HTTP_HEADER_CONTENT_TYPE);
	size_t type_len = type ? strcspn(type, "; \t") : 0;
	bool is_post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
	struct sockaddr_storage local = local_address(l, c);

	if (!http_host_ok(l, host) || !http_origin_ok(l, origin, &local))
		*rc = refuse(c, MHD_HTTP_FORBIDDEN, REFUSED, NULL,
			     "Forbidden: Host %s, Origin %s: not this server's "
			     "(DNS rebinding protection); call http://%s:%u"
			     HTTP_ENDPOINT " from this machine", host ? host : "-",
			     origin ? origin : "-", l->host, l->port);
	else if (h->cfg->token &&
		 !http_bearer_ok(header(c, MHD_HTTP_HEADER_AUTHORIZATION),
				 h->cfg->token))
		*rc = refuse_with(c, MHD_HTTP_UNAUTHORIZED,
				  MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer", REFUSED,
				  NULL, "Unauthorized: send Authorization: Bearer "
				  "TOKEN, TOKEN the first line of the server's "
				  "--token-file");
	else if (is_wellknown(url) && strcmp(method, MHD_HTTP_METHOD_GET) != 0)
		*rc = refuse_with(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  MHD_HTTP_HEADER_ALLOW, "GET", REFUSED, NULL,
				  "Method Not Allowed: %s", method);
	else if (is_wellknown(url))
		return false;
	else if (strcmp(url, HTTP_ENDPOINT) != 0)
		*rc = refuse(c, MHD_HTTP_NOT_FOUND, REFUSED, NULL,
			     "Not Found: the MCP endpoint is " HTTP_ENDPOINT
			     ", the skills index " SFS_WK_INDEX);
	else if (!is_post && strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		 strcmp(method, MHD_HTTP_METHOD_DELETE) != 0)
		*rc = refuse_with(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  MHD_HTTP_HEADER_ALLOW, "GET, POST, DELETE", REFUSED,
				  NULL, "Method Not Allowed: %s", method);
	else if (is_post && type &&
		 !(type_len == 16 && strncasecmp(type, "application/json", 16) == 0))
		*rc = refuse(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, REFUSED, NULL,
			     "Unsupported Media Type: send application/json");
	else if (is_post && !accepts(header(c, MHD_HTTP_HEADER_ACCEPT),
				     "application/json"))
		*rc = refuse(c, MHD_HTTP_NOT_ACCEPTABLE, REFUSED, NULL,
			     "Not Acceptable: answers are application/json");
	else
		return false;
	return true;
}

/* Keeps a piece of a body, up to MCP_MAX_LINE in all. */
static void keep(struct exchange *ex, const char *data, size_t n)
{
	if (ex->refused || ex->too_big)
		return;
	if (ex->body.len + n > MCP_MAX_LINE) {
		ex->too_big = true;
		buf_free(&ex->body);
		return;
	}
	buf_add(&ex->body, data, n);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
	struct http *h = cls;
	struct exchange *ex = *con_cls;
	enum MHD_Result rc = MHD_YES;

	(void)version;
	if (!ex) {   /* the headers are in */
		if (!(ex = calloc(1, sizeof(*ex))))
			return MHD_NO;
		*con_cls = ex;
		ex->t0 = now_ns();
		ex->refused = refused(h, c, url, method, &rc);
		http_guard_headers_in(c, !ex->refused);
		return rc;
	}
	if (*upload_size) {
		keep(ex, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (ex->refused)
		return MHD_YES;
	http_guard_answering(c);
	if (ex->body.failed)
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, JSONRPC_INTERNAL_ERROR,
			      NULL, "Internal error: out of memory for the body");
	if (is_wellknown(url))
		return serve_wellknown(h, c, url);
	if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
		return post(h, c, ex);
	if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
		return get(h, c);
	return end_session(h, c);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
	struct exchange *ex = *con_cls;

	(void)cls;
	(void)why;
	http_guard_completed(c, ex && !ex->refused);
	if (ex) {
		buf_free(&ex->body);
		free(ex);
		*con_cls = NULL;
	}
}

static void on_log(void *cls, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void on_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("skillsfs-mcp: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* ---- the loop --------------------------------------------------------- */

/* Waits for libmicrohttpd's sockets up to timeout_ms, and lets it run. */
static void step(struct http *h, int epoll_fd, uint64_t timeout_ms)
{
	MHD_UNSIGNED_LONG_LONG mhd_ms;

	if (MHD_get_timeout(h->daemon, &mhd_ms) == MHD_YES && mhd_ms < timeout_ms)
		timeout_ms = mhd_ms;
	http_streams_wait(&h->streams, epoll_fd, timeout_ms);
	MHD_run(h->daemon);
}

/* Once a second: news of the mount for the servers with a stream to tell
 * (as the stdio loop does when idle), and the end of idle sessions. */
static void tick(struct http *h)
{
	peer_streams_tick(&h->streams);
	sessions_tick(&h->sessions);
	sessions_expire(&h->sessions, now_ns());
	http_guards_expire(&h->guards, now_ns());
}

/* Ends every stream (a subscription with its result, as on stdio), gives
 * them a moment to go out, then stops and frees everything. */
static void finish(struct http *h, int epoll_fd)
{
	uint64_t deadline = now_ns() + FLUSH_NS, now;

	h->stopping = true;
	peer_streams_end(&h->streams);
	/* At least once: libmicrohttpd must take a resumed connection back
	 * before it may stop. */
	do {
		now = now_ns();
		step(h, epoll_fd, h->streams.head && now < deadline
			? (deadline - now) / 1000000 : 0);
	} while (h->streams.head && now_ns() < deadline);
	MHD_stop_daemon(h->daemon);
	sessions_close_all(&h->sessions);
	mount_release(&h->published);
}

int http_serve(const struct http_config *cfg, volatile sig_atomic_t *stop)
{
	struct http h = { .cfg = cfg, .sessions.cfg = &cfg->server,
	                  .published.path = (char *)cfg->server.mount };

	if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) != MHD_YES) {
		fprintf(stderr, "skillsfs-mcp: this libmicrohttpd cannot use epoll, "
			"which --http needs\n");
		close(cfg->listen_fd);
		return 1;
	}
	h.daemon = MHD_start_daemon(
		MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, &h,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, cfg->listen_fd,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, &h,
		MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, &h.guards,
		MHD_OPTION_CONNECTION_LIMIT, http_connection_limit(),
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_PER_ADDRESS_LIMIT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
		MHD_OPTION_END);
	if (!h.daemon) {
		fprintf(stderr, "skillsfs-mcp: cannot start the HTTP server on "
			"%s:%u\n", cfg->listen->host, cfg->listen->port);
		close(cfg->listen_fd);
		return 1;
	}
	int epoll_fd = MHD_get_daemon_info(h.daemon, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd;
	fprintf(stderr, "skillsfs-mcp: serving http://%s:%u" HTTP_ENDPOINT "\n",
		cfg->listen->host, cfg->listen->port);
	fflush(stderr);

	uint64_t next_tick = now_ns() + TICK_NS;
	while (!*stop) {
		uint64_t now = now_ns();
		step(&h, epoll_fd, next_tick > now ? (next_tick - now) / 1000000 + 1 : 0);
		if (now_ns() >= next_tick) {
			tick(&h);
			next_tick = now_ns() + TICK_NS;
		}
	}
	finish(&h, epoll_fd);
	return 0;
}
