/*
 * remote_read.c - reads that may wait on the network (remote_read.h).
 *
 * Why: a file of an MCP root that is not in the cache yet is fetched
 * from its server by its first read.  Done on the FUSE loop's thread, a
 * server that never answered (or sent a byte a second) held every other
 * request of the mount behind it, `ls` and index.json included, for the
 * client's 120 s timeout and then its retry, and the reader's open file
 * kept the mount from being unmounted but lazily.  Here the loop hands
 * such a read to a worker and goes on.  The worker answers when the
 * bytes come; the watch thread answers the reader alone with ETIMEDOUT
 * when its deadline passes first, and the worker's wait on the server
 * then ends within a second (remote_read_abandoned, which the daemon's
 * sfs_source_options.stop asks), so that a stalled server holds a worker
 * no longer than a read's deadline.  Each worker holds a reference to the
 * generation, not its "active" mark (daemon_get_current): a publish never
 * waits for a server.
 *
 * Ownership: a job is on the list from submit until the worker that took
 * it is done with it (or, untaken, until the watch answers it); whoever
 * sets `answered` under the lock answers the kernel, exactly once.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "daemon.h"
#include "remote_read.h"

/* Reads of remote files under way at once; more wait for a worker (and
 * are answered by their deadline if none comes free). */
#define WORKERS 4

struct job {
	struct job *next;
	fuse_req_t req;
	struct gen *g;           /* one reference */
	uint32_t node;
	size_t size;
	off_t off;
	long long deadline;      /* CLOCK_MONOTONIC ms */
	bool taken;              /* a worker has it */
	bool answered;           /* the kernel was (or is being) answered */
	atomic_bool abandoned;   /* answered by its deadline while a worker
	                          * waits for its bytes */
};

/* The job the calling worker serves, for remote_read_abandoned. */
static _Thread_local struct job *serving;

struct remote_reads {
	struct daemon *d;
	long long timeout_ms;
	pthread_mutex_t lock;    /* guards all below */
	pthread_cond_t work;     /* a job came, or stop */
	pthread_cond_t changed;  /* for the watch: a job came, or stop */
	struct job *head, *tail; /* in arrival order: deadline order */
	bool stop;
	pthread_t workers[WORKERS];
	unsigned nworkers;
	pthread_t watch;
	bool watching;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void unlink_job(struct remote_reads *rr, struct job *j)
{
	struct job **p = &rr->head, *prev = NULL;

	while (*p && *p != j) {
		prev = *p;
		p = &(*p)->next;
	}
	if (!*p)
		return;
	*p = j->next;
	if (rr->tail == j)
		rr->tail = prev;
}

static void free_job(struct job *j)
{
	gen_unref(j->g);
	free(j);
}

/* The first job no worker has, or NULL. */
static struct job *next_untaken(struct remote_reads *rr)
{
	struct job *j = rr->head;

