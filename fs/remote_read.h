/*
 * remote_read.h - reads that may wait on the network (a file of an MCP
 * root not yet in the cache), answered from worker threads so that the
 * FUSE loop never waits on a server, each with a deadline of its own.
 */
#ifndef SKILLSFS_REMOTE_READ_H
#define SKILLSFS_REMOTE_READ_H

#include "file_read.h"

struct daemon;
struct gen;
struct node;
struct remote_reads;

/* Starts the workers and the deadline watch: a read not answered within
 * timeout_s seconds is answered ETIMEDOUT.  Returns 0 or -errno. */
int remote_reads_start(struct daemon *d, unsigned timeout_s,
                       struct remote_reads **out);
/* Hands req (a read of size bytes at off of skill file n of g) to a
 * worker, with a reference to g of its own; the caller keeps its own and
 * must not answer req.  Without a pool (none started), or when out of
 * memory, it is answered at once (EIO). */
void remote_read_submit(struct remote_reads *rr, fuse_req_t req,
                        struct gen *g, const struct node *n, size_t size,
                        off_t off);
/* On a worker, while it waits on a server for a read: whether that read
 * was answered by its deadline (the wait may end: nobody needs it).
 * false on any other thread. */
bool remote_read_abandoned(void);
/* Answers every read still waiting (EIO) and ends the threads; a worker
 * still waiting on a server returns once the daemon's stop flag ends its
 * wait.  Before the session is destroyed.  NULL: nothing. */
void remote_reads_stop(struct remote_reads *rr);

#endif
