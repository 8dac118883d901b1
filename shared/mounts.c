/*
 * mounts.c - whether a folder is inside a skillsfs mount, from the
 * kernel's table of mounts (/proc/self/mountinfo, fs type
 * fuse.skillsfs).  A root there is never read: a mount that reads
 * another lists every skill twice, and one that reads itself waits on
 * its own answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skillsfs.h"

#define MOUNTINFO "/proc/self/mountinfo"
#define SKILLSFS_TYPE "fuse.skillsfs"

/* mountinfo's octal escapes (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			              (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The mount point and type of a mountinfo line ("id parent maj:min root
 * point opts [optional...] - type source superopts"), in place. */
static bool parse_line(char *line, char **point, char **type)
{
	char *save = NULL;
	int field = 0;
	bool sep = false;

	*point = *type = NULL;
	for (char *t = strtok_r(line, " \n", &save); t;
	     t = strtok_r(NULL, " \n", &save), field++) {
		if (field == 4) {
			*point = t;
		} else if (sep) {
			*type = t;
			break;
		} else if (field > 5 && strcmp(t, "-") == 0) {
			sep = true;
		}
	}
	if (!*point || !*type)
		return false;
	unescape(*point);
	return true;
}

int sfs_mountinfo_each(void (*fn)(const char *point, const char *type,
                                  void *arg), void *arg)
{
	FILE *f = fopen(MOUNTINFO, "re");
	char *line = NULL, *point, *type;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0)
		if (parse_line(line, &point, &type))
			fn(point, type, arg);
	free(line);
	fclose(f);
	return 0;
}

/* Whether path is dir or below it. */
static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

struct holder {
	const char *real;
	char *best;            /* the deepest skillsfs mount holding it */
};

static void take_holder(const char *point, const char *type, void *arg)
{
	struct holder *h = arg;

	if (strcmp(type, SKILLSFS_TYPE) != 0 || !is_under(h->real, point) ||
	    (h->best && strlen(point) <= strlen(h->best)))
		return;
	free(h->best);
	h->best = strdup(point);   /* NULL when out of memory: none */
}

char *sfs_skillsfs_mount_of(const char *real)
{
	struct holder h = { real, NULL };

	sfs_mountinfo_each(take_holder, &h);
	return h.best;
}
