/*
 * source.h - where a root's skills come from: the whole life of a source,
 * whatever its kind: how a root names it, the state one build opens of
 * it, its update and its listening, how a lockfile pins it, what it can
 * do (enum sfs_source_cap) and the few operations the catalog and the
 * mount's reads need of it.
 *
 * A new kind of source: one file in shared/sources/ (<kind>.c) defining
 * its struct sfs_source_ops, its line in source_form.c's table of kinds
 * (the one place that names them: its form, its URL parser beside it,
 * its operations by a weak reference), and its line in meson.build's
 * source_kinds.  Nothing else tests a kind: the rest asks the table
 * (sfs_source_kind, sfs_source_form, sfs_source_caps).
 */
#ifndef SKILLSFS_SOURCE_H
#define SKILLSFS_SOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "skillsfs.h"

struct sfs_arena;
struct sfs_catalog;
struct sfs_diag_list;
struct sfs_found;
struct sfs_listed;
struct sfs_scan;
struct sfs_source;
struct sfs_tree;

/* How a lockfile pins a source of the kind (lockfile.c). */
enum sfs_lock_policy {
	/* by the digests of the skills it served (a folder, an MCP server,
	 * whose listing is whatever it answers now) */
	SFS_LOCK_SKILLS,
	/* by the commit it served, which its URL is rewritten to name */
	SFS_LOCK_COMMIT,
};

struct sfs_source_url;

/* How the entries of a place in the cache folder are grouped: what
 * cache_gc.c counts, keeps and removes as one (cache_gc.h). */
enum sfs_cache_group {
	/* each NAME.git folder, a clone, removed under its fetch lock
	 * (NAME.git.fetching) */
	SFS_CACHE_CLONES,
	/* each folder, a server's listings: the "sha256:<hex>" they name
	 * keep the files of the blobs/ place beside it */
	SFS_CACHE_LISTINGS,
	/* each file named by its 64-hex digest, kept while a kept folder of
	 * listings names it */
	SFS_CACHE_BLOBS,
	/* each file, made again when missing */
	SFS_CACHE_FILES,
	/* the place is one file, made again when missing */
	SFS_CACHE_FILE,
};

/* A place in the cache folder that a kind keeps state in. */
struct sfs_cache_place {
	const char *path;     /* under the cache folder: "mcp/blobs" */
	enum sfs_cache_group group;
};

/* What an update fetches ahead of a read (sfs_source_update): the
 * listing only (a mount under trust=report), also each SKILL.md
 * (sfs_config.fetch_skill_mds), or every file of every skill (a trust
 * policy that judges what it serves: withhold, hold). */
enum sfs_fetch_ahead {
	SFS_FETCH_LISTING,
	SFS_FETCH_SKILL_MDS,
	SFS_FETCH_ALL_FILES,
};

/* What a build gives the constructor of a source's state. */
struct sfs_source_args {
	const char *root;       /* the root as configured (its URL) */
	const char *version;    /* what the previous build of the root
	                           served (ops->version), to serve again; or
	                           NULL */
	const char *cache_dir;  /* the cache folder, or NULL */
	const char *note;       /* why its last update failed, or NULL */
	const struct sfs_source_options *opts;   /* the root's, or NULL */
	void (*found)(void *);  /* sfs_config.found, found_arg */
	void *found_arg;
};

/* The arguments a kind's state keeps copies of, owned. */
struct sfs_source_owned {
	char *url;              /* args->root */
	char *cache_dir;        /* or NULL */
	char *note;             /* or NULL */
};

/* Copies a's root, cache folder and note into o: 0, or -ENOMEM with o
 * holding what was copied (for sfs_source_owned_free). */
int sfs_source_owned_copy(const struct sfs_source_args *a,
                          struct sfs_source_owned *o);
void sfs_source_owned_free(struct sfs_source_owned *o);

