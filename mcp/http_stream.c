/*
 * http_stream.c - Server-Sent Events streams on suspended libmicrohttpd
 * connections.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "http_stream.h"

/* At most this many suspended streams are watched at once; more wait
 * for their next event to notice that their client left. */
#define MAX_WATCHED 128

void http_sse_event_id(struct buf *b, const char *id, const char *text,
                       size_t len)
{
	if (id)
		buf_printf(b, "id: %s\n", id);
	buf_adds(b, "event: message\n");
	while (len) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;
		buf_adds(b, "data: ");
		buf_add(b, text, n);
		buf_addc(b, '\n');
		n += nl != NULL;
		text += n;
		len -= n;
	}
	buf_addc(b, '\n');
}

void http_sse_event(struct buf *b, const char *text, size_t len)
{
	http_sse_event_id(b, NULL, text, len);
}

static void wake(struct http_stream *st)
{
	if (st->suspended) {
		st->suspended = false;
		MHD_resume_connection(st->conn);
		/* In external polling nothing wakes the caller's poll for it. */
		st->all->resumed = true;
	}
}

void http_stream_send(struct http_stream *st, const char *text, size_t len)
{
	if (st->ended)
		return;
	http_sse_event(&st->out, text, len);
	wake(st);
}

void http_stream_send_events(struct http_stream *st, const struct buf *events)
{
	if (st->ended || !events->len)
		return;
	buf_add(&st->out, events->data, events->len);
	wake(st);
}

void http_stream_end(struct http_stream *st)
{
	st->ended = true;
	wake(st);
}

void http_stream_drop(struct http_stream *st)
{
	st->closed = NULL;
	http_stream_end(st);
}

/* libmicrohttpd asks for the next bytes of the response. */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct http_stream *st = cls;

	(void)pos;
	if (st->out.failed)   /* out of memory: events were lost */
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (st->taken < st->out.len) {
		size_t n = st->out.len - st->taken;
		if (n > max)
			n = max;
		memcpy(out, st->out.data + st->taken, n);
		st->taken += n;
		if (st->taken == st->out.len)
			st->out.len = st->taken = 0;
		return (ssize_t)n;
	}
	if (st->ended)
		return MHD_CONTENT_READER_END_OF_STREAM;
	/* Nothing to send: off libmicrohttpd's poll until wake(). */
	st->suspended = true;
	MHD_suspend_connection(st->conn);
	return 0;
}

/* libmicrohttpd is done with the response: the stream is over. */
static void stream_free(void *cls)
{
	struct http_stream *st = cls;
	struct http_stream **pp = &st->all->head;

	while (*pp != st)
		pp = &(*pp)->next;
	*pp = st->next;
	st->all->n--;
	if (st->closed)
		st->closed(st->arg);
	buf_free(&st->out);
	free(st);
}

struct http_stream *http_stream_open(struct http_streams *all,
                                     struct MHD_Connection *c, struct buf *first,
                                     http_stream_closed_fn closed, void *arg)
{
	struct http_stream *st = calloc(1, sizeof(*st));

	if (!st) {
		buf_free(first);
		closed(arg);
		return NULL;
	}
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	*st = (struct http_stream){
		.next = all->head, .all = all, .conn = c,
		.fd = info ? info->connect_fd : -1,
		.closed = closed, .arg = arg,
	};
	all->head = st;
	all->n++;
	/* A comment first, so that the headers go out at once. */
	buf_adds(&st->out, ": skillsfs-mcp\n\n");
	if (first->len)
		buf_add(&st->out, first->data, first->len);
	buf_free(first);

	/* From here on stream_free() undoes all of it. */
	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_free);
	if (!r) {
		stream_free(st);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	/* If it is not queued, destroying it calls stream_free(). */
	enum MHD_Result queued = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return queued == MHD_YES ? st : NULL;
}

void http_streams_wait(struct http_streams *all, int epoll_fd,
                       uint64_t timeout_ms)
{
	struct pollfd fds[1 + MAX_WATCHED];
	struct http_stream *watched[1 + MAX_WATCHED];
	nfds_t n = 1;

	fds[0] = (struct pollfd){ .fd = epoll_fd, .events = POLLIN };
	for (struct http_stream *st = all->head; st && n < 1 + MAX_WATCHED;
	     st = st->next) {
		if (st->suspended && st->fd >= 0) {
			watched[n] = st;
			fds[n++] = (struct pollfd){ .fd = st->fd, .events = POLLRDHUP };
		}
	}
	if (all->resumed)
		timeout_ms = 0;
	all->resumed = false;
	if (poll(fds, n, (int)timeout_ms) <= 0)
		return;   /* a signal, or time: the caller looks */
	for (nfds_t i = 1; i < n; i++)
		if (fds[i].revents)
			http_stream_end(watched[i]);
}
