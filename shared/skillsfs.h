/*
 * skillsfs.h - the skill catalog library.
 *
 * The library turns skills directories ("roots") into an immutable,
 * validated, reference-counted catalog snapshot, and renders it as the JSON
 * documents that the mount and the MCP server serve.  It prints nothing:
 * every finding about a skill is a diagnostic in the snapshot, every failure
 * of the library itself is a negative errno.
 *
 * Ownership: everything reachable from a catalog (skills, files, strings,
 * frontmatter JSON, diagnostics) is owned by the catalog and lives until its
 * last reference is dropped.  Renderers return malloc'd strings that the
 * caller frees.  A catalog is never modified after sfs_catalog_build()
 * returns, so any number of threads may read it at once.
 */
#ifndef SKILLSFS_H
#define SKILLSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "mount_opts.h"

/* ---- diagnostics ------------------------------------------------------ */

enum sfs_severity { SFS_WARNING = 1, SFS_ERROR = 2 };

/* How dangerous a finding of the security pass is (skillsfs(5), "Security
 * rules"); none for every other finding. */
enum sfs_risk { SFS_RISK_NONE = 0, SFS_RISK_LOW, SFS_RISK_MEDIUM,
                SFS_RISK_HIGH };

/* "low", "medium", "high", or NULL for none. */
const char *sfs_risk_name(enum sfs_risk r);

struct sfs_diag {
	enum sfs_severity severity;
	const char *file;   /* absolute path the finding is about */
	unsigned line;      /* 1-based; 0 when not tied to a position */
	unsigned column;    /* 1-based; 0 when not tied to a position */
	const char *field;  /* dotted key ("x-personal-mcp.version"), or "" */
	const char *message;
	/* A finding of the security pass: its rule ("security/unicode-tag",
	 * static text) and risk; a warning whatever --strict says (what a
	 * finding means for serving is the trust policy's).  NULL and
	 * SFS_RISK_NONE for every other finding. */
	const char *rule;
	enum sfs_risk risk;
};

/* ---- skills ----------------------------------------------------------- */

/*
 * What stamps one version of a file of a source that is not watched
 * (SFS_SOURCE_WATCHED), whatever its kind: an id of its bytes (a git
 * object id, the first 20 bytes of an MCP file's digest) and a generation
 * of what the source keeps of them (an MCP SKILL.md: 0 fetched, 1 not
 * yet, 2 found not to match its listing).
 */
struct sfs_version {
	uint8_t id[20];
	uint32_t gen;
};

/* One entry of a skill's tree: a file, a folder or a symlink. */
struct sfs_file {
	const char *path;     /* relative to the skill folder, '/'-separated */
	const char *source;   /* same, as named in the source ("skill.md") */
	const char *name;     /* last component of path */
	int32_t parent;       /* index of the parent folder, -1 for the top */
	mode_t mode;          /* S_IFREG, S_IFDIR or S_IFLNK, with permissions */
	off_t size;           /* of a symlink to a file: the target's size */
	struct timespec mtime;
	/* Which bytes the entry holds, for the reuse of units and digests
	 * across builds (unit.c, digest.c) and a read's check: a watched
	 * source's entry has its stat identity (dev, ino, ctime), another
	 * source's the version it stamps, never both, so they share their
	 * memory (apart, the 40,000 entries of 10,000 skills took 1.4 MiB
	 * more of the daemon).  A comparison of dev, ino and ctime compares
	 * the version; of dev and ino alone, the first 16 bytes of its id. */
	union {
		struct {
			dev_t dev;
			ino_t ino;
			struct timespec ctime;
		};
		struct sfs_version version;
	};
	const char *link;     /* S_IFLNK: the target as stored; else NULL */
	bool hashed;          /* sha256 is valid (regular files, file links) */
	uint8_t sha256[32];
	uid_t uid;            /* owner of the entry itself (of a symlink: */
	gid_t gid;            /* the link's), as listed */
};

/* Bytes that belong to a catalog (not NUL-terminated). */
struct sfs_span {
	const char *p;
	size_t len;
};

/* A reference declared in x-personal-mcp.references. */
struct sfs_ref {
	const char *id;
	const char *path;      /* relative to the skill folder */
	const char *title;     /* NULL when not given */
	const char *mime_type; /* "text/markdown" when not given */
};