	while (j && (j->taken || j->answered))
		j = j->next;
	return j;
}

/* Opens the job's bytes (waiting on the server, without the lock), then
 * answers unless the deadline did. */
static void serve(struct remote_reads *rr, struct job *j)
{
	struct file_bytes b;

	serving = j;
	file_read_open(rr->d, j->g, &j->g->nodes[j->node], &b);
	serving = NULL;
	pthread_mutex_lock(&rr->lock);
	bool mine = !j->answered;
	j->answered = true;
	unlink_job(rr, j);
	pthread_mutex_unlock(&rr->lock);
	if (mine)
		file_read_reply(j->req, &b, j->size, j->off);
	else
		file_read_close(&b);
	free_job(j);
}

static void *work(void *arg)
{
	struct remote_reads *rr = arg;

	pthread_mutex_lock(&rr->lock);
	for (;;) {
		struct job *j = next_untaken(rr);
		if (!j && rr->stop)
			break;
		if (!j) {
			pthread_cond_wait(&rr->work, &rr->lock);
			continue;
		}
		j->taken = true;
		pthread_mutex_unlock(&rr->lock);
		serve(rr, j);
		pthread_mutex_lock(&rr->lock);
	}
	pthread_mutex_unlock(&rr->lock);
	return NULL;
}

/* Under the lock: marks every unanswered job due by `due` (all of them
 * at stop) answered, moves the untaken ones off the list into *dropped,
 * and gathers the requests to answer into reqs (at most cap).  Returns
 * how many; sets *next to the earliest deadline still ahead (0: none). */
static size_t take_due(struct remote_reads *rr, long long due,
                       fuse_req_t *reqs, size_t cap, struct job **dropped,
                       long long *next)
{
	size_t n = 0;

	*next = 0;
	for (struct job *j = rr->head, *after; j; j = after) {
		after = j->next;
		if (j->answered)
			continue;
		if (j->deadline > due || n == cap) {
			if (!*next || j->deadline < *next)
				*next = j->deadline;
			continue;
		}
		j->answered = true;
		atomic_store(&j->abandoned, true);
		reqs[n++] = j->req;
		if (!j->taken) {
			unlink_job(rr, j);
			j->next = *dropped;
			*dropped = j;
		}
	}
	return n;
}

static void wait_until(struct remote_reads *rr, long long when)
{
	if (!when) {
		pthread_cond_wait(&rr->changed, &rr->lock);
		return;
	}
	struct timespec ts = { .tv_sec = when / 1000,
	                       .tv_nsec = (when % 1000) * 1000000 };
	pthread_cond_timedwait(&rr->changed, &rr->lock, &ts);
}

/* The deadline watch: answers each read whose deadline passed. */
static void *watch(void *arg)
{
	struct remote_reads *rr = arg;
	fuse_req_t reqs[64];

	pthread_mutex_lock(&rr->lock);
	for (;;) {
		struct job *dropped = NULL;
		long long next;
		bool stop = rr->stop;
		size_t n = take_due(rr, stop ? LLONG_MAX : now_ms(), reqs,
		                    sizeof(reqs) / sizeof(reqs[0]), &dropped,
		                    &next);
		if (n || dropped) {
			pthread_mutex_unlock(&rr->lock);
			for (size_t i = 0; i < n; i++)
				fuse_reply_err(reqs[i], stop ? EIO : ETIMEDOUT);
			while (dropped) {
				struct job *j = dropped;
				dropped = j->next;
				free_job(j);
			}
			pthread_mutex_lock(&rr->lock);
			continue;   /* more may be due */
		}
		if (stop)
			break;
		wait_until(rr, next);
	}
	pthread_mutex_unlock(&rr->lock);
	return NULL;
}

bool remote_read_abandoned(void)
{
	return serving && atomic_load(&serving->abandoned);
}

void remote_read_submit(struct remote_reads *rr, fuse_req_t req,
                        struct gen *g, const struct node *n, size_t size,
                        off_t off)
{
	struct job *j = rr ? calloc(1, sizeof(*j)) : NULL;

	if (!j) {
		fuse_reply_err(req, rr ? ENOMEM : EIO);
		return;
	}
	*j = (struct job){ .req = req, .g = gen_ref(g),
	                   .node = gen_index(g, n), .size = size, .off = off,
	                   .deadline = now_ms() + rr->timeout_ms };
	pthread_mutex_lock(&rr->lock);
	if (rr->tail)
		rr->tail->next = j;
	else
		rr->head = j;
	rr->tail = j;
	pthread_cond_signal(&rr->work);
	pthread_cond_signal(&rr->changed);
	pthread_mutex_unlock(&rr->lock);
}

static int init_sync(struct remote_reads *rr)
{
	int rc = cond_init_monotonic(&rr->changed);

	if (rc < 0)
		return rc;
	if ((rc = pthread_cond_init(&rr->work, NULL)) != 0) {
		pthread_cond_destroy(&rr->changed);
		return -rc;
	}
	if ((rc = pthread_mutex_init(&rr->lock, NULL)) != 0) {
		pthread_cond_destroy(&rr->changed);
		pthread_cond_destroy(&rr->work);
		return -rc;
	}
	return 0;
}

int remote_reads_start(struct daemon *d, unsigned timeout_s,
                       struct remote_reads **out)
{
	struct remote_reads *rr = calloc(1, sizeof(*rr));
	int rc;

	*out = NULL;
	if (!rr)
		return -ENOMEM;
	rr->d = d;
	rr->timeout_ms = (long long)timeout_s * 1000;
	if ((rc = init_sync(rr)) < 0) {
		free(rr);
		return rc;
	}
	rc = -pthread_create(&rr->watch, NULL, watch, rr);
	rr->watching = rc == 0;
	for (unsigned i = 0; rc == 0 && i < WORKERS; i++) {
		rc = -pthread_create(&rr->workers[i], NULL, work, rr);
		if (rc == 0)
			rr->nworkers++;
	}
	if (rc < 0) {
		remote_reads_stop(rr);
		return rc;
	}
	*out = rr;
	return 0;
}

void remote_reads_stop(struct remote_reads *rr)
{
	if (!rr)
		return;
	pthread_mutex_lock(&rr->lock);
	rr->stop = true;
	pthread_cond_broadcast(&rr->work);
	pthread_cond_broadcast(&rr->changed);
	pthread_mutex_unlock(&rr->lock);
	if (rr->watching)
		pthread_join(rr->watch, NULL);
	for (unsigned i = 0; i < rr->nworkers; i++)
		pthread_join(rr->workers[i], NULL);
	pthread_mutex_destroy(&rr->lock);
	pthread_cond_destroy(&rr->work);
	pthread_cond_destroy(&rr->changed);
	free(rr);
}
