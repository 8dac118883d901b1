/*
 * main.c - skillsfs-mcp: options, start-up checks, and the stdio loop.
 *
 *   skillsfs-mcp [--mount MOUNT] [--skills-dir DIR]... [--config FILE]
 *                [--docs-dir DIR] [--linger SECONDS] [--trust WORD]
 *                [--audit-log FILE]
 *                [--http ADDR:PORT [--token-file FILE]]
 *   skillsfs-mcp instructions [--no-xml]
 *
 * Which mount is served, and who keeps it, is automount.c's business;
 * --http serves over HTTP instead of stdio (http.c).
 *
 * Stdout carries protocol messages only, one per line, flushed each;
 * everything else goes to stderr.  EOF on stdin ends the server at once
 * (exit 0), as do SIGTERM and SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "automount.h"
#include "cli.h"
#include "http.h"
#include "instructions.h"
#include "jsonrpc.h"
#include "contract.h"
#include "mount.h"
#include "selection.h"
#include "server.h"
#include "skillsfs.h"

#define PROG "skillsfs-mcp"
/* "skillsfs-mcp: MESSAGE", a pointer to --help; returns 2. */
#define usage_error(...) cli_usage_error(PROG, __VA_ARGS__)
#define IDLE_CHECK_MS 1000
#define MOUNT_TIMEOUT_MS 15000
/* How long a shared mount outlives its last session: a client that
 * restarts its server finds the mount still there. */
#define LINGER_MS 5000
#define PLAIN_DIR_ENV "SKILLSFS_MCP_ALLOW_PLAIN_DIR"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const char usage_text[] =
	"Usage: skillsfs-mcp --skills-dir DIR... [--config FILE] [--docs-dir DIR]\n"
	"                    [--linger SECONDS] [--trust WORD] [--audit-log FILE]\n"
	"                    [--http ADDR:PORT [--token-file FILE]]\n"
	"       skillsfs-mcp --mount MOUNT [--skills-dir DIR]... [--config FILE]\n"
	"                    [--docs-dir DIR] [--audit-log FILE]\n"
	"                    [--http ADDR:PORT [--token-file FILE]]\n"
	"       (either with [--view NAME])\n"
	"       skillsfs-mcp instructions [--no-xml]\n"
	"       skillsfs-mcp --help | --version\n"
	"\n"
	"An MCP server on stdin/stdout (or over HTTP) for the skills of a\n"
	"skillsfs mount; it hands out absolute paths inside the mount.  Given\n"
	"folders and no --mount, it uses a private mount of exactly those\n"
	"folders under $XDG_RUNTIME_DIR/skillsfs (else /tmp/skillsfs-UID),\n"
	"shared by the sessions with the same folders and gone after the\n"
	"last one ends.\n"
	"\n"
	"  -s, --skills-dir DIR    a skills folder to serve; repeat for more\n"
	"  -c, --config FILE       a skillsfs configuration file (skillsfs(5)):\n"
	"                          its roots and options; without --skills-dir\n"
	"                          its mountpoint, if any, is the default MOUNT\n"
	"  -D, --docs-dir DIR      also serve the markdown files under DIR as\n"
	"                          resource://docs/{path}\n"
	"  -m, --mount MOUNT       serve the skillsfs mount at MOUNT; with\n"
	"                          folders, mount them there when nothing is;\n"
	"                          a mount of other folders is refused\n"
	"  -l, --linger SECONDS    how long a mount outlives its last session\n"
	"                          (default 5)\n"
	"  -T, --trust WORD        the mount's trust policy (skillsfs -o trust=):\n"
	"                          report, withhold or hold; in a --config file,\n"
	"                          options: trust: WORD does the same\n"
	"  -a, --audit-log FILE    append one JSON line per request to FILE\n"
	"  -w, --view NAME         list_skills and skills/list list the skills\n"
	"                          of the mount's view NAME (views/NAME)\n"
	"  -H, --http ADDR:PORT    serve MCP over Streamable HTTP at\n"
	"                          http://ADDR:PORT/mcp instead of stdio; PORT\n"
	"                          alone is 127.0.0.1:PORT, [::1]:PORT is IPv6,\n"
	"                          port 0 any free one (the URL served is\n"
	"                          printed on stderr); an address other than\n"
	"                          loopback needs --token-file\n"
	"  -t, --token-file FILE   with --http: every request must carry\n"
	"                          Authorization: Bearer TOKEN, TOKEN the first\n"
	"                          line of FILE (mode 0600); without it, a new\n"
	"                          token is written to RUNDIR/http-ADDR-PORT.token\n"
	"                          (RUNDIR: $XDG_RUNTIME_DIR/skillsfs, else\n"
	"                          /tmp/skillsfs-UID), its path printed on stderr\n"
	"  -h, --help              show this help\n"
	"  -V, --version           show the version\n"
	"\n"
	"  instructions            print the usage guide for agents, in\n"
	"                          <skills-mcp-instructions> tags unless --no-xml\n"
	"\n"
	"A " SFS_PROJECT_FILE " in the current folder or one above it narrows\n"
	"what the session lists (include, exclude) and lists its pins first.\n"
	"\n"
	"Environment: " PLAIN_DIR_ENV "=1 accepts a plain folder laid out\n"
	"like a mount (a test aid: skips only the filesystem type check).\n";

