/*
 * skillmd.c - finding the body of a SKILL.md.  The server does not parse
 * YAML (the mount already did, and serves the frontmatter as JSON); it only
 * needs to know where the fence lines are.
 */
#include <stdbool.h>
#include <string.h>

#include "skillmd.h"

/* Is [p, end) a fence line made of `mark` plus blanks and a CR? */
static bool fence(const char *p, const char *end, const char *mark)
{
	size_t n = strlen(mark);

	if ((size_t)(end - p) < n || memcmp(p, mark, n) != 0)
		return false;
	for (p += n; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

const char *skillmd_body(const char *text, size_t len)
{
	const char *end = text + len;
	const char *p = text;

	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	const char *start = p;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || !fence(p, nl, "---"))
		return start;
	for (p = nl + 1; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		if (fence(p, line_end, "---") || fence(p, line_end, "..."))
			return nl ? nl + 1 : end;
		if (!nl)
			break;
	}
	return start;   /* never closed: no frontmatter after all */
}
