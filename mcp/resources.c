/*
 * resources.c - resources/list, resources/templates/list and
 * resources/read for the URI contract (contract.h) and for every file
 * of every skill as skill://<id>/<path> (SEP-2640).  Each resource's _meta
 * carries its absolute path inside the mount, so a client can hand the
 * agent a path instead of content.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base64.h"
#include "buf.h"
#include "contract.h"
#include "cursor.h"
#include "files.h"
#include "jsonrpc.h"
#include "resources.h"
#include "text.h"

#define LIST_PAGE 100
#define DOCS_MAX_FILES 10000
#define DOCS_MAX_DEPTH 16

/* ---- shared helpers --------------------------------------------------- */

static const struct {
	const char *ext;
	const char *mime;
} mime_table[] = {
	{ ".md", "text/markdown" },
	{ ".markdown", "text/markdown" },
	{ ".json", "application/json" },
	{ ".py", "text/x-python" },
	{ ".sh", "text/x-shellscript" },
	{ ".bash", "text/x-shellscript" },
	{ ".txt", "text/plain" },
	{ ".csv", "text/csv" },
	{ ".html", "text/html" },
	{ ".css", "text/css" },
	{ ".js", "text/javascript" },
	{ ".xml", "application/xml" },
	{ ".png", "image/png" },
	{ ".jpg", "image/jpeg" },
	{ ".jpeg", "image/jpeg" },
	{ ".gif", "image/gif" },
	{ ".webp", "image/webp" },
	{ ".svg", "image/svg+xml" },
	{ ".pdf", "application/pdf" },
	{ ".zip", "application/zip" },
	{ ".gz", "application/gzip" },
};

const char *mime_by_name(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *dot = strrchr(base, '.');

	if (!dot || dot == base)
		return NULL;
	for (size_t i = 0; i < sizeof(mime_table) / sizeof(mime_table[0]); i++)
		if (strcasecmp(dot, mime_table[i].ext) == 0)
			return mime_table[i].mime;
	return NULL;
}

const char *mime_by_content(const char *data, size_t len)
{
	if (len > SNIFF_BYTES) {
		len = SNIFF_BYTES;
		/* Do not judge a character cut in two at the boundary. */
		size_t back = 0;
		while (back < 3 && back < len &&
		       ((unsigned char)data[len - 1 - back] & 0xC0) == 0x80)
			back++;
		if (back < len && ((unsigned char)data[len - 1 - back] & 0xC0) == 0xC0)
			len -= back + 1;
	}
	return is_text(data, len) ? "text/plain" : "application/octet-stream";
}

const char *mime_of_file(const char *path)
{
	const char *mime = mime_by_name(path);
	char head[SNIFF_BYTES + 1];

	if (mime)
		return mime;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, head, sizeof(head));
	close(fd);
	return n < 0 ? NULL : mime_by_content(head, (size_t)n);
}

cJSON *resource_object(const char *uri, const char *name, const char *mime,
                       const char *path, int64_t size)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "uri", uri);
	cJSON_AddStringToObject(o, "name", name);
	if (mime)
		cJSON_AddStringToObject(o, "mimeType", mime);
	if (size >= 0)
		cJSON_AddNumberToObject(o, "size", (double)size);
	if (path) {
		cJSON *meta = cJSON_AddObjectToObject(o, "_meta");
		cJSON_AddStringToObject(meta, META_PATH, path);
	}
	return o;
}

