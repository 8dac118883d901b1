/*
 * url.h - the URLs of the sources that are not folders, parsed into one
 * struct that names no kind: the form of its kind and where it is read
 * from.  The parsers, each its kind's parse_url, and which kind a URL is
 * of (sfs_source_url_parse): source_form.c.
 */
#ifndef SKILLSFS_SOURCES_URL_H
#define SKILLSFS_SOURCES_URL_H

#include <stdbool.h>

struct sfs_source_form;

/* Where a source named by a URL is read from: what its kind's code tells
 * apart (a git repository read in place from a remote one fetched into a
 * clone, an MCP server reached over HTTP from one run as a command).  The
 * kind itself is the form's (sfs_source_form). */
enum sfs_url_where {
	SFS_URL_LOCAL = 1,   /* read in place (git+file:///ABS/PATH) */
	SFS_URL_REMOTE,      /* over the network (git+https://,
	                        mcp+https://, ...) */
	SFS_URL_COMMAND,     /* a command the config file runs
	                        (mcp+stdio:NAME) */
};

/* A source's URL, parsed by its kind's parse_url (source_form.c). */
struct sfs_source_url {
	const struct sfs_source_form *form;   /* its kind's */
	enum sfs_url_where where;
	char *location;   /* local: the absolute path; remote: the URL
	                     without the kind's prefix ("git+", "mcp+") and
	                     the fragment; command: "stdio:NAME" */
	char *ref;        /* branch, tag or full commit id; NULL: HEAD */
	char *subdir;     /* cleaned, relative; NULL: the whole tree */
};

void sfs_source_url_free(struct sfs_source_url *u);
/* Whether name may name a stdio source (mcp+stdio:NAME): 1-64 of
 * [a-z0-9._-]. */
bool sfs_source_stdio_name_valid(const char *name);
/* Whether s is 40 hex digits, a full commit id. */
bool sfs_source_is_commit_id(const char *s);

#endif
