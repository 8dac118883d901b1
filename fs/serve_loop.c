/*
 * serve_loop.c - the single-threaded FUSE loop.  It goes on reading the
 * device for a short while after each answer before it sleeps.
 *
 * Why: a request is a round trip between the reader and this thread.
 * When the two run on different CPUs and the other CPU has gone idle,
 * each wake-up costs an inter-processor interrupt, and in a virtual
 * machine an exit to the hypervisor.  On the 2-core VM of BENCHMARKS.md a
 * first `ls -R` at 10,000 skills (60,000 readdirs) took 8-13 s this way,
 * where the same requests took 1.7 s with both sides on one CPU.  Readers
 * ask in bursts (a walk, a grep), so the next request usually comes
 * within microseconds of the last answer: polling for it keeps this CPU
 * awake, and the reader's wake-up of it costs nothing.
 *
 * An idle mount costs nothing: once busy_poll_us pass without a request
 * the loop blocks in poll(2), as libfuse's loop blocks in read(2).  With
 * one CPU to run on, polling would only keep the reader off it, so the
 * loop blocks at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "serve_loop.h"

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static bool several_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 &&
	       CPU_COUNT(&set) > 1;
}

/* Blocks until the device has a request, the mount goes or a signal
 * comes (the caller then sees the session exited).  Returns 0 or -errno. */
static int wait_for_request(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, -1) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

static int set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int serve_loop(struct fuse_session *se, unsigned busy_poll_us)
{
	struct fuse_buf buf = { .mem = NULL };
	uint64_t answered = 0;   /* when the last request was answered */
	int fd = fuse_session_fd(se);
	int res = 0;

	if (busy_poll_us == 0 || !several_cpus() || set_nonblocking(fd) < 0)
		return fuse_session_loop(se);
	while (!fuse_session_exited(se)) {
		res = fuse_session_receive_buf(se, &buf);
		if (res == -EINTR)
			continue;
		if (res == -EAGAIN) {
			res = 0;
			if (now_us() - answered < busy_poll_us)
				sched_yield();   /* anyone waiting here first */
			else if ((res = wait_for_request(fd)) < 0)
				break;
			continue;
		}
		if (res <= 0)   /* 0: unmounted (libfuse exits the session) */
			break;
		fuse_session_process_buf(se, &buf);
		answered = now_us();
	}
	free(buf.mem);
	fuse_session_reset(se);
	return res < 0 ? res : 0;
}