int open_inside(const char *root, const char *path, int flags)
{
	char real_root[PATH_MAX], real[PATH_MAX], link[64];

	if (!realpath(root, real_root))
		return -errno;
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* Where the descriptor really points, after every symlink. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, sizeof(real) - 1);
	if (n < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	real[n] = '\0';
	size_t rl = strlen(real_root);
	bool inside = strncmp(real, real_root, rl) == 0 &&
		      (real[rl] == '\0' || real[rl] == '/' || rl == 1);
	if (!inside) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

/* ---- resources/read --------------------------------------------------- */

/* What a URI resolves to. */
struct target {
	char *path;        /* absolute path in the mount (owned) */
	char *root;        /* the folder it must stay inside (owned) */
	const char *mime;  /* NULL: decide by name and content */
	char *mime_owned;
};

static void target_free(struct target *t)
{
	free(t->path);
	free(t->root);
	free(t->mime_owned);
}

/* A reference URI (contract.h): the skill's catalog record maps the ref
 * id to a path in the skill. */
static bool resolve_reference(struct mcp_server *s, const struct sfs_uri *u,
                              const char *text, struct target *t,
                              struct reply *r)
{
	char *rec_path = mount_record(&s->mount, u->id);
	char *rec_text = NULL;
	size_t len;
	int rc = rec_path ? read_file(rec_path, MOUNT_MAX_FILE, &rec_text, &len)
			  : -ENOMEM;
	free(rec_path);
	if (rc < 0) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "Cannot read the catalog record of %s: %s", u->id,
			    strerror(-rc));
		return false;
	}
	cJSON *rec = cJSON_ParseWithLength(rec_text, len);
	free(rec_text);
	const cJSON *refs =
		cJSON_GetObjectItemCaseSensitive(rec, SFS_RECORD_REFERENCES);
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(refs, u->path);
	const cJSON *rpath = cJSON_GetObjectItemCaseSensitive(ref, SFS_REF_PATH);
	const cJSON *rmime = cJSON_GetObjectItemCaseSensitive(ref, SFS_REF_MIME_TYPE);
	const char *why = NULL;
	char *clean = cJSON_IsString(rpath)
		? sfs_uri_clean_path(rpath->valuestring, strlen(rpath->valuestring), &why)
		: NULL;
	bool ok = clean != NULL;
	if (ok) {
		t->path = mount_skill_file(&s->mount, u->id, clean);
		t->root = mount_skill_file(&s->mount, u->id, NULL);
		if (cJSON_IsString(rmime))
			t->mime = t->mime_owned = strdup(rmime->valuestring);
	} else {
		reply_bad_uri(r, text, "Resource not found: %s has no reference '%s'",
			      u->id, u->path);
	}
	free(clean);
	cJSON_Delete(rec);
	return ok;
}

/* Whether the URI names a served skill (of its plugin, when it names
 * one: <plugin>:<id>). */
static bool uri_skill_known(const struct model *md, const struct sfs_uri *u)
{
	ssize_t i = u->id[0] ? model_find(md, u->id) : -1;

	if (i < 0)
		return false;
	if (!u->plugin[0])
		return true;
	return md->skills[i].plugin &&
	       strcmp(md->skills[i].plugin, u->plugin) == 0;
}

/* The target: path below root (both owned), of type mime (NULL: by name
 * and content).  Always true, to end a resolve. */
static bool aim(struct target *t, char *path, char *root, const char *mime)
{
	t->path = path;
	t->root = root;
	t->mime = mime;
	return true;
}

static bool resolve(struct mcp_server *s, const struct model *md,
                    const struct sfs_uri *u, const char *text, struct target *t,
                    struct reply *r)
{
	const struct mount *m = &s->mount;
	bool known = uri_skill_known(md, u);

