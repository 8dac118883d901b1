/*
 * internal.h - interfaces between the parts of the catalog library.
 * Not installed; fs/ and mcp/ use skillsfs.h only.
 */
#ifndef SKILLSFS_INTERNAL_H
#define SKILLSFS_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "skillsfs.h"

/* ---- reference counts of the objects readers share (catalog, unit,
 * search index) ------------------------------------------------------- */

/* One holder more. */
static inline void sfs_refs_take(_Atomic unsigned *refs)
{
	atomic_fetch_add_explicit(refs, 1, memory_order_relaxed);
}

/* One holder fewer: true for the last one, who frees the object.
 * acq_rel: every holder's last access happens before the free. */
static inline bool sfs_refs_drop(_Atomic unsigned *refs)
{
	return atomic_fetch_sub_explicit(refs, 1, memory_order_acq_rel) == 1;
}

/* Defines TYPE *PREFIX_ref(TYPE *) and void PREFIX_unref(TYPE *) of an
 * object counted by its member `refs`: both take NULL, and the last
 * holder's unref calls destroy(object). */
#define SFS_REFCOUNTED(type, prefix, destroy)                               \
	type *prefix##_ref(type *o)                                         \
	{                                                                   \
		if (o)                                                      \
			sfs_refs_take(&o->refs);                            \
		return o;                                                   \
	}                                                                   \
	void prefix##_unref(type *o)                                        \
	{                                                                   \
		if (o && sfs_refs_drop(&o->refs))                           \
			destroy(o);                                         \
	}

/* ---- arena.c: one owner for the many small strings of a snapshot ------ */

struct sfs_arena {
	struct sfs_arena_block *head;
};

