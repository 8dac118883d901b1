/*
 * mount_opts.h - the daemon's options, in one table: each row is an
 * `-o NAME[=VALUE]` of skillsfs (fs/options.c parses it with
 * fuse_opt_parse and prints --help from it) and, where the row says so,
 * a key of a configuration file's `options:` (config.c reads it).
 *
 * A new daemon option is a row here, the field it lands in (struct
 * mount_options, fs/options.h), the code that uses it, and its entry in
 * man/skillsfs.1 (and skillsfs.5 when a file may give it);
 * tests/check/test_options.py holds the table, --help and the man pages
 * together.
 */
#ifndef SKILLSFS_MOUNT_OPTS_H
#define SKILLSFS_MOUNT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* What a value is: how it is written, checked and stored. */
enum sfs_opt_kind {
	SFS_OPTK_FLAG,      /* -o NAME: the field (bool) becomes true */
	SFS_OPTK_NOFLAG,    /* -o NAME: the field (bool) becomes false */
	SFS_OPTK_FUSE_FLAG, /* a flag that is also handed to libfuse */
	SFS_OPTK_MS,        /* numbers (unsigned): milliseconds, */
	SFS_OPTK_US,        /*   microseconds, */
	SFS_OPTK_SECONDS,   /*   seconds, */
	SFS_OPTK_MIB,       /*   mebibytes, */
	SFS_OPTK_COUNT,     /*   a count, */
	SFS_OPTK_CHOICE,    /*   one of the row's words, by its index */
	SFS_OPTK_SIZE,      /*   bytes (long long), or with K, M, G, T */
	SFS_OPTK_FOLDER,    /* a folder (char *), made absolute */
	SFS_OPTK_FILE,      /* a file (char *), as given */
	SFS_OPTK_FOLDERS,   /* DIR[:DIR...]: roots, in order */
};

/*
 * X(ID, NAME, KIND, FIELD, DEFAULT, MIN, MAX, IN_FILE, HELP):
 *   FIELD    the member of struct mount_options (fs/options.h) it sets
 *   DEFAULT  a flag's or a number's value when nothing gives it; a
 *            number's default below MIN means "libfuse's"
 *   MIN, MAX a number's range
 *   IN_FILE  whether a configuration file's options: may give it
 *   HELP     its line in --help (wrapped there; a number's default is
 *            added)
 */
