/*
 * status.c - `skillsfs status [MOUNTPOINT]`: what a running mount serves
 * and what is wrong with it, for a person, read from the mount's
 * status.json (never from the sources): its roots and what each serves,
 * the counts of skills, what waits to settle, every finding under its
 * skill, and the size of the cache folder when a root is fetched into
 * it.  With no MOUNTPOINT, every skillsfs mount of the user.  What
 * status.json quotes (names, paths, URLs, what a server said) is
 * written visible (visible.c); --json writes the document as it is.
 */
#include <errno.h>
#include <fts.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli.h"
#include "contract.h"
#include "skillsfs.h"

#define CMD "skillsfs status"
#define SKILLSFS_FSTYPE "fuse.skillsfs"

/* Exit statuses besides 0 (nothing wrong) and CLI_EXIT_USAGE. */
enum { STATUS_WRONG = 1, STATUS_UNREADABLE = 3 };

static const char usage_text[] =
	"usage: skillsfs status [--json] [--config FILE] [MOUNTPOINT]\n"
	"\n"
	"Sum up the skillsfs mount at MOUNTPOINT from its status.json: its\n"
	"roots and what each serves, how many skills are served, invalid and\n"
	"shadowed, what waits to settle, every finding under its skill, and\n"
	"the size of the cache folder.  Without MOUNTPOINT, every skillsfs\n"
	"mount of yours.\n"
	"\n"
	"  --json         print the mount's status.json as it is (without\n"
	"                 MOUNTPOINT: an array of {\"mountpoint\", \"status\"})\n"
	"  --config FILE  the cache folder of a configuration file, for a\n"
	"                 mount whose status.json names none\n"
	"  --help         print this help and exit\n"
	"  --version      print the version and exit\n"
	"\n"
	"Exit status: 0 when nothing is wrong, 1 when a mount reports errors\n"
	"(an invalid or unlocked skill, an error among its findings), 2 on a\n"
	"usage error, 3 when a MOUNTPOINT is no skillsfs mount or its daemon\n"
	"does not answer.\n";

struct status_opts {
	const char *mount;     /* or NULL: every mount of the user */
	bool json;
	const struct sfs_config_file *cf;   /* --config FILE's */
};

static const struct cli_option options[] = {
	CLI_FLAG("json", 'j', struct status_opts, json),
	{ NULL, 0, 0, 0 },
};

/* ---- the command line ------------------------------------------------- */

static int take_mount(void *opts, char **argv, int n)
{
	struct status_opts *o = opts;

	o->mount = n ? argv[0] : NULL;
	return -1;
}

/* ---- which mounts ----------------------------------------------------- */

struct mount_list {
	char **points;         /* owned */
	size_t n;
	bool failed;           /* out of memory */
};

static void mount_list_free(struct mount_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->points[i]);
	free(l->points);
}

/* A skillsfs mount is the user's when its top folder is: the daemon
 * gives it its own uid, and the kernel keeps other users out of it
 * (EACCES, before it asks the daemon).  One whose daemon is gone
 * (ENOTCONN) is listed too, so that its summary says so. */
static void take_mine(const char *point, const char *type, void *arg)
{
	struct mount_list *l = arg;
	struct stat st;

	if (strcmp(type, SKILLSFS_FSTYPE) != 0)
		return;
	if (stat(point, &st) < 0 ? errno != ENOTCONN : st.st_uid != getuid())
		return;
	char **grown = realloc(l->points, (l->n + 1) * sizeof(*grown));
	char *copy = strdup(point);
	if (!grown || !copy) {
		free(copy);
		if (grown)
			l->points = grown;
		l->failed = true;
		return;
	}
	l->points = grown;
	l->points[l->n++] = copy;
}

/* What to do about a mount whose daemon is gone: it answers ENOTCONN
 * (or, from the kernel's caches, what it said before it died). */
static void say_gone(const char *point)
{
	cli_fail(CMD, "%s: the skillsfs daemon that served it is gone (%s): "
	         "unmount it with 'fusermount3 -u %s', then mount it again",
	         point, strerror(ENOTCONN), point);
}

/* Whether the folder at real (as `arg` named it) is a skillsfs mount's
 * top folder; says why not when it is not. */
