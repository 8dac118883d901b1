/*
 * options.c - the mount command line.
 *
 *   skillsfs MOUNTPOINT [--skills-dir DIR]... [--source URL]...
 *            [--config FILE] [-f] [-d] [-s] [-o OPT[,OPT]]
 *   skillsfs MOUNTPOINT --lock FILE [--config FILE] ...
 *   skillsfs SOURCE MOUNTPOINT -o OPTS        (mount.fuse3, /etc/fstab)
 *
 * Our own -o options are taken out; every other one is passed to libfuse,
 * which rejects what it does not know.  The mount is always read-only and
 * named fsname=skillsfs, subtype=skillsfs.  A configuration file fills in
 * what the command line leaves unsaid; roots come from --skills-dir and
 * --source (in the order given), else the file, else
 * $SKILLSFS_SKILLS_DIRS, else the standard folders.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lockfile.h"
#include "options.h"
#include "source.h"

/* "skillsfs: MESSAGE", a pointer to --help; returns CLI_EXIT_USAGE. */
#define usage_error(...) cli_usage_error("skillsfs", __VA_ARGS__)

void options_usage(FILE *out, const char *prog)
{
	fprintf(out,
"usage: %s MOUNTPOINT [--skills-dir DIR]... [--source URL]... [--config FILE]\n"
"                [--docs-dir DIR] [-f] [-d] [-s] [-o OPT[,OPT...]]\n"
"       %s MOUNTPOINT --lock FILE [--config FILE] [--docs-dir DIR] ...\n"
"       %s check [--skills-dir DIR]... [--source URL]... [--config FILE]\n"
"             [--strict] [--json] [DIR]...\n"
"       %s export --anthropic OUTDIR [--skills-dir DIR]... [--config FILE]\n"
"       %s lock [-o FILE] MOUNTPOINT\n"
"       %s SOURCE MOUNTPOINT -o OPT[,OPT...]     (mount -t fuse.skillsfs)\n"
"\n"
"Serves every skill of the skills directories as one read-only filesystem:\n"
"index.json, status.json, catalog/, skills/<id>/, refs/<id>/ and docs/.\n"
"\n"
"options:\n"
"    --skills-dir DIR       a skills directory (repeatable, first wins);\n"
"                           default: the config file's roots, else\n"
"                           $SKILLSFS_SKILLS_DIRS (colon-separated), else\n"
"                           the standard skill folders of agents that\n"
"                           exist: ~/.agents/skills, ~/.claude/skills,\n"
"                           ./.agents/skills, ... (see skillsfs(1))\n"
"    --source URL           skills from elsewhere (repeatable; ordered\n"
"                           with --skills-dir): a git repository,\n"
"                           git+file:///PATH[#REF][:SUBDIR] read in place,\n"
"                           git+https://HOST/PATH[#REF][:SUBDIR] (or\n"
"                           git+ssh://, git+http://) fetched into the cache;\n"
"                           REF a branch, tag or full commit id (default\n"
"                           HEAD), a branch or tag followed every\n"
"                           fetch_interval and on kill -HUP; or\n"
"                           mcp+https://HOST/PATH: an MCP server's skills\n"
"                           (SEP-2640), each file verified by its sha256\n"
"                           (one run over stdio is a --config sources:\n"
"                           entry with command:, skillsfs(5))\n"
"    --lock FILE            mount exactly what a lockfile names (written by\n"
"                           skillsfs lock MOUNTPOINT): its sources in its\n"
"                           order, each git source at its locked commit,\n"
"                           each folder and MCP server with only its\n"
"                           locked skills, each while its content is as\n"
"                           locked; not with --skills-dir or --source\n"
"    --config FILE          read roots and options from a YAML file\n"
"                           (skillsfs(5)); the command line overrides it\n"
"    --docs-dir DIR         serve the markdown files under DIR at docs/\n"
"    -f                     stay in the foreground\n"
"    -d                     debug output (implies -f)\n"
"    -s                     single-threaded (the default; see -o multithreaded)\n"
"    -h, --help             print this help\n"
"    -V, --version          print the version\n"
"\n"
"skillsfs -o options:\n"
"    -o skills_dir=DIR[:DIR...]  skills directories (for /etc/fstab)\n"
"    -o config=FILE         a configuration file (for /etc/fstab)\n"
"    -o docs_dir=DIR        as --docs-dir\n"
"    -o strict              every warning is an error: skills with\n"
"                           warnings are not served\n"
"    -o nocasefallback      no case-insensitive match of a missing name\n"
"                           inside skills/<id>/\n"
"    -o debounce=MS         wait for MS quiet milliseconds before a\n"
"                           refresh (default %d)\n"
"    -o poll_interval=MS    without inotify: check the sources for changes\n"
"                           every MS milliseconds (default %d)\n"
"    -o polling             use polling even where inotify works\n"
"    -o settle_max=MS       publish a change whose writers are still at\n"
"                           work after MS milliseconds, each skill still\n"
"                           being edited served as it was (default %d)\n"
"    -o retain=MIB          keep up to MIB mebibytes of published file\n"
"                           versions in memory, so that an edit in the\n"
"                           sources never breaks a read (default %d)\n"
"    -o fetch_interval=S    look for a new commit of each followed git\n"
"                           branch or tag every S seconds, fetching a\n"
"                           remote one (default %d; 0: on SIGHUP only)\n"
"    -o read_timeout=S      a read that waits on an MCP server fails with\n"
"                           ETIMEDOUT after S seconds (default %d)\n"
"    -o cache_dir=DIR       where remote git sources are cloned (default\n"
"                           $XDG_CACHE_HOME/skillsfs, ~/.cache/skillsfs)\n"
"    -o nonempty            allow mounting over a non-empty folder\n"
"    -o busy_poll=US        after answering, look for the next request for\n"
"                           US microseconds before sleeping (default %d;\n"
"                           0: sleep at once)\n"
"    -o multithreaded       serve requests on several threads (slower on\n"
"                           small machines: measured on 2 cores)\n"
"    -o clone_fd            one /dev/fuse descriptor per thread\n"
"    -o max_idle_threads=N  idle threads kept by the multi-threaded loop\n"
"    -o max_threads=N       threads at most in the multi-threaded loop\n"
"\n"
"SOURCE (mount -t fuse.skillsfs SOURCE MOUNTPOINT, or the first column of\n"
"/etc/fstab) is a colon-separated list of skills directories, or 'none'\n"
"or 'skillsfs' to take them from -o skills_dir= or -o config=.\n"
"\n"
"FUSE options (always read-only, fsname=skillsfs, subtype=skillsfs):\n",
		prog, prog, prog, prog, prog, prog, DEFAULT_DEBOUNCE_MS,
		DEFAULT_POLL_INTERVAL_MS, DEFAULT_SETTLE_MAX_MS,
		DEFAULT_RETAIN_MIB,
		DEFAULT_FETCH_INTERVAL_S, DEFAULT_READ_TIMEOUT_S,
		DEFAULT_BUSY_POLL_US);
}

