/*
 * mount.c - finding the skillsfs mount and modelling what it serves.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "buf.h"
#include "contract.h"
#include "files.h"
#include "mount.h"
#include "skillsfs.h"

/* ---- where the mount is ----------------------------------------------- */

struct mount_type {
	const char *path;
	char *fstype;
	size_t len;
};

static void take_type(const char *point, const char *type, void *arg)
{
	struct mount_type *m = arg;

	if (strcmp(point, m->path) == 0)   /* later ones are on top */
		snprintf(m->fstype, m->len, "%s", type);
}

/* The type of the topmost mount at `path`, or "" when none. */
static int lookup_mountinfo(const char *path, char *fstype, size_t len)
{
	struct mount_type m = { path, fstype, len };

	fstype[0] = '\0';
	return sfs_mountinfo_each(take_type, &m);
}

int mount_kind(const char *path, char *fstype, size_t fstype_len)
{
	int rc = lookup_mountinfo(path, fstype, fstype_len);
	if (rc < 0)
		return rc;
	if (!fstype[0]) {
		/* The path may reach the mount point through a symlink: resolve
		 * its parent (never the mount itself, which may be hung). */
		char *dir = strdup(path);
		if (!dir)
			return -ENOMEM;
		char *slash = strrchr(dir, '/');
		const char *base = slash ? slash + 1 : "";
		char real[PATH_MAX];
		if (*base) {
			*slash = '\0';
			if (realpath(*dir ? dir : "/", real)) {
				char *full = xasprintf("%s/%s",
						       strcmp(real, "/") ? real : "",
						       base);
				if (full && strcmp(full, path) != 0)
					rc = lookup_mountinfo(full, fstype,
							      fstype_len);
				free(full);
			}
		}
		free(dir);
		if (rc < 0)
			return rc;
	}
	if (!fstype[0])
		return MOUNT_NONE;
	return strcmp(fstype, "fuse.skillsfs") == 0 ? MOUNT_SKILLSFS
						     : MOUNT_OTHER;
}

char *mount_file(const struct mount *m, enum sfs_mount_entry e)
{
	return sfs_mount_path(m->path, e);
}

char *mount_skill_file(const struct mount *m, const char *id, const char *rel)
{
	return sfs_mount_skill(m->path, id, rel);
}

char *mount_record(const struct mount *m, const char *id)
{
	return sfs_mount_record(m->path, id);
}

char *mount_doc(const struct mount *m, const char *rel)
{
	return sfs_mount_doc(m->path, rel);
}

int mount_status_readable(const char *path)
{
	char *file = sfs_mount_path(path, SFS_MOUNT_STATUS);
	char c;

	if (!file)
		return -ENOMEM;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	free(file);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, &c, 1);
	int e = errno;
	close(fd);
	if (r < 0)
		return -e;
	return r == 1 ? 0 : -ENODATA;
}