static bool is_mount_point(const char *arg, const char *real)
{
	char *holder = sfs_skillsfs_mount_of(real);
	bool is = holder && strcmp(holder, real) == 0;

	if (!holder)
		cli_fail(CMD, "%s is not a skillsfs mount: name the folder "
		         "skillsfs was mounted on ('skillsfs status' with no "
		         "argument lists yours)", arg);
	else if (!is)
		cli_fail(CMD, "%s is inside the skillsfs mount %s: name that "
		         "folder", arg, holder);
	free(holder);
	return is;
}

/* The mount point `arg` names, realpath'd into *point (malloc'd).
 * Returns 0, or the exit status after saying why it is no mount. */
static int mount_point_of(const char *arg, char **point)
{
	char *real = realpath(arg, NULL);

	*point = NULL;
	if (!real) {
		if (errno == ENOTCONN)
			say_gone(arg);
		else
			cli_fail(CMD, "%s: %s", arg, strerror(errno));
		return STATUS_UNREADABLE;
	}
	if (!is_mount_point(arg, real)) {
		free(real);
		return STATUS_UNREADABLE;
	}
	*point = real;
	return 0;
}

/* ---- reading status.json ---------------------------------------------- */

/* status.json of the mount at point, its text in *text (malloc'd).
 * Returns the parsed document, or NULL after saying why. */
static cJSON *read_status(const char *point, char **text, size_t *len)
{
	char *path = sfs_mount_path(point, SFS_MOUNT_STATUS);
	cJSON *doc = NULL;
	struct statvfs sv;
	/* statfs always reaches the daemon; a read of status.json may be
	 * answered from the page cache after it died */
	int rc = statvfs(point, &sv) < 0 ? -errno :
	         path ? cli_read_whole(path, text, len) : -ENOMEM;

	if (rc == -ENOTCONN) {
		say_gone(point);
		*text = NULL;
	} else if (rc == -EACCES) {
		/* The kernel keeps a FUSE mount to its owner (allow_other
		 * aside), root included. */
		cli_fail(CMD, "%s is another user's skillsfs mount: cannot read "
		         "%s: %s; run skillsfs status as its owner", point, path,
		         strerror(-rc));
		*text = NULL;
	} else if (rc < 0) {
		cli_fail(CMD, "cannot read %s: %s", path ? path : point,
		         strerror(-rc));
		*text = NULL;
	} else if (!sfs_status_generation(*text, *len) ||
	           !(doc = cJSON_ParseWithLength(*text, *len)) ||
	           !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(
	                   doc, SFS_STATUS_ROOTS))) {
		cli_fail(CMD, "%s is not a skillsfs status document: it names "
		         "no generation and roots", path);
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(path);
	return doc;
}

