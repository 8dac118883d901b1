/*
 * lockfile.c - the lockfile (lockfile.h): the digest of a skill's
 * content, computed alike from index.json (skillsfs lock) and from a
 * catalog's skill (a locked mount's build); the file read with cJSON,
 * every member checked so that a mistake is an error naming the field;
 * and the file written in a fixed order (sources in precedence, skills
 * by id), so that one mount always locks to the same bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <nettle/sha2.h>

#include "grow.h"
#include "internal.h"
#include "lockfile.h"
#include "source.h"
#include "trust.h"

#define MAX_FILE_BYTES (64 * 1024 * 1024)

#define KEY_VERSION "lockfileVersion"
#define KEY_SOURCES "sources"
#define KEY_URL "url"
#define KEY_COMMIT "commit"
#define KEY_PATH "path"
#define KEY_SKILLS "skills"
#define DIGEST_PREFIX "sha256:"

/* ---- the digest of a skill's content ------------------------------------ */

static int cmp_entry(const void *x, const void *y)
{
	const struct sfs_manifest_entry *a = x, *b = y;
	return strcmp(a->path, b->path);
}

void sfs_manifest_digest(struct sfs_manifest_entry *v, size_t n,
                         uint8_t out[32])
{
	struct sha256_ctx ctx;
	char hex[SFS_DIGEST_LEN];
	char size[24];
	const size_t skip = sizeof(DIGEST_PREFIX) - 1;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_entry);
	sha256_init(&ctx);
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(size, sizeof(size), "%" PRIu64, v[i].size);
		sfs_format_digest(v[i].sha256, hex);
		/* each with its NUL: the separator */
		sha256_update(&ctx, strlen(v[i].path) + 1,
		              (const uint8_t *)v[i].path);
		sha256_update(&ctx, (size_t)len + 1, (const uint8_t *)size);
		sha256_update(&ctx, SFS_DIGEST_LEN - 1 - skip,
		              (const uint8_t *)hex + skip);
		sha256_update(&ctx, 1, (const uint8_t *)"\n");
	}
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

int sfs_skill_digest(const struct sfs_skill *s, uint8_t out[32])
{
	struct sfs_manifest_entry *v = malloc((s->nfiles ? s->nfiles : 1) *
	                                      sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfs_file *f = &s->files[i];
		if (!sfs_file_has_content(f))
			continue;
		v[n].path = f->path;
		v[n].size = (uint64_t)f->size;
		memcpy(v[n].sha256, f->sha256, sizeof(v[n].sha256));
		n++;
	}
	sfs_manifest_digest(v, n, out);
	free(v);
	return 0;
}

/* ---- sources ------------------------------------------------------------ */

/* The URL with its REF set to commit: the root a locked git source is
 * mounted by, so that its ref is never followed.  u is url parsed; the
 * first '#' starts its fragment (source_form.c).  NULL when out of
 * memory. */
static char *pin_url(const char *url, const struct sfs_source_url *u,
                     const char *commit)
{
	size_t base = strcspn(url, "#");
	char *out;

	if (asprintf(&out, "%.*s#%s%s%s", (int)base, url, commit,
	             u->subdir ? ":" : "", u->subdir ? u->subdir : "") < 0)
		return NULL;
	return out;
}

/* A git source: url served at commit.  Returns 0, -ENOMEM, or -EINVAL
 * with *why (static text) and *commit_wrong telling which is at fault. */
