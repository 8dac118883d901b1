/*
 * diag.c - the list of findings that validation and scanning produce.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int sfs_diag_add(struct sfs_diag_list *l, enum sfs_severity sev,
                 const char *file, unsigned line, unsigned column,
                 const char *field, const char *fmt, ...)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct sfs_diag *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}

	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);

	struct sfs_diag *d = &l->v[l->n];
	d->severity = sev;
	d->file = sfs_arena_strdup(l->arena, file ? file : "");
	d->line = line;
	d->column = column;
	d->field = sfs_arena_strdup(l->arena, field ? field : "");
	d->message = sfs_arena_strdup(l->arena, buf);
	if (!d->file || !d->field || !d->message)
		return -ENOMEM;
	l->n++;
	return 0;
}

size_t sfs_diag_count(const struct sfs_diag_list *l, enum sfs_severity sev)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].severity == sev;
	return n;
}

void sfs_diag_promote_warnings(struct sfs_diag_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		l->v[i].severity = SFS_ERROR;
}

void sfs_diag_list_free(struct sfs_diag_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
