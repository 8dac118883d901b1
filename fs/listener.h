/*
 * listener.h - the threads that wait for MCP servers to say their listing
 * changed (listener.c), and tell the fetcher.
 */
#ifndef SKILLSFS_LISTENER_H
#define SKILLSFS_LISTENER_H

#include <stdatomic.h>

struct daemon;
struct listeners;

/* Starts a thread for each root of d whose source may tell of changes
 * (SFS_SOURCE_LISTENS); when root i's did, its thread sets pending[i]
 * and writes to the eventfd `news`.  Returns the threads (none when no
 * root listens), or NULL when out of memory. */
struct listeners *listeners_start(struct daemon *d, int news,
                                  atomic_bool *pending);
/* Stops the threads (within about a second) and frees them; NULL is
 * nothing. */
void listeners_stop(struct listeners *all);

#endif