/* A decimal number from min to max for -o opt; `what` names it in the
 * error ("milliseconds"). */
static int parse_number(const char *val, const char *opt, unsigned long min,
                        unsigned long max, const char *what, unsigned *out)
{
	char *end;

	errno = 0;
	unsigned long v = strtoul(val, &end, 10);
	if (errno || end == val || *end || v < min || v > max || val[0] == '-')
		return usage_error("-o %s: expected %s (%lu-%lu)", opt, what,
		                   min, max);
	*out = (unsigned)v;
	return 0;
}

static int parse_ms(const char *val, const char *opt, unsigned *out)
{
	return parse_number(val, opt, 0, 3600000, "milliseconds", out);
}

static int parse_us(const char *val, const char *opt, unsigned *out)
{
	return parse_number(val, opt, 0, 1000000, "microseconds", out);
}

static int parse_count(const char *val, const char *opt, unsigned *out)
{
	return parse_number(val, opt, 1, 100000, "a count", out);
}

/* Adds each DIR of a colon-separated list. */
static int add_dirs(struct mount_options *o, const char *list,
                    const char *source)
{
	if (roots_add_list(&o->roots, list, source) < 0)
		return usage_error("cannot use skills directories %s", list);
	return 0;
}

/* --source URL: a root in the same order as --skills-dir's. */
static int add_source(struct mount_options *o, const char *url)
{
	struct sfs_source_url u;
	const char *why;
	int rc = sfs_source_url_parse(url, &u, &why);

	if (rc == -EINVAL)
		return usage_error("bad --source '%s': %s", url, why);
	sfs_source_url_free(&u);
	if (rc == 0 && (sfs_source_caps(url) & SFS_SOURCE_COMMAND))
		return usage_error("bad --source '%s': %s", url,
		                   CLI_STDIO_SOURCE_REFUSED);
	if (rc < 0 || roots_add(&o->roots, url, "--source") < 0)
		return usage_error("%s", strerror(ENOMEM));
	return 0;
}

