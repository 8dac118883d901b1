/*
 * base64.h - base64 for blob resources, base64url for cursors.
 */
#ifndef MCP_BASE64_H
#define MCP_BASE64_H

#include <stddef.h>

/* Standard base64 with padding, malloc'd; NULL when out of memory. */
char *base64_encode(const unsigned char *p, size_t n);
/* base64url without padding, and back.  decode returns NULL on bad input. */
char *base64url_encode(const char *s, size_t n);
char *base64url_decode(const char *s, size_t *n);

#endif
