/*
 * source_mcp.c - the skills of an MCP server that speaks the Skills
 * extension (SEP-2640) as a source: mcp+https://HOST/PATH, or
 * mcp+stdio:NAME, a command the config file runs (mcp_client/client.h).
 *
 * A build never waits for the network: discover reads the listing that
 * the last update stored in the cache folder (source_mcp_fetch.c), and a
 * skill's files are those its entry lists, each with the size and sha256
 * digest the server published.  A skill is validated from the frontmatter
 * its entry gives until its SKILL.md is in the cache (SEP-2640: a host
 * fetches "a SKILL.md when the skill is loaded", not on listing); the
 * SKILL.md's identity then says so, and the first build after it was
 * fetched validates the file itself.  Every file is fetched on its first
 * read, verified, and kept.  Only verified bytes are served: the cache's
 * files are named by their digest, and each is hashed at its first open
 * by a generation into a sealed copy that serves it from then on: a
 * file whose bytes do not match the listing (a SKILL.md whose frontmatter
 * is not the listed one) is an error for its reader (EIO) and a finding of
 * the next build, never a file with other bytes.
 *
 * A skill is at the URI's path (skill://acme/refunds/SKILL.md is the
 * folder acme/refunds below the root), so the same rules as a folder's
 * apply to it from here on: names, limits, shadowing, --strict.  A file's
 * version is its digest (sfs_file's version, as git's blob ids are); a folder's is the digest of its skill's entry and
 * its path, so a changed entry is a new folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "kept_units.h"
#include "mcp_client/client.h"
#include "snapshot.h"
#include "source.h"
#include "trust.h"
#include "verified.h"

#define HEX_LEN 64
/* Files one skill may list at most (a website's index has the same
 * bound): a skill is built file by file against those before it, so
 * 80,000 files took 18 s of a build, 200,000 minutes, holding the
 * mount's start. */
#define MAX_SKILL_FILES 10000

struct mcp_skill {
	char *dir;              /* the root's URL and the skill's path */
	char *prefix;           /* of its files' URIs: "skill://PATH/" */
	const cJSON *entry;     /* in the listing */
	uint8_t id[32];         /* digest of the entry */
};

struct mcp_source {
	struct sfs_source_owned own;   /* url: the root as configured;
	                                  note: why the last update failed */
	/* location: the endpoint, url without "mcp+"; state: the server's
	 * folder in the cache; served: the listing served */
	struct sfs_fetched_root root;
	char *token_file;       /* or NULL: mcp_client/client.c reads it */
	char **argv, **env;     /* a stdio root's command, or NULL */
	struct sfs_source_options opts;   /* the three, for the fetches */
	const char *server;     /* who serves it, for messages: location,
	                           or the command */
	char keep[HEX_LEN + 1]; /* the listing to serve again, or "" */
	struct mcp_skill *skills;   /* sorted by dir */
	size_t n, cap;
	pthread_mutex_t lock;   /* guards bad */
	uint8_t (*bad)[32];     /* digests a read found not served as listed */
	size_t nbad, capbad;
	struct sfs_verified verified;   /* cache files verified since the
	                                   build, as sealed copies */
	/* A connection kept for the reads' fetches: a handshake per read
	 * cost more than the read (scripts/bench-mcp-source, every SKILL.md
	 * of 1,000 read through a fresh mount: 3,566 ms with a connection
	 * per read, 1,449 ms with this one).  A read that finds it taken by
	 * another makes its own, but for a stdio server, which costs a
	 * process and its start: it waits.  The state's release ends it. */
	pthread_mutex_t client_lock;
	struct sfs_mcp_client *client;
	void (*found)(void *);  /* sfs_config.found */
	void *found_arg;
	/* The units a former mount kept (kept_units.c), read by a build
	 * with no previous catalog (a start), until built() */
	struct sfs_kept_units *kept;
	bool starting;              /* this build is such a one */
	bool missed;                /* a skill was read: keep them again */
	/* From discover to built(): the cache's folder of verified files
	 * and the server's, as they were at discover, or -1 (absent) */
	int blobs_fd, state_fd;
};

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A copy of the NULL-terminated list v (NULL: none) in *out; false when
 * out of memory. */
static bool dup_strv(const char *const *v, char ***out)
{
	size_t n = 0;

	*out = NULL;
	if (!v)
		return true;
	while (v[n])
		n++;
	char **c = calloc(n + 1, sizeof(*c));
	for (size_t i = 0; c && i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			free_strv(c);
			return false;
		}
	*out = c;
	return c != NULL;
}

