/*
 * kept_units.c - a root's skills as the last start built them (units,
 * unit.c), kept across mounts in the cache folder: PLACE/HASH, PLACE the
 * kind's folder (git-units, folder-units), HASH naming the root.
 *
 * Why: a second mount of unchanged sources read every SKILL.md again,
 * parsed and validated it and ran the security pass over every file of
 * every skill: 60% of a git root's CPU at 10,000 skills (BENCHMARKS.md).
 * The kind says when a kept unit still holds: a git skill folder's tree
 * id names every byte below it (git.c); a folder's unit is taken when
 * stat shows every entry as it was (unit.c, sfs_unit_if_unchanged), as a
 * rebuild takes the previous build's.
 *
 * What a unit says is served as it is (its frontmatter, its findings,
 * its files' digests), so the file is believed only when it was written
 * by this very program (its build id: another version may validate
 * otherwise), for the same options the units depend on, and its MAC
 * (HMAC-SHA256 under the cache folder's key, which only the daemon's
 * user reads) checks.  A file that fails is ignored whole, and every
 * skill read as on a first mount.
 *
 * Layout: MAGIC, the MAC of everything after it, then the header (struct
 * head) and the units, each its tag and its bytes (unit_file.c).  The
 * file is written whole (a temporary renamed into place) after a start
 * that read a skill it did not hold; mounts sharing the cache replace it
 * in turn, each with what it read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include "grow.h"
#include "internal.h"
#include "kept_units.h"
#include "sealed.h"
#include "snapshot.h"
#include "trust.h"

#define MAGIC "skillsfs units 2\n"
#define MAGIC_LEN (sizeof(MAGIC) - 1)
#define MAC_LEN 32
#define MAX_FILE ((off_t)1 << 30)

/* What the units depend on besides their trees. */
struct head {
	uint8_t program[SFS_PROGRAM_ID_MAX];
	uint64_t program_len;
	uint64_t max_files;
	uint64_t max_depth;
	uint64_t strict;
	uint64_t trust;
	int64_t time_sec, time_nsec;   /* a commit's: every mtime */
	uint64_t uid, gid;
	uint64_t root;
	/* not compared: */
	int64_t made_sec, made_nsec;
	uint64_t count;
};

struct kept {
	uint8_t tag[SFS_KEPT_TAG_LEN];
	struct sfs_unit *unit;   /* NULL once dropped */
	char *gone;              /* dropped: its dir (owned) */
};

struct sfs_kept_units {
	struct kept *v;     /* sorted by dir */
	size_t n;
};

static void head_of(struct head *h, const struct sfs_kept_for *f)
{
	memset(h, 0, sizeof(*h));
	h->program_len = sfs_program_id(h->program);
	h->max_files = f->max_files;
	h->max_depth = f->max_depth;
	h->strict = f->strict;
	h->trust = f->trust;
	h->time_sec = f->time.tv_sec;
	h->time_nsec = f->time.tv_nsec;
	h->uid = f->uid;
	h->gid = f->gid;
	h->root = f->root;
	h->made_sec = f->made.tv_sec;
	h->made_nsec = f->made.tv_nsec;
}

/* cache_dir/PLACE/HASH, HASH the first 16 bytes of the name's SHA-256
 * in hex; malloc'd, or NULL. */
static char *path_of(const char *cache_dir, const char *place,
                     const char *name)
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	char hex[33];
	char *p = NULL;

	sha256_init(&c);
	sha256_update(&c, strlen(name), (const uint8_t *)name);
	sha256_digest(&c, sizeof(d), d);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return asprintf(&p, "%s/%s/%s", cache_dir, place, hex) < 0 ? NULL : p;
}

void sfs_kept_units_free(struct sfs_kept_units *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		sfs_unit_unref(k->v[i].unit);
		free(k->v[i].gone);
	}
	free(k->v);
	free(k);
}

