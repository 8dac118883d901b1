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

#include "mount.h"
#include "uri.h"
#include "util.h"

/* ---- where the mount is ----------------------------------------------- */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The type of the topmost mount at `path`, or "" when none. */
static int lookup_mountinfo(const char *path, char *fstype, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	fstype[0] = '\0';
	while (getline(&line, &cap, f) > 0) {
		/* id parent maj:min root mountpoint opts [optional...] - type src */
		char *save = NULL, *tok;
		char *point = NULL;
		int field = 0;
		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save), field++) {
			if (field == 4)
				point = tok;
			if (field > 5 && strcmp(tok, "-") == 0)
				break;
		}
		char *type = tok ? strtok_r(NULL, " \n", &save) : NULL;
		if (!point || !type)
			continue;
		unescape_octal(point);
		if (strcmp(point, path) == 0)
			snprintf(fstype, len, "%s", type);  /* later ones are on top */
	}
	free(line);
	fclose(f);
	return 0;
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

char *mount_file(const struct mount *m, const char *rel)
{
	return xasprintf("%s/%s", m->path, rel);
}

char *mount_skill_file(const struct mount *m, const char *id, const char *rel)
{
	if (rel && *rel)
		return xasprintf("%s/skills/%s/%s", m->path, id, rel);
	return xasprintf("%s/skills/%s", m->path, id);
}

int mount_status_readable(const char *path)
{
	char *file = xasprintf("%s/status.json", path);
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
	char *file = mount_file(m, "status.json");
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
	if (md->index_fd >= 0)
		close(md->index_fd);
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

void mount_idle(struct mount *m)
{
	if (m->model && m->model->index_fd >= 0) {
		close(m->model->index_fd);
		m->model->index_fd = -1;
	}
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

/* One entry line of an array document ("{...}" and a ',' but the last),
 * trimmed; false for the first line ({"skills":[) and the last (]}). */
static bool entry_span(const char *line, size_t len, size_t *out_len)
{
	while (len && strchr(" \t\r,", line[len - 1]))
		len--;
	if (len < 2 || line[0] != '{' || line[len - 1] != '}')
		return false;
	*out_len = len;
	return true;
}

/* The id in an index.json entry: its uri is "skill://<id>/SKILL.md".  The
 * rendering puts uri first; anything else is parsed properly. */
static bool index_entry_id(const char *line, size_t len, char *id, size_t idcap)
{
	static const char prefix[] = "{\"uri\":\"skill://";
	const char *start = NULL, *end = NULL;
	cJSON *root = NULL;

	if (len > sizeof(prefix) && memcmp(line, prefix, sizeof(prefix) - 1) == 0) {
		start = line + sizeof(prefix) - 1;
		end = memchr(start, '/', len - (size_t)(start - line));
	} else {
		root = cJSON_ParseWithLength(line, len);
		cJSON *uri = cJSON_GetObjectItemCaseSensitive(root, "uri");
		if (cJSON_IsString(uri) &&
		    strncmp(uri->valuestring, "skill://", 8) == 0) {
			start = uri->valuestring + 8;
			end = strchr(start, '/');
		}
	}
	bool ok = start && end && skill_id_valid(start, (size_t)(end - start)) &&
		  (size_t)(end - start) < idcap;
	if (ok) {
		memcpy(id, start, (size_t)(end - start));
		id[end - start] = '\0';
	}
	cJSON_Delete(root);
	return ok;
}

/* disable-model-invocation and user-invocable from the verbatim
 * frontmatter; the line is parsed only when one of them is there. */
static void entry_flags(const char *line, size_t len, struct skill *sk)
{
	sk->model_invocable = true;
	sk->user_invocable = true;
	if (!memmem(line, len, "\"disable-model-invocation\"", 26) &&
	    !memmem(line, len, "\"user-invocable\"", 16))
		return;
	cJSON *root = cJSON_ParseWithLength(line, len);
	cJSON *fm = cJSON_GetObjectItemCaseSensitive(root, "frontmatter");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    fm, "disable-model-invocation")))
		sk->model_invocable = false;
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(fm, "user-invocable")))
		sk->user_invocable = false;
	cJSON_Delete(root);
}

struct loader {
	struct model *md;
	size_t cap;
	struct buf ids;        /* ids, NUL-separated; offsets in skills[].id */
};

static int add_skill(struct loader *ld, const char *line, size_t len,
                     uint64_t off)
{
	char id[80];
	struct model *md = ld->md;

	if (!index_entry_id(line, len, id, sizeof(id)))
		return 0;   /* not a skill entry we can address: skip it */
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
	sk->id = (const char *)(uintptr_t)ld->ids.len;  /* fixed up later */
	buf_add(&ld->ids, id, strlen(id) + 1);
	sk->index_off = off;
	sk->index_len = (uint32_t)len;
	entry_flags(line, len, sk);
	return ld->ids.failed ? -ENOMEM : 0;
}

/* Reads index.json line by line through a bounded buffer, so a large
 * catalog never sits in memory whole. */
static int scan_index(struct loader *ld, int fd)
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
			if (entry_span(buf + pos, len, &elen) &&
			    (rc = add_skill(ld, buf + pos, elen, base + pos)) < 0)
				break;
			pos += len + (nl ? 1 : 0);
		}
		if (rc < 0 || eof)
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

