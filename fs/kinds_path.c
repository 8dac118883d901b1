/*
 * kinds_path.c - where skillsfs finds the module of the kinds of source
 * it does not link (shared/kinds.c): this build tree's when it is this
 * build tree's skillsfs that runs (the tests), else the installed one.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

const char *sfs_kinds_module(void);

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

const char *sfs_kinds_module(void)
{
	return running(SKILLSFS_BUILD_EXE) ? SKILLSFS_BUILD_KINDS
	                                   : SKILLSFS_KINDS;
}