struct sfs_skill {
	const char *id;            /* the frontmatter name when it is a valid
	                              skill name, else the folder's name */
	const char *description;
	const char *dir;           /* absolute source folder */
	unsigned root;             /* index into the catalog's roots */
	size_t body_offset;        /* byte offset of the body in SKILL.md */
	const char *version;       /* x-personal-mcp.version, NULL if none */
	const char *const *tags;
	size_t ntags;
	const char *const *capabilities;
	size_t ncapabilities;
	const char *const *depends_on;
	size_t ndepends_on;
	const struct sfs_ref *refs; /* sorted by id */
	size_t nrefs;
	bool model_invocable;      /* not disable-model-invocation: true */
	bool user_invocable;       /* user-invocable, default true */
	const struct sfs_file *files; /* sorted by path; folders included */
	size_t nfiles;
	size_t skill_md;           /* index of SKILL.md in files */
	const struct sfs_diag *diags; /* warnings of a served skill */
	size_t ndiags;
	/* Why the official SDK's SkillsClient would refuse the skill's
	 * SEP-2640 entry (its name is not the id, a description over 1024
	 * characters, ...): such a skill is served everywhere but left out
	 * of index.json (skills/list).  None (0) when it is listed. */
	const char *const *unlisted;
	size_t nunlisted;
	/* The Claude Code plugin the skill was found in (its plugin.json
	 * or marketplace name), or NULL. */
	const char *plugin;
	/* The frontmatter as index.json shows it: printed unformatted by
	 * cJSON once, when the skill was read.  A reader that wants a tree
	 * parses it (cJSON_ParseWithLength). */
	struct sfs_span frontmatter_json;
	/* The headings of SKILL.md's body, one per line, for the search
	 * index (search.h); NULL when it has none or was not read. */
	const char *headings;
};

/* A skill folder that was found but is not served, with the reason:
 * it has errors, another of the same id is served, or (sfs_config.lock)
 * its folder's lock does not name it. */
enum sfs_unserved_reason {
	SFS_INVALID = 1, SFS_SHADOWED = 2, SFS_UNLOCKED = 3,
	SFS_WITHHELD = 4,          /* sfs_config.trust withhold: a high
	                              finding not accepted */
};

struct sfs_unserved {
	enum sfs_unserved_reason reason;
	const char *dir;           /* absolute source folder */
	const char *id;            /* frontmatter name if it had one, or NULL */
	unsigned root;
	const char *shadowed_by;   /* SFS_SHADOWED: folder of the served skill */
	const struct sfs_diag *diags;
	size_t ndiags;
};

/* ---- building a catalog ----------------------------------------------- */

struct sfs_lock;

/* What a high finding of the security pass (one not accepted) means for
 * serving (-o trust=, skillsfs(5) "Trust policy"): report serves the skill
 * and reports it; withhold serves no skill that has one; hold publishes
 * no change that brings a new one to a served skill, which keeps serving
 * its last version.  The order of mount_opts.c's names. */
enum sfs_trust { SFS_TRUST_REPORT, SFS_TRUST_WITHHOLD, SFS_TRUST_HOLD };

/* A finding an operator accepted after review: rule `rule` of skill
 * `skill` while the skill's content has this digest (sfs_skill_digest,
 * as a lockfile has it), and only then. */
struct sfs_accept {
	const char *skill;
	const char *rule;
	uint8_t digest[32];
};

/* sfs_source_options.fetch_timeout_s when none is given. */
#define SFS_FETCH_TIMEOUT_S 30