static int set_git(struct sfs_lock_source *src, const char *url,
                   const char *commit, const char **why, bool *commit_wrong)
{
	struct sfs_source_url u;
	char id[41];

	*commit_wrong = !sfs_source_is_commit_id(commit);
	if (*commit_wrong) {
		*why = "expected a full commit id (40 hex digits)";
		return -EINVAL;
	}
	/* lowercase, as git prints it and status.json names it */
	for (size_t i = 0; i <= 40; i++)
		id[i] = (char)tolower((unsigned char)commit[i]);
	int rc = sfs_source_url_parse(url, &u, why);
	if (rc < 0)
		return rc;
	if (sfs_source_form(url)->lock != SFS_LOCK_COMMIT) {
		*why = "a source of this kind has no commit: it is pinned "
		       "by the digests of its skills";
		*commit_wrong = true;
		rc = -EINVAL;
	} else if (u.ref && sfs_source_is_commit_id(u.ref) &&
	           strcasecmp(u.ref, id) != 0) {
		*why = "the URL names another commit than commit does";
		rc = -EINVAL;
	} else {
		src->root = pin_url(url, &u, id);
		src->commit = strdup(id);
		rc = src->root && src->commit ? 0 : -ENOMEM;
	}
	sfs_source_url_free(&u);
	return rc;
}

static void source_free(struct sfs_lock_source *src)
{
	for (size_t i = 0; i < src->nskills; i++)
		free(src->skills[i].id);
	free(src->skills);
	free(src->root);
	free(src->commit);
	memset(src, 0, sizeof(*src));
}

/* A new source at the end of the lock, zeroed; NULL when out of memory. */
static struct sfs_lock_source *push_source(struct sfs_lock *lock)
{
	return sfs_append(&lock->sources, &lock->nsources,
	                  sizeof(*lock->sources));
}

/* Whether root can be a source that names its skills: a folder's
 * absolute path, or an MCP server's URL (a source named by its URL like
 * a git source, but with no commit to pin; mcp+stdio:NAME too, whose
 * command a mount of the lock takes from --config).  Returns 0, -ENOMEM
 * or -EINVAL. */
static int named_root(const char *root)
{
	struct sfs_source_url u;
	const char *why;

	if (!sfs_source_is_url(root))
		return root[0] == '/' ? 0 : -EINVAL;
	int rc = sfs_source_url_parse(root, &u, &why);
	if (rc == 0 && sfs_source_form(root)->lock != SFS_LOCK_SKILLS)
		rc = -EINVAL;
	sfs_source_url_free(&u);
	return rc;
}

int sfs_lock_add_source(struct sfs_lock *lock, const char *root,
                        const char *commit)
{
	const char *why;
	bool commit_wrong;

	if (!commit) {
		int rc = named_root(root);
		if (rc < 0)
			return rc;
	}
	struct sfs_lock_source *src = push_source(lock);
	if (!src)
		return -ENOMEM;
	int rc = 0;
	if (commit) {
		rc = set_git(src, root, commit, &why, &commit_wrong);
	} else {
		src->names_skills = true;
		src->root = strdup(root);
		rc = src->root ? 0 : -ENOMEM;
	}
	if (rc < 0) {
		source_free(src);
		lock->nsources--;
	}
	return rc;
}

int sfs_lock_add_skill(struct sfs_lock_source *src, const char *id,
                       const uint8_t digest[32])
{
	if (!src->names_skills || !sfs_valid_id(id) ||
	    (src->nskills &&
	     strcmp(src->skills[src->nskills - 1].id, id) >= 0))
		return -EINVAL;
	struct sfs_lock_skill *k = sfs_append(&src->skills, &src->nskills,
	                                      sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->id = strdup(id);
	if (!k->id) {
		src->nskills--;
		return -ENOMEM;
	}
	memcpy(k->digest, digest, 32);
	return 0;
}

static int cmp_skill_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct sfs_lock_skill *)elem)->id);
}

const struct sfs_lock_skill *sfs_lock_find(const struct sfs_lock_source *src,
                                           const char *id)
{
	if (!src->nskills)
		return NULL;
	return bsearch(id, src->skills, src->nskills, sizeof(*src->skills),
	               cmp_skill_key);
}

void sfs_lock_free(struct sfs_lock *lock)
{
	for (size_t i = 0; i < lock->nsources; i++)
		source_free(&lock->sources[i]);
	free(lock->sources);
	memset(lock, 0, sizeof(*lock));
}

/* ---- reading ------------------------------------------------------------ */

struct reader {
	const char *home;
	struct sfs_lock_error *err;
	char at[64];            /* "sources[N]": the source being read */
};

