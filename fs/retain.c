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
#include "grow.h"
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

/* A copy of len bytes charged to r within limit, one reference; NULL
 * with *err set when it does not fit or there is no memory. */
static struct kept *kept_new(struct retainer *r, size_t len, size_t limit,
                             int *err)
{
	if (!charge(r, len, limit)) {
		*err = -ENOSPC;
		return NULL;
	}
	struct kept *k = malloc(sizeof(*k) + (len ? len : 1));
	if (!k) {
		atomic_fetch_sub(&r->used, len);
		atomic_fetch_sub(&r->files, 1);
		*err = -ENOMEM;
		return NULL;
	}
	atomic_init(&k->refs, 1);
	k->len = len;
	k->owner = r;
	return k;
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
	int rc;
	struct kept *k = kept_new(r, len, limit, &rc);
	if (!k)
		return rc;
	int fd = backing_open(g, n, &borrowed);
	rc = fd < 0 ? fd : read_exactly(fd, k->bytes, len);
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

/* ---- copies offered by a build ------------------------------------------ */

/* The offers one build keeps at most: they are looked for one by one,
 * and a build that changes more files than this (a checkout) has the
 * others read from their sources, as before offers. */
#define RETAIN_OFFERS_MAX 1024

struct retain_offer {
	uint8_t sha256[32];
	struct kept *k;
};

int retain_offers_init(struct retain_offers *o, struct retainer *r,
                       size_t limit, size_t file_max)
{
	*o = (struct retain_offers){ .r = r, .limit = limit,
	                             .file_max = file_max };
	return -pthread_mutex_init(&o->lock, NULL);
}

static bool offered(const struct retain_offers *o, const uint8_t sha256[32],
                    size_t len, size_t *at)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].k->len == len &&
		    memcmp(o->v[i].sha256, sha256, 32) == 0) {
			*at = i;
			return true;
		}
	return false;
}

void retain_offer(void *arg, const struct sfs_file *f,
                  const unsigned char *bytes)
{
	struct retain_offers *o = arg;
	size_t len = (size_t)f->size, at;
	int err;

	if (f->size <= 0 || len > o->file_max)
		return;
	pthread_mutex_lock(&o->lock);
	bool have = offered(o, f->sha256, len, &at) ||
	            o->n >= RETAIN_OFFERS_MAX;
	pthread_mutex_unlock(&o->lock);
	if (have)
		return;
	/* copied outside the lock: the build's threads offer at once */
	struct kept *k = kept_new(o->r, len, o->limit, &err);
	if (!k)
		return;   /* read from the source then, as before */
	memcpy(k->bytes, bytes, len);
	pthread_mutex_lock(&o->lock);
	if (!offered(o, f->sha256, len, &at) &&
	    sfs_grow(&o->v, &o->cap, o->n + 1, sizeof(*o->v)) == 0) {
		memcpy(o->v[o->n].sha256, f->sha256, 32);
		o->v[o->n++].k = k;
		k = NULL;
	}
	pthread_mutex_unlock(&o->lock);
	kept_unref(k);   /* offered first by another thread, or no room */
}

struct kept *retain_offer_find(struct retain_offers *o,
                               const uint8_t sha256[32], size_t len)
{
	size_t at;
	struct kept *k = NULL;

	if (!o)
		return NULL;
	pthread_mutex_lock(&o->lock);
	if (offered(o, sha256, len, &at))
		k = kept_ref(o->v[at].k);
	pthread_mutex_unlock(&o->lock);
	return k;
}

void retain_offers_free(struct retain_offers *o)
{
	for (size_t i = 0; i < o->n; i++)
		kept_unref(o->v[i].k);
	free(o->v);
	pthread_mutex_destroy(&o->lock);
}
