/*
 * test_cli_config.c - one configuration for every command: check, export,
 * status and gc each read --config FILE through the parse that runs them
 * (cli_command_parse, with each command's own options and operands), and
 * each must come out with what the one reader
 * (sfs_config_file_read, through cli_skills_config) makes of the file: the
 * same sources with their token files, the same options, the same
 * include patterns; and the same refusal of a file it cannot take.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fixture.h"

static const struct {
	const char *name;
	const struct cli_command *command;
	const char *extra;     /* what else its command line needs, or NULL */
} commands[] = {
	{ "check", &check_command, NULL },
	{ "export", &export_command, "--anthropic=out" },
	{ "status", &status_command, NULL },
	{ "gc", &gc_command, "--dry-run" },
};

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Whether the command's reading of the file is the reader's. */
static bool same_config(const struct sfs_config_file *a,
                        const struct sfs_config_file *b)
{
	bool same = a->nsources == b->nsources && a->ninclude == b->ninclude &&
	            same_text(a->lock, b->lock);

	for (size_t i = 0; same && i < a->nsources; i++)
		same = same_text(a->sources[i], b->sources[i]) &&
		       same_text(a->source_token_files[i],
		                 b->source_token_files[i]);
	for (size_t i = 0; same && i < a->ninclude; i++)
		same = same_text(a->include[i], b->include[i]);
	for (int id = 0; same && id < SFS_NOPTS; id++)
		same = a->options[id].given == b->options[id].given &&
		       a->options[id].number == b->options[id].number &&
		       same_text(a->options[id].text, b->options[id].text);
	return same;
}

static int run(size_t k, const char *conf, struct cli_skills *o)
{
	char *argv[] = { (char *)commands[k].name, "--config", (char *)conf,
	                 (char *)commands[k].extra, NULL };

	return cli_command_read_config(commands[k].command,
	                               commands[k].extra ? 4 : 3, argv, o);
}

int main(void)
{
	fixture_start("cli_config");
	const char *token = write_file(at("token"), "secret\n");
	chmod(token, 0600);
	mkdirs(at("skills"));
	mkdirs(at("cache"));
	char *text;
	if (asprintf(&text, "roots:\n  - %s/skills\n"
	             "sources:\n"
	             "  - url: mcp+https://skills.example.com/mcp\n"
	             "    token_file: %s/token\n"
	             "  - url: git+https://example.com/team/skills.git"
	             "#main:skills\n"
	             "include:\n  - 'pdf-*'\n"
	             "options:\n  cache_dir: %s/cache\n  cache_max: 512M\n"
	             "  fetch_interval: 60\n", top, top, top) < 0)
		die("asprintf");
	const char *conf = write_file(at("skillsfs.yaml"), text);
	free(text);
	struct sfs_config_file want;
	struct sfs_config_error err;
	ok(sfs_config_file_read(conf, getenv("HOME"), &want, &err) == 0,
	   "the reader takes the file (%s)", err.message);
	ok(want.options[SFS_OPT_CACHE_MAX].number == 512L << 20 &&
	   want.nsources == 2 && want.source_token_files[0],
	   "cache_max 512M, two sources, a token file");

	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		struct cli_skills o;
		int status = run(k, conf, &o);
		ok(status == -1, "skillsfs %s takes --config (%d)",
		   commands[k].name, status);
		ok(same_config(&o.cf, &want), "skillsfs %s reads it as the "
		   "reader does", commands[k].name);
		cli_skills_free(&o);
	}

	/* a file the reader refuses, every command refuses as a usage error */
	const char *bad = write_file(at("bad.yaml"),
	                             "options:\n  cache_max: 12Q\n");
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		struct cli_skills o;
		int status = run(k, bad, &o);
		ok(status == CLI_EXIT_USAGE, "skillsfs %s refuses cache_max: "
		   "12Q (%d)", commands[k].name, status);
		cli_skills_free(&o);
	}
	sfs_config_file_free(&want);
	clear_top();
	return tap_end();
}