__attribute__((format(printf, 4, 5)))
static int fail(struct reader *r, const char *member, const char *name,
                const char *fmt, ...)
{
	va_list ap;

	/* "sources[1]" + ".skills" + ".pdf-forms" */
	snprintf(r->err->field, sizeof(r->err->field), "%s%s%s%s%s", r->at,
	         *r->at && member ? "." : "", member ? member : "",
	         name ? "." : "", name ? name : "");
	va_start(ap, fmt);
	vsnprintf(r->err->message, sizeof(r->err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int no_memory(struct reader *r)
{
	snprintf(r->err->message, sizeof(r->err->message), "%s",
	         strerror(ENOMEM));
	return -ENOMEM;
}

/* The member `key` of obj into *out when `is` takes it; else the error
 * that it is missing (`missing` says what it is for) or what it should
 * be (`expected`). */
static int member(struct reader *r, const cJSON *obj, const char *key,
                  cJSON_bool (*is)(const cJSON *m), const char *missing,
                  const char *expected, const cJSON **out)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!m)
		return fail(r, key, NULL, "missing: %s", missing);
	if (!is(m))
		return fail(r, key, NULL, "expected %s", expected);
	*out = m;
	return 0;
}

/* Refuses a member not in `known` (a NULL-terminated list), which this
 * version of the format would otherwise silently drop. */
static int only_known(struct reader *r, const cJSON *obj,
                      const char *const *known, const char *list)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, obj) {
		const char *const *k = known;
		while (*k && strcmp(*k, m->string) != 0)
			k++;
		if (!*k)
			return fail(r, m->string, NULL, "unknown member (known: "
			            "%s)", list);
	}
	return 0;
}

static int take_git(struct reader *r, const cJSON *o, const char *url,
                    struct sfs_lock_source *src)
{
	const cJSON *commit;
	const char *why;
	bool commit_wrong;

	/* before the commit: skills given to a git source is the likelier
	 * mistake, and its missing commit would hide it */
	if (cJSON_GetObjectItemCaseSensitive(o, KEY_SKILLS))
		return fail(r, KEY_SKILLS, NULL, "a git source is pinned by its "
		            "commit; skills is for a folder (path) or a source "
		            "pinned by its skills (a url of such a kind: "
		            "mcp+...)");
	int rc = member(r, o, KEY_COMMIT, cJSON_IsString, "a git source needs "
	                "the full commit id it served", "a full commit id (40 "
	                "hex digits)", &commit);
	if (rc < 0)
		return rc;
	rc = set_git(src, url, commit->valuestring, &why, &commit_wrong);
	if (rc == -ENOMEM)
		return no_memory(r);
	if (rc < 0 && commit_wrong)
		return fail(r, KEY_COMMIT, NULL, "'%s': %s",
		            commit->valuestring, why);
	if (rc < 0)
		return fail(r, KEY_URL, NULL, "'%s': %s", url, why);
	return 0;
}

/* A folder's path: "~" or "~/..." below home, else absolute; cleaned. */
static int take_path(struct reader *r, const cJSON *path, char **out)
{
	const char *s = cJSON_IsString(path) ? path->valuestring : "";
	char *full = NULL;

	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
		if (!r->home || !*r->home)
			return fail(r, KEY_PATH, NULL, "'%s' starts with ~ but "
			            "HOME is not set", s);
		if (asprintf(&full, "%s%s", r->home, s + 1) < 0)
			return no_memory(r);
	} else if (s[0] != '/') {
		return fail(r, KEY_PATH, NULL, "expected an absolute folder "
		            "path, or one starting with ~/");
	}
	*out = sfs_path_absolute(full ? full : s);
	free(full);
	return *out ? 0 : no_memory(r);
}

/* One member of skills: an id and its digest. */
static int take_skill(struct reader *r, const cJSON *m,
                      struct sfs_lock_skill *out)
{
	if (!sfs_valid_id(m->string))
		return fail(r, KEY_SKILLS, m->string, "not a skill id (1-64 of "
		            "a-z, 0-9 and '-')");
	if (!cJSON_IsString(m) || !sfs_parse_digest(m->valuestring, out->digest))
		return fail(r, KEY_SKILLS, m->string, "expected \"sha256:\" "
		            "and 64 lowercase hex digits");
	out->id = strdup(m->string);
	return out->id ? 0 : no_memory(r);
}

