/*
 * git_digests.c - what reading a git blob told, kept across mounts: its
 * size and SHA-256 by its object id, in one file under the cache folder
 * (git-digests).
 *
 * Why: index.json gives every file's SHA-256, which git does not store.
 * Reading every blob again (inflating it, hashing it) was most of a
 * mount's start: 1.3 s of the catalog's 1.33 s for 10,000 skills of
 * 30,000 files (235 MB) on the benchmark machine, against 0.25 s for a
 * native list+stat of a folder of the same skills.  A blob id names its
 * bytes, so what was learnt of one never goes stale, whatever repository
 * or commit it came from; a second mount reads only the SKILL.md blobs.
 *
 * The file is a header line and fixed-size records (id, size, SHA-256,
 * MAC), appended with O_APPEND; a record cut short at the end (a crash,
 * two mounts appending at once) is ignored when the file is read.  It is
 * a cache: a file that is not one is started again.
 *
 * What it says is published in index.json without reading the blob, so
 * a record is believed only when its MAC (HMAC-SHA256 of the rest, cut
 * to 16 bytes) checks under the cache folder's key (cache_key.c): 32
 * random bytes made once, 0600, that only the daemon's user can read.
 * A record put there by anyone else (a foreign or copied cache, a file
 * another account could write) is ignored, and its blob read and
 * hashed again.  A digest cannot be checked against the blob id without
 * reading the blob, which is what the file saves; the user the daemon
 * runs as can forge a record, as they could change the daemon itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>

#include "git_digests.h"
#include "grow.h"
#include "snapshot.h"
#include "trust.h"

#define MAGIC "skillsfs git digests 2\n"
#define KEY_LEN SFS_CACHE_KEY_LEN
#define MAC_LEN 16
#define MAGIC_LEN (sizeof(MAGIC) - 1)

struct record {
	uint8_t id[SFS_GIT_ID_LEN];
	uint8_t size[8];            /* little-endian */
	uint8_t sha256[32];
	uint8_t mac[MAC_LEN];       /* of the above, under the key */
};

struct sfs_git_digests {
	int fd;                     /* O_APPEND, or -1: nothing is kept */
	uint8_t key[KEY_LEN];       /* the file's; set when fd >= 0 */
	/* keyed with key: after each digest it is keyed again (nettle),
	 * so the key's two compressions are not paid per record */
	struct hmac_sha256_ctx mac;
	struct record *slots;       /* open addressing; id all zero: empty */
	size_t nslots, used;
	struct record *pending;     /* learnt, not yet appended */
	size_t npending, cappending;
};

static size_t slot_of(const struct sfs_git_digests *d, const uint8_t *id)
{
	uint64_t h;

	memcpy(&h, id, sizeof(h));   /* an object id is a hash already */
	return (size_t)(h & (d->nslots - 1));
}

static bool empty(const struct record *r)
{
	static const uint8_t zero[SFS_GIT_ID_LEN];
	return memcmp(r->id, zero, sizeof(zero)) == 0;
}

static struct record *find_slot(const struct sfs_git_digests *d,
                                const uint8_t *id)
{
	size_t i = slot_of(d, id);

	while (!empty(&d->slots[i]) &&
	       memcmp(d->slots[i].id, id, SFS_GIT_ID_LEN) != 0)
		i = (i + 1) & (d->nslots - 1);
	return &d->slots[i];
}

static int grow_table(struct sfs_git_digests *d)
{
	size_t n = d->nslots ? d->nslots * 2 : 1024;
	struct record *old = d->slots, *v = calloc(n, sizeof(*v));
	size_t oldn = d->nslots;

	if (!v)
		return -ENOMEM;
	d->slots = v;
	d->nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (!empty(&old[i]))
			*find_slot(d, old[i].id) = old[i];
	free(old);
	return 0;
}

static int insert(struct sfs_git_digests *d, const struct record *r)
{
	if ((d->used + 1) * 2 > d->nslots && grow_table(d) < 0)
		return -ENOMEM;
	struct record *slot = find_slot(d, r->id);
	if (empty(slot))
		d->used++;
	*slot = *r;
	return 0;
}

static void mac_of(struct sfs_git_digests *d, const struct record *r,
                   uint8_t mac[MAC_LEN])
{
	hmac_sha256_update(&d->mac, offsetof(struct record, mac),
	                   (const uint8_t *)r);
	hmac_sha256_digest(&d->mac, MAC_LEN, mac);
}

static bool genuine(struct sfs_git_digests *d, const struct record *r)
{
	uint8_t mac[MAC_LEN];

	mac_of(d, r, mac);
	return memcmp(mac, r->mac, MAC_LEN) == 0;
}