static int instructions_main(int argc, char **argv)
{
	bool xml = true;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-xml") == 0) {
			xml = false;
		} else if (strcmp(argv[i], "--version") == 0 ||
			   strcmp(argv[i], "-V") == 0) {
			return cli_version(PROG " instructions");
		} else if (strcmp(argv[i], "--help") == 0 ||
			   strcmp(argv[i], "-h") == 0) {
			puts("Usage: skillsfs-mcp instructions [--no-xml]\n"
			     "\n"
			     "Prints the usage guide for agents (the text of the init-skills\n"
			     "prompt and of the server's instructions), wrapped in\n"
			     "<skills-mcp-instructions> tags unless --no-xml is given.\n"
			     "For example: skillsfs-mcp instructions >> AGENTS.md");
			return 0;
		} else {
			return usage_error("instructions: unknown argument '%s'",
					   argv[i]);
		}
	}
	return instructions_print(xml);
}

struct options {
	const char *mount;
	char **dirs;
	size_t ndirs;
	const char *audit_log;
	const char *config;
	const char *docs_dir;
	const char *trust;             /* --trust WORD, or NULL */
	struct sfs_config_file cf;
	unsigned linger_ms;
	const char *http;
	const char *token_file;
	struct http_listen listen;
	const char *view;
	struct sfs_view_def project;   /* of the project file, if any */
	bool has_project;
};

static void options_free(struct options *o)
{
	free(o->dirs);
	sfs_config_file_free(&o->cf);
	sfs_view_def_free(&o->project);
}

/* --http and --token-file; returns -1 to go on, or an exit status. */
static int check_http(struct options *o)
{
	const char *why;

	if (!o->http) {
		if (o->token_file)
			return usage_error("--token-file goes with --http ADDR:PORT");
		return -1;
	}
	if ((why = http_listen_parse(o->http, &o->listen)))
		return usage_error("--http %s: %s", o->http, why);
	if (!o->listen.loopback && !o->token_file)
		return usage_error("--http %s serves beyond this machine: give "
				   "--token-file FILE, whose first line is the "
				   "bearer token every request must carry, or "
				   "listen on 127.0.0.1 or [::1]", o->http);
	return -1;
}

/* An option of skillsfs-mcp that is more than a text or a flag
 * (cli_parse.take): -1 to go on, or an exit status. */
