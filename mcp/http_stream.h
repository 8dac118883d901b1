/*
 * http_stream.h - Server-Sent Events streams on the connections of a
 * libmicrohttpd daemon that the caller polls (external epoll mode, with
 * MHD_ALLOW_SUSPEND_RESUME).
 *
 * A stream with nothing to send is a suspended connection, resumed when
 * an event comes.  libmicrohttpd does not look at a suspended connection's
 * socket, so http_streams_wait() watches it for the client going away.
 */
#ifndef MCP_HTTP_STREAM_H
#define MCP_HTTP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "buf.h"

struct http_stream;

/* Called once per stream, when it is over: its client left, or it ended
 * and its last bytes went out, or the daemon stopped, or it could not be
 * opened at all. */
typedef void (*http_stream_closed_fn)(void *arg);

struct http_streams {
	struct http_stream *head;
	size_t n;
	bool resumed;              /* a connection awaits MHD_run() to go on */
};

struct http_stream {
	struct http_stream *next;
	struct http_streams *all;
	struct MHD_Connection *conn;
	int fd;                    /* the client's socket */
	struct buf out;            /* bytes not yet handed to libmicrohttpd */
	size_t taken;              /* of out, the bytes handed already */
	bool suspended;            /* waiting for events */
	bool ended;                /* no more events: finish the response */
	http_stream_closed_fn closed;  /* NULL once dropped */
	void *arg;
};

/* Appends one message to b as an SSE event, a data line per line. */
void http_sse_event(struct buf *b, const char *text, size_t len);
/* The same, with this event id (NULL: none). */
void http_sse_event_id(struct buf *b, const char *id, const char *text,
                       size_t len);

/*
 * Answers c with an event stream (200, text/event-stream) that starts
 * with the events in `first` (emptied).  Returns the stream, or NULL when
 * it could not be answered; closed(arg) is called exactly once either way.
 */
struct http_stream *http_stream_open(struct http_streams *all,
                                     struct MHD_Connection *c, struct buf *first,
                                     http_stream_closed_fn closed, void *arg);
/* Sends one message as an event. */
void http_stream_send(struct http_stream *st, const char *text, size_t len);
/* Sends events already formatted (http_sse_event). */
void http_stream_send_events(struct http_stream *st, const struct buf *events);
/* No more events: the response ends once the ones sent went out. */
void http_stream_end(struct http_stream *st);
/* Ends the stream and forgets its owner, which is going away: closed()
 * is not called. */
void http_stream_drop(struct http_stream *st);

/*
 * Waits up to timeout_ms (not at all when a connection was resumed) for
 * the daemon's epoll_fd, or for the client of a suspended stream to
 * leave, which ends that stream.  A signal ends the wait too.
 */
void http_streams_wait(struct http_streams *all, int epoll_fd,
                       uint64_t timeout_ms);

#endif