/* What a configuration file says of one source beside its url:. */
struct sfs_source_options {
	/* An MCP source: the file holding its bearer token (absolute), read
	 * whenever the server is asked anything; NULL: no token. */
	const char *token_file;
	/* An MCP server run as a command (mcp+stdio:NAME), spoken to on its
	 * standard input and output: the program (an absolute path) and its
	 * arguments, NULL-terminated; NULL for a source with a URL. */
	const char *const *argv;
	/* NAME=VALUE strings the command gets beside the daemon's own
	 * environment (they win over it), NULL-terminated; NULL: none.  The
	 * values are never put in a message. */
	const char *const *env;
	/* When not NULL: asked (with stop_arg) about once a second
	 * while anything waits on this source's server (a connection, an
	 * answer, a stdio server's start); once it says true the wait ends
	 * with -ECANCELED, and a stdio server is ended without the grace it
	 * is given otherwise.  A mount that stops says so here. */
	bool (*stop)(void *stop_arg);
	void *stop_arg;
	/* A remote git source: a fetch that makes no progress (no objects,
	 * under 1 KiB of a pack, no message of the server's) for this many
	 * seconds is given up, and its clone keeps serving what it held; a
	 * website's (well-known index): a request no byte of whose answer
	 * comes for as long, and the update with it; 0:
	 * SFS_FETCH_TIMEOUT_S. */
	unsigned fetch_timeout_s;
	/* A git or MCP source whose skills only the mounting user may read
	 * (private: true): under allow_other they are left out of the
	 * shared documents as a folder's unreadable skills are.  Without it
	 * they are what the repository or server publishes to whoever
	 * mounts it, shared with the modes the source gives. */
	bool private_skills;
	/* A git source held to signed commits (SFS_SOURCE_SIGNED): the
	 * allowed-signers file (absolute; ssh-keygen(1)'s format) whose keys
	 * may sign what is served; NULL: any commit. */
	const char *verify;
};

/*
 * The members of sfs_config that whoever watches the sources fills (the
 * daemon's build_inputs declares them too):
 *   changed, nchanged  With prev, when not NULL: every folder (as
 *       sfs_catalog_dirs names them) in which anything may have changed
 *       since prev's folders were read, as a watcher's events tell
 *       (nchanged may be 0).  A skill folder of prev that kept its own
 *       identity and none of whose folders is listed is then taken from
 *       prev without its files being looked at.  NULL: not known; every
 *       file is.
 *   held, nheld  With prev: skill folders (each as prev's sfs_skill.dir
 *       spells it) whose author is still at work.  Each one that is
 *       still a folder of the same root is taken from prev as it was,
 *       without being looked at, even while its SKILL.md is missing or
 *       being written: the mount keeps serving its last settled version.
 *   before_listing, before_listing_arg  When not NULL: called with the
 *       absolute path of every folder of the roots and skills just
 *       before the build lists it, on whichever of its threads lists
 *       it.  A watcher that starts watching the folder there misses no
 *       change the listing does not see.
 */
#define SFS_CONFIG_WATCH_FIELDS                                             \
	const char *const *changed;                                         \
	size_t nchanged;                                                    \
	const char *const *held;                                            \
	size_t nheld;                                                       \
	void (*before_listing)(const char *path, void *arg);                \
	void *before_listing_arg;

