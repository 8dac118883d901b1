/*
 * http_guard.c - deadlines and limits on the connections of
 * skillsfs-mcp --http.
 *
 * Why: libmicrohttpd's own timeout counts from the last byte, so a client
 * that sends a byte now and then keeps its connection forever, and 256
 * such connections took every slot, before any token was asked for
 * (issue 28).  So each connection gets a deadline for the headers of its
 * next request (HTTP_HEADERS_DEADLINE_S from its accept or from a refusal;
 * HTTP_KEEPALIVE_DEADLINE_S after an answer to a client that had the
 * token), an authorized request one for its body, and one
 * address at most HTTP_PER_ADDRESS_LIMIT connections, out of
 * HTTP_CONNECTION_LIMIT: one client alone cannot fill the server, and
 * what it holds frees itself within seconds.  A request being answered
 * (an event stream) has no deadline: it was let in.
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "clock.h"
#include "http_guard.h"

#define NS_PER_S ((uint64_t)1000000000)
/* Descriptors kept for the rest of the process (the mount, logs). */
#define SPARE_FDS 64

struct http_guard {
	struct http_guard *prev, *next;
	struct http_guards *all;
	int fd;
	uint64_t deadline;          /* 0: none */
};

static struct http_guard *guard_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return info ? info->socket_context : NULL;
}

static void set_deadline(struct MHD_Connection *c, unsigned seconds)
{
	struct http_guard *g = guard_of(c);

	if (g)
		g->deadline = seconds ? now_ns() + seconds * NS_PER_S : 0;
}

void http_guard_notify(void *cls, struct MHD_Connection *c,
                       void **socket_context,
                       enum MHD_ConnectionNotificationCode toe)
{
	struct http_guards *gs = cls;
	struct http_guard *g = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!info || !(g = calloc(1, sizeof(*g))))
			return;   /* unguarded: libmicrohttpd's timeout still holds */
		g->all = gs;
		g->fd = info->connect_fd;
		g->deadline = now_ns() + HTTP_HEADERS_DEADLINE_S * NS_PER_S;
		g->next = gs->head;
		if (gs->head)
			gs->head->prev = g;
		gs->head = g;
		*socket_context = g;
		return;
	}
	if (!g)
		return;
	if (g->prev)
		g->prev->next = g->next;
	else
		g->all->head = g->next;
	if (g->next)
		g->next->prev = g->prev;
	free(g);
	*socket_context = NULL;
}

void http_guard_headers_in(struct MHD_Connection *c, bool let_in)
{
	set_deadline(c, let_in ? HTTP_BODY_DEADLINE_S : HTTP_HEADERS_DEADLINE_S);
}

void http_guard_answering(struct MHD_Connection *c)
{
	set_deadline(c, 0);
}

void http_guard_completed(struct MHD_Connection *c, bool let_in)
{
	set_deadline(c, let_in ? HTTP_KEEPALIVE_DEADLINE_S
	                       : HTTP_HEADERS_DEADLINE_S);
}

void http_guards_expire(struct http_guards *gs, uint64_t now)
{
	for (struct http_guard *g = gs->head; g; g = g->next)
		if (g->deadline && now > g->deadline) {
			shutdown(g->fd, SHUT_RDWR);
			g->deadline = 0;
		}
}

unsigned http_connection_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 256;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < HTTP_CONNECTION_LIMIT + SPARE_FDS) {
		rlim_t want = HTTP_CONNECTION_LIMIT + SPARE_FDS;
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want
		              ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= HTTP_CONNECTION_LIMIT + SPARE_FDS)
		return HTTP_CONNECTION_LIMIT;
	return rl.rlim_cur > 2 * SPARE_FDS ? (unsigned)(rl.rlim_cur - SPARE_FDS)
	                                   : SPARE_FDS;
}
