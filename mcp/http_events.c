/*
 * http_events.c - the recent events of a session's stream, for resuming.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "http_access.h"
#include "http_events.h"
#include "http_stream.h"

int event_log_init(struct event_log *log)
{
	unsigned char rnd[EVENT_TAG_BYTES];

	*log = (struct event_log){ 0 };
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -EAGAIN;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(log->tag + 2 * i, 3, "%02x", rnd[i]);
	return 0;
}

static char **slot(struct event_log *log, uint64_t n)
{
	return &log->kept[n % EVENT_LOG_EVENTS];
}

static void forget_oldest(struct event_log *log)
{
	char **oldest = slot(log, log->last - log->nkept + 1);

	log->bytes -= strlen(*oldest);
	free(*oldest);
	*oldest = NULL;
	log->nkept--;
}

void event_log_free(struct event_log *log)
{
	while (log->nkept)
		forget_oldest(log);
}

void event_log_add(struct event_log *log, const char *text, size_t len,
                   struct buf *out)
{
	char id[sizeof(log->tag) + 24];
	struct buf ev = { 0 };

	snprintf(id, sizeof(id), "%s-%" PRIu64, log->tag, log->last + 1);
	http_sse_event_id(&ev, id, text, len);
	if (!ev.failed)
		buf_add(out, ev.data, ev.len);
	/* An event that does not fit, or that memory refused, leaves a gap:
	 * a resume from before it is told that events were lost. */
	if (ev.failed || ev.len > EVENT_LOG_BYTES) {
		event_log_free(log);
		log->last++;
		buf_free(&ev);
		return;
	}
	while (log->nkept && (log->nkept == EVENT_LOG_EVENTS ||
			      log->bytes + ev.len > EVENT_LOG_BYTES))
		forget_oldest(log);
	log->last++;
	log->bytes += ev.len;
	log->nkept++;
	*slot(log, log->last) = buf_take(&ev);
}

void event_log_prime(const struct event_log *log, struct buf *out)
{
	buf_printf(out, "id: %s-%" PRIu64 "\ndata:\n\n", log->tag, log->last);
}

/* The number n of an id "<tag>-<n>" of this log, or -EINVAL. */
static int parse_id(const struct event_log *log, const char *id, uint64_t *n)
{
	const char *dash = strchr(id, '-');
	char *end;

	if (!dash || !http_same_secret(id, (size_t)(dash - id), log->tag,
				       strlen(log->tag)) ||
	    dash[1] < '0' || dash[1] > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(dash + 1, &end, 10);
	if (errno || *end || v > log->last)
		return -EINVAL;
	*n = v;
	return 0;
}

int event_log_replay(const struct event_log *log, const char *last_event_id,
                     struct buf *out)
{
	uint64_t n;
	int rc = parse_id(log, last_event_id, &n);

	if (rc < 0)
		return rc;
	if (log->last - n > log->nkept)
		return -ERANGE;
	for (uint64_t i = n + 1; i <= log->last; i++) {
		const char *ev = log->kept[i % EVENT_LOG_EVENTS];
		buf_adds(out, ev);
	}
	return 0;
}