static void close_build_dirs(struct mcp_source *m)
{
	if (m->blobs_fd >= 0)
		close(m->blobs_fd);
	if (m->state_fd >= 0)
		close(m->state_fd);
	m->blobs_fd = m->state_fd = -1;
}

/* All of m, also an m open_state() gave up on half made (its pointers
 * NULL then). */
static void free_state(void *state)
{
	struct mcp_source *m = state;

	for (size_t i = 0; i < m->n; i++) {
		free(m->skills[i].dir);
		free(m->skills[i].prefix);
	}
	free(m->skills);
	free(m->bad);
	sfs_kept_units_free(m->kept);
	close_build_dirs(m);
	sfs_verified_free(&m->verified);
	sfs_mcp_client_close(m->client);
	pthread_mutex_destroy(&m->client_lock);
	pthread_mutex_destroy(&m->lock);
	sfs_source_owned_free(&m->own);
	sfs_fetched_root_free(&m->root);
	free(m->token_file);
	free_strv(m->argv);
	free_strv(m->env);
	free(m);
}

/* The state of the MCP source of a->root for one build: a->version (or
 * NULL) is the digest of the listing to serve again, a->note why the
 * last update failed. */
static void *open_state(const struct sfs_source_args *a)
{
	const struct sfs_source_options *opts = a->opts;
	struct mcp_source *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->blobs_fd = m->state_fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->client_lock, NULL);
	sfs_verified_init(&m->verified);
	if (a->version)
		snprintf(m->keep, sizeof(m->keep), "%s", a->version);
	if (sfs_source_owned_copy(a, &m->own) < 0 ||
	    !sfs_strdup_or_null(opts ? opts->token_file : NULL, &m->token_file) ||
	    !dup_strv(opts ? opts->argv : NULL, &m->argv) ||
	    !dup_strv(opts ? opts->env : NULL, &m->env)) {
		free_state(m);
		return NULL;
	}
	m->opts = (struct sfs_source_options){
		.token_file = m->token_file,
		.argv = (const char *const *)m->argv,
		.env = (const char *const *)m->env,
		.stop = opts ? opts->stop : NULL,
		.stop_arg = opts ? opts->stop_arg : NULL,
	};
	m->found = a->found;
	m->found_arg = a->found_arg;
	return m;
}

static const char *version(const struct sfs_source *src)
{
	const struct mcp_source *m = src->state;
	return m && m->root.ready ? m->root.served.hex : NULL;
}

/* The skill's path in a SKILL.md URI (SCHEME://PATH/SKILL.md), malloc'd,
 * or NULL (*why says why). */
static char *skill_path(const char *uri, const char **why)
{
	const char *p = strstr(uri, "://");
	size_t n = p ? strlen(p + 3) : 0;
	static const char md[] = "/SKILL.md";

	*why = "its uri is not SCHEME://PATH/SKILL.md";
	if (!p || n <= sizeof(md) - 1 ||
	    strcmp(p + 3 + n - (sizeof(md) - 1), md) != 0)
		return NULL;
	char *path = strndup(p + 3, n - (sizeof(md) - 1));
	char *clean = path ? strdup(path) : NULL;
	bool ok = clean && sfs_path_clean_rel(clean) && *clean &&
	          strcmp(clean, path) == 0 && !strchr(path, '\\');
	free(clean);
	if (!ok && path)
		*why = "its uri's path is not a plain relative path";
	if (!ok) {
		free(path);
		return NULL;
	}
	for (char *c = path, *end; c; c = end ? end + 1 : NULL) {
		end = strchr(c, '/');
		if (end)
			*end = '\0';
		const char *bad = sfs_bad_name(c);
		if (end)
			*end = '/';
		if (bad) {
			*why = bad;
			free(path);
			return NULL;
		}
	}
	return path;
}

