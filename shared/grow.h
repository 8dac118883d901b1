/*
 * grow.h - room in an array that doubles as it fills.  The library, the
 * daemon and the MCP server may all include it.
 */
#ifndef SKILLSFS_GROW_H
#define SKILLSFS_GROW_H

#include <stddef.h>

/*
 * Makes room for at least `need` elements of `elem` bytes in the array
 * whose address is `array` (a T **, taken as void * so that any T fits)
 * and whose room is *cap elements: doubles *cap, from 16, until they fit,
 * and reallocs.  On failure the array and *cap are as they were.
 * Returns 0 or -ENOMEM.
 */
int sfs_grow(void *array, size_t *cap, size_t need, size_t elem);
/*
 * One element more at the end of the array whose address is `array` (a
 * T **, as for sfs_grow) and which holds *n elements: reallocs it by one,
 * zeroes the new element, counts it in *n and returns it.  NULL when out
 * of memory, the array and *n as they were.  For the short lists (a
 * file's entries, its problems) that keep no room ahead.
 */
void *sfs_append(void *array, size_t *n, size_t elem);

#endif