static const char *text_of(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static double number_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *plural(double n)
{
	return n == 1 ? "" : "s";
}

/* ---- the cache folder ------------------------------------------------- */

/* The bytes of the files under dir; -errno when it cannot be walked. */
static long long folder_size(const char *dir)
{
	char *paths[] = { (char *)dir, NULL };
	FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	long long total = 0;
	FTSENT *e;

	if (!fts)
		return -errno;
	while ((e = fts_read(fts)))
		if (e->fts_info == FTS_F)
			total += e->fts_statp->st_size;
	fts_close(fts);
	return total;
}

/* Git and MCP roots are fetched into the cache folder, which status.json
 * names (a daemon older than that: --config's, else the default one). */
static void print_cache(const cJSON *st, const struct sfs_config_file *cf)
{
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(st, SFS_STATUS_ROOTS);
	const char *named = text_of(st, SFS_STATUS_CACHE_DIR);
	const char *file_dir = cf->options[SFS_OPT_CACHE_DIR].text;
	const cJSON *root;
	bool fetched = false;

	cJSON_ArrayForEach(root, roots)
		fetched |= text_of(root, SFS_STATUS_ROOT_KIND) != NULL;
	if (!fetched)
		return;
	char *dir = named ? strdup(named) : file_dir ? strdup(file_dir) :
	            cli_default_cache_dir();
	if (!dir)
		return;
	long long size = folder_size(dir);
	const cJSON *max = cJSON_GetObjectItemCaseSensitive(st,
	                                                    SFS_STATUS_CACHE_MAX);
	cli_printf_visible(stdout, "cache folder: %s: ", dir);
	if (size < 0)
		printf("unknown size (%s)", strerror((int)-size));
	else
		cli_print_size(size);
	if (cJSON_IsNumber(max) && max->valuedouble > 0) {
		printf(" of ");
		cli_print_size((long long)max->valuedouble);
		printf(" (cache_max)");
	} else if (cJSON_IsNumber(max)) {
		printf(" (no cache_max)");
	}
	printf("%s\n", named ? "" : file_dir ? " (--config's: the mount does "
	       "not say which it uses)" : " (the default: the mount does not "
	       "say which it uses)");
	free(dir);
}

/* ---- the summary ------------------------------------------------------ */

/* Whether the mount's findings say root's first fetch is under way
 * (the daemon serves the other roots meanwhile). */
static bool first_fetch_under_way(const cJSON *st, const char *root)
{
	const cJSON *diags = cJSON_GetObjectItemCaseSensitive(st,
	                                                      "diagnostics");
	const cJSON *d;

	cJSON_ArrayForEach(d, diags) {
		const char *file = text_of(d, SFS_FINDING_FILE);
		const char *m = text_of(d, SFS_FINDING_MESSAGE);
		if (root && file && m && strcmp(file, root) == 0 &&
		    strstr(m, SFS_STATUS_FIRST_FETCH))
			return true;
	}
	return false;
}

static void print_root(const cJSON *st, const cJSON *root)
{
	const char *kind = text_of(root, SFS_STATUS_ROOT_KIND);
	const char *source = text_of(root, "source");
	double skills = number_of(root, "skills");
	const char *path = text_of(root, SFS_STATUS_ROOT_PATH);
	const cJSON *member;

	cli_printf_visible(stdout, "  %s", path ? path : "?");
	if (source)
		cli_printf_visible(stdout, " (from %s)", source);
	if (kind && first_fetch_under_way(st, path)) {
		cli_line_visible(stdout, ", %s: its first fetch is under way "
		                 "(its skills are served once it ends)", kind);
		return;
	}
	if (kind) {
		cli_printf_visible(stdout, ", %s", kind);
		/* what the generation serves of it, under the source's own
		 * name: a git root's commit, an MCP server's listing */
		cJSON_ArrayForEach(member, root) {
			if (strcmp(member->string, SFS_STATUS_ROOT_PATH) &&
			    strcmp(member->string, SFS_STATUS_ROOT_KIND) &&
			    strcmp(member->string,
			           SFS_STATUS_ROOT_FETCH_EVERY) &&
			    strcmp(member->string, "source") &&
			    strcmp(member->string, "exists") &&
			    strcmp(member->string, "skills"))
				cli_printf_visible(stdout, " %s %s",
				                   member->string,
				                   cJSON_IsString(member) ?
				                   member->valuestring : "unknown");
		}
	}
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "exists")))
		printf(": missing\n");
	else
		printf(": serves %.0f skill%s\n", skills, plural(skills));
}

/* "FILE:LINE:COL: severity: FIELD: MESSAGE", as skillsfs check prints
 * a finding, without what it does not name; a security finding has its
 * rule and risk in place of both: "security/RULE (high): MESSAGE". */
static void print_finding(const cJSON *d, const char *indent)
{
	const char *file = text_of(d, SFS_FINDING_FILE);
	const char *field = text_of(d, "field");
	const char *rule = text_of(d, SFS_FINDING_RULE);
	const char *severity = text_of(d, SFS_FINDING_SEVERITY);
	double line = number_of(d, SFS_FINDING_LINE);
	double column = number_of(d, "column");

	fputs(indent, stdout);
	if (file && line > 0)
		cli_printf_visible(stdout, "%s:%.0f:%.0f: ", file, line,
		                   column);
	else if (file)
		cli_printf_visible(stdout, "%s: ", file);
	if (rule)
		cli_printf_visible(stdout, "%s (%s): ", rule,
		                   severity ? severity : "?");
	else
		cli_printf_visible(stdout, "%s: ", severity ? severity : "note");
	if (!rule && field && *field)
		cli_printf_visible(stdout, "%s: ", field);
	cli_put_visible(stdout, text_of(d, SFS_FINDING_MESSAGE));
	putchar('\n');
}

