/*
 * test_config.c - the configuration file reader (shared/config.c): every
 * key, path resolution, and an error naming the file, line and key for
 * everything the file gets wrong.  Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "skillsfs.h"

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Whether the file gave option id, with that value. */
static bool given(const struct sfs_config_file *cf, enum sfs_opt id,
                  long value)
{
	return cf->options[id].given && cf->options[id].number == value;
}

static void test_full(void)
{
	const char *path = write_file(at("full.yaml"),
		"# every key\n"
		"roots:\n"
		"  - /srv/skills\n"
		"  - team\n"
		"  - ~/.agents/skills\n"
		"mountpoint: /mnt/skills\n"
		"docs_dir: docs\n"
		"include: [\"pdf-*\", \"team/*\"]\n"
		"exclude: '*-draft'\n"
		"options:\n"
		"  strict: true\n"
		"  nocasefallback: true\n"
		"  debounce: 250\n"
		"  poll_interval: 2000\n"
		"  retain: 64\n"
		"  polling: false\n"
		"  multithreaded: true\n"
		"  nonempty: false\n"
		"  allow_other: true\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;
	char want[4096];

	int rc = sfs_config_file_read(path, "/home/u", &cf, &err);
	ok(rc == 0, "a file with every key reads (%s)", err.message);
	if (rc != 0)
		return;
	ok(cf.nroots == 3 && streq(cf.roots[0], "/srv/skills"),
	   "absolute roots stay as written");
	snprintf(want, sizeof(want), "%s/team", top);
	ok(cf.nroots == 3 && streq(cf.roots[1], want),
	   "relative roots are taken against the file's folder (%s)",
	   cf.nroots == 3 ? cf.roots[1] : "");
	ok(cf.nroots == 3 && streq(cf.roots[2], "/home/u/.agents/skills"),
	   "~/ stands for the home folder");
	ok(streq(cf.mountpoint, "/mnt/skills"), "mountpoint");
	snprintf(want, sizeof(want), "%s/docs", top);
	ok(streq(cf.docs_dir, want), "docs_dir, relative to the file");
	ok(cf.ninclude == 2 && streq(cf.include[0], "pdf-*") &&
	   streq(cf.include[1], "team/*"), "include patterns");
	ok(cf.nexclude == 1 && streq(cf.exclude[0], "*-draft"),
	   "one pattern is a list of one");
	ok(given(&cf, SFS_OPT_STRICT, 1) &&
	   given(&cf, SFS_OPT_NOCASEFALLBACK, 1) &&
	   given(&cf, SFS_OPT_DEBOUNCE, 250) &&
	   given(&cf, SFS_OPT_POLL_INTERVAL, 2000) &&
	   given(&cf, SFS_OPT_POLLING, 0) &&
	   given(&cf, SFS_OPT_MULTITHREADED, 1) &&
	   given(&cf, SFS_OPT_NONEMPTY, 0) &&
	   given(&cf, SFS_OPT_ALLOW_OTHER, 1) &&
	   given(&cf, SFS_OPT_RETAIN, 64) &&
	   !cf.options[SFS_OPT_CASEFALLBACK].given &&
	   !cf.options[SFS_OPT_FETCH_INTERVAL].given,
	   "options: each in its row's slot, only those given");
	sfs_config_file_free(&cf);
	ok(cf.roots == NULL && cf.nroots == 0 &&
	   !cf.options[SFS_OPT_STRICT].given,
	   "free leaves an empty configuration");
}

static void test_empty(void)
{
	const char *path = write_file(at("empty.yaml"), "# nothing yet\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;

	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	ok(rc == 0 && cf.nroots == 0 && !cf.options[SFS_OPT_STRICT].given &&
	   !cf.options[SFS_OPT_DEBOUNCE].given &&
	   !cf.options[SFS_OPT_RETAIN].given && !cf.docs_dir,
	   "a file with comments only sets nothing");
	if (rc == 0)
		sfs_config_file_free(&cf);
}

/* Expects the text to be refused at `line` naming `key`, with a message
 * containing `words`. */
static void refused(const char *what, const char *text, unsigned line,
                    const char *key, const char *words)
{
	const char *path = write_file(at("bad.yaml"), text);
	struct sfs_config_file cf;
	struct sfs_config_error err;

	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	ok(rc == -EINVAL && err.line == line && streq(err.key, key) &&
	   strstr(err.message, words) && streq(err.file, path),
	   "%s: refused at line %u, key '%s' (got %d, line %u, key '%s', "
	   "'%s')", what, line, key, rc, err.line, err.key, err.message);
	if (rc == 0)
		sfs_config_file_free(&cf);
}

static void test_errors(void)
{
	refused("unknown key", "roots: [/a]\nmount_point: /m\n", 2,
	        "mount_point", "unknown key");
	refused("unknown option", "options:\n  strict: true\n  debounse: 5\n",
	        3, "options.debounse", "unknown option");
	refused("an option only the command line gives",
	        "options:\n  read_timeout: 5\n", 2, "options.read_timeout",
	        "unknown option (known: strict, nocasefallback");
	refused("not a boolean", "options:\n  strict: yes\n", 2,
	        "options.strict", "true or false");
	refused("not milliseconds", "options:\n  debounce: soon\n", 2,
	        "options.debounce", "milliseconds");
	refused("too many milliseconds", "options:\n  poll_interval: 99999999\n",
	        2, "options.poll_interval", "milliseconds");
	refused("too many mebibytes", "options:\n  retain: 65537\n",
	        2, "options.retain", "mebibytes");
	refused("duplicate key", "roots: [/a]\nroots: [/b]\n", 2, "roots",
	        "twice");
	refused("roots not a list", "roots:\n  a: b\n", 2, "roots",
	        "list of folder paths");
	refused("empty root", "roots: ['']\n", 1, "roots", "folder path");
	refused("null root", "roots: [~]\n", 1, "roots", "folder path");
	refused("~ without home", "roots: [~/skills]\n", 1, "roots", "HOME");
	refused("~user", "roots: [~bob/skills]\n", 1, "roots", "~/");
	refused("options not a mapping", "options: [strict]\n", 1, "options",
	        "mapping");
	refused("not a mapping", "- /a\n- /b\n", 1, "", "mapping");
	refused("broken YAML", "roots: [/a\nstrict: true\n", 2, "",
	        "not valid YAML");
}

static void test_sources(void)
{
	const char *path = write_file(at("sources.yaml"),
		"roots: [/srv/skills]\n"
		"sources:\n"
		"  - url: git+file:///srv/skills.git#main:skills\n"
		"  - url: 'git+https://example.com/team/skills.git'\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;

	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	ok(rc == 0 && cf.nroots == 1 && cf.nsources == 2 &&
	   streq(cf.sources[0], "git+file:///srv/skills.git#main:skills") &&
	   streq(cf.sources[1], "git+https://example.com/team/skills.git"),
	   "sources: each url, in file order (got %d: %s)", rc, err.message);
	if (rc == 0)
		sfs_config_file_free(&cf);

	refused("sources not a list", "sources: git+file:///x\n", 1,
	        "sources", "list of sources");
	refused("a source without a mapping", "sources:\n  - git+file:///x\n",
	        2, "sources", "mapping with url");
	refused("a folder as a source", "sources:\n  - url: /srv/skills\n", 2,
	        "sources.url", "not a source URL");
	refused("a bad ref", "sources:\n  - url: git+file:///x#a..b\n", 2,
	        "sources.url", "REF");
	refused("an unknown key of a source",
	        "sources:\n  - url: git+file:///x\n    branch: main\n", 3,
	        "sources.branch", "unknown key (known: url, token_file, verify, "
	        "private, command, args, env, name)");
	refused("a source without url", "sources:\n  - {}\n", 2, "sources",
	        "needs url");
	refused("verify: for an MCP source",
	        "sources:\n  - url: mcp+http://127.0.0.1:1/mcp\n    verify: f\n",
	        2, "sources", "verify is for git sources only");
	refused("a token for a git source",
	        "sources:\n  - url: git+file:///x\n    token_file: t\n", 2,
	        "sources", "token_file is for a source that takes a bearer token");
	refused("an empty token_file",
	        "sources:\n  - url: mcp+https://h/mcp\n    token_file: ''\n",
	        3, "sources.token_file", "a file path");
}

static void test_token_file(void)
{
	const char *path = write_file(at("tokens.yaml"),
		"sources:\n"
		"  - url: mcp+https://a.example/mcp\n"
		"    token_file: secrets/a.token\n"
		"  - url: git+file:///srv/skills.git\n"
		"  - token_file: ~/b.token\n"
		"    url: mcp+http://127.0.0.1:8080/mcp\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;
	char want[4096];

	int rc = sfs_config_file_read(path, "/home/u", &cf, &err);
	snprintf(want, sizeof(want), "%s/secrets/a.token", top);
	ok(rc == 0 && cf.nsources == 3 &&
	   streq(cf.source_token_files[0], want) &&
	   cf.source_token_files[1] == NULL &&
	   streq(cf.source_token_files[2], "/home/u/b.token") &&
	   streq(cf.sources[2], "mcp+http://127.0.0.1:8080/mcp"),
	   "token_file: beside its url, relative to the file, ~/ expanded "
	   "(got %d: %s)", rc, err.message);
	if (rc == 0)
		sfs_config_file_free(&cf);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = s ? strlen(s) : 0, t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

static void test_stdio_sources(void)
{
	const char *path = write_file(at("stdio.yaml"),
		"sources:\n"
		"  - command: sh\n"
		"    args: [-c, 'exec skills-server', '', 2]\n"
		"    env:\n"
		"      SKILLS_DIR: /srv/skills\n"
		"      EMPTY: ''\n"
		"  - url: mcp+https://a.example/mcp\n"
		"  - command: bin/serve\n"
		"    name: team.skills\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;
	char want[4096];

	setenv("PATH", "/usr/local/bin:relative:/usr/bin:/bin", 1);
	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	snprintf(want, sizeof(want), "%s/bin/serve", top);
	ok(rc == 0 && cf.nsources == 3 && streq(cf.sources[0], "mcp+stdio:sh") &&
	   cf.source_commands[0].argv[0][0] == '/' &&
	   ends_with(cf.source_commands[0].argv[0], "/sh") &&
	   streq(cf.source_commands[0].argv[1], "-c") &&
	   streq(cf.source_commands[0].argv[2], "exec skills-server") &&
	   streq(cf.source_commands[0].argv[3], "") &&
	   streq(cf.source_commands[0].argv[4], "2") &&
	   !cf.source_commands[0].argv[5] &&
	   streq(cf.source_commands[0].env[0], "SKILLS_DIR=/srv/skills") &&
	   streq(cf.source_commands[0].env[1], "EMPTY=") &&
	   !cf.source_commands[0].env[2] &&
	   streq(cf.sources[1], "mcp+https://a.example/mcp") &&
	   !cf.source_commands[1].argv && !cf.source_commands[1].env &&
	   streq(cf.sources[2], "mcp+stdio:team.skills") &&
	   streq(cf.source_commands[2].argv[0], want) &&
	   !cf.source_commands[2].argv[1] && !cf.source_commands[2].env,
	   "command: found on PATH, a path relative to the file, args and "
	   "env in order, named mcp+stdio:NAME (got %d: %s)", rc, err.message);
	if (rc == 0)
		sfs_config_file_free(&cf);

	refused("url and command", "sources:\n  - url: mcp+https://h/m\n"
	        "    command: sh\n", 2, "sources", "not both");
	refused("a command not on PATH",
	        "sources:\n  - command: no-such-command-of-skillsfs\n", 2,
	        "sources.command", "not found on PATH");
	refused("args that are not strings",
	        "sources:\n  - command: sh\n    args: [-c, [a, b]]\n", 3,
	        "sources.args", "a string");
	refused("args not a list",
	        "sources:\n  - command: sh\n    args: -c\n", 3,
	        "sources.args", "a list of strings");
	refused("a null argument",
	        "sources:\n  - command: sh\n    args: [~]\n", 3,
	        "sources.args", "a string");
	refused("env not a mapping",
	        "sources:\n  - command: sh\n    env: [A=b]\n", 3,
	        "sources.env", "NAME: VALUE");
	refused("an env value that is a list",
	        "sources:\n  - command: sh\n    env:\n      A: [b]\n", 4,
	        "sources.env.A", "a string");
	refused("an env name that is not one",
	        "sources:\n  - command: sh\n    env:\n      1A: b\n", 4,
	        "sources.env.1A", "variable's name");
	refused("a name that is not plain",
	        "sources:\n  - command: sh\n    name: Team Skills\n", 3,
	        "sources.name", "plain name");
	refused("a base name that is not plain",
	        "sources:\n  - command: /opt/Serve\n", 2,
	        "sources.command", "give name:");
	refused("args for a url", "sources:\n  - url: mcp+https://h/m\n"
	        "    args: [x]\n", 2, "sources", "command: sources only");
	refused("a token for a command",
	        "sources:\n  - command: sh\n    token_file: t\n", 2,
	        "sources", "token_file is for a source that takes a bearer token");
	refused("mcp+stdio: as a url",
	        "sources:\n  - url: mcp+stdio:sh\n", 2, "sources.url",
	        "given by command:");
	refused("two stdio sources of one name",
	        "sources:\n  - command: sh\n  - command: /bin/sh\n"
	        "    args: [-e]\n", 3, "sources",
	        "lines 2 and 3 are both mcp+stdio:sh");
}

static void test_lock(void)
{
	const char *path = write_file(at("locked.yaml"),
		"lock: skills.lock\n"
		"options:\n"
		"  strict: true\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;
	char want[4096];

	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	snprintf(want, sizeof(want), "%s/skills.lock", top);
	ok(rc == 0 && streq(cf.lock, want) && cf.nroots == 0,
	   "lock: a lockfile, relative to the file (got %d: %s)", rc,
	   rc == 0 ? cf.lock : err.message);
	if (rc == 0)
		sfs_config_file_free(&cf);
	refused("lock with roots", "roots: [/a]\nlock: /x.lock\n", 2, "lock",
	        "not both");
	refused("lock with sources",
	        "lock: /x.lock\nsources:\n  - url: git+file:///x\n", 1, "lock",
	        "not both");
	refused("an empty lock", "lock: ''\n", 1, "lock", "a lockfile's path");
}

/* accept: findings accepted for one content; options: trust: a word. */
static void test_accept(void)
{
	const char *path = write_file(at("accept.yaml"),
		"accept:\n"
		"  - {skill: pdf, rule: security/fetch-exec, digest: 'sha256:"
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'}\n"
		"options:\n"
		"  trust: hold\n");
	struct sfs_config_file cf;
	struct sfs_config_error err;

	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	ok(rc == 0 && cf.naccept == 1 && streq(cf.accept[0].skill, "pdf") &&
	   streq(cf.accept[0].rule, "security/fetch-exec") &&
	   cf.accept[0].digest[0] == 0x00 && cf.accept[0].digest[1] == 0x11 &&
	   cf.accept[0].digest[31] == 0xff &&
	   cf.options[SFS_OPT_TRUST].given &&
	   cf.options[SFS_OPT_TRUST].number == SFS_TRUST_HOLD,
	   "accept: skill, rule and digest; trust: hold (got %d: %s)", rc,
	   rc == 0 ? "" : err.message);
	if (rc == 0)
		sfs_config_file_free(&cf);
	refused("a rule not of the security pass",
	        "accept:\n  - {skill: a, rule: name, digest: x}\n", 2,
	        "accept.rule", "security/");
	refused("a digest not written as check prints it",
	        "accept:\n  - {skill: a, rule: security/x, digest: abc}\n", 2,
	        "accept.digest", "64 lowercase hex");
	refused("an entry without its digest",
	        "accept:\n  - {skill: a, rule: security/x}\n", 2, "accept",
	        "needs skill, rule and digest");
	refused("an unknown key of an entry",
	        "accept:\n  - {skill: a, why: reviewed}\n", 2, "accept.why",
	        "unknown key (known: skill, rule, digest)");
	refused("accept: not a list", "accept: pdf\n", 1, "accept",
	        "a list of");
	refused("a trust word not one of the row's",
	        "options:\n  trust: sometimes\n", 2, "options.trust",
	        "one of report, withhold, hold");
}

static void test_missing(void)
{
	struct sfs_config_file cf;
	struct sfs_config_error err;
	char path[4096];

	snprintf(path, sizeof(path), "%s/absent.yaml", top);
	int rc = sfs_config_file_read(path, NULL, &cf, &err);
	ok(rc == -ENOENT && streq(err.file, path) && err.line == 0 &&
	   strstr(err.message, "cannot read"),
	   "a missing file is -ENOENT with a message (%s)", err.message);
}

int main(void)
{
	fixture_start("test_config");
	test_full();
	test_empty();
	test_errors();
	test_sources();
	test_token_file();
	test_stdio_sources();
	test_lock();
	test_accept();
	test_missing();
	return tap_end();
}
