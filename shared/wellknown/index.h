/*
 * index.h - a website's skills index, as the Agent Skills Discovery RFC
 * (v0.2.0) lays it out at /.well-known/agent-skills/index.json:
 *
 *   {"version": "0.2.0",
 *    "skills": [{"name", "description", "digest": "sha256:<hex>",
 *                "files": [{"path", "digest"}, ...],
 *                "package": {"url", "digest"}}, ...]}
 *
 * The keys are spelled here once, for this reader and for the writer
 * skillsfs-mcp --http publishes the mount's skills with (mcp/wellknown.c).
 * A v0.1 index (no version, files as plain path strings) is read with a
 * warning: nothing in it can be verified.
 */
#ifndef SKILLSFS_WELLKNOWN_INDEX_H
#define SKILLSFS_WELLKNOWN_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SFS_WK_PATH "/.well-known/agent-skills/"
#define SFS_WK_INDEX SFS_WK_PATH "index.json"
#define SFS_WK_VERSION "0.2.0"

#define SFS_WK_KEY_VERSION "version"
#define SFS_WK_KEY_SKILLS "skills"
#define SFS_WK_KEY_NAME "name"
#define SFS_WK_KEY_DESCRIPTION "description"
#define SFS_WK_KEY_DIGEST "digest"
#define SFS_WK_KEY_FILES "files"
#define SFS_WK_KEY_PATH "path"
#define SFS_WK_KEY_PACKAGE "package"
#define SFS_WK_KEY_URL "url"
/* A file's length in bytes: not the RFC's, an optional key skillsfs-mcp
 * adds, so that a reader knows a file's size before it fetches it. */
#define SFS_WK_KEY_SIZE "size"

/* What an index may hold at most: more is refused, naming the bound. */
#define SFS_WK_MAX_INDEX_BYTES (16u << 20)
#define SFS_WK_MAX_SKILLS 100000u
#define SFS_WK_MAX_FILES 10000u     /* per skill */
#define SFS_WK_MAX_PATH 1024u

struct sfs_wk_file {
	char *path;             /* relative, '/'-separated, checked */
	uint8_t sha256[32];
	bool has_digest;        /* false in a v0.1 index */
	long long size;         /* SFS_WK_KEY_SIZE, or -1 when not given */
};

struct sfs_wk_skill {
	char *name;             /* the Agent Skills name rule */
	char *description;
	uint8_t digest[32];     /* the skill's: sfs_wk_skill_digest */
	bool has_digest;
	struct sfs_wk_file *files;   /* sorted by path (byte order) */
	size_t nfiles;
	char *package_url;      /* or NULL */
	uint8_t package_sha256[32];
};

/* A finding about the index: field is a JSON path into it
 * ("skills[3].files[1].path"), or "" for the whole document. */
struct sfs_wk_problem {
	bool error;             /* the skill (or, with field "", the index)
	                           is not served; else a warning */
	char field[96];
	char message[256];
};

struct sfs_wk_index {
	unsigned major, minor;
	bool verifiable;        /* every file and skill carries a digest */
	struct sfs_wk_skill *skills;   /* the ones fit to serve, by name */
	size_t nskills;
	struct sfs_wk_problem *problems;
	size_t nproblems;
};

/*
 * Reads an index's text into *out, which the caller frees with
 * sfs_wk_index_free whatever this returns.  Returns 0 whatever it found
 * wrong with single skills, which are left out and named in
 * out->problems; -EINVAL when the document itself is not an index this
 * reads (its problem is the last of out->problems), or -ENOMEM.
 */
int sfs_wk_index_parse(const char *text, size_t len, struct sfs_wk_index *out);
void sfs_wk_index_free(struct sfs_wk_index *idx);

/* The skill's digest over its files, as the RFC defines it: the SHA-256
 * of one line "path\0<64 hex>\n" per file, sorted by path in byte order
 * (files need not be sorted).  Every file must carry a digest. */
void sfs_wk_skill_digest(const struct sfs_wk_file *files, size_t n,
                         uint8_t out[32]);

/* Whether p is a file path the RFC allows: relative, '/'-separated,
 * printable ASCII without \ ? # [ ], no empty, "." or ".." part. */
bool sfs_wk_path_ok(const char *p);

#endif
