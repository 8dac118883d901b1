/*
 * conffile.c - --config FILE and lockfiles for the skillsfs commands: the
 * library reads and checks the files, this prints what it found wrong the
 * way compilers do, so that an editor can jump to the place; and where a
 * command's roots come from when its command line names none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "lockfile.h"
#include "skillsfs.h"

int conffile_load(const char *prog, const char *path,
                  struct sfs_config_file *cf)
{
	struct sfs_config_error err;

	if (sfs_config_file_read(path, getenv("HOME"), cf, &err) == 0)
		return 0;
	fprintf(stderr, "%s: ", prog);
	cli_put_visible(stderr, err.file);
	if (err.line)
		fprintf(stderr, ":%u:%u", err.line, err.column);
	fprintf(stderr, ": error: ");
	if (err.key[0])
		cli_printf_visible(stderr, "%s: ", err.key);
	cli_line_visible(stderr, "%s", err.message);
	return -1;
}

int roots_from_config(struct roots *r, const struct sfs_config_file *cf)
{
	for (size_t i = 0; i < cf->nroots; i++) {
		int rc = roots_add(r, cf->roots[i], "config");
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < cf->nsources; i++) {
		int rc = roots_add(r, cf->sources[i], "config");
		if (rc < 0)
			return rc;
	}
	return 0;
}

int roots_fallback(struct roots *r, const struct sfs_config_file *cf)
{
	int rc = roots_from_config(r, cf);

	if (rc == 0 && r->n == 0)
		rc = roots_from_env(r);
	if (rc == 0 && r->n == 0)
		rc = roots_from_defaults(r);
	return rc < 0 ? rc : (int)r->n;
}

int lockfile_load(const char *prog, const char *path, struct sfs_lock *lock)
{
	struct sfs_lock_error err;

	if (sfs_lock_read(path, getenv("HOME"), lock, &err) == 0)
		return 0;
	cli_say(prog, "%s: error: %s%s%s", path, err.field,
	        err.field[0] ? ": " : "", err.message);
	return -1;
}

int roots_from_lock(struct roots *r, const struct sfs_lock *lock,
                    const char *source)
{
	for (size_t i = 0; i < lock->nsources; i++) {
		int rc = roots_add(r, lock->sources[i].root, source);
		if (rc < 0)
			return rc;
	}
	return 0;
}
