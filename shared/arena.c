/*
 * arena.c - a bump allocator that owns the many small strings of a
 * snapshot, so that one call frees them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

#define BLOCK_MIN 16384

struct sfs_arena_block {
	struct sfs_arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

void *sfs_arena_alloc(struct sfs_arena *a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	struct sfs_arena_block *b = a->head;

	size = (size + align - 1) / align * align;
	if (size == 0)
		size = align;
	if (!b || b->cap - b->used < size) {
		size_t cap = size > BLOCK_MIN ? size : BLOCK_MIN;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		/* A large one-off allocation goes behind the current block so
		 * that the rest of the current block stays in use. */
		if (a->head && cap > BLOCK_MIN) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *sfs_arena_strndup(struct sfs_arena *a, const char *s, size_t n)
{
	char *p = sfs_arena_alloc(a, n + 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

char *sfs_arena_strdup(struct sfs_arena *a, const char *s)
{
	return s ? sfs_arena_strndup(a, s, strlen(s)) : NULL;
}

char *sfs_arena_printf(struct sfs_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *p = sfs_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void sfs_arena_free(struct sfs_arena *a)
{
	struct sfs_arena_block *b = a->head;
	while (b) {
		struct sfs_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

void sfs_arena_reset(struct sfs_arena *a)
{
	struct sfs_arena_block *keep = NULL, *b = a->head;

	/* Large one-off blocks go; one ordinary block stays for reuse. */
	while (b) {
		struct sfs_arena_block *next = b->next;
		if (!keep && b->cap == BLOCK_MIN)
			keep = b;
		else
			free(b);
		b = next;
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	a->head = keep;
}
