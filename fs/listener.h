/*
 * listener.h - the threads that wait for MCP servers to say their listing
 * changed (listener.c), and tell the fetcher.
 */
#ifndef SKILLSFS_LISTENER_H
#define SKILLSFS_LISTENER_H

struct daemon;
struct listeners;

/* Starts a thread for each root of d whose source may tell of changes
 * (sfs_source_listens); each writes to the eventfd `news` when one did.
 * Returns the threads (none when no root listens), or NULL when out of
 * memory. */
struct listeners *listeners_start(struct daemon *d, int news);
/* Stops the threads (within about a second) and frees them; NULL is
 * nothing. */
void listeners_stop(struct listeners *all);

#endif