	switch (u->kind) {
	case SFS_URI_CATALOG_INDEX:
		return aim(t, mount_file(m, SFS_MOUNT_SKILLS_INDEX),
		           mount_file(m, SFS_MOUNT_CATALOG), "application/json");
	case SFS_URI_CATALOG_SKILL:
		if (known)
			return aim(t, mount_record(m, u->id),
			           mount_file(m, SFS_MOUNT_CATALOG),
			           "application/json");
		break;
	case SFS_URI_DOCUMENT:
		if (known)
			return aim(t, mount_skill_file(m, u->id, "SKILL.md"),
			           mount_skill_file(m, u->id, NULL),
			           "text/markdown");
		break;
	case SFS_URI_REFERENCE:
		if (known)
			return resolve_reference(s, u, text, t, r);
		break;
	case SFS_URI_DOC:
		if (md->has_docs)
			return aim(t, mount_doc(m, u->path),
			           mount_file(m, SFS_MOUNT_DOCS), "text/markdown");
		break;
	case SFS_URI_SKILL_ROOT:
		if (!known)
			break;
		reply_bad_uri(r, text, "%s is a directory; list it with "
			      "resources/directory/read", text);
		return false;
	case SFS_URI_SKILL_PATH:
		if (known)
			return aim(t, mount_skill_file(m, u->id, u->path),
			           mount_skill_file(m, u->id, NULL), NULL);
		break;
	default:
		break;
	}
	reply_bad_uri(r, text, "Resource not found: %s", text);
	return false;
}

/* Reads the target into one contents item: text when it is UTF-8 without
 * NUL, base64 blob otherwise. */
static cJSON *read_contents(const char *text_uri, const struct target *t,
                            struct reply *r)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer.  A mount
	 * never serves one, but a plain folder (SKILLSFS_MCP_ALLOW_PLAIN_DIR)
	 * could; anything but a regular file is refused below. */
	int fd = open_inside(t->root, t->path, O_RDONLY | O_NONBLOCK);
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (fd < 0) {
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -EXDEV)
			reply_bad_uri(r, text_uri, "Resource not found: %s",
				      text_uri);
		else
			reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
				    "Cannot open %s: %s", t->path, strerror(-fd));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		reply_bad_uri(r, text_uri, "%s is a directory; list it with "
			      "resources/directory/read", text_uri);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		reply_bad_uri(r, text_uri, "Resource not found: %s is not a "
			      "regular file", text_uri);
		return NULL;
	}
	rc = read_fd(fd, MOUNT_MAX_FILE, &data, &len);
	close(fd);
	if (rc == -EFBIG) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "uri", text_uri);
		cJSON_AddStringToObject(d, "path", t->path);
		reply_error(r, JSONRPC_INVALID_PARAMS, d,
			    "Resource larger than %zu bytes; read it from %s",
			    MOUNT_MAX_FILE, t->path);
		return NULL;
	}
	if (rc < 0) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "Cannot read %s: %s",
			    t->path, strerror(-rc));
		return NULL;
	}

	bool text = is_text(data, len);
	const char *mime = t->mime ? t->mime : mime_by_name(t->path);
	if (!mime)
		mime = mime_by_content(data, len);
	cJSON *item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "uri", text_uri);
	cJSON_AddStringToObject(item, "mimeType", mime);
	if (text) {
		cJSON_AddStringToObject(item, "text", data);
	} else {
		char *b64 = base64_encode((const unsigned char *)data, len);
		cJSON_AddStringToObject(item, "blob", b64 ? b64 : "");
		free(b64);
	}
	cJSON *meta = cJSON_AddObjectToObject(item, "_meta");
	cJSON_AddStringToObject(meta, META_PATH, t->path);
	free(data);
	return item;
}

void handle_resources_read(struct mcp_server *s, const struct request *req,
                           struct reply *r)
{
	const char *text = param_uri(req, r);
	struct sfs_uri u;
	struct target t = { 0 };

	if (!text)
		return;
	sfs_uri_parse(text, &u);
	if (u.kind == SFS_URI_INVALID) {
		reply_bad_uri(r, text, "Invalid resource URI: %s", u.error);
	} else if (u.kind == SFS_URI_UNKNOWN) {
		reply_bad_uri(r, text, "Resource not found: %s", text);
	} else {
		const struct model *md = server_model(s, r);
		if (md && resolve(s, md, &u, text, &t, r)) {
			if (!t.path || !t.root) {
				reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
					    "Out of memory");
			} else {
				cJSON *item = read_contents(text, &t, r);
				if (item) {
					r->result = cJSON_CreateObject();
					cJSON *c = cJSON_AddArrayToObject(r->result,
									 "contents");
					cJSON_AddItemToArray(c, item);
					r->cache = CACHE_MOUNT;
				}
			}
		}
	}
	target_free(&t);
	sfs_uri_free(&u);
}