struct sfs_config {
	const char *const *roots;  /* absolute folders, in precedence order */
	size_t nroots;
	bool strict;               /* every warning becomes an error */
	unsigned max_depth;        /* folder levels searched; 0: default 16 */
	size_t max_entries;        /* entries read per root; 0: default 1e6 */
	size_t max_files;          /* entries per skill; 0: default 100000 */
	/* Which skill folders are read at all (fnmatch(3) patterns).  A
	 * pattern without '/' is matched against the folder's name (the
	 * skill id of a valid skill); one with '/' against the folder's path
	 * relative to its root, or, when it starts with '/', against the
	 * absolute path.  With include patterns a folder must match one of
	 * them; a folder that matches an exclude pattern is left out.  Left
	 * out folders are not read, counted or reported. */
	const char *const *include;
	size_t ninclude;
	const char *const *exclude;
	size_t nexclude;
	/* An absolute folder of markdown documents (resource://docs/), or
	 * NULL; see sfs_catalog_docs(). */
	const char *docs_dir;
	/* A rebuild with prev does not list a skill folder again when stat
	 * shows it and its subfolders unchanged and last changed at least
	 * this long before prev was built (a change in the clock tick of a
	 * listing keeps the ctime; some filesystems keep 2 s timestamps).
	 * A start takes a folder root's units kept by a former one (with
	 * cache_dir) when every entry last changed this long before that
	 * one started.  0: default 2000. */
	unsigned ctime_margin_ms;
	/* Skill folders read at once, each on a thread of its own; 0: one
	 * per CPU the process may run on, at most 4. */
	unsigned threads;
	/* changed, held, before_listing: what a watcher tells */
	SFS_CONFIG_WATCH_FIELDS
	/* The documents about the whole catalog are shared with every user
	 * of the machine (a mount with allow_other): index.json,
	 * skills_index.json and status.json leave out each skill folder
	 * whose SKILL.md not every user could read from the source (a
	 * world-readable file, world-searchable folders from / down to it,
	 * for the real paths); status.json names only its folder.  Such
	 * skills are still in the catalog (sfs_catalog_private). */
	bool shared_only;
	/* With prev: resolve the refs of git sources again, so that a
	 * followed branch or tag serves its new commit.  Otherwise each git
	 * root that prev resolved serves the very commit prev served: a
	 * rebuild for a folder's change does not move a git root. */
	bool resolve_sources;
	/* Where remote git sources are fetched into (a bare clone each,
	 * below git/), or NULL: see sfs_source_update. */
	const char *cache_dir;
	/* sfs_source_update of an MCP root also fetches every SKILL.md not
	 * in the cache, so that a build validates each file itself, not
	 * only the frontmatter the listing gives (skillsfs check).  A mount
	 * leaves it false: SEP-2640 has a host fetch a SKILL.md when the
	 * skill is loaded, never on listing.  Under a trust policy other
	 * than report, an update of a remote root fetches every file of
	 * every skill, whatever this says, so that the security pass
	 * judges each before the skill is served. */
	bool fetch_skill_mds;
	/* When not NULL: for each root (in roots' order), why its last
	 * sfs_source_update failed, or NULL; a build serves such a root from
	 * what the cache holds and says why in a finding. */
	const char *const *root_notes;
	/* When not NULL: for each root (in roots' order), its source's
	 * options. */
	const struct sfs_source_options *root_options;
	/* A lockfile (lockfile.h) whose sources are these roots, in this
	 * order, or NULL.  A root whose source names its skills (a folder,
	 * an MCP server) serves only those, each only while the digest of
	 * its content is the one locked: a skill whose digest differs is
	 * invalid, with an error naming both digests; a valid skill the lock
	 * does not name is not served (SFS_UNLOCKED), with a warning.  A git
	 * root is pinned by its URL, whose REF the lock set to its commit. */
	const struct sfs_lock *lock;
	/* When not NULL: called with found_arg on the thread of a read that
	 * found what the next build reports and the last did not (an MCP
	 * server that sent other bytes than it listed, a cache entry in the
	 * way), once for each such file, so that the caller has a build
	 * made soon.  It must not block. */
	void (*found)(void *arg);
	void *found_arg;
	/* The trust policy, and the findings accepted (sfs_accept).  hold
	 * holds against prev: a skill prev served whose folder now has a
	 * high finding prev's version lacks is served as prev's version
	 * (its files as prev published them), and status.json names it. */
	enum sfs_trust trust;
	const struct sfs_accept *accept;
	size_t naccept;
	/* When not NULL: called with hashed_arg, on the thread that read a
	 * skill folder, for each file of it hashed in this build whose bytes
	 * were read whole to be hashed (a folder's files of at most
	 * keep_file_max bytes, SKILL.md): `bytes` are exactly what the
	 * file's digest (f->sha256, f->size bytes) describes, even when the
	 * file has been rewritten since.  They stay the build's: the call
	 * copies what it keeps.  It must not block. */
	void (*hashed)(void *arg, const struct sfs_file *f,
	               const unsigned char *bytes);
	void *hashed_arg;
	/* The largest file whose bytes a listing keeps for the security
	 * pass and `hashed`; 0: SFS_SECURITY_MAX_BYTES (1 MiB). */
	size_t keep_file_max;
};

struct sfs_counts {
	size_t served, invalid, shadowed, errors, warnings;
	size_t unlocked;           /* with sfs_config.lock */
	size_t withheld;           /* trust withhold: not served */
	size_t held;               /* trust hold: served as they were */
};

typedef struct sfs_catalog sfs_catalog;

