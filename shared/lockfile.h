/*
 * lockfile.h - a lockfile: every source of a mount with what it served,
 * so that another mount serves exactly that (`skillsfs lock MOUNTPOINT`
 * writes one, `skillsfs MOUNTPOINT --lock FILE` mounts one).  lockfile.c
 * is the one place its format and the digest of a skill's content are
 * spelled; skillsfs(5) describes them field by field:
 *
 *   {"lockfileVersion": 1, "sources": [
 *     {"url": "git+file:///srv/skills.git#<commit>:skills",
 *      "commit": "<commit>"},
 *     {"path": "~/.agents/skills",
 *      "skills": {"<id>": "sha256:<hex>", ...}},
 *     {"url": "mcp+https://skills.example.com/mcp",
 *      "skills": {"<id>": "sha256:<hex>", ...}}]}
 *
 * The library, the daemon and the lock command include it.
 */
#ifndef SKILLSFS_LOCKFILE_H
#define SKILLSFS_LOCKFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skillsfs.h"

#define SFS_LOCK_VERSION 1

/* ---- the digest of a skill's content ------------------------------------ */

/* One file of a skill with content, as index.json lists it among the
 * skill's resources: a regular file, or a link to one inside the skill. */
struct sfs_manifest_entry {
	const char *path;      /* relative to the skill folder, '/'-separated */
	uint64_t size;
	uint8_t sha256[32];
};

/*
 * The digest of a skill's whole content: SHA-256 over one line per file
 * of v, sorted by path (byte order), each line
 *
 *   PATH NUL SIZE NUL HEX LF
 *
 * with SIZE in decimal and HEX the file's SHA-256 in 64 lowercase hex
 * digits.  Sorts v.
 */
void sfs_manifest_digest(struct sfs_manifest_entry *v, size_t n,
                         uint8_t out[32]);
/* The same digest of a skill of a catalog, from its files with content
 * (sfs_file_has_content).  Returns 0 or -ENOMEM. */
int sfs_skill_digest(const struct sfs_skill *s, uint8_t out[32]);

/* ---- a lockfile ---------------------------------------------------------- */

struct sfs_lock_skill {
	char *id;
	uint8_t digest[32];    /* sfs_skill_digest of what was served */
};

/* One source, in the form a mount names its root. */
struct sfs_lock_source {
	char *root;            /* a folder's absolute path, a git URL whose
	                          REF is the commit, or an MCP server's URL */
	char *commit;          /* a git source's full commit id; else NULL */
	/* A folder or an MCP server names the skills it served: only those
	 * are served, and each only with its digest (for an MCP server, of
	 * the files its listing publishes, which every read is verified
	 * against).  A git source's commit says it all. */
	bool names_skills;
	struct sfs_lock_skill *skills;   /* sorted by id, each once */
	size_t nskills;
};

struct sfs_lock {
	struct sfs_lock_source *sources; /* in precedence order */
	size_t nsources;
};

/* What is wrong with a lockfile. */
struct sfs_lock_error {
	char field[128];       /* "sources[1].commit", or "" for the file */
	char message[768];
};

/*
 * Reads the lockfile at `path` (or the len bytes of `text`): "~/" at the
 * start of a folder's path stands for `home`.  Returns 0 and fills *out
 * (free it with sfs_lock_free), or a negative errno and fills *err:
 * -EINVAL for what the file says, the read error otherwise.
 */
int sfs_lock_read(const char *path, const char *home, struct sfs_lock *out,
                  struct sfs_lock_error *err);
int sfs_lock_parse(const char *text, size_t len, const char *home,
                   struct sfs_lock *out, struct sfs_lock_error *err);
/* The lockfile's text (malloc'd, ending in a newline), a folder's path
 * below `home` (when not NULL) written as "~/...", a URL as it is; NULL
 * when out of memory. */
char *sfs_lock_format(const struct sfs_lock *lock, const char *home);
void sfs_lock_free(struct sfs_lock *lock);

/*
 * Building one, source by source in precedence order.  A git source
 * (commit a full commit id) is named by its URL with REF set to commit;
 * a folder (commit NULL) by its absolute path, an MCP server (commit
 * NULL) by its mcp+ URL, each then with its skills in id order.  Each
 * returns 0, -ENOMEM, or -EINVAL for a root, commit or id that cannot be
 * locked (or a skill out of order).
 */
int sfs_lock_add_source(struct sfs_lock *lock, const char *root,
                        const char *commit);
int sfs_lock_add_skill(struct sfs_lock_source *src, const char *id,
                       const uint8_t digest[32]);

/* The entry of skill `id` in the source, or NULL. */
const struct sfs_lock_skill *sfs_lock_find(const struct sfs_lock_source *src,
                                           const char *id);

#endif
