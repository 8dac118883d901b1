/*
 * skills_opts.c - the options every command that reads skills takes:
 * --skills-dir DIR (or a bare DIR), --source URL, --config FILE, and the
 * roots when none was named.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lockfile.h"
#include "source.h"

void cli_skills_init(struct cli_skills *o)
{
	memset(o, 0, sizeof(*o));
	sfs_config_file_free(&o->cf);   /* all unset */
	o->lease.fd = -1;
}

/* A --source that is no source's URL: the library's message, which names
 * every form (sfs_source_url_parse), as the mount says it. */
static int bad_source(const char *cmd, const char *url)
{
	struct sfs_source_url u;
	const char *why;

	if (sfs_source_url_parse(url, &u, &why) == 0) {
		sfs_source_url_free(&u);
		why = "not a source URL";
	}
	return cli_usage_error(cmd, "bad --source '%s': %s", url, why);
}

int cli_skills_option(void *skills, const char *cmd, int c,
                      char *const argv[])
{
	struct cli_skills *o = skills;

	switch (c) {
	case 1:     /* a folder named without --skills-dir */
	case 'd':
		if (roots_add(&o->roots, optarg, "--skills-dir") < 0)
			return cli_usage_error(cmd, "cannot use skills folder "
			                       "'%s'", optarg);
		return -1;
	case 'S':   /* a source, in its place among the roots */
		if (!sfs_source_is_url(optarg))
			return bad_source(cmd, optarg);
		if (sfs_source_caps(optarg) & SFS_SOURCE_COMMAND)
			return cli_usage_error(cmd, "bad --source '%s': %s",
			                       optarg, CLI_STDIO_SOURCE_REFUSED);
		if (roots_add(&o->roots, optarg, "--source") < 0)
			return cli_usage_error(cmd, "%s", strerror(ENOMEM));
		return -1;
	case 'c':
		o->config = optarg;
		return -1;
	default:
		return cli_option_error(cmd, c, argv);
	}
}

/* The file's lock: as the roots, and the build's lock. */
static int roots_of_lock(const char *cmd, struct cli_skills *o)
{
	o->lock = calloc(1, sizeof(*o->lock));
	if (!o->lock)
		return cli_fail(cmd, "%s", strerror(ENOMEM));
	if (lockfile_load(cmd, o->cf.lock, o->lock) < 0)
		return CLI_EXIT_USAGE;
	if (roots_from_lock(&o->roots, o->lock, "config lock") < 0)
		return cli_fail(cmd, "%s", strerror(ENOMEM));
	return -1;
}

int cli_skills_config(const char *cmd, struct cli_skills *o)
{
	if (o->config && conffile_load(cmd, o->config, &o->cf) < 0)
		return CLI_EXIT_USAGE;
	return -1;
}

int cli_skills_finish(const char *cmd, struct cli_skills *o)
{
	int status = cli_skills_config(cmd, o);

	if (status >= 0)
		return status;
	if (o->roots.n > 0)
		return -1;
	if (o->cf.lock)
		return roots_of_lock(cmd, o);
	int added = roots_fallback(&o->roots, &o->cf);
	if (added < 0)
		return cli_usage_error(cmd, "cannot read the skills folders: %s",
		                       strerror(-added));
	if (added == 0)
		return cli_usage_error(cmd, "no skills folders: give "
		                       "--skills-dir DIR, --config FILE or set "
		                       "SKILLSFS_SKILLS_DIRS (none of "
		                       ROOTS_DEFAULT_LIST " exists)");
	return -1;
}

/* Says why each root could not be fetched; whether any could not. */
static bool unfetched(const char *cmd, const struct roots *roots,
                      char *const *notes)
{
	bool any = false;

	for (size_t i = 0; i < roots->n; i++)
		if (notes[i]) {
			cli_fail(cmd, "%s: %s", roots->paths[i], notes[i]);
			any = true;
		}
	return any;
}

/* The lease on what the roots keep in the cache folder; said and gone
 * without when it cannot be taken (the mount does the same). */
static void take_lease(const char *cmd, const char *cache,
                       struct cli_skills *o)
{
	int rc = cache ? sfs_cache_lease_take(cache,
	                                      (const char *const *)o->roots.paths,
	                                      o->roots.n, &o->lease) : 0;

	if (rc < 0)
		cli_say(cmd, "%s: cannot take a lease on what this command "
		        "uses (skillsfs gc may remove it): %s", cache,
		        strerror(-rc));
}

int cli_skills_build(const char *cmd, struct cli_skills *o, bool strict,
                     sfs_catalog **cat)
{
	const char *file_cache = o->cf.options[SFS_OPT_CACHE_DIR].text;
	char why[1024];
	const char *missing = cli_kind_missing(&o->roots, why, sizeof(why));

	if (missing)
		return cli_fail(cmd, "%s: %s", missing, why);
	char *cache = file_cache ? strdup(file_cache) : cli_default_cache_dir();
	struct sfs_source_options *opts = cli_source_options(&o->roots, &o->cf);
	struct sfs_config cfg = {
		.roots = (const char *const *)o->roots.paths,
		.nroots = o->roots.n,
		.strict = strict,
		.include = (const char *const *)o->cf.include,
		.ninclude = o->cf.ninclude,
		.exclude = (const char *const *)o->cf.exclude,
		.nexclude = o->cf.nexclude,
		.lock = o->lock,
		.cache_dir = cache,
		.root_options = opts,
		.trust = (enum sfs_trust)o->cf.options[SFS_OPT_TRUST].number,
		.accept = o->cf.accept,
		.naccept = o->cf.naccept,
		/* validating is what a one-shot build is for: every SKILL.md
		 * itself, not only the frontmatter an MCP listing gives */
		.fetch_skill_mds = true,
	};
	/* a one-shot build reads git and MCP roots as they are now: fetched
	 * first, and a fetch that fails is a finding of the build */
	take_lease(cmd, cache, o);
	char **notes = opts ? cli_update_sources(&cfg) : NULL;
	cfg.root_notes = (const char *const *)notes;
	if (notes && o->fetch_must_succeed && unfetched(cmd, &o->roots, notes)) {
		cli_free_notes(notes, o->roots.n);
		free(opts);
		free(cache);
		return CLI_EXIT_FAILED;
	}
	int rc = notes ? sfs_catalog_build(&cfg, NULL, cat) : -ENOMEM;

	cli_free_notes(notes, o->roots.n);
	free(opts);
	free(cache);
	if (rc < 0)
		return cli_fail(cmd, "cannot build the catalog: %s",
		                strerror(-rc));
	return -1;
}

void cli_skills_free(struct cli_skills *o)
{
	sfs_cache_lease_drop(&o->lease);
	roots_free(&o->roots);
	sfs_config_file_free(&o->cf);
	if (o->lock)
		sfs_lock_free(o->lock);
	free(o->lock);
	o->lock = NULL;
}
