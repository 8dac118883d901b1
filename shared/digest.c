/*
 * digest.c - SHA-256 of skill files (nettle), and the cache that lets a
 * rebuild reuse the digests of files that did not change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "sealed.h"
#include "snapshot.h"

#define READ_CHUNK (32 * 1024)   /* on the stack of a worker */

/* ---- hex: the one pair every file uses ---------------------------------- */

/* Each byte's value as a hex digit, -1 when it is none, and -2 for an
 * upper-case one (its value is that of its lower case): a listing of
 * 1,000 skills decodes 3,000 digests at each of several passes (fetch,
 * discover, prune), and the decoding was 5% of an MCP root's first
 * mount when each digit was tested by ranges. */
static const signed char hex_digit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11 + 32, ['B'] = 12 + 32, ['C'] = 13 + 32, ['D'] = 14 + 32,
	['E'] = 15 + 32, ['F'] = 16 + 32,
};

/* The table's entry: 0 none, 1-16 a digit's value plus one, +32 for an
 * upper-case digit. */
static inline int hex_entry(char c)
{
	return hex_digit[(unsigned char)c];
}

int sfs_hex_value(char c)
{
	int e = hex_entry(c);
	return e ? (e & 31) - 1 : -1;
}

void sfs_hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		*out++ = digits[p[i] >> 4];
		*out++ = digits[p[i] & 0xf];
	}
	*out = '\0';
}

bool sfs_hex_decode(const char *h, size_t n, uint8_t *out, bool lower_only)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_entry(h[2 * i]);
		int lo = hi ? hex_entry(h[2 * i + 1]) : 0;   /* not past a NUL */
		if (!hi || !lo || (lower_only && ((hi | lo) & 32)))
			return false;
		out[i] = (uint8_t)(((hi & 31) - 1) << 4 | ((lo & 31) - 1));
	}
	return true;
}

/* ---- digests ------------------------------------------------------------ */

void sfs_format_digest(const uint8_t sha256[32], char out[SFS_DIGEST_LEN])
{
	memcpy(out, "sha256:", 7);
	sfs_hex_encode(sha256, 32, out + 7);
}

bool sfs_parse_digest(const char *text, uint8_t out[32])
{
	const char *p = text + 7;   /* "sha256:" */

	if (strncmp(text, "sha256:", 7) != 0 ||
	    strlen(p) != SFS_DIGEST_LEN - 1 - 7)
		return false;
	return sfs_hex_decode(p, 32, out, true);
}