/* ---- resources/templates/list ----------------------------------------- */

#define PLUGIN_REF "{skill_id} is a skill's id, or <plugin>:<id> for a skill " \
	"of a Claude Code plugin."

static void add_template(cJSON *list, const char *tmpl, const char *name,
                         const char *title, const char *desc, const char *mime)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "uriTemplate", tmpl);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "title", title);
	cJSON_AddStringToObject(o, "description", desc);
	if (mime)
		cJSON_AddStringToObject(o, "mimeType", mime);
	cJSON_AddItemToArray(list, o);
}

void handle_templates_list(struct mcp_server *s, const struct request *req,
                           struct reply *r)
{
	bool bad;

	if (param_string(req, "cursor", r, &bad) || bad) {
		if (!bad)
			reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
				    "Invalid params: unknown cursor");
		return;
	}
	const struct model *md = server_model(s, r);
	if (!md)
		return;
	r->result = cJSON_CreateObject();
	cJSON *list = cJSON_AddArrayToObject(r->result, "resourceTemplates");
	add_template(list, SFS_TEMPLATE_RECORD, "skill-record",
		     "Catalog record of a skill",
		     "The normalized record of one skill: document URI, references, "
		     "tags, capabilities, version, source folder and digest. "
		     PLUGIN_REF, "application/json");
	add_template(list, SFS_TEMPLATE_DOCUMENT,
		     "skill-document", "SKILL.md of a skill",
		     "The authored SKILL.md of one skill, frontmatter included. "
		     PLUGIN_REF, "text/markdown");
	add_template(list, SFS_TEMPLATE_REFERENCE,
		     "skill-reference", "Reference document of a skill",
		     "One reference document declared in the skill's references "
		     "manifest, by its reference id. " PLUGIN_REF, NULL);
	if (md->has_docs)
		add_template(list, SFS_TEMPLATE_DOC, "doc",
			     "Authored documentation",
			     "A markdown file under the docs folder, by its "
			     "relative path.", "text/markdown");
	add_template(list, SFS_TEMPLATE_SKILL, "skill-file",
		     "File of a skill",
		     "Any file of a skill by its path in the skill folder "
		     "(SEP-2640), each segment percent-encoded; "
		     SFS_TEMPLATE_SKILL_DIR " is the folder itself.", NULL);
	r->cache = CACHE_MOUNT;
}

/* ---- resources/list ---------------------------------------------------
 * The list is: the catalog index; then for each skill by id its catalog
 * record, its document, its references and its files; then the docs.
 * Cursor keys: "s/<id>/<n>" resumes at item n of skill <id>,
 * "d/<path>" after that docs file. */

struct page {
	cJSON *list;
	size_t count;
	char *next;        /* cursor key of the first item not returned */
};

/* Adds an item when the page has room; otherwise records where to resume. */
static bool page_add(struct page *p, cJSON *item, const char *resume_key)
{
	if (p->count == LIST_PAGE) {
		cJSON_Delete(item);
		if (!p->next)
			p->next = strdup(resume_key);
		return false;
	}
	cJSON_AddItemToArray(p->list, item);
	p->count++;
	return true;
}

static const char *json_string(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool really_inside(const char *real_root, const char *path);

/* ---- the files of a skill that skills/list leaves out -----------------
 * Its entry is not in index.json, so its files are found the way a client
 * would: by walking its folder in the mount.  The result is shaped like
 * an entry ({"resources":[{uri, size}]}, SKILL.md first, then by path)
 * without digests. */

/* The regular files below a folder of the mount, as paths relative to
 * it: what a skill that index.json does not list, and the docs folder,
 * are made of.  Symbolic links are followed only while they stay inside
 * the folder (real_root); `docs` keeps markdown files only and skips dot
 * entries, as the docs tree does. */
struct walk {
	bool docs;
	char **paths;
	size_t n, cap;
};

static void walk_keep(struct walk *w, char **sub)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		char **p = realloc(w->paths, cap * sizeof(*p));
		if (!p)
			return;
		w->paths = p;
		w->cap = cap;
	}
	w->paths[w->n++] = *sub;
	*sub = NULL;
}

