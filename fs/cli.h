/*
 * cli.h - what the skillsfs program's commands share.
 */
#ifndef SKILLSFS_CLI_H
#define SKILLSFS_CLI_H

#include <stddef.h>

/* The roots a command serves, absolute, in precedence order, each with
 * where it came from ("--skills-dir", "SKILLSFS_SKILLS_DIRS"). */
struct roots {
	char **paths;          /* owned */
	const char **sources;  /* static strings */
	size_t n;
};

/*
 * Adds `path` as given on the command line or in the environment, made
 * absolute against the current directory and cleaned lexically (no
 * symlinks are resolved: a root may not exist yet).  Returns 0 or -errno.
 */
int roots_add(struct roots *r, const char *path, const char *source);
/* When no --skills-dir was given: the roots from SKILLSFS_SKILLS_DIRS.
 * Returns the number added, or -errno. */
int roots_from_env(struct roots *r);
void roots_free(struct roots *r);

int check_main(int argc, char **argv);
int mount_main(int argc, char **argv);

#endif
