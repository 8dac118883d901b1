/*
 * url.h - the URLs of the sources that are not folders: git's, an MCP
 * server's and a website's forms, parsed into one struct.  The parsers
 * and which kind a URL is of (sfs_source_url_parse): source_form.c.
 */
#ifndef SKILLSFS_SOURCES_URL_H
#define SKILLSFS_SOURCES_URL_H

#include <stdbool.h>

enum sfs_url_kind {
	SFS_URL_GIT_FILE = 1,   /* git+file:///ABS/PATH: read in place */
	SFS_URL_GIT_REMOTE,     /* git+https://, git+http://, git+ssh://:
	                           fetched into a clone (source_git_fetch.c) */
	SFS_URL_MCP,            /* mcp+https://, mcp+http://: an MCP server
	                           with the Skills extension (source_mcp.c) */
	SFS_URL_MCP_STDIO,      /* mcp+stdio:NAME: the same, a command the
	                           config file runs (location "stdio:NAME") */
	SFS_URL_WELLKNOWN,      /* https://HOST[/BASE], http://...: a
	                           website's well-known skills index
	                           (sources/wellknown.c; location: the URL
	                           without a trailing '/') */
};

/* git+file:///ABS/PATH[#[REF][:SUBDIR]], and the remote forms. */
struct sfs_source_url {
	enum sfs_url_kind kind;
	char *location;   /* file: the absolute path; remote: the URL
	                     without "git+" ("mcp+") and the fragment */
	char *ref;        /* branch, tag or full commit id; NULL: HEAD */
	char *subdir;     /* cleaned, relative; NULL: the whole tree */
};

void sfs_source_url_free(struct sfs_source_url *u);
/* Whether name may name a stdio source (mcp+stdio:NAME): 1-64 of
 * [a-z0-9._-]. */
bool sfs_source_stdio_name_valid(const char *name);
/* Whether s is 40 hex digits, a full commit id. */
bool sfs_source_is_commit_id(const char *s);

/* The parse_url of git, of MCP servers and of websites (source_form.c). */
int sfs_source_git_url_parse(const char *s, struct sfs_source_url *u,
                             const char **why);
int sfs_source_mcp_url_parse(const char *s, struct sfs_source_url *u,
                             const char **why);
int sfs_source_wellknown_url_parse(const char *s, struct sfs_source_url *u,
                                   const char **why);

#endif
