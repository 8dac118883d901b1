/*
 * resources.h - what resources.c shares with the skills extension: MCP
 * Resource objects for files in the mount, MIME types, and opening a file
 * or folder of a skill without leaving it.
 */
#ifndef MCP_RESOURCES_H
#define MCP_RESOURCES_H

#include <stdint.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "handler.h"

/* The MIME type for a file name, or NULL when the extension says nothing
 * (resources/read then decides by content: text/plain or octet-stream). */
const char *mime_by_name(const char *name);

/* For content whose name says nothing: text/plain when its first bytes
 * (SNIFF_BYTES) are UTF-8 without NUL, else application/octet-stream. */
#define SNIFF_BYTES 8192
const char *mime_by_content(const char *data, size_t len);
/* By name, else by the first bytes of the file; NULL if it cannot be read. */
const char *mime_of_file(const char *path);

/* {uri, name, mimeType?, size?, _meta: {"io.skillsfs/path": path}};
 * size < 0 leaves size out. */
cJSON *resource_object(const char *uri, const char *name, const char *mime,
                       const char *path, int64_t size);

/*
 * Opens `path` (a file or folder below `root`) with `flags`, and makes sure
 * the object reached, symlinks followed, lies inside `root`.  Returns the
 * descriptor, -EXDEV when it lies outside, or another -errno.
 */
int open_inside(const char *root, const char *path, int flags);

#endif
