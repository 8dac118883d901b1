/*
 * fetcher.h - the thread that keeps git and MCP roots up to date
 * (fetcher.c), and the listeners it starts (listener.c).
 */
#ifndef SKILLSFS_FETCHER_H
#define SKILLSFS_FETCHER_H

#include <stdbool.h>
#include <stddef.h>

struct daemon;

/* News of a root (its server said its listing changed) fetches it at most
 * once per this many milliseconds: what it says meanwhile is coalesced
 * into the fetch at the end of the gap. */
#define FETCHER_NEWS_GAP_MS 2000

/* Prepares d->fetcher when a root is a git source (else leaves it NULL);
 * before the first build.  Returns 0 or -ENOMEM. */
int fetcher_init(struct daemon *d);
/* Brings every git root up to date now (a remote one fetched), keeping
 * why one failed for the next build.  Returns whether a root names
 * another commit than the current generation serves, or its failure
 * changed.  Blocks on the network: at start, or on the fetcher's thread. */
bool fetcher_update(struct daemon *d);
/* The start's update, before the first build: every root is brought up
 * to date, but a server (MCP, or a git remote: SFS_SOURCE_STOPPABLE) that
 * has not answered within half a second is left to the thread's first turn, its note
 * saying that its first fetch is under way (status.json), and stderr
 * what the mount waits for.  With -o strict or --lock every root must be
 * judged before the mount: the start waits for each. */
void fetcher_first(struct daemon *d);
/* For sfs_source_options.stop: whether the start has waited for the
 * servers as long as it may (fetcher_first). */
bool fetcher_start_waited(const struct daemon *d);
/* Whether root i's last update said it must not be served at all (a
 * pinned commit that no allowed signer signed): at start, the mount is
 * refused. */
bool fetcher_rejected(const struct daemon *d, size_t i);
/* A file of root i was read: what the root keeps in the cache folder
 * counts as used (for skillsfs gc's least recently used) at the thread's
 * next turn, or when the mount ends.  A flag: cheap on every read. */
void fetcher_root_read(struct daemon *d, size_t i);
/* Starts the thread; after daemonizing.  0 or -errno. */
int fetcher_start(struct daemon *d);
/* The eventfd SIGHUP writes to (the thread fetches, then reloads), or -1
 * without a fetcher. */
int fetcher_kick_fd(const struct daemon *d);
/* Stops the thread and frees d->fetcher. */
void fetcher_stop(struct daemon *d);

#endif
