/*
 * retain.c - copies of the published bytes of skill files (see retain.h).
 *
 * A copy is taken only from a source whose bytes hash to the published
 * digest, so a copy is always one complete published version: never a
 * file caught half-written, never bytes that differ from index.json.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backing.h"
#include "retain.h"

void kept_unref(struct kept *k)
{
	if (!k || atomic_fetch_sub_explicit(&k->refs, 1,
	                                    memory_order_acq_rel) != 1)
		return;
	atomic_fetch_sub(&k->owner->used, k->len);
	atomic_fetch_sub(&k->owner->files, 1);
	free(k);
}

/* Charges len bytes to r if they fit under limit. */
static bool charge(struct retainer *r, size_t len, size_t limit)
{
	size_t used = atomic_load(&r->used);

	do {
		if (used + len > limit || used + len > r->budget)
			return false;
	} while (!atomic_compare_exchange_weak(&r->used, &used, used + len));
	atomic_fetch_add(&r->files, 1);
	return true;
}

/* Reads exactly len bytes and makes sure the file ends there. */
static int read_exactly(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;
	unsigned char extra;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ESTALE;   /* shorter than published */
		got += (size_t)n;
	}
	ssize_t n = pread(fd, &extra, 1, (off_t)len);
	return n == 0 ? 0 : n < 0 ? -errno : -ESTALE;
}

int retain_copy(struct retainer *r, const struct gen *g, const struct node *n,
                size_t limit, size_t file_max, struct kept **out)
{
	const struct sfs_file *f = gen_file(g, n);
	uint8_t digest[32];
	bool borrowed;

	*out = NULL;
	if (!f || n->kind != NODE_SKILL_FILE || !f->hashed || f->size < 0)
		return -EINVAL;
	if ((uint64_t)f->size > file_max)
		return -EFBIG;
	size_t len = (size_t)f->size;
	if (!charge(r, len, limit))
		return -ENOSPC;
	struct kept *k = malloc(sizeof(*k) + (len ? len : 1));
	if (!k) {
		atomic_fetch_sub(&r->used, len);
		atomic_fetch_sub(&r->files, 1);
		return -ENOMEM;
	}
	atomic_init(&k->refs, 1);
	k->len = len;
	k->owner = r;
	int fd = backing_open(g, n, &borrowed);
	int rc = fd < 0 ? fd : read_exactly(fd, k->bytes, len);
	if (fd >= 0 && !borrowed)
		close(fd);
	if (rc == 0) {
		sfs_sha256(k->bytes, len, digest);
		if (memcmp(digest, f->sha256, sizeof(digest)) != 0)
			rc = -ESTALE;   /* rewritten in place since the scan */
	}
	if (rc < 0) {
		kept_unref(k);
		return rc;
	}
	*out = k;
	return 0;
}

int retain_node(struct retainer *r, struct gen *g, const struct node *n,
                size_t limit, size_t file_max)
{
	struct kept *k;

	if (gen_kept(g, n))
		return 0;
	int rc = retain_copy(r, g, n, limit, file_max, &k);
	if (rc < 0)
		return rc;
	if (!gen_keep(g, n, k))
		kept_unref(k);   /* another thread was first */
	return 0;
}
