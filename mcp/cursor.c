/*
 * cursor.c - pagination cursors: base64url of "v1:<list>:<key>".
 */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "buf.h"
#include "cursor.h"

char *cursor_make(const char *list, const char *key)
{
	char *plain = xasprintf("v1:%s:%s", list, key);
	if (!plain)
		return NULL;
	char *c = base64url_encode(plain, strlen(plain));
	free(plain);
	return c;
}

char *cursor_key(const char *cursor, const char *list)
{
	size_t n = 0;
	char *plain = base64url_decode(cursor, &n);

	if (!plain)
		return NULL;
	size_t ll = strlen(list);
	if (strlen(plain) != n || n < 4 + ll || memcmp(plain, "v1:", 3) != 0 ||
	    memcmp(plain + 3, list, ll) != 0 || plain[3 + ll] != ':') {
		free(plain);
		return NULL;
	}
	char *key = strdup(plain + 4 + ll);
	free(plain);
	return key;
}
