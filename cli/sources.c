/*
 * sources.c - what the commands share about roots that are not folders
 * (git and MCP sources): the cache folder they are fetched into, each
 * root's options from the configuration file (an MCP server's
 * token_file, a stdio server's command), and bringing them up to date
 * before a one-shot build (skillsfs check and export; the mount has its
 * fetcher thread).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "source.h"

char *cli_default_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir = NULL;

	/* the XDG base directory rules: a relative XDG_CACHE_HOME is
	 * ignored */
	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/skillsfs", xdg) < 0)
			dir = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/skillsfs", home) < 0)
			dir = NULL;
	}
	return dir;
}

struct sfs_source_options *cli_source_options(const struct roots *roots,
                                              const struct sfs_config_file *cf)
{
	struct sfs_source_options *v = calloc(roots->n ? roots->n : 1,
	                                      sizeof(*v));

	/* a --source of the URL a source entry names gets its options too:
	 * the token is the server's; a command: entry's root
	 * (mcp+stdio:NAME) gets its command, which only the file gives */
	for (size_t i = 0; v && i < roots->n; i++)
		for (size_t j = 0; j < cf->nsources; j++) {
			if (strcmp(roots->paths[i], cf->sources[j]) != 0)
				continue;
			v[i].token_file = cf->source_token_files[j];
			v[i].verify = cf->source_verify_files[j];
			v[i].argv = (const char *const *)
			            cf->source_commands[j].argv;
			v[i].env = (const char *const *)
			           cf->source_commands[j].env;
			v[i].private_skills = cf->source_private[j];
		}
	return v;
}

const char *cli_kind_missing(const struct roots *roots, char *why,
                             size_t wlen)
{
	for (size_t i = 0; i < roots->n; i++) {
		if (sfs_source_kind(roots->paths[i]))
			continue;
		/* sfs_source_kind's dlopen or dlsym failed on this thread */
		const char *err = dlerror();
		snprintf(why, wlen, "cannot read sources of the kind %s: %s",
		         sfs_source_form(roots->paths[i])->kind,
		         err ? err : "this program has none");
		return roots->paths[i];
	}
	return NULL;
}

char **cli_update_sources(const struct sfs_config *cfg)
{
	char **notes = calloc(cfg->nroots ? cfg->nroots : 1, sizeof(*notes));

	for (size_t i = 0; notes && i < cfg->nroots; i++) {
		char version[80], why[1024] = "";
		if (sfs_source_update(cfg, cfg->roots[i], version,
		                      sizeof(version), NULL, why, sizeof(why)) < 0)
			notes[i] = strdup(why);   /* NULL: no note, at worst */
	}
	return notes;
}

void cli_free_notes(char **notes, size_t n)
{
	for (size_t i = 0; notes && i < n; i++)
		free(notes[i]);
	free(notes);
}