#define SFS_MOUNT_OPTS(X)                                                   \
	X(SKILLS_DIR, "skills_dir", FOLDERS, roots, 0, 0, 0, false,         \
	  "skills directories (for /etc/fstab)")                             \
	X(CONFIG, "config", FILE, config, 0, 0, 0, false,                   \
	  "a configuration file (for /etc/fstab)")                           \
	X(DOCS_DIR, "docs_dir", FOLDER, docs_dir, 0, 0, 0, false,           \
	  "as --docs-dir")                                                   \
	X(STRICT, "strict", FLAG, strict, 0, 0, 0, true,                    \
	  "every warning is an error: skills with warnings are not served") \
	X(NOCASEFALLBACK, "nocasefallback", NOFLAG, casefallback, 1, 0, 0,  \
	  true, "no case-insensitive match of a missing name inside "       \
	  "skills/<id>/")                                                    \
	X(CASEFALLBACK, "casefallback", FLAG, casefallback, 1, 0, 0, true,  \
	  "a missing name inside skills/<id>/ finds its one "               \
	  "case-insensitive match (the default)")                           \
	X(DEBOUNCE, "debounce", MS, debounce_ms, 100, 0, 3600000, true,     \
	  "wait for MS quiet milliseconds before a refresh")                 \
	X(POLL_INTERVAL, "poll_interval", MS, poll_interval_ms, 1000, 0,    \
	  3600000, true, "without inotify: check the sources for changes "  \
	  "every MS milliseconds")                                           \
	X(POLLING, "polling", FLAG, force_polling, 0, 0, 0, true,           \
	  "use polling even where inotify works")                            \
	/* the longest a change waits for its writers (refresh.c) */        \
	X(SETTLE_MAX, "settle_max", MS, settle_max_ms, 10000, 0, 3600000,   \
	  false, "publish a change whose writers are still at work after "  \
	  "MS milliseconds, each skill still being edited served as it was") \
	X(RETAIN, "retain", MIB, retain_mib, 16, 0, 65536, true,            \
	  "keep up to MIB mebibytes of published file versions in memory, " \
	  "so that an edit in the sources never breaks a read")             \
	X(FETCH_INTERVAL, "fetch_interval", SECONDS, fetch_interval_s, 300, \
	  0, 86400 * 366, true, "look for a new commit of each followed "   \
	  "git branch or tag every S seconds, fetching a remote one; 0: on " \
	  "SIGHUP only")                                             \
	X(FETCH_TIMEOUT, "fetch_timeout", SECONDS, fetch_timeout_s, 30, 1,  \
	  86400, true, "give up a git fetch, or a website's update, that "  \
	  "makes no progress for S seconds; the root keeps serving what "   \
	  "it had")                                                         \
	/* long enough for a 16 MiB file over a slow link, well under the  \
	 * client's own 120 s */                                            \
	X(READ_TIMEOUT, "read_timeout", SECONDS, read_timeout_s, 30, 1,     \
	  86400, false, "a read that waits on an MCP server fails with "    \
	  "ETIMEDOUT after S seconds")                                       \
	X(CACHE_DIR, "cache_dir", FOLDER, cache_dir, 0, 0, 0, true,         \
	  "where remote git sources are cloned and MCP listings kept "      \
	  "(default $XDG_CACHE_HOME/skillsfs, ~/.cache/skillsfs)")           \
	X(CACHE_MAX, "cache_max", SIZE, cache_max, 1L << 30, 0,            \
	  1024L * 1024 * 1024 * 1024 * 1024, true, "keep the cache folder under SIZE bytes (512M, 2G), "       \
	  "removing what no running mount needs, least recently used "      \
	  "first; 0: no bound")                                              \
	X(NONEMPTY, "nonempty", FLAG, nonempty, 0, 0, 0, true,              \
	  "allow mounting over a non-empty folder")                          \
	X(ALLOW_OTHER, "allow_other", FUSE_FLAG, allow_other, 0, 0, 0, true,\
	  "let other users read the mount (FUSE's option): the documents "  \
	  "about every skill then hold only what all of them may read")     \
	X(BUSY_POLL, "busy_poll", US, busy_poll_us, 200, 0, 1000000, false, \
	  "after answering, look for the next request for US microseconds " \
	  "before sleeping; 0: sleep at once")                              \
	X(MULTITHREADED, "multithreaded", FLAG, multithreaded, 0, 0, 0,     \
	  true, "serve requests on several threads (slower on small "       \
	  "machines: measured on 2 cores)")                                  \
	X(CLONE_FD, "clone_fd", FLAG, clone_fd, 0, 0, 0, false,             \
	  "one /dev/fuse descriptor per thread")                             \
	X(MAX_IDLE_THREADS, "max_idle_threads", COUNT, max_idle_threads, 0, \
	  1, 100000, false, "idle threads kept by the multi-threaded loop " \
	  "(default: libfuse's)")                                            \
	X(MAX_THREADS, "max_threads", COUNT, max_threads, 0, 1, 100000,     \
	  false, "threads at most in the multi-threaded loop (default: "    \
	  "libfuse's)")                                                      \
	X(TRUST, "trust", CHOICE, trust, 0, 0, 2, true, "what a high "      \
	  "finding of the security pass does: report (serve the skill, "   \
	  "report it), withhold (serve it nowhere) or hold (a change that " \
	  "brings one is not published)")

enum sfs_opt {
#define SFS_OPT_ENUM(id, ...) SFS_OPT_##id,
	SFS_MOUNT_OPTS(SFS_OPT_ENUM)
#undef SFS_OPT_ENUM
	SFS_NOPTS
};

struct sfs_opt_row {
	const char *name;       /* -o NAME, and the options: key */
	enum sfs_opt_kind kind;
	long def, min, max;
	bool in_file;
	const char *help;
};

/* What a configuration file's options: gave for one row. */
struct sfs_opt_value {
	bool given;
	long number;            /* a flag's 0 or 1, or a number */
	char *text;             /* a folder (absolute; malloc'd), or NULL */
};

/* Row `id` (< SFS_NOPTS). */
const struct sfs_opt_row *sfs_opt_row(enum sfs_opt id);

/* The row named by the first len bytes of name, or -1. */
int sfs_opt_find(const char *name, size_t len);

/* Whether a value of kind k is a number, a flag. */
bool sfs_opt_is_number(enum sfs_opt_kind k);
bool sfs_opt_is_flag(enum sfs_opt_kind k);

/* A choice's words, in index order, NULL-terminated (sfs_trust's for
 * trust); NULL for a row of another kind. */
const char *const *sfs_opt_choices(enum sfs_opt id);

/* What the value is called in --help ("MS"), or "" for a flag. */
const char *sfs_opt_arg(enum sfs_opt_kind k);

/* A number from text: decimal digits only, from min to max.  Returns 0,
 * or -EINVAL. */
int sfs_decimal(const char *text, long min, long max, long *out);

/* A size from text: decimal digits, then K, M, G or T (binary
 * multiples; "MB" and "MiB" too), from min to max bytes.  Returns 0, or
 * -EINVAL. */
int sfs_size(const char *text, long min, long max, long *out);

/* A number of row r from text: decimal digits only, within its range.
 * Returns 0, or -EINVAL. */
int sfs_opt_number(const struct sfs_opt_row *r, const char *text,
                   long *out);

/* What a number of row r must be, for an error: "milliseconds
 * (0-3600000)". */
void sfs_opt_expected(const struct sfs_opt_row *r, char *buf, size_t len);

/* The names a file's options: may give, comma-separated, for an error. */
void sfs_opt_file_names(char *buf, size_t len);

#endif
