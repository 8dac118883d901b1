/*
 * kinds_path.c - where skillsfs finds the module of the kinds of source
 * it does not link (shared/kinds.c): this build tree's when it is this
 * build tree's skillsfs that runs (the tests), else the installed one.
 * Found once: the library asks at every look at a kind (a collection of
 * the cache folder, once per entry).
 */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

const char *sfs_kinds_module(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *module_path;

/* Whether the running program is the file at path. */
static bool running(const char *path)
{
	char self[PATH_MAX], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || !realpath(path, real))
		return false;
	self[n] = '\0';
	return strcmp(self, real) == 0;
}

static void find_module(void)
{
	module_path = running(SKILLSFS_BUILD_EXE) ? SKILLSFS_BUILD_KINDS
	                                          : SKILLSFS_KINDS;
}

const char *sfs_kinds_module(void)
{
	pthread_once(&once, find_module);
	return module_path;
}
