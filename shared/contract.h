/*
 * contract.h - the mount contract: the one place where the paths of a
 * skillsfs mount, the URIs of its resources and the layout of its
 * one-skill-per-line documents are spelled.  The daemon (fs/) lays the
 * mount out from it, the library (render.c) writes the documents with
 * it, and the MCP server (mcp/) finds files, names resources and reads
 * the documents with it.
 *
 * The mount:
 *
 *   catalog/skills_index.json   one line per served skill (id, name, ...)
 *   catalog/<id>.json           a skill's record (document, references)
 *   docs/...                    the docs folder, laid out like a skill
 *   index.json                  SEP-2640 skills/list, one line per skill
 *   refs/<id>/<ref>.md          a skill's references, links into skills/
 *   search/<words>              the best matches of any words (virtual)
 *   skills/<id>/...             the skill's files
 *   status.json                 the daemon's state and generation
 *   views/<view>/<id>/...       an agent's selection, laid out as skills/,
 *   views/<view>/find-skills/   with the skill that tells how to search
 *
 * The URIs (SEP-2640 and the resource families of the MCP server):
 *
 *   skill://<id>[/<path>]                   a skill's folder or file
 *   resource://skills/<id>/document         its SKILL.md
 *   resource://skills/<id>/references/<ref> one of its references
 *   resource://catalog/skills/<id>          its record
 *   resource://catalog/skills_index         catalog/skills_index.json
 *   resource://docs/<path>                  a markdown file of docs/
 *
 * A resource:// URI may name a skill of a Claude Code plugin as
 * <plugin>:<id>.
 */
#ifndef SFS_CONTRACT_H
#define SFS_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* ---- paths -------------------------------------------------------------- */

/*
 * The fixed entries of a mount, one row each: its enum name, its name in
 * its folder, its path from the mount, whether it is in the mount's top
 * folder (else in catalog/), and whether it is a folder.  The rows of one
 * folder come sorted by name, the order fs/ lists them in.  A new file in
 * the mount is a row here, its renderer (render.c) and the line of
 * fs/tree.c that says which document fills it.
 */
#define SFS_MOUNT_TABLE(X)                                                  \
	X(CATALOG, "catalog", "catalog", true, true)                        \
	X(DOCS, "docs", "docs", true, true)   /* with a docs folder only */ \
	X(INDEX, "index.json", "index.json", true, false)                   \
	X(REFS, "refs", "refs", true, true)                                 \
	X(SEARCH, "search", "search", true, true)                           \
	X(SKILLS, "skills", "skills", true, true)                           \
	X(STATUS, "status.json", "status.json", true, false)                \
	X(VIEWS, "views", "views", true, true)                              \
	X(SKILLS_INDEX, "skills_index.json", "catalog/skills_index.json",   \
	  false, false)

enum sfs_mount_entry {
#define SFS_MOUNT_ENUM(e, name, path, in_root, folder) SFS_MOUNT_##e,
	SFS_MOUNT_TABLE(SFS_MOUNT_ENUM)
#undef SFS_MOUNT_ENUM
	SFS_MOUNT_NENTRIES
};

struct sfs_mount_fixed {
	const char *name;            /* in its folder */
	const char *path;            /* relative to the mount */
	bool in_root;                /* else in catalog/ */
	bool folder;
};

/* The table's row of entry e (e < SFS_MOUNT_NENTRIES).  The rows of one
 * folder come sorted by name. */
const struct sfs_mount_fixed *sfs_mount_row(enum sfs_mount_entry e);

/* catalog/<id>.json is named id + this. */
#define SFS_RECORD_SUFFIX ".json"

/* mount/<path of e>, mount/catalog/<id>.json, mount/skills/<id>[/rel]:
 * malloc'd, or NULL when out of memory. */
char *sfs_mount_path(const char *mount, enum sfs_mount_entry e);
char *sfs_mount_record(const char *mount, const char *id);
char *sfs_mount_skill(const char *mount, const char *id, const char *rel);
/* mount/docs/rel */
char *sfs_mount_doc(const char *mount, const char *rel);
/* mount/views/<view>[/<id>[/rel]] (id and rel may be NULL) */
char *sfs_mount_view(const char *mount, const char *view, const char *id,
                     const char *rel);
