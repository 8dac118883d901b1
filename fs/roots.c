/*
 * roots.c - skills roots from the command line and the environment,
 * made absolute once, at start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Removes "." and empty components and folds ".." lexically. */
static void clean_path(char *p)
{
	char *out = p;   /* p[0] is '/' */
	const char *in = p;

	while (*in) {
		while (*in == '/')
			in++;
		const char *end = strchrnul(in, '/');
		size_t len = (size_t)(end - in);
		if (len == 0 || (len == 1 && in[0] == '.')) {
			/* skip */
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

int roots_add(struct roots *r, const char *path, const char *source)
{
	if (!path || !*path)
		return -EINVAL;

	char *abs;
	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return -errno;
		abs = malloc(strlen(cwd) + strlen(path) + 2);
		if (abs)
			strcat(strcat(strcpy(abs, cwd), "/"), path);
		free(cwd);
	}
	if (!abs)
		return -ENOMEM;
	clean_path(abs);

	char **paths = realloc(r->paths, (r->n + 1) * sizeof(*paths));
	if (paths)
		r->paths = paths;
	const char **sources = realloc(r->sources, (r->n + 1) * sizeof(*sources));
	if (sources)
		r->sources = sources;
	if (!paths || !sources) {
		free(abs);
		return -ENOMEM;
	}
	r->paths[r->n] = abs;
	r->sources[r->n] = source;
	r->n++;
	return 0;
}

int roots_from_env(struct roots *r)
{
	const char *env = getenv("SKILLSFS_SKILLS_DIRS");
	int added = 0;

	if (!env)
		return 0;
	char *copy = strdup(env);
	if (!copy)
		return -ENOMEM;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		int rc = roots_add(r, tok, "SKILLSFS_SKILLS_DIRS");
		if (rc < 0) {
			free(copy);
			return rc;
		}
		added++;
	}
	free(copy);
	return added;
}

void roots_free(struct roots *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->sources);
	r->paths = NULL;
	r->sources = NULL;
	r->n = 0;
}
