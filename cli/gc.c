/*
 * gc.c - `skillsfs gc`: the cache folder brought under its bound
 * (cache_max), keeping what running mounts and commands lease and what
 * the configuration's lockfile pins, the rest removed least recently
 * used first (shared/cache_gc.h says what and how).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache_gc.h"
#include "cli.h"
#include "lockfile.h"
#include "mount_opts.h"
#include "trust.h"

#define CMD "skillsfs gc"

static const char usage_text[] =
	"usage: skillsfs gc [--config FILE] [--cache-dir DIR] [--lock FILE]\n"
	"                   [--max SIZE] [--dry-run]\n"
	"\n"
	"Bring the cache folder (where git and MCP sources are fetched) under\n"
	"its bound: what a running skillsfs mount, check or export uses and\n"
	"what the lockfile pins stay; of the rest, the least recently used\n"
	"(fetched, or read through a mount) goes first until the folder holds\n"
	"at most SIZE bytes.  Nothing outside the folder is removed, and no\n"
	"link is followed.\n"
	"\n"
	"  --config FILE    the cache folder, cache_max and lock: of a\n"
	"                   configuration file (skillsfs(5))\n"
	"  --cache-dir DIR  the cache folder (default: the file's cache_dir,\n"
	"                   else $XDG_CACHE_HOME/skillsfs, ~/.cache/skillsfs)\n"
	"  --lock FILE      keep what this lockfile's sources need too\n"
	"  --max SIZE       the bound: bytes, or 512M, 2G (default: the\n"
	"                   file's cache_max, else 1G); 0 removes all that\n"
	"                   nothing uses\n"
	"  --dry-run        say what would be removed, remove nothing\n"
	"  --help           print this help and exit\n"
	"  --version        print the version and exit\n"
	"\n"
	"Exit status: 0 when the folder is under its bound (or would be), 1\n"
	"when what is in use alone is over it or a removal failed, 2 on a\n"
	"usage error.\n";

struct gc_opts {
	const char *cache_dir, *lock_file, *max_text;
	long max;              /* max_text's, when given */
	bool dry_run;
};

static const struct cli_option options[] = {
	CLI_TEXT("cache-dir", 'C', struct gc_opts, cache_dir),
	CLI_TEXT("lock", 'L', struct gc_opts, lock_file),
	CLI_TEXT("max", 'm', struct gc_opts, max_text),
	CLI_FLAG("dry-run", 'n', struct gc_opts, dry_run),
	{ NULL, 0, 0, 0 },
};

/* --max SIZE, said after the other options and the operands */
static int check_max(void *opts, char **argv, int n)
{
	struct gc_opts *o = opts;

	(void)argv, (void)n;
	if (o->max_text && sfs_size(o->max_text, 0, __LONG_MAX__, &o->max) < 0)
		return cli_usage_error(CMD, "bad --max: expected a size in "
		                       "bytes, or with K, M, G or T (512M)");
	return -1;
}

/* The entries the lockfile's sources keep (malloc'd names), or NULL. */
static char **pinned(const struct sfs_lock *lock, const char *cache_dir,
                     size_t *n)
{
	char **v = calloc(lock ? lock->nsources + 1 : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && lock && i < lock->nsources; i++) {
		char *e = sfs_source_cache_entry(lock->sources[i].root,
		                                 cache_dir);
		if (e)
			v[(*n)++] = e;
	}
	return v;
}

static const char *why_kept(enum sfs_cache_need need)
{
	switch (need) {
	case SFS_CACHE_LEASED: return "in use by a running mount or command";
	case SFS_CACHE_PINNED: return "pinned by the lockfile";
	case SFS_CACHE_FETCHING: return "a fetch is under way";
	case SFS_CACHE_NAMED: return "named by a kept listing";
	default: return "under the bound";
	}
}

/* Whether dir holds something besides what a collection itself makes
 * there: a folder of other things given as the cache folder by mistake
 * (nothing in it is touched: cache_gc.h). */
static bool holds_other_things(const char *dir)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	bool other = false, leases = false;

	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, SFS_CACHE_LEASES) == 0)
			leases = true;
		else if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		         strcmp(e->d_name, SFS_CACHE_GC_LOCK) &&
		         strcmp(e->d_name, SFS_CACHE_TRASH))
			other = true;
	}
	if (d)
		closedir(d);
	return other && !leases;
}

/* The cache folder fails trust.h's rule (-EPERM): the rule says why. */
static int fail_untrusted(const char *dir)
{
	char why[1024] = "";
	int fd = sfs_trust_dir_open(dir, false, why, sizeof(why));

	if (fd >= 0)
		close(fd);
	return cli_fail(CMD, "%s: %s", dir, why[0] ? why : strerror(EPERM));
}

