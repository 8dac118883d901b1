/*
 * clock.h - the monotonic clock the server's timers run on.
 */
#ifndef MCP_CLOCK_H
#define MCP_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic clock in nanoseconds. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