/* Takes one entry of the listing as a skill, or says why not. */
static int take_entry(struct mcp_source *m, struct sfs_scan *s,
                      const cJSON *entry)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(entry, "uri");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(entry, "resources");
	const char *u = cJSON_IsString(uri) ? uri->valuestring : "(no uri)";
	const char *why;
	struct sfs_mcp_file md;

	if (cJSON_IsString(res) && strcmp(res->valuestring, "dynamic") == 0)
		return sfs_diag_add_root(s->global, SFS_WARNING, m->own.url, "%s: "
		                         "not served: its resources are "
		                         "\"dynamic\" (no digests to verify "
		                         "its files against)", u);
	int files = cJSON_GetArraySize(res);
	if (files > MAX_SKILL_FILES)
		return sfs_diag_add_root(s->global, SFS_WARNING, m->own.url, "%s: "
		                         "not served: its resources list %d "
		                         "files, more than the %d a skill may "
		                         "have", u, files, MAX_SKILL_FILES);
	if (sfs_mcp_skill_md_of(entry, &md) < 0)
		return sfs_diag_add_root(s->global, SFS_WARNING, m->own.url, "%s: "
		                         "not served: its resources list no "
		                         "SKILL.md with a size and a sha256 "
		                         "digest", u);
	char *path = skill_path(u, &why);
	if (!path)
		return sfs_diag_add_root(s->global, SFS_WARNING, m->own.url, "%s: "
		                         "not served: %s", u, why);
	struct mcp_skill k = { .entry = entry };
	char *text = cJSON_PrintUnformatted(entry);
	if (text) {
		sfs_sha256(text, strlen(text), k.id);
		free(text);
	}
	if (!text || asprintf(&k.dir, "%s/%s", m->own.url, path) < 0)
		k.dir = NULL;
	if (!k.dir || !(k.prefix = strndup(u, strlen(u) - strlen("SKILL.md"))) ||
	    sfs_grow(&m->skills, &m->cap, m->n + 1, sizeof(*m->skills)) < 0) {
		free(k.dir);
		free(k.prefix);
		free(path);
		return -ENOMEM;
	}
	free(path);
	m->skills[m->n++] = k;
	return 0;
}

static int cmp_skill(const void *a, const void *b)
{
	const struct mcp_skill *x = a, *y = b;
	return strcmp(x->dir, y->dir);
}

static const struct mcp_skill *find_skill(const struct mcp_source *m,
                                          const char *dir)
{
	struct mcp_skill key = { .dir = (char *)dir };
	return bsearch(&key, m->skills, m->n, sizeof(*m->skills), cmp_skill);
}

/* ---- reading the stored listing ------------------------------------------ */

/* Whether the listing lists `uri` with the digest hex `listed`. */
static bool listed(const struct mcp_source *m, const char *uri,
                   const char *hexdigest)
{
	for (size_t i = 0; i < m->n; i++) {
		const cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
		                          m->skills[i].entry, "resources")) {
			const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "uri");
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(r,
			                                                  "digest");
			if (cJSON_IsString(u) && cJSON_IsString(d) &&
			    strcmp(u->valuestring, uri) == 0 &&
			    strncmp(d->valuestring, "sha256:", 7) == 0 &&
			    strcmp(d->valuestring + 7, hexdigest) == 0)
				return true;
		}
	}
	return false;
}

/* One record of a file the server did not serve as listed, as a finding
 * while the listing still lists that file with that digest. */
static int report_mismatch(struct mcp_source *m, struct sfs_scan *s,
                           const char *text)
{
	cJSON *o = text ? cJSON_Parse(text) : NULL;
	int rc;
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(o, "uri");
	const cJSON *want = cJSON_GetObjectItemCaseSensitive(o, "listed");
	const cJSON *got = cJSON_GetObjectItemCaseSensitive(o, "served");
	const cJSON *wn = cJSON_GetObjectItemCaseSensitive(o, "listed_size");
	const cJSON *gn = cJSON_GetObjectItemCaseSensitive(o, "served_size");
	const cJSON *field = cJSON_GetObjectItemCaseSensitive(o,
	                                                     "frontmatter");
	const cJSON *blocked = cJSON_GetObjectItemCaseSensitive(o, "blocked");

	if (cJSON_IsString(uri) && cJSON_IsString(want) &&
	    cJSON_IsString(blocked) &&
	    listed(m, uri->valuestring, want->valuestring))
		rc = sfs_diag_add_root(s->global, SFS_ERROR, m->own.url, "%s: the "
		                       "cache entry %s; the file is not "
		                       "served (remove it)", uri->valuestring,
		                       blocked->valuestring);
	else if (!cJSON_IsString(uri) || !cJSON_IsString(want) ||
	    !cJSON_IsString(got) || !cJSON_IsNumber(wn) || !cJSON_IsNumber(gn) ||
	    !listed(m, uri->valuestring, want->valuestring))
		rc = 0;
	else if (cJSON_IsString(field))
		rc = sfs_diag_add_root(s->global, SFS_ERROR, m->own.url, "%s: the "
		                       "frontmatter %s sent (sha256:%s) "
		                       "differs from the one its listing "
		                       "gives, in %s; the skill is not served",
		                       uri->valuestring, m->server,
		                       got->valuestring, field->valuestring);
	else
		rc = sfs_diag_add_root(s->global, SFS_ERROR, m->own.url, "%s: %s "
		                       "sent %.0f bytes with sha256:%s, not "
		                       "the %.0f bytes with sha256:%s its "
		                       "listing gives; the file is not served",
		                       uri->valuestring, m->server,
		                       gn->valuedouble, got->valuestring,
		                       wn->valuedouble, want->valuestring);
	cJSON_Delete(o);
	return rc;
}

