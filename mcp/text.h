/*
 * text.h - questions about text the tools and resources ask.
 */
#ifndef MCP_TEXT_H
#define MCP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* True when the bytes can be sent as a resource's `text`: UTF-8, no NUL. */
bool is_text(const char *s, size_t len);

/* ASCII case-insensitive search of `needle` in `hay`. */
bool contains_nocase(const char *hay, size_t haylen, const char *needle,
                     size_t nlen);

#endif
