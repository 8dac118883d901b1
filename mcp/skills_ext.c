/*
 * skills_ext.c - the MCP Skills extension (SEP-2640, io.modelcontextprotocol/
 * skills): skills/list, skills/get and resources/directory/read.
 *
 * Entries are the lines of MOUNT/index.json byte for byte: the mount
 * renders them exactly as SEP-2640 shapes a skills/list entry (uri,
 * verbatim frontmatter, resources with sha256 digests and sizes), so the
 * server validates each line it sends and passes it through unchanged.
 * A served skill without a line (its entry breaks a rule a conforming
 * client enforces, and one bad entry makes such a client refuse the
 * whole list) is not listed, and skills/get answers for it as for an
 * unknown skill; its files stay readable as resources.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "contract.h"
#include "cursor.h"
#include "findings.h"
#include "jsonrpc.h"
#include "resources.h"
#include "selection.h"
#include "text.h"

#define SKILLS_PAGE 100
#define DIRECTORY_PAGE 500

static const char *index_name(void)
{
	return sfs_mount_row(SFS_MOUNT_INDEX)->path;
}

static void index_error(struct reply *r, int err)
{
	if (err == EAGAIN)
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "%s changed while "
			    "it was read (the mount refreshed); ask again",
			    index_name());
	else
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "Cannot read %s: %s", index_name(), strerror(err));
}

/* The entry of skill i as a raw JSON item, or NULL with an error reply;
 * fd is index.json open (model_index_open), or -1 to open it here. */
static cJSON *raw_entry(const struct model *md, int fd, size_t i,
                        struct reply *r)
{
	size_t len;
	char *line = fd >= 0 ? model_index_read(md, fd, i, &len)
			     : model_index_entry(md, i, &len);

	if (!line) {
		index_error(r, errno);
		return NULL;
	}
	/* Raw text goes out unchanged, so it must be one JSON object. */
	cJSON *check = cJSON_ParseWithLength(line, len);
	bool ok = cJSON_IsObject(check);
	cJSON_Delete(check);
	if (!ok || !is_text(line, len)) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "%s has a malformed entry for %s", index_name(),
			    md->skills[i].id);
		free(line);
		return NULL;
	}
	cJSON *raw = cJSON_CreateRaw(line);
	free(line);
	return raw;
}

/* selection_make's keep: a skill with an entry in index.json. */
static bool has_entry(const struct model *md, size_t i, const char *query,
                      void *arg)
{
	(void)query;
	(void)arg;
	return md->skills[i].index_len != 0;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The skills skills/list lists: those of the view (the params' "view",
 * else the session's) that the project admits, in id order, so that a
 * cursor is the last id as it always was. */
static bool list_selection(struct mcp_server *s, const struct request *req,
                           const struct model *md, struct selection *sel,
                           struct reply *r)
{
	bool bad;
	const char *view = param_string(req, "view", r, &bad), *why;

	if (bad)
		return false;
	view = view ? view : s->view;
	int rc = selection_make(s->mount.path, md, view, s->project, NULL,
	                        has_entry, NULL, sel, &why);
	if (rc == -ENOENT)
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: view %s: %s", view, why);
	else if (rc < 0)
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "out of memory");
	if (rc < 0)
		return false;
	qsort(sel->v, sel->n, sizeof(*sel->v), cmp_index);
	return true;
}

void handle_skills_list(struct mcp_server *s, const struct request *req,
                        struct reply *r)
{
	char *key;
	size_t start = 0;
	struct selection sel;
	const struct model *md = list_begin(s, req, "skills", r, &key);

	if (!md || !list_selection(s, req, md, &sel, r)) {
		free(key);
		return;
	}
	if (key)
		while (start < sel.n &&
		       strcmp(md->skills[sel.v[start]].id, key) <= 0)
			start++;
	free(key);

	int fd = model_index_open(md);
	if (fd < 0) {
		selection_free(&sel);
		index_error(r, -fd);
		return;
	}
	cJSON *result = cJSON_CreateObject();
	cJSON *list = cJSON_AddArrayToObject(result, "skills");
	size_t k, count = 0;
	const char *last = NULL;
	for (k = start; k < sel.n && count < SKILLS_PAGE; k++) {
		cJSON *raw = raw_entry(md, fd, sel.v[k], r);
		if (!raw) {
			close(fd);
			selection_free(&sel);
			cJSON_Delete(result);
			return;
		}
		cJSON_AddItemToArray(list, raw);
		count++;
		last = md->skills[sel.v[k]].id;
	}
	close(fd);
	if (k < sel.n && last) {
		char *next = cursor_make("skills", last);
		if (next)
			cJSON_AddStringToObject(result, "nextCursor", next);
		free(next);
	}
	selection_free(&sel);
	r->result = result;
	r->cache = CACHE_MOUNT;   /* SEP-2640: list-caching attributes */
}

void handle_skills_get(struct mcp_server *s, const struct request *req,
                       struct reply *r)
{
	const char *text = param_uri(req, r);
	struct sfs_uri u;

	if (!text)
		return;
	sfs_uri_parse(text, &u);
	/* SEP-2640: params.uri MUST be the URI of a skill's SKILL.md. */
	if (u.kind != SFS_URI_SKILL_PATH || strcmp(u.path, "SKILL.md") != 0) {
		reply_bad_uri(r, text, "Not the SKILL.md URI of a skill: %s", text);
		sfs_uri_free(&u);
		return;
	}
	const struct model *md = server_model(s, r);
	ssize_t i = md ? model_find(md, u.id) : -1;
	if (i >= 0 && !md->skills[i].index_len)
		i = -1;   /* served, but not listable: as unknown */
	if (md && i < 0)
		reply_bad_uri(r, text, "Unknown skill: %s", text);
	if (i >= 0) {
		cJSON *raw = raw_entry(md, -1, (size_t)i, r);
		int err = 0;
		/* beside the entry: what the security pass found in the
		 * skill, for the agent to weigh (skillsfs-mcp(1)) */
		cJSON *findings = raw ? skill_findings(&s->mount,
		                                       md->skills[i].id, &err)
		                      : NULL;
		if (raw && !findings) {
			cJSON_Delete(raw);
			raw = NULL;
			reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "Cannot read "
			            "the catalog record of %s: %s",
			            md->skills[i].id, strerror(-err));
		}
		if (raw) {
			r->result = cJSON_CreateObject();
			cJSON_AddItemToObject(r->result, "skill", raw);
			cJSON_AddItemToObject(r->result, "findings", findings);
			/* SEP-2640 leaves cache hints on skills/get open; the v2
			 * SDK's skills client expects them, as on resources/read. */
			r->cache = CACHE_MOUNT;
		}
	}
	sfs_uri_free(&u);
}