static int set_docs_dir(struct mount_options *o, const char *dir)
{
	free(o->docs_dir);
	o->docs_dir = sfs_path_absolute(dir);
	if (!o->docs_dir)
		return usage_error("bad docs folder '%s'", dir);
	return 0;
}

static int set_cache_dir(struct mount_options *o, const char *dir)
{
	free(o->cache_dir);
	o->cache_dir = sfs_path_absolute(dir);
	if (!o->cache_dir)
		return usage_error("bad cache folder '%s'", dir);
	return 0;
}

static int set_config(struct mount_options *o, const char *file)
{
	if (!*file)
		return usage_error("%s", "--config needs a file");
	free(o->config);
	o->config = strdup(file);
	if (!o->config)
		return usage_error("%s", strerror(ENOMEM));
	return 0;
}

static int set_lock_file(struct mount_options *o, const char *file)
{
	if (!*file)
		return usage_error("%s", "--lock needs a file");
	free(o->lock_file);
	o->lock_file = strdup(file);
	if (!o->lock_file)
		return usage_error("%s", strerror(ENOMEM));
	return 0;
}

static int append_opt(char **opts, const char *opt)
{
	if (fuse_opt_add_opt(opts, opt) < 0)
		return usage_error("%s", strerror(ENOMEM));
	return 0;
}

/* One -o item: ours, dropped, or passed to libfuse. */
static int take_opt(struct mount_options *o, const char *opt, char **fuse)
{
	const char *eq = strchr(opt, '=');
	const char *val = eq ? eq + 1 : "";
	size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
#define KEY(k) (klen == sizeof(k) - 1 && strncmp(opt, k, klen) == 0)

	if ((KEY("nocasefallback") || KEY("casefallback")) && !eq)
		o->casefallback = opt[0] == 'c';
	else if (KEY("nonempty") && !eq)
		o->nonempty = true;
	else if (KEY("polling") && !eq)
		o->force_polling = true;
	else if (KEY("clone_fd") && !eq)
		o->clone_fd = true;
	else if (KEY("multithreaded") && !eq)
		o->multithreaded = true;
	else if (KEY("strict") && !eq)
		o->strict = true;
	else if (KEY("poll_interval") && eq)
		return parse_ms(val, opt, &o->poll_interval_ms);
	else if (KEY("debounce") && eq)
		return parse_ms(val, opt, &o->debounce_ms);
	else if (KEY("settle_max") && eq)
		return parse_ms(val, opt, &o->settle_max_ms);
	else if (KEY("retain") && eq)
		return parse_number(val, opt, 0, 65536, "mebibytes",
		                    &o->retain_mib);
	else if (KEY("fetch_interval") && eq)
		return parse_number(val, opt, 0, 86400 * 366, "seconds",
		                    &o->fetch_interval_s);
	else if (KEY("read_timeout") && eq)
		return parse_number(val, opt, 1, 86400, "seconds",
		                    &o->read_timeout_s);
	else if (KEY("cache_dir") && eq)
		return set_cache_dir(o, val);
	else if (KEY("busy_poll") && eq)
		return parse_us(val, opt, &o->busy_poll_us);
	else if (KEY("docs_dir") && eq)
		return set_docs_dir(o, val);
	else if (KEY("config") && eq)
		return set_config(o, val);
	else if (KEY("max_idle_threads") && eq)
		return parse_count(val, opt, &o->max_idle_threads);
	else if (KEY("max_threads") && eq)
		return parse_count(val, opt, &o->max_threads);
	else if (KEY("skills_dir") && eq)
		return add_dirs(o, val, "skills_dir=");
	else if (KEY("ro") || KEY("rw") || KEY("fsname") || KEY("subtype"))
		;   /* always ro, always ours; mount(8) passes rw */
	else if (KEY("debug") && !eq)
		o->debug = o->foreground = true;
	else
		return append_opt(fuse, opt);
	return 0;
#undef KEY
}