/*
 * Scans cfg->roots and builds a new catalog.  When prev is given, the
 * SHA-256 of every file whose device, inode, size and mtime are unchanged
 * is taken from prev instead of being computed again, and a skill folder
 * whose entries all kept their identity (ctime included) is taken from
 * prev whole, without reading its SKILL.md again; the two catalogs then
 * share it: a served skill taken so is the very same struct sfs_skill
 * (pointer-equal) in both, and renders the same record.  prev may be
 * dropped as soon as this returns.  Returns 0 and sets *out, or a negative
 * errno when the library itself failed (out of memory); missing roots and
 * bad skills are diagnostics, not failures.
 */
int sfs_catalog_build(const struct sfs_config *cfg, const sfs_catalog *prev,
                      sfs_catalog **out);

/*
 * Brings the source of `root` (one of cfg->roots) up to date and names
 * what it would serve now: a remote git root is fetched into its clone
 * under cfg->cache_dir (made on first use); a git+file:// root is read
 * in place; an MCP root's skills are listed (skills/list, every page;
 * a stdio root's command is run for it, and ended after)
 * and the listing kept there, *ttl_ms (when not NULL) set to how long the
 * server said the listing stays fresh (its ttlMs; 0: it did not say).
 * Returns 1 with `version` set (a commit id, or the listing's digest;
 * vlen >= 65), 0
 * for a root that has no versions (a folder), or a negative errno with
 * `why` saying what failed.  Blocks on the network: a build never calls
 * it; the caller does, before the build that is to serve the result with
 * resolve_sources.
 */
int sfs_source_update(const struct sfs_config *cfg, const char *root,
                      char *version, size_t vlen, unsigned *ttl_ms,
                      char *why, size_t wlen);
/*
 * Listens for the source of `root` to say that what it serves changed: an
 * MCP server's notifications/resources/list_changed (on subscriptions/
 * listen, or the session's stream), calling heard(arg) at each (bring the
 * root up to date then), on one stream however many come.  Returns when
 * stop(arg) says to stop (it is asked about once a second) or the server
 * ended its stream: 1 when one was heard meanwhile, 0 when none was;
 * -EOPNOTSUPP for a root
 * that sends no such news (a folder, git, a server without notifications,
 * a stdio server: refreshed by fetch_interval and SIGHUP),
 * or another negative errno with `why` saying what failed (wait a while,
 * then listen again).  Blocks on the network, on a thread of its own.
 */
int sfs_source_listen(const struct sfs_config *cfg, const char *root,
                      void (*heard)(void *), bool (*stop)(void *),
                      void *arg, char *why, size_t wlen);
/*
 * What the source a root names can do and needs, whatever its kind
 * (its line in source_form.c's table of the kinds says which it has): the
 * daemon asks these and never which kind a root is.
 */
enum sfs_source_cap {
	/* A folder on this machine: inotify watches it, its files may
	 * change under a reader (pinned until the next refresh, settled
	 * while written), and its root is a path. */
	SFS_SOURCE_WATCHED = 1u << 0,
	/* Served at a version sfs_source_update resolves (a commit, a
	 * listing); it changes only when updated again. */
	SFS_SOURCE_VERSIONED = 1u << 1,
	/* A read of a file not read before may go to the network. */
	SFS_SOURCE_READS_REMOTE = 1u << 2,
	/* sfs_source_listen may hear of its changes. */
	SFS_SOURCE_LISTENS = 1u << 3,
	/* sfs_source_update waits on a server that the options' stop can
	 * cut short. */
	SFS_SOURCE_STOPPABLE = 1u << 4,
	/* Its skills are what a repository or server publishes to whoever
	 * mounts it, with no file modes to say who may read them
	 * (private.c). */
	SFS_SOURCE_PUBLISHED = 1u << 5,
	/* Run as a command only the configuration file gives (command:):
	 * never named by a URL on the command line nor in url:. */
	SFS_SOURCE_COMMAND = 1u << 6,
	/* May take a bearer token (a configuration file's token_file:). */
	SFS_SOURCE_TOKEN = 1u << 7,
	/* May be held to commits signed by an allowed signer (a
	 * configuration file's verify:). */
	SFS_SOURCE_SIGNED = 1u << 8,
};