/*
 * One kind of source.  Each file of a skill carries an identity
 * (sfs_file's size, mtime, and dev, ino and ctime or version): a
 * folder's is what stat says; another source stamps the version of the
 * file in sfs_file.version (a blob id for git, a digest for MCP), so that
 * the reuse of units and digests across builds (unit.c, digest.c), which
 * compares identities, works for it too.
 *
 * Change detection is not here: the mount watches the sources that are
 * SFS_SOURCE_WATCHED with inotify and rescans what changed (fs/watch.c,
 * fs/refresh.c), and holds changed files open until the next refresh
 * (backing_pin).  A git commit or a remote server's verified bytes never
 * change under a reader; such a source is SFS_SOURCE_VERSIONED: it is
 * refreshed when it is updated (fetch_interval, SIGHUP, or a listener
 * that heard it changed).
 *
 * A source that keeps state keeps what one build resolved it to (a
 * repository opened, a commit) in sfs_source.state, made by its open()
 * and freed by its release(): the catalog holds it as long as the mount
 * may read through it.
 */
/* What a root's text tells of its kind: its prefix, capabilities, lock
 * policy and URL syntax, and its operations.  One line per kind, in
 * source_form.c's table; it names the operations weakly, so that a
 * program that only reads a configuration, skillsfs-mcp, links none of
 * the kinds nor what they use (libgit2, libcurl, libarchive): there ops
 * is NULL. */
struct sfs_source_ops;
struct sfs_source_form {
	const char *kind;     /* status.json's name, as sfs_source_ops.kind */
	/* The kind's operations (sources/<kind>.c), NULL in a program that
	 * does not link them: sfs_source_kind then loads them, by name, from
	 * the module of the kinds when the program names one (kinds.c). */
	const struct sfs_source_ops *ops;
	const char *ops_name;
	/* What a root of the kind starts with ("git+"); NULL for the folder,
	 * which is every root no other kind claims. */
	const char *prefix;
	/* A second form of it, or NULL ("http://" beside "https://"). */
	const char *prefix2;
	unsigned caps;        /* enum sfs_source_cap */
	/* The capabilities of one root of the kind, when its form changes
	 * them (an MCP server run as a command); NULL: caps. */
	unsigned (*root_caps)(const char *root);
	enum sfs_lock_policy lock;
	/* Parses a root of the kind (as sfs_source_url_parse); NULL for a
	 * kind that is not named by a URL. */
	int (*parse_url)(const char *s, struct sfs_source_url *u,
	                 const char **why);
	/* What --source URL says of a root of the kind (skillsfs --help):
	 * its URLs and what they bring; NULL for the folder. */
	const char *help;
};

/* The form of the kind root is of (the folder's when no prefix
 * matches); never NULL. */
const struct sfs_source_form *sfs_source_form(const char *root);
/* The form of the kind status.json calls `name`, or NULL. */
const struct sfs_source_form *sfs_source_form_named(const char *name);
/* The i-th line of the table, or NULL past its end. */
const struct sfs_source_form *sfs_source_form_at(size_t i);

