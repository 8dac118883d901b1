/*
 * searches.c - the search files of searches.h, in one array sorted by
 * inode number under a mutex.  The kernel forgets a search file soon
 * after its read (its entry is never cached), so the array stays short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "searches.h"

struct search_file {
	struct stat st;
	uint64_t lookups;
	char *text;
};

int searches_init(struct searches *s)
{
	memset(s, 0, sizeof(*s));
	return pthread_mutex_init(&s->lock, NULL) == 0 ? 0 : -ENOMEM;
}

void searches_destroy(struct searches *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].text);
	free(s->v);
	pthread_mutex_destroy(&s->lock);
}

/* The file of ino, or NULL; under the lock. */
static struct search_file *find(struct searches *s, uint64_t ino)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at = (uint64_t)s->v[mid].st.st_ino;
		if (at == ino)
			return &s->v[mid];
		if (at < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int searches_add(struct searches *s, char *text, struct stat *st)
{
	pthread_mutex_lock(&s->lock);
	if (sfs_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0) {
		pthread_mutex_unlock(&s->lock);
		free(text);
		return -ENOMEM;
	}
	st->st_ino = (ino_t)(SEARCH_INO | ++s->next);
	st->st_nlink = 1;
	st->st_size = (off_t)strlen(text);
	st->st_blksize = 4096;
	st->st_blocks = (st->st_size + 511) / 512;
	st->st_atim = st->st_ctim = st->st_mtim;
	s->v[s->n++] = (struct search_file){ *st, 1, text };
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int searches_stat(struct searches *s, uint64_t ino, struct stat *st)
{
	pthread_mutex_lock(&s->lock);
	struct search_file *f = find(s, ino);
	if (f)
		*st = f->st;
	pthread_mutex_unlock(&s->lock);
	return f ? 0 : -ESTALE;
}

int searches_read(struct searches *s, uint64_t ino, off_t off, size_t size,
                  char **out, size_t *n)
{
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	struct search_file *f = find(s, ino);
	if (!f) {
		rc = -ESTALE;
	} else {
		size_t len = (size_t)f->st.st_size;
		size_t from = off < 0 || (size_t)off > len ? len : (size_t)off;
		*n = len - from < size ? len - from : size;
		*out = malloc(*n ? *n : 1);
		if (*out)
			memcpy(*out, f->text + from, *n);
		else
			rc = -ENOMEM;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void searches_forget(struct searches *s, uint64_t ino, uint64_t count)
{
	pthread_mutex_lock(&s->lock);
	struct search_file *f = find(s, ino);
	if (f)
		f->lookups = count < f->lookups ? f->lookups - count : 0;
	if (f && f->lookups == 0) {
		free(f->text);
		size_t i = (size_t)(f - s->v);
		memmove(f, f + 1, (s->n - i - 1) * sizeof(*f));
		s->n--;
	}
	pthread_mutex_unlock(&s->lock);
}
