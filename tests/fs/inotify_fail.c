/*
 * inotify_fail.c - LD_PRELOAD shim for tests: makes inotify fail the way a
 * crowded system does, so the daemon's polling fallback can be tested
 * without lowering the machine-wide limits.
 *
 *   SKILLSFS_TEST_INOTIFY=no-watches   inotify_add_watch fails with ENOSPC
 *   SKILLSFS_TEST_INOTIFY=no-inotify   inotify_init1 fails with EMFILE
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>

static const char *mode(void)
{
	const char *m = getenv("SKILLSFS_TEST_INOTIFY");
	return m ? m : "";
}

int inotify_init1(int flags)
{
	if (strcmp(mode(), "no-inotify") == 0) {
		errno = EMFILE;
		return -1;
	}
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "inotify_init1");
	return real(flags);
}

int inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	if (strcmp(mode(), "no-watches") == 0) {
		errno = ENOSPC;
		return -1;
	}
	int (*real)(int, const char *, uint32_t) =
		(int (*)(int, const char *, uint32_t))dlsym(RTLD_NEXT,
		                                            "inotify_add_watch");
	return real(fd, path, mask);
}
