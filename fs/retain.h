/*
 * retain.h - the published bytes of skill files, kept in memory by the
 * generations that serve them.
 *
 * A generation publishes each file's size and digest.  Its source can be
 * rewritten in place at any time after that, and then only a copy taken
 * while the source still matched the digest can answer a read with the
 * published version.  Copies are shared by reference between generations
 * while the file is unchanged, and all of them together stay within one
 * budget (-o retain=MiB); a file without a copy is read from its source
 * as long as the source still matches (backing.c).
 */
#ifndef SKILLSFS_RETAIN_H
#define SKILLSFS_RETAIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of one published file version. */
struct kept {
	atomic_uint refs;
	size_t len;
	struct retainer *owner;  /* charged with len */
	unsigned char bytes[];
};

/* The budget every copy of a mount is charged to. */
struct retainer {
	atomic_size_t used;      /* bytes held by live copies */
	atomic_size_t files;
	size_t budget;           /* 0: keep nothing */
};

/* The largest file copied at its first read, and in the background's
 * first pass; the second copies files up to RETAIN_CHANGED_MAX (refresh.c,
 * fill_pending).  A larger one is read from its source.  A file that
 * changed, which its author may rewrite in place at any moment, is
 * copied up to a quarter of the budget (RETAIN_CHANGED_MAX): with 1 MiB,
 * a held skill's 2 MiB file was never copied (tests/stress,
 * LIVE_STRESS_BIG_KIB=2048, cp, 8 s with -o settle_max=300: 115 of 3,928
 * reads ESTALE, then none).  Such a copy is made from the bytes the
 * build hashed (struct retain_offers), not from the source read again:
 * read again, a file rewritten back to back had changed since the scan
 * for a quarter of 80,406 reads of a 2 MiB file over 20 s (issue 28).
 * A skill held as it was (settle.h) serves a version an earlier build
 * published, whose copy only the background could make: over 1 MiB it
 * made none, and under polling, where a skill rewritten back to back is
 * held from its first version on, up to a third of the reads of its
 * 2 MiB file failed (ESTALE) until the second pass. */
#define RETAIN_FILE_MAX (1u << 20)
#define RETAIN_CHANGED_MAX(r) ((r)->budget / 4)

static inline struct kept *kept_ref(struct kept *k)
{
	if (k)
		atomic_fetch_add_explicit(&k->refs, 1, memory_order_relaxed);
	return k;
}

void kept_unref(struct kept *k);

struct gen;
struct node;

/*
 * Copies the source of skill file n of g, if it still holds exactly the
 * bytes g published (size and sha256), and the copy fits in `limit`
 * bytes of r's budget.  Returns 0 (*out, one reference), -ESTALE when the
 * source changed since the scan, -ENOSPC past the limit, -EFBIG for a
 * file over file_max bytes, or another -errno.
 */
int retain_copy(struct retainer *r, const struct gen *g, const struct node *n,
                size_t limit, size_t file_max, struct kept **out);
/*
 * Copies n's source into g unless g already has a copy.  Returns 0 when
 * g has one after the call, or retain_copy's error.
 */
int retain_node(struct retainer *r, struct gen *g, const struct node *n,
                size_t limit, size_t file_max);

/*
 * The copies one build offers of the bytes it hashed (sfs_config.hashed,
 * from any of its threads), charged to r within limit, each of at most
 * file_max bytes: the generation it makes takes its copies from them
 * (retain_offer_find), which are of exactly the published content even
 * when the source was rewritten after the scan.  What no node takes is
 * given back by retain_offers_free.
 */
struct retain_offer;
struct retain_offers {
	pthread_mutex_t lock;
	struct retainer *r;
	size_t limit, file_max;
	struct retain_offer *v;  /* malloc */
	size_t n, cap;
};

int retain_offers_init(struct retain_offers *o, struct retainer *r,
                       size_t limit, size_t file_max);   /* 0 or -errno */
struct sfs_file;
/* sfs_config.hashed, with the offers as its argument. */
void retain_offer(void *offers, const struct sfs_file *f,
                  const unsigned char *bytes);
/* A reference to the copy offered of the bytes with this digest and
 * length, or NULL (also when o is NULL). */
struct kept *retain_offer_find(struct retain_offers *o,
                               const uint8_t sha256[32], size_t len);
void retain_offers_free(struct retain_offers *o);

#endif
