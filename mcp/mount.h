/*
 * mount.h - the skillsfs mount as the server sees it: where it is, whether
 * it is one, and a compact model of the skills it serves, rebuilt only
 * when the mount's generation changes.
 *
 * The model is built from MOUNT/catalog/skills_index.json, which has one
 * line per served skill, and MOUNT/index.json, which has the SEP-2640
 * entry of each skill a conforming client accepts (contract.h): a skill
 * without one is served everywhere but skills/list and skills/get.  The
 * server indexes line offsets and parses one line when it needs one.  No
 * file of the mount stays open between requests: index.json is opened
 * for each entry read, and its inode must still be the one the model was
 * built from (the mount gives a changed generated file a new inode).
 */
#ifndef MCP_MOUNT_H
#define MCP_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "contract.h"

/* Files read whole are bounded; skill files by the SEP-2640 per-skill cap. */
#define MOUNT_MAX_FILE ((size_t)16 << 20)
#define MOUNT_MAX_INDEX ((size_t)1 << 30)

struct skill {
	const char *id;
	const char *plugin;        /* its Claude Code plugin, or NULL */
	uint64_t index_off;        /* its line in index.json, */
	uint32_t index_len;        /* 0 when skills/list leaves it out */
	uint32_t cat_off;          /* its line in skills_index.json */
	uint32_t cat_len;
	bool model_invocable;      /* not disable-model-invocation: true */
	bool user_invocable;       /* user-invocable is not false */
};

struct model {
	uint64_t ino;              /* status.json inode of this generation */
	uint64_t generation;       /* from status.json, 0 when unknown */
	char *index_path;          /* MOUNT/index.json */
	uint64_t index_ino;        /* its inode in this generation */
	char *catalog;             /* skills_index.json, whole */
	size_t catalog_len;
	struct skill *skills;      /* sorted by id */
	size_t n;
	char *ids;                 /* storage of the ids and plugins */
	bool has_docs;             /* MOUNT/docs is a folder */
};

struct mount {
	char *path;                /* absolute, no trailing slash */
	struct model *model;       /* NULL until first needed */
	uint64_t seen_ino;         /* status.json inode last observed */
	bool seen;
};

enum mount_kind { MOUNT_NONE, MOUNT_SKILLSFS, MOUNT_OTHER };
/* What /proc/self/mountinfo says is mounted at `path` (the topmost mount).
 * fstype receives the type when something is mounted.  -errno on error. */
int mount_kind(const char *path, char *fstype, size_t fstype_len);
/* 0 when MOUNT/status.json can be opened and read, else -errno. */
int mount_status_readable(const char *path);

/*
 * Compares the inode of MOUNT/status.json with the last one seen.  Returns
 * 1 when the generation changed (the model is dropped if it belonged to an
 * older one), 0 when not, -errno when status.json cannot be examined.  The
 * first call only records the inode.
 */
int mount_generation_changed(struct mount *m);
/* The model of the current generation, built when needed.  NULL with
 * *err = -errno when the mount cannot be read. */
const struct model *mount_model(struct mount *m, int *err);
/* Drops the model and its open files (before unmounting, say). */
void mount_release(struct mount *m);

/* Index of the skill with this id, or -1. */
ssize_t model_find(const struct model *md, const char *id);
/* Index of the skill a reference names: its id, or "<plugin>:<id>" for a
 * skill of that Claude Code plugin; -1 when it names none. */
ssize_t model_lookup(const struct model *md, const char *ref);
/* The skill's line of index.json: its SEP-2640 entry (malloc'd JSON text),
 * or NULL with errno set: ENOENT when skills/list leaves it out, EAGAIN
 * when index.json is of a newer generation than the model. */
char *model_index_entry(const struct model *md, size_t i, size_t *len);
/* The same for many entries through one open: model_index_open gives a
 * descriptor (close it) or -errno (-EAGAIN as above). */
int model_index_open(const struct model *md);
char *model_index_read(const struct model *md, int fd, size_t i, size_t *len);
/* The skill's line of skills_index.json, parsed; NULL when not JSON. */
cJSON *model_catalog_entry(const struct model *md, size_t i);
/* The skill's frontmatter (a JSON object to delete): from its index.json
 * entry (through fd when it is open, see model_index_open), else read
 * from its SKILL.md.  NULL when neither can be read. */
cJSON *model_frontmatter(const struct mount *m, const struct model *md,
                         int fd, size_t i);
/* The frontmatter of MOUNT/skills/<id>/SKILL.md as the catalog reads it,
 * or NULL.  With text, *text receives the file (malloc'd, NUL-terminated)
 * and *body_offset where its body starts. */
cJSON *mount_frontmatter(const struct mount *m, const char *id, char **text,
                         size_t *body_offset);

/* What list_skills and friends show of a skill, from its skills_index.json
 * line. */
struct skill_info {
	cJSON *root;               /* owned parse tree the fields point into */
	const char *name;
	const char *description;
	const cJSON *tags;         /* an array of strings, or NULL */
};
/* 0, or -errno (-EIO for a line that is not valid JSON). */
int model_skill_info(const struct model *md, size_t i, struct skill_info *out);
void skill_info_free(struct skill_info *si);

/* The paths of the mount contract (contract.h) in this mount, malloc'd;
 * NULL when out of memory.  MOUNT/<fixed entry e>: */
char *mount_file(const struct mount *m, enum sfs_mount_entry e);
/* MOUNT/skills/<id>[/<rel>] */
char *mount_skill_file(const struct mount *m, const char *id, const char *rel);
/* MOUNT/catalog/<id>.json, the skill's record */
char *mount_record(const struct mount *m, const char *id);
/* MOUNT/docs/<rel> */
char *mount_doc(const struct mount *m, const char *rel);

#endif