/* The file is read a piece at a time, every byte after the MAC put
 * through it as it comes, and the units parsed from each piece: read
 * whole, its 22 MB at 10,000 skills were held next to the units parsed
 * from them, the peak of a start (BENCHMARKS.md).  A unit is believed
 * only once the MAC of the whole file checks; sfs_unit_load makes
 * nothing of bytes that are not a unit but NULL. */
#define LOAD_PIECE (256u << 10)

struct reader {
	int fd;
	struct hmac_sha256_ctx mac;
	char *buf;
	size_t at, len, cap;   /* buf[at, len): read, not parsed yet */
	uint64_t left;         /* of the file, not read yet */
};

/* At least n bytes read and not parsed in r->buf: 0, -EBADMSG when the
 * file ends before, or -errno. */
static int want(struct reader *r, uint64_t n)
{
	size_t have = r->len - r->at;

	if (have >= n)
		return 0;
	if (n - have > r->left)
		return -EBADMSG;
	if (have && r->at)
		memmove(r->buf, r->buf + r->at, have);
	r->at = 0;
	r->len = have;
	size_t cap = n > LOAD_PIECE ? (size_t)n : LOAD_PIECE;
	if (cap > r->cap) {
		char *b = realloc(r->buf, cap);
		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = cap;
	}
	size_t ask = r->cap - r->len < r->left ? r->cap - r->len :
	             (size_t)r->left;
	ssize_t got = sfs_read_full(r->fd, -1, r->buf + r->len, ask);
	if (got < 0)
		return (int)got;
	if ((size_t)got < ask)
		return -EBADMSG;   /* shorter than fstat said */
	hmac_sha256_update(&r->mac, ask, (const uint8_t *)r->buf + r->len);
	r->len += ask;
	r->left -= ask;
	return 0;
}

/* The next unit of r with its tag into e: 0, -EBADMSG, or -errno. */
static int next_unit(struct reader *r, struct kept *e)
{
	int rc = want(r, SFS_KEPT_TAG_LEN + SFS_UNIT_HEAD);
	if (rc < 0)
		return rc;
	uint64_t len = sfs_unit_kept_len(r->buf + r->at + SFS_KEPT_TAG_LEN);
	if (len == UINT64_MAX)
		return -EBADMSG;
	rc = want(r, SFS_KEPT_TAG_LEN + len);
	if (rc < 0)
		return rc;
	size_t used;
	memcpy(e->tag, r->buf + r->at, SFS_KEPT_TAG_LEN);
	e->unit = sfs_unit_load(r->buf + r->at + SFS_KEPT_TAG_LEN, (size_t)len,
	                        &used);
	if (!e->unit)
		return -EBADMSG;
	r->at += SFS_KEPT_TAG_LEN + used;
	return 0;
}

/* The units after the header h into k: 0, -EBADMSG when they are not
 * units of the root, in order, up to the file's end, or -errno. */
static int parse(struct reader *r, struct sfs_kept_units *k,
                 const struct head *h)
{
	uint64_t rest = r->left + (r->len - r->at);

	if (h->count > rest / (SFS_KEPT_TAG_LEN + SFS_UNIT_HEAD))
		return -EBADMSG;
	if (!(k->v = calloc(h->count ? h->count : 1, sizeof(*k->v))))
		return -ENOMEM;
	for (k->n = 0; k->n < h->count; k->n++) {
		struct kept *e = &k->v[k->n];
		int rc = next_unit(r, e);
		if (rc < 0)
			return rc;
		if (e->unit->root != h->root ||
		    (k->n && strcmp(k->v[k->n - 1].unit->dir,
		                    e->unit->dir) >= 0)) {
			k->n++;
			return -EBADMSG;
		}
	}
	return r->left == 0 && r->at == r->len ? 0 : -EBADMSG;
}

/* The file behind r (opened, r->left its size), into *out when it holds
 * the units of the root for `want` under key: 0 (*out NULL: another
 * program's, or for other options), -EBADMSG, or -errno. */
