/*
 * export.c - `skillsfs export --anthropic OUTDIR`: the Anthropic upload
 * projection of every valid skill (frontmatter contract, "projection
 * mode").
 *
 * Each skill is written to OUTDIR/<id>/ with a SKILL.md whose frontmatter
 * holds the standard fields only (name, description, license,
 * compatibility, allowed-tools, metadata), the x-personal-mcp block moved
 * into metadata as "x-personal-mcp.<key>" string values (lists and maps
 * JSON-encoded), and the body byte for byte.  Every other file is copied
 * byte-identical with its mode (never set-user-ID or set-group-ID) and
 * modification time.  Other frontmatter
 * keys (Claude Code's, unknown ones) have no standard place and are left
 * out, each named on stderr.
 *
 * The sources are only read.  OUTDIR must not exist or be empty, and
 * must not lie inside a root nor hold one.  The result is built into a
 * catalog again and every finding about it is printed, so an export that
 * the library would not serve clean does not pass silently.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "snapshot.h"
#include "source.h"
#include "skillsfs.h"
#include "trust.h"

#define CMD "skillsfs export"

#define XPM "x-personal-mcp"

static const char usage_text[] =
	"usage: skillsfs export --anthropic OUTDIR [--skills-dir DIR]...\n"
	"                       [--source URL]... [--config FILE]\n"
	"\n"
	"Write every valid skill to OUTDIR/<id>/ in the form the Anthropic\n"
	"skills upload takes: SKILL.md with standard frontmatter only (name,\n"
	"description, license, compatibility, allowed-tools, metadata), the\n"
	"x-personal-mcp block as \"x-personal-mcp.<key>\" entries of metadata,\n"
	"the body and every other file byte-identical.  The sources are not\n"
	"changed.  OUTDIR must not exist or be empty.\n"
	"\n"
	"  --anthropic OUTDIR  where to write (the only projection so far)\n"
	"  --skills-dir DIR    a folder of skills; repeatable, first wins\n"
	"                      (default: as for skillsfs check)\n"
	"  --source URL        a git repository or an MCP server, as for\n"
	"                      skillsfs check: fetched first, and a fetch\n"
	"                      that fails stops the export\n"
	"  --config FILE       roots, sources (with their token_file) and\n"
	"                      include/exclude patterns from a file\n"
	"                      (skillsfs(5))\n"
	"  --help              print this help and exit\n"
	"  --version           print the version and exit\n"
	"\n"
	"Exit status: 0 when every skill was written and the result checks\n"
	"clean, 1 otherwise, 2 on a usage error.\n";

struct export_opts {
	const char *outdir;
};

static const struct cli_option options[] = {
	CLI_TEXT("anthropic", 'a', struct export_opts, outdir),
	{ NULL, 0, 0, 0 },
};

static int check_outdir(void *opts, char **argv, int n)
{
	const struct export_opts *o = opts;

	(void)argv, (void)n;
	if (!o->outdir || !*o->outdir)
		return cli_usage_error(CMD, "%s", "give --anthropic OUTDIR");
	return -1;
}

/* ---- where to write ------------------------------------------------------ */

/* Whether one of the two paths lies inside the other (or they are the
 * same folder). */
static bool nested(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

	if (strncmp(a, b, n) != 0)
		return false;
	if (la == lb)
		return true;
	const char *longer = la > lb ? a : b;
	return n == 1 || longer[n] == '/';   /* n == 1: "/" */
}

/* The real path of `path`, or of its folder plus its name when it does
 * not exist yet; malloc'd. */
static char *real_target(const char *path)
{
	char *real = realpath(path, NULL);
	if (real || errno != ENOENT)
		return real;
	char *copy = strdup(path);
	if (!copy)
		return NULL;
	char *slash = strrchr(copy, '/');
	char *name = slash + 1;
	if (slash == copy)
		real = strdup("/");
	else {
		*slash = '\0';
		real = realpath(copy, NULL);
	}
	char *out = NULL;
	if (real && asprintf(&out, "%s%s%s", real,
	                     real[strlen(real) - 1] == '/' ? "" : "/",
	                     name) < 0)
		out = NULL;
	free(real);
	free(copy);
	return out;
}

static bool folder_is_empty(int dfd)
{
	DIR *d = sfs_dir_read(dfd);
	bool empty = d != NULL;

	for (struct dirent *e; d && empty && (e = readdir(d));)
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return empty;
}

