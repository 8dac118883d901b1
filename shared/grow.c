/*
 * grow.c - arrays that double as they fill (grow.h), and the vector of
 * strings the scan collects folders in.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "snapshot.h"

int sfs_grow(void *array, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap;
	void *v;

	if (need <= n)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n = n ? n * 2 : 16;
	}
	/* Through memcpy: `array` points at a T *, not at a void *. */
	memcpy(&v, array, sizeof(v));
	v = realloc(v, n * elem);
	if (!v)
		return -ENOMEM;
	memcpy(array, &v, sizeof(v));
	*cap = n;
	return 0;
}

int sfs_strvec_push(struct sfs_strvec *v, const char *s)
{
	if (!s || sfs_grow(&v->v, &v->cap, v->n + 1, sizeof(*v->v)) < 0)
		return -ENOMEM;
	v->v[v->n++] = s;
	return 0;
}
