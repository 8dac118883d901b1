/*
 * automount.h - the mount a session serves: an explicit one (--mount), or
 * a private one for exactly the roots it was given, shared by every
 * session of the user with the same roots and ended by a keeper process
 * when the last of them is gone (automount.c explains the design).
 */
#ifndef MCP_AUTOMOUNT_H
#define MCP_AUTOMOUNT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skillsfs.h"

struct automount_spec {
	const char *mount;          /* --mount, or NULL for a private mount */
	char *const *dirs;          /* --skills-dir, as given */
	size_t ndirs;
	const char *config;         /* --config FILE, or NULL */
	const struct sfs_config_file *cf;  /* its content (roots), or NULL */
	const char *docs_dir;       /* --docs-dir, or NULL */
	const char *trust;          /* --trust WORD (-o trust=), or NULL */
	unsigned linger_ms;         /* a keeper's linger after the last session */
	bool plain_ok;              /* accept a plain folder (a test aid) */
};

struct automount {
	char *mount;                /* absolute path of the mount served */
	char *base;                 /* RUNDIR/<key>: prefix of the lock files */
	int hold_fd;                /* LOCK_SH on BASE.hold while we live */
	bool may_mount;             /* roots were given: we may start one */
	bool private_mount;         /* under RUNDIR, ours to clear */
	bool plain_ok;
	char **expect;              /* canonical roots, for status.json */
	size_t nexpect;
	char **args;                /* for skillsfs: owned strings */
	size_t nargs;
	unsigned linger_ms;
	uint64_t last_recover_ns;
};

/*
 * Finds, or starts, the mount for `spec` and waits (up to timeout_ms, or
 * until *stop) until it answers.  On success the session holds the mount
 * until automount_close().  Prints what went wrong, with what to do about
 * it, and returns -1; or returns 0.
 */
int automount_open(struct automount *am, const struct automount_spec *spec,
                   unsigned timeout_ms, volatile sig_atomic_t *stop);
/* When the mount stopped answering (its daemon or keeper died): starts
 * it again if this session may.  At most once a second.  0 when the mount
 * answers again. */
int automount_recover(struct automount *am, unsigned timeout_ms,
                      volatile sig_atomic_t *stop);
/* Lets go of the mount (its keeper ends it after the linger). */
void automount_close(struct automount *am);
/* RUNDIR ($XDG_RUNTIME_DIR/skillsfs, else /tmp/skillsfs-UID), made when
 * missing; ours and 0700, or NULL after saying why on stderr.  malloc'd. */
char *automount_runtime_dir(void);

#endif