/* OUTDIR opened under the rule of trust.h (it and every folder above it
 * yours or root's, writable by nobody else, no link of another user's on
 * the way), made when missing: its descriptor, or -errno after saying
 * why.  Why: a folder another user may write lets that user swap what
 * the export made in it for a link, between the export's steps, and have
 * the rest written where the link leads (as root: into /root/.ssh). */
static int open_outdir(const char *abs)
{
	char why[2 * PATH_MAX];
	int fd = sfs_trust_dir_open(abs, false, why, sizeof(why));

	if (fd == -ENOENT && mkdir(abs, 0755) == 0)
		fd = sfs_trust_dir_open(abs, false, why, sizeof(why));
	else if (fd == -ENOENT)
		snprintf(why, sizeof(why), "cannot create %s: %s", abs,
		         strerror(errno));
	if (fd < 0)
		cli_fail(CMD, "%s", why);
	return fd;
}

/* OUTDIR made absolute and ready (created, or an empty folder), opened
 * in *outfd, or NULL after saying why not. */
static char *prepare_outdir(const char *outdir, const struct roots *roots,
                            int *outfd)
{
	char *abs = sfs_path_absolute(outdir);
	char *real = abs ? real_target(abs) : NULL;
	struct stat st;

	if (!real) {
		cli_fail(CMD, "%s: %s", outdir, strerror(errno));
		free(abs);
		return NULL;
	}
	for (size_t i = 0; i < roots->n; i++) {
		char *root = realpath(roots->paths[i], NULL);
		bool clash = root && nested(real, root);
		free(root);
		if (clash) {
			cli_fail(CMD, "%s and the skills folder %s are one "
			         "inside the other: the export never writes "
			         "into a source", abs, roots->paths[i]);
			goto bad;
		}
	}
	if (lstat(abs, &st) == 0 && !S_ISDIR(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) {
		cli_fail(CMD, "%s exists and is not a folder", abs);
		goto bad;
	}
	if ((*outfd = open_outdir(abs)) < 0)
		goto bad;
	if (!folder_is_empty(*outfd)) {
		cli_fail(CMD, "%s is not empty: give a new or empty folder", abs);
		close(*outfd);
		goto bad;
	}
	free(real);
	return abs;
bad:
	free(real);
	free(abs);
	return NULL;
}

/* ---- the projected frontmatter ------------------------------------------- */

/* A key plain when YAML cannot read it as anything but that string. */
static void put_key(FILE *f, const char *key)
{
	static const char *const special[] = {
		"true", "false", "null", "yes", "no", "on", "off", "y", "n",
	};
	bool plain = (key[0] >= 'a' && key[0] <= 'z') ||
	             (key[0] >= 'A' && key[0] <= 'Z');

	for (const char *p = key; plain && *p; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		        (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		        *p == '.';
	for (size_t i = 0; plain && i < sizeof(special) / sizeof(*special);
	     i++)
		plain = strcasecmp(key, special[i]) != 0;
	if (plain) {
		fputs(key, f);
		return;
	}
	cJSON *s = cJSON_CreateString(key);
	char *text = s ? cJSON_PrintUnformatted(s) : NULL;
	fputs(text ? text : "\"\"", f);
	free(text);
	cJSON_Delete(s);
}

/* A YAML single-quoted scalar ('' for a quote), or, for a value with
 * control characters, a JSON string literal, which is a YAML
 * double-quoted scalar with the same escapes. */
static int put_string(FILE *f, const char *value)
{
	bool plain_text = true;

	for (const char *p = value; *p && plain_text; p++)
		plain_text = (unsigned char)*p >= 0x20 && *p != 0x7F;
	if (plain_text) {
		fputc('\'', f);
		for (const char *p = value; *p; p++) {
			if (*p == '\'')
				fputc('\'', f);
			fputc(*p, f);
		}
		fputc('\'', f);
		return 0;
	}
	cJSON *s = cJSON_CreateString(value);
	char *text = s ? cJSON_PrintUnformatted(s) : NULL;

	cJSON_Delete(s);
	if (!text)
		return -ENOMEM;
	fputs(text, f);
	free(text);
	return 0;
}

/* The string a metadata value becomes: strings as they are, other
 * scalars as written in JSON, lists and maps JSON-encoded; NULL for null
 * (left out) or out of memory (*oom). */
static char *value_text(const cJSON *v, bool *oom)
{
	char *s = NULL;

	if (cJSON_IsNull(v))
		return NULL;
	if (cJSON_IsString(v))
		s = strdup(v->valuestring);
	else if (cJSON_IsTrue(v) || cJSON_IsFalse(v))
		s = strdup(cJSON_IsTrue(v) ? "true" : "false");
	else
		s = cJSON_PrintUnformatted(v);
	if (!s)
		*oom = true;
	return s;
}

static int put_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s: ", key);
	int rc = put_string(f, value);
	fputc('\n', f);
	return rc;
}

/* license and compatibility: a scalar, as a string. */
static int put_scalar_field(FILE *f, const char *id, const cJSON *fm,
                            const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(fm, key);
	bool oom = false;

	if (!v)
		return 0;
	if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		cli_say(CMD, "%s: left out %s (not a string)", id, key);
		return 0;
	}
	char *text = value_text(v, &oom);
	int rc = text ? put_field(f, key, text) : oom ? -ENOMEM : 0;
	free(text);
	return rc;
}

/* allowed-tools: the standard form is one space-separated string. */
static int put_allowed_tools(FILE *f, const char *id, const cJSON *fm)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(fm, "allowed-tools");
	char *joined = NULL;
	size_t len = 0;
	const cJSON *item;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v))
		return put_field(f, "allowed-tools", v->valuestring);
	if (!cJSON_IsArray(v))
		goto drop;
	FILE *m = open_memstream(&joined, &len);
	if (!m)
		return -ENOMEM;
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item)) {
			fclose(m);
			free(joined);
			goto drop;
		}
		fprintf(m, "%s%s", item == v->child ? "" : " ",
		        item->valuestring);
	}
	if (fclose(m) != 0) {
		free(joined);
		return -ENOMEM;
	}
	int rc = *joined ? put_field(f, "allowed-tools", joined) : 0;
	free(joined);
	return rc;
