/*
 * strpool.h - many small strings with one owner, freed all at once.
 */
#ifndef SKILLSFS_STRPOOL_H
#define SKILLSFS_STRPOOL_H

#include <stddef.h>

struct strpool;

struct strpool *strpool_new(void);
/* The concatenation of a and b, NUL-terminated; NULL when out of memory. */
const char *strpool_cat(struct strpool *p, const char *a, const char *b);
void strpool_free(struct strpool *p);

#endif
