/*
 * findings.h - what the security pass found in a skill, as get_skill and
 * skills/get tell the agent: read from the skill's catalog record
 * (catalog/<id>.json) through contract.h's reader, never recomputed.
 */
#ifndef SKILLSFS_MCP_FINDINGS_H
#define SKILLSFS_MCP_FINDINGS_H

#include <cjson/cJSON.h>

#include "mount.h"

/* The findings of skill id as an array of {rule, severity, file, line,
 * message} (file relative to the skill's folder; empty when there are
 * none), or NULL when the record cannot be read (-errno in *err). */
cJSON *skill_findings(const struct mount *m, const char *id, int *err);

#endif
