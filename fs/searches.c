/*
 * searches.c - the search files of searches.h, in one array sorted by
 * inode number under a mutex.
 *
 * The kernel keeps an inode it has no entry for until memory runs short,
 * so it forgets a search file late: 20,000 searches held 57 MB of
 * answers.  The answers are kept up to SEARCH_TEXT_MAX bytes, the newest
 * first; an older file keeps its words and generation, and a read of it
 * searches again in that generation, which gives the same bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "searches.h"

#define SEARCH_TEXT_MAX ((size_t)4 << 20)

struct search_file {
	struct stat st;
	uint64_t lookups;
	uint64_t generation;   /* the one it searched */
	char *words;
	char *text;            /* NULL once dropped (see the top) */
};

int searches_init(struct searches *s)
{
	memset(s, 0, sizeof(*s));
	return pthread_mutex_init(&s->lock, NULL) == 0 ? 0 : -ENOMEM;
}

static void file_free(struct search_file *f)
{
	free(f->words);
	free(f->text);
}

void searches_destroy(struct searches *s)
{
	for (size_t i = 0; i < s->n; i++)
		file_free(&s->v[i]);
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

/* Drops the oldest answers past SEARCH_TEXT_MAX; under the lock. */
static void trim(struct searches *s)
{
	for (size_t i = 0; i < s->n && s->text_bytes > SEARCH_TEXT_MAX; i++) {
		if (!s->v[i].text)
			continue;
		s->text_bytes -= (size_t)s->v[i].st.st_size;
		free(s->v[i].text);
		s->v[i].text = NULL;
	}
}

int searches_add(struct searches *s, const char *words, uint64_t generation,
                 char *text, struct stat *st)
{
	char *w = strdup(words);

	pthread_mutex_lock(&s->lock);
	if (!w || sfs_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0) {
		pthread_mutex_unlock(&s->lock);
		free(w);
		free(text);
		return -ENOMEM;
	}
	st->st_ino = (ino_t)(SEARCH_INO | ++s->next);
	st->st_nlink = 1;
	st->st_size = (off_t)strlen(text);
	st->st_blksize = 4096;
	st->st_blocks = (st->st_size + 511) / 512;
	st->st_atim = st->st_ctim = st->st_mtim;
	s->v[s->n++] = (struct search_file){ *st, 1, generation, w, text };
	s->text_bytes += (size_t)st->st_size;
	trim(s);
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
                  struct search_read *out)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&s->lock);
	struct search_file *f = find(s, ino);
	if (!f) {
		rc = -ESTALE;
	} else if (!f->text) {
		out->generation = f->generation;
		out->size = (size_t)f->st.st_size;
		out->words = strdup(f->words);
		rc = out->words ? -ENODATA : -ENOMEM;
	} else {
		size_t len = (size_t)f->st.st_size;
		size_t from = off < 0 || (size_t)off > len ? len : (size_t)off;
		out->n = len - from < size ? len - from : size;
		out->bytes = malloc(out->n ? out->n : 1);
		if (out->bytes)
			memcpy(out->bytes, f->text + from, out->n);
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
		if (f->text)
			s->text_bytes -= (size_t)f->st.st_size;
		file_free(f);
		size_t i = (size_t)(f - s->v);
		memmove(f, f + 1, (s->n - i - 1) * sizeof(*f));
		s->n--;
	}
	pthread_mutex_unlock(&s->lock);
}