/* Attaches each skill's line of skills_index.json ({"id":"<id>",...}). */
static void attach_catalog(struct model *md)
{
	const char *p = md->catalog, *end = md->catalog + md->catalog_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t elen;
		if (entry_span(p, len, &elen) && elen > 8 &&
		    memcmp(p, "{\"id\":\"", 7) == 0) {
			const char *q = memchr(p + 7, '"', elen - 7);
			char id[80];
			size_t n = q ? (size_t)(q - p - 7) : 0;
			if (q && n < sizeof(id) && skill_id_valid(p + 7, n) &&
			    (uint64_t)(p - md->catalog) <= UINT32_MAX) {
				memcpy(id, p + 7, n);
				id[n] = '\0';
				ssize_t i = model_find(md, id);
				if (i >= 0) {
					md->skills[i].cat_off =
						(uint32_t)(p - md->catalog);
					md->skills[i].cat_len = (uint32_t)elen;
				}
			}
		}
		p += len + 1;
	}
}

static uint64_t read_generation(const struct mount *m)
{
	char *file = mount_file(m, "status.json");
	char head[4096];
	uint64_t gen = 0;

	if (!file)
		return 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	free(file);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	head[r] = '\0';
	const char *g = strstr(head, "\"generation\"");
	if (g && (g = strchr(g, ':')))
		gen = strtoull(g + 1, NULL, 10);
	return gen;
}

static int load_once(struct mount *m, struct model **out)
{
	struct loader ld = { 0 };
	uint64_t ino_before, ino_after;
	int rc = status_ino(m, &ino_before);
	if (rc < 0)
		return rc;

	struct model *md = calloc(1, sizeof(*md));
	if (!md)
		return -ENOMEM;
	md->index_fd = -1;
	ld.md = md;

	char *index = mount_file(m, "index.json");
	char *catalog = mount_file(m, "catalog/skills_index.json");
	char *docs = mount_file(m, "docs");
	struct stat st;
	if (!index || !catalog || !docs) {
		rc = -ENOMEM;
		goto out;
	}
	int fd = open(index, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	md->index_ino = (uint64_t)st.st_ino;
	rc = scan_index(&ld, fd);
	close(fd);
	if (rc < 0)
		goto out;
	rc = read_file(catalog, MOUNT_MAX_INDEX, &md->catalog, &md->catalog_len);
	if (rc < 0)
		goto out;
	md->index_path = index;
	index = NULL;
	md->ids = buf_take(&ld.ids);
	if (!md->ids) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < md->n; i++)
		md->skills[i].id = md->ids + (uintptr_t)md->skills[i].id;
	/* The mount sorts by id already; make sure, binary search needs it. */
	for (size_t i = 1; i < md->n; i++) {
		if (strcmp(md->skills[i - 1].id, md->skills[i].id) >= 0) {
			qsort(md->skills, md->n, sizeof(*md->skills), cmp_skill);
			break;
		}
	}
	attach_catalog(md);
	md->has_docs = stat(docs, &st) == 0 && S_ISDIR(st.st_mode);

	rc = status_ino(m, &ino_after);
	if (rc == 0 && ino_after != ino_before)
		rc = -EAGAIN;   /* a new generation arrived while reading */
	md->ino = ino_before;
	md->generation = read_generation(m);
out:
	buf_free(&ld.ids);
	free(index);
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

ssize_t model_find(const struct model *md, const char *id)
{
	size_t lo = 0, hi = md->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(md->skills[mid].id, id);
		if (c == 0)
			return (ssize_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* index.json of the model's generation, opened once per request. */
static int index_fd(const struct model *md)
{
	/* The descriptor is a cache, not part of the model's meaning: the
	 * model is const to its readers, its (heap) object is not. */
	struct model *mut = (struct model *)md;
	struct stat st;

	if (mut->index_fd >= 0)
		return mut->index_fd;
	int fd = open(md->index_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int e = fstat(fd, &st) < 0 ? errno : 0;
	/* Another generation's index.json has other offsets. */
	if (!e && (uint64_t)st.st_ino != md->index_ino)
		e = ESTALE;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	mut->index_fd = fd;
	return fd;
}

char *model_index_entry(const struct model *md, size_t i, size_t *len)
{
	const struct skill *sk = &md->skills[i];
	int fd = index_fd(md);
	char *p = fd >= 0 ? malloc((size_t)sk->index_len + 1) : NULL;
	size_t got = 0;

	if (!p)
		return NULL;
	while (got < sk->index_len) {
		ssize_t r = pread(fd, p + got, sk->index_len - got,
				  (off_t)(sk->index_off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			free(p);
			return NULL;
		}
		got += (size_t)r;
	}
	p[got] = '\0';
	*len = got;
	return p;
}

cJSON *model_catalog_entry(const struct model *md, size_t i)
{
	const struct skill *sk = &md->skills[i];

	if (!sk->cat_len)
		return NULL;
	return cJSON_ParseWithLength(md->catalog + sk->cat_off, sk->cat_len);
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
	if (out->root) {
		out->name = string_member(out->root, "name");
		out->description = string_member(out->root, "description");
		const cJSON *tags = cJSON_GetObjectItemCaseSensitive(out->root, "tags");
		out->tags = cJSON_IsArray(tags) ? tags : NULL;
	} else {
		size_t len;
		char *line = model_index_entry(md, i, &len);
		if (!line)
			return -errno;
		out->root = cJSON_ParseWithLength(line, len);
		free(line);
		const cJSON *fm = cJSON_GetObjectItemCaseSensitive(out->root,
								  "frontmatter");
		out->name = string_member(fm, "name");
		out->description = string_member(fm, "description");
	}
	if (!out->root)
		return -EIO;
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