static int load(struct reader *r, const uint8_t key[SFS_CACHE_KEY_LEN],
                const struct head *want_head, struct sfs_kept_for *f,
                struct sfs_kept_units **out)
{
	char lead[MAGIC_LEN + MAC_LEN];
	uint8_t mac[MAC_LEN];
	struct head h;

	if (r->left < sizeof(lead) + sizeof(h))
		return -EBADMSG;
	ssize_t got = sfs_read_full(r->fd, -1, lead, sizeof(lead));
	if (got < 0)
		return (int)got;
	if ((size_t)got < sizeof(lead) || memcmp(lead, MAGIC, MAGIC_LEN) != 0)
		return -EBADMSG;
	r->left -= sizeof(lead);
	hmac_sha256_set_key(&r->mac, SFS_CACHE_KEY_LEN, key);
	int rc = want(r, sizeof(h));
	if (rc < 0)
		return rc;
	memcpy(&h, r->buf + r->at, sizeof(h));
	r->at += sizeof(h);
	if (memcmp(&h, want_head, offsetof(struct head, made_sec)) != 0)
		return 0;   /* another program's, or other options: not ours */
	struct sfs_kept_units *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	rc = parse(r, k, &h);
	if (rc == 0) {
		hmac_sha256_digest(&r->mac, MAC_LEN, mac);
		if (memcmp(mac, lead + MAGIC_LEN, MAC_LEN) != 0)
			rc = -EBADMSG;
	}
	if (rc < 0) {
		sfs_kept_units_free(k);
		return rc;
	}
	f->made = (struct timespec){ h.made_sec, h.made_nsec };
	*out = k;
	return 0;
}

int sfs_kept_units_load(const char *cache_dir, const char *name,
                        const uint8_t key[SFS_CACHE_KEY_LEN],
                        struct sfs_kept_for *f, struct sfs_kept_units **out)
{
	struct head want_head;
	struct stat st;
	struct reader r = { .fd = -1 };
	char *path = path_of(cache_dir, f->place, name);

	*out = NULL;
	if (!path)
		return -ENOMEM;
	r.fd = sfs_cache_open_read(path);
	free(path);
	if (r.fd == -ENOENT)
		return 0;   /* none kept */
	int rc = r.fd < 0 ? r.fd : fstat(r.fd, &st) < 0 ? -errno :
	         st.st_size > MAX_FILE ? -EFBIG : 0;
	if (rc == 0) {
		r.left = (uint64_t)st.st_size;
		head_of(&want_head, f);
		rc = load(&r, key, &want_head, f, out);
	}
	if (r.fd >= 0)
		close(r.fd);
	free(r.buf);
	return rc == -ENOMEM ? rc : rc < 0 ? -EBADMSG : 0;
}

int sfs_kept_units_take(const char *cache_dir, const char *name,
                        const uint8_t key[SFS_CACHE_KEY_LEN],
                        struct sfs_kept_for *f, struct sfs_kept_units **out,
                        struct sfs_diag_list *diags)
{
	int rc = sfs_kept_units_load(cache_dir, name, key, f, out);

	if (rc == -EBADMSG)
		return sfs_diag_add(diags, SFS_WARNING, name, 0, 0, "",
		                    "the skills kept in the cache folder (%s/%s) "
		                    "are not used: not written by this program "
		                    "under its key (corrupt or forged); every "
		                    "skill is read again", cache_dir, f->place);
	return rc;
}

static int cmp_dir(const void *key, const void *elem)
{
	const struct kept *e = elem;

	return strcmp(key, e->unit ? e->unit->dir : e->gone);
}

struct sfs_unit *sfs_kept_units_find(const struct sfs_kept_units *k,
                                     const char *dir,
                                     const uint8_t tag[SFS_KEPT_TAG_LEN])
{
	const struct kept *e = k ? bsearch(dir, k->v, k->n, sizeof(*k->v),
	                                   cmp_dir) : NULL;

	return e && (!tag || memcmp(e->tag, tag, SFS_KEPT_TAG_LEN) == 0) ?
	       e->unit : NULL;
}

