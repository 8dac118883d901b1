/*
 * cursor.h - pagination cursors.  A cursor is opaque to clients; inside it
 * names the list it belongs to and the key of the last item returned, so a
 * page continues after that key even when the mount's generation changed
 * in between (an item removed meanwhile is simply not there).
 */
#ifndef MCP_CURSOR_H
#define MCP_CURSOR_H

/* malloc'd cursor text; NULL when out of memory. */
char *cursor_make(const char *list, const char *key);
/* The key inside a cursor made for `list` (malloc'd), or NULL when the
 * text is not such a cursor. */
char *cursor_key(const char *cursor, const char *list);

#endif