struct reporting {
	struct mcp_source *m;
	struct sfs_scan *s;
};

static int report_record(void *arg, int dfd, const char *name,
                         const uint8_t sum[32])
{
	struct reporting *r = arg;
	char *text = sfs_cache_read_at(dfd, name, 1 << 20, NULL);
	int rc = report_mismatch(r->m, r->s, text);

	(void)sum;
	free(text);
	return rc;
}

static int report_mismatches(struct mcp_source *m, struct sfs_scan *s,
                             const char *state)
{
	struct reporting r = { .m = m, .s = s };
	int dfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return 0;
	int rc = sfs_mcp_each_named(dfd, SFS_MCP_MISMATCH_PREFIX, ".json",
	                            report_record, &r);
	close(dfd);
	return rc == -ENOMEM ? rc : 0;
}

/* ---- discovery ------------------------------------------------------------ */

static int take_skills(struct mcp_source *m, struct sfs_scan *s)
{
	const cJSON *entry;
	int rc = 0;

	cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(
	                                  m->root.served.doc, "skills"))
		if (rc == 0)
			rc = take_entry(m, s, entry);
	if (rc < 0 || m->n == 0)
		return rc;
	sfs_sort(m->skills, m->n, sizeof(*m->skills), cmp_skill);
	/* two entries at one path: the first is served */
	size_t kept = 1;
	for (size_t i = 1; rc == 0 && i < m->n; i++) {
		if (strcmp(m->skills[i].dir, m->skills[kept - 1].dir) != 0) {
			m->skills[kept++] = m->skills[i];
			continue;
		}
		rc = sfs_diag_add_root(s->global, SFS_WARNING, m->own.url,
		                       "%sSKILL.md: listed twice; only the "
		                       "first entry is served",
		                       m->skills[i].prefix);
		free(m->skills[i].dir);
		free(m->skills[i].prefix);
	}
	m->n = kept;
	return rc;
}

/* The folders fetched_state looks in during a build, opened once at
 * discover: a build asked for two paths of 8 or more components per
 * listed file, a tenth of an MCP root's first mount at 1,000 skills. */
