/*
 * strpool.c - many small strings with one owner, freed all at once.
 * A generation names its catalog/<id>.json and refs/<id>/<ref>.md entries
 * here, so freeing it costs one call per block, not one per name.
 */
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

#define BLOCK_SIZE 16384

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct strpool {
	struct block *head;
};

struct strpool *strpool_new(void)
{
	return calloc(1, sizeof(struct strpool));
}

static char *pool_alloc(struct strpool *p, size_t n)
{
	struct block *b = p->head;

	if (!b || b->size - b->used < n) {
		size_t size = n > BLOCK_SIZE ? n : BLOCK_SIZE;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = p->head;
		p->head = b;
	}
	char *s = b->data + b->used;
	b->used += n;
	return s;
}

const char *strpool_cat(struct strpool *p, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = pool_alloc(p, la + lb + 1);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	while (p->head) {
		struct block *next = p->head->next;
		free(p->head);
		p->head = next;
	}
	free(p);
}