struct sfs_source_ops {
	const char *kind;     /* status.json's name: "folder", "git" */
	/* The state of a source of the kind for one build (release() frees
	 * it), NULL when out of memory; a root that cannot be parsed or
	 * read is reported by discover.  NULL (the operation) for a kind
	 * without state. */
	void *(*open)(const struct sfs_source_args *a);
	/* sfs_source_update of a root of the kind (opts: its options, or
	 * NULL; ahead: what to fetch besides the listing, each file only
	 * when the cache does not hold its verified bytes).  Returns 0 or
	 * -errno; NULL for an unversioned kind. */
	int (*update)(const char *root, const struct sfs_source_options *opts,
	              const char *cache_dir, enum sfs_fetch_ahead ahead,
	              char *version,
	              size_t vlen, unsigned *ttl_ms, char *why, size_t wlen);
	/* The entry of the cache folder that holds what a root of the kind
	 * (parsed: u) keeps there, a path under cache_dir (malloc'd), or
	 * NULL when it keeps nothing or no memory (cache_gc.h).  NULL (the
	 * operation) for a kind that keeps nothing. */
	char *(*cache_path)(const struct sfs_source_url *u,
	                    const char *cache_dir);
	/* The places of the cache folder the kind keeps state in, ended by
	 * one with a NULL path; NULL for a kind that keeps nothing.  The
	 * collection (cache_gc.c) reads the kinds' places, naming none. */
	const struct sfs_cache_place *cache_places;
	/* sfs_source_listen of a root of the kind; NULL when the kind sends
	 * no news (SFS_SOURCE_LISTENS says which roots may). */
	int (*listen)(const char *root, const struct sfs_source_options *opts,
	              void (*heard)(void *), bool (*stop)(void *), void *arg,
	              char *why, size_t wlen);
	/* Finds the skill folders of the root (catalog index idx) and
	 * appends them to s->found, sorted by path; *exists tells whether
	 * the root could be read.  Returns 0 or -ENOMEM (what cannot be read
	 * is a finding in s->global). */
	int (*discover)(const struct sfs_source *src, struct sfs_scan *s,
	                unsigned idx, bool *exists);
	/* Lists one skill found by discover, with identities and digests:
	 * as sfs_scan_tree. */
	int (*list)(const struct sfs_source *src, struct sfs_scan *s,
	            struct sfs_found *f, struct sfs_arena *arena,
	            struct sfs_diag_list *diags, struct sfs_tree *out);
	/* Opens SKILL.md (`f` as listed, `path` its absolute name) for
	 * reading with pread, and sets *st to the identity of what was
	 * opened.  Returns a descriptor or -errno: -EINVAL when it is not a
	 * regular file, -ESTALE when it is no longer the file listed,
	 * -EAGAIN when it is not at hand yet and listed_frontmatter gives
	 * what the build validates instead. */
	int (*open_skill_md)(const struct sfs_source *src, const char *path,
	                     const struct sfs_file *f, struct stat *st);
	/* The frontmatter the source's listing gives for the skill found at
	 * dir: a copy (cJSON null when it gives none), or NULL when out of
	 * memory.  NULL (the operation) for a source whose SKILL.md is
	 * always at hand. */
	cJSON *(*listed_frontmatter)(const struct sfs_source *src,
	                             const char *dir);
	/* What the mount holds for the root while a generation serves it
	 * (a folder: an O_PATH descriptor), a descriptor or -1; the
	 * generation closes it.  NULL: nothing to hold (a commit's objects,
	 * a digest's verified file). */
	int (*open_root)(const struct sfs_source *src);
	/* Opens the file f of the skill s for reading, through root_fd
	 * (open_root's, or -1), and only if it still holds the bytes the
	 * listing saw.  Returns a descriptor of a regular file or -errno
	 * (-ESTALE: it changed since). */
	int (*open_file)(const struct sfs_source *src, int root_fd,
	                 const struct sfs_skill *s, const struct sfs_file *f);
	/* As open_file, but only from what is at hand (the cache's verified
	 * bytes): -ENOENT when the file would have to be fetched.  The
	 * security pass reads a remote source's files through it under a
	 * trust policy, after an update that fetched them all
	 * (SFS_FETCH_ALL_FILES).  NULL for a source that never reads over
	 * the network (SFS_SOURCE_READS_REMOTE unset). */
	int (*open_at_hand)(const struct sfs_source *src,
	                    const struct sfs_file *f);
	/* What this build serves of the source, for status.json: the
	 * commit's id of a git source; NULL when discover could not resolve
	 * it.  NULL (the operation) for a folder, which has no version. */
	const char *(*version)(const struct sfs_source *src);
	const char *version_key;   /* status.json's name of it: "commit" */
	/* A source whose files change under a reader (SFS_SOURCE_WATCHED):
	 * pin opens f of the skill s by its path, if it still is the file,
	 * size and mtime the listing saw (backing_pin), and returns a
	 * descriptor or -errno; check_pinned tells whether such a
	 * descriptor still shows what the listing saw (0 or -errno).  NULL
	 * for another, whose bytes cannot change before the next build. */
	int (*pin)(const struct sfs_skill *s, const struct sfs_file *f);
	int (*check_pinned)(int fd, const struct sfs_file *f);
	/* Told the catalog built with the root (index idx), its units
	 * final: what the source keeps of them for a later mount.  NULL:
	 * nothing. */
	void (*built)(const struct sfs_source *src,
	              const struct sfs_catalog *cat, unsigned idx);
	/* Frees the state open() made (never NULL); NULL when the kind has
	 * none. */
	void (*release)(void *state);
};

