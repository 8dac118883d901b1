/*
 * keeper.h - the process that owns a shared skillsfs mount for the
 * sessions (skillsfs-mcp processes) that use it; see automount.c for the
 * design.
 */
#ifndef MCP_KEEPER_H
#define MCP_KEEPER_H

#include <stdbool.h>
#include <stddef.h>

struct keeper_spec {
	const char *mount;        /* the mount point, absolute */
	const char *hold_path;    /* sessions hold LOCK_SH on it */
	const char *keeper_path;  /* the keeper holds LOCK_EX on it for life */
	const char *start_path;   /* sessions starting a keeper lock it */
	const char *log_path;     /* the keeper's and skillsfs's stderr */
	const char *prog;         /* skillsfs */
	char *const *args;        /* for skillsfs, after "MOUNT -f" */
	size_t nargs;
	unsigned linger_ms;       /* how long it outlives the last session */
	bool remove_dir;          /* rmdir the mount point at the end */
};

/*
 * Starts a keeper: a process of its own session, not our child, that runs
 * `PROG MOUNT -f ARGS...` and ends it (and so the mount) once no process
 * has held LOCK_SH on hold_path for linger_ms.  Returns once the keeper
 * holds its lock: 0, -EEXIST when another keeper holds it already, or
 * another -errno.  A keeper that ends for want of sessions removes the
 * four files (sessions check that the hold file they locked is still the
 * one at hold_path).
 */
int keeper_spawn(const struct keeper_spec *k);

/* Unmounts with fusermount3 -u (-uz when lazy), or umount2 as root.
 * Its messages go to stderr.  Returns whether it worked. */
bool keeper_unmount(const char *mount, bool lazy);

#endif