static int cmp_skill(const void *x, const void *y)
{
	const struct sfs_lock_skill *a = x, *b = y;
	return strcmp(a->id, b->id);
}

static int take_skills(struct reader *r, const cJSON *skills,
                       struct sfs_lock_source *src)
{
	size_t n = (size_t)cJSON_GetArraySize(skills);
	const cJSON *m;

	src->names_skills = true;
	src->skills = calloc(n ? n : 1, sizeof(*src->skills));
	if (!src->skills)
		return no_memory(r);
	cJSON_ArrayForEach(m, skills) {
		int rc = take_skill(r, m, &src->skills[src->nskills]);
		if (rc < 0)
			return rc;
		src->nskills++;
	}
	if (n > 1)
		qsort(src->skills, n, sizeof(*src->skills), cmp_skill);
	for (size_t i = 1; i < n; i++)
		if (strcmp(src->skills[i].id, src->skills[i - 1].id) == 0)
			return fail(r, KEY_SKILLS, src->skills[i].id,
			            "given twice");
	return 0;
}

/* The skills of a source that names them (a folder, an MCP server):
 * `missing` says so in the error when they are missing. */
static int take_named(struct reader *r, const cJSON *o, const char *missing,
                      struct sfs_lock_source *src)
{
	const cJSON *skills;
	int rc = member(r, o, KEY_SKILLS, cJSON_IsObject, missing, "an object "
	                "of skill ids and their digests", &skills);

	return rc < 0 ? rc : take_skills(r, skills, src);
}

static int take_folder(struct reader *r, const cJSON *o,
                       struct sfs_lock_source *src)
{
	if (cJSON_GetObjectItemCaseSensitive(o, KEY_COMMIT))
		return fail(r, KEY_COMMIT, NULL, "a folder (path) has no "
		            "commit; only a git source (url) has");
	int rc = take_path(r, cJSON_GetObjectItemCaseSensitive(o, KEY_PATH),
	                   &src->root);
	if (rc < 0)
		return rc;
	return take_named(r, o, "a folder names the skills it served ({} "
	                  "for none)", src);
}

/* An MCP server: its URL as written (the root a mount names it by), and
 * the skills it served, as a folder's: a server has no version to pin
 * (its listing is whatever it answers now), only the digests of what it
 * served, which every file it sends is verified against. */
static int take_mcp(struct reader *r, const cJSON *o, const char *url,
                    struct sfs_lock_source *src)
{
	if (cJSON_GetObjectItemCaseSensitive(o, KEY_COMMIT))
		return fail(r, KEY_COMMIT, NULL, "this source has no commit: "
		            "a source of its kind is pinned by the digests of "
		            "the skills it served (skills)");
	src->root = strdup(url);
	if (!src->root)
		return no_memory(r);
	return take_named(r, o, "an MCP server names the skills it served "
	                  "({} for none)", src);
}

/* A source named by its url: pinned by its commit (a git source) or by
 * its skills (an MCP server), as its kind's lock policy says. */
static int take_url(struct reader *r, const cJSON *o,
                    struct sfs_lock_source *src)
{
	const cJSON *url = cJSON_GetObjectItemCaseSensitive(o, KEY_URL);
	struct sfs_source_url u;
	const char *why;

	if (!cJSON_IsString(url) || !*url->valuestring)
		return fail(r, KEY_URL, NULL, "expected a source URL "
		            "(git+file:///PATH#COMMIT[:SUBDIR], "
		            "mcp+https://HOST/PATH)");
	int rc = sfs_source_url_parse(url->valuestring, &u, &why);
	sfs_source_url_free(&u);
	if (rc == -ENOMEM)
		return no_memory(r);
	if (rc < 0)
		return fail(r, KEY_URL, NULL, "'%s': %s", url->valuestring, why);
	if (sfs_source_form(url->valuestring)->lock == SFS_LOCK_SKILLS)
		return take_mcp(r, o, url->valuestring, src);
	return take_git(r, o, url->valuestring, src);
}