drop:
	cli_say(CMD, "%s: left out allowed-tools (not a string or a list "
	        "of strings)", id);
	return 0;
}

static int put_entry(FILE *f, bool *opened, const char *key,
                     const cJSON *v)
{
	bool oom = false;
	char *text = value_text(v, &oom);

	if (!text)
		return oom ? -ENOMEM : 0;
	if (!*opened)
		fputs("metadata:\n", f);
	*opened = true;
	fputs("  ", f);
	put_key(f, key);
	fputs(": ", f);
	int rc = put_string(f, text);
	fputc('\n', f);
	free(text);
	return rc;
}

/* metadata: the authored entries, then x-personal-mcp's as
 * "x-personal-mcp.<key>", which replace authored ones of that name. */
static int put_metadata(FILE *f, const char *id, const cJSON *fm)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(fm, "metadata");
	const cJSON *xpm = cJSON_GetObjectItemCaseSensitive(fm, XPM);
	const cJSON *e;
	bool opened = false;
	int rc = 0;

	if (meta && !cJSON_IsObject(meta) && !cJSON_IsNull(meta)) {
		cli_say(CMD, "%s: left out metadata (not a mapping)", id);
		meta = NULL;
	}
	if (!cJSON_IsObject(meta))
		meta = NULL;
	if (!cJSON_IsObject(xpm))
		xpm = NULL;
	cJSON_ArrayForEach(e, meta) {
		if (xpm && strncmp(e->string, XPM ".", strlen(XPM) + 1) == 0) {
			cli_say(CMD, "%s: metadata %s is replaced by the "
			        "x-personal-mcp block", id, e->string);
			continue;
		}
		if ((rc = put_entry(f, &opened, e->string, e)) < 0)
			return rc;
	}
	cJSON_ArrayForEach(e, xpm) {
		char *key;
		if (asprintf(&key, XPM ".%s", e->string) < 0)
			return -ENOMEM;
		rc = put_entry(f, &opened, key, e);
		free(key);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool standard_key(const char *key)
{
	static const char *const keys[] = {
		"name", "description", "license", "compatibility",
		"allowed-tools", "metadata", XPM,
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

static void note_dropped(const struct sfs_skill *s, const cJSON *fm)
{
	const cJSON *e;
	bool any = false;

	cJSON_ArrayForEach(e, fm) {
		if (standard_key(e->string))
			continue;
		if (any)
			cli_printf_visible(stderr, ", %s", e->string);
		else
			cli_printf_visible(stderr, CMD ": %s: left out %s",
			                   s->id, e->string);
		any = true;
	}
	if (any)
		fputs(" (not standard frontmatter)\n", stderr);
}

/* The projected frontmatter, fences included; malloc'd, or NULL.  The
 * catalog keeps the frontmatter as text: parsed here, for this alone. */
static char *project(const struct sfs_skill *s)
{
	cJSON *fm = cJSON_ParseWithLength(s->frontmatter_json.p,
	                                  s->frontmatter_json.len);
	char *text = NULL;
	size_t len = 0;
	FILE *f = fm ? open_memstream(&text, &len) : NULL;
	int rc;

	if (!f) {
		cJSON_Delete(fm);
		return NULL;
	}
	fprintf(f, "---\nname: %s\n", s->id);
	rc = put_field(f, "description", s->description);
	if (rc == 0)
		rc = put_scalar_field(f, s->id, fm, "license");
	if (rc == 0)
		rc = put_scalar_field(f, s->id, fm, "compatibility");
	if (rc == 0)
		rc = put_allowed_tools(f, s->id, fm);
	if (rc == 0)
		rc = put_metadata(f, s->id, fm);
	fputs("---\n", f);
	if (fclose(f) != 0 || rc < 0) {
		free(text);
		text = NULL;
	} else {
		note_dropped(s, fm);
	}
	cJSON_Delete(fm);
	return text;
}

/* ---- writing one skill ---------------------------------------------------- */

/* The bits of a source's mode an export copies: never set-user-ID or
 * set-group-ID, which the copy, made by whoever exports (root, say),
 * would give to that user for bytes a skill's author wrote. */
#define EXPORT_MODE_BITS (S_ISVTX | 0777)

/* A folder written, to get its mode once everything inside is written. */
struct folder {
	char *path;
	mode_t mode;
};

struct writer {
	const char *outdir;
	int outfd;              /* OUTDIR: everything is made beneath it */
	const sfs_catalog *cat;
	int *root_fds;          /* per root: its source's open_root, or -1 */
	struct folder *folders;
	size_t nfolders;
};

static int remember_folder(struct writer *w, const char *path, mode_t mode)
{
	struct folder *v = realloc(w->folders,
	                           (w->nfolders + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->folders = v;
	v[w->nfolders].path = strdup(path);
	if (!v[w->nfolders].path)
		return -ENOMEM;
	v[w->nfolders++].mode = mode & EXPORT_MODE_BITS;
	return 0;
}

/* path: beneath OUTDIR */
static int make_folder(struct writer *w, const char *path, mode_t mode)
{
	if (mkdirat(w->outfd, path, 0700) < 0)
		return -errno;
	return remember_folder(w, path, mode);
}

/* The entry a link of the skill names: its text resolved against the
 * link's folder ("." and ".." taken), among the skill's files; a chain
 * of links is followed a few steps.  NULL when it leaves the skill or
 * names nothing listed (the scan hashes only links that stay inside). */
static const struct sfs_file *link_target(const struct sfs_skill *s,
                                          const struct sfs_file *f)
{
	for (int hops = 0; f && S_ISLNK(f->mode) && hops < 8; hops++) {
		char path[PATH_MAX];
		const char *slash = strrchr(f->path, '/');
		int n = slash ? snprintf(path, sizeof(path), "%.*s/%s",
		                         (int)(slash - f->path), f->path, f->link)
		              : snprintf(path, sizeof(path), "%s", f->link);
		if (n < 0 || (size_t)n >= sizeof(path) || f->link[0] == '/' ||
		    !sfs_path_clean_rel(path))
			return NULL;
		const struct sfs_file *next = NULL;
		for (size_t i = 0; i < s->nfiles && !next; i++)
			if (strcmp(s->files[i].path, path) == 0)
				next = &s->files[i];
		f = next;
	}
	return f && S_ISREG(f->mode) ? f : NULL;
}

/* Opens a file of the skill through its source, as the mount reads it:
 * only if it still holds the bytes the build saw (a git blob, an MCP
 * server's verified copy, fetched now if not at hand, a folder's file
 * unchanged since the scan). */
static int open_source(const struct writer *w, const struct sfs_skill *s,
                       const struct sfs_file **fp, struct stat *st)
{
	const struct sfs_file *f = *fp;

	if (S_ISLNK(f->mode) && !(f = *fp = link_target(s, f)))
		return -ENOENT;
	const struct sfs_source *src = sfs_catalog_source(w->cat, s->root);
	if (!src)
		return -EIO;
	int fd = src->ops->open_file(src, w->root_fds[s->root], s, f);
	if (fd >= 0 && fstat(fd, st) < 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int copy_fd(int in, int out, off_t *copied)
{
	char buf[65536];
	ssize_t n;
	int rc = 0;

	*copied = 0;
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0)
			rc = errno == EINTR ? 0 : -errno;
		else if ((rc = write_all(out, buf, (size_t)n)) == 0)
			*copied += n;
	}
	return rc;
}

/* Creates `dest` with `head` (may be NULL) and then the source's bytes
 * from `skip` on; mode and, without a head, mtime as the build listed
 * them (a git blob or an MCP copy has none of its own). */
static int write_file(int dfd, const char *dest, int src,
                      const struct stat *st, const struct sfs_file *f,
                      const char *head, off_t skip)
{
	int out = openat(dfd, dest, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	               O_CLOEXEC, 0600);
	off_t copied = 0;
	int rc = 0;

	if (out < 0)
		return -errno;
	if (head)
		rc = write_all(out, head, strlen(head));
	if (rc == 0 && lseek(src, skip, SEEK_SET) < 0)
		rc = -errno;
	if (rc == 0)
		rc = copy_fd(src, out, &copied);
	if (rc == 0 && copied != st->st_size - skip)
		rc = -ESTALE;   /* changed while copied */
	if (rc == 0 && fchmod(out, f->mode & EXPORT_MODE_BITS) < 0)
		rc = -errno;
	if (rc == 0 && !head) {
		struct timespec times[2] = { f->mtime, f->mtime };
		if (futimens(out, times) < 0)
			rc = -errno;
	}
	if (close(out) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int write_entry(struct writer *w, const struct sfs_skill *s,
                       size_t i, const char *dest)
{
	const struct sfs_file *f = &s->files[i];
	struct stat st;

	if (S_ISDIR(f->mode))
		return make_folder(w, dest, f->mode);
	if (S_ISLNK(f->mode) && !f->hashed)
		return symlinkat(f->link, w->outfd, dest) < 0 ? -errno : 0;
		/* a link to a folder of the skill */
	int fd = open_source(w, s, &f, &st);
	if (fd < 0)
		return fd;
	int rc;
	if (i == s->skill_md) {
		char *head = project(s);
		rc = !head ? -ENOMEM :
		     (off_t)s->body_offset > st.st_size ? -ESTALE :
		     write_file(w->outfd, dest, fd, &st, f, head,
		                (off_t)s->body_offset);
		free(head);
	} else {
		rc = write_file(w->outfd, dest, fd, &st, f, NULL, 0);
	}
	close(fd);
	return rc;
}

static int write_skill(struct writer *w, const struct sfs_skill *s)
{
	struct stat st;
	char *top, *dest = NULL;
	int rc;

	if (!(top = strdup(s->id)))
		return -ENOMEM;
	/* a git or MCP skill has no folder on disk whose mode to copy */
	if (stat(s->dir, &st) < 0 || !S_ISDIR(st.st_mode))
		st.st_mode = S_IFDIR | 0755;
	rc = make_folder(w, top, st.st_mode);
	if (rc < 0)
		cli_fail(CMD, "%s/%s: %s", w->outdir, top, strerror(-rc));
	for (size_t i = 0; rc == 0 && i < s->nfiles; i++) {
		if (asprintf(&dest, "%s/%s", top, s->files[i].path) < 0)
			rc = -ENOMEM;
		else if ((rc = write_entry(w, s, i, dest)) < 0)
			cli_fail(CMD, "%s/%s: %s", s->dir, s->files[i].source,
			         rc == -ESTALE ? "changed while it was "
			         "exported; export again" : strerror(-rc));
		free(dest);
		dest = NULL;
	}
	free(top);
	return rc;
}

/* Gives every folder written its source's mode, deepest first. */
static int finish_folders(struct writer *w)
{
	int rc = 0;

	for (size_t i = w->nfolders; i-- > 0;) {
		if (fchmodat(w->outfd, w->folders[i].path, w->folders[i].mode,
		             0) < 0 && rc == 0)
			rc = cli_fail(CMD, "%s/%s: %s", w->outdir,
			              w->folders[i].path, strerror(errno));
		free(w->folders[i].path);
	}
	free(w->folders);
	w->folders = NULL;
	w->nfolders = 0;
	return rc;
}

/* ---- the whole export ----------------------------------------------------- */

/* A skill the Anthropic rules would refuse although skillsfs serves it
 * (the reserved words, a long description: warnings here).  Says so. */
static bool refused_upstream(const struct sfs_skill *s)
{
	bool refused = false;

	for (size_t i = 0; i < s->ndiags; i++) {
		const struct sfs_diag *d = &s->diags[i];
		if (strcmp(d->field, "name") != 0 &&
		    strcmp(d->field, "description") != 0)
			continue;
		cli_say(CMD, "%s: not exported: %s: %s", s->id, d->field,
		        d->message);
		refused = true;
	}
	return refused;
}

static void print_finding(const struct sfs_diag *d, void *arg)
{
	size_t *errors = arg;

	fprintf(stderr, CMD ": ");
	cli_put_visible(stderr, d->file);
	if (d->line)
		fprintf(stderr, ":%u:%u", d->line, d->column);
	cli_line_visible(stderr, ": %s: %s%s%s",
	                 d->severity == SFS_ERROR ? "error" : "warning",
	                 d->field, d->field[0] ? ": " : "", d->message);
	*errors += d->severity == SFS_ERROR;
}

/* Builds the export into a catalog and reports every finding about it. */
static int verify(const char *outdir, size_t written)
{
	const char *roots[] = { outdir };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat;
	size_t errors = 0;

	int rc = sfs_catalog_build(&cfg, NULL, &cat);
	if (rc < 0)
		return cli_fail(CMD, "cannot read the export back: %s",
		                strerror(-rc));
	sfs_catalog_each_diag(cat, print_finding, &errors);
	size_t served = sfs_catalog_nskills(cat);
	sfs_catalog_unref(cat);
	if (served != written)
		return cli_fail(CMD, "%zu skills written but %zu read back",
		                written, served);
	return errors ? CLI_EXIT_FAILED : 0;
}

/* What each root's source holds open while its files are read (a
 * folder: an O_PATH descriptor, so files open beneath it), or -1. */
static int *open_roots(const sfs_catalog *cat)
{
	size_t n = sfs_catalog_nroots(cat);
	int *fds = malloc((n + 1) * sizeof(*fds));

	/* [n]: the docs folder's, below no root: its files open by path */
	for (size_t i = 0; fds && i <= n; i++) {
		const struct sfs_source *src = sfs_catalog_source(cat, i);
		fds[i] = i < n && src->ops->open_root ? src->ops->open_root(src)
		                                      : -1;
	}
	return fds;
}

static void close_roots(const sfs_catalog *cat, int *fds)
{
	for (size_t i = 0; fds && i <= sfs_catalog_nroots(cat); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

static int export_catalog(const sfs_catalog *cat, const char *outdir,
                          int outfd)
{
	struct writer w = { .outdir = outdir, .outfd = outfd, .cat = cat,
	                    .root_fds = open_roots(cat) };
	size_t n = sfs_catalog_nskills(cat), written = 0, nu;
	int status = 0;

	if (!w.root_fds)
		return cli_fail(CMD, "%s", strerror(ENOMEM));

	const struct sfs_unserved *u = sfs_catalog_unserved(cat, &nu);
	for (size_t i = 0; i < nu; i++) {
		if (u[i].reason != SFS_INVALID)
			continue;
		cli_say(CMD, "%s: not exported: invalid (see skillsfs check)",
		        u[i].dir);
		status = CLI_EXIT_FAILED;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		if (refused_upstream(s)) {
			status = CLI_EXIT_FAILED;
			continue;
		}
		int rc = write_skill(&w, s);
		if (rc == -ENOMEM)
			cli_fail(CMD, "%s", strerror(ENOMEM));
		if (rc < 0) {
			finish_folders(&w);
			close_roots(cat, w.root_fds);
			return CLI_EXIT_FAILED;
		}
		written++;
	}
	close_roots(cat, w.root_fds);
	if (finish_folders(&w) != 0)
		return CLI_EXIT_FAILED;
	int checked = verify(outdir, written);
	cli_line_visible(stdout, "%zu skills exported to %s", written, outdir);
	return status ? status : checked;
}

static int run(void *opts, struct cli_skills *skills, sfs_catalog *cat)
{
	const struct export_opts *o = opts;
	int outfd = -1;
	char *outdir = prepare_outdir(o->outdir, &skills->roots, &outfd);
	int status = outdir ? export_catalog(cat, outdir, outfd)
	                    : CLI_EXIT_FAILED;

	if (outfd >= 0)
		close(outfd);
	free(outdir);
	return status;
}

/* An upload of what a source held at some earlier fetch is not what was
 * asked for: a source that cannot be fetched now stops it. */
const struct cli_command export_command = {
	.name = CMD, .usage = usage_text, .optstring = ":hV",
	.options = options, .opts_size = sizeof(struct export_opts),
	.operands = check_outdir, .fetch_must_succeed = true,
	.run_catalog = run,
};