/* mount/search/<words>, the words made a file name: '/' as a space, cut
 * to SFS_SEARCH_NAME_MAX bytes at a word's end. */
char *sfs_mount_search(const char *mount, const char *words);
#define SFS_SEARCH_NAME_MAX 255

/* The virtual skill every view holds (see views.h). */
#define SFS_FIND_SKILLS "find-skills"

/* ---- URIs --------------------------------------------------------------- */

#define SFS_URI_SKILL_SCHEME "skill://"
#define SFS_URI_SKILLS_INDEX "resource://catalog/skills_index"

/* The resource templates (RFC 6570) the MCP server lists. */
#define SFS_TEMPLATE_RECORD    "resource://catalog/skills/{skill_id}"
#define SFS_TEMPLATE_DOCUMENT  "resource://skills/{skill_id}/document"
#define SFS_TEMPLATE_REFERENCE \
	"resource://skills/{skill_id}/references/{ref_id}"
#define SFS_TEMPLATE_DOC       "resource://docs/{path*}"
#define SFS_TEMPLATE_SKILL     "skill://{skill_id}/{path*}"
#define SFS_TEMPLATE_SKILL_DIR "skill://{skill_id}"

/* resource://skills/<id>/document, for printf-style builders. */
#define SFS_URI_DOCUMENT_FMT "resource://skills/%s/document"

/* The resource:// URIs of a skill and of a docs file, malloc'd, or NULL
 * when out of memory.  Ids and ref ids need no encoding (their rules
 * leave nothing to encode); a docs path is written as it is. */
char *sfs_uri_document(const char *id);
char *sfs_uri_reference(const char *id, const char *ref);
char *sfs_uri_record(const char *id);
char *sfs_uri_doc(const char *path);

/*
 * A path inside a skill (segments separated by '/') as it is written in a
 * skill:// URI: the bytes [A-Za-z0-9_!$&'()*+,.:;=@[]|~-] and '/' as they
 * are, every other byte as %XX (uppercase hex), the canonical spelling of
 * SEP-2640 clients.  Writes the text and a NUL to out when out is not
 * NULL, and returns its length (at most 3 * strlen(path)).
 */
size_t sfs_uri_encode(const char *path, char *out);
/* Whether sfs_uri_encode writes byte c as it is. */
bool sfs_uri_keeps(unsigned char c);
/* base + "/" + name encoded by sfs_uri_encode (a '/' in name stays a
 * separator); malloc'd, or NULL when out of memory. */
char *sfs_uri_join(const char *base, const char *name);
/* "skill://<id>/<path encoded>", or "skill://<id>" for an empty or NULL
 * path; malloc'd, or NULL when out of memory. */
char *sfs_uri_skill(const char *id, const char *path);

enum sfs_uri_kind {
	SFS_URI_INVALID,        /* malformed; `error` says why */
	SFS_URI_UNKNOWN,        /* well-formed, but names nothing served */
	SFS_URI_CATALOG_INDEX,  /* resource://catalog/skills_index */
	SFS_URI_CATALOG_SKILL,  /* resource://catalog/skills/<id> */
	SFS_URI_DOCUMENT,       /* resource://skills/<id>/document */
	SFS_URI_REFERENCE,      /* resource://skills/<id>/references/<ref> */
	SFS_URI_DOC,            /* resource://docs/<path>, a .md file */
	SFS_URI_SKILL_ROOT,     /* skill://<id> */
	SFS_URI_SKILL_PATH,     /* skill://<id>/<path>: a file or a folder */
};

/*
 * A parsed URI.  Every path taken from a URI is relative, has no empty,
 * "." or ".." segment, no NUL or control character, and no '/' that came
 * from percent-decoding, so it cannot leave the folder it is joined to
 * ('\\' is an ordinary byte of a name, %5C in a URI).  Symlinks are the
 * business of whoever opens the file.
 */
