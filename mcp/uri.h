/*
 * uri.h - the resource URIs the server answers (uri-contract.md, SEP-2640)
 * and their validation.  Every path taken from a URI is relative, has no
 * empty, "." or ".." segment, no NUL or control character, and no '/'
 * that came from percent-decoding, so it cannot leave the folder it is
 * joined to ('\\' is an ordinary byte of a name, %5C in a URI).  (Symlinks are checked separately where files are opened.)
 */
#ifndef MCP_URI_H
#define MCP_URI_H

#include <stdbool.h>
#include <stddef.h>

enum uri_kind {
	URI_INVALID,        /* malformed; `error` says why */
	URI_UNKNOWN,        /* well-formed, but names nothing we serve */
	URI_CATALOG_INDEX,  /* resource://catalog/skills_index */
	URI_CATALOG_SKILL,  /* resource://catalog/skills/<id> */
	URI_DOCUMENT,       /* resource://skills/<id>/document */
	URI_REFERENCE,      /* resource://skills/<id>/references/<ref> */
	URI_DOC,            /* resource://docs/<path>, a .md file */
	URI_SKILL_ROOT,     /* skill://<id> */
	URI_SKILL_PATH,     /* skill://<id>/<path>: a file or a folder */
};

struct uri {
	enum uri_kind kind;
	char id[65];        /* the skill id, when there is one */
	char plugin[129];   /* resource:// URIs name a skill of a Claude Code
			       plugin as <plugin>:<id>; else "" */
	char *path;         /* owned: decoded path, or the ref id */
	const char *error;  /* URI_INVALID: static text */
};

void uri_parse(const char *text, struct uri *u);
void uri_free(struct uri *u);

/* The Agent Skills name rule (1-64 of [a-z0-9-], no edge or double '-'). */
bool skill_id_valid(const char *s, size_t n);
/* Checks a relative path as described above, after percent-decoding it.
 * Returns the decoded copy (malloc'd) or NULL with *why set. */
char *uri_clean_path(const char *p, size_t n, const char **why);
/* base + "/" + name percent-encoded by sfs_uri_encode: the one spelling
 * of every skill:// URI (a '/' in name stays a separator). */
char *uri_join(const char *base, const char *name);
/* "skill://<id>/<path encoded>", or "skill://<id>" for an empty path. */
char *uri_skill(const char *id, const char *path);

#endif
