/*
 * command.c - what every skillsfs command does with its command line
 * before it does its own work, once for all of them (cli.h's struct
 * cli_command): its own options and the common ones, its operands, the
 * configuration file, and the exit status; and which command argv[1]
 * names.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The common options, after the command's own (cli_skills_option): a
 * command that reads skills takes them all, one that reads its
 * configuration only from --config on; --help and --version every one
 * (parse.c). */
static const struct cli_option common[] = {
	CLI_TAKEN("skills-dir", required_argument, 'd'),
	CLI_TAKEN("source", required_argument, 'S'),
	CLI_TAKEN("config", required_argument, 'c'),
	{ NULL, 0, 0, 0 },
};
static const size_t first_common[] = {
	[CLI_READS_SKILLS] = 0, [CLI_READS_CONFIG] = 2,
	[CLI_READS_NOTHING] = 3,
};

/* The operands after the options; -1 to go on, or the exit status. */
static int take_operands(const struct cli_command *c, void *opts,
                         struct cli_skills *skills, int argc, char **argv)
{
	int n = argc - optind;

	if (c->max_operands == CLI_OPERANDS_ROOTS) {
		/* after "--": each one a skills folder */
		for (int i = optind; i < argc; i++)
			if (roots_add(&skills->roots, argv[i],
			              "--skills-dir") < 0)
				return cli_usage_error(c->name, "cannot use "
				                       "skills folder '%s'",
				                       argv[i]);
		n = 0;
	} else if (n > c->max_operands) {
		return cli_usage_error(c->name, "unexpected argument '%s'",
		                       argv[optind + c->max_operands]);
	}
	return c->operands ? c->operands(opts, argv + optind, n) : -1;
}

int cli_command_parse(const struct cli_command *c, int argc, char **argv,
                      void *opts, struct cli_skills *skills)
{
	const struct cli_parse p = {
		.cmd = c->name, .usage = c->usage, .optstring = c->optstring,
		.own = c->options, .common = common + first_common[c->reads],
	};

	cli_skills_init(skills);
	skills->fetch_must_succeed = c->fetch_must_succeed;
	int status = cli_parse_args(&p, argc, argv, opts, cli_skills_option,
	                            skills);
	if (status < 0)
		status = take_operands(c, opts, skills, argc, argv);
	if (status < 0 && c->reads == CLI_READS_SKILLS)
		status = cli_skills_finish(c->name, skills);
	else if (status < 0 && c->reads == CLI_READS_CONFIG)
		status = cli_skills_config(c->name, skills);
	return status;
}

int cli_command_read_config(const struct cli_command *c, int argc,
                            char **argv, struct cli_skills *skills)
{
	void *opts = calloc(1, c->opts_size);

	if (!opts) {
		cli_skills_init(skills);
		return cli_fail(c->name, "%s", strerror(ENOMEM));
	}
	int status = cli_command_parse(c, argc, argv, opts, skills);
	free(opts);
	return status;
}

/* The catalog of the roots, to c->run_catalog. */
static int run_catalog(const struct cli_command *c, void *opts,
                       struct cli_skills *skills)
{
	bool strict = c->strict && c->strict(opts, skills);
	sfs_catalog *cat;
	int status = cli_skills_build(c->name, skills, strict, &cat);

	if (status < 0) {
		status = c->run_catalog(opts, skills, cat);
		sfs_catalog_unref(cat);
	}
	return status;
}

int cli_command_run(const struct cli_command *c, int argc, char **argv)
{
	struct cli_skills skills;
	void *opts = calloc(1, c->opts_size);
	int status = opts ? cli_command_parse(c, argc, argv, opts, &skills) :
	             cli_fail(c->name, "%s", strerror(ENOMEM));

	if (status < 0)
		status = c->run_catalog ? run_catalog(c, opts, &skills) :
		         c->run(opts, &skills);
	if (opts)
		cli_skills_free(&skills);
	free(opts);
	return status;
}

int cli_main(int argc, char **argv)
{
	static const struct cli_command *const commands[] = {
		&check_command, &export_command, &lock_command,
		&status_command, &gc_command,
	};
	static const char prog[] = "skillsfs ";

	for (size_t i = 0; argc > 1 && i < sizeof(commands) /
	                                   sizeof(commands[0]); i++)
		if (strcmp(commands[i]->name + strlen(prog), argv[1]) == 0)
			return cli_command_run(commands[i], argc - 1,
			                       argv + 1);
	return -1;
}