struct sfs_uri {
	enum sfs_uri_kind kind;
	char id[65];        /* the skill id, when there is one */
	char plugin[129];   /* <plugin> of <plugin>:<id>, else "" */
	char *path;         /* owned: the decoded path, or the ref id */
	const char *error;  /* SFS_URI_INVALID: static text */
};

void sfs_uri_parse(const char *text, struct sfs_uri *u);
void sfs_uri_free(struct sfs_uri *u);

/* The Agent Skills name rule (1-64 of [a-z0-9-], no edge or double '-'). */
bool sfs_skill_id_valid(const char *s, size_t n);
/* The n bytes at p checked as a path as described above, after
 * percent-decoding them.  Returns the decoded copy (malloc'd) or NULL with
 * *why set to static text. */
char *sfs_uri_clean_path(const char *p, size_t n, const char **why);

/* ---- the one-skill-per-line documents ----------------------------------- */

/*
 * index.json and catalog/skills_index.json are
 *
 *   {"skills":[ NL entry ,NL entry ... NL ]} NL
 *
 * with each entry on a line of its own, printed compactly (cJSON's
 * unformatted layout) by render.c.  An index.json entry starts with its
 * uri, a skills_index.json entry with its id; the readers below take
 * those from the first bytes and parse the line only for what can stand
 * anywhere in it.
 */
#define SFS_LINES_HEAD "{\"skills\":[\n"
#define SFS_LINES_TAIL "]}\n"
#define SFS_INDEX_ENTRY_OPEN "{\"uri\":\""
#define SFS_INDEX_ENTRY_HEAD SFS_INDEX_ENTRY_OPEN SFS_URI_SKILL_SCHEME
#define SFS_INDEX_ENTRY_URI_END "/SKILL.md"
/* A skills_index.json entry's keys, in the order render.c writes them:
 * id first (SFS_SKILLS_INDEX_ENTRY_HEAD), plugin only when the skill came
 * with one. */
#define SFS_SKILLS_INDEX_ID "id"
#define SFS_SKILLS_INDEX_NAME "name"
#define SFS_SKILLS_INDEX_DESCRIPTION "description"
#define SFS_SKILLS_INDEX_TAGS "tags"
#define SFS_SKILLS_INDEX_CAPABILITIES "capabilities"
#define SFS_SKILLS_INDEX_VERSION "version"
#define SFS_SKILLS_INDEX_PLUGIN "plugin"
#define SFS_SKILLS_INDEX_ENTRY_HEAD "{\"" SFS_SKILLS_INDEX_ID "\":"
/* An index.json entry's files with content: an array of resources, each
 * its skill:// uri, the digest of its bytes ("sha256:" and 64 hex
 * digits) and its size. */
#define SFS_INDEX_RESOURCES "resources"
#define SFS_RESOURCE_URI "uri"
#define SFS_RESOURCE_DIGEST "digest"
#define SFS_RESOURCE_SIZE "size"

/* The entry on a line of such a document (len bytes, without the
 * newline), its length without a trailing ',' in *entry_len; false for
 * the head and tail lines. */
bool sfs_lines_entry(const char *line, size_t len, size_t *entry_len);

/* The skill id of an entry of index.json (from its uri) or of
 * skills_index.json, copied to id (cap bytes); false when the entry has
 * no valid one. */
bool sfs_index_entry_id(const char *e, size_t len, char *id, size_t cap);
bool sfs_skills_index_entry_id(const char *e, size_t len, char *id,
                               size_t cap);
/* The plugin a skills_index.json entry names, copied to out; false when
 * it names none (or a longer one than cap allows). */
bool sfs_skills_index_entry_plugin(const char *e, size_t len, char *out,
                                   size_t cap);

/* Whether the model and the user may invoke the skill, from its
 * frontmatter (disable-model-invocation: true, user-invocable: false)
 * or from its index.json entry. */
struct sfs_invocable {
	bool model;
	bool user;
};
struct sfs_invocable sfs_frontmatter_invocable(const cJSON *fm);
struct sfs_invocable sfs_index_entry_invocable(const char *e, size_t len);