void sfs_sha256(const void *data, size_t len, uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

/* Hashes fd to its end, or, when `expect` is not negative, its first
 * `expect` bytes: fstat has just said the file holds that many, so the
 * read that would return 0 is saved (one system call per file).  A file
 * that grew meanwhile is hashed as far as expect (as hash_keeping
 * does), one that shrank as far as it goes. */
static int hash_fd(int fd, off_t expect, uint8_t out[32], off_t *len)
{
	struct sha256_ctx ctx;
	uint8_t buf[READ_CHUNK];
	off_t total = 0;

	sha256_init(&ctx);
	while (expect < 0 || total < expect || total == 0) {
		size_t want = sizeof(buf);
		if (total < expect && expect - total < (off_t)want)
			want = (size_t)(expect - total);
		ssize_t n = sfs_read_full(fd, -1, buf, want);
		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		sha256_update(&ctx, (size_t)n, buf);
		total += n;
	}
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
	if (len)
		*len = total;
	return 0;
}

int sfs_sha256_fd(int fd, uint8_t out[32], off_t *len)
{
	return hash_fd(fd, -1, out, len);
}

/* Reads fd (expect bytes, by fstat) into one buffer and hashes that:
 * the bytes hashed are the bytes kept.  A file that grew meanwhile is
 * kept as far as expect, one that shrank as far as it goes. */
static int hash_keeping(int fd, off_t expect, uint8_t out[32], off_t *len,
                        unsigned char **kept)
{
	size_t want = (size_t)expect;
	unsigned char *buf = malloc(want + 1);

	if (!buf)
		return -ENOMEM;
	ssize_t n = sfs_read_full(fd, -1, buf, want);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	size_t got = (size_t)n;
	buf[got] = '\0';
	sfs_sha256(buf, got, out);
	if (len)
		*len = (off_t)got;
	*kept = buf;
	return 0;
}

int sfs_sha256_keep_at(int dirfd, const char *name, size_t keep_max,
                       uint8_t out[32], off_t *len, struct stat *st,
                       unsigned char **kept)
{
	/* O_NONBLOCK: a FIFO swapped in after the listing must not hang the
	 * build; it fails the regular-file check below instead. */
	int fd = openat(dirfd, name,
	                O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	*kept = NULL;
	if (fd < 0)
		return -errno;

	struct stat own;
	if (!st)
		st = &own;
	int rc;
	if (fstat(fd, st) < 0)
		rc = -errno;
	else if (!S_ISREG(st->st_mode))
		rc = -EINVAL;
	else if (st->st_size > 0 && (uint64_t)st->st_size <= keep_max)
		rc = hash_keeping(fd, st->st_size, out, len, kept);
	else
		rc = hash_fd(fd, st->st_size, out, len);
	close(fd);
	return rc;
}

int sfs_sha256_at(int dirfd, const char *name, uint8_t out[32], off_t *len,
                  struct stat *st)
{
	unsigned char *none;

	return sfs_sha256_keep_at(dirfd, name, 0, out, len, st, &none);
}

/* ---- the reuse cache ---------------------------------------------------- */

/* The slot of a file's identity: its device and inode, or the first
 * bytes of another source's version, which share their memory. */
static size_t slot_of(const struct sfs_digest_cache *c,
                      const struct sfs_file *f)
{
	uint64_t key = (uint64_t)f->dev ^ (uint64_t)f->ino;
	/* Fibonacci hashing spreads consecutive inode numbers. */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & c->mask;
}

int sfs_digest_cache_init(struct sfs_digest_cache *c, size_t expected)
{
	size_t cap = 16;

	c->slots = NULL;
	c->mask = 0;
	c->n = 0;
	if (expected == 0)
		return 0;
	while (cap < expected * 2)
		cap *= 2;
	c->slots = calloc(cap, sizeof(*c->slots));
	if (!c->slots)
		return -ENOMEM;
	c->mask = cap - 1;
	return 0;
}

/* Not ctime: a new mode or link count leaves the bytes as they were.
 * dev and ino hold another source's version (the first 16 bytes of its
 * id, sfs_file). */
static bool same_identity(const struct sfs_file *f, const struct sfs_file *e)
{
	return f->dev == e->dev && f->ino == e->ino && f->size == e->size &&
	       f->mtime.tv_sec == e->mtime.tv_sec &&
	       f->mtime.tv_nsec == e->mtime.tv_nsec;
}

void sfs_digest_cache_add(struct sfs_digest_cache *c, const struct sfs_file *f)
{
	/* Never fill the table beyond half, so lookups stay short and
	 * always end at an empty slot. */
	if (!c->slots || !f->hashed || (c->n + 1) * 2 > c->mask + 1)
		return;
	size_t i = slot_of(c, f);
	while (c->slots[i]) {
		if (same_identity(c->slots[i], f))
			return;
		i = (i + 1) & c->mask;
	}
	c->slots[i] = f;
	c->n++;
}

const uint8_t *sfs_digest_cache_find(const struct sfs_digest_cache *c,
                                     const struct sfs_file *e)
{
	if (!c || !c->slots)
		return NULL;
	for (size_t i = slot_of(c, e); c->slots[i];
	     i = (i + 1) & c->mask) {
		if (same_identity(c->slots[i], e))
			return c->slots[i]->sha256;
	}
	return NULL;
}

void sfs_digest_cache_free(struct sfs_digest_cache *c)
{
	free(c->slots);
	c->slots = NULL;
	c->mask = 0;
	c->n = 0;
}

/* ---- reuse while listing ------------------------------------------------ */

static const struct sfs_file *hint_find(const struct sfs_scan *s,
                                        const char *path)
{
	return sfs_file_find(s->hint, s->nhint, path);
}

/* Every digest of the previous snapshot, by identity.  Out of memory
 * leaves the cache empty: files are then hashed, which is slower, not
 * wrong. */
static void fill_cache(const struct sfs_catalog *prev,
                       struct sfs_digest_cache *c)
{
	size_t n = 0;

	for (size_t i = 0; i < prev->nunits; i++)
		n += prev->units[i]->skill.nfiles;
	if (sfs_digest_cache_init(c, n) < 0)
		return;
	for (size_t i = 0; i < prev->nunits; i++) {
		const struct sfs_skill *sk = &prev->units[i]->skill;
		for (size_t j = 0; j < sk->nfiles; j++)
			sfs_digest_cache_add(c, &sk->files[j]);
	}
}

const uint8_t *sfs_digest_reuse(struct sfs_scan *s, const struct sfs_file *e)
{
	const struct sfs_file *h = hint_find(s, e->path);

	if (h && h->hashed && same_identity(h, e))
		return h->sha256;
	struct sfs_digests *d = s->digests;
	if (!s->prev || !d)
		return NULL;
	if (!atomic_load_explicit(&d->filled, memory_order_acquire)) {
		pthread_mutex_lock(&d->lock);
		if (!atomic_load_explicit(&d->filled, memory_order_relaxed))
			fill_cache(s->prev, &d->cache);
		atomic_store_explicit(&d->filled, true, memory_order_release);
		pthread_mutex_unlock(&d->lock);
	}
	return sfs_digest_cache_find(&d->cache, e);
}