/* Reads what fd holds after its header into the table. */
static void load(struct sfs_git_digests *d, int fd, off_t size)
{
	size_t n = (size_t)(size - (off_t)MAGIC_LEN) / sizeof(struct record);
	struct record *v = n ? malloc(n * sizeof(*v)) : NULL;

	if (!v)
		return;
	ssize_t got = pread(fd, v, n * sizeof(*v), (off_t)MAGIC_LEN);
	size_t whole = got > 0 ? (size_t)got / sizeof(*v) : 0;
	for (size_t i = 0; i < whole; i++)
		if (!empty(&v[i]) && genuine(d, &v[i]) && insert(d, &v[i]) < 0)
			break;
	free(v);
}

/* Opens (or starts) the file; its records into the table. */
static int open_file(struct sfs_git_digests *d, const char *path)
{
	char head[MAGIC_LEN];
	struct stat st;
	int fd = sfs_cache_open_append(path, 0600);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 ||
	    (st.st_size >= (off_t)MAGIC_LEN &&
	     pread(fd, head, MAGIC_LEN, 0) != (ssize_t)MAGIC_LEN)) {
		close(fd);
		return -EIO;
	}
	if (st.st_size < (off_t)MAGIC_LEN ||
	    memcmp(head, MAGIC, MAGIC_LEN) != 0) {
		/* new, or not ours: start it again */
		if (ftruncate(fd, 0) < 0 ||
		    write(fd, MAGIC, MAGIC_LEN) != (ssize_t)MAGIC_LEN) {
			close(fd);
			return -EIO;
		}
	} else {
		/* a record cut short at the end would shift every record
		 * appended after it: cut it off */
		off_t body = st.st_size - (off_t)MAGIC_LEN;
		off_t whole = body - body % (off_t)sizeof(struct record);
		if (whole != body &&
		    ftruncate(fd, (off_t)MAGIC_LEN + whole) < 0) {
			close(fd);
			return -EIO;
		}
		load(d, fd, (off_t)MAGIC_LEN + whole);
	}
	d->fd = fd;
	return 0;
}

struct sfs_git_digests *sfs_git_digests_open(const char *cache_dir)
{
	struct sfs_git_digests *d = calloc(1, sizeof(*d));
	char *path = NULL;

	if (!d)
		return NULL;
	d->fd = -1;
	if (grow_table(d) < 0) {
		free(d);
		return NULL;
	}
	/* without the key, digests are kept for this build only */
	if (cache_dir && sfs_cache_key(cache_dir, d->key) == 0 &&
	    asprintf(&path, "%s/git-digests", cache_dir) >= 0) {
		hmac_sha256_set_key(&d->mac, KEY_LEN, d->key);
		open_file(d, path);
		free(path);
	}
	if (d->fd < 0)   /* records kept in memory only: any key will do */
		hmac_sha256_set_key(&d->mac, KEY_LEN, d->key);
	return d;
}

bool sfs_git_digests_find(const struct sfs_git_digests *d,
                          const uint8_t id[SFS_GIT_ID_LEN], off_t *size,
                          uint8_t sha256[32])
{
	const struct record *r = find_slot(d, id);
	uint64_t n = 0;

	if (empty(r))
		return false;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | r->size[i];
	*size = (off_t)n;
	memcpy(sha256, r->sha256, 32);
	return true;
}

void sfs_git_digests_add(struct sfs_git_digests *d,
                         const uint8_t id[SFS_GIT_ID_LEN], off_t size,
                         const uint8_t sha256[32])
{
	struct record r;
	uint64_t n = (uint64_t)size;

	memcpy(r.id, id, SFS_GIT_ID_LEN);
	for (int i = 0; i < 8; i++)
		r.size[i] = (uint8_t)(n >> (8 * i));
	memcpy(r.sha256, sha256, 32);
	mac_of(d, &r, r.mac);
	if (empty(&r) || insert(d, &r) < 0 || d->fd < 0)
		return;
	if (sfs_grow(&d->pending, &d->cappending, d->npending + 1,
	             sizeof(*d->pending)) == 0)
		d->pending[d->npending++] = r;
}

void sfs_git_digests_flush(struct sfs_git_digests *d)
{
	if (d->npending && d->fd >= 0) {
		/* one write: records of one flush stay together */
		ssize_t want = (ssize_t)(d->npending * sizeof(*d->pending));
		if (write(d->fd, d->pending, (size_t)want) != want) {
			/* a full disk: the next mount reads those blobs */
		}
	}
	d->npending = 0;
}

bool sfs_git_digests_key(const struct sfs_git_digests *d, uint8_t key[32])
{
	_Static_assert(KEY_LEN == 32, "the key's length");
	if (d->fd < 0)
		return false;
	memcpy(key, d->key, KEY_LEN);
	return true;
}

void sfs_git_digests_close(struct sfs_git_digests *d)
{
	if (!d)
		return;
	sfs_git_digests_flush(d);
	if (d->fd >= 0)
		close(d->fd);
	free(d->slots);
	free(d->pending);
	free(d);
}
