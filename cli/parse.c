/*
 * parse.c - a program's command line, for skillsfs's commands and for
 * skillsfs-mcp alike (cli.h's struct cli_parse): getopt_long over the
 * program's own options, each stored in its struct of options by its
 * table (a flag, a text) or handed to its take(), then the common ones
 * the caller handles, then --help and --version.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct option help_version[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static size_t count(const struct cli_option *v)
{
	size_t n = 0;

	while (v && v[n].name)
		n++;
	return n;
}

/* getopt_long's rows of v into out; how many. */
static size_t rows_of(const struct cli_option *v, struct option *out)
{
	size_t n = count(v);

	for (size_t i = 0; i < n; i++)
		out[i] = (struct option){ v[i].name, v[i].has_arg, NULL,
		                          v[i].letter };
	return n;
}

static const struct cli_option *find(const struct cli_option *v, int letter)
{
	for (size_t i = 0; v && v[i].name; i++)
		if (v[i].letter == letter)
			return &v[i];
	return NULL;
}

/* An own option: into its field, or to take(). */
static int take_own(const struct cli_parse *p, const struct cli_option *o,
                    void *opts)
{
	if (o->offset == CLI_NO_FIELD)
		return p->take(opts, o->letter, optarg);
	char *field = (char *)opts + o->offset;
	if (o->has_arg == no_argument)
		*(bool *)field = true;
	else
		*(const char **)field = optarg;
	return -1;
}

int cli_parse_args(const struct cli_parse *p, int argc, char **argv,
                   void *opts, cli_common_fn *common, void *common_arg)
{
	size_t n = count(p->own) + count(p->common);
	struct option *v = calloc(n + 3, sizeof(*v));
	int c, status = -1;

	if (!v)
		return cli_fail(p->cmd, "%s", strerror(ENOMEM));
	n = rows_of(p->own, v);
	n += rows_of(p->common, v + n);
	memcpy(v + n, help_version, sizeof(help_version));
	opterr = 0;   /* errors are ours to print */
	optind = 1;
	while (status < 0 &&
	       (c = getopt_long(argc, argv, p->optstring, v, NULL)) != -1) {
		const struct cli_option *own = find(p->own, c);
		if (own)
			status = take_own(p, own, opts);
		else if (c == 'h')
			status = fputs(p->usage, stdout) < 0;
		else if (c == 'V')
			status = cli_version(p->cmd);
		else if (common)
			status = common(common_arg, p->cmd, c, argv);
		else
			status = cli_option_error(p->cmd, c, argv);
	}
	free(v);
	return status;
}
