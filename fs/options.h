/*
 * options.h - the mount command line: our options, and FUSE's passed on.
 * Each -o option is a row of shared/mount_opts.h, which names the field
 * below it sets; its default is there too.
 */
#ifndef SKILLSFS_OPTIONS_H
#define SKILLSFS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "cli.h"
#include "mount_opts.h"
#include "skillsfs.h"

struct mount_options {
	char *mountpoint;          /* as given; mount.c resolves it */
	struct roots roots;        /* absolute, in precedence order */
	bool help, version;
	bool foreground;           /* -f, or -d */
	bool debug;                /* -d */
	bool multithreaded;        /* -o multithreaded, unless -s */
	bool casefallback;         /* unless -o nocasefallback */
	bool nonempty;             /* -o nonempty: allow a non-empty folder */
	bool allow_other;          /* -o allow_other, also handed to FUSE */
	bool clone_fd;             /* -o clone_fd */
	unsigned max_idle_threads; /* -o max_idle_threads=N; 0: libfuse's */
	unsigned max_threads;      /* -o max_threads=N; 0: libfuse's */
	unsigned poll_interval_ms; /* -o poll_interval=MS */
	unsigned debounce_ms;      /* -o debounce=MS */
	unsigned settle_max_ms;    /* -o settle_max=MS: refresh.c */
	unsigned busy_poll_us;     /* -o busy_poll=US: serve_loop.c */
	unsigned retain_mib;       /* -o retain=MIB: retain.h's budget */
	unsigned fetch_interval_s; /* -o fetch_interval=S; 0: SIGHUP only */
	unsigned fetch_timeout_s;  /* -o fetch_timeout=S: git_fetch.c */
	unsigned read_timeout_s;   /* -o read_timeout=S: remote_read.c */
	char *cache_dir;           /* -o cache_dir=DIR, or the default */
	long long cache_max;       /* -o cache_max=SIZE, bytes; 0: none */
	bool force_polling;        /* -o polling: never use inotify */
	bool strict;               /* -o strict: warnings are errors */
	unsigned trust;            /* -o trust=: enum sfs_trust */
	char *docs_dir;            /* --docs-dir, absolute, or NULL */
	char *config;              /* --config FILE, or NULL */
	struct sfs_config_file cf; /* what it says; owns include/exclude */
	/* For each root: its source's options from cf (pointing into it),
	 * as sfs_config.root_options */
	struct sfs_source_options *root_options;
	char *lock_file;           /* --lock FILE, or NULL */
	struct sfs_lock *lock;     /* the lockfile that gave the roots
	                              (--lock, or the file's lock:), or NULL */
	unsigned long long set;    /* 1 << SFS_OPT_*: what the command line
	                              gave, which a file does not override */
	struct fuse_args fuse_args; /* what fuse_session_new gets */
};

/*
 * Parses argv.  Returns 0, or 2 after printing a usage error to stderr
 * (o is then freed already).
 * On 0 with help or version set nothing else needs to be valid.
 */
int options_parse(int argc, char **argv, struct mount_options *o);
void options_free(struct mount_options *o);
void options_usage(FILE *out, const char *prog);

/* mount.c: `skillsfs MOUNTPOINT ...`; returns the exit status. */
int mount_main(int argc, char **argv);

#endif