static void open_build_dirs(struct mcp_source *m)
{
	char *blobs;

	close_build_dirs(m);
	if (asprintf(&blobs, "%s/mcp/blobs", m->own.cache_dir) >= 0) {
		m->blobs_fd = open(blobs, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(blobs);
	}
	m->state_fd = open(m->root.state, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* What the cache held at discover (open_build_dirs) of the file with this
 * digest, as its identity's gen: 0 its verified bytes, 1 nothing yet, 2
 * a record that the server sent other bytes (source_mcp_fetch.c).  A
 * file fetched since asks for the next build. */
static int fetched_state(const struct mcp_source *m, const uint8_t sha256[32])
{
	char hex[HEX_LEN + 1], name[HEX_LEN + 32];

	sfs_hex_encode(sha256, 32, hex);
	if (m->blobs_fd >= 0 && faccessat(m->blobs_fd, hex, F_OK, 0) == 0)
		return 0;
	snprintf(name, sizeof(name), SFS_MCP_MISMATCH_PREFIX "%s.json", hex);
	return m->state_fd >= 0 && faccessat(m->state_fd, name, F_OK, 0) == 0 ?
	       2 : 1;
}

/*
 * The unit a former mount kept of the skill k (kept_units.c), when it
 * was made from this very entry of the listing (its digest, the folder's
 * version, names every file's path, size and digest, and the listed
 * frontmatter) and the cache holds what it held of each file then
 * (fetched_state: SKILL.md validated from its file or from the listed
 * frontmatter; under a trust policy, which files were judged); else
 * NULL.  Such a skill is neither listed nor its SKILL.md read, verified,
 * parsed or scanned again.  The start keeps the units again when it
 * reads a skill whose SKILL.md is in the cache: one validated from the
 * listed frontmatter costs little more than its kept unit, and a first
 * mount (an empty cache) writes none (2.1 MB at 1,000 skills).
 */
static struct sfs_unit *kept_unit(struct mcp_source *m, const struct mcp_skill *k)
{
	struct sfs_unit *u = sfs_kept_units_find(m->kept, k->dir, k->id);
	struct sfs_mcp_file md;

	for (size_t i = 0; u && i < u->skill.nfiles; i++) {
		const struct sfs_file *e = &u->skill.files[i];
		if (S_ISREG(e->mode) &&
		    fetched_state(m, e->sha256) != (int)e->version.gen)
			u = NULL;
	}
	if (!u && sfs_mcp_skill_md_of(k->entry, &md) == 0 &&
	    fetched_state(m, md.sha256) == 0)
		m->missed = true;
	return u;
}

static int add_found(struct mcp_source *m, struct sfs_scan *s, unsigned idx)
{
	struct sfs_arena *a = s->paths ? s->paths : s->arena;

	for (size_t i = 0; i < m->n; i++) {
		const char *dir = sfs_arena_strdup(a, m->skills[i].dir);
		if (!dir || sfs_grow(&s->found, &s->capfound, s->nfound + 1,
		                     sizeof(*s->found)) < 0)
			return -ENOMEM;
		s->found[s->nfound++] = (struct sfs_found){
			.dir = dir, .skill_md = "SKILL.md", .root = idx,
			.same = m->starting ? kept_unit(m, &m->skills[i]) : NULL,
		};
	}
	if (m->n == 0)
		return sfs_diag_add_root(s->global, SFS_WARNING, m->own.url, "no "
		                         "skill found: %s lists none", m->server);
	return 0;
}

static void units_for(const struct mcp_source *m, bool strict,
                      unsigned trust, unsigned max_depth, size_t max_files,
                      unsigned idx, struct sfs_kept_for *f)
{
	/* every entry's time and owner are the listing file's */
	*f = (struct sfs_kept_for){
		.place = "mcp-units", .strict = strict, .trust = trust,
		.max_depth = max_depth, .max_files = max_files,
		.time = m->root.served.time, .uid = m->root.served.uid,
		.gid = m->root.served.gid, .root = idx,
	};
}

/* What a former mount kept of the root's units, for a build that has no
 * previous catalog to take them from (a start).  A file that is not
 * what this program wrote under its key is a warning and ignored. */
static int take_kept(struct mcp_source *m, struct sfs_scan *s, unsigned idx)
{
	struct sfs_kept_for f;
	uint8_t key[SFS_CACHE_KEY_LEN];

	m->starting = true;
	if (sfs_cache_key(m->own.cache_dir, key) < 0)
		return 0;   /* nothing can be kept */
	units_for(m, s->strict, s->trust, s->max_depth, s->max_files, idx, &f);
	return sfs_kept_units_take(m->own.cache_dir, m->own.url, key, &f,
	                           &m->kept, s->global);
}

static int discover(const struct sfs_source *src, struct sfs_scan *s,
                    unsigned idx, bool *exists)
{
	struct mcp_source *m = src->state;
	int rc = sfs_fetched_discover(s, &m->own, sfs_mcp_state_path, m->keep,
	                              "listing", &m->root, exists);

	m->server = m->argv ? m->argv[0] : m->root.location;
	if (rc <= 0)
		return rc;
	open_build_dirs(m);
	rc = s->reuse ? 0 : take_kept(m, s, idx);
	if (rc == 0)
		rc = take_skills(m, s);
	if (rc == 0)
		rc = add_found(m, s, idx);
	if (rc == 0)
		rc = report_mismatches(m, s, m->root.state);
	return rc;
}

/* ---- one skill's files ------------------------------------------------------ */

struct lister {
	struct mcp_source *m;
	const struct mcp_skill *k;
	struct sfs_scan *s;
	const struct sfs_found *f;
	struct sfs_arena *arena;
	struct sfs_diag_list *diags;
	struct sfs_listed *out;     /* what is listed so far */
};

/* A listed file not served: a warning, or an error for SKILL.md. */
static int hide(struct lister *l, const char *uri, const char *why)
{
	if (strcmp(uri, cJSON_GetObjectItemCaseSensitive(l->k->entry,
	                                                 "uri")->valuestring) == 0)
		return sfs_diag_add(l->diags, SFS_ERROR, l->f->dir, 0, 0, "",
		                    "%s: %s; the skill cannot be served", uri,
		                    why);
	return sfs_diag_add(l->diags, SFS_WARNING, l->f->dir, 0, 0, "",
	                    "%s: %s; hidden", uri, why);
}

/* Why rel cannot be a file's path in the skill, or NULL; *skip when it
 * lies in a folder a skill does not serve (hidden ones, node_modules). */
static const char *bad_path(struct lister *l, char *rel, bool *skip)
{
	unsigned depth = 0;
	char *clean = strdup(rel);
	bool plain = clean && sfs_path_clean_rel(clean) && *clean &&
	             strcmp(clean, rel) == 0;

	free(clean);
	*skip = false;
	if (!plain)
		return "not a plain path inside the skill's folder";
	for (char *c = rel, *end; c; c = end ? end + 1 : NULL, depth++) {
		end = strchr(c, '/');
		if (end)
			*end = '\0';
		const char *bad = sfs_bad_name(c);
		*skip = end && sfs_scan_hidden_in_skill(c);
		if (end)
			*end = '/';
		if (bad || *skip)
			return bad;
	}
	return depth > l->s->max_depth + 1 ? "folder nested too deep" : NULL;
}

/* Whether path (malloc'd, taken; NULL: out of memory) names an entry:
 * 1, 0, or -ENOMEM. */
static int path_exists(char *path)
{
	int rc = path ? access(path, F_OK) == 0 : -ENOMEM;

	free(path);
	return rc;
}

/* Whether the server was found to send other bytes for this digest
 * than the listing promised (source_mcp_fetch.c records it). */
static int mismatched(const struct mcp_source *m, const uint8_t sha256[32])
{
	return m->root.state ?
	       path_exists(sfs_mcp_mismatch_path(m->root.state, sha256)) : 0;
}

/* A file not fetched yet has another identity than the same file
 * fetched, or found not to match the listing: the build after the fetch
 * validates a SKILL.md (or withdraws the skill), where the one before
 * could only validate the listed frontmatter, and under a trust policy
 * judges a file the one before could not (security/unfetched). */
static int mark_unfetched(const struct mcp_source *m, struct sfs_file *e)
{
	int state = fetched_state(m, e->sha256);

	if (state < 0)
		return state;
	e->version.gen = (uint32_t)state;
	return 0;
}

static int add_file(void *arg, struct sfs_listed *out, const cJSON *r)
{
	struct lister *l = arg;

	l->out = out;
	struct sfs_mcp_file want;
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "uri");
	const char *uri = cJSON_IsString(u) ? u->valuestring : "(no uri)";
	bool skip;

	if (sfs_mcp_file_parse(r, &want) < 0)
		return hide(l, uri, "listed without a size and a sha256 digest");
	size_t plen = strlen(l->k->prefix);
	if (strncmp(uri, l->k->prefix, plen) != 0)
		return hide(l, uri, "not inside the skill's folder");
	char *rel = sfs_arena_strdup(l->arena, uri + plen);
	if (!rel)
		return -ENOMEM;
	const char *why = bad_path(l, rel, &skip);
	if (skip)
		return 0;
	if (why)
		return hide(l, uri, why);
	for (size_t i = 0; i < l->out->n; i++)
		if (strcmp(l->out->v[i].path, rel) == 0)
			return hide(l, uri, "listed twice, or also a folder");
	struct sfs_file *e;
	int rc = sfs_listed_add_file(l->out, rel, want.size, want.sha256, &e);
	if (rc == 0)
		rc = mark_unfetched(l->m, e);
	return rc;
}

static int list(const struct sfs_source *src, struct sfs_scan *s,
                struct sfs_found *f, struct sfs_arena *arena,
                struct sfs_diag_list *diags, struct sfs_tree *out)
{
	struct mcp_source *m = src->state;
	struct lister l = { .m = m, .s = s, .f = f, .arena = arena,
	                    .diags = diags };

	memset(out, 0, sizeof(*out));
	l.k = find_skill(m, f->dir);
	if (!l.k)
		return sfs_diag_add(diags, SFS_ERROR, f->dir, 0, 0, "",
		                    "not in the listing of %s", m->server);
	return sfs_fetched_list(s, f->dir, arena, diags, &m->root.served,
	                        l.k->id, cJSON_GetObjectItemCaseSensitive(
	                                     l.k->entry, "resources"),
	                        add_file, &l, out);
}

/* ---- reads ------------------------------------------------------------------ */

/*
 * The verified bytes of f in the cache: a descriptor, or -ENOENT when the
 * cache does not hold them.  The cache folder is the user's, writable by
 * whatever runs as the user (an agent's scripts too), so the bytes are
 * verified before they are served, as SEP-2640 asks of a cache that
 * others can write to, and served from the sealed copy made while they
 * were (verified.c): a file whose digest is not its name is
 * removed, to be fetched again, and so is anything else found at its
 * name (a symlink, a folder): -ENOENT then too.  -EEXIST when what is in
 * the way cannot be removed (*blocked: why, malloc'd).
 */
static int open_blob(struct mcp_source *m, const struct sfs_file *f,
                     char **blocked)
{
	*blocked = NULL;
	int fd = sfs_verified_reopen(&m->verified, f->sha256);
	if (fd >= 0)
		return fd;
	char *path = sfs_mcp_blob_path(m->own.cache_dir, f->sha256);
	if (!path)
		return -ENOMEM;
	fd = sfs_verified_open(&m->verified, path, f->sha256, f->size,
	                           blocked);
	free(path);
	return fd;
}

static bool known_bad(struct mcp_source *m, const uint8_t sum[32])
{
	bool bad = false;

	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; !bad && i < m->nbad; i++)
		bad = memcmp(m->bad[i], sum, 32) == 0;
	pthread_mutex_unlock(&m->lock);
	return bad;
}

static void remember_bad(struct mcp_source *m, const uint8_t sum[32])
{
	pthread_mutex_lock(&m->lock);
	if (sfs_grow(&m->bad, &m->capbad, m->nbad + 1, sizeof(*m->bad)) == 0)
		memcpy(m->bad[m->nbad++], sum, 32);
	pthread_mutex_unlock(&m->lock);
}

/* The listed frontmatter of the skill whose SKILL.md the build names
 * `path` ("DIR/SKILL.md"), or NULL. */
static const cJSON *frontmatter_at(const struct mcp_source *m,
                                   const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : NULL;
	const struct mcp_skill *k = dir ? find_skill(m, dir) : NULL;

	free(dir);
	return k ? cJSON_GetObjectItemCaseSensitive(k->entry, "frontmatter")
	         : NULL;
}

static int open_skill_md(const struct sfs_source *src, const char *path,
                         const struct sfs_file *f, struct stat *st)
{
	struct mcp_source *m = src->state;

	(void)path;
	if (!m || !sfs_fetched_can_open(&m->root, f))
		return -EINVAL;
	char *blocked;
	int fd = open_blob(m, f, &blocked);
	free(blocked);   /* said by the read of the file */
	if (fd == -EEXIST)
		return -EIO;
	if (fd == -ENOENT) {
		/* not read yet, or it did not match the listing */
		const cJSON *fm = frontmatter_at(m, path);
		int bad = mismatched(m, f->sha256);
		return bad < 0 ? bad : !bad && cJSON_IsObject(fm) ? -EAGAIN :
		       -EIO;
	}
	if (fd < 0)
		return fd;
	sfs_source_listed_stat(f, st);
	return fd;
}

static cJSON *listed_frontmatter(const struct sfs_source *src,
                                 const char *dir)
{
	const struct mcp_source *m = src->state;
	const struct mcp_skill *k = m ? find_skill(m, dir) : NULL;
	const cJSON *fm = k ? cJSON_GetObjectItemCaseSensitive(k->entry,
	                                                       "frontmatter")
	                    : NULL;

	return fm ? cJSON_Duplicate(fm, true) : cJSON_CreateNull();
}

/* want fetched into the cache, through the kept client when no other
 * read is using it, else through one of this read's own; a stdio
 * server's reads wait for the kept one. */
static int fetch(struct mcp_source *m, const struct sfs_mcp_file *want,
                 char *why, size_t wlen)
{
	struct sfs_mcp_client *own = NULL;
	int rc;

	if (m->argv ? pthread_mutex_lock(&m->client_lock) == 0 :
	              pthread_mutex_trylock(&m->client_lock) == 0) {
		rc = sfs_mcp_fetch_file(&m->client, m->root.location, &m->opts,
		                        m->own.cache_dir, want, why, wlen);
		pthread_mutex_unlock(&m->client_lock);
		return rc;
	}
	rc = sfs_mcp_fetch_file(&own, m->root.location, &m->opts, m->own.cache_dir,
	                        want, why, wlen);
	sfs_mcp_client_close(own);
	return rc;
}

/* Tells the caller (sfs_config.found) that a build would now report
 * what the last did not. */
static void tell_found(const struct mcp_source *m)
{
	if (m->found)
		m->found(m->found_arg);
}

/* The cache entry of want, in the way and not removable: recorded for
 * status.json, told when new; EIO for the reader. */
static int blocked_entry(struct mcp_source *m, const struct sfs_mcp_file *want,
                         const char *why)
{
	int had = mismatched(m, want->sha256);

	if (had >= 0 && sfs_mcp_note_blocked(m->root.state, want, why) == 0 && !had)
		tell_found(m);
	return -EIO;
}

/* A file not in the cache yet is fetched at its first read: served only
 * when its bytes are those listed, an error (EIO) for the reader else,
 * and a finding of a build made at once (sfs_config.found). */
static int open_file(const struct sfs_source *src, int root_fd,
                     const struct sfs_skill *s, const struct sfs_file *f)
{
	struct mcp_source *m = src->state;
	char why[1024] = "", *uri, *blocked = NULL;

	(void)root_fd;
	if (!m || !sfs_fetched_can_open(&m->root, f))
		return -EINVAL;
	int fd = open_blob(m, f, &blocked);
	if (fd != -ENOENT && fd != -EEXIST)
		return fd;
	const struct mcp_skill *k = find_skill(m, s->dir);
	if (!k || known_bad(m, f->sha256)) {
		free(blocked);
		return -EIO;
	}
	if (asprintf(&uri, "%s%s", k->prefix, f->source) < 0) {
		free(blocked);
		return -ENOMEM;
	}
	struct sfs_mcp_file want = { .uri = uri, .size = f->size };
	memcpy(want.sha256, f->sha256, 32);
	if (fd == -EEXIST) {
		remember_bad(m, f->sha256);
		fd = blocked_entry(m, &want, blocked ? blocked : "");
		free(blocked);
		free(uri);
		return fd;
	}
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(k->entry, "uri");
	if (cJSON_IsString(md) && strcmp(md->valuestring, uri) == 0)
		want.frontmatter = cJSON_GetObjectItemCaseSensitive(
			k->entry, "frontmatter");
	int had = mismatched(m, f->sha256);
	int rc = fetch(m, &want, why, sizeof(why));
	free(uri);
	if (rc == -EBADMSG) {
		remember_bad(m, f->sha256);
		if (had == 0)
			tell_found(m);
	}
	if (rc < 0)
		return rc == -ENOMEM ? rc : -EIO;
	fd = open_blob(m, f, &blocked);
	free(blocked);
	return fd == -EEXIST || fd == -ENOENT ? -EIO : fd;
}

/* A file's verified bytes, only from the cache (the security pass's):
 * -ENOENT when they would have to be fetched, -EIO when what is in their
 * way cannot be removed. */
static int open_at_hand(const struct sfs_source *src,
                        const struct sfs_file *f)
{
	struct mcp_source *m = src->state;
	char *blocked;

	if (!m || !sfs_fetched_can_open(&m->root, f))
		return -EINVAL;
	int fd = open_blob(m, f, &blocked);
	free(blocked);   /* said by a read of the file */
	return fd == -EEXIST ? -EIO : fd;
}

/* After a start that read a skill no former mount kept: the root's units
 * kept for the next start, in place of the former ones (as a git root's,
 * git.c: not after a rebuild, whose new generation would wait for the
 * file). */
static void built(const struct sfs_source *src, const struct sfs_catalog *cat,
                  unsigned idx)
{
	struct mcp_source *m = src->state;
	struct sfs_kept_for f;
	uint8_t key[SFS_CACHE_KEY_LEN];

	if (!m)
		return;
	/* the catalog holds its own references */
	sfs_kept_units_free(m->kept);
	m->kept = NULL;
	close_build_dirs(m);
	if (m->starting && m->missed && m->root.served.doc &&
	    sfs_cache_key(m->own.cache_dir, key) == 0) {
		units_for(m, cat->strict, cat->trust, cat->max_depth,
		          cat->max_files, idx, &f);
		/* a cache that cannot be written: the next start reads every
		 * skill, as this one did */
		(void)sfs_kept_units_save(m->own.cache_dir, m->own.url, key,
		                          &f, cat->units, cat->nunits);
	}
	m->starting = m->missed = false;
}

/* The server's folder of listings (its verified files are shared). */
static char *cache_path(const struct sfs_source_url *u, const char *cache_dir)
{
	return sfs_mcp_state_path(cache_dir, u->location);
}

static const struct sfs_cache_place cache_places[] = {
	{ "mcp", SFS_CACHE_LISTINGS },
	{ "mcp/blobs", SFS_CACHE_BLOBS },
	/* an MCP root's skills as its last start built them: read at a
	 * start only, made again by the next one */
	{ "mcp-units", SFS_CACHE_FILES },
	{ NULL, 0 },
};

const struct sfs_source_ops sfs_source_mcp = {
	.kind = "mcp",
	.open = open_state,
	.update = sfs_source_mcp_update,
	.listen = sfs_source_mcp_listen,
	.cache_path = cache_path,
	.cache_places = cache_places,
	.discover = discover,
	.list = list,
	.open_skill_md = open_skill_md,
	.listed_frontmatter = listed_frontmatter,
	.open_file = open_file,
	.open_at_hand = open_at_hand,
	.version = version,
	.version_key = "listing",
	.built = built,
	.release = free_state,
};
