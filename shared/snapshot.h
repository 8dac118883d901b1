/*
 * snapshot.h - how the parts that build a catalog snapshot talk to each
 * other: discovery and tree listing (scan.c), digests (digest.c), the
 * skill folders shared between snapshots (unit.c) and the catalog itself
 * (catalog.c).  Private to those files.
 */
#ifndef SKILLSFS_SNAPSHOT_H
#define SKILLSFS_SNAPSHOT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* strerror, safe on any thread (skill folders are read on several). */
static inline const char *sfs_strerror(int err)
{
	const char *s = strerrordesc_np(err);
	return s ? s : "unknown error";
}

/* qsort without the undefined behaviour of a NULL array of no elements. */
static inline void sfs_sort(void *v, size_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

struct sfs_scan;
struct sfs_kept_units;
struct sfs_unit;
struct sfs_source;

/* ---- arena.c (beyond internal.h) ---------------------------------------- */

/* Frees everything allocated from the arena but keeps one block for what
 * comes next: a scratch arena reused for one skill folder after another. */
void sfs_arena_reset(struct sfs_arena *a);

/* ---- digest.c ---------------------------------------------------------- */

/* SHA-256 of everything readable from fd, and how many bytes that was.
 * Returns 0 or -errno. */
int sfs_sha256_fd(int fd, uint8_t out[32], off_t *len);

/* SHA-256 of the regular file `name` relative to dirfd (AT_FDCWD and an
 * absolute name work too), never following a symlink in the last
 * component.  *st, when st is not NULL, is the file's fstat once it was
 * opened, also when it is not a regular file (-EINVAL).  Returns 0 or
 * -errno. */
int sfs_sha256_at(int dirfd, const char *name, uint8_t out[32], off_t *len,
                  struct stat *st);
/* The same, and the bytes hashed in *kept (malloc, NUL-ended after *len
 * bytes) when the file held 1 to keep_max bytes when opened; else *kept
 * is NULL and the file is hashed as it streams by. */
int sfs_sha256_keep_at(int dirfd, const char *name, size_t keep_max,
                       uint8_t out[32], off_t *len, struct stat *st,
                       unsigned char **kept);

/*
 * The digests of a previous snapshot, found by the identity of the file
 * they were computed from (device, inode, size, mtime), so that a rebuild
 * hashes only what changed even when files move between folders.  The
 * entries point into the previous snapshot, which must outlive the cache.
 */
struct sfs_digest_cache {
	const struct sfs_file **slots;  /* owned (malloc); open addressing */
	size_t mask;                    /* slots - 1; 0 when empty */
	size_t n;
};

/* Sizes the cache for about `expected` entries.  Returns 0 or -ENOMEM. */
int sfs_digest_cache_init(struct sfs_digest_cache *c, size_t expected);
/* Remembers f when it carries a digest. */
void sfs_digest_cache_add(struct sfs_digest_cache *c, const struct sfs_file *f);
/* The digest of a file with e's identity (inode, size, mtime, version),
 * or NULL. */
const uint8_t *sfs_digest_cache_find(const struct sfs_digest_cache *c,
                                     const struct sfs_file *e);
void sfs_digest_cache_free(struct sfs_digest_cache *c);

/* The previous snapshot's digests by identity, filled by whichever thread
 * needs them first. */
struct sfs_digests {
	pthread_mutex_t lock;
	atomic_bool filled;
	struct sfs_digest_cache cache;
};

/*
 * The digest the previous snapshot has for the file e describes (path and
 * identity set): first from s->hint, the previous files of the skill
 * being listed, by path; then from any file of s->prev by identity (the
 * cache is filled on first use, so a rebuild that finds every file in
 * its hint never builds it).  NULL when the file must be hashed.
 */
const uint8_t *sfs_digest_reuse(struct sfs_scan *s, const struct sfs_file *e);

/* ---- scan.c: discovery ------------------------------------------------- */

/* A folder that holds SKILL.md (or skill.md). */
struct sfs_found {
	const char *dir;        /* absolute; arena */
	const char *skill_md;   /* "SKILL.md" or "skill.md" as found */
	const char *plugin;     /* the Claude Code plugin it is part of, or
	                           NULL (plugins.c); arena */
	const char *real;       /* reached through a symlink: its real path
	                           (the same folder found by another path is
	                           one skill folder); else NULL; arena */
	unsigned root;
	/* The previous snapshot's unit of this folder when discovery found,
	 * by stat alone, that nothing in it changed (sfs_unit_if_unchanged);
	 * not owned. */
	struct sfs_unit *same;
};

/* A growable array of strings (in the arena), owned by the scan. */
struct sfs_strvec {
	const char **v;   /* owned (malloc) */
	size_t n, cap;
};

/* A skill folder discovery came upon, as it asks whether the previous
 * snapshot's unit of it can be taken as it is (sfs_scan.unit_if_unchanged). */
struct sfs_probe {
	int dfd;                /* its parent folder */
	const char *name;       /* in dfd */
	const char *dir;        /* absolute */
	struct stat *st;        /* its identity, or mode 0 when not known:
	                           then filled in */
	unsigned root;
	const char *plugin;     /* as struct sfs_found */
};

struct sfs_scan;
typedef struct sfs_unit *sfs_unchanged_fn(const struct sfs_scan *s,
                                          const struct sfs_probe *p);

struct sfs_scan {
	struct sfs_arena *arena;         /* not owned; discovery's strings */
	struct sfs_arena *paths;         /* not owned; the found folders'
	                                    paths, needed while building only
	                                    (units keep their own); NULL:
	                                    arena */
	struct sfs_diag_list *global;    /* findings not tied to a skill */
	unsigned max_depth;
	size_t max_entries;
	size_t max_files;
	bool strict;                     /* sfs_config.strict (units depend
	                                    on it) */
	unsigned trust;                  /* sfs_config.trust (kept units
	                                    depend on it) */
	struct sfs_strvec dirs;          /* folders read by discovery */
	struct sfs_found *found;         /* owned (malloc) */
	size_t nfound, capfound;
	/* The previous snapshot's units, when they say what this build
	 * would find (same roots and options), and the time before which a
	 * folder's ctime proves its listing unchanged. */
	const struct sfs_catalog *reuse; /* not owned; may be NULL */
	struct timespec trusted;
	unsigned ctime_margin_ms;        /* sfs_config's, or its default */
	/* sfs_config.changed, sorted (a copy owned by the build), or NULL
	 * when not known */
	const char **changed;
	size_t nchanged;
	/* Set by the catalog (sfs_unit_if_unchanged): reuse's unit of a
	 * skill folder when, by stat alone, nothing in it changed, else
	 * NULL.  NULL: every skill folder is listed.  A start (no reuse)
	 * has a folder root's discovery set it with `kept` (dir.c): a
	 * former mount's units, every entry changed before `trusted`. */
	sfs_unchanged_fn *unit_if_unchanged;
	struct sfs_kept_units *kept;      /* units no folder takes dropped */
	/* sfs_config.held (with reuse only): folders whose unit in reuse
	 * is taken as it is */
	const char *const *held;
	size_t nheld;
	/* Digests: reused from the previous snapshot (see
	 * sfs_digest_reuse) or computed. */
	const struct sfs_catalog *prev;  /* not owned; may be NULL */
	const struct sfs_file *hint;     /* sorted by path; not owned */
	size_t nhint;
	struct sfs_digests *digests;     /* not owned; may be NULL */
	size_t hashed;
	/* sfs_config.before_listing and its argument */
	void (*before_listing)(const char *path, void *arg);
	void *before_listing_arg;
	/* Which bytes a listing keeps (sfs_tree.bytes): files of at most
	 * keep_file_max bytes, keep_skill_max bytes in all per skill; a
	 * file past either is hashed as it streams by. */
	size_t keep_file_max;
	size_t keep_skill_max;
};

/*
 * Finds the skill folders under root (index idx) and appends them to
 * s->found, sorted by path.  Sets *exists to whether the root could be
 * read as a folder; a root that cannot is a finding in s->global.
 * Returns 0 or -ENOMEM.
 */
int sfs_scan_root(struct sfs_scan *s, const char *root, unsigned idx,
                  bool *exists);

/* A skill's tree, sorted by path, parents set, SKILL.md included as
 * "SKILL.md" whatever its source spelling. */
struct sfs_tree {
	struct sfs_file *files;   /* arena */
	size_t nfiles;
	size_t skill_md;          /* index of SKILL.md; nfiles when absent */
	const char **dirs;        /* arena: the folders read, absolute */
	size_t ndirs;
	struct sfs_file self;     /* the skill folder's identity, taken
	                             before it was listed; path NULL */
	/* The bytes a folder's listing read to hash its files, so that the
	 * security pass and the daemon's copies (fs/retain.h) have exactly
	 * the hashed content without reading it again: bytes[i], when not
	 * NULL, holds files[i].size bytes and a NUL (malloc).  NULL when
	 * nothing was kept.  Freed by sfs_tree_drop_bytes. */
	unsigned char **bytes;
};

/* Frees what t->bytes holds; t stays a listing without bytes. */
void sfs_tree_drop_bytes(struct sfs_tree *t);

/* The bytes a listing keeps while it hashes a skill's files
 * (tree_bytes.c), within s's keep_file_max and keep_skill_max; zeroed
 * but for s, handed to the finished tree by sfs_tree_keep_hand. */
struct sfs_tree_keep {
	const struct sfs_scan *s;
	struct sfs_tree_kept {
		const char *path;          /* the entry's (arena) */
		unsigned char *bytes;      /* malloc, NUL-ended after len */
		size_t len;
	} *v;
	size_t n, cap;
	size_t total;                      /* the sum of the lens */
};

/* How many bytes the next file may keep. */
size_t sfs_tree_keep_room(const struct sfs_tree_keep *k);
/* Keeps bytes (owned from here on; freed when they cannot be kept) as
 * the content hashed for the entry path. */
void sfs_tree_keep_add(struct sfs_tree_keep *k, const char *path,
                       unsigned char *bytes, size_t len);
/* Hands the kept bytes to out's entries (out->bytes); those of an entry
 * the listing left out, or of another size, are freed.  0 or -ENOMEM. */
int sfs_tree_keep_hand(struct sfs_tree_keep *k, struct sfs_tree *out);
/* Frees what was not handed. */
void sfs_tree_keep_free(struct sfs_tree_keep *k);

/*
 * Lists the files, folders and in-skill symlinks of the skill in `f`,
 * with their identities (ctime included) and digests (see
 * sfs_digest_reuse; a regular SKILL.md whose digest is not known is left
 * unhashed: the caller hashes it from what it reads to parse it).
 * Entries that cannot be served (escaping or dangling links, FIFOs,
 * sockets, devices, unreadable entries) are left out with a warning in
 * diags.  Strings and arrays go to `arena`.  Returns 0 or
 * -ENOMEM.
 */
int sfs_scan_tree(struct sfs_scan *s, struct sfs_found *f,
                  struct sfs_arena *arena, struct sfs_diag_list *diags,
                  struct sfs_tree *out);

void sfs_scan_free(struct sfs_scan *s);

/* What every source shares with the folder's discovery and listing, so
 * that a skill obeys the same rules wherever it comes from: the folders
 * discovery does not search (version control, dependencies, caches), the
 * folders not served inside a skill (hidden ones, node_modules). */
bool sfs_scan_skipped_folder(const char *name);
bool sfs_scan_hidden_in_skill(const char *name);
/* The end of every source's listing of the skill folder dir: the
 * warnings of a skill larger than hosts must accept (SEP-2640) or than
 * s->max_files (`capped`: entries were left out), then its n entries v
 * as out's files (sfs_tree_take_files; v keeps its own memory).
 * Returns 0 or -ENOMEM. */
int sfs_scan_finish_listing(const struct sfs_scan *s, const char *dir,
                            struct sfs_file *v, size_t n, bool capped,
                            struct sfs_arena *arena,
                            struct sfs_diag_list *diags,
                            struct sfs_tree *out);

/* ---- grow.c: the arrays the scan fills ---------------------------------- */

/* A new entry at the end of the array (*v, *n, room for *cap), zeroed
 * but for parent (-1, none); NULL when out of memory. */
struct sfs_file *sfs_file_push(struct sfs_file **v, size_t *n, size_t *cap);
/*
 * A skill's entries as a fetched source lists them (an MCP server's
 * listing, a website's index), not yet sorted: each stamped with a
 * version from a digest (a file's own; a folder's from the skill's entry
 * and its path, so a changed entry is a new folder) and with the time and
 * owner of the stored listing.  v is owned (malloc) until
 * sfs_scan_finish_listing copies it; the paths are the arena's.
 */
struct sfs_listed {
	struct sfs_file *v;
	size_t n, cap;
	struct sfs_arena *arena;
	const uint8_t *id;          /* the digest of the skill's entry */
	struct timespec time;
	uid_t uid;
	gid_t gid;
};
/* e's version from the digest sum (its first 20 bytes), time and owner
 * from the listing. */
void sfs_listed_stamp(const struct sfs_listed *l, struct sfs_file *e,
                      const uint8_t sum[32]);
/* Adds the regular file rel (the arena's) of size bytes and that digest,
 * after every folder above it not added yet; *added (or NULL) is its
 * entry, until the next add.  Returns 0 or -ENOMEM. */
int sfs_listed_add_file(struct sfs_listed *l, const char *rel, off_t size,
                        const uint8_t sha256[32], struct sfs_file **added);
/* The entry of path in v, sorted by path, or NULL. */
const struct sfs_file *sfs_file_find(const struct sfs_file *v, size_t n,
                                     const char *path);
/* f's identity (size, times, dev, ino, owner) from what stat said. */
void sfs_file_set_identity(struct sfs_file *f, const struct stat *st);
/* *st as the listing saw f, for a source whose identities stamp content
 * (a blob id, a digest): what was opened is that very content. */
void sfs_source_listed_stat(const struct sfs_file *f, struct stat *st);
/* A skill's n listed entries v, whatever their order, as out's files:
 * sorted by path, each linked to its folder, SKILL.md found, copied into
 * the arena (v keeps its own memory).  Returns 0 or -ENOMEM. */
int sfs_tree_take_files(struct sfs_file *v, size_t n, struct sfs_arena *a,
                        struct sfs_tree *out);

/* Appends s (not copied) to v.  Returns 0 or -ENOMEM (also when s is
 * NULL, an allocation that failed). */
int sfs_strvec_push(struct sfs_strvec *v, const char *s);

/* ---- path.c: relative paths and names --------------------------------- */

/*
 * Cleans a '/'-separated relative path in place: drops "." and empty
 * components and folds "..".  Returns false when the path is absolute or
 * ".." climbs above its start.
 */
bool sfs_path_clean_rel(char *p);
/* mkdir -p of the folders above path (not path itself), private to the
 * user (0700: a cache may hold private repositories).  0 or -errno. */
int sfs_mkdir_parents(const char *path);

/* Why a file or folder name cannot be served (not UTF-8, or a control
 * character in it), or NULL when it can. */
const char *sfs_bad_name(const char *name);

/* ---- plugins.c: Claude Code plugins and marketplaces -------------------- */

/* A skill folder that is `dir`, or lies directly in it, is part of the
 * plugin `name`. */
struct sfs_plugin_rule {
	const char *dir;   /* absolute, lexical; arena */
	const char *name;  /* arena */
};

struct sfs_plugin_rules {
	struct sfs_plugin_rule *v;   /* owned (malloc) */
	size_t n, cap;
};

/* Appends the rules of <path>/.claude-plugin/marketplace.json and
 * plugin.json, if there are any (dfd: path's folder).  Findings go to
 * s->global.  Returns 0 or -ENOMEM. */
int sfs_plugins_read(struct sfs_scan *s, int dfd, const char *path,
                     struct sfs_plugin_rules *r);
/* Appends the rule (dir, name); both are copied into the arena but dir,
 * which must live there already.  Returns 0 or -ENOMEM. */
int sfs_plugins_rule(struct sfs_scan *s, struct sfs_plugin_rules *r,
                     const char *dir, const char *name);
/* The plugin of the skill folder `dir` by the most specific rule, or
 * NULL. */
const char *sfs_plugins_match(const struct sfs_plugin_rules *r,
                              const char *dir);

/* A plugin that installed_plugins.json says is installed. */
struct sfs_installed {
	const char *rel;    /* its folder, relative to the plugins folder */
	const char *name;   /* the plugin's name (before "@marketplace") */
	const char *market; /* the marketplace's (after "@"), or NULL */
};
/* The installed plugins of Claude Code's plugins folder `root` (dfd),
 * from its installed_plugins.json, into *out (malloc'd; strings in the
 * arena).  Returns 0 or -ENOMEM; *n is 0 when the file is not there. */
int sfs_plugins_installed(struct sfs_scan *s, int dfd, const char *root,
                          struct sfs_installed **out, size_t *n);
/* The skill folders (relative to the plugin's folder, cleaned) that the
 * plugin's entry in marketplaces/<market>/.claude-plugin/marketplace.json
 * lists under "skills" (a plugin with "strict": false has no plugin.json
 * of its own), into *out (arena); *n is 0 when there is no such list.
 * Returns 0 or -ENOMEM. */
int sfs_plugins_listed(struct sfs_scan *s, int dfd, const char *root,
                       const struct sfs_installed *p, const char ***out,
                       size_t *n);

/* ---- filter.c: include and exclude patterns (sfs_config) -------------- */

/* Whether the skill folder `dir`, found under `root`, is to be read. */
bool sfs_selected(const struct sfs_config *cfg, const char *dir,
                  const char *root);
/* Drops the folders of s->found that cfg leaves out, keeping the order. */
void sfs_scan_select(struct sfs_scan *s, const struct sfs_config *cfg);

/* ---- docs.c: the markdown documents (sfs_catalog_docs) ----------------- */

/* Lists the docs folder `dir` into *out (in the arena; root index `root`),
 * recording its folders in s->dirs and its findings in s->global.
 * Returns 0 or -ENOMEM. */
int sfs_scan_docs(struct sfs_scan *s, const char *dir, unsigned root,
                  struct sfs_skill **out);
/* ---- unit.c: one skill folder, shared between snapshots ---------------- */

/* What stat says of a folder, to tell it changed. */
struct sfs_stamp {
	union {   /* as sfs_file's */
		struct {
			dev_t dev;
			ino_t ino;
			struct timespec ctime;
		};
		struct sfs_version version;
	};
	off_t size;
	struct timespec mtime;
	mode_t mode;
};

/*
 * What one skill folder gives on its own, before the checks across
 * skills: its tree with digests, the folders read, its frontmatter and
 * what validation extracted from it, and its own findings, sorted.  Made
 * once, then immutable and reference-counted: a rebuild that lists the
 * folder again and finds every entry with the same identity (device,
 * inode, size, mtime, ctime, mode, link target) takes the unit of the
 * previous snapshot instead of reading and validating SKILL.md again, and
 * both snapshots share it.  One allocation holds the unit and everything
 * it points to.
 */
struct sfs_unit {
	_Atomic unsigned refs;
	size_t size;                /* of the allocation */
	const char *dir;            /* absolute source folder */
	const char *skill_md;       /* the spelling found: "SKILL.md" or
	                               "skill.md" */
	const char *skill_md_path;  /* absolute, as named in the source */
	const char *id;             /* the frontmatter name, or NULL */
	unsigned root;
	bool invalid;               /* an error of its own */
	bool statable;              /* no findings from the listing and no
	                               symlinks: stat alone can tell it
	                               unchanged */
	struct sfs_stamp self;      /* the folder's identity when listed */
	/* Where the fields that checks across skills report on stand. */
	unsigned name_line, name_column;
	unsigned deps_line, deps_column;
	/* The skill as served; frontmatter and what validation extracted are
	 * set only when the folder is not invalid on its own. */
	struct sfs_skill skill;
	const char *const *dirs;    /* the folders read */
	size_t ndirs;
	/* The listing's own findings (hidden entries, limits), as listed:
	 * another listing must find the same. */
	const struct sfs_diag *listing;
	size_t nlisting;
};

/* Everything a unit is made of, as the build has it (in its scratch
 * arena and lists). */
struct sfs_unit_draft {
	const struct sfs_found *found;
	const char *skill_md_path;
	const char *id;
	const struct sfs_tree *tree;
	const cJSON *frontmatter;   /* when usable, else NULL */
	size_t body_offset;
	const struct sfs_meta *meta;
	const struct sfs_diag_list *diags;
	size_t nlisting;            /* the first of diags: the listing's */
	bool invalid;
	unsigned name_line, name_column;
	unsigned deps_line, deps_column;
};

/* Copies a draft into one exact-size allocation, its findings sorted by
 * file and position.  NULL when out of memory.  One reference. */
struct sfs_unit *sfs_unit_make(const struct sfs_unit_draft *d);
struct sfs_unit *sfs_unit_ref(struct sfs_unit *u);
/* The unit of the folder `dir` in cat (may be NULL), or NULL. */
struct sfs_unit *sfs_unit_find(const struct sfs_catalog *cat,
                               const char *dir);
void sfs_unit_unref(struct sfs_unit *u);
/* Whether a new listing of the unit's folder, with its findings (before
 * --strict), shows exactly what the unit was made from. */
bool sfs_unit_same_tree(const struct sfs_unit *u, const struct sfs_found *f,
                        const struct sfs_tree *t,
                        const struct sfs_diag_list *listing);
/*
 * reuse's unit of the skill folder p when it still holds exactly what the
 * unit was made from, by stat alone, or NULL (see unit.c).  The scan's
 * sfs_scan.unit_if_unchanged.
 */
struct sfs_unit *sfs_unit_if_unchanged(const struct sfs_scan *s,
                                       const struct sfs_probe *p);
/* How much older than a build a folder's ctime must be for stat alone
 * to prove its listing unchanged (sfs_config.ctime_margin_ms's
 * default), and t less ms milliseconds. */
#define SFS_CTIME_MARGIN_MS 2000
struct timespec sfs_ms_before(struct timespec t, unsigned ms);

/* ---- unit_file.c: a unit kept across mounts --------------------------- */

/* Appends the unit as bytes to *out (*len bytes used of *cap, grown with
 * sfs_grow).  0, -ENOMEM, or -EINVAL for a unit that points outside
 * itself. */
int sfs_unit_save(const struct sfs_unit *u, char **out, size_t *len,
                  size_t *cap);
/* The unit kept at p (at most n bytes), one reference, and in *used the
 * bytes it took; NULL when they are not one (or out of memory). */
struct sfs_unit *sfs_unit_load(const char *p, size_t n, size_t *used);
/* The bytes the unit kept at p takes, as its first SFS_UNIT_HEAD bytes
 * (at p) say: what a reader of kept units a piece at a time must have
 * at hand before sfs_unit_load.  UINT64_MAX when no unit is that long. */
#define SFS_UNIT_HEAD 16
uint64_t sfs_unit_kept_len(const char *p);

/* The build id of the running program (at most SFS_PROGRAM_ID_MAX bytes
 * into out): what was kept by another build is not read.  0 when it has
 * none. */
#define SFS_PROGRAM_ID_MAX 32
size_t sfs_program_id(uint8_t out[SFS_PROGRAM_ID_MAX]);

/* ---- catalog.c: the snapshot itself ------------------------------------ */

/* A skill folder as status.json and the diagnostics walk see it. */
struct sfs_folder {
	const char *dir;
	const char *id;            /* NULL when it had no usable name */
	int state;                 /* 0: served, else sfs_unserved_reason */
	const char *shadowed_by;
	const struct sfs_diag *diags;
	size_t ndiags;
	/* trust hold: served as it was, since its folder's new version
	 * has these high findings the served one lacks */
	const struct sfs_diag *held;
	size_t nheld;
	uint8_t held_digest[32];   /* that version's (sfs_skill_digest) */
};

struct sfs_catalog {
	_Atomic unsigned refs;
	struct sfs_arena arena;            /* owns everything below but
	                                      the units */
	const char **roots;
	struct sfs_source *sources;        /* per root, then the docs
	                                      folder's (source.h) */
	bool *root_exists;
	size_t *root_served;               /* served skills per root */
	size_t nroots;
	/* What the units depend on besides their folder. */
	bool strict;
	unsigned max_depth;
	size_t max_files;
	struct sfs_unit **units;           /* one reference each; every skill
	                                      folder, sorted by dir */
	size_t nunits;
	const struct sfs_skill **skills;   /* served, in units; sorted by id */
	size_t nskills;
	struct sfs_unserved *unserved;     /* sorted by dir */
	size_t nunserved;
	struct sfs_folder *folders;        /* unserved or with findings;
	                                      sorted by dir */
	size_t nfolders;
	struct sfs_diag *diags;            /* global findings */
	size_t ndiags;
	const char **dirs;                 /* sorted, unique */
	size_t ndirs;
	struct sfs_counts counts;
	size_t hashed;
	struct sfs_skill *docs;            /* see sfs_catalog_docs(); NULL
	                                      without a docs_dir */
	size_t parsed;                     /* SKILL.md files read */
	size_t listed;                     /* skill folders listed */
	struct timespec started;           /* CLOCK_REALTIME, before the
	                                      first folder was read */
	bool shared_only;                  /* sfs_config.shared_only */
	bool locked;                       /* built with sfs_config.lock */
	enum sfs_trust trust;              /* sfs_config.trust */
	struct sfs_security *security;     /* one reference: the rules, for
	                                      the next build to share */
	const char **private_dirs;         /* units' dirs, sorted: skill
	                                      folders not every user could
	                                      read (private.c) */
	size_t nprivate;
};

/* ---- security/: the security pass (skillsfs(5), "Security rules") ------ */

/* What the pass reads of one file at most; the rest is not looked at. */
#define SFS_SECURITY_MAX_BYTES (1024 * 1024)

/* The compiled rules, read by every worker of a build and shared by the
 * builds that follow (compiling them takes tens of milliseconds, which a
 * refresh after one edit should not pay).  Reference-counted; immutable. */
struct sfs_security;
int sfs_security_new(struct sfs_security **out);   /* 0 or -errno */
struct sfs_security *sfs_security_ref(struct sfs_security *sec);
void sfs_security_free(struct sfs_security *sec);  /* drops a reference */

/* The findings of one file's bytes (text NUL-ended at len), named path
 * in findings and rel in the skill, whose folder holds the files
 * `siblings` (relative paths: a binary's source is looked for among
 * them).  Returns 0 or -ENOMEM. */
int sfs_security_scan_bytes(const struct sfs_security *sec, const char *path,
                            const char *rel, const char *text, size_t len,
                            const char *const *siblings, size_t nsiblings,
                            struct sfs_diag_list *diags);
/* Every regular file of a listed skill, read through its source once (md,
 * when not NULL, is SKILL.md's bytes as the build read them).  A source
 * that reads from the network has only SKILL.md scanned, unless `remote`
 * (a trust policy, whose update fetched every file): then each file is
 * read from what is at hand (ops->open_at_hand), and one that is not is
 * a high finding (security/unfetched), never a wait on the network.
 * Returns 0 or -ENOMEM. */
int sfs_security_scan_skill(const struct sfs_security *sec,
                            const struct sfs_source *src, const char *dir,
                            const struct sfs_tree *tree, const char *md,
                            size_t md_len, bool remote,
                            struct sfs_diag_list *diags);
/* A skill name (or folder name) that mixes scripts or hides invisible
 * characters: a finding at file:line:column.  Returns 0 or -ENOMEM. */
int sfs_security_check_name(const char *name, const char *file,
                            unsigned line, unsigned column,
                            struct sfs_diag_list *diags);
/* s for a message, its invisible characters written U+XXXX, in buf. */
const char *sfs_security_escape(const char *s, char *buf, size_t size);
/* The name as it looks: confusable characters folded to one form
 * (Cyrillic 'а' and Latin 'a', '0' and 'o', "rn" and "m"), in buf. */
const char *sfs_security_skeleton(const char *name, char *buf, size_t size);
/* Calls fn for each pair (i, j) of the n names that differ but share a
 * skeleton (a NULL name has none); stops at and returns what fn returns
 * when it is not 0.  Returns 0 or -ENOMEM. */
int sfs_security_confusable_pairs(const char *const *names, size_t n,
                                  int (*fn)(size_t i, size_t j, void *arg),
                                  void *arg);

/* ---- policy.c: the trust policy's view of findings ------------------- */

/* Whether d, a finding of unit u, is a high finding of the security pass
 * that cfg does not accept for u's content (*digest, *have: u's digest,
 * computed once when an accept entry needs it; *have false at first). */
bool sfs_policy_stands(const struct sfs_config *cfg,
                       const struct sfs_unit *u, const struct sfs_diag *d,
                       uint8_t digest[32], bool *have);
/* The first finding of u's own or of cross (the checks across skills)
 * that stands, or NULL. */
const struct sfs_diag *sfs_policy_first(const struct sfs_config *cfg,
                                        const struct sfs_unit *u,
                                        const struct sfs_diag *cross,
                                        size_t ncross);
/* Copies into out the findings of `now` that stand and that `before`,
 * an earlier version of the same folder, lacks (same rule, file and
 * message).  Returns 0 or -ENOMEM. */
int sfs_policy_new_high(const struct sfs_config *cfg,
                        const struct sfs_unit *now,
                        const struct sfs_unit *before,
                        struct sfs_diag_list *out);

/* ---- private.c ---------------------------------------------------------- */

/* With shared_only, finds the skill folders whose SKILL.md not every user
 * could read natively, into private_dirs.  Returns 0 or -ENOMEM. */
int sfs_find_private(sfs_catalog *cat);

#endif