static int take_option(void *opts, int c, char *arg)
{
	struct options *o = opts;

	switch (c) {
	case 'm':
		if (o->mount)
			return usage_error("--mount given twice");
		o->mount = arg;
		return -1;
	case 's': {
		char **p = realloc(o->dirs, (o->ndirs + 1) * sizeof(*p));
		if (!p)
			return 1;
		o->dirs = p;
		o->dirs[o->ndirs++] = arg;
		return -1;
	}
	case 'l': {
		char *end;
		errno = 0;
		double sec = strtod(arg, &end);
		if (errno || end == arg || *end || !(sec >= 0) || sec > 3600)
			return usage_error("--linger needs seconds, 0 to 3600");
		o->linger_ms = (unsigned)(sec * 1000);
		return -1;
	}
	case 'D':
		if (!*arg)
			return usage_error("--docs-dir needs a folder");
		o->docs_dir = arg;
		return -1;
	case 'T': {
		long word;
		char expected[64];
		const struct sfs_opt_row *row = sfs_opt_row(SFS_OPT_TRUST);
		if (sfs_opt_number(row, arg, &word) < 0) {
			sfs_opt_expected(row, expected, sizeof(expected));
			return usage_error("--trust %s: expected %s", arg,
			                   expected);
		}
		o->trust = arg;
		return -1;
	}
	default:   /* 'w' */
		if (!sfs_skill_id_valid(arg, strlen(arg)))
			return usage_error("--view needs a view's name "
			                   "(claude-code, codex, ...)");
		o->view = arg;
		return -1;
	}
}

/* Returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct cli_option own[] = {
		CLI_TAKEN("mount", required_argument, 'm'),
		CLI_TAKEN("skills-dir", required_argument, 's'),
		CLI_TEXT("audit-log", 'a', struct options, audit_log),
		CLI_TEXT("config", 'c', struct options, config),
		CLI_TAKEN("docs-dir", required_argument, 'D'),
		CLI_TAKEN("linger", required_argument, 'l'),
		CLI_TAKEN("trust", required_argument, 'T'),
		CLI_TEXT("http", 'H', struct options, http),
		CLI_TEXT("token-file", 't', struct options, token_file),
		CLI_TAKEN("view", required_argument, 'w'),
		{ NULL, 0, 0, 0 },
	};
	static const struct cli_parse parse = {
		.cmd = PROG, .usage = usage_text, .own = own,
		.optstring = ":m:s:a:c:D:l:T:H:t:w:hV", .take = take_option,
	};
	int status = cli_parse_args(&parse, argc, argv, o, NULL, NULL);

	if (status >= 0)
		return status;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->config && conffile_load(PROG, o->config, &o->cf) < 0)
		return CLI_EXIT_USAGE;
	if (!o->mount && !o->ndirs)
		o->mount = o->cf.mountpoint;
	if (!o->mount && !o->ndirs && !o->config)
		return usage_error("give --skills-dir DIR (or --config FILE), "
				   "or the --mount MOUNT to serve");
	for (size_t i = 0; i < o->ndirs; i++)
		if (!*o->dirs[i])
			return usage_error("--skills-dir needs a folder");
	return check_http(o);
}

/* ---- the stdio loop --------------------------------------------------- */

static bool output_failed;

static void emit_stdout(void *arg, const char *text, size_t len)
{
	(void)arg;
	if (output_failed)
		return;
	if (fwrite(text, 1, len, stdout) != len || putchar('\n') == EOF ||
	    fflush(stdout) != 0)
		output_failed = true;
}

static void on_line(void *arg, const char *line, size_t len)
{
	mcp_server_handle_line(arg, line, len);
}

static void on_overflow(void *arg)
{
	mcp_server_oversized(arg);
}

static void serve(struct mcp_server *s)
{
	struct line_reader reader = { 0 };
	static char chunk[65536];

	while (!stop_signal && !output_failed) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int rc = poll(&pfd, 1, IDLE_CHECK_MS);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "skillsfs-mcp: poll: %s\n", strerror(errno));
			break;
		}
		if (rc == 0) {
			mcp_server_tick(s);
			continue;
		}
		ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fprintf(stderr, "skillsfs-mcp: reading stdin: %s\n",
				strerror(errno));
			break;
		}
		if (n == 0) {
			if (line_reader_pending(&reader))
				fprintf(stderr, "skillsfs-mcp: dropping %zu bytes of an "
					"unterminated message at end of input\n",
					line_reader_pending(&reader));
			break;
		}
		line_reader_feed(&reader, chunk, (size_t)n, on_line, on_overflow, s);
	}
	line_reader_free(&reader);
}

static int remount(void *arg)
{
	return automount_recover(arg, MOUNT_TIMEOUT_MS, &stop_signal);
}

