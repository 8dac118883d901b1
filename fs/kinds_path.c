/*
 * kinds_path.c - where skillsfs finds the module of the kinds of source
 * it does not link (shared/kinds.c): beside the running program, where
 * an install puts it (LIBDIR/skillsfs/ seen from BINDIR), else where this
 * build tree makes it (shared/ beside fs/), else at the installed path.
 *
 * Why beside the program, not a path of the build tree written into it:
 * an installed program that kept that path would load whatever module
 * someone put there later (a root daemon too), and a build would not be
 * reproducible.  A place found from the program's own folder is as
 * trustworthy as the program: whoever can write there can replace it.
 * Found once: the library asks at every look at a kind (a collection of
 * the cache folder, once per entry).
 *
 * But the folder the module is in is not the program's: a root-owned
 * program beside a folder another user may write (a build tree's shared/
 * of theirs, an install whose lib/ is group-writable) would run that
 * user's code as root.  So as root the module is loaded only when it and
 * every folder above it pass trust.h's rule (root's, writable by nobody
 * else), and through the descriptor that rule was checked on, so what was
 * checked is what is loaded.  Another user's program runs as that user
 * asks: beside it, the rule would only refuse a build tree of theirs.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "trust.h"

const char *sfs_kinds_module(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char module_path[PATH_MAX];

/* dir/rel into module_path when that file is there. */
static int found_at(const char *dir, const char *rel)
{
	int n = rel[0] == '/' ?
	        snprintf(module_path, sizeof(module_path), "%s", rel) :
	        snprintf(module_path, sizeof(module_path), "%s/%s", dir, rel);

	return n > 0 && (size_t)n < sizeof(module_path) &&
	       access(module_path, F_OK) == 0;
}

/* As root, module_path becomes the descriptor of the module opened
 * under trust.h's rule (kept open: the module is loaded when a root of
 * its kinds is first opened), or "" after saying why not. */
static void hold_module(void)
{
	char why[2 * PATH_MAX];
	int fd;

	if (geteuid() != 0)
		return;
	fd = sfs_trust_open(module_path, SFS_TRUST_CONFIG, 0, why, sizeof(why));
	if (fd >= 0 && fd <= STDERR_FILENO) {
		/* started with a standard stream closed: the daemon puts
		 * /dev/null there when it detaches */
		int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
		int err = errno;
		close(fd);
		fd = high < 0 ? -err : high;
		if (fd < 0)
			snprintf(why, sizeof(why), "%s: %s", module_path,
			         strerror(-fd));
	}
	if (fd >= 0) {
		snprintf(module_path, sizeof(module_path), "/proc/self/fd/%d", fd);
		return;
	}
	if (fd != -ENOENT)
		fprintf(stderr, "skillsfs: not loading the module of the kinds "
		        "of source: %s\n", why);
	module_path[0] = '\0';
}

static void find_module(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	bool found = false;

	if (n > 0) {
		self[n] = '\0';
		const char *dir = dirname(self);
		found = found_at(dir, SKILLSFS_KINDS_FROM_BINDIR) ||
		        found_at(dir, "../shared/skillsfs-kinds.so");
	}
	if (!found)
		snprintf(module_path, sizeof(module_path), "%s", SKILLSFS_KINDS);
	hold_module();
}

const char *sfs_kinds_module(void)
{
	pthread_once(&once, find_module);
	return module_path[0] ? module_path : NULL;
}