static int take_source(struct reader *r, const cJSON *o,
                       struct sfs_lock_source *src)
{
	static const char *const known[] = {
		KEY_URL, KEY_COMMIT, KEY_PATH, KEY_SKILLS, NULL,
	};

	if (!cJSON_IsObject(o))
		return fail(r, NULL, NULL, "expected an object: url and "
		            "commit (a git source), url and skills (an MCP "
		            "server), or path and skills (a folder)");
	int rc = only_known(r, o, known, "url, commit, path, skills");
	if (rc < 0)
		return rc;
	bool url = cJSON_GetObjectItemCaseSensitive(o, KEY_URL) != NULL;
	bool path = cJSON_GetObjectItemCaseSensitive(o, KEY_PATH) != NULL;
	if (url && path)
		return fail(r, NULL, NULL, "has both url and path: a source "
		            "is named by url (a git source or an MCP server) "
		            "or by path (a folder)");
	if (!url && !path)
		return fail(r, NULL, NULL, "missing url (a git source or an "
		            "MCP server) or path (a folder)");
	return url ? take_url(r, o, src) : take_folder(r, o, src);
}

static int take_version(struct reader *r, const cJSON *doc)
{
	const cJSON *v;
	int rc = member(r, doc, KEY_VERSION, cJSON_IsNumber, "not a skillsfs "
	                "lockfile", "a number", &v);

	if (rc < 0)
		return rc;
	if (v->valuedouble != SFS_LOCK_VERSION)
		return fail(r, KEY_VERSION, NULL, "version %g is not one this "
		            "skillsfs reads (%d)", v->valuedouble,
		            SFS_LOCK_VERSION);
	return 0;
}