void sfs_kept_units_drop(struct sfs_kept_units *k, const char *dir)
{
	struct kept *e = k ? bsearch(dir, k->v, k->n, sizeof(*k->v),
	                             cmp_dir) : NULL;

	if (!e || !e->unit)
		return;
	/* without a copy of its dir, the entry stays as it was */
	e->gone = strdup(e->unit->dir);
	if (!e->gone)
		return;
	sfs_unit_unref(e->unit);
	e->unit = NULL;
}

/* Units are written a batch at a time: a whole file held in memory was
 * ~21 MB at 10,000 skills, next to the units themselves, at the peak of
 * a start (BENCHMARKS.md). */
#define SAVE_BATCH (256u << 10)

/* The units of the root, each its tag and its bytes, written to fd after
 * the header and put through the MAC. */
static int save_units(int fd, struct hmac_sha256_ctx *mac,
                      const struct sfs_kept_for *f,
                      struct sfs_unit *const *units, size_t nunits)
{
	char *out = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < nunits; i++) {
		const struct sfs_unit *u = units[i];
		if (u->root != f->root)
			continue;
		rc = sfs_grow(&out, &cap, len + SFS_KEPT_TAG_LEN, 1);
		if (rc < 0)
			break;
		_Static_assert(sizeof(u->self.version.id) >= SFS_KEPT_TAG_LEN,
		               "a tag fits a version");
		memcpy(out + len, u->self.version.id, SFS_KEPT_TAG_LEN);
		len += SFS_KEPT_TAG_LEN;
		rc = sfs_unit_save(u, &out, &len, &cap);
		if (rc == 0 && len >= SAVE_BATCH) {
			hmac_sha256_update(mac, len, (const uint8_t *)out);
			rc = sfs_write_full(fd, -1, out, len);
			len = 0;
		}
	}
	if (rc == 0 && len) {
		hmac_sha256_update(mac, len, (const uint8_t *)out);
		rc = sfs_write_full(fd, -1, out, len);
	}
	free(out);
	return rc;
}

int sfs_kept_units_save(const char *cache_dir, const char *name,
                        const uint8_t key[SFS_CACHE_KEY_LEN],
                        const struct sfs_kept_for *f,
                        struct sfs_unit *const *units, size_t nunits)
{
	struct head h;
	struct sfs_cache_tmp t;
	struct hmac_sha256_ctx mac;
	uint8_t digest[MAC_LEN] = { 0 };
	char *path = path_of(cache_dir, f->place, name);

	if (!path)
		return -ENOMEM;
	head_of(&h, f);
	for (size_t i = 0; i < nunits; i++)
		h.count += units[i]->root == f->root;
	int rc = sfs_cache_mkdirs(path);
	if (rc == 0)
		rc = sfs_cache_begin(path, 0600, &t);
	if (rc < 0) {
		free(path);
		return rc;
	}
	hmac_sha256_set_key(&mac, SFS_CACHE_KEY_LEN, key);
	hmac_sha256_update(&mac, sizeof(h), (const uint8_t *)&h);
	/* the MAC, known last, is written in its place at the end */
	rc = sfs_write_full(t.fd, -1, MAGIC, MAGIC_LEN);
	if (rc == 0)
		rc = sfs_write_full(t.fd, -1, digest, MAC_LEN);
	if (rc == 0)
		rc = sfs_write_full(t.fd, -1, &h, sizeof(h));
	if (rc == 0)
		rc = save_units(t.fd, &mac, f, units, nunits);
	if (rc == 0) {
		hmac_sha256_digest(&mac, MAC_LEN, digest);
		rc = sfs_write_full(t.fd, MAGIC_LEN, digest, MAC_LEN);
	}
	rc = sfs_cache_commit(&t, rc, false);
	free(path);
	return rc < 0 ? rc : 0;
}