/* Each skill that is not simply served, or has findings, with them. */
static void print_skills(const cJSON *skills)
{
	const cJSON *sk, *d;

	cJSON_ArrayForEach(sk, skills) {
		const char *state = text_of(sk, "state");
		const cJSON *diags = cJSON_GetObjectItemCaseSensitive(sk, "diagnostics");
		if (state && strcmp(state, "served") == 0 &&
		    !cJSON_GetArraySize(diags))
			continue;
		cli_printf_visible(stdout, "  %s (%s", text_of(sk, "id") ?
		                   text_of(sk, "id") : "?", state ? state : "?");
		if (text_of(sk, "shadowed_by"))
			cli_printf_visible(stdout, " by %s",
			                   text_of(sk, "shadowed_by"));
		printf("): ");
		cli_put_visible(stdout, text_of(sk, "dir"));
		putchar('\n');
		cJSON_ArrayForEach(d, diags)
			print_finding(d, "    ");
		/* trust hold: what the version held back brings */
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(sk,
		                                                      "held_for"))
			print_finding(d, "    held back: ");
		if (state && (strcmp(state, "withheld") == 0 ||
		              strcmp(state, "held") == 0))
			printf("    to serve it after review: add the accept: "
			       "entry that skillsfs check prints for it to "
			       "the configuration file (skillsfs(5)) and send "
			       "the mount SIGHUP\n");
	}
}

static void print_pending(const cJSON *pending)
{
	const cJSON *e;

	if (!cJSON_IsObject(pending))
		return;
	cli_line_visible(stdout, "waiting to settle since %s: %s",
	                 text_of(pending, "since") ? text_of(pending, "since")
	                                           : "?",
	                 text_of(pending, "why") ? text_of(pending, "why")
	                                         : "");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(pending, "stale"))
		cli_line_visible(stdout, "  %s, served as it was: %s",
		                 text_of(e, "id") ? text_of(e, "id") : "?",
		                 text_of(e, "source") ? text_of(e, "source")
		                                      : "");
}

static void print_unlisted(const cJSON *unlisted)
{
	const cJSON *e, *why;

	if (!cJSON_GetArraySize(unlisted))
		return;
	printf("left out of index.json:\n");
	cJSON_ArrayForEach(e, unlisted) {
		cli_printf_visible(stdout, "  %s:", text_of(e, "id") ?
		                   text_of(e, "id") : "?");
		cJSON_ArrayForEach(why, cJSON_GetObjectItemCaseSensitive(e, "reasons"))
			cli_printf_visible(stdout, " %s;",
			                   cJSON_GetStringValue(why) ?
			                   why->valuestring : "");
		putchar('\n');
	}
}

/* Whether the mount reports something wrong: an error among its
 * findings (a root not fetched yet, a skill withheld, ...), an invalid
 * or unlocked skill.  Warnings and shadowed skills are not. */
static bool is_wrong(const cJSON *st)
{
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(st, "counts");

	return number_of(counts, "errors") > 0 ||
	       number_of(counts, "invalid") > 0 ||
	       number_of(counts, "unlocked") > 0;
}

/* Prints the summary of one mount; returns whether something is wrong. */
static bool summarize(const char *point, const cJSON *st,
                      const struct sfs_config_file *cf)
{
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(st, "counts");
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(st, SFS_STATUS_ROOTS);
	const cJSON *diags = cJSON_GetObjectItemCaseSensitive(st, "diagnostics");
	const cJSON *root, *d;
	size_t fetching = 0;
	double served = number_of(counts, "served");
	double invalid = number_of(counts, "invalid");
	double shadowed = number_of(counts, "shadowed");
	double unlocked = number_of(counts, "unlocked");
	double errors = number_of(counts, "errors");
	double held = number_of(counts, "held");
	double warnings = number_of(counts, "warnings");

	cli_line_visible(stdout, "%s: generation %.0f, refreshed %s (%s)",
	                 point, number_of(st, SFS_STATUS_GENERATION),
	                 text_of(st, "last_refresh") ?
	                 text_of(st, "last_refresh") : "?",
	                 text_of(st, "refresh_mode") ?
	                 text_of(st, "refresh_mode") : "?");
	printf("roots:\n");
	cJSON_ArrayForEach(root, roots) {
		print_root(st, root);
		fetching += first_fetch_under_way(st, text_of(root,
		                                       SFS_STATUS_ROOT_PATH));
	}
	printf("skills: %.0f served, %.0f invalid, %.0f shadowed", served,
	       invalid, shadowed);
	if (cJSON_GetObjectItemCaseSensitive(counts, "unlocked"))
		printf(", %.0f unlocked", unlocked);
	/* the trust policy's (skillsfs(1), Trust policy) */
	if (cJSON_GetObjectItemCaseSensitive(counts, "withheld"))
		printf(", %.0f withheld", number_of(counts, "withheld"));
	if (cJSON_GetObjectItemCaseSensitive(counts, "held"))
		printf(", %.0f held as they were", held);
	printf("; %.0f error%s, %.0f warning%s\n", errors, plural(errors),
	       warnings, plural(warnings));
	print_pending(cJSON_GetObjectItemCaseSensitive(st, "pending"));
	if (cJSON_GetArraySize(diags) ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(st, SFS_STATUS_SKILLS)))
		printf("findings:\n");
	if (cJSON_GetArraySize(diags))
		printf("  (the mount)\n");
	cJSON_ArrayForEach(d, diags)
		print_finding(d, "    ");
	print_skills(cJSON_GetObjectItemCaseSensitive(st, SFS_STATUS_SKILLS));
	print_unlisted(cJSON_GetObjectItemCaseSensitive(st, SFS_STATUS_UNLISTED));
	print_cache(st, cf);
	bool wrong = is_wrong(st);
	if (fetching)
		printf("status: not ready: the first fetch of %zu root%s is under "
		       "way; run skillsfs status again when it ends\n", fetching,
		       fetching == 1 ? "" : "s");
	else if (wrong)
		printf("status: something is wrong (see the findings)\n");
	else if (held > 0)
		/* served as they were: nothing wrong, a change waits */
		printf("status: ok, but a change waits for review: %.0f skill%s "
		       "held as %s (see the findings)\n", held, plural(held),
		       held == 1 ? "it was" : "they were");
	else
		printf("status: ok\n");
	return wrong;
}

