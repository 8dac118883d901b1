/*
 * check.c - `skillsfs check`: builds a catalog once and prints every
 * finding the way compilers do, so that editors and CI can jump to it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "skillsfs.h"

#define CMD "skillsfs check"

static const char usage_text[] =
	"usage: skillsfs check [--skills-dir DIR]... [--source URL]... [--strict]\n"
	"                      [--json] [--config FILE] [DIR]...\n"
	"\n"
	"Validate skills folders and print every finding as\n"
	"FILE:LINE:COL: error|warning: FIELD: MESSAGE, then a summary line;\n"
	"a security finding names its rule and risk in place of the field:\n"
	"FILE:LINE:COL: warning: security/RULE (high|medium|low): MESSAGE.\n"
	"\n"
	"  --skills-dir DIR  a folder of skills; repeat it for more, the first\n"
	"                    one to provide a skill id wins (default: the\n"
	"                    config file's roots, else the colon-separated list\n"
	"                    in $SKILLSFS_SKILLS_DIRS, else the standard skill\n"
	"                    folders of agents that exist, ~/.agents/skills,\n"
	"                    ~/.claude/skills, ./.agents/skills, ... (see\n"
	"                    skillsfs(1))\n"
	"  DIR               the same as --skills-dir DIR\n"
	"  --source URL      a source named by a URL, as for the mount (a git\n"
	"                    repository, an MCP server, ...: skillsfs --help\n"
	"                    lists every kind), fetched first\n"
	"  --config FILE     roots, strict and include/exclude patterns from a\n"
	"                    YAML file (skillsfs(5)); the command line wins\n"
	"  --strict          treat every warning as an error\n"
	"  --json            print the findings and the summary as JSON\n"
	"  --help            print this help and exit\n"
	"  --version         print the version and exit\n"
	"\n"
	"Exit status: 0 without errors, 1 with errors, 2 on a usage error.\n";

struct check_opts {
	bool strict, json;
};

static const struct cli_option options[] = {
	CLI_FLAG("strict", 's', struct check_opts, strict),
	CLI_FLAG("json", 'j', struct check_opts, json),
	{ NULL, 0, 0, 0 },
};

/* FILE:LINE:COL: SEVERITY: FIELD: MESSAGE; a security finding has its
 * rule and risk where the field goes: "security/fetch-exec (high)".
 * The file's name and the message quote the skill's author: written
 * visible, so that they cannot steer the terminal or forge a line. */
static void print_diag(const struct sfs_diag *d, void *arg)
{
	FILE *out = arg;

	cli_put_visible(out, d->file);
	if (d->line) {
		fprintf(out, ":%u", d->line);
		if (d->column)
			fprintf(out, ":%u", d->column);
	}
	fprintf(out, ": %s: ", d->severity == SFS_ERROR ? "error" : "warning");
	if (d->rule)
		cli_printf_visible(out, "%s (%s): ", d->rule,
		                   sfs_risk_name(d->risk));
	else if (d->field[0])
		cli_printf_visible(out, "%s: ", d->field);
	cli_line_visible(out, "%s", d->message);
}

/* "  - {skill: ID, rule: RULE, digest: sha256:...}", for accept: */
static void print_accept(const struct sfs_accept *a, void *arg)
{
	bool *first = arg;
	char digest[SFS_DIGEST_LEN];

	if (*first)
		fputs("to accept a high finding after review, a configuration "
		      "file's\naccept: takes (for this content only):\n", stdout);
	*first = false;
	sfs_format_digest(a->digest, digest);
	cli_line_visible(stdout, "  - {skill: %s, rule: %s, digest: %s}",
	                 a->skill, a->rule, digest);
}

static int report(const sfs_catalog *cat, bool json)
{
	struct sfs_counts n = sfs_catalog_counts(cat);

	if (json) {
		char *text = sfs_render_findings(cat);
		if (!text) {
			return cli_fail(CMD, "%s", strerror(ENOMEM));
		}
		fputs(text, stdout);
		free(text);
	} else {
		bool first = true;
		sfs_catalog_each_diag(cat, print_diag, stdout);
		if (sfs_catalog_each_accept(cat, print_accept, &first) < 0)
			return cli_fail(CMD, "%s", strerror(ENOMEM));
		printf("%zu skills, %zu errors, %zu warnings, %zu shadowed\n",
		       n.served + n.invalid + n.shadowed + n.unlocked +
		       n.withheld,
		       n.errors, n.warnings,
		       n.shadowed);
	}
	if (fflush(stdout) != 0)
		return cli_fail(CMD, "stdout: %s", strerror(errno));
	return n.errors ? CLI_EXIT_FAILED : 0;
}

/* --strict, or the configuration's strict: true */
static bool strict(const void *opts, const struct cli_skills *skills)
{
	const struct check_opts *o = opts;

	return o->strict || skills->cf.options[SFS_OPT_STRICT].number == 1;
}

static int run(void *opts, struct cli_skills *skills, sfs_catalog *cat)
{
	const struct check_opts *o = opts;

	(void)skills;
	return report(cat, o->json);
}

/* "-": a folder named without --skills-dir comes as 1, in its place
 * among the others, so precedence follows the command line. */
const struct cli_command check_command = {
	.name = CMD, .usage = usage_text, .optstring = "-:hV",
	.options = options, .opts_size = sizeof(struct check_opts),
	.max_operands = CLI_OPERANDS_ROOTS, .strict = strict,
	.run_catalog = run,
};
