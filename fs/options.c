/*
 * options.c - the mount command line.
 *
 *   skillsfs MOUNTPOINT [--skills-dir DIR]... [--source URL]...
 *            [--config FILE] [-f] [-d] [-s] [-o OPT[,OPT]]
 *   skillsfs MOUNTPOINT --lock FILE [--config FILE] ...
 *   skillsfs SOURCE MOUNTPOINT -o OPTS        (mount.fuse3, /etc/fstab)
 *
 * fuse_opt_parse reads it, with a template for each row of
 * shared/mount_opts.h (-o NAME, -o NAME=VALUE) and for the long options.
 * Our own -o options are taken out; every other one is passed to libfuse,
 * which rejects what it does not know.  The mount is always read-only and
 * named fsname=skillsfs, subtype=skillsfs.  A configuration file fills in
 * what the command line leaves unsaid; roots come from --skills-dir and
 * --source (in the order given), else the file, else
 * $SKILLSFS_SKILLS_DIRS, else the standard folders.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lockfile.h"
#include "options.h"
#include "source.h"

/* "skillsfs: MESSAGE", a pointer to --help; returns CLI_EXIT_USAGE. */
#define usage_error(...) cli_usage_error("skillsfs", __VA_ARGS__)

/* ---- --help ------------------------------------------------------------- */

#define HELP_INDENT 27   /* where a row's help starts */
#define HELP_WIDTH 79