/* One root of a catalog and where its skills come from. */
struct sfs_source {
	const struct sfs_source_ops *ops;
	const char *root;     /* as configured (a folder's path); NULL for
	                         the docs folder, which lies below no root */
	void *state;          /* the source's own; NULL for the docs
	                         folder */
	unsigned caps;        /* sfs_source_caps(root) */
	/* private: true in the root's options (sfs_source_options) */
	bool private_skills;
};

/* Whether root names a source by a URL (git+..., mcp+...) rather than a
 * folder. */
bool sfs_source_is_url(const char *root);
/* The operations of the kind root is of (the folder's when no prefix
 * matches); of the kind status.json calls `name`.  NULL when the program
 * neither links nor loads that kind (skillsfs-mcp has none) or, by name,
 * for no kind. */
const struct sfs_source_ops *sfs_source_kind(const char *root);
const struct sfs_source_ops *sfs_source_kind_named(const char *name);
/* The i-th kind the program has (links or loads), in the table's
 * order, or NULL past the last. */
const struct sfs_source_ops *sfs_source_kind_at(size_t i);
/* The operations named ops_name ("sfs_source_git") from the module of
 * the kinds, or NULL when the program names none or it cannot be loaded
 * (kinds.c). */
const struct sfs_source_ops *sfs_kinds_load(const char *ops_name);

/* The source of root i of the catalog; i == sfs_catalog_nroots() is the
 * docs folder's (sfs_catalog_docs).  NULL past that. */
const struct sfs_source *sfs_catalog_source(const sfs_catalog *cat,
                                            size_t i);

/* ---- source.c: a root's source through its kind's operations ----------- */

/* The source of a configured root (a folder's path, or a URL), for one
 * build of cfg (NULL for the docs folder's), in *out; `version` (or
 * NULL) is what the previous build of the same root served
 * (ops->version), to serve again.  Returns 0, -ENOMEM, or -ENOSYS
 * when the program does not link root's kind (skillsfs-mcp); a root that
 * cannot be read is reported by discover. */
int sfs_source_open(const struct sfs_config *cfg, const char *root,
                    const char *version, struct sfs_source *out);

/* ---- the URLs of sources: sources/url.h; parsed in source_form.c ------- */

#include "sources/url.h"

/* Parses s into *u through its kind's parse_url: the kind's form, where
 * the source is read from, what it names (free it with
 * sfs_source_url_free).  Returns 0, -ENOMEM, or -EINVAL with *why saying
 * what is wrong (static text). */
int sfs_source_url_parse(const char *s, struct sfs_source_url *u,
                         const char **why);
/* The same, with what is wrong written to why (wlen bytes): for an update
 * that reports in a `why` of its own. */
int sfs_source_url_parse_why(const char *s, struct sfs_source_url *u,
                             char *why, size_t wlen);

/* ---- sources/fetched.c: what the fetched kinds say at discover -------- */

/* The location of root url (malloc'd) into *location: 0; -ENOMEM; or 1
 * when the URL is bad, which is reported as the root's error. */
