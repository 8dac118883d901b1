/*
 * path.c - paths given by users, made absolute once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skillsfs.h"

/* Removes "." and empty components and folds ".." lexically; p[0] is '/'. */
static void clean_absolute(char *p)
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
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in = end;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
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
	clean_absolute(abs);
	return abs;
}
