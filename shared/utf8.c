/*
 * utf8.c - whole-string UTF-8 validity, on the sequence decoder the
 * frontmatter reader uses (sfs_utf8_seq).
 */
#include "internal.h"
#include "utf8.h"

bool sfs_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = sfs_utf8_seq(p + i, len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}