/* ---- the command ------------------------------------------------------ */

/* One mount: its summary (or its status.json, with --json) on stdout.
 * Returns its exit status. */
static int status_of(const char *point, const struct status_opts *o)
{
	char *text;
	size_t len;
	cJSON *st = read_status(point, &text, &len);
	int rc;

	if (!st)
		rc = STATUS_UNREADABLE;
	else if (o->json)
		rc = fwrite(text, 1, len, stdout) != len ? STATUS_UNREADABLE :
		     is_wrong(st) ? STATUS_WRONG : 0;
	else
		rc = summarize(point, st, o->cf) ? STATUS_WRONG : 0;
	cJSON_Delete(st);
	free(text);
	return rc;
}

/* Every mount of the user, as an array of {mountpoint, status}. */
static int json_of_all(const struct mount_list *l)
{
	cJSON *all = cJSON_CreateArray();
	int worst = 0;

	for (size_t i = 0; all && i < l->n; i++) {
		char *text;
		size_t len;
		cJSON *st = read_status(l->points[i], &text, &len);
		free(text);
		if (!st) {
			worst = STATUS_UNREADABLE;
			continue;
		}
		if (is_wrong(st) && worst < STATUS_WRONG)
			worst = STATUS_WRONG;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "mountpoint", l->points[i]);
		cJSON_AddItemToObject(e, "status", st);
		cJSON_AddItemToArray(all, e);
	}
	char *out = all ? cJSON_Print(all) : NULL;
	cJSON_Delete(all);
	if (!out)
		return cli_fail(CMD, "%s", strerror(ENOMEM));
	printf("%s\n", out);
	free(out);
	return worst;
}

static int status_of_all(const struct status_opts *o)
{
	struct mount_list l = { 0 };
	int worst = 0;

	int rc = sfs_mountinfo_each(take_mine, &l);
	if (rc < 0 || l.failed) {
		mount_list_free(&l);
		return cli_fail(CMD, "cannot read the table of mounts: %s",
		                strerror(rc < 0 ? -rc : ENOMEM));
	}
	if (o->json) {
		worst = json_of_all(&l);
	} else if (!l.n) {
		printf("no skillsfs mount of yours is running: start one with "
		       "'skillsfs MOUNTPOINT --skills-dir DIR' (skillsfs(1)), "
		       "or run skillsfs status as the user who mounted it\n");
	}
	for (size_t i = 0; !o->json && i < l.n; i++) {
		if (i)
			printf("\n");
		rc = status_of(l.points[i], o);
		if (rc > worst)
			worst = rc;
	}
	mount_list_free(&l);
	return worst;
}

static int run(void *opts, struct cli_skills *skills)
{
	struct status_opts *o = opts;
	char *point;
	int rc;

	o->cf = &skills->cf;
	if (!o->mount)
		return status_of_all(o);
	if ((rc = mount_point_of(o->mount, &point)) != 0)
		return rc;
	rc = status_of(point, o);
	free(point);
	return rc;
}

const struct cli_command status_command = {
	.name = CMD, .usage = usage_text, .optstring = ":hV", .run = run,
	.options = options, .opts_size = sizeof(struct status_opts),
	.reads = CLI_READS_CONFIG, .operands = take_mount, .max_operands = 1,
};
