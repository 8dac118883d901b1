/*
 * usage.c - how a command of the skillsfs programs tells its user what
 * went wrong, in one voice: "CMD: MESSAGE", then for a usage error a
 * pointer to --help and exit status 2.  A message names paths, URLs and
 * what a server said: it is written visible (visible.c).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config.h"

__attribute__((format(printf, 2, 0)))
static void vsay(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cmd);
	cli_vprintf_visible(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_say(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(cmd, fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", cmd);
	return CLI_EXIT_USAGE;
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(cmd, fmt, ap);
	va_end(ap);
	return CLI_EXIT_FAILED;
}

int cli_option_error(const char *cmd, int c, char *const argv[])
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
		                       argv[optind - 1]);
	if (optopt) {   /* a short option, maybe in a group */
		char opt[3] = { '-', (char)optopt, '\0' };
		return cli_usage_error(cmd, "unknown option '%s'", opt);
	}
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_version(const char *cmd)
{
	printf("%s %s\n", cmd, SKILLSFS_VERSION);
	return 0;
}

void cli_print_size(long long bytes)
{
	if (bytes < 1024)
		printf("%lld bytes", bytes);
	else if (bytes < 1024 * 1024)
		printf("%.1f KiB", (double)bytes / 1024);
	else if (bytes < 1024LL * 1024 * 1024)
		printf("%.1f MiB", (double)bytes / (1024 * 1024));
	else
		printf("%.1f GiB", (double)bytes / (1024 * 1024 * 1024));
}