/* The SET_ bit of a -o option the configuration file may also give. */
static unsigned opt_bit(const char *opt)
{
	static const struct { const char *name; unsigned bit; } bits[] = {
		{ "nocasefallback", SET_CASEFALLBACK },
		{ "casefallback", SET_CASEFALLBACK },
		{ "nonempty", SET_NONEMPTY },
		{ "polling", SET_POLLING },
		{ "multithreaded", SET_MULTITHREADED },
		{ "strict", SET_STRICT },
		{ "poll_interval", SET_POLL_INTERVAL },
		{ "debounce", SET_DEBOUNCE },
		{ "docs_dir", SET_DOCS_DIR },
		{ "allow_other", SET_ALLOW_OTHER },
		{ "retain", SET_RETAIN },
		{ "fetch_interval", SET_FETCH_INTERVAL },
		{ "cache_dir", SET_CACHE_DIR },
	};
	size_t klen = strcspn(opt, "=");

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (strlen(bits[i].name) == klen &&
		    strncmp(opt, bits[i].name, klen) == 0)
			return bits[i].bit;
	return 0;
}

static int take_opts(struct mount_options *o, const char *list, char **fuse)
{
	char *copy = strdup(list);
	char *save = NULL;
	int rc = 0;

	if (!copy)
		return usage_error("%s", strerror(ENOMEM));
	for (char *opt = strtok_r(copy, ",", &save); opt && rc == 0;
	     opt = strtok_r(NULL, ",", &save)) {
		o->set |= opt_bit(opt);
		rc = take_opt(o, opt, fuse);
	}
	free(copy);
	return rc;
}

static int take_positional(struct mount_options *o, const char *arg,
                           const char **first)
{
	if (!*first) {
		*first = arg;
		return 0;
	}
	if (o->mountpoint)
		return usage_error("unexpected argument '%s'", arg);
	/* SOURCE MOUNTPOINT, as mount.fuse3 calls us */
	o->mountpoint = strdup(arg);
	if (!o->mountpoint)
		return usage_error("%s", strerror(ENOMEM));
	if (strcmp(*first, "none") != 0 && strcmp(*first, "skillsfs") != 0)
		return add_dirs(o, *first, "mount source");
	return 0;
}

static int build_fuse_args(struct mount_options *o, const char *prog,
                           char *user_opts)
{
	char *opts = user_opts;
	int rc = 0;

	if (fuse_opt_add_opt(&opts, "ro") < 0 ||
	    fuse_opt_add_opt(&opts, "fsname=skillsfs") < 0 ||
	    fuse_opt_add_opt(&opts, "subtype=skillsfs") < 0 ||
	    fuse_opt_add_arg(&o->fuse_args, prog) < 0 ||
	    (o->debug && fuse_opt_add_arg(&o->fuse_args, "-d") < 0) ||
	    fuse_opt_add_arg(&o->fuse_args, "-o") < 0 ||
	    fuse_opt_add_arg(&o->fuse_args, opts) < 0)
		rc = usage_error("%s", strerror(ENOMEM));
	free(opts);
	return rc;
}

/* Whether the first n bytes of argument `a` name an option that takes a
 * value: the next argument, or after "=" (--skills-dir=DIR). */
static bool takes_value(const char *a, size_t n)
{
	static const char *const names[] = {
		"--config", "--docs-dir", "--lock", "--skills-dir", "--source",
		"-o",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncmp(a, names[i], n) == 0)
			return true;
	return false;
}