static int status_ino(const struct mount *m, uint64_t *ino)
{
	char *file = mount_file(m, SFS_MOUNT_STATUS);
	struct stat st;
	struct statfs sf;

	if (!file)
		return -ENOMEM;
	/* stat, open and read may all be answered from the kernel's caches
	 * long after the daemon died; statfs always reaches the daemon, and
	 * fails with ENOTCONN when it is gone. */
	if (statfs(m->path, &sf) < 0) {
		int e = errno;
		free(file);
		return -e;
	}
	int rc = stat(file, &st);
	int e = errno;
	free(file);
	if (rc < 0)
		return -e;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* ---- the model -------------------------------------------------------- */

static void model_free(struct model *md)
{
	if (!md)
		return;
	free(md->index_path);
	free(md->catalog);
	free(md->skills);
	free(md->ids);
	free(md);
}

void mount_release(struct mount *m)
{
	model_free(m->model);
	m->model = NULL;
}

int mount_generation_changed(struct mount *m)
{
	uint64_t ino;
	int rc = status_ino(m, &ino);

	if (rc < 0)
		return rc;
	if (!m->seen) {
		m->seen = true;
		m->seen_ino = ino;
		return 0;
	}
	if (ino == m->seen_ino)
		return 0;
	m->seen_ino = ino;
	if (m->model && m->model->ino != ino)
		mount_release(m);
	return 1;
}

static void set_invocable(struct skill *sk, struct sfs_invocable inv)
{
	sk->model_invocable = inv.model;
	sk->user_invocable = inv.user;
}

struct loader {
	struct model *md;
	size_t cap;
	struct buf ids;        /* ids and plugins, NUL-separated */
};

/* Storage offsets stand in for pointers until the storage stops moving;
 * 0 is no string, so offsets are stored plus one. */
static const char *later(size_t off)
{
	return (const char *)(uintptr_t)(off + 1);
}

static const char *fix(const char *ids, const char *p)
{
	return p ? ids + (uintptr_t)p - 1 : NULL;
}

/* One skill per line of skills_index.json: the set of skills served. */
static int add_catalog_skill(struct loader *ld, const char *line, size_t len)
{
	char id[80], plugin[256];
	struct model *md = ld->md;

	if (!sfs_skills_index_entry_id(line, len, id, sizeof(id)) ||
	    (uint64_t)(line - md->catalog) > UINT32_MAX || len > UINT32_MAX)
		return 0;   /* not a skill we can address: skip it */
	if (md->n == ld->cap) {
		size_t cap = ld->cap ? ld->cap * 2 : 64;
		struct skill *p = realloc(md->skills, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		md->skills = p;
		ld->cap = cap;
	}
	struct skill *sk = &md->skills[md->n++];
	memset(sk, 0, sizeof(*sk));
	sk->cat_off = (uint32_t)(line - md->catalog);
	sk->cat_len = (uint32_t)len;
	sk->model_invocable = true;
	sk->user_invocable = true;
	sk->id = later(ld->ids.len);
	buf_add(&ld->ids, id, strlen(id) + 1);
	if (sfs_skills_index_entry_plugin(line, len, plugin, sizeof(plugin))) {
		sk->plugin = later(ld->ids.len);
		buf_add(&ld->ids, plugin, strlen(plugin) + 1);
	}
	return ld->ids.failed ? -ENOMEM : 0;
}

static int scan_catalog(struct loader *ld)
{
	struct model *md = ld->md;
	const char *p = md->catalog, *end = md->catalog + md->catalog_len;
	int rc = 0;

	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t elen;
		if (sfs_lines_entry(p, len, &elen))
			rc = add_catalog_skill(ld, p, elen);
		p += len + 1;
	}
	return rc;
}

/* An index.json line: the skill's SEP-2640 entry.  A served skill the
 * mount leaves out of skills/list has none. */
static void add_index_line(struct model *md, const char *line, size_t len,
                           uint64_t off)
{
	char id[80];

	if (len > UINT32_MAX || !sfs_index_entry_id(line, len, id, sizeof(id)))
		return;
	ssize_t i = model_find(md, id);
	if (i < 0)
		return;
	struct skill *sk = &md->skills[i];
	sk->index_off = off;
	sk->index_len = (uint32_t)len;
	set_invocable(sk, sfs_index_entry_invocable(line, len));
}

/* Reads index.json line by line through a bounded buffer, so a large
 * catalog never sits in memory whole. */
static int scan_index(struct model *md, int fd)
{
	size_t cap = 1 << 20, have = 0;
	uint64_t base = 0;           /* file offset of buf[0] */
	char *buf = malloc(cap);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (have == cap) {
			if (cap >= MOUNT_MAX_INDEX) {
				rc = -EFBIG;
				break;
			}
			char *p = realloc(buf, cap * 2);
			if (!p) {
				rc = -ENOMEM;
				break;
			}
			buf = p;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		bool eof = r == 0;
		have += (size_t)r;
		size_t pos = 0;
		for (;;) {
			char *nl = memchr(buf + pos, '\n', have - pos);
			if (!nl && !(eof && pos < have))
				break;
			size_t len = nl ? (size_t)(nl - buf) - pos : have - pos;
			size_t elen;
			if (sfs_lines_entry(buf + pos, len, &elen))
				add_index_line(md, buf + pos, elen, base + pos);
			pos += len + (nl ? 1 : 0);
		}
		if (eof)
			break;
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		base += pos;
	}
	free(buf);
	return rc;
}

static int cmp_skill(const void *a, const void *b)
{
	return strcmp(((const struct skill *)a)->id,
		      ((const struct skill *)b)->id);
}

/* The flags of the skills index.json leaves out, from their SKILL.md
 * (few: only skills a conforming client would refuse). */
static void unlisted_flags(const struct mount *m, struct model *md)
{
	for (size_t i = 0; i < md->n; i++) {
		if (md->skills[i].index_len)
			continue;
		cJSON *fm = mount_frontmatter(m, md->skills[i].id, NULL, NULL);
		if (fm)
			set_invocable(&md->skills[i],
			              sfs_frontmatter_invocable(fm));
		cJSON_Delete(fm);
	}
}

static uint64_t read_generation(const struct mount *m)
{
	char *file = mount_file(m, SFS_MOUNT_STATUS);
	char head[4096];

	if (!file)
		return 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	free(file);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, head, sizeof(head));
	close(fd);
	if (r <= 0)
		return 0;
	return sfs_status_generation(head, (size_t)r);
}

