/*
 * searches.h - the files that search/<words> answers with.  Every lookup
 * of a name in search/ runs the search of the current generation and
 * makes a new inode that holds its text, numbered apart from the
 * generations' inodes (SEARCH_INO), kept until the kernel forgets it.
 * A new inode per lookup (the entry is never cached) means no reader can
 * see the pages of an older answer.
 */
#ifndef SKILLSFS_SEARCHES_H
#define SKILLSFS_SEARCHES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The bit that marks a search file's inode number: the generations'
 * allocator never gets near it. */
#define SEARCH_INO ((uint64_t)1 << 62)

struct search_file;

struct searches {
	pthread_mutex_t lock;
	struct search_file *v;      /* sorted by ino: numbers only grow */
	size_t n, cap;
	uint64_t next;              /* the next number, without SEARCH_INO */
	size_t text_bytes;          /* of the answers kept */
};

/* What searches_read gives. */
struct search_read {
	char *bytes;                /* malloc'd: the bytes asked for */
	size_t n;
	/* -ENODATA: the answer was dropped; search `words` (malloc'd) again
	 * in `generation`, whose answer has `size` bytes */
	char *words;
	uint64_t generation;
	size_t size;
};

int searches_init(struct searches *s);
void searches_destroy(struct searches *s);

static inline bool searches_is(uint64_t ino)
{
	return (ino & SEARCH_INO) != 0;
}

/* Keeps text (malloc'd, given), the answer to words in generation, as a
 * new file with one lookup, its attributes in *st (st_mode, st_uid,
 * st_gid and st_mtim filled by the caller).  Returns 0 or -ENOMEM (text
 * is freed). */
int searches_add(struct searches *s, const char *words, uint64_t generation,
                 char *text, struct stat *st);
/* The attributes of ino as searches_add made them; -ESTALE when gone. */
int searches_stat(struct searches *s, uint64_t ino, struct stat *st);
/* A copy of up to size bytes at off; -ESTALE when gone, -ENOMEM, or
 * -ENODATA with what to search again (see struct search_read). */
int searches_read(struct searches *s, uint64_t ino, off_t off, size_t size,
                  struct search_read *out);
void searches_forget(struct searches *s, uint64_t ino, uint64_t count);

#endif