int sfs_fetched_location(struct sfs_scan *s, const char *url,
                         char **location);
/* The root's error that there is no cache folder to fetch location
 * into; 0 or -ENOMEM. */
int sfs_fetched_no_cache(struct sfs_scan *s, const char *url,
                         const char *location);
/* The root's error that nothing is fetched yet; note: what the fetch
 * said, or NULL.  0 or -ENOMEM. */
int sfs_fetched_not_yet(struct sfs_scan *s, const char *url,
                        const char *note);
/* The cache file at path whole (at most max bytes, else -EFBIG),
 * NUL-terminated (malloc'd) in *text, its length in *len, its stat in
 * *st: 0 or -errno. */
int sfs_fetched_read(const char *path, off_t max, char **text, size_t *len,
                     struct stat *st);

/* A listing stored in a server's folder (an MCP server's, or a
 * website's, which keeps the same layout: mcp_listing.c's names). */
struct sfs_fetched_listing {
	char hex[65];           /* its name: the digest of its text */
	cJSON *doc;             /* owned: an object with a "skills" array */
	struct timespec time;   /* its file's: every entry's mtime */
	uid_t uid;
	gid_t gid;
};
/* A listing file larger than this is not read (an update refuses larger
 * answers long before). */
#define SFS_FETCHED_LISTING_MAX (256 << 20)
/* The listing a build serves from the folder `state`: `keep` (hex, or "")
 * while it is stored, else the current one, into *out (free out->doc
 * with cJSON_Delete).  0, -ENOENT when there is none, or -ENOMEM. */
int sfs_fetched_load_listing(const char *state, const char *keep,
                             struct sfs_fetched_listing *out);
/* What a kind that stores a listing resolves a root to at discover. */
struct sfs_fetched_root {
	char *location;         /* the URL without its kind's prefix */
	char *state;            /* its folder in the cache */
	struct sfs_fetched_listing served;
	bool ready;             /* served is loaded */
};
/* The first steps of such a kind's discover, the same for each: the
 * root's location, its folder in the cache (state_of: malloc'd, or NULL
 * when out of memory) and the listing to serve (keep, as
 * sfs_fetched_load_listing), into *out (each field set as far as it
 * went; the caller frees them), saying why not as the root's error, and
 * own->note, a failed update, as a warning naming the `noun` served
 * ("listing").  1 when the listing is loaded (out->ready, *exists),
 * 0 when not (said), or -ENOMEM. */
int sfs_fetched_discover(struct sfs_scan *s, const struct sfs_source_owned *own,
                         char *(*state_of)(const char *cache_dir,
                                           const char *location),
                         const char *keep, const char *noun,
                         struct sfs_fetched_root *out, bool *exists);
void sfs_fetched_root_free(struct sfs_fetched_root *r);
/* Adds the file a listing gives (its JSON) to the skill's tree l, or
 * says why not in the build's findings: 0 or -ENOMEM. */
typedef int sfs_fetched_add_fn(void *arg, struct sfs_listed *l,
                               const cJSON *file);
/* Lists the skill at dir of a listing served (its entry's digest id, its
 * files' JSON `files`, each handed to add) as sfs_source_ops.list, up to
 * s->max_files, ending in sfs_scan_finish_listing: the listing's skeleton
 * that both kinds that store one share.  0 or -ENOMEM. */
int sfs_fetched_list(const struct sfs_scan *s, const char *dir,
                     struct sfs_arena *arena, struct sfs_diag_list *diags,
                     const struct sfs_fetched_listing *served,
                     const uint8_t id[32], const cJSON *files,
                     sfs_fetched_add_fn *add, void *arg,
                     struct sfs_tree *out);
/* Whether a read may open f of the root r: r's listing is loaded, and f
 * is a regular file with a digest to verify its bytes against. */
