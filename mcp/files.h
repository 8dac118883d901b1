/*
 * files.h - whole-file reads with a bound on the size.
 */
#ifndef MCP_FILES_H
#define MCP_FILES_H

#include <stddef.h>

/*
 * Reads the whole file at `path` (at most `max` bytes) into a malloc'd,
 * NUL-terminated buffer.  Returns 0, -EFBIG when the file is larger than
 * `max`, or another -errno.
 */
int read_file(const char *path, size_t max, char **out, size_t *len);
/* The same for an open descriptor, from its current position. */
int read_fd(int fd, size_t max, char **out, size_t *len);

#endif
