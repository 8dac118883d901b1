/* serve_loop.h - the single-threaded FUSE loop (serve_loop.c). */
#ifndef SKILLSFS_SERVE_LOOP_H
#define SKILLSFS_SERVE_LOOP_H

#include "options.h"

/* Serves requests until the session exits, reading the device for up to
 * busy_poll_us microseconds after each answer before it sleeps (0, or a
 * single CPU: libfuse's fuse_session_loop).  Returns 0, or -errno. */
int serve_loop(struct fuse_session *se, unsigned busy_poll_us);

#endif