/* Option `a` (its name up to any "=") with its value. */
static int take_value(struct mount_options *o, const char *a, const char *v,
                      char **fuse_opts)
{
	if (a[1] == 'o')
		return take_opts(o, v, fuse_opts);
	if (!strncmp(a, "--config", 8))
		return set_config(o, v);
	if (!strncmp(a, "--docs-dir", 10)) {
		o->set |= SET_DOCS_DIR;
		return set_docs_dir(o, v);
	}
	if (!strncmp(a, "--source", 8))
		return add_source(o, v);
	if (!strncmp(a, "--lock", 6))
		return set_lock_file(o, v);
	if (!*v || roots_add(&o->roots, v, "--skills-dir") < 0)
		return usage_error("bad --skills-dir '%s'", v);
	return 0;
}

static int parse_args(int argc, char **argv, struct mount_options *o,
                      char **fuse_opts, const char **first)
{
	bool dashdash = false, single = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0;
		if (dashdash || a[0] != '-' || a[1] == '\0') {
			rc = take_positional(o, a, first);
		} else if (strcmp(a, "--") == 0) {
			dashdash = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			o->version = true;
		} else if (!strcmp(a, "-f")) {
			o->foreground = true;
		} else if (!strcmp(a, "-d")) {
			o->debug = o->foreground = true;
		} else if (!strcmp(a, "-s")) {
			single = true;
		} else if (takes_value(a, strlen(a))) {
			if (i + 1 >= argc)
				return usage_error("option '%s' needs a value",
				                   a);
			rc = take_value(o, a, argv[++i], fuse_opts);
		} else if (a[1] == '-' && a[strcspn(a, "=")] &&
		           takes_value(a, strcspn(a, "="))) {
			rc = take_value(o, a, strchr(a, '=') + 1, fuse_opts);
		} else if (!strncmp(a, "-o", 2)) {
			rc = take_opts(o, a + 2, fuse_opts);
		} else {
			rc = usage_error("unknown option '%s'", a);
		}
		if (rc)
			return rc;
	}
	if (single) {
		o->multithreaded = false;
		o->set |= SET_MULTITHREADED;
	}
	return 0;
}

static void apply_bool(int value, unsigned set, unsigned bit, bool *out)
{
	if (value != SFS_UNSET && !(set & bit))
		*out = value;
}

/* What the configuration file says where the command line said nothing. */
static int apply_config(struct mount_options *o, char **fuse_opts,
                        const char **first)
{
	const struct sfs_config_file *cf = &o->cf;

	if (conffile_load("skillsfs", o->config, &o->cf) < 0)
		return 2;
	apply_bool(cf->casefallback, o->set, SET_CASEFALLBACK,
	           &o->casefallback);
	apply_bool(cf->polling, o->set, SET_POLLING, &o->force_polling);
	apply_bool(cf->nonempty, o->set, SET_NONEMPTY, &o->nonempty);
	apply_bool(cf->multithreaded, o->set, SET_MULTITHREADED,
	           &o->multithreaded);
	apply_bool(cf->strict, o->set, SET_STRICT, &o->strict);
	if (cf->debounce_ms != SFS_UNSET && !(o->set & SET_DEBOUNCE))
		o->debounce_ms = (unsigned)cf->debounce_ms;
	if (cf->poll_interval_ms != SFS_UNSET &&
	    !(o->set & SET_POLL_INTERVAL))
		o->poll_interval_ms = (unsigned)cf->poll_interval_ms;
	if (cf->fetch_interval_s != SFS_UNSET &&
	    !(o->set & SET_FETCH_INTERVAL))
		o->fetch_interval_s = (unsigned)cf->fetch_interval_s;
	if (cf->cache_dir && !(o->set & SET_CACHE_DIR) &&
	    set_cache_dir(o, cf->cache_dir) != 0)
		return 2;
	if (cf->retain_mib != SFS_UNSET && !(o->set & SET_RETAIN))
		o->retain_mib = (unsigned)cf->retain_mib;
	if (cf->allow_other == 1 && !(o->set & SET_ALLOW_OTHER) &&
	    fuse_opt_add_opt(fuse_opts, "allow_other") < 0)
		return usage_error("%s", strerror(ENOMEM));
	if (cf->docs_dir && !(o->set & SET_DOCS_DIR) &&
	    set_docs_dir(o, cf->docs_dir) != 0)
		return 2;
	if (!*first && cf->mountpoint)
		*first = cf->mountpoint;
	return 0;
}

