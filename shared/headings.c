/*
 * headings.c - the headings of a SKILL.md's body (outside fenced code),
 * which the build keeps with each skill for search/ to rank by.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"
#include "snapshot.h"

/* Whether the line [p, e) opens or closes a fenced code block. */
static bool is_fence(const char *p, const char *e)
{
	while (p < e && *p == ' ')
		p++;
	return e - p >= 3 && (!strncmp(p, "```", 3) || !strncmp(p, "~~~", 3));
}

char *sfs_search_headings(const char *body, size_t len, size_t max,
                          struct sfs_arena *arena)
{
	const char *p = body, *end = body + len;
	char *out = NULL;
	size_t o = 0;
	bool fenced = false;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (is_fence(p, e)) {
			fenced = !fenced;
		} else if (!fenced && *p == '#') {
			const char *t = p;
			while (t < e && (*t == '#' || *t == ' '))
				t++;
			size_t k = (size_t)(e - t);
			if (k && o + k + 1 <= max) {
				if (!out && !(out = sfs_arena_alloc(arena, max + 1)))
					return NULL;
				memcpy(out + o, t, k);
				o += k;
				out[o++] = '\n';
			}
		}
		p = e + 1;
	}
	if (out)
		out[o] = '\0';
	return out;
}
