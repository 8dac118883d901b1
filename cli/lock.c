/*
 * lock.c - `skillsfs lock MOUNTPOINT`: a lockfile (lockfile.h) naming
 * every source of a running mount with what it serves, read from the
 * mount's own documents, never from the sources: status.json for the
 * sources (a git source's commit), index.json for each skill's files and
 * their digests (a folder's and an MCP server's skills), and
 * catalog/<id>.json for the source a skill comes from.
 *
 * The documents are read one after another; a refresh between two reads
 * would mix two generations, so the generation status.json names is
 * looked at again at the end, and everything is read again when it moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli.h"
#include "contract.h"
#include "lockfile.h"
#include "skillsfs.h"
#include "source.h"

#define CMD "skillsfs lock"

/* Reads of a mount that keeps changing under them, before giving up. */
#define MAX_TRIES 5
/* How long a lock waits for the first fetch of a remote root that the
 * mount's start did not wait for (it serves the other roots meanwhile):
 * `skillsfs MOUNTPOINT` then `skillsfs lock` at once, as README shows,
 * must not fail on a slow network. */
#define FIRST_FETCH_WAIT_MS 120000
#define FIRST_FETCH_POLL_MS 100
/* status.json's head holds its generation (contract.h). */
#define STATUS_HEAD 4096

static const char usage_text[] =
	"usage: skillsfs lock [-o FILE] MOUNTPOINT\n"
	"\n"
	"Print a lockfile naming every source of the skillsfs mount at\n"
	"MOUNTPOINT with what it serves: each git source's commit, and the\n"
	"skills of each folder and each MCP server with the digest of their\n"
	"content.  `skillsfs MOUNTPOINT --lock FILE` mounts exactly that\n"
	"again (see skillsfs(5)).\n"
	"\n"
	"  -o, --output FILE  write the lockfile to FILE (replaced whole)\n"
	"                     rather than to standard output\n"
	"  --help             print this help and exit\n"
	"  --version          print the version and exit\n"
	"\n"
	"A remote source whose first fetch is under way is waited for (at\n"
	"most 120 s).\n"
	"\n"
	"Exit status: 0 when the lockfile was written, 1 when the mount\n"
	"cannot be locked, 2 on a usage error.\n";

struct lock_opts {
	const char *mount;
	const char *output;   /* or NULL: stdout */
};

static const struct cli_option options[] = {
	CLI_TEXT("output", 'o', struct lock_opts, output),
	{ NULL, 0, 0, 0 },
};

/* What one reading of the mount found, and why it failed. */
struct reading {
	const char *mount;
	struct sfs_lock lock;
	unsigned long long generation;
	cJSON *status;
	bool names_skills;    /* a source is locked by its skills' digests */
	char why[1024];
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reading *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the command line ------------------------------------------------- */

static int take_mount(void *opts, char **argv, int n)
{
	struct lock_opts *o = opts;

	if (n == 0)
		return cli_usage_error(CMD, "%s", "missing MOUNTPOINT");
	if (o->output && !*o->output)
		return cli_usage_error(CMD, "%s", "-o needs a file");
	o->mount = argv[0];
	return -1;
}

/* ---- reading the mount's documents ------------------------------------- */

/* A document of the mount, parsed; NULL after fail(). */
static cJSON *read_json(struct reading *r, const char *path)
{
	char *text;
	size_t len;
	int rc = cli_read_whole(path, &text, &len);

	if (rc < 0) {
		fail(r, "cannot read %s: %s", path, strerror(-rc));
		return NULL;
	}
	cJSON *doc = cJSON_ParseWithLength(text, len);
	free(text);
	if (!doc)
		fail(r, "%s is not JSON", path);
	return doc;
}

/* The generation status.json names now (0: none). */
static unsigned long long generation_now(const char *mount)
{
	char *path = sfs_mount_path(mount, SFS_MOUNT_STATUS);
	char head[STATUS_HEAD];
	ssize_t n = -1;

	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, head, sizeof(head));
		close(fd);
	}
	free(path);
	return n > 0 ? sfs_status_generation(head, (size_t)n) : 0;
}

static const char *string_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The generation of status.json, parsed at `path`; a document without
 * one and its roots is no skillsfs mount's. */
static int take_generation(struct reading *r, const char *path)
{
	const cJSON *gen = cJSON_GetObjectItemCaseSensitive(
		r->status, SFS_STATUS_GENERATION);
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(
		r->status, SFS_STATUS_ROOTS);

	if (!cJSON_IsNumber(gen) || !cJSON_IsArray(roots))
		return fail(r, "%s is not a skillsfs mount: %s names no "
		            "generation and roots", r->mount, path);
	r->generation = (unsigned long long)gen->valuedouble;
	return 0;
}