static int serve_stdio(const struct mcp_config *cfg)
{
	struct mcp_server *s = mcp_server_new(cfg);

	if (!s) {
		fprintf(stderr, "skillsfs-mcp: out of memory\n");
		return 1;
	}
	serve(s);
	if (stop_signal)
		mcp_server_shutdown(s);
	mcp_server_free(s);
	return 0;
}

/* The token, read before anything else is done: a mistake in the
 * command line is found before a mount is made. */
static int read_token(const struct options *o, char **token)
{
	*token = NULL;
	if (o->token_file && http_token_read(PROG, o->token_file, token) < 0)
		return CLI_EXIT_USAGE;
	return 0;
}

static int serve_http(const struct options *o, int listen_fd, const char *token,
                      const struct mcp_config *cfg)
{
	struct http_config hc = {
		.listen = &o->listen,
		.listen_fd = listen_fd,
		.token = token,
		.server = *cfg,
	};

	return http_serve(&hc, &stop_signal);
}

int main(int argc, char **argv)
{
	struct options o = { .linger_ms = LINGER_MS };
	struct automount am = { .hold_fd = -1 };
	int audit_fd = -1, listen_fd = -1, status = 0;
	char *token = NULL, *token_path = NULL;

	if (argc > 1 && strcmp(argv[1], "instructions") == 0)
		return instructions_main(argc - 1, argv + 1);

	sfs_config_file_free(&o.cf);   /* all unset */
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0) {
		options_free(&o);
		return rc;
	}

	if (o.http && (status = read_token(&o, &token)) != 0)
		goto out;
	if (o.http && (listen_fd = http_listen_open(&o.listen)) < 0) {
		fprintf(stderr, "skillsfs-mcp: cannot listen on %s: %s%s\n", o.http,
			strerror(-listen_fd), listen_fd == -EADDRINUSE
			? ": pick another port, or 0 for any free one" : "");
		status = 1;
		goto out;
	}
	/* Every local account can reach a loopback port: without a token of
	 * the user's own, any of them would read what the mount denies it. */
	if (o.http && !token) {
		if (http_token_generate(PROG, &o.listen, &token, &token_path) < 0) {
			status = 1;
			goto out;
		}
		fprintf(stderr, "skillsfs-mcp: bearer token in %s: every request "
			"must carry Authorization: Bearer TOKEN, TOKEN its first "
			"line\n", token_path);
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is an error, not a kill */

	if (o.audit_log && (audit_fd = audit_open(o.audit_log)) < 0) {
		fprintf(stderr, "skillsfs-mcp: cannot open the audit log %s: %s\n",
			o.audit_log, strerror(-audit_fd));
		status = 1;
		goto out;
	}
	struct automount_spec spec = {
		.mount = o.mount,
		.dirs = o.dirs,
		.ndirs = o.ndirs,
		.config = o.config,
		.cf = o.config ? &o.cf : NULL,
		.docs_dir = o.docs_dir,
		.trust = o.trust,
		.linger_ms = o.linger_ms,
		.plain_ok = getenv(PLAIN_DIR_ENV) &&
			    strcmp(getenv(PLAIN_DIR_ENV), "1") == 0,
	};
	if (automount_open(&am, &spec, MOUNT_TIMEOUT_MS, &stop_signal) != 0) {
		status = 1;
		goto out;
	}

	char cwd[4096];
	o.has_project = getcwd(cwd, sizeof(cwd)) &&
	                selection_project(cwd, &o.project) == 1;
	struct mcp_config cfg = {
		.mount = am.mount,
		.emit = emit_stdout,
		.audit_fd = audit_fd,
		.remount = remount,
		.remount_arg = &am,
		.view = o.view,
		.project = o.has_project ? &o.project : NULL,
	};
	if (o.http) {
		status = serve_http(&o, listen_fd, token, &cfg);
		listen_fd = -1;   /* http_serve closed it */
	} else {
		status = serve_stdio(&cfg);
	}
out:
	automount_close(&am);
	if (listen_fd >= 0)
		close(listen_fd);
	if (audit_fd >= 0)
		close(audit_fd);
	if (token_path)   /* the token dies with the server */
		unlink(token_path);
	free(token_path);
	free(token);
	options_free(&o);
	return status;
}