static int load_once(struct mount *m, struct model **out)
{
	struct loader ld = { 0 };
	uint64_t ino_before, ino_after;
	struct stat st;
	int rc = status_ino(m, &ino_before);
	if (rc < 0)
		return rc;

	struct model *md = calloc(1, sizeof(*md));
	if (!md)
		return -ENOMEM;
	ld.md = md;

	md->index_path = mount_file(m, SFS_MOUNT_INDEX);
	char *catalog = mount_file(m, SFS_MOUNT_SKILLS_INDEX);
	char *docs = mount_file(m, SFS_MOUNT_DOCS);
	int fd = -1;
	if (!md->index_path || !catalog || !docs) {
		rc = -ENOMEM;
		goto out;
	}
	rc = read_file(catalog, MOUNT_MAX_INDEX, &md->catalog, &md->catalog_len);
	if (rc < 0)
		goto out;
	rc = scan_catalog(&ld);
	if (rc < 0)
		goto out;
	md->ids = buf_take(&ld.ids);
	if (!md->ids) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < md->n; i++) {
		md->skills[i].id = fix(md->ids, md->skills[i].id);
		md->skills[i].plugin = fix(md->ids, md->skills[i].plugin);
	}
	/* The mount sorts by id already; make sure, binary search needs it. */
	for (size_t i = 1; i < md->n; i++) {
		if (strcmp(md->skills[i - 1].id, md->skills[i].id) >= 0) {
			qsort(md->skills, md->n, sizeof(*md->skills), cmp_skill);
			break;
		}
	}
	/* index.json is opened for the scan and again for each entry read:
	 * the server holds no file of the mount open between requests.  Its
	 * inode tells a later open that the file is still this one. */
	fd = open(md->index_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	md->index_ino = (uint64_t)st.st_ino;
	rc = scan_index(md, fd);
	if (rc < 0)
		goto out;
	unlisted_flags(m, md);
	md->has_docs = stat(docs, &st) == 0 && S_ISDIR(st.st_mode);

	rc = status_ino(m, &ino_after);
	if (rc == 0 && ino_after != ino_before)
		rc = -EAGAIN;   /* a new generation arrived while reading */
	md->ino = ino_before;
	md->generation = read_generation(m);
out:
	if (fd >= 0)
		close(fd);
	buf_free(&ld.ids);
	free(catalog);
	free(docs);
	if (rc < 0) {
		model_free(md);
		return rc;
	}
	*out = md;
	return 0;
}

const struct model *mount_model(struct mount *m, int *err)
{
	int rc = 0;

	if (m->model)
		return m->model;
	for (int attempt = 0; attempt < 5; attempt++) {
		rc = load_once(m, &m->model);
		if (rc != -EAGAIN)
			break;
	}
	if (rc < 0) {
		*err = rc;
		return NULL;
	}
	if (!m->seen) {
		m->seen = true;
		m->seen_ino = m->model->ino;
	}
	return m->model;
}

static int cmp_id_skill(const void *id, const void *skill)
{
	return strcmp(id, ((const struct skill *)skill)->id);
}

ssize_t model_find(const struct model *md, const char *id)
{
	const struct skill *sk = md->n ? bsearch(id, md->skills, md->n,
	                                         sizeof(*md->skills),
	                                         cmp_id_skill)
	                               : NULL;

	return sk ? sk - md->skills : -1;
}

