/*
 * conffile.c - --config FILE for the skillsfs commands: the library reads
 * and checks the file, this prints what it found wrong the way compilers
 * do, so that an editor can jump to the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "skillsfs.h"

int conffile_load(const char *prog, const char *path,
                  struct sfs_config_file *cf)
{
	struct sfs_config_error err;

	if (sfs_config_file_read(path, getenv("HOME"), cf, &err) == 0)
		return 0;
	fprintf(stderr, "%s: %s", prog, err.file);
	if (err.line)
		fprintf(stderr, ":%u:%u", err.line, err.column);
	fprintf(stderr, ": error: ");
	if (err.key[0])
		fprintf(stderr, "%s: ", err.key);
	fprintf(stderr, "%s\n", err.message);
	return -1;
}

int roots_from_config(struct roots *r, const struct sfs_config_file *cf)
{
	for (size_t i = 0; i < cf->nroots; i++) {
		int rc = roots_add(r, cf->roots[i], "config");
		if (rc < 0)
			return rc;
	}
	return 0;
}