/* status.json, which says whether this is a skillsfs mount at all. */
static int read_status(struct reading *r)
{
	char *path = sfs_mount_path(r->mount, SFS_MOUNT_STATUS);
	int rc;

	if (!path)
		return fail(r, "%s", strerror(ENOMEM));
	struct statvfs sv;
	/* statfs always reaches the daemon; a dead one's documents may
	 * still be read from the page cache */
	int e = statvfs(r->mount, &sv) < 0 ? errno :
	        access(path, R_OK) < 0 ? errno : 0;
	if (e == ENOTCONN)
		rc = fail(r, "%s: the skillsfs daemon that served it is gone "
		          "(%s): unmount it with 'fusermount3 -u %s', then "
		          "mount it again", r->mount, strerror(e), r->mount);
	else if (e && access(r->mount, F_OK) < 0)
		rc = fail(r, "%s: %s", r->mount, strerror(errno));
	else if (e)
		rc = fail(r, "%s is not a skillsfs mount: cannot read %s: %s",
		          r->mount, path, strerror(e));
	else if (!(r->status = read_json(r, path)))
		rc = -1;
	else
		rc = take_generation(r, path);
	free(path);
	return rc;
}

/* The kind of source status.json names, in *ops (NULL: a folder).
 * Returns 0, or -1 after fail() for a kind a lockfile cannot pin. */
static int kind_of(struct reading *r, const char *path, const char *kind,
                   const struct sfs_source_ops **ops)
{
	*ops = NULL;
	if (!kind)
		return 0;
	/* a kind status.json names is one with a version to pin */
	*ops = sfs_source_kind_named(kind);
	if (*ops && (*ops)->version_key)
		return 0;
	return fail(r, "the source %s is of kind %s, which a lockfile cannot "
	            "pin", path, kind);
}

/* One root of status.json as a source of the lock: a git source by its
 * commit; a folder or an MCP server by its skills (add_skills). */
static int add_source(struct reading *r, const cJSON *root)
{
	const char *path = string_of(root, SFS_STATUS_ROOT_PATH);
	const struct sfs_source_ops *ops;

	if (!path)
		return fail(r, "status.json: a root without a path");
	if (kind_of(r, path, string_of(root, SFS_STATUS_ROOT_KIND), &ops) < 0)
		return -1;
	/* a source the mount never read serves nothing, which is no state
	 * to pin: its commit or listing is null */
	const char *version = ops ? string_of(root, ops->version_key) : NULL;
	if (ops && !version)
		return fail(r, "the mount could not read the source %s "
		            "(status.json names no %s of it; its diagnostics "
		            "say why)", path, ops->version_key);
	const struct sfs_source_form *form =
		ops ? sfs_source_form_named(ops->kind) : NULL;
	int rc = sfs_lock_add_source(&r->lock, path,
	                             form && form->lock == SFS_LOCK_COMMIT ?
	                             version : NULL);
	if (rc < 0)
		return fail(r, "cannot lock the source %s: %s", path,
		            rc == -ENOMEM ? strerror(ENOMEM) :
		            "not an absolute folder, a git URL with a full "
		            "commit id, nor an MCP server's URL");
	r->names_skills |= r->lock.sources[r->lock.nsources - 1].names_skills;
	return 0;
}

