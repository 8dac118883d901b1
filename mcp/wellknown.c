/*
 * wellknown.c - the mount's skills as a well-known index (wellknown.h).
 *
 * Everything comes from index.json, whose entries carry each file's
 * skill:// URI and digest (the SEP-2640 manifest): nothing is hashed
 * here, and a skill skills/list leaves out is left out here too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "skillsfs.h"
#include "wellknown.h"
#include "wellknown/index.h"

/* The files of an index.json entry's resources (malloc'd; their paths
 * point into entry, after "skill://<id>/"), or NULL when one is not a
 * skill file with a digest. */
static struct sfs_wk_file *entry_files(const cJSON *entry, const char *id,
                                       size_t *n)
{
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(entry,
	                                                    SFS_INDEX_RESOURCES);
	size_t plen = strlen(SFS_URI_SKILL_SCHEME) + strlen(id) + 1;
	size_t cap = (size_t)cJSON_GetArraySize(res);
	struct sfs_wk_file *files = calloc(cap ? cap : 1, sizeof(*files));
	const cJSON *r;

	*n = 0;
	cJSON_ArrayForEach(r, res) {
		const cJSON *uri = cJSON_GetObjectItemCaseSensitive(r,
		                                                SFS_RESOURCE_URI);
		const cJSON *dg = cJSON_GetObjectItemCaseSensitive(r,
		                                             SFS_RESOURCE_DIGEST);
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(r,
		                                             SFS_RESOURCE_SIZE);
		if (!files || *n == cap || !cJSON_IsString(uri) ||
		    !cJSON_IsString(dg) || strlen(uri->valuestring) <= plen ||
		    !sfs_parse_digest(dg->valuestring, files[*n].sha256)) {
			free(files);
			return NULL;
		}
		files[*n].path = uri->valuestring + plen;
		files[*n].has_digest = true;
		files[*n].size = cJSON_IsNumber(size) ?
		                 (long long)size->valuedouble : -1;
		(*n)++;
	}
	if (!*n) {
		free(files);
		return NULL;
	}
	return files;
}

static cJSON *file_object(const struct sfs_wk_file *f)
{
	cJSON *o = cJSON_CreateObject();
	char d[SFS_DIGEST_LEN];

	sfs_format_digest(f->sha256, d);
	cJSON_AddStringToObject(o, SFS_WK_KEY_PATH, f->path);
	cJSON_AddStringToObject(o, SFS_WK_KEY_DIGEST, d);
	if (f->size >= 0)
		cJSON_AddNumberToObject(o, SFS_WK_KEY_SIZE, (double)f->size);
	return o;
}

/* One skill's object, or NULL when it cannot be published (an id that is
 * no name, a file the index cannot carry). */
static cJSON *skill_object(const struct model *md, size_t i, int fd)
{
	const struct skill *sk = &md->skills[i];
	size_t len, n = 0;
	struct sfs_wk_file *files = NULL;
	struct skill_info si;

	if (!sfs_valid_id(sk->id) || !sk->index_len)
		return NULL;
	char *line = model_index_read(md, fd, i, &len);
	cJSON *entry = line ? cJSON_ParseWithLength(line, len) : NULL;
	cJSON *o = NULL;
	free(line);
	if (entry && (files = entry_files(entry, sk->id, &n)) &&
	    model_skill_info(md, i, &si) == 0) {
		uint8_t digest[32];
		char d[SFS_DIGEST_LEN];
		sfs_wk_skill_digest(files, n, digest);
		sfs_format_digest(digest, d);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, SFS_WK_KEY_NAME, sk->id);
		cJSON_AddStringToObject(o, SFS_WK_KEY_DESCRIPTION,
		                        si.description);
		cJSON_AddStringToObject(o, SFS_WK_KEY_DIGEST, d);
		cJSON *list = cJSON_AddArrayToObject(o, SFS_WK_KEY_FILES);
		for (size_t k = 0; list && k < n; k++)
			cJSON_AddItemToArray(list, file_object(&files[k]));
		skill_info_free(&si);
	}
	free(files);
	cJSON_Delete(entry);
	return o;
}

char *wellknown_index(struct mount *m, int *err)
{
	const struct model *md = mount_model(m, err);
	if (!md)
		return NULL;
	int fd = model_index_open(md);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, SFS_WK_KEY_VERSION, SFS_WK_VERSION);
	cJSON *skills = cJSON_AddArrayToObject(doc, SFS_WK_KEY_SKILLS);
	for (size_t i = 0; skills && i < md->n; i++) {
		cJSON *o = skill_object(md, i, fd);
		if (o)
			cJSON_AddItemToArray(skills, o);
	}
	close(fd);
	char *text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!text)
		*err = -ENOMEM;
	return text;
}

/* Whether the skill's index.json entry lists path. */
static bool lists(const struct model *md, size_t i, const char *path)
{
	size_t len;
	char *line = model_index_entry(md, i, &len);
	char *uri = sfs_uri_skill(md->skills[i].id, path);
	bool found = false;

	if (line && uri) {
		cJSON *entry = cJSON_ParseWithLength(line, len);
		const cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(entry,
		                   SFS_INDEX_RESOURCES)) {
			const cJSON *u = cJSON_GetObjectItemCaseSensitive(r,
			                                       SFS_RESOURCE_URI);
			found |= cJSON_IsString(u) &&
			         strcmp(u->valuestring, uri) == 0;
		}
		cJSON_Delete(entry);
	}
	free(line);
	free(uri);
	return found;
}

char *wellknown_file(struct mount *m, const char *rest, int *err)
{
	const struct model *md = mount_model(m, err);
	const char *slash = rest ? strchr(rest, '/') : NULL;
	char id[128];

	if (!md)
		return NULL;
	*err = -ENOENT;
	if (!slash || (size_t)(slash - rest) >= sizeof(id) ||
	    !sfs_wk_path_ok(slash + 1))
		return NULL;
	memcpy(id, rest, (size_t)(slash - rest));
	id[slash - rest] = '\0';
	ssize_t i = sfs_valid_id(id) ? model_find(md, id) : -1;
	if (i < 0 || !md->skills[i].index_len || !lists(md, (size_t)i, slash + 1))
		return NULL;
	char *path = mount_skill_file(m, id, slash + 1);
	*err = path ? 0 : -ENOMEM;
	return path;
}