static int report(const struct gc_opts *o, const char *dir, long long max,
                  const struct sfs_cache_gc *g)
{
	bool failed = false;

	for (size_t i = 0; i < g->n; i++) {
		const struct sfs_cache_entry *e = &g->v[i];
		char when[32];
		struct tm tm;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M",
		         localtime_r(&e->used, &tm));
		cli_printf_visible(stdout, "%-14s %s (", !e->dropped ? "keep" :
		                   e->failed ? "cannot remove" : o->dry_run ?
		                   "would remove" : "removed", e->name);
		cli_print_size(e->bytes);
		printf(", used %s%s%s)\n", when, e->dropped ? "" : ": ",
		       e->dropped ? "" : why_kept(e->need));
		failed |= e->failed;
	}
	if (g->stale_leases)
		printf("%s %zu lease%s of mounts that ended\n",
		       o->dry_run ? "would remove" : "removed", g->stale_leases,
		       g->stale_leases == 1 ? "" : "s");
	cli_printf_visible(stdout, "%s: ", dir);
	cli_print_size(g->before);
	printf(" before, ");
	cli_print_size(g->after);
	printf(o->dry_run ? " after a gc, of " : " now, of ");
	cli_print_size(max);
	printf(" (cache_max); %zu running mount%s or command%s\n", g->leases,
	       g->leases == 1 ? "" : "s", g->leases == 1 ? "" : "s");
	if (failed)
		return cli_fail(CMD, "some entries could not be removed");
	if (g->after > max)
		return cli_fail(CMD, "what is in use alone is over cache_max");
	return 0;
}

static int run(void *opts, struct cli_skills *skills)
{
	struct gc_opts o = *(struct gc_opts *)opts;
	struct sfs_lock lock = { 0 };
	bool locked = false;
	int status = -1;
	const struct sfs_opt_value *fmax =
		&skills->cf.options[SFS_OPT_CACHE_MAX];
	const char *fdir = skills->cf.options[SFS_OPT_CACHE_DIR].text;
	char *dir = o.cache_dir ? strdup(o.cache_dir) :
	            fdir ? strdup(fdir) : cli_default_cache_dir();
	if (!o.max_text)
		o.max = fmax->given ? fmax->number : SFS_CACHE_MAX_DEFAULT;
	if (!dir)
		status = cli_fail(CMD, "no cache folder: give --cache-dir DIR "
		                  "or set XDG_CACHE_HOME or HOME");
	const char *lock_file = o.lock_file ? o.lock_file : skills->cf.lock;
	if (status < 0 && lock_file) {
		if (lockfile_load(CMD, lock_file, &lock) < 0)
			status = CLI_EXIT_USAGE;
		else
			locked = true;
	}
	size_t nkeep = 0;
	char **keep = status < 0 ? pinned(locked ? &lock : NULL, dir, &nkeep)
	                         : NULL;
	if (status < 0 && !keep)
		status = cli_fail(CMD, "%s", strerror(ENOMEM));
	if (status < 0) {
		struct sfs_cache_gc g;
		struct sfs_cache_gc_args a = {
			.cache_dir = dir, .max = o.max,
			.keep = (const char *const *)keep, .nkeep = nkeep,
			.dry_run = o.dry_run, .wait = true,
		};
		/* before the collection makes its own leases/ there */
		bool other = holds_other_things(dir);
		int rc = sfs_cache_gc_run(&a, &g);
		if (rc == -ENOENT) {
			cli_line_visible(stdout, "%s: no cache folder yet: nothing "
			                 "to do", dir);
			status = 0;
		} else if (rc == -EPERM) {
			status = fail_untrusted(dir);
		} else if (rc < 0) {
			status = cli_fail(CMD, "%s: %s", dir, strerror(-rc));
		} else {
			status = report(&o, dir, o.max, &g);
			if (!g.n && other)
				cli_say(CMD, "nothing in %s is an entry of a "
				        "skillsfs cache folder, so nothing was "
				        "removed: is it the cache folder? (skillsfs "
				        "status names a mount's)", dir);
			sfs_cache_gc_free(&g);
		}
	}
	for (size_t i = 0; keep && i < nkeep; i++)
		free(keep[i]);
	free(keep);
	if (locked)
		sfs_lock_free(&lock);
	free(dir);
	return status;
}

const struct cli_command gc_command = {
	.name = CMD, .usage = usage_text, .optstring = ":hV", .run = run,
	.options = options, .opts_size = sizeof(struct gc_opts),
	.reads = CLI_READS_CONFIG, .operands = check_max,
};