static void walk_files(struct walk *w, const char *root,
                       const char *real_root, const char *rel,
                       unsigned depth)
{
	char *dir = *rel ? xasprintf("%s/%s", root, rel) : strdup(root);
	DIR *dp = dir ? opendir(dir) : NULL;
	struct dirent *de;

	while (dp && (de = readdir(dp)) && w->n < DOCS_MAX_FILES) {
		const char *name = de->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    (w->docs && name[0] == '.'))
			continue;
		char *sub = *rel ? xasprintf("%s/%s", rel, name) : strdup(name);
		char *full = sub ? xasprintf("%s/%s", root, sub) : NULL;
		struct stat st;
		if (full && stat(full, &st) == 0 &&
		    really_inside(real_root, full)) {
			size_t n = strlen(sub);
			if (S_ISDIR(st.st_mode) && depth < DOCS_MAX_DEPTH)
				walk_files(w, root, real_root, sub, depth + 1);
			else if (S_ISREG(st.st_mode) && (!w->docs ||
			         (n > 3 && strcmp(sub + n - 3, ".md") == 0)))
				walk_keep(w, &sub);
		}
		free(sub);
		free(full);
	}
	if (dp)
		closedir(dp);
	free(dir);
}

static int cmp_path(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int top_x = strcmp(x, "SKILL.md") == 0, top_y = strcmp(y, "SKILL.md") == 0;

	if (top_x != top_y)
		return top_y - top_x;
	return strcmp(x, y);
}

static cJSON *unlisted_entry(struct mcp_server *s, const char *id)
{
	char *root = mount_skill_file(&s->mount, id, NULL);
	char real_root[PATH_MAX];
	struct walk w = { 0 };
	cJSON *entry = cJSON_CreateObject();
	cJSON *list = cJSON_AddArrayToObject(entry, "resources");

	if (root && realpath(root, real_root))
		walk_files(&w, root, real_root, "", 0);
	if (w.n)
		qsort(w.paths, w.n, sizeof(*w.paths), cmp_path);
	for (size_t i = 0; i < w.n; i++) {
		char *uri = sfs_uri_skill(id, w.paths[i]);
		char *full = xasprintf("%s/%s", root, w.paths[i]);
		struct stat st;
		if (uri && full && stat(full, &st) == 0) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "uri", uri);
			cJSON_AddNumberToObject(o, "size", (double)st.st_size);
			cJSON_AddItemToArray(list, o);
		}
		free(uri);
		free(full);
		free(w.paths[i]);
	}
	free(w.paths);
	free(root);
	return entry;
}

