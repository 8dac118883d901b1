/*
 * cli.h - what the commands of the skillsfs programs share: the skills
 * roots of a command line, --config FILE, and how a command reports a
 * usage error.
 */
#ifndef SKILLSFS_CLI_H
#define SKILLSFS_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cache_gc.h"
#include "skillsfs.h"

/* Exit statuses of every command. */
enum { CLI_EXIT_FAILED = 1, CLI_EXIT_USAGE = 2 };

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
 * symlinks are resolved: a root may not exist yet); a source's URL
 * (git+file:///...) is kept as written.  Returns 0 or -errno.
 */
int roots_add(struct roots *r, const char *path, const char *source);
/* Adds each folder of a colon-separated list.  Returns the number added,
 * or -errno. */
int roots_add_list(struct roots *r, const char *list, const char *source);
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
 * error: KEY: MESSAGE" to stderr and returns -1. */
int conffile_load(const char *prog, const char *path,
                  struct sfs_config_file *cf);
/* Adds the file's roots (source "config").  Returns 0 or -errno. */
int roots_from_config(struct roots *r, const struct sfs_config_file *cf);
/*
 * When the command line named no root: the file's roots, else those of
 * SKILLSFS_SKILLS_DIRS, else the standard folders.  Returns the number
 * added, or -errno.
 */
int roots_fallback(struct roots *r, const struct sfs_config_file *cf);

/* A lockfile (lockfile.h): --lock FILE, or the configuration's lock:. */
struct sfs_lock;
/* Reads the lockfile into *lock; on failure prints "PROG: FILE: error:
 * FIELD: MESSAGE" to stderr and returns -1. */
int lockfile_load(const char *prog, const char *path, struct sfs_lock *lock);
/* Adds the lock's sources as roots, in its order, each with `source`
 * ("--lock").  Returns 0 or -errno. */
int roots_from_lock(struct roots *r, const struct sfs_lock *lock,
                    const char *source);

/* ---- parse.c: a program's command line (skillsfs's commands, and
 * skillsfs-mcp) ------------------------------------------------------- */

/* One of a program's own options, and where getopt_long's answer goes in
 * its struct of options: a bool set true (no_argument), or the const
 * char * of its argument; or, at CLI_NO_FIELD, to cli_parse.take. */
struct cli_option {
	const char *name;
	int has_arg;             /* no_argument or required_argument */
	int letter;
	size_t offset;
};
#define CLI_NO_FIELD ((size_t)-1)
#define CLI_FLAG(name, letter, type, field) \
	{ name, 0, letter, offsetof(type, field) }
#define CLI_TEXT(name, letter, type, field) \
	{ name, 1, letter, offsetof(type, field) }
#define CLI_TAKEN(name, has_arg, letter) \
	{ name, has_arg, letter, CLI_NO_FIELD }

struct cli_parse {
	const char *cmd;                /* "skillsfs check", "skillsfs-mcp" */
	const char *usage;              /* --help's text */
	const char *optstring;          /* getopt_long's: ":hV", "-:hV" */
	const struct cli_option *own;   /* ended by a zeroed one */
	const struct cli_option *common;  /* after them; their letters go
	                                   to the caller's cli_common_fn */
	/* An own option at CLI_NO_FIELD: -1 to go on, or the exit status
	 * after saying why not. */
	int (*take)(void *opts, int letter, char *arg);
};
/* A letter none of the own options took (a common one, or getopt_long's
 * ':', '?', 1): -1 to go on, or the exit status. */
typedef int cli_common_fn(void *arg, const char *cmd, int c,
                          char *const argv[]);
/*
 * Runs getopt_long over argv from the start (errors are ours to print):
 * the own options into opts, --help (prints p->usage) and --version
 * here, the rest to common(common_arg, ...) or, without it, a usage
 * error.  Returns -1 to go on, with optind at the first operand, or the
 * exit status.
 */
int cli_parse_args(const struct cli_parse *p, int argc, char **argv,
                   void *opts, cli_common_fn *common, void *common_arg);

/* usage.c: how every command speaks to its user.  `cmd` is the command
 * as typed: "skillsfs check". */

/* Prints "CMD: MESSAGE" and "Try 'CMD --help'."; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "CMD: MESSAGE" (a note: the command goes on). */
void cli_say(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "CMD: MESSAGE"; returns CLI_EXIT_FAILED. */
int cli_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The usage error for what getopt_long returned as ':' (a value missing)
 * or '?' (an unknown option), with opterr 0 and ":" leading optstring. */
int cli_option_error(const char *cmd, int c, char *const argv[]);
/* Prints a size for a person: "512 bytes", "1.5 KiB", ... "1.0 GiB". */
void cli_print_size(long long bytes);
/* --version: prints "CMD VERSION"; returns 0. */
int cli_version(const char *cmd);

/* visible.c: text a skill's author or a server chose, for a terminal:
 * every control character (\n, \r, \x1b), C1 control and line-steering
 * Unicode character (\u202e) and byte that is no UTF-8 (\xNN) written
 * as an escape, the rest as it is.  Each returns 0 or EOF. */
int cli_put_visible(FILE *f, const char *s);   /* NULL: nothing */
int cli_put_visible_n(FILE *f, const char *s, size_t n);
/* The formatted text, made visible whole: give it no newline. */
int cli_printf_visible(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_vprintf_visible(FILE *f, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* The same, then a newline. */
int cli_line_visible(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* skills_opts.c: what every command that reads skills takes. */
struct cli_skills {
	struct roots roots;        /* --skills-dir DIR, or a bare DIR */
	const char *config;        /* --config FILE, or NULL */
	struct sfs_config_file cf; /* what it says */
	struct sfs_lock *lock;     /* its lock:, when it gave the roots;
	                              owned, or NULL */
	bool fetch_must_succeed;   /* a git or MCP root that cannot be
	                              fetched now fails the command, rather
	                              than a finding over its last fetch */
	struct sfs_cache_lease lease; /* on what the roots keep in the
	                              cache folder, from the build's fetch
	                              to cli_skills_free (fd -1: none) */
};
void cli_skills_init(struct cli_skills *o);

/* ---- sources.c: roots that are not folders ----------------------------- */

/* $XDG_CACHE_HOME/skillsfs, else ~/.cache/skillsfs (malloc'd); NULL when
 * neither is known. */
char *cli_default_cache_dir(void);
/* Why a command line's --source cannot name a stdio MCP server
 * (mcp+stdio:NAME): it has no command to run. */
#define CLI_STDIO_SOURCE_REFUSED "an MCP server over stdio has a " \
	"command to run: give it in the config file's sources: with " \
	"command: (skillsfs(5))"

/* Per root (roots->n entries, calloc'd), the options the configuration
 * file gives the source of its URL; NULL when out of memory. */
struct sfs_source_options *cli_source_options(const struct roots *roots,
                                              const struct sfs_config_file *cf);
/* The first root whose kind of source the program can neither link nor
 * load (skillsfs: its module of the kinds missing, shared/kinds.c), with
 * why into why; NULL when every root's kind is at hand. */
const char *cli_kind_missing(const struct roots *roots, char *why,
                             size_t wlen);
/* Brings every git and MCP root of cfg up to date now (a remote one
 * fetched into cfg->cache_dir): per root, why it failed (malloc'd) or
 * NULL, for sfs_config.root_notes; NULL when out of memory. */
char **cli_update_sources(const struct sfs_config *cfg);
void cli_free_notes(char **notes, size_t n);
/* The common options of a command that reads skills (cli_common_fn):
 * --skills-dir DIR, --source URL, --config FILE, and a bare DIR
 * (optstring "-...") as a root.  skills is the struct cli_skills. */
int cli_skills_option(void *skills, const char *cmd, int c,
                      char *const argv[]);
/* After the command line: reads --config FILE, the one reader of every
 * command's configuration (tests/unit/test_cli_config.c holds them to
 * it).  Returns -1 to go on, or the exit status after printing why not. */
int cli_skills_config(const char *cmd, struct cli_skills *o);
/*
 * After the command line: reads --config FILE (cli_skills_config) and, when no root was
 * named, takes them from the file's lock: (whose filter the build then
 * applies, as a mount's) or from roots_fallback.  Returns -1 to go on,
 * or the exit status after printing why not.
 */
int cli_skills_finish(const char *cmd, struct cli_skills *o);
/* Builds the catalog of them (every warning an error when `strict`),
 * under a lease on what the roots keep in the cache folder (as a mount
 * takes), held until cli_skills_free: a collection (skillsfs gc, a
 * mount's cache_max) leaves what the command fetches and reads.
 * Returns -1 to go on with *cat, or the exit status after saying why. */
int cli_skills_build(const char *cmd, struct cli_skills *o, bool strict,
                     sfs_catalog **cat);
void cli_skills_free(struct cli_skills *o);

/* read_whole.c: the whole file at path, NUL-terminated, into *out
 * (malloc'd) and its length into *len.  Returns 0 or -errno. */
int cli_read_whole(const char *path, char **out, size_t *len);

/* ---- command.c: a command's command line, once for every command ---- */

/* What of --config FILE and the roots a command reads: its common
 * options (--help and --version for all). */
enum cli_reads {
	CLI_READS_SKILLS,     /* --skills-dir, --source, --config; a bare
	                         DIR with optstring "-..." (check, export;
	                         the one with 0: a struct cli_command
	                         that gives no reads) */
	CLI_READS_CONFIG,     /* --config (status, gc) */
	CLI_READS_NOTHING,    /* (lock) */
};
/* cli_command.max_operands: every operand is a skills folder. */
#define CLI_OPERANDS_ROOTS (-1)

/* A command of skillsfs besides the mount. */
struct cli_command {
	const char *name;             /* as typed: "skillsfs check" */
	const char *usage;            /* --help's text */
	const char *optstring;        /* getopt_long's: ":hV", "-:hV" */
	const struct cli_option *options;  /* its own, ended by a zeroed
	                                 one; the common ones follow */
	enum cli_reads reads;
	int max_operands;             /* more is a usage error; or
	                                 CLI_OPERANDS_ROOTS */
	bool fetch_must_succeed;      /* cli_skills.fetch_must_succeed */
	size_t opts_size;             /* of its own options' struct, which
	                                 starts zeroed */
	/* The operands (n of them, in argv): -1 to go on, or the exit
	 * status after saying why not; NULL: nothing to check. */
	int (*operands)(void *opts, char **argv, int n);
	/* The command's work: its exit status.  A command that reads
	 * skills has run_catalog instead, with the catalog of its roots
	 * (cli_skills_build, strict as strict() says, else not). */
	int (*run)(void *opts, struct cli_skills *skills);
	int (*run_catalog)(void *opts, struct cli_skills *skills,
	                   sfs_catalog *cat);
	bool (*strict)(const void *opts, const struct cli_skills *skills);
};
extern const struct cli_command check_command, export_command,
	lock_command, status_command, gc_command;

/*
 * The command line of c into opts (its own options, zeroed first by the
 * caller) and *skills (initialized here; free it with cli_skills_free
 * whatever this returns): the options, the operands, then --config FILE
 * (cli_skills_finish or cli_skills_config, by c->reads).  Returns -1 to
 * go on, or the exit status.  tests/unit/test_cli_config.c holds every
 * command to this reader, through cli_command_read_config.
 */
int cli_command_parse(const struct cli_command *c, int argc, char **argv,
                      void *opts, struct cli_skills *skills);
/* The same, with the command's options thrown away after. */
int cli_command_read_config(const struct cli_command *c, int argc,
                            char **argv, struct cli_skills *skills);
/* Parses and runs command c: its exit status. */
int cli_command_run(const struct cli_command *c, int argc, char **argv);
/* Runs the command argv[1] names ("check"), with argv from there: its
 * exit status; -1 when argv[1] names none (a mount). */
int cli_main(int argc, char **argv);

#endif
