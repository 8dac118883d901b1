/*
 * check.c - `skillsfs check`: builds a catalog once and prints every
 * finding the way compilers do, so that editors and CI can jump to it.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "skillsfs.h"

enum { EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
	"usage: skillsfs check [--skills-dir DIR]... [--strict] [--json]\n"
	"\n"
	"Validate skills folders and print every finding as\n"
	"FILE:LINE:COL: error|warning: FIELD: MESSAGE, then a summary line.\n"
	"\n"
	"  --skills-dir DIR  a folder of skills; repeat it for more, the first\n"
	"                    one to provide a skill id wins (default: the\n"
	"                    colon-separated list in $SKILLSFS_SKILLS_DIRS)\n"
	"  --strict          treat every warning as an error\n"
	"  --json            print the findings and the summary as JSON\n"
	"  --help            print this help and exit\n"
	"\n"
	"Exit status: 0 without errors, 1 with errors, 2 on a usage error.\n";

struct check_opts {
	struct roots roots;
	bool strict, json;
};

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("skillsfs check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'skillsfs check --help'.\n", stderr);
	return EXIT_USAGE;
}

/* Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct check_opts *o)
{
	static const struct option longopts[] = {
		{ "skills-dir", required_argument, NULL, 'd' },
		{ "strict", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (roots_add(&o->roots, optarg, "--skills-dir") < 0)
				return usage_error("cannot use skills folder '%s'",
				                   optarg);
			break;
		case 's':
			o->strict = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			return usage_error("option '%s' needs a value",
			                   argv[optind - 1]);
		default:
			if (optopt) {   /* a short option, maybe in a group */
				char opt[3] = { '-', (char)optopt, '\0' };
				return usage_error("unknown option '%s'", opt);
			}
			return usage_error("unknown option '%s'",
			                   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->roots.n == 0 && roots_from_env(&o->roots) < 0)
		return usage_error("%s", "cannot read SKILLSFS_SKILLS_DIRS");
	if (o->roots.n == 0) {
		fputs("skillsfs check: no skills folders: give --skills-dir DIR "
		      "or set SKILLSFS_SKILLS_DIRS\n", stderr);
		return EXIT_USAGE;
	}
	return -1;
}

/* FILE:LINE:COL: SEVERITY: FIELD: MESSAGE */
static void print_diag(const struct sfs_diag *d, void *arg)
{
	FILE *out = arg;

	fputs(d->file, out);
	if (d->line) {
		fprintf(out, ":%u", d->line);
		if (d->column)
			fprintf(out, ":%u", d->column);
	}
	fprintf(out, ": %s: ", d->severity == SFS_ERROR ? "error" : "warning");
	if (d->field[0])
		fprintf(out, "%s: ", d->field);
	fprintf(out, "%s\n", d->message);
}

static int report(const sfs_catalog *cat, bool json)
{
	struct sfs_counts n = sfs_catalog_counts(cat);

	if (json) {
		char *text = sfs_render_findings(cat);
		if (!text) {
			fputs("skillsfs check: out of memory\n", stderr);
			return EXIT_FINDINGS;
		}
		fputs(text, stdout);
		free(text);
	} else {
		sfs_catalog_each_diag(cat, print_diag, stdout);
		printf("%zu skills, %zu errors, %zu warnings, %zu shadowed\n",
		       n.served + n.invalid + n.shadowed, n.errors, n.warnings,
		       n.shadowed);
	}
	if (fflush(stdout) != 0) {
		perror("skillsfs check: stdout");
		return EXIT_FINDINGS;
	}
	return n.errors ? EXIT_FINDINGS : 0;
}

int check_main(int argc, char **argv)
{
	struct check_opts o = { 0 };

	int status = parse_args(argc, argv, &o);
	if (status >= 0) {
		roots_free(&o.roots);
		return status;
	}

	struct sfs_config cfg = {
		.roots = (const char *const *)o.roots.paths,
		.nroots = o.roots.n,
		.strict = o.strict,
	};
	sfs_catalog *cat;
	int rc = sfs_catalog_build(&cfg, NULL, &cat);
	if (rc < 0) {
		fprintf(stderr, "skillsfs check: cannot build the catalog: %s\n",
		        strerror(-rc));
		roots_free(&o.roots);
		return EXIT_FINDINGS;
	}
	status = report(cat, o.json);
	sfs_catalog_unref(cat);
	roots_free(&o.roots);
	return status;
}
