/*
 * roots.c - skills roots from the command line, the environment or the
 * standard folders of agents, made absolute once, at start.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "skillsfs.h"
#include "source.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int roots_add(struct roots *r, const char *path, const char *source)
{
	/* a source's URL is taken as it is: the catalog picks its source
	 * by it (source.h) */
	char *abs = sfs_source_is_url(path) ? strdup(path)
	                                    : sfs_path_absolute(path);

	if (!abs)
		return -errno;

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

int roots_add_list(struct roots *r, const char *list, const char *source)
{
	char *copy = strdup(list);
	char *save = NULL;
	int added = 0;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		int rc = roots_add(r, tok, source);
		if (rc < 0) {
			added = rc;
			break;
		}
		added++;
	}
	free(copy);
	return added;
}

int roots_from_env(struct roots *r)
{
	const char *env = getenv("SKILLSFS_SKILLS_DIRS");

	return env ? roots_add_list(r, env, "SKILLSFS_SKILLS_DIRS") : 0;
}

/* Whether folder st is one of the roots already (the same folder is often
 * reachable twice: ~/.claude/skills a link to ~/.agents/skills, or the
 * home folder being the current one). */
static bool known_folder(const struct roots *r, const struct stat *st)
{
	struct stat other;

	for (size_t i = 0; i < r->n; i++)
		if (stat(r->paths[i], &other) == 0 && other.st_dev == st->st_dev &&
		    other.st_ino == st->st_ino)
			return true;
	return false;
}

static int add_default(struct roots *r, const char *base, const char *rel)
{
	char *path;
	struct stat st;
	int rc = 0;

	if (asprintf(&path, "%s%s%s", base, *base ? "/" : "", rel) < 0)
		return -ENOMEM;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    !known_folder(r, &st))
		rc = roots_add(r, path, "default") < 0 ? -ENOMEM : 1;
	free(path);
	return rc;
}

int roots_from_defaults(struct roots *r)
{
	/* The user's own folders first: a repository that is checked out
	 * cannot shadow a skill the user installed. */
	static const char *const user[] = {
		".agents/skills", ".claude/skills", ".codex/skills",
		".copilot/skills", ".gemini/skills", ".cursor/skills",
	};
	static const char *const project[] = {
		".agents/skills", ".claude/skills", ".github/skills",
		".gemini/skills", ".cursor/skills",
	};
	const char *home = getenv("HOME");
	int added = 0, rc;

	for (size_t i = 0; home && *home && i < ARRAY_SIZE(user); i++) {
		if ((rc = add_default(r, home, user[i])) < 0)
			return rc;
		added += rc;
	}
	for (size_t i = 0; i < ARRAY_SIZE(project); i++) {
		if ((rc = add_default(r, "", project[i])) < 0)
			return rc;
		added += rc;
	}
	/* Claude Code's installed plugins come last: their skills are
	 * namespaced there (plugin:skill), so the user's and the project's
	 * own skills of the same id win. */
	if (home && *home) {
		if ((rc = add_default(r, home, ".claude/plugins")) < 0)
			return rc;
		added += rc;
	}
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
