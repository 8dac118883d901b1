/*
 * http_events.h - the recent events of a session's stream, kept so that a
 * client whose connection dropped can resume it (Last-Event-ID).
 *
 * Every event the session's server sends outside a reply gets an id,
 * "<tag>-<n>": the tag is random per session (a client cannot name
 * another session's events, nor guess them), n counts the events of that
 * session from 1.  The last EVENT_LOG_EVENTS events, and at most
 * EVENT_LOG_BYTES of them, are kept; a client that comes back after more
 * than that is told so, and lists again.
 */
#ifndef MCP_HTTP_EVENTS_H
#define MCP_HTTP_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define EVENT_LOG_EVENTS 64
#define EVENT_LOG_BYTES ((size_t)256 * 1024)
#define EVENT_TAG_BYTES 8

struct event_log {
	char tag[2 * EVENT_TAG_BYTES + 1];   /* random, hex */
	uint64_t last;             /* the number of the newest event, 0: none */
	char *kept[EVENT_LOG_EVENTS];   /* SSE events, with their id: event n
					 * at n % EVENT_LOG_EVENTS, owned */
	size_t nkept;              /* events last-nkept+1 .. last are kept */
	size_t bytes;              /* their length in all */
};

/* A log with a new random tag; -errno when there is no randomness. */
int event_log_init(struct event_log *log);
void event_log_free(struct event_log *log);

/* Numbers the message, keeps it (forgetting the oldest events past the
 * bounds), and appends it as an SSE event with its id to out. */
void event_log_add(struct event_log *log, const char *text, size_t len,
                   struct buf *out);

/* Appends to out an event with no data whose id is that of the newest
 * event, so that a client that opened the stream holds an id to resume
 * from before anything happened. */
void event_log_prime(const struct event_log *log, struct buf *out);

/*
 * Appends to out the events after the one named `last_event_id`.
 * -EINVAL when that id is not one of this log's (another session's, one
 * never sent, or no id at all), -ERANGE when events after it are no
 * longer kept.
 */
int event_log_replay(const struct event_log *log, const char *last_event_id,
                     struct buf *out);

#endif