ssize_t model_lookup(const struct model *md, const char *ref)
{
	const char *colon = strchr(ref, ':');

	if (!colon)
		return model_find(md, ref);
	ssize_t i = model_find(md, colon + 1);
	const char *plugin = i >= 0 ? md->skills[i].plugin : NULL;
	size_t n = (size_t)(colon - ref);
	if (!plugin || strlen(plugin) != n || memcmp(plugin, ref, n) != 0)
		return -1;
	return i;
}

/* pread until len bytes or EOF. */
static int pread_all(int fd, char *p, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, p + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -EIO : -errno;
		got += (size_t)r;
	}
	return 0;
}

int model_index_open(const struct model *md)
{
	struct stat st;
	int fd = open(md->index_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if ((uint64_t)st.st_ino != md->index_ino) {
		close(fd);
		return -EAGAIN;   /* a newer generation: this model is stale */
	}
	return fd;
}

char *model_index_read(const struct model *md, int fd, size_t i, size_t *len)
{
	const struct skill *sk = &md->skills[i];
	char *p;
	int rc;

	if (!sk->index_len) {
		errno = ENOENT;
		return NULL;
	}
	if (!(p = malloc((size_t)sk->index_len + 1)))
		return NULL;
	if ((rc = pread_all(fd, p, sk->index_len, sk->index_off)) < 0) {
		free(p);
		errno = -rc;
		return NULL;
	}
	p[sk->index_len] = '\0';
	*len = sk->index_len;
	return p;
}

char *model_index_entry(const struct model *md, size_t i, size_t *len)
{
	if (!md->skills[i].index_len) {
		errno = ENOENT;
		return NULL;
	}
	int fd = model_index_open(md);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	char *line = model_index_read(md, fd, i, len);
	int e = errno;
	close(fd);
	errno = e;
	return line;
}

cJSON *model_catalog_entry(const struct model *md, size_t i)
{
	const struct skill *sk = &md->skills[i];

	return cJSON_ParseWithLength(md->catalog + sk->cat_off, sk->cat_len);
}

cJSON *mount_frontmatter(const struct mount *m, const char *id,
                         char **text, size_t *body_offset)
{
	char *path = mount_skill_file(m, id, "SKILL.md");
	char *data = NULL;
	size_t len = 0;
	cJSON *fm = NULL;

	if (path && read_file(path, MOUNT_MAX_FILE, &data, &len) == 0)
		fm = sfs_skillmd_frontmatter(data, len, body_offset);
	free(path);
	if (text && fm)
		*text = data;
	else
		free(data);
	return fm;
}

cJSON *model_frontmatter(const struct mount *m, const struct model *md,
                         int fd, size_t i)
{
	size_t len;
	char *line = fd >= 0 ? model_index_read(md, fd, i, &len)
			     : model_index_entry(md, i, &len);

	if (!line)
		return mount_frontmatter(m, md->skills[i].id, NULL, NULL);
	cJSON *root = cJSON_ParseWithLength(line, len);
	free(line);
	cJSON *fm = cJSON_DetachItemFromObjectCaseSensitive(root, "frontmatter");
	cJSON_Delete(root);
	if (!cJSON_IsObject(fm)) {
		cJSON_Delete(fm);
		return NULL;
	}
	return fm;
}

static const char *string_member(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int model_skill_info(const struct model *md, size_t i, struct skill_info *out)
{
	const struct skill *sk = &md->skills[i];

	memset(out, 0, sizeof(*out));
	out->root = model_catalog_entry(md, i);
	if (!out->root)
		return -EIO;
	out->name = string_member(out->root, SFS_SKILLS_INDEX_NAME);
	out->description = string_member(out->root,
	                                 SFS_SKILLS_INDEX_DESCRIPTION);
	const cJSON *tags = cJSON_GetObjectItemCaseSensitive(out->root,
	                                                     SFS_SKILLS_INDEX_TAGS);
	out->tags = cJSON_IsArray(tags) ? tags : NULL;
	if (!out->name)
		out->name = sk->id;
	if (!out->description)
		out->description = "";
	return 0;
}

void skill_info_free(struct skill_info *si)
{
	cJSON_Delete(si->root);
	memset(si, 0, sizeof(*si));
}
