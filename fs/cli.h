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
/* When no root was given at all: the standard skill folders of agents
 * that exist (see ROOTS_DEFAULT_LIST), each once, with source "default".
 * Returns the number added, or -errno. */
int roots_from_defaults(struct roots *r);
#define ROOTS_DEFAULT_LIST \
	"~/.agents/skills, ~/.claude/skills, ~/.codex/skills, " \
	"~/.copilot/skills, ~/.gemini/skills, ~/.cursor/skills, " \
	"./.agents/skills, ./.claude/skills, ./.github/skills, " \
	"./.gemini/skills, ./.cursor/skills, ~/.claude/plugins"
void roots_free(struct roots *r);

/* conffile.c: --config FILE */
struct sfs_config_file;
/* Reads the configuration file; on failure prints "PROG: FILE:LINE:COL:
 * KEY: MESSAGE" to stderr and returns -1. */
int conffile_load(const char *prog, const char *path,
                  struct sfs_config_file *cf);
/* Adds the file's roots (source "config").  Returns 0 or -errno. */
int roots_from_config(struct roots *r, const struct sfs_config_file *cf);

int check_main(int argc, char **argv);
int mount_main(int argc, char **argv);
int export_main(int argc, char **argv);

#endif
