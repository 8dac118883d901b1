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
 */
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

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

static void find_module(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		const char *dir = dirname(self);
		if (found_at(dir, SKILLSFS_KINDS_FROM_BINDIR) ||
		    found_at(dir, "../shared/skillsfs-kinds.so"))
			return;
	}
	snprintf(module_path, sizeof(module_path), "%s", SKILLSFS_KINDS);
}

const char *sfs_kinds_module(void)
{
	pthread_once(&once, find_module);
	return module_path;
}
