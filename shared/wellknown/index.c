/*
 * index.c - a website's skills index read and checked (index.h).
 *
 * A skill that breaks a rule is left out with a problem naming its
 * field; the rest of the index is served.  Only what makes the document
 * itself unreadable (not JSON, an unknown major version, no skills
 * array, past the bounds) refuses it whole.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <nettle/sha2.h>

#include "grow.h"
#include "index.h"
#include "skillsfs.h"

/* ---- problems ------------------------------------------------------------ */

static int add_problem(struct sfs_wk_index *idx, bool error, const char *field,
                       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int add_problem(struct sfs_wk_index *idx, bool error, const char *field,
                       const char *fmt, ...)
{
	struct sfs_wk_problem *p = sfs_append(&idx->problems, &idx->nproblems,
	                                      sizeof(*p));
	va_list ap;

	if (!p)
		return -ENOMEM;
	p->error = error;
	snprintf(p->field, sizeof(p->field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(p->message, sizeof(p->message), fmt, ap);
	va_end(ap);
	return 0;
}

/* ---- paths and digests --------------------------------------------------- */

bool sfs_wk_path_ok(const char *p)
{
	size_t len = strlen(p);

	if (len == 0 || len > SFS_WK_MAX_PATH || p[0] == '/')
		return false;
	for (const char *c = p; *c; c++)
		if (*c < 0x20 || *c > 0x7e || strchr("\\?#[]", *c))
			return false;
	for (const char *part = p; part;) {
		const char *slash = strchr(part, '/');
		size_t n = slash ? (size_t)(slash - part) : strlen(part);
		if (n == 0 || (n == 1 && part[0] == '.') ||
		    (n == 2 && part[0] == '.' && part[1] == '.'))
			return false;
		part = slash ? slash + 1 : NULL;
	}
	return true;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct sfs_wk_file *)a)->path,
	              ((const struct sfs_wk_file *)b)->path);
}

void sfs_wk_skill_digest(const struct sfs_wk_file *files, size_t n,
                         uint8_t out[32])
{
	const struct sfs_wk_file **order = malloc((n ? n : 1) * sizeof(*order));
	struct sha256_ctx ctx;
	char hex[SFS_DIGEST_LEN];

	sha256_init(&ctx);
	for (size_t i = 0; order && i < n; i++)
		order[i] = &files[i];
	/* insertion sort: an index lists a skill's files sorted already */
	for (size_t i = 1; order && i < n; i++)
		for (size_t j = i; j > 0 &&
		     strcmp(order[j - 1]->path, order[j]->path) > 0; j--) {
			const struct sfs_wk_file *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t i = 0; order && i < n; i++) {
		sfs_format_digest(order[i]->sha256, hex);
		sha256_update(&ctx, strlen(order[i]->path) + 1,
		              (const uint8_t *)order[i]->path);
		sha256_update(&ctx, 64, (const uint8_t *)hex + 7);
		sha256_update(&ctx, 1, (const uint8_t *)"\n");
	}
	free(order);
	sha256_digest(&ctx, 32, out);
}

/* ---- one skill ----------------------------------------------------------- */

static const char *string_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void skill_free(struct sfs_wk_skill *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->files);
	free(s->name);
	free(s->description);
	free(s->package_url);
	memset(s, 0, sizeof(*s));
}

/* Reads files[i] of a skill: an object {path, digest} (v0.2) or a path
 * string (v0.1).  Returns 0, 1 when the skill must be left out (the
 * problem added), or -ENOMEM. */
static int read_file(struct sfs_wk_index *idx, const cJSON *item,
                     const char *field, struct sfs_wk_file *f)
{
	const char *path = cJSON_IsString(item) ? item->valuestring :
	                   string_of(item, SFS_WK_KEY_PATH);
	const char *digest = string_of(item, SFS_WK_KEY_DIGEST);

	if (!path)
		return add_problem(idx, true, field, "a file needs a path "
		                   "(a string)") ?: 1;
	if (!sfs_wk_path_ok(path))
		return add_problem(idx, true, field, "the path \"%.100s\" is "
		                   "not a relative path of printable ASCII "
		                   "without \\ ? # [ ], empty parts, . or ..",
		                   path) ?: 1;
	if (idx->verifiable && !digest)
		return add_problem(idx, true, field, "%s has no digest", path)
		       ?: 1;
	if (digest && !sfs_parse_digest(digest, f->sha256))
		return add_problem(idx, true, field, "the digest of %s is not "
		                   "sha256: and 64 lowercase hex digits", path)
		       ?: 1;
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(item,
	                                                     SFS_WK_KEY_SIZE);
	f->size = cJSON_IsNumber(size) && size->valuedouble >= 0 &&
	          size->valuedouble <= 1e15 ? (long long)size->valuedouble : -1;
	f->has_digest = digest != NULL;
	f->path = strdup(path);
	return f->path ? 0 : -ENOMEM;
}