/* Each root of status.json as a source of the lock, in its order. */
static int add_sources(struct reading *r)
{
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(r->status,
	                                                      SFS_STATUS_ROOTS);
	const cJSON *root;

	cJSON_ArrayForEach(root, roots) {
		int rc = add_source(r, root);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The index of the source `root` (a record's root) in the lock. */
static long source_of(const struct reading *r, const char *root)
{
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(r->status,
	                                                      SFS_STATUS_ROOTS);
	long i = 0;
	const cJSON *o;

	cJSON_ArrayForEach(o, roots) {
		const char *path = string_of(o, SFS_STATUS_ROOT_PATH);
		if (path && root && strcmp(path, root) == 0)
			return i;
		i++;
	}
	return -1;
}

/* The source skill `id` is served from (its record's root), or NULL
 * after fail(). */
static struct sfs_lock_source *skill_source(struct reading *r,
                                            const char *id)
{
	char *path = sfs_mount_record(r->mount, id);
	cJSON *record = path ? read_json(r, path) : NULL;
	const char *root = string_of(record, SFS_RECORD_ROOT);
	long i = source_of(r, root);

	if (!path)
		fail(r, "%s", strerror(ENOMEM));
	else if (record && i < 0)
		fail(r, "%s names the root %s, which status.json does not "
		     "list", path, root ? root : "(none)");
	cJSON_Delete(record);
	free(path);
	return record && i >= 0 ? &r->lock.sources[i] : NULL;
}

/* A skill that has no index.json entry has no digests to lock. */
static int check_listed(struct reading *r)
{
	const cJSON *private = cJSON_GetObjectItemCaseSensitive(
		r->status, SFS_STATUS_PRIVATE);
	const cJSON *unlisted = cJSON_GetObjectItemCaseSensitive(
		r->status, SFS_STATUS_UNLISTED);
	const cJSON *u;

	if (cJSON_GetArraySize(private) > 0)
		return fail(r, "%d skill folders are left out of the mount's "
		            "shared documents (status.json's \"private\"): "
		            "lock a mount without allow_other",
		            cJSON_GetArraySize(private));
	cJSON_ArrayForEach(u, unlisted) {
		const char *id = string_of(u, "id");
		struct sfs_lock_source *src = id ? skill_source(r, id) : NULL;
		if (!src)
			return id ? -1 : fail(r, "status.json: an unlisted "
			                      "skill without an id");
		if (src->names_skills)
			return fail(r, "skill \"%s\" is served but not listed in "
			            "index.json (status.json's \"unlisted\" says "
			            "why), so the mount publishes no digests of "
			            "its files to lock", id);
	}
	return 0;
}

/* The digest of an index.json entry's resources (the skill's files with
 * content).  Returns 0, or -1 after fail(). */
static int entry_digest(struct reading *r, const cJSON *entry,
                        const char *id, uint8_t out[32])
{
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(entry,
	                                                    SFS_INDEX_RESOURCES);
	size_t n = (size_t)cJSON_GetArraySize(res);
	struct sfs_manifest_entry *v = calloc(n ? n : 1, sizeof(*v));
	struct sfs_uri *uris = calloc(n ? n : 1, sizeof(*uris));
	size_t k = 0;
	int rc = v && uris ? 0 : fail(r, "%s", strerror(ENOMEM));
	const cJSON *f;

	cJSON_ArrayForEach(f, res) {
		const char *uri = string_of(f, SFS_RESOURCE_URI);
		const char *digest = string_of(f, SFS_RESOURCE_DIGEST);
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(
			f, SFS_RESOURCE_SIZE);
		if (rc < 0)
			break;
		sfs_uri_parse(uri ? uri : "", &uris[k]);
		if (uris[k].kind != SFS_URI_SKILL_PATH ||
		    strcmp(uris[k].id, id) != 0 || !digest ||
		    !sfs_parse_digest(digest, v[k].sha256) ||
		    !cJSON_IsNumber(size) || size->valuedouble < 0) {
			rc = fail(r, "index.json: a resource of skill \"%s\" "
			          "without a uri of the skill, a digest and a "
			          "size", id);
		} else {
			v[k].path = uris[k].path;
			v[k].size = (uint64_t)size->valuedouble;
		}
		k++;
	}
	if (rc == 0)
		sfs_manifest_digest(v, k, out);
	for (size_t i = 0; i < k; i++)
		sfs_uri_free(&uris[i]);
	free(uris);
	free(v);
	return rc;
}

/* One line of index.json: the skill of a folder or an MCP server with
 * its digest. */
static int add_entry(struct reading *r, const char *line, size_t len)
{
	char id[80];
	uint8_t digest[32];

	if (!sfs_index_entry_id(line, len, id, sizeof(id)))
		return fail(r, "index.json: an entry without a skill id");
	struct sfs_lock_source *src = skill_source(r, id);
	if (!src)
		return -1;
	if (!src->names_skills)
		return 0;   /* a git source: its commit says it all */
	cJSON *entry = cJSON_ParseWithLength(line, len);
	int rc = entry ? entry_digest(r, entry, id, digest)
	               : fail(r, "index.json: the entry of \"%s\" is not "
	                      "JSON", id);
	cJSON_Delete(entry);
	if (rc == 0 && sfs_lock_add_skill(src, id, digest) < 0)
		rc = fail(r, "index.json: skill \"%s\" out of order, or out "
		          "of memory", id);
	return rc;
}

/* The skills of every folder and MCP server, from index.json, one line
 * per skill. */
static int add_skills(struct reading *r)
{
	char *path = sfs_mount_path(r->mount, SFS_MOUNT_INDEX);
	char *text = NULL;
	size_t len = 0;
	int rc = path ? cli_read_whole(path, &text, &len) : -ENOMEM;

	if (rc < 0) {
		fail(r, "cannot read %s: %s", path ? path : "index.json",
		     strerror(-rc));
		free(path);
		return -1;
	}
	for (const char *p = text, *end = text + len; rc == 0 && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), elen;
		if (sfs_lines_entry(p, n, &elen))
			rc = add_entry(r, p, elen);
		p += n + 1;
	}
	free(text);
	free(path);
	return rc;
}

static void reading_reset(struct reading *r)
{
	sfs_lock_free(&r->lock);
	cJSON_Delete(r->status);
	r->status = NULL;
	r->generation = 0;
	r->names_skills = false;
}

/* Whether status.json says a remote root's first fetch is under way. */
static bool first_fetch_under_way(const cJSON *status)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(status,
	                                                       "diagnostics")) {
		const char *m = string_of(d, SFS_FINDING_MESSAGE);
		if (m && strstr(m, SFS_STATUS_FIRST_FETCH))
			return true;
	}
	return false;
}

