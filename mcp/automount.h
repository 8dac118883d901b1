/*
 * automount.h - running skillsfs for the MCP server when it was given
 * --skills-dir, --config or --docs-dir and nothing is mounted yet, and
 * unmounting it at exit, so a single line in an MCP client's
 * configuration is enough.
 */
#ifndef MCP_AUTOMOUNT_H
#define MCP_AUTOMOUNT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct automount {
	char *mount;          /* owned; set once mounted */
	pid_t pid;            /* skillsfs while it is our child, else 0 */
	bool created_dir;     /* we made the mount point: remove it at exit */
};

/*
 * Starts `skillsfs MOUNT -f ARGS...` (ARGS: --skills-dir DIR, --config
 * FILE, --docs-dir DIR, as given to us) and waits, up to `timeout_ms`,
 * for MOUNT to be a skillsfs mount whose status.json answers.  The program
 * is looked for next to this executable (/proc/self/exe), then in the
 * build tree (../fs/skillsfs), then on PATH.  Gives up early when skillsfs
 * fails or *stop becomes non-zero.  Prints what went wrong and returns -1,
 * or returns 0.
 */
int automount_start(struct automount *am, const char *mount,
                    char *const *args, size_t nargs, unsigned timeout_ms,
                    volatile sig_atomic_t *stop);
/* Reports on stderr when our skillsfs has ended (call while idle). */
void automount_check(struct automount *am);
/* Unmounts (fusermount3 -u, lazily if busy) and reaps skillsfs. */
void automount_stop(struct automount *am);
/* Detaches a dead skillsfs mount ("Transport endpoint is not connected"). */
int automount_detach_stale(const char *mount);

#endif
