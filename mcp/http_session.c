/*
 * http_session.c - peers and sessions of skillsfs-mcp --http.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "clock.h"
#include "http_access.h"
#include "http_session.h"

void capture_free(struct capture *cap)
{
	free(cap->last);
	buf_free(&cap->events);
}

/* A message outside a reply: numbered in the log, for a client that
 * resumes the stream later, and sent if the stream is open. */
static void peer_log(struct peer *p, const char *text, size_t len)
{
	struct buf event = { 0 };

	event_log_add(p->log, text, len, &event);
	if (p->stream)
		http_stream_send_events(p->stream, &event);
	buf_free(&event);
}

static void peer_emit(void *arg, const char *text, size_t len)
{
	struct peer *p = arg;
	struct capture *cap = p->capture;

	if (cap) {
		if (cap->last && p->log)
			peer_log(p, cap->last, cap->last_len);
		else if (cap->last)
			http_sse_event(&cap->events, cap->last, cap->last_len);
		free(cap->last);
		cap->last = strndup(text, len);
		cap->last_len = cap->last ? len : 0;
	} else if (p->log) {
		peer_log(p, text, len);
	} else if (p->stream) {
		http_stream_send(p->stream, text, len);
	}
	/* Else no stream is open: nobody to tell, and the client's next
	 * request looks at the mount's generation anyway. */
}

static bool peer_init(struct peer *p, const struct mcp_config *cfg)
{
	struct mcp_config mine = *cfg;

	mine.emit = peer_emit;
	mine.emit_arg = p;
	p->server = mcp_server_new(&mine);
	return p->server != NULL;
}

static void peer_fini(struct peer *p)
{
	if (p->stream)
		http_stream_drop(p->stream);
	mcp_server_free(p->server);
}

struct peer *peer_new(const struct mcp_config *cfg)
{
	struct peer *p = calloc(1, sizeof(*p));

	if (p && !peer_init(p, cfg)) {
		free(p);
		p = NULL;
	}
	return p;
}

void peer_free(struct peer *p)
{
	peer_fini(p);
	free(p);
}

void peer_ask(struct peer *p, const struct message *m, uint64_t t0,
              struct capture *cap, bool may_stream)
{
	p->capture = cap;
	mcp_server_handle_message(p->server, m, t0);
	if (p->server->outcome.deferred && !may_stream)
		mcp_server_shutdown(p->server);
	p->capture = NULL;
}

static void stream_closed(void *arg)
{
	struct peer *p = arg;

	p->stream = NULL;
}

static void owned_stream_closed(void *arg)
{
	struct peer *p = arg;

	p->stream = NULL;
	peer_free(p);
}

bool peer_stream_open(struct peer *p, bool owned, struct http_streams *all,
                      struct MHD_Connection *c, struct buf *first)
{
	struct http_stream *st = http_stream_open(all, c, first,
		owned ? owned_stream_closed : stream_closed, p);

	if (st)   /* else an owned p is gone already */
		p->stream = st;
	return st != NULL;
}

void peer_streams_tick(struct http_streams *all)
{
	for (struct http_stream *st = all->head; st; st = st->next) {
		struct peer *p = st->arg;
		if (st->closed && !st->ended)   /* a peer's still */
			mcp_server_tick(p->server);
	}
}

void peer_streams_end(struct http_streams *all)
{
	for (struct http_stream *st = all->head; st; st = st->next) {
		struct peer *p = st->arg;
		if (st->closed)
			mcp_server_shutdown(p->server);
		http_stream_end(st);
	}
}

struct session *sessions_find(struct sessions *ss, const char *id)
{
	size_t n = strlen(id);
	struct session *found = NULL;

	/* An id is its client's secret: every one is compared, each without
	 * telling where a guess went wrong. */
	for (size_t i = 0; i < MAX_SESSIONS; i++) {
		struct session *se = ss->slot[i];
		if (se && http_same_secret(id, n, se->id, strlen(se->id)))
			found = se;
	}
	return found;
}

void sessions_close(struct sessions *ss, struct session *se)
{
	for (size_t i = 0; i < MAX_SESSIONS; i++)
		if (ss->slot[i] == se)
			ss->slot[i] = NULL;
	peer_fini(&se->peer);
	event_log_free(&se->events);
	free(se);
}

static size_t free_slot(struct sessions *ss)
{
	size_t lru = 0;

	for (size_t i = 0; i < MAX_SESSIONS; i++) {
		if (!ss->slot[i])
			return i;
		if (ss->slot[i]->last_used < ss->slot[lru]->last_used)
			lru = i;
	}
	fprintf(stderr, "skillsfs-mcp: %d sessions are open: ending the one "
		"used least recently\n", MAX_SESSIONS);
	sessions_close(ss, ss->slot[lru]);
	return lru;
}

struct session *sessions_open(struct sessions *ss)
{
	unsigned char rnd[SESSION_ID_BYTES];
	struct session *se = calloc(1, sizeof(*se));

	if (!se || getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd) ||
	    event_log_init(&se->events) < 0 || !peer_init(&se->peer, ss->cfg)) {
		free(se);
		return NULL;
	}
	se->peer.log = &se->events;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(se->id + 2 * i, 3, "%02x", rnd[i]);
	se->last_used = now_ns();
	ss->slot[free_slot(ss)] = se;
	return se;
}

void sessions_tick(struct sessions *ss)
{
	for (size_t i = 0; i < MAX_SESSIONS; i++) {
		struct session *se = ss->slot[i];
		if (se && se->streamed && !se->peer.stream)
			mcp_server_tick(se->peer.server);
	}
}

void sessions_expire(struct sessions *ss, uint64_t now)
{
	for (size_t i = 0; i < MAX_SESSIONS; i++) {
		struct session *se = ss->slot[i];
		if (se && !se->peer.stream && now - se->last_used > SESSION_IDLE_NS)
			sessions_close(ss, se);
	}
}

void sessions_close_all(struct sessions *ss)
{
	for (size_t i = 0; i < MAX_SESSIONS; i++)
		if (ss->slot[i])
			sessions_close(ss, ss->slot[i]);
}