/* ---- resources/directory/read ----------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in an open folder (the descriptor is consumed). */
static char **read_names(int fd, size_t *n)
{
	DIR *dp = fdopendir(fd);
	struct dirent *de;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	if (!dp) {
		close(fd);
		return NULL;
	}
	while ((de = readdir(dp))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			char **p = realloc(names, cap * sizeof(*p));
			if (!p)
				break;
			names = p;
		}
		if (!(names[*n] = strdup(de->d_name)))
			break;
		(*n)++;
	}
	closedir(dp);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_name);
	return names;
}

/* One child of a directory as a Resource: folders are inode/directory.
 * A child that leads out of the skill folder `root` (a symlink) is left
 * out, as resources/read would refuse it: listing it would tell its
 * target's type and size. */
static cJSON *child_object(const char *root, const char *dir_uri,
                           const char *dir_path, const char *name)
{
	char *uri = sfs_uri_join(dir_uri, name);
	char *path = xasprintf("%s/%s", dir_path, name);
	int fd = uri && path ? open_inside(root, path, O_PATH) : -ENOMEM;
	struct stat st;
	cJSON *o = NULL;

	if (fd >= 0 && fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			o = resource_object(uri, name, "inode/directory", path, -1);
		else if (S_ISREG(st.st_mode))
			o = resource_object(uri, name, mime_of_file(path), path,
					    (int64_t)st.st_size);
	}
	if (fd >= 0)
		close(fd);
	free(uri);
	free(path);
	return o;
}

void handle_directory_read(struct mcp_server *s, const struct request *req,
                           struct reply *r)
{
	const char *text = param_uri(req, r);
	char *after = NULL;
	struct sfs_uri u;

	if (!text || !param_cursor(req, "dir", r, &after))
		return;
	sfs_uri_parse(text, &u);
	const struct model *md = NULL;
	if (u.kind == SFS_URI_INVALID) {
		reply_bad_uri(r, text, "Invalid resource URI: %s", u.error);
		goto out;
	}
	if ((u.kind != SFS_URI_SKILL_ROOT && u.kind != SFS_URI_SKILL_PATH) ||
	    !(md = server_model(s, r)) || model_find(md, u.id) < 0) {
		if (!r->code)
			reply_bad_uri(r, text, "Resource not found: %s", text);
		goto out;
	}

	char *root = mount_skill_file(&s->mount, u.id, NULL);
	char *dir = mount_skill_file(&s->mount, u.id, u.path);
	int fd = root && dir ? open_inside(root, dir, O_RDONLY | O_DIRECTORY)
			     : -ENOMEM;
	if (fd == -ENOTDIR)
		reply_bad_uri(r, text, "Not a directory: %s", text);
	else if (fd == -ENOENT || fd == -EXDEV)
		reply_bad_uri(r, text, "Resource not found: %s", text);
	else if (fd < 0)
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "Cannot open %s: %s",
			    dir, strerror(-fd));
	if (fd >= 0) {
		size_t n = 0, count = 0;
		char **names = read_names(fd, &n);
		/* Children append one segment each to the folder's URI in
		 * its one spelling (sfs_uri_encode), however the client
		 * wrote it. */
		char *base = sfs_uri_skill(u.id, u.path);
		r->result = cJSON_CreateObject();
		cJSON *list = cJSON_AddArrayToObject(r->result, "resources");
		const char *last = NULL;
		bool more = false;
		for (size_t i = 0; i < n; i++) {
			if (after && strcmp(names[i], after) <= 0)
				continue;
			if (count == DIRECTORY_PAGE) {
				more = true;
				break;
			}
			cJSON *o = base ? child_object(root, base, dir, names[i])
					: NULL;
			if (o) {
				cJSON_AddItemToArray(list, o);
				count++;
				last = names[i];
			}
		}
		if (more && last) {
			char *next = cursor_make("dir", last);
			if (next)
				cJSON_AddStringToObject(r->result, "nextCursor", next);
			free(next);
		}
		/* Like resources/list (the v2 SDK's skills client wants it). */
		r->cache = CACHE_MOUNT;
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		free(base);
	}
	free(root);
	free(dir);
out:
	free(after);
	sfs_uri_free(&u);
}
