/*
 * path.c - paths given by users, made absolute once; relative paths of a
 * skill folder, folded lexically; names that can be served.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot.h"

/*
 * Folds the components of p in place: drops empty and "." ones, and ".."
 * with the component before it.  A rooted path (p[0] is '/') stays
 * rooted, and ".." at its top stays there.  A relative one must not climb
 * above its start: false when a ".." would.
 */
static bool fold(char *p, bool rooted)
{
	char *out = p;
	const char *in = p;

	while (*in) {
		while (*in == '/')
			in++;
		const char *end = strchrnul(in, '/');
		size_t len = (size_t)(end - in);
		if (len == 0 || (len == 1 && in[0] == '.')) {
			/* nothing to keep */
		} else if (len == 2 && in[0] == '.' && in[1] == '.') {
			if (!rooted && out == p)
				return false;
			while (out > p && *--out != '/')
				;
		} else {
			if (rooted || out != p)
				*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in = end;
	}
	if (rooted && out == p)
		*out++ = '/';
	*out = '\0';
	return true;
}

/* (snapshot.h) */
bool sfs_path_clean_rel(char *p)
{
	return p[0] != '/' && fold(p, false);
}

/*
 * (snapshot.h) A name that is not UTF-8 has no skill:// URI nor a JSON
 * spelling, and control characters (a newline, an escape sequence) are
 * there to fool line-based tools and terminals.
 */
const char *sfs_bad_name(const char *name)
{
	const unsigned char *u = (const unsigned char *)name;
	size_t n = strlen(name);

	for (size_t i = 0; i < n;) {
		size_t len = sfs_utf8_seq(u + i, n - i);
		if (len == 0)
			return "name is not valid UTF-8";
		if (len == 1 && (u[i] < 0x20 || u[i] == 0x7F))
			return "name contains a control character";
		i += len;
	}
	return NULL;
}

char *sfs_path_absolute(const char *path)
{
	char *abs;

	if (!path || !*path) {
		errno = EINVAL;
		return NULL;
	}
	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		abs = malloc(strlen(cwd) + strlen(path) + 2);
		if (abs)
			strcat(strcat(strcpy(abs, cwd), "/"), path);
		free(cwd);
	}
	if (!abs) {
		errno = ENOMEM;
		return NULL;
	}
	fold(abs, true);
	return abs;
}

int sfs_mkdir_parents(const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return -e;
		}
		*s = '/';
	}
	free(p);
	return 0;
}