/* The capabilities (enum sfs_source_cap) of the source root names. */
unsigned sfs_source_caps(const char *root);

sfs_catalog *sfs_catalog_ref(sfs_catalog *cat);
void sfs_catalog_unref(sfs_catalog *cat);

size_t sfs_catalog_nskills(const sfs_catalog *cat);
const struct sfs_skill *sfs_catalog_skill(const sfs_catalog *cat, size_t i);
const struct sfs_skill *sfs_catalog_find(const sfs_catalog *cat,
                                         const char *id);
const struct sfs_unserved *sfs_catalog_unserved(const sfs_catalog *cat,
                                                size_t *n);
/* Findings not tied to one skill folder (a missing root, say). */
const struct sfs_diag *sfs_catalog_diags(const sfs_catalog *cat, size_t *n);
size_t sfs_catalog_nroots(const sfs_catalog *cat);
const char *sfs_catalog_root(const sfs_catalog *cat, size_t i);
/* Every folder the scan read: roots, category folders, skill folders and
 * their subfolders.  The set a watcher must watch. */
const char *const *sfs_catalog_dirs(const sfs_catalog *cat, size_t *n);
struct sfs_counts sfs_catalog_counts(const sfs_catalog *cat);
/* How many files this build hashed (the rest reused prev's digests). */
size_t sfs_catalog_hashed(const sfs_catalog *cat);
/* When the build began (CLOCK_REALTIME): a source whose ctime is later
 * may have changed after the build read it. */
struct timespec sfs_catalog_started(const sfs_catalog *cat);
/*
 * The markdown documents under cfg->docs_dir, as a tree shaped like a
 * skill's so that it can be served the same way: `dir` is the docs folder,
 * `root` is sfs_catalog_nroots() (no root of the catalog), `files` holds
 * every regular file whose name ends in ".md", every symbolic link to such
 * a file that stays inside the docs folder, and the folders that lead to
 * them; nothing else is set.  Folders whose names start with a dot are not
 * searched and symbolic links to folders are not followed.  NULL when no
 * docs_dir was configured; a docs_dir that cannot be read is a finding in
 * sfs_catalog_diags() and gives an empty tree.
 */
const struct sfs_skill *sfs_catalog_docs(const sfs_catalog *cat);
/* With sfs_config.shared_only: whether the skill folder `dir` (as
 * sfs_skill.dir names it) is one not every user could read natively,
 * left out of the shared documents.  Always false without it. */
bool sfs_catalog_private(const sfs_catalog *cat, const char *dir);
size_t sfs_catalog_nprivate(const sfs_catalog *cat);
/* How many SKILL.md files this build read and parsed (the other skill
 * folders were taken from prev unchanged). */
size_t sfs_catalog_parsed(const sfs_catalog *cat);

/* ---- JSON renderings ---------------------------------------------------
 * Each is deterministic: skills sorted by id, files by path, keys in a
 * fixed order.  The array renderings put one skill per line so that line
 * tools and the MCP server can take one skill without parsing the rest.
 * Each returns a malloc'd string ending in "\n", or NULL when out of memory.
 */

/* {"skills":[entry,...]}, entries as SEP-2640 skills/list: uri,
 * frontmatter, resources [{uri, digest, size}].  Skills with unlisted
 * reasons are left out. */
char *sfs_render_index(const sfs_catalog *cat);
/* {"skills":[{id,name,description,tags,capabilities,version},...]} */
char *sfs_render_skills_index(const sfs_catalog *cat);
/*
 * index.json (skills_index false) or skills_index.json read in place from
 * a catalog: the same bytes as sfs_render_index and
 * sfs_render_skills_index, without a copy; each read makes the entries it
 * covers.  It holds one offset per skill.  Valid while the catalog lives.
 * prev, when not NULL, is the doc of the same name of a catalog still
 * alive that this one may have taken skills from: their entries are not
 * measured again.  sfs_lines_doc_new returns NULL when out of memory.
 */
typedef struct sfs_lines_doc sfs_lines_doc;
sfs_lines_doc *sfs_lines_doc_new(const sfs_catalog *cat, bool skills_index,
                                 const sfs_lines_doc *prev);