static int read_files(struct sfs_wk_index *idx, const cJSON *files,
                      const char *field, struct sfs_wk_skill *s)
{
	int n = cJSON_GetArraySize(files);
	char sub[96];

	if (!cJSON_IsArray(files) || n == 0)
		return add_problem(idx, true, field, "files must be a list "
		                   "that holds SKILL.md") ?: 1;
	if ((unsigned)n > SFS_WK_MAX_FILES)
		return add_problem(idx, true, field, "%d files, more than the "
		                   "%u a skill may list", n, SFS_WK_MAX_FILES)
		       ?: 1;
	s->files = calloc((size_t)n, sizeof(*s->files));
	if (!s->files)
		return -ENOMEM;
	const cJSON *item;
	cJSON_ArrayForEach(item, files) {
		snprintf(sub, sizeof(sub), "%s[%zu]", field, s->nfiles);
		int rc = read_file(idx, item, sub, &s->files[s->nfiles]);
		if (rc)
			return rc;
		s->nfiles++;
	}
	qsort(s->files, s->nfiles, sizeof(*s->files), by_path);
	for (size_t i = 1; i < s->nfiles; i++)
		if (strcmp(s->files[i - 1].path, s->files[i].path) == 0)
			return add_problem(idx, true, field, "%s is listed "
			                   "twice", s->files[i].path) ?: 1;
	if (!bsearch(&(struct sfs_wk_file){ .path = "SKILL.md" }, s->files,
	             s->nfiles, sizeof(*s->files), by_path))
		return add_problem(idx, true, field, "SKILL.md is not among "
		                   "the files") ?: 1;
	return 0;
}

static int read_package(struct sfs_wk_index *idx, const cJSON *pkg,
                        const char *field, struct sfs_wk_skill *s)
{
	const char *url = string_of(pkg, SFS_WK_KEY_URL);
	const char *digest = string_of(pkg, SFS_WK_KEY_DIGEST);

	if (!pkg)
		return 0;
	if (!url || !*url)
		return add_problem(idx, true, field, "a package needs a url")
		       ?: 1;
	if (!digest || !sfs_parse_digest(digest, s->package_sha256))
		return add_problem(idx, true, field, "a package needs a digest "
		                   "(sha256: and 64 lowercase hex digits)") ?: 1;
	s->package_url = strdup(url);
	return s->package_url ? 0 : -ENOMEM;
}

/* The skill's own digest, which must be what its files make. */
static int check_digest(struct sfs_wk_index *idx, const cJSON *o,
                        const char *field, struct sfs_wk_skill *s)
{
	const char *digest = string_of(o, SFS_WK_KEY_DIGEST);
	uint8_t made[32];
	char want[SFS_DIGEST_LEN];

	if (!idx->verifiable)
		return 0;
	if (!digest || !sfs_parse_digest(digest, s->digest))
		return add_problem(idx, true, field, "the skill needs a digest "
		                   "(sha256: and 64 lowercase hex digits)") ?: 1;
	sfs_wk_skill_digest(s->files, s->nfiles, made);
	if (memcmp(made, s->digest, 32) != 0) {
		sfs_format_digest(made, want);
		return add_problem(idx, true, field, "the skill's digest is "
		                   "not what its files make (%s)", want) ?: 1;
	}
	s->has_digest = true;
	return 0;
}

/* Reads skills[i].  Returns 0, 1 when it is left out, or -ENOMEM. */
static int read_skill(struct sfs_wk_index *idx, const cJSON *o, size_t i,
                      struct sfs_wk_skill *s)
{
	char field[32], sub[64];   /* "skills[N]", "skills[N].package" */
	const char *name = string_of(o, SFS_WK_KEY_NAME);
	const char *desc = string_of(o, SFS_WK_KEY_DESCRIPTION);
	int rc;

	snprintf(field, sizeof(field), "skills[%zu]", i);
	if (!cJSON_IsObject(o))
		return add_problem(idx, true, field, "a skill must be an "
		                   "object") ?: 1;
	if (!name || !sfs_valid_id(name))
		return add_problem(idx, true, field, "the name \"%.80s\" is not "
		                   "1-64 of a-z, 0-9 and single hyphens",
		                   name ? name : "") ?: 1;
	s->name = strdup(name);
	s->description = strdup(desc ? desc : "");
	if (!s->name || !s->description)
		return -ENOMEM;
	snprintf(sub, sizeof(sub), "%s.files", field);
	rc = read_files(idx, cJSON_GetObjectItemCaseSensitive(o,
	                SFS_WK_KEY_FILES), sub, s);
	if (rc == 0)
		rc = check_digest(idx, o, field, s);
	snprintf(sub, sizeof(sub), "%s.package", field);
	if (rc == 0)
		rc = read_package(idx, cJSON_GetObjectItemCaseSensitive(o,
		                  SFS_WK_KEY_PACKAGE), sub, s);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sfs_wk_skill *)a)->name,
	              ((const struct sfs_wk_skill *)b)->name);
}