/* Every resource of one skill, in list order. */
static cJSON *skill_items(struct mcp_server *s, const struct model *md,
                          size_t i)
{
	const char *id = md->skills[i].id;
	cJSON *items = cJSON_CreateArray();
	char *uri, *path, *name;

	uri = sfs_uri_record(id);
	path = mount_record(&s->mount, id);
	name = xasprintf("%s/%s", sfs_mount_row(SFS_MOUNT_CATALOG)->name,
	                 id);
	if (uri && path && name)
		cJSON_AddItemToArray(items, resource_object(uri, name,
					"application/json", path, -1));
	free(uri);
	free(path);
	free(name);

	size_t len;
	struct skill_info si = { 0 };
	char *line = model_index_entry(md, i, &len);
	cJSON *entry = line ? cJSON_ParseWithLength(line, len)
			    : unlisted_entry(s, id);
	free(line);
	const cJSON *fm = cJSON_GetObjectItemCaseSensitive(entry, "frontmatter");
	const char *desc = json_string(fm, "description");
	if (!desc && model_skill_info(md, i, &si) == 0)
		desc = si.description;

	uri = sfs_uri_document(id);
	path = mount_skill_file(&s->mount, id, "SKILL.md");
	if (uri && path) {
		cJSON *o = resource_object(uri, id, "text/markdown", path, -1);
		if (desc)
			cJSON_AddStringToObject(o, "description", desc);
		cJSON_AddItemToArray(items, o);
	}
	free(uri);
	free(path);

	/* References, from the catalog record. */
	char *rec_path = mount_record(&s->mount, id);
	char *rec_text = NULL;
	if (rec_path && read_file(rec_path, MOUNT_MAX_FILE, &rec_text, &len) == 0) {
		cJSON *rec = cJSON_ParseWithLength(rec_text, len);
		const cJSON *refs =
		cJSON_GetObjectItemCaseSensitive(rec, SFS_RECORD_REFERENCES);
		const cJSON *ref;
		cJSON_ArrayForEach(ref, refs) {
			const char *rpath = json_string(ref, SFS_REF_PATH);
			const char *why;
			char *clean = rpath ? sfs_uri_clean_path(rpath, strlen(rpath), &why)
					    : NULL;
			if (!clean || !ref->string)
				goto next;
			uri = sfs_uri_reference(id, ref->string);
			path = mount_skill_file(&s->mount, id, clean);
			name = xasprintf("%s/references/%s", id, ref->string);
			if (uri && path && name) {
				const char *mime = json_string(ref, SFS_REF_MIME_TYPE);
				cJSON *o = resource_object(uri, name,
					mime ? mime : mime_by_name(clean), path, -1);
				const char *title = json_string(ref, SFS_REF_TITLE);
				cJSON_AddStringToObject(o, "title", title ? title : rpath);
				cJSON_AddItemToArray(items, o);
			}
			free(uri);
			free(path);
			free(name);
next:
			free(clean);
		}
		cJSON_Delete(rec);
	}
	free(rec_text);
	free(rec_path);

	/* Every file, as SEP-2640 lists them in the entry's resources. */
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(entry, "resources");
	const cJSON *f;
	cJSON_ArrayForEach(f, files) {
		const char *furi = json_string(f, "uri");
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(f, "size");
		struct sfs_uri u;
		if (!furi)
			continue;
		sfs_uri_parse(furi, &u);
		if (u.kind == SFS_URI_SKILL_PATH && strcmp(u.id, id) == 0) {
			path = mount_skill_file(&s->mount, id, u.path);
			bool top = strcmp(u.path, "SKILL.md") == 0;
			cJSON *o = resource_object(furi, top ? id : u.path,
				top ? "text/markdown" : mime_of_file(path), path,
				cJSON_IsNumber(size) ? (int64_t)size->valuedouble : -1);
			if (top && desc)
				cJSON_AddStringToObject(o, "description", desc);
			const char *digest = json_string(f, "digest");
			cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "_meta");
			if (digest && meta)
				cJSON_AddStringToObject(meta, "io.skillsfs/digest", digest);
			cJSON_AddItemToArray(items, o);
			free(path);
		}
		sfs_uri_free(&u);
	}
	cJSON_Delete(entry);
	skill_info_free(&si);
	return items;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is `path`, symlinks followed, inside the folder whose real path is
 * `real_root`? */
static bool really_inside(const char *real_root, const char *path)
{
	char real[PATH_MAX];
	size_t rl = strlen(real_root);

	return realpath(path, real) && strncmp(real, real_root, rl) == 0 &&
	       (real[rl] == '/' || real[rl] == '\0');
}