void sfs_lines_doc_free(sfs_lines_doc *d);
size_t sfs_lines_doc_size(const sfs_lines_doc *d);
/* Copies `size` bytes at `off` (off + size within the size) into out.
 * Returns 0, or -ENOMEM. */
int sfs_lines_doc_read(const sfs_lines_doc *d, size_t off, size_t size,
                       char *out);
/* Whether a and b are made of the very same lines (a catalog shares the
 * skills it took unchanged), hence show the same bytes. */
bool sfs_lines_doc_same(const sfs_lines_doc *a, const sfs_lines_doc *b);
/* resource://catalog/skills/<id> */
char *sfs_render_skill_record(const sfs_catalog *cat,
                              const struct sfs_skill *skill);

/* A change of the sources seen but not published yet, because it has
 * not settled: the skills it touches are served as they were. */
struct sfs_status_pending {
	struct timespec since;             /* first seen (CLOCK_REALTIME) */
	const char *why;
	const struct sfs_skill *const *stale; /* of the catalog rendered */
	size_t nstale;
};

/* What the daemon knows beyond the catalog, for status.json. */
struct sfs_views;   /* views.h */
struct sfs_status_info {
	uint64_t generation;
	struct timespec last_refresh;
	const char *refresh_mode;          /* "inotify" or "polling" */
	const char *const *root_sources;   /* per root: "--skills-dir", ... */
	const struct sfs_status_pending *pending; /* or NULL */
	const struct sfs_views *views;     /* views.h; or NULL */
	const char *cache_dir;             /* where remote roots are kept;
	                                      or NULL: not said */
	long long cache_max;               /* its bound in bytes; 0: none */
	/* How long after a fetch of the roots that have versions the next
	 * comes, in ms, as the last fetch set it (fetch_interval, or sooner
	 * when a source said its answer stays fresh for less); 0: only on
	 * SIGHUP; -1: not said (no fetcher). */
	long long fetch_every_ms;
};
char *sfs_render_status(const sfs_catalog *cat,
                        const struct sfs_status_info *info);
/* Every diagnostic, as skillsfs check --json prints them. */
char *sfs_render_findings(const sfs_catalog *cat);

/* ---- small helpers ---------------------------------------------------- */

/* Hex: the value of digit c (either case), or -1; n bytes as 2n
 * lowercase digits and a NUL; 2n digits as n bytes (false when they are
 * not, or with lower_only an uppercase one is there). */
int sfs_hex_value(char c);
void sfs_hex_encode(const uint8_t *p, size_t n, char *out);
bool sfs_hex_decode(const char *h, size_t n, uint8_t *out, bool lower_only);

/* "sha256:" and 64 lowercase hex digits, NUL-terminated. */
#define SFS_DIGEST_LEN (7 + 64 + 1)
void sfs_format_digest(const uint8_t sha256[32], char out[SFS_DIGEST_LEN]);
/* The digest that text, spelled as sfs_format_digest spells it (the
 * hex digits lowercase), names, into out.  Returns whether it is one. */
bool sfs_parse_digest(const char *text, uint8_t out[32]);
/* SHA-256 of len bytes. */
void sfs_sha256(const void *data, size_t len, uint8_t out[32]);

/* The skillsfs mount that holds `real` (a path with no symlink in it,
 * as realpath(3) gives), from the kernel's table of mounts: its mount
 * point, malloc'd; NULL when none holds it.  A root there must not be
 * read (mounts.c says why). */
char *sfs_skillsfs_mount_of(const char *real);
/* Calls fn with the mount point (its escapes undone) and the filesystem
 * type of each line of /proc/self/mountinfo, in order (a later mount on
 * the same point is on top).  0, or a negative errno when it cannot be
 * read. */
int sfs_mountinfo_each(void (*fn)(const char *point, const char *type,
                                  void *arg), void *arg);

/* `path` made absolute against the current folder and cleaned lexically
 * ("." and empty parts dropped, ".." folded; no symlink is resolved, so
 * the path need not exist).  Returns a malloc'd string, or NULL with
 * errno set. */
char *sfs_path_absolute(const char *path);

/*
 * The frontmatter of a SKILL.md's text as the catalog reads it (a JSON
 * object, the caller deletes it), with the byte offset of the body in
 * *body_offset when that is not NULL; NULL when the frontmatter cannot be
 * used (the catalog then does not serve the skill) or memory ran out.
 */
