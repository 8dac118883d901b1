/*
 * uri_encode.c - the one spelling of a path inside a skill:// URI.
 *
 * SEP-2640 clients compare URIs in their WHATWG-serialised form, and the
 * official TypeScript SDK keys a skill's files by a canonical spelling of
 * each segment (ENCODED_IN_SEGMENT in its skills extension): the bytes
 * [A-Za-z0-9_!$&'()*+,.:;=@[]|~-] stay as they are, every other byte is
 * %XX with uppercase hex.  Writing every URI that way (index.json, the
 * MCP server's lists, directory reads) makes the spelling a client
 * receives equal to the one it computes, so its keys, its "inside the
 * skill" check and its lookups all agree with ours.
 */
#include <stdbool.h>
#include <string.h>

#include "skillsfs.h"

bool sfs_uri_keeps(unsigned char c)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c && strchr("_!$&'()*+,.:;=@[]|~-/", c) != NULL;
}

size_t sfs_uri_encode(const char *path, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (sfs_uri_keeps(*p)) {
			if (out)
				out[n] = (char)*p;
			n++;
			continue;
		}
		if (out) {
			out[n] = '%';
			out[n + 1] = hex[*p >> 4];
			out[n + 2] = hex[*p & 0xF];
		}
		n += 3;
	}
	if (out)
		out[n] = '\0';
	return n;
}