static void list_docs(struct mcp_server *s, struct page *p, const char *after)
{
	struct walk d = { .docs = true };
	char *root = mount_file(&s->mount, SFS_MOUNT_DOCS);

	char real_root[PATH_MAX];
	if (root && realpath(root, real_root))
		walk_files(&d, root, real_root, "", 0);
	if (d.n)
		qsort(d.paths, d.n, sizeof(*d.paths), cmp_str);
	for (size_t i = 0; i < d.n; i++) {
		if (after && strcmp(d.paths[i], after) <= 0)
			continue;
		char *uri = sfs_uri_doc(d.paths[i]);
		char *path = xasprintf("%s/%s", root, d.paths[i]);
		char *key = xasprintf("d/%s", i ? d.paths[i - 1] : "");
		if (uri && path && key)
			page_add(p, resource_object(uri, d.paths[i], "text/markdown",
						    path, -1), key);
		free(uri);
		free(path);
		free(key);
		if (p->next)
			break;
	}
	for (size_t i = 0; i < d.n; i++)
		free(d.paths[i]);
	free(d.paths);
	free(root);
}

static bool list_skills_from(struct mcp_server *s, const struct model *md,
                             struct page *p, size_t first, size_t sub)
{
	for (size_t i = first; i < md->n; i++, sub = 0) {
		cJSON *items = skill_items(s, md, i);
		size_t n = (size_t)cJSON_GetArraySize(items);
		for (size_t k = 0; k < n; k++) {
			cJSON *item = cJSON_DetachItemFromArray(items, 0);
			char *key = k >= sub ? xasprintf("s/%s/%zu",
						  md->skills[i].id, k) : NULL;
			if (key && !p->next)
				page_add(p, item, key);
			else
				cJSON_Delete(item);
			free(key);
		}
		cJSON_Delete(items);
		if (p->next)
			return false;
	}
	return true;
}

void handle_resources_list(struct mcp_server *s, const struct request *req,
                           struct reply *r)
{
	char *key;
	const struct model *md = list_begin(s, req, "resources", r, &key);

	if (!md)
		return;
	struct page p = { .list = cJSON_CreateArray() };
	bool skills_done = false;
	const char *docs_after = NULL;

	if (!key) {
		char *path = mount_file(&s->mount, SFS_MOUNT_SKILLS_INDEX);
		cJSON *o = resource_object(SFS_URI_SKILLS_INDEX,
					   "skills_index", "application/json",
					   path, -1);
		cJSON_AddStringToObject(o, "title", "Skills catalog index");
		cJSON_AddStringToObject(o, "description",
			"One compact record per skill: id, name, description, tags, "
			"capabilities, version.");
		page_add(&p, o, "");
		free(path);
		skills_done = list_skills_from(s, md, &p, 0, 0);
	} else if (key[0] == 's' && key[1] == '/') {
		char *id = key + 2;
		char *slash = strrchr(id, '/');
		size_t sub = 0, first;
		if (slash) {
			*slash = '\0';
			sub = strtoul(slash + 1, NULL, 10);
		}
		first = (size_t)-1;
		for (size_t i = 0; i < md->n && first == (size_t)-1; i++)
			if (strcmp(md->skills[i].id, id) >= 0)
				first = i;
		if (first == (size_t)-1)
			first = md->n;
		else if (strcmp(md->skills[first].id, id) != 0)
			sub = 0;
		skills_done = list_skills_from(s, md, &p, first, sub);
	} else if (key[0] == 'd' && key[1] == '/') {
		skills_done = true;
		docs_after = key[2] ? key + 2 : NULL;
	} else {
		skills_done = true;
	}
	if (skills_done && md->has_docs && !p.next)
		list_docs(s, &p, docs_after);

	r->result = cJSON_CreateObject();
	cJSON_AddItemToObject(r->result, "resources", p.list);
	if (p.next) {
		char *next = cursor_make("resources", p.next);
		if (next)
			cJSON_AddStringToObject(r->result, "nextCursor", next);
		free(next);
	}
	r->cache = CACHE_MOUNT;
	free(p.next);
	free(key);
}
