/*
 * http_session.h - the servers behind skillsfs-mcp's HTTP endpoint.  A
 * peer is one server (server.h) and where its messages go; a session is a
 * peer kept between the requests of a handshake-era client, under an id.
 */
#ifndef MCP_HTTP_SESSION_H
#define MCP_HTTP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "http_events.h"
#include "http_stream.h"
#include "server.h"

#define MAX_SESSIONS 64
/* A session nobody used for this long, and with no stream open, ends. */
#define SESSION_IDLE_NS ((uint64_t)30 * 60 * 1000000000)
#define SESSION_ID_BYTES 16

/* What a server said while one request was answered: the last message is
 * the reply, the ones before it notifications. */
struct capture {
	char *last;                /* owned */
	size_t last_len;
	struct buf events;         /* the earlier ones, as SSE events */
};

void capture_free(struct capture *cap);

/* A server and where its messages go: the reply into the capture while a
 * request is answered; the rest into the peer's event log if it has one
 * (a session's), and to the stream its client keeps open, if any. */
struct peer {
	struct mcp_server *server; /* owned */
	struct capture *capture;
	struct http_stream *stream;
	struct event_log *log;     /* NULL: the peer's events go only to
				    * its capture or stream */
};

/* A peer whose server is made with cfg (its emit is the peer's). */
struct peer *peer_new(const struct mcp_config *cfg);
/* Frees p and its server, dropping its stream if one is open. */
void peer_free(struct peer *p);
/*
 * Has p's server handle m (which arrived at t0) into cap.  A request that
 * it leaves open (subscriptions/listen) is closed at once, its result the
 * last message, unless may_stream.
 */
void peer_ask(struct peer *p, const struct message *m, uint64_t t0,
              struct capture *cap, bool may_stream);

/*
 * Answers c with the event stream that p's messages go to from now on,
 * starting with the events in `first` (emptied).  An `owned` p (the
 * server of a subscriptions/listen) is freed when the stream is over,
 * also when it could not be opened.  Returns whether it was.
 */
bool peer_stream_open(struct peer *p, bool owned, struct http_streams *all,
                      struct MHD_Connection *c, struct buf *first);

/* Every stream of `all` is a peer's (peer_stream_open): has each of
 * those servers look for a new generation of the mount (mcp_server_tick),
 * to tell its client. */
void peer_streams_tick(struct http_streams *all);
/* Ends every stream of `all`, a subscription with its result. */
void peer_streams_end(struct http_streams *all);

struct session {
	char id[2 * SESSION_ID_BYTES + 1];  /* random, hex */
	struct peer peer;
	struct event_log events;   /* its stream's recent events */
	bool streamed;             /* its client opened the stream once */
	uint64_t last_used;        /* now_ns() of its last request */
};

struct sessions {
	struct session *slot[MAX_SESSIONS];
	const struct mcp_config *cfg;
};

/* The session of this id, or NULL. */
struct session *sessions_find(struct sessions *ss, const char *id);
/* A new session, in a free slot, else in that of the session used least
 * lately, which ends (its client gets 404 and opens another, as the spec
 * says); NULL when out of memory. */
struct session *sessions_open(struct sessions *ss);
void sessions_close(struct sessions *ss, struct session *se);
/* Has the server of each session whose client opened its stream once,
 * but has none open now, look for a new generation of the mount, so
 * that the news waits in the session's log for the client to resume. */
void sessions_tick(struct sessions *ss);
/* Ends the sessions idle for SESSION_IDLE_NS with no stream open. */
void sessions_expire(struct sessions *ss, uint64_t now);
void sessions_close_all(struct sessions *ss);

#endif