/* ---- search/<words> -------------------------------------------------------- */

/*
 * One line per match, best first:
 *
 *   <id> TAB <description> TAB <absolute path of its SKILL.md> NL
 *
 * the description on one line (its tabs and line breaks written as
 * spaces).  search.c writes it; sfs_search_line reads one line (len
 * bytes, without the newline): the id copied to id (cap bytes), false
 * when the line is not one.
 */
#define SFS_SEARCH_SEP '\t'
bool sfs_search_line(const char *line, size_t len, char *id, size_t cap);

/* ---- catalog/<id>.json --------------------------------------------------- */

/*
 * A skill's record is one indented JSON object (render.c).  The MCP
 * server reads its references: an object from each ref id to the
 * reference's path in the skill, title and media type.
 */
#define SFS_RECORD_REFERENCES "references"
/* The root the skill is served from, as status.json names it. */
#define SFS_RECORD_ROOT "root"
#define SFS_REF_PATH "path"
#define SFS_REF_TITLE "title"
#define SFS_REF_MIME_TYPE "mime_type"
/* The skill's source folder, and its findings of the security pass: an
 * array of objects, each with the finding's rule, severity (its risk:
 * "high", "medium", "low"), file (absolute, in the source), line,
 * column and message, as status.json has them. */
#define SFS_RECORD_SOURCE "source"
#define SFS_RECORD_FINDINGS "findings"
#define SFS_FINDING_RULE "rule"
#define SFS_FINDING_SEVERITY "severity"
#define SFS_FINDING_FILE "file"
#define SFS_FINDING_LINE "line"
#define SFS_FINDING_MESSAGE "message"

/* A parsed record's findings as an agent is told them (get_skill,
 * skills/get): an array of {rule, severity, file, line, message}, file
 * relative to the skill's folder.  An empty array when it has none; NULL
 * when out of memory. */
cJSON *sfs_record_findings(const cJSON *record);

/* ---- status.json -------------------------------------------------------- */

/*
 * status.json is one JSON object whose first members are the daemon's
 * generation and its roots (render.c writes them before the long list of
 * skills), so a reader that wants only those needs only the head of the
 * file.  The readers take the first len bytes of the file.
 */
#define SFS_STATUS_GENERATION "generation"
#define SFS_STATUS_ROOTS "roots"
#define SFS_STATUS_ROOT_PATH "path"
/* A root that is not a folder: its kind of source ("git"), and what the
 * generation serves of it under the source's own name ("commit": see
 * sfs_source_ops.version_key in source.h). */
#define SFS_STATUS_ROOT_KIND "kind"
/* A root with versions: how long after a fetch the next comes, in ms
 * (null: only on SIGHUP); see sfs_status_info.fetch_every_ms. */
#define SFS_STATUS_ROOT_FETCH_EVERY "fetch_every_ms"
#define SFS_STATUS_SKILLS "skills"
/* Served skills left out of index.json, and skill folders left out of
 * the shared documents (allow_other): arrays, the second only then. */
#define SFS_STATUS_UNLISTED "unlisted"
#define SFS_STATUS_PRIVATE "private"
/* An object from each view's name to what it holds: "skills" (count),
 * "spend" and "budget" (characters of the agent's listing), "left_out". */
#define SFS_STATUS_VIEWS "views"
/* What a diagnostic of a remote root says while the start has not waited
 * for its first fetch (fs/fetcher.c writes it, `skillsfs lock` waits for
 * it to go). */
#define SFS_STATUS_FIRST_FETCH "the first fetch is under way"
/* The folder the daemon keeps its git clones and MCP listings in. */
#define SFS_STATUS_CACHE_DIR "cache_dir"
/* Its bound in bytes (-o cache_max; 0: none). */
#define SFS_STATUS_CACHE_MAX "cache_max"

/* The generation a head of status.json names, or 0 when it names none. */
unsigned long long sfs_status_generation(const char *head, size_t len);
/* The roots array of a head of status.json, parsed (the caller deletes
 * it), or NULL when the head does not hold it whole. */
cJSON *sfs_status_roots(const char *head, size_t len);

#endif