/* Two skills of one name: the second is left out. */
static int drop_repeated(struct sfs_wk_index *idx)
{
	size_t kept = 0;

	qsort(idx->skills, idx->nskills, sizeof(*idx->skills), by_name);
	for (size_t i = 0; i < idx->nskills; i++) {
		if (kept && strcmp(idx->skills[kept - 1].name,
		                   idx->skills[i].name) == 0) {
			int rc = add_problem(idx, true, "skills", "two skills "
			                     "are named %s: the second is left out",
			                     idx->skills[i].name);
			skill_free(&idx->skills[i]);
			if (rc < 0)
				return rc;
			continue;
		}
		idx->skills[kept++] = idx->skills[i];
	}
	idx->nskills = kept;
	return 0;
}

/* ---- the document -------------------------------------------------------- */

/* The version: "M.m.p", a missing one v0.1.0. */
static int read_version(struct sfs_wk_index *idx, const cJSON *doc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc,
	                                                  SFS_WK_KEY_VERSION);
	unsigned patch;
	char end;

	if (!v) {
		idx->major = 0;
		idx->minor = 1;
	} else if (!cJSON_IsString(v) ||
	           sscanf(v->valuestring, "%u.%u.%u%c", &idx->major,
	                  &idx->minor, &patch, &end) != 3) {
		return add_problem(idx, true, SFS_WK_KEY_VERSION, "the version "
		                   "must be a string \"M.m.p\"") ?: -EINVAL;
	}
	if (idx->major != 0)
		return add_problem(idx, true, SFS_WK_KEY_VERSION, "version %u "
		                   "of the index format is not one skillsfs "
		                   "reads (0.x)", idx->major) ?: -EINVAL;
	idx->verifiable = idx->minor >= 2;
	if (!idx->verifiable)
		return add_problem(idx, false, SFS_WK_KEY_VERSION, "a v0.1 index "
		                   "gives no digests: nothing it serves can be "
		                   "verified");
	return 0;
}

static int read_skills(struct sfs_wk_index *idx, const cJSON *skills)
{
	int n = cJSON_GetArraySize(skills);

	if (!cJSON_IsArray(skills))
		return add_problem(idx, true, SFS_WK_KEY_SKILLS, "the index "
		                   "needs a skills list") ?: -EINVAL;
	if ((unsigned)n > SFS_WK_MAX_SKILLS)
		return add_problem(idx, true, SFS_WK_KEY_SKILLS, "%d skills, "
		                   "more than the %u an index may list", n,
		                   SFS_WK_MAX_SKILLS) ?: -EINVAL;
	idx->skills = calloc(n ? (size_t)n : 1, sizeof(*idx->skills));
	if (!idx->skills)
		return -ENOMEM;
	size_t i = 0;
	const cJSON *o;
	cJSON_ArrayForEach(o, skills) {
		struct sfs_wk_skill *s = &idx->skills[idx->nskills];
		int rc = read_skill(idx, o, i++, s);
		if (rc < 0) {
			skill_free(s);
			return rc;
		}
		if (rc > 0)
			skill_free(s);
		else
			idx->nskills++;
	}
	return drop_repeated(idx);
}

int sfs_wk_index_parse(const char *text, size_t len, struct sfs_wk_index *out)
{
	memset(out, 0, sizeof(*out));
	if (len > SFS_WK_MAX_INDEX_BYTES)
		return add_problem(out, true, "", "the index is %zu bytes, more "
		                   "than the %u read", len,
		                   SFS_WK_MAX_INDEX_BYTES) ?: -EINVAL;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	int rc;

	if (!cJSON_IsObject(doc))
		rc = add_problem(out, true, "", "the index is not a JSON "
		                 "object") ?: -EINVAL;
	else
		rc = read_version(out, doc);
	if (rc == 0)
		rc = read_skills(out, cJSON_GetObjectItemCaseSensitive(doc,
		                 SFS_WK_KEY_SKILLS));
	cJSON_Delete(doc);
	if (rc == -ENOMEM) {
		sfs_wk_index_free(out);
		return rc;
	}
	return rc;
}

void sfs_wk_index_free(struct sfs_wk_index *idx)
{
	for (size_t i = 0; i < idx->nskills; i++)
		skill_free(&idx->skills[i]);
	free(idx->skills);
	free(idx->problems);
	memset(idx, 0, sizeof(*idx));
}
