/*
 * wellknown.h - the mount's skills as a website publishes its own, at
 * /.well-known/agent-skills/ (the Agent Skills Discovery RFC, v0.2.0;
 * shared/wellknown/index.h spells its keys): skillsfs-mcp --http serves
 * them, so that one skillsfs can read another's as a well-known source.
 */
#ifndef MCP_WELLKNOWN_H
#define MCP_WELLKNOWN_H

#include "mount.h"

/* The index of every skill skills/list would give whose id is a valid
 * name: each file's digest as index.json gives it, the skill's made from
 * them.  Malloc'd JSON text, or NULL with *err (-errno). */
char *wellknown_index(struct mount *m, int *err);

/* The mount's path of the file that /.well-known/agent-skills/<rest>
 * names (rest: "<name>/<path>"), only when the skill's index entry lists
 * it; malloc'd, or NULL with *err (-ENOENT when it names none). */
char *wellknown_file(struct mount *m, const char *rest, int *err);

#endif