bool sfs_fetched_can_open(const struct sfs_fetched_root *r,
                          const struct sfs_file *f);

/* ---- sources/git.c: a commit of a git repository ----------------------- */

struct git_repository;
struct git_commit;


/* ---- sources/git_repo.c: what the git source and its fetch share ------- */

/* The commit `ref` names in repo: a full commit id, a branch, a tag, or
 * (NULL) HEAD.  Returns 0 or libgit2's error. */
int sfs_git_find_commit(struct git_repository *repo, const char *ref,
                        struct git_commit **out);
/* The folder of the bare clone of the remote `location` (a URL without
 * "git+") under cache_dir (malloc'd), or NULL when there is no cache_dir
 * or no memory. */
char *sfs_git_clone_path(const char *cache_dir, const char *location);

/* ---- sources/git_fetch.c: a git root brought up to date ---------------- */

/* sfs_source_update for a git root; opts' stop (opts may be NULL) ends
 * the wait for a remote's fetch (-ECANCELED), which runs on alone, as
 * does a fetch without progress for opts' fetch_timeout_s (-ETIMEDOUT,
 * or -EBUSY when an earlier one given up so still holds the clone). */
int sfs_source_git_update(const char *root, const char *cache_dir,
                          const struct sfs_source_options *opts,
                          char *commit, size_t clen, char *why, size_t wlen);

/* ---- sources/mcp.c: the skills of an MCP server (SEP-2640) ------------- */

/* ---- mcp_listing.c: what the MCP source and its fetch share ------------ */

/* One file of a skills/list entry's resources, as the listing gives it. */
struct sfs_mcp_file {
	const char *uri;      /* the entry's own string */
	off_t size;
	uint8_t sha256[32];
	/* SKILL.md: the entry's frontmatter, which the file's must equal
	 * field by field (SEP-2640); NULL for another file */
	const cJSON *frontmatter;
};

/* The resource of `entry` (a skills/list entry) that is its SKILL.md.
 * Returns 0, or -EINVAL when the entry lists no such file or gives it no
 * valid size and "sha256:<hex>" digest. */
int sfs_mcp_skill_md_of(const cJSON *entry, struct sfs_mcp_file *out);
/* One resource {uri, size, digest}; 0 or -EINVAL. */
int sfs_mcp_file_parse(const cJSON *resource, struct sfs_mcp_file *out);

/* The folder of the server at `location` (a URL without "mcp+", or
 * stdio:NAME) under
 * cache_dir, or the file of verified bytes with that digest (malloc'd);
 * NULL when there is no cache_dir or no memory. */
char *sfs_mcp_state_path(const char *cache_dir, const char *location);
char *sfs_mcp_blob_path(const char *cache_dir, const uint8_t sha256[32]);
/* The files of a server's folder `state` (malloc'd; NULL when out of
 * memory): a stored listing, by the hex of its digest; the file that
 * names the listing to serve; the record of a file whose bytes did not
 * match the listing, by its listed digest (whose names start with
 * SFS_MCP_MISMATCH_PREFIX). */
char *sfs_mcp_listing_path(const char *state, const char *hex);
char *sfs_mcp_current_path(const char *state);
char *sfs_mcp_mismatch_path(const char *state, const uint8_t sha256[32]);
#define SFS_MCP_MISMATCH_PREFIX "mismatch-"
/* Records (or, bad false: forgets) that want->uri's bytes did not match
 * the listing, for status.json, in the record of its digest in the
 * server's folder `state`: the size and digest it got, or (field set) the
 * first frontmatter field in which a SKILL.md differs (mcp_fetch.c; the
 * well-known kind keeps its records so too). */
void sfs_mcp_note_mismatch(const char *state, const struct sfs_mcp_file *want,
                           off_t got_size, const uint8_t got[32],
                           const char *field, bool bad);
/* Records for status.json that the cache entry of `want` is in the way
 * of its verified bytes (why: which, and why it stays), in the record a
 * mismatch would have (source_mcp_fetch.c).  0 or -errno. */