static int take_lock(struct reader *r, const cJSON *doc, struct sfs_lock *out)
{
	static const char *const known[] = { KEY_VERSION, KEY_SOURCES, NULL };

	if (!cJSON_IsObject(doc))
		return fail(r, NULL, NULL, "expected a JSON object with "
		            KEY_VERSION " and " KEY_SOURCES);
	/* the version first: a newer file may have members this one does
	 * not know, and should say it is newer */
	int rc = take_version(r, doc);
	if (rc == 0)
		rc = only_known(r, doc, known, KEY_VERSION ", " KEY_SOURCES);
	if (rc < 0)
		return rc;
	const cJSON *sources;
	rc = member(r, doc, KEY_SOURCES, cJSON_IsArray, "the sources to mount",
	            "an array of sources", &sources);
	if (rc < 0)
		return rc;
	if (cJSON_GetArraySize(sources) == 0)
		return fail(r, KEY_SOURCES, NULL, "names no source");
	const cJSON *o;
	cJSON_ArrayForEach(o, sources) {
		struct sfs_lock_source *src = push_source(out);
		if (!src)
			return no_memory(r);
		snprintf(r->at, sizeof(r->at), KEY_SOURCES "[%zu]",
		         out->nsources - 1);
		rc = take_source(r, o, src);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "line L, column C" of byte offset off of text. */
static void where(const char *text, size_t off, unsigned *line,
                  unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int sfs_lock_parse(const char *text, size_t len, const char *home,
                   struct sfs_lock *out, struct sfs_lock_error *err)
{
	struct reader r = { .home = home, .err = err };
	const char *end = NULL;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!doc) {
		unsigned line, col;
		size_t off = end && end >= text && end <= text + len ?
		             (size_t)(end - text) : 0;
		where(text, off, &line, &col);
		return fail(&r, NULL, NULL, "not JSON (at line %u, column %u)",
		            line, col);
	}
	int rc = take_lock(&r, doc, out);
	cJSON_Delete(doc);
	if (rc < 0)
		sfs_lock_free(out);
	return rc;
}

int sfs_lock_read(const char *path, const char *home, struct sfs_lock *out,
                  struct sfs_lock_error *err)
{
	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	/* it pins what is served: held to the config file's rule (trust.h) */
	int fd = sfs_trust_open(path, SFS_TRUST_CONFIG, 0, err->message,
	                        sizeof(err->message));
	FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
	char *buf = NULL;
	size_t n = 0;
	int rc = fd < 0 ? fd : 0;

	if (fd >= 0 && !f) {
		rc = -errno;
		close(fd);
	}
	if (rc == -EPERM)
		return rc;   /* err->message says which file, and what to do */
	if (rc == 0 && !(buf = malloc(MAX_FILE_BYTES + 1)))
		rc = -ENOMEM;
	if (rc == 0) {
		n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
		rc = ferror(f) ? -EIO : n > MAX_FILE_BYTES ? -EFBIG : 0;
	}
	if (f)
		fclose(f);
	if (rc < 0) {
		snprintf(err->message, sizeof(err->message), "cannot read: %s",
		         rc == -EFBIG ? "larger than 64 MiB" : strerror(-rc));
		free(buf);
		return rc;
	}
	rc = sfs_lock_parse(buf, n, home, out, err);
	free(buf);
	return rc;
}

/* ---- writing ------------------------------------------------------------ */

/* A folder below home as "~/...", else as it is; malloc'd or NULL. */
static char *tilde(const char *path, const char *home)
{
	size_t n = home ? strlen(home) : 0;
	char *out;

	while (n > 1 && home[n - 1] == '/')
		n--;
	if (n <= 1 || strncmp(path, home, n) != 0 ||
	    (path[n] != '/' && path[n] != '\0'))
		return strdup(path);
	return asprintf(&out, "~%s", path + n) < 0 ? NULL : out;
}

/* s as a JSON string, quoted and escaped by cJSON, to f.  Returns
 * false when out of memory. */
static bool put_string(FILE *f, const char *s)
{
	cJSON *item = cJSON_CreateString(s);
	char *text = item ? cJSON_PrintUnformatted(item) : NULL;

	cJSON_Delete(item);
	if (text)
		fputs(text, f);
	free(text);
	return text != NULL;
}

/* One member per line, two spaces a level, skills one per line: a
 * lockfile is kept in version control, and a diff then shows each skill
 * that changed. */
static bool put_source(FILE *f, const struct sfs_lock_source *src,
                       const char *home)
{
	char digest[SFS_DIGEST_LEN];
	/* a URL as it is (a git source, an MCP server), never shortened */
	bool url = src->commit || sfs_source_is_url(src->root);
	char *path = url ? NULL : tilde(src->root, home);

	fprintf(f, "    {\n      \"%s\": ", url ? KEY_URL : KEY_PATH);
	bool ok = (url || path) && put_string(f, url ? src->root : path);
	free(path);
	if (src->commit) {
		fputs(",\n      \"" KEY_COMMIT "\": ", f);
		ok = ok && put_string(f, src->commit);
	}
	if (src->names_skills) {
		fputs(",\n      \"" KEY_SKILLS "\": {", f);
		for (size_t i = 0; i < src->nskills; i++) {
			/* ids are [a-z0-9-]: nothing to escape */
			sfs_format_digest(src->skills[i].digest, digest);
			fprintf(f, "%s\n        \"%s\": \"%s\"", i ? "," : "",
			        src->skills[i].id, digest);
		}
		fputs(src->nskills ? "\n      }" : "}", f);
	}
	fputs("\n    }", f);
	return ok;
}

char *sfs_lock_format(const struct sfs_lock *lock, const char *home)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool ok = f != NULL;

	if (!f)
		return NULL;
	fprintf(f, "{\n  \"" KEY_VERSION "\": %d,\n  \"" KEY_SOURCES
	        "\": [\n", SFS_LOCK_VERSION);
	for (size_t i = 0; ok && i < lock->nsources; i++) {
		ok = put_source(f, &lock->sources[i], home);
		fputs(i + 1 < lock->nsources ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	ok = !ferror(f) && ok;
	if (fclose(f) != 0 || !ok) {
		free(text);
		return NULL;
	}
	return text;
}
