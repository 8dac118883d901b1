/*
 * text.c - questions about text.  What counts as UTF-8 is the library's
 * rule (utf8.h).
 */
#include <string.h>

#include "text.h"
#include "utf8.h"

bool is_text(const char *s, size_t len)
{
	return memchr(s, '\0', len) == NULL && sfs_utf8_valid(s, len);
}

static inline unsigned char lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

bool contains_nocase(const char *hay, size_t haylen, const char *needle,
                     size_t nlen)
{
	if (nlen == 0)
		return true;
	if (nlen > haylen)
		return false;
	unsigned char first = lower((unsigned char)needle[0]);
	for (size_t i = 0; i + nlen <= haylen; i++) {
		if (lower((unsigned char)hay[i]) != first)
			continue;
		size_t k = 1;
		while (k < nlen && lower((unsigned char)hay[i + k]) ==
				   lower((unsigned char)needle[k]))
			k++;
		if (k == nlen)
			return true;
	}
	return false;
}