/*
 * --lock FILE, or the configuration's lock: when the command line names
 * no root: the lock's sources are the roots, and only they.  Returns 0,
 * or 2 after printing why not.
 */
static int take_lock(struct mount_options *o)
{
	const char *file = o->lock_file;

	if (file && o->roots.n > 0)
		return usage_error("--lock names every source: it cannot be "
		                   "combined with --skills-dir, --source, -o "
		                   "skills_dir or a mount source");
	if (!file && o->roots.n == 0)
		file = o->cf.lock;
	if (!file)
		return 0;
	o->lock = calloc(1, sizeof(*o->lock));
	if (!o->lock)
		return usage_error("%s", strerror(ENOMEM));
	if (lockfile_load("skillsfs", file, o->lock) < 0)
		return 2;
	if (roots_from_lock(&o->roots, o->lock,
	                    o->lock_file ? "--lock" : "config lock") < 0)
		return usage_error("%s", strerror(ENOMEM));
	return 0;
}

/* Each root's options: those of the config file's source of its URL. */
static int take_source_options(struct mount_options *o)
{
	o->root_options = cli_source_options(&o->roots, &o->cf);
	return o->root_options ? 0 : usage_error("%s", strerror(ENOMEM));
}

int options_parse(int argc, char **argv, struct mount_options *o)
{
	const char *prog = argc > 0 ? argv[0] : "skillsfs";
	const char *first = NULL;
	char *fuse_opts = NULL;

	memset(o, 0, sizeof(*o));
	sfs_config_file_free(&o->cf);   /* all unset */
	o->casefallback = true;
	o->poll_interval_ms = DEFAULT_POLL_INTERVAL_MS;
	o->debounce_ms = DEFAULT_DEBOUNCE_MS;
	o->settle_max_ms = DEFAULT_SETTLE_MAX_MS;
	o->busy_poll_us = DEFAULT_BUSY_POLL_US;
	o->retain_mib = DEFAULT_RETAIN_MIB;
	o->fetch_interval_s = DEFAULT_FETCH_INTERVAL_S;
	o->read_timeout_s = DEFAULT_READ_TIMEOUT_S;

	int rc = parse_args(argc, argv, o, &fuse_opts, &first);
	if (rc == 0 && o->config && !o->help && !o->version)
		rc = apply_config(o, &fuse_opts, &first);
	if (rc == 0 && !o->help && !o->version)
		rc = take_lock(o);
	if (rc) {
		free(fuse_opts);
		options_free(o);
		return rc;
	}
	if (o->help || o->version) {
		free(fuse_opts);
		return 0;
	}
	if (!o->mountpoint && first) {
		o->mountpoint = strdup(first);
		if (!o->mountpoint)
			rc = usage_error("%s", strerror(ENOMEM));
	}
	if (rc == 0 && !o->mountpoint)
		rc = usage_error("%s", "missing MOUNTPOINT");
	if (rc == 0 && !o->cache_dir)
		o->cache_dir = cli_default_cache_dir();
	if (rc == 0 && o->roots.n == 0) {
		int added = roots_fallback(&o->roots, &o->cf);
		if (added < 0)
			rc = usage_error("cannot read the skills directories: "
			                 "%s", strerror(-added));
		else if (added == 0)
			rc = usage_error("%s", "no skills directory: give "
			       "--skills-dir DIR (or -o skills_dir=DIR, "
			       "--config FILE, or set SKILLSFS_SKILLS_DIRS); "
			       "none of the standard folders exists: "
			       ROOTS_DEFAULT_LIST);
	}
	if (rc == 0)
		rc = take_source_options(o);
	if (rc == 0)
		rc = build_fuse_args(o, prog, fuse_opts);
	else
		free(fuse_opts);
	if (rc)
		options_free(o);
	return rc;
}

void options_free(struct mount_options *o)
{
	free(o->mountpoint);
	free(o->docs_dir);
	free(o->cache_dir);
	free(o->config);
	free(o->root_options);
	sfs_config_file_free(&o->cf);
	free(o->lock_file);
	if (o->lock)
		sfs_lock_free(o->lock);
	free(o->lock);
	roots_free(&o->roots);
	fuse_opt_free_args(&o->fuse_args);
	memset(o, 0, sizeof(*o));
}
