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

/* Whether path is dir or below it. */
static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/* The mount point of a mountinfo line when its type is skillsfs's. */
static char *skillsfs_point(char *line)
{
	char *save = NULL, *point = NULL;
	int field = 0;
	bool sep = false;

	for (char *t = strtok_r(line, " \n", &save); t;
	     t = strtok_r(NULL, " \n", &save), field++) {
		if (field == 4)
			point = t;
		else if (sep)
			return strcmp(t, SKILLSFS_TYPE) == 0 ? point : NULL;
		else if (field > 5 && strcmp(t, "-") == 0)
			sep = true;
	}
	return NULL;
}

char *sfs_skillsfs_mount_of(const char *real)
{
	FILE *f = fopen(MOUNTINFO, "re");
	char *line = NULL, *best = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *point = skillsfs_point(line);
		if (!point)
			continue;
		unescape(point);
		if (is_under(real, point) &&
		    (!best || strlen(point) > strlen(best))) {
			free(best);
			best = strdup(point);
		}
	}
	free(line);
	fclose(f);
	return best;
}