/* text from column col on, wrapped at HELP_WIDTH, continued at HELP_INDENT */
static void print_wrapped(FILE *out, const char *text, int col)
{
	bool first = true;

	for (const char *p = text + strspn(text, " "); *p;
	     p += strspn(p, " ")) {
		int word = (int)strcspn(p, " ");
		if (!first && col + 1 + word > HELP_WIDTH) {
			fprintf(out, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", word, p);
		col += word;
		p += word;
		first = false;
	}
	fputc('\n', out);
}

/* "    -o NAME=ARG   help (default N)" */
static void print_row(FILE *out, const struct sfs_opt_row *r)
{
	const char *arg = sfs_opt_arg(r->kind);
	char help[512];
	int n = fprintf(out, "    -o %s%s%s", r->name, *arg ? "=" : "", arg);
	int col = n < HELP_INDENT - 1 ? HELP_INDENT : n + 2;

	const char *const *words = sfs_opt_choices((enum sfs_opt)(r -
	                                            sfs_opt_row(0)));
	if (words)
		snprintf(help, sizeof(help), "%s (default %s)", r->help,
		         words[r->def]);
	else if (r->kind == SFS_OPTK_SIZE && r->def &&
	         r->def % (1L << 30) == 0)
		snprintf(help, sizeof(help), "%s (default %ldG)", r->help,
		         r->def >> 30);
	else if (sfs_opt_is_number(r->kind) && r->def >= r->min)
		snprintf(help, sizeof(help), "%s (default %ld)", r->help,
		         r->def);
	else
		snprintf(help, sizeof(help), "%s", r->help);
	fprintf(out, "%*s", col - n, "");
	print_wrapped(out, help, col);
}

static void print_table(FILE *out)
{
	for (int id = 0; id < SFS_NOPTS; id++)
		print_row(out, sfs_opt_row(id));
}

/* --source URL: what each kind of source named by a URL says of its roots
 * (source_form.c's table), so that a kind's help comes with its line. */
static void print_sources(FILE *out)
{
	char help[2048];
	size_t n = (size_t)snprintf(help, sizeof(help), "skills from elsewhere "
	                            "(repeatable; ordered with --skills-dir):");
	const struct sfs_source_form *f;
	const char *sep = "";

	for (size_t i = 0; (f = sfs_source_form_at(i)) && n < sizeof(help);
	     i++) {
		if (!f->help)
			continue;
		n += (size_t)snprintf(help + n, sizeof(help) - n, "%s %s", sep,
		                      f->help);
		sep = "; or";
	}
	int col = fprintf(out, "    --source URL");
	fprintf(out, "%*s", HELP_INDENT - col, "");
	print_wrapped(out, help, HELP_INDENT);
}

void options_usage(FILE *out, const char *prog)
{
	fprintf(out,
"usage: %s MOUNTPOINT [--skills-dir DIR]... [--source URL]... [--config FILE]\n"
"                [--docs-dir DIR] [-f] [-d] [-s] [-o OPT[,OPT...]]\n"
"       %s MOUNTPOINT --lock FILE [--config FILE] [--docs-dir DIR] ...\n"
"       %s check [--skills-dir DIR]... [--source URL]... [--config FILE]\n"
"             [--strict] [--json] [DIR]...\n"
"       %s export --anthropic OUTDIR [--skills-dir DIR]... [--source URL]...\n"
"             [--config FILE]\n"
"       %s lock [-o FILE] MOUNTPOINT\n"
"       %s status [--json] [--config FILE] [MOUNTPOINT]\n"
"       %s gc [--config FILE] [--cache-dir DIR] [--lock FILE] [--max SIZE]\n"
"             [--dry-run]\n"
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
"                           ./.agents/skills, ... (see skillsfs(1))\n",
	        prog, prog, prog, prog, prog, prog, prog, prog);
	print_sources(out);
	fputs(
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
"skillsfs -o options:\n", out);
	print_table(out);
	fputs(
"\n"
"SOURCE (mount -t fuse.skillsfs SOURCE MOUNTPOINT, or the first column of\n"
"/etc/fstab) is a colon-separated list of skills directories, or 'none'\n"
"or 'skillsfs' to take them from -o skills_dir= or -o config=.\n"
"\n"
"FUSE options (always read-only, fsname=skillsfs, subtype=skillsfs):\n",
	      out);
}

/* ---- where a row lands -------------------------------------------------- */

/* The member of struct mount_options each row of the table sets. */
static const size_t field_offset[SFS_NOPTS] = {
#define FIELD_OFFSET(id, name, kind, field, ...) \
	[SFS_OPT_##id] = offsetof(struct mount_options, field),
	SFS_MOUNT_OPTS(FIELD_OFFSET)
#undef FIELD_OFFSET
};

/* A row's kind must fit its field's type: store() writes through it. */
enum { FIELD_BOOL, FIELD_UNSIGNED, FIELD_BYTES, FIELD_TEXT, FIELD_ROOTS };
#define FIELD_TYPE(f) _Generic((f), bool: FIELD_BOOL, \
	unsigned: FIELD_UNSIGNED, long long: FIELD_BYTES, char *: FIELD_TEXT, \
	struct roots: FIELD_ROOTS)
#define TYPE_OF_FLAG FIELD_BOOL
#define TYPE_OF_NOFLAG FIELD_BOOL
#define TYPE_OF_FUSE_FLAG FIELD_BOOL
#define TYPE_OF_MS FIELD_UNSIGNED
#define TYPE_OF_US FIELD_UNSIGNED
#define TYPE_OF_SECONDS FIELD_UNSIGNED
#define TYPE_OF_MIB FIELD_UNSIGNED
#define TYPE_OF_COUNT FIELD_UNSIGNED
#define TYPE_OF_CHOICE FIELD_UNSIGNED
#define TYPE_OF_SIZE FIELD_BYTES
#define TYPE_OF_FOLDER FIELD_TEXT
#define TYPE_OF_FILE FIELD_TEXT
#define TYPE_OF_FOLDERS FIELD_ROOTS
#define CHECK_FIELD(id, name, kind, field, ...)                              \
	_Static_assert(FIELD_TYPE(((struct mount_options *)0)->field) ==     \
	               TYPE_OF_##kind, "-o " name ": the type of its field");
SFS_MOUNT_OPTS(CHECK_FIELD)
#undef CHECK_FIELD

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

/* A folder made absolute, or a file as given, into *field; `shown` is
 * the option as the user wrote it (--docs-dir, -o cache_dir). */
static int set_text(char **field, const char *text, bool folder,
                    const char *shown)
{
	if (!*text)
		return usage_error("%s needs a %s", shown,
		                   folder ? "folder" : "file");
	errno = 0;
	char *copy = folder ? sfs_path_absolute(text) : strdup(text);
	if (!copy)
		return usage_error("%s: cannot use '%s': %s", shown, text,
		                   strerror(errno ? errno : ENOMEM));
	free(*field);
	*field = copy;
	return 0;
}

/* Row id's value into its field: a flag's 0 or 1, a number, or text. */
static int store(struct mount_options *o, enum sfs_opt id, long number,
                 const char *text, const char *shown)
{
	void *field = (char *)o + field_offset[id];

	switch (sfs_opt_row(id)->kind) {
	case SFS_OPTK_FLAG:
	case SFS_OPTK_FUSE_FLAG:
		*(bool *)field = number != 0;
		return 0;
	case SFS_OPTK_NOFLAG:
		*(bool *)field = number == 0;
		return 0;
	case SFS_OPTK_FOLDER:
		return set_text(field, text, true, shown);
	case SFS_OPTK_FILE:
		return set_text(field, text, false, shown);
	case SFS_OPTK_FOLDERS:
		return add_dirs(o, text, "skills_dir=");
	case SFS_OPTK_SIZE:
		*(long long *)field = number;
		return 0;
	default:
		*(unsigned *)field = (unsigned)number;
		return 0;
	}
}

/* Every flag and number at its row's default. */
static void set_defaults(struct mount_options *o)
{
	for (int id = 0; id < SFS_NOPTS; id++) {
		const struct sfs_opt_row *r = sfs_opt_row(id);
		void *field = (char *)o + field_offset[id];
		if (sfs_opt_is_flag(r->kind))
			*(bool *)field = r->def != 0;
		else if (r->kind == SFS_OPTK_SIZE)
			*(long long *)field = r->def;
		else if (sfs_opt_is_number(r->kind))
			*(unsigned *)field = (unsigned)r->def;
	}
}

_Static_assert(SFS_NOPTS <= 64, "mount_options.set has a bit per row");

/* Whether the command line set row id's field (under any of its names:
 * nocasefallback and casefallback share one). */
static bool given_on_command_line(const struct mount_options *o,
                                  enum sfs_opt id)
{
	for (int i = 0; i < SFS_NOPTS; i++)
		if ((o->set >> i & 1) && field_offset[i] == field_offset[id])
			return true;
	return false;
}

/* ---- the command line, with fuse_opt_parse ---------------------------- */

/* fuse_opt keys: a row's is its SFS_OPT_ id; these follow. */
enum {
	KEY_HELP = SFS_NOPTS, KEY_VERSION, KEY_FOREGROUND, KEY_DEBUG,
	KEY_SINGLE, KEY_DROP, KEY_SKILLS_DIR, KEY_SOURCE, KEY_LOCK,
};

/* A row as -o NAME and -o NAME=VALUE: take_row says which it takes. */
#define ROW_TEMPLATES(id, name, ...) \
	FUSE_OPT_KEY(name, SFS_OPT_##id), FUSE_OPT_KEY(name "=", SFS_OPT_##id),
/* A long option with a value, --NAME=VALUE (join_values() makes
 * --NAME VALUE so: a "--NAME " template would take --NAMEX too). */
#define LONG_OPT(name, key) FUSE_OPT_KEY(name "=", key)

static const struct fuse_opt templates[] = {
	SFS_MOUNT_OPTS(ROW_TEMPLATES)
	LONG_OPT("--skills-dir", KEY_SKILLS_DIR),
	LONG_OPT("--source", KEY_SOURCE),
	LONG_OPT("--config", SFS_OPT_CONFIG),
	LONG_OPT("--docs-dir", SFS_OPT_DOCS_DIR),
	LONG_OPT("--lock", KEY_LOCK),
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	FUSE_OPT_KEY("-f", KEY_FOREGROUND),
	FUSE_OPT_KEY("-d", KEY_DEBUG),
	FUSE_OPT_KEY("debug", KEY_DEBUG),
	FUSE_OPT_KEY("-s", KEY_SINGLE),
	/* always read-only, always ours; mount(8) passes rw */
	FUSE_OPT_KEY("ro", KEY_DROP),
	FUSE_OPT_KEY("rw", KEY_DROP),
	FUSE_OPT_KEY("fsname=", KEY_DROP),
	FUSE_OPT_KEY("subtype=", KEY_DROP),
	FUSE_OPT_END
};

/* What fuse_opt_parse's proc works on. */
struct parse {
	struct mount_options *o;
	char *fuse_opts;       /* the -o options handed to libfuse */
	char *first;           /* the first positional argument (owned:
	                          fuse_opt_parse's arguments are freed) */
	bool single;           /* -s */
	int status;            /* a usage error's exit status, or 0 */
};

/* One of the table's options: `arg` as given, `val` after its "=" or
 * NULL; `shown` names it for an error ("-o debounce", "--docs-dir"). */
static int take_row(struct parse *p, enum sfs_opt id, const char *arg,
                    const char *val, const char *shown)
{
	const struct sfs_opt_row *r = sfs_opt_row(id);
	long number = 1;

	if (sfs_opt_is_flag(r->kind) && val)
		return usage_error("%s takes no value", shown);
	if (!sfs_opt_is_flag(r->kind) && !val)
		return usage_error("%s needs a value: -o %s=%s", shown,
		                   r->name, sfs_opt_arg(r->kind));
	if (sfs_opt_is_number(r->kind) &&
	    sfs_opt_number(r, val, &number) < 0) {
		char expected[64];
		sfs_opt_expected(r, expected, sizeof(expected));
		return usage_error("-o %s: expected %s", arg, expected);
	}
	p->o->set |= 1ULL << id;
	return store(p->o, id, number, val, shown);
}

static int take_positional(struct mount_options *o, const char *arg,
                           char **first)
{
	if (!*first) {
		*first = strdup(arg);
		return *first ? 0 : usage_error("%s", strerror(ENOMEM));
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

/* What no template matched: "-" is a positional argument, another
 * argument an error, an -o option libfuse's to judge. */
static int take_other(struct parse *p, const char *arg)
{
	if (!strcmp(arg, "-"))
		return take_positional(p->o, arg, &p->first);
	if (arg[0] == '-')
		return usage_error("unknown option '%s'", arg);
	if (fuse_opt_add_opt_escaped(&p->fuse_opts, arg) < 0)
		return usage_error("%s", strerror(ENOMEM));
	return 0;
}

static int take(struct parse *p, const char *arg, int key)
{
	struct mount_options *o = p->o;
	size_t name_len = strcspn(arg, "=");
	const char *val = arg[name_len] ? arg + name_len + 1 : NULL;
	char shown[64];

	snprintf(shown, sizeof(shown), "%s%.*s", arg[0] == '-' ? "" : "-o ",
	         (int)name_len, arg);
	if (key == FUSE_OPT_KEY_NONOPT)
		return take_positional(o, arg, &p->first);
	if (key == FUSE_OPT_KEY_OPT)
		return take_other(p, arg);
	switch (key) {
	case KEY_HELP:
		o->help = true;
		return 0;
	case KEY_VERSION:
		o->version = true;
		return 0;
	case KEY_DEBUG:   /* -d implies -f */
		o->debug = o->foreground = true;
		return 0;
	case KEY_FOREGROUND:
		o->foreground = true;
		return 0;
	case KEY_SINGLE:
		p->single = true;
		return 0;
	case KEY_DROP:
		return 0;
	case KEY_SKILLS_DIR:
		if (!*val || roots_add(&o->roots, val, "--skills-dir") < 0)
			return usage_error("bad --skills-dir '%s'", val);
		return 0;
	case KEY_SOURCE:
		return add_source(o, val);
	case KEY_LOCK:
		return set_text(&o->lock_file, val, false, shown);
	default:
		return take_row(p, key, arg, val, shown);
	}
}

/* fuse_opt_parse's proc: 0 drops the argument (every one is ours to
 * keep or hand on), -1 stops at a usage error. */
static int take_arg(void *data, const char *arg, int key,
                    struct fuse_args *outargs)
{
	struct parse *p = data;

	(void)outargs;
	p->status = take(p, arg, key);
	return p->status ? -1 : 0;
}

/* Whether argument a is a long option whose value may follow it. */
static bool takes_value(const char *a)
{
	size_t n = strlen(a);

	for (const struct fuse_opt *t = templates; t->templ; t++)
		if (t->templ[0] == '-' && !strncmp(t->templ, a, n) &&
		    !strcmp(t->templ + n, "="))
			return true;
	return false;
}

/* argv as fuse_opt_parse gets it: each --NAME VALUE joined into
 * --NAME=VALUE; an option whose value is missing is an error here, where
 * it can be named. */
static int join_values(int argc, char **argv, struct fuse_args *args)
{
	bool rest = false;   /* after "--": all positional */

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *joined = NULL;
		bool sep = i > 0 && !rest && (!strcmp(a, "-o") || takes_value(a));
		if (sep && i + 1 == argc)
			return usage_error("option '%s' needs a value", a);
		if (sep && a[1] == '-' &&
		    asprintf(&joined, "%s=%s", a, argv[++i]) < 0)
			return usage_error("%s", strerror(ENOMEM));
		int rc = fuse_opt_add_arg(args, joined ? joined : a);
		if (rc == 0 && sep && !joined)
			rc = fuse_opt_add_arg(args, argv[++i]);   /* -o's */
		free(joined);
		if (rc < 0)
			return usage_error("%s", strerror(ENOMEM));
		rest = rest || (i > 0 && !strcmp(a, "--"));
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct parse *p)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);

	p->status = join_values(argc, argv, &args);
	if (!p->status &&
	    fuse_opt_parse(&args, p, templates, take_arg) < 0 && !p->status)
		p->status = usage_error("%s", strerror(ENOMEM));
	fuse_opt_free_args(&args);
	if (p->status)
		return p->status;
	if (p->single) {
		p->o->multithreaded = false;
		p->o->set |= 1ULL << SFS_OPT_MULTITHREADED;
	}
	return 0;
}

/* What the configuration file says where the command line said nothing. */
static int apply_config(struct parse *p)
{
	struct mount_options *o = p->o;
	const struct sfs_config_file *cf = &o->cf;
	int rc = 0;

	if (conffile_load("skillsfs", o->config, &o->cf) < 0)
		return 2;
	/* read again at SIGHUP (accept:), after a daemon's chdir("/") */
	char *abs = sfs_path_absolute(o->config);
	if (!abs)
		return usage_error("%s", strerror(ENOMEM));
	free(o->config);
	o->config = abs;
	for (int id = 0; id < SFS_NOPTS && rc == 0; id++)
		if (cf->options[id].given && !given_on_command_line(o, id))
			rc = store(o, id, cf->options[id].number,
			           cf->options[id].text, sfs_opt_row(id)->name);
	if (rc == 0 && cf->docs_dir &&
	    !given_on_command_line(o, SFS_OPT_DOCS_DIR))
		rc = store(o, SFS_OPT_DOCS_DIR, 0, cf->docs_dir,
		           sfs_opt_row(SFS_OPT_DOCS_DIR)->name);
	if (rc == 0 && !p->first && cf->mountpoint &&
	    !(p->first = strdup(cf->mountpoint)))
		rc = usage_error("%s", strerror(ENOMEM));
	return rc;
}

/* libfuse's arguments: its -o options, ours it also takes (allow_other),
 * and what every skillsfs mount is. */
static int build_fuse_args(struct mount_options *o, const char *prog,
                           char *user_opts)
{
	char *opts = user_opts;
	int rc = 0;

	for (int id = 0; id < SFS_NOPTS && rc == 0; id++)
		if (sfs_opt_row(id)->kind == SFS_OPTK_FUSE_FLAG &&
		    *(bool *)((char *)o + field_offset[id]))
			rc = fuse_opt_add_opt(&opts, sfs_opt_row(id)->name);
	if (rc < 0 ||
	    fuse_opt_add_opt(&opts, "ro") < 0 ||
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
	char why[1024];
	const char *root = cli_kind_missing(&o->roots, why, sizeof(why));

	if (root)
		return cli_fail("skillsfs", "%s: %s", root, why);
	o->root_options = cli_source_options(&o->roots, &o->cf);
	return o->root_options ? 0 : usage_error("%s", strerror(ENOMEM));
}

int options_parse(int argc, char **argv, struct mount_options *o)
{
	const char *prog = argc > 0 ? argv[0] : "skillsfs";
	struct parse p = { .o = o };

	memset(o, 0, sizeof(*o));
	sfs_config_file_free(&o->cf);   /* nothing given */
	set_defaults(o);

	int rc = parse_args(argc, argv, &p);
	if (rc == 0 && o->config && !o->help && !o->version)
		rc = apply_config(&p);
	if (rc == 0 && !o->help && !o->version)
		rc = take_lock(o);
	if (rc || o->help || o->version) {
		free(p.fuse_opts);
		free(p.first);
		if (rc)
			options_free(o);
		return rc;
	}
	if (!o->mountpoint) {
		o->mountpoint = p.first;
		p.first = NULL;
	}
	free(p.first);
	if (!o->mountpoint)
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
		rc = build_fuse_args(o, prog, p.fuse_opts);
	else
		free(p.fuse_opts);
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