int sfs_mcp_note_blocked(const char *state, const struct sfs_mcp_file *want,
                         const char *why);
/* The hex name of the server's current listing (state/current), in hex;
 * -ENOENT when there is none (mcp_prune.c). */
int sfs_mcp_current_hex(const char *state, char hex[65]);
/* Calls each(arg, dfd, name, its digest) for each entry of the folder
 * dfd named PREFIX<64 hex>SUFFIX ("listing-", ".json"), until one returns
 * other than 0: 0, what it returned, or -errno when dfd cannot be read
 * (mcp_prune.c). */
typedef int sfs_mcp_each_fn(void *arg, int dfd, const char *name,
                            const uint8_t sum[32]);
int sfs_mcp_each_named(int dfd, const char *prefix, const char *suffix,
                       sfs_mcp_each_fn *each, void *arg);
/* Appends to *v (*n digests, malloc'd) every digest "sha256:<hex>" that
 * a listing of the server's folder dfd names, unsorted (mcp_prune.c: a
 * scan of the text, which never removes too much).  0 or -ENOMEM. */
int sfs_mcp_listings_named(int dfd, uint8_t (**v)[32], size_t *n);
/* Removes from the cache what no longer serves (mcp_prune.c): in the
 * server's folder `state` (CACHE/mcp/NAME, or a website's
 * CACHE/wellknown/NAME, which keeps the same layout), every listing but
 * the current one and `previous` (hex, or NULL), and the mismatch
 * records of digests neither names; in the blobs/ beside `state`, each
 * verified file that no listing of that folder names, once it is ten
 * minutes old.  0 or -errno; a file that cannot be
 * removed is left. */
int sfs_mcp_prune(const char *cache_dir, const char *state,
                  const char *previous);

/* ---- sources/mcp_fetch.c: an MCP root brought up to date --------------- */

struct sfs_mcp_client;

/* Fetches `want` from the server at `location` (the root's URL without
 * "mcp+"; opts: the root's options) into the blob cache, only if its
 * bytes have the listed size and digest: 0, -EBADMSG when they do not
 * (recorded for status.json), or another -errno; *why says what failed.
 * *client is a client of the server kept from an earlier fetch, or NULL;
 * the one used is left there for the next (close it with
 * sfs_mcp_client_close), NULL when it failed. */
int sfs_mcp_fetch_file(struct sfs_mcp_client **client, const char *location,
                       const struct sfs_source_options *opts,
                       const char *cache_dir, const struct sfs_mcp_file *want,
                       char *why, size_t wlen);
/* sfs_source_update for an MCP root: `version` is the listing's digest
 * (64 hex digits; vlen >= 65).  opts (or NULL) are the root's options:
 * token_file holds the bearer token, read now (-EACCES when the server
 * answered 401); argv and env the command of a stdio root, run for this
 * update and ended after it.  The listing is fetched, and the SKILL.md
 * the cache does not hold of each entry that gives no frontmatter to
 * build from, or with SFS_FETCH_SKILL_MDS of every entry (skillsfs check
 * validates them all), or with SFS_FETCH_ALL_FILES every file of every entry.
 * *ttl_ms is the listing's ttlMs (the smallest of its pages'), 0 when
 * it gives none. */
int sfs_source_mcp_update(const char *root,
                          const struct sfs_source_options *opts,
                          const char *cache_dir, enum sfs_fetch_ahead ahead,
                          char *version, size_t vlen, unsigned *ttl_ms,
                          char *why, size_t wlen);
/* sfs_source_listen for an MCP root; -EOPNOTSUPP for a stdio one. */
int sfs_source_mcp_listen(const char *root,
                          const struct sfs_source_options *opts,
                          void (*heard)(void *), bool (*stop)(void *),
                          void *arg, char *why, size_t wlen);

#endif