/* Reads status.json until no first fetch is under way, or the wait ran
 * out (then what add_sources says of the root stands).  Returns what
 * read_status does. */
static int read_status_fetched(struct reading *r)
{
	int rc = read_status(r);
	bool said = false;

	for (int waited = 0; rc == 0 && waited < FIRST_FETCH_WAIT_MS &&
	                     first_fetch_under_way(r->status);
	     waited += FIRST_FETCH_POLL_MS) {
		if (!said)
			fprintf(stderr, "%s: waiting for the first fetch of a "
			        "remote source (status.json: \"%s\")\n", CMD,
			        SFS_STATUS_FIRST_FETCH);
		said = true;
		poll(NULL, 0, FIRST_FETCH_POLL_MS);
		reading_reset(r);
		rc = read_status(r);
	}
	return rc;
}

/* Reads the mount into r->lock, from one generation.  Returns 0, or -1
 * with r->why. */
static int read_mount(struct reading *r)
{
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		reading_reset(r);
		int rc = read_status_fetched(r);
		if (rc < 0 && !r->generation)
			return rc;   /* no status.json to read: no mount */
		if (rc == 0)
			rc = add_sources(r);
		if (rc == 0 && r->names_skills)
			rc = check_listed(r);
		if (rc == 0 && r->names_skills)
			rc = add_skills(r);
		if (generation_now(r->mount) == r->generation)
			return rc;
		/* a refresh came between two reads: what failed may have
		 * been a file of the other generation */
	}
	return fail(r, "%s kept changing while it was read (%d times); try "
	            "again once its sources are quiet", r->mount, MAX_TRIES);
}

/* ---- writing ------------------------------------------------------------ */

/* text to FILE, replacing it whole: written beside it, then renamed. */
static int write_file(const char *file, const char *text)
{
	char *tmp;

	if (asprintf(&tmp, "%s.tmp%ld", file, (long)getpid()) < 0)
		return cli_fail(CMD, "%s", strerror(ENOMEM));
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	size_t len = strlen(text), done = 0;
	int err = fd < 0 ? errno : 0;
	while (!err && done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno != EINTR)
			err = errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (fd >= 0 && close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, file) < 0)
		err = errno;
	if (err && fd >= 0)
		unlink(tmp);
	free(tmp);
	return err ? cli_fail(CMD, "%s: %s", file, strerror(err)) : 0;
}

static int output(const struct lock_opts *o, const struct sfs_lock *lock)
{
	char *text = sfs_lock_format(lock, getenv("HOME"));
	int status = 0;

	if (!text)
		return cli_fail(CMD, "%s", strerror(ENOMEM));
	if (o->output)
		status = write_file(o->output, text);
	else if (fputs(text, stdout) < 0 || fflush(stdout) != 0)
		status = cli_fail(CMD, "stdout: %s", strerror(errno));
	free(text);
	return status;
}

static int run(void *opts, struct cli_skills *skills)
{
	const struct lock_opts *o = opts;
	struct reading r = { .mount = o->mount };
	int status;

	(void)skills;
	if (read_mount(&r) < 0)
		status = cli_fail(CMD, "%s", r.why);
	else
		status = output(o, &r.lock);
	reading_reset(&r);
	return status;
}

const struct cli_command lock_command = {
	.name = CMD, .usage = usage_text, .optstring = ":o:hV", .run = run,
	.options = options, .opts_size = sizeof(struct lock_opts),
	.reads = CLI_READS_NOTHING, .operands = take_mount, .max_operands = 1,
};
