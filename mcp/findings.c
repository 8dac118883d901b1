/*
 * findings.c - a skill's findings from its catalog record (findings.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "contract.h"
#include "files.h"
#include "findings.h"

cJSON *skill_findings(const struct mount *m, const char *id, int *err)
{
	char *path = mount_record(m, id);
	char *text = NULL;
	size_t len = 0;
	int rc = path ? read_file(path, MOUNT_MAX_FILE, &text, &len) : -ENOMEM;
	cJSON *rec = rc == 0 ? cJSON_ParseWithLength(text, len) : NULL;
	cJSON *out = rec ? sfs_record_findings(rec) : NULL;

	*err = rc < 0 ? rc : !rec ? -EIO : !out ? -ENOMEM : 0;
	cJSON_Delete(rec);
	free(text);
	free(path);
	return out;
}