cJSON *sfs_skillmd_frontmatter(const char *text, size_t len,
                               size_t *body_offset);

/* The Agent Skills name rule: 1-64 of [a-z0-9-], no leading, trailing or
 * doubled hyphen. */
bool sfs_valid_id(const char *s);

/* ---- configuration files ----------------------------------------------
 * A YAML file that holds what a command line would give (roots, options,
 * which skills to serve), so that a service needs only --config FILE.
 * Every key is known; an unknown one is an error naming it and its line.
 * The caller decides what takes precedence; command lines override files.
 */

#define SFS_UNSET (-1)

/* A source entry with command: instead of url: (an MCP server over
 * stdio), as struct sfs_source_options gives it to the library. */
struct sfs_source_command {
	char **argv;           /* command: (absolute) then args:,
	                          NULL-terminated; NULL for a url: entry */
	char **env;            /* env: as NAME=VALUE, NULL-terminated, or
	                          NULL */
};

struct sfs_view_def;   /* views.h */
struct sfs_config_file {
	char **roots;          /* in file order */
	size_t nroots;
	char **sources;        /* sources: their url: (mcp+stdio:NAME for a
	                          command:), in file order; after
	                          the roots in precedence */
	char **source_token_files;   /* for each of sources: its token_file:
	                                (absolute), or NULL */
	char **source_verify_files;  /* for each of sources: its verify:
	                                (absolute), or NULL */
	struct sfs_source_command *source_commands;   /* for each of sources:
	                                its command (argv NULL for a url:) */
	bool *source_private;  /* for each of sources: its private: */
	size_t nsources;
	char **include;        /* see sfs_config */
	size_t ninclude;
	char **exclude;
	size_t nexclude;
	char *docs_dir;        /* or NULL */
	char *mountpoint;      /* or NULL */
	struct sfs_view_def *views;   /* views: (views.h), in file order */
	size_t nviews;
	char *lock;            /* lock: a lockfile that names every source
	                          (never with roots or sources), or NULL */
	struct sfs_accept *accept;   /* accept: the findings accepted; each
	                                one's strings malloc'd */
	size_t naccept;
	/* options: what the file gave, by row of mount_opts.h's table */
	struct sfs_opt_value options[SFS_NOPTS];
};

struct sfs_config_error {
	const char *file;      /* the path given to sfs_config_file_read */
	unsigned line, column; /* 1-based; 0 when not tied to a position */
	char key[128];         /* dotted key ("options.debounce"), or "" */
	char message[768];
};

/*
 * Reads the configuration file at `path`.  Folder paths in it may start
 * with "~/", which stands for `home` (an error when home is NULL or
 * empty); relative ones are taken relative to the folder that holds the
 * file.  Returns 0 and fills *out (free it with sfs_config_file_free), or
 * a negative errno and fills *err: -EINVAL for what the file says, -EPERM
 * for a file another user could change (trust.h's rule: ours or root's,
 * writable by nobody else, in folders likewise), the open or read error
 * otherwise.  Everything owned by *out is malloc'd.
 */
int sfs_config_file_read(const char *path, const char *home,
                         struct sfs_config_file *out,
                         struct sfs_config_error *err);
void sfs_config_file_free(struct sfs_config_file *cf);

/* For each skill folder with a name and a high finding of the security
 * pass, once per rule: the entry of a configuration file's accept: that
 * would accept it for the content the folder holds now (under trust hold,
 * the version held back).  skillsfs check prints them for an operator to
 * copy after review.  Returns 0 or -ENOMEM. */
typedef void (*sfs_accept_fn)(const struct sfs_accept *a, void *arg);
int sfs_catalog_each_accept(const sfs_catalog *cat, sfs_accept_fn fn,
                            void *arg);

/* Visits every diagnostic of the catalog in a stable order: global ones,
 * then per skill folder sorted by folder path. */
typedef void (*sfs_diag_fn)(const struct sfs_diag *d, void *arg);
void sfs_catalog_each_diag(const sfs_catalog *cat, sfs_diag_fn fn, void *arg);

#endif