void *sfs_arena_alloc(struct sfs_arena *a, size_t size);   /* zeroed */
char *sfs_arena_strdup(struct sfs_arena *a, const char *s);
char *sfs_arena_strndup(struct sfs_arena *a, const char *s, size_t n);
char *sfs_arena_printf(struct sfs_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sfs_arena_free(struct sfs_arena *a);

/* ---- text.c: UTF-8, positions, core-schema numbers ------------------ */

/*
 * Length of the first UTF-8 sequence of s (n > 0), or 0 when it is not
 * valid: overlong forms, surrogates and code points past U+10FFFF are
 * refused, as are truncated sequences.
 */
size_t sfs_utf8_seq(const unsigned char *s, size_t n);

/* SKILL.md line and column (1-based, in characters) of byte offset off of
 * text, whose first byte stands at line first_line, column 1: lines end
 * at "\n" only, as editors count them (libyaml's marks also count NEL,
 * LS and PS as line breaks). */
void sfs_text_pos(const char *text, size_t off, unsigned first_line,
                  unsigned *line, unsigned *column);
/* YAML 1.2 core-schema pieces that frontmatter.c types plain scalars
 * with and sep_readable.c holds the client's reading against: whether s
 * is non-empty and made only of bytes in set, and whether it is a core
 * schema integer or float ([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?). */
bool sfs_core_digits(const char *s, const char *set);
/* *out = strdup(s), or NULL for NULL; false when out of memory. */
bool sfs_strdup_or_null(const char *s, char **out);
bool sfs_core_number(const char *s);

/* ---- diag.c: a growable list of findings ------------------------------
 * Strings are copied into the list's arena, so callers may pass
 * temporaries.  Every add returns 0 or -ENOMEM.
 */

struct sfs_diag_list {
	struct sfs_arena *arena;   /* not owned */
	struct sfs_diag *v;        /* owned (malloc) */
	size_t n, cap;
};

int sfs_diag_add(struct sfs_diag_list *l, enum sfs_severity sev,
                 const char *file, unsigned line, unsigned column,
                 const char *field, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* sfs_diag_add with the arguments of fmt in ap: for the functions that
 * add a finding of their own kind with a format of their callers'. */
int sfs_diag_addv(struct sfs_diag_list *l, enum sfs_severity sev,
                  const char *file, unsigned line, unsigned column,
                  const char *field, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));
/* An entry a listing leaves out (why: the reason): a warning, or an
 * error when it is SKILL.md itself, which the skill cannot do without. */
int sfs_diag_hidden(struct sfs_diag_list *l, const char *path,
                    bool is_skill_md, const char *why);
/* A finding about a root as a whole (a source's URL): no line, column
 * nor field. */
int sfs_diag_add_root(struct sfs_diag_list *l, enum sfs_severity sev,
                      const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A finding of the security pass (a warning): rule is static text. */
int sfs_diag_add_rule(struct sfs_diag_list *l, enum sfs_risk risk,
                      const char *rule, const char *file, unsigned line,
                      unsigned column, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
size_t sfs_diag_count(const struct sfs_diag_list *l, enum sfs_severity sev);
/* --strict: every warning becomes an error, but the security pass's. */
void sfs_diag_promote_warnings(struct sfs_diag_list *l);
void sfs_diag_list_free(struct sfs_diag_list *l);   /* frees v only */
/* A finding with its place in the order it was made, to sort findings
 * by file, line and column, and by that order where those tie (sfs_sort
 * is not stable). */
struct sfs_diag_key {
	const struct sfs_diag *d;
	size_t order;
};
int sfs_diag_cmp(const void *a, const void *b);

/* ---- frontmatter.c: SKILL.md frontmatter with libyaml ------------------ */

/* ---- catalog.c: a skill by its id ------------------------------------- */

/* The index (as sfs_catalog_skill takes it) of the skill with this id,
 * or -1; sfs_catalog_find is its skill. */
long sfs_catalog_index(const sfs_catalog *cat, const char *id);

/* ---- what a skill's content is ------------------------------------------ */

/* Files with content: regular files and in-skill links to them.  The
 * files index.json lists for a skill, and the digest of its content
 * (lockfile.c) covers. */
static inline bool sfs_file_has_content(const struct sfs_file *f)
{
	return S_ISREG(f->mode) || (S_ISLNK(f->mode) && f->hashed);
}

/* ---- contract.c --------------------------------------------------------- */


#define SFS_FM_MAX_BYTES   (64 * 1024)  /* frontmatter text */
#define SFS_FM_MAX_DEPTH   32           /* nested collections */
#define SFS_FM_MAX_NODES   20000        /* scalars + collections */

/* Where a key and its value stand in SKILL.md, for diagnostics. */
struct sfs_fm_pos {
	const char *key;      /* dotted path: "x-personal-mcp.references.a.path" */
	unsigned line, column;           /* of the key, 1-based */
	unsigned value_line, value_column;
};

/* The first construct of a frontmatter that the official SEP-2640
 * client's own YAML reader (SkillsClient.read()) refuses or reads to
 * other JSON (sep_readable.c); what is NULL when it reads it alike. */
struct sfs_fm_unreadable {
	unsigned line, column;   /* in SKILL.md, 1-based */
	const char *what;        /* static text: the construct */
	const char *fix;         /* static text: how to write it instead */
};

struct sfs_frontmatter {
	cJSON *json;          /* the mapping, values as parsed; owned */
	struct sfs_fm_unreadable sep;
	size_t body_offset;   /* byte offset of the body in the file */
	unsigned body_line;   /* 1-based line on which the body starts */
	struct sfs_fm_pos *pos;  /* owned (malloc); strings in the arena */
	size_t npos;
};

/*
 * Parses the frontmatter at the start of text (UTF-8 BOM, CRLF and
 * "---" fences handled).  Scalars become JSON the way YAML 1.2's core
 * schema reads them (true/false, null, integers, floats; quoted scalars
 * stay strings).  Aliases, over-deep nesting, over-large frontmatter,
 * invalid UTF-8 and a non-mapping document are findings.
 * Returns 0 when fm->json is a usable mapping, -1 when the frontmatter is
 * unusable (an error was added to diags), -ENOMEM on allocation failure.
 * `file` names the SKILL.md in diagnostics.
 */
int sfs_frontmatter_parse(const char *text, size_t len, const char *file,
                          struct sfs_arena *arena, struct sfs_diag_list *diags,
                          struct sfs_frontmatter *fm);
void sfs_frontmatter_free(struct sfs_frontmatter *fm);
/* frontmatter_repair.c: text (the frontmatter between its fences) with
 * each string field whose plain value holds ": " double-quoted, on the
 * same lines, into *out (malloc'd, *out_len bytes) and the fields' names
 * (static) into quoted.  The number of fields quoted, 0 when none was
 * (*out NULL), or -ENOMEM. */
#define SFS_FM_REPAIR_MAX 8
int sfs_frontmatter_repair(const char *text, size_t len, char **out,
                           size_t *out_len,
                           const char *quoted[SFS_FM_REPAIR_MAX]);
/* Position of a dotted key; NULL when the key is absent. */
const struct sfs_fm_pos *sfs_frontmatter_pos(const struct sfs_frontmatter *fm,
                                             const char *key);

/* ---- validate.c: the frontmatter contract ----------------------------- */

/* What validation extracts for the snapshot; strings live in the arena. */
#define SFS_MAX_UNLISTED 8

struct sfs_meta {
	const char *name;
	const char *description;
	const char *version;
	const char **tags;          size_t ntags;
	const char **capabilities;  size_t ncapabilities;
	const char **depends_on;    size_t ndepends_on;
	struct sfs_ref *refs;       size_t nrefs;   /* sorted by id */
	bool model_invocable, user_invocable;
	/* Why a conforming client would refuse the skill's skills/list
	 * entry (arena strings); none when it may be listed. */
	const char *unlisted[SFS_MAX_UNLISTED];
	size_t nunlisted;
	const char *headings;       /* of the body, for search (search.c) */
};

/*
 * Checks one skill's frontmatter against the contract: name and description
 * rules, name equal to dir_name, the types of the optional Agent Skills and
 * Claude Code fields, unknown keys, and x-personal-mcp (all but the checks
 * that need the filesystem or other skills).  Fills *meta (derived values
 * when there is no x-personal-mcp block).  Findings go to diags with their
 * severity; returns 0, or -ENOMEM.
 */
int sfs_validate_frontmatter(const struct sfs_frontmatter *fm,
                             const char *file, const char *dir_name,
                             struct sfs_arena *arena,
                             struct sfs_diag_list *diags,
                             struct sfs_meta *meta);

/* Checks the SKILL.md body: over 500 lines, and relative links to files
 * that do not exist.  exists() answers for a skill-relative path; when the
 * path is missing but one differing only in letter case exists, it points
 * *actual at that spelling (valid until the next call). */
typedef bool (*sfs_exists_fn)(const char *relpath, const char **actual,
                              void *arg);
int sfs_validate_body(const char *body, size_t len, unsigned first_line,
                      const char *file, sfs_exists_fn exists, void *arg,
                      struct sfs_diag_list *diags);

/* ---- search.c: what the search index reads of a body ---------------- */

/* The headings of a SKILL.md body ('#' lines outside fenced code), their
 * text one per line, at most max bytes, in the arena; NULL when there
 * is none (or no memory). */
char *sfs_search_headings(const char *body, size_t len, size_t max,
                          struct sfs_arena *arena);

#endif
