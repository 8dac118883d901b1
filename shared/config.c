/*
 * config.c - the configuration file (--config FILE): a YAML mapping read
 * with libyaml's document loader, every key checked against the schema
 * below, so that a misspelt option is an error naming it and its line
 * rather than a setting silently ignored.
 *
 *   roots: [DIR, ...]        (or one DIR)
 *   sources:                 (after the roots in precedence)
 *     - url: git+file:///PATH[#REF][:SUBDIR]
 *       token_file: FILE     (an mcp+https:// source's bearer token)
 *       private: true|false  (its skills not shared under allow_other)
 *       verify: FILE         (a git source: serve commits signed by a key
 *                             of this allowed-signers file only)
 *     - command: PROG        (an MCP server over stdio: mcp+stdio:NAME)
 *       args: [ARG, ...]
 *       env: {NAME: VALUE, ...}
 *       name: NAME           (default: PROG's base name)
 *   lock: FILE               (instead of roots and sources)
 *   mountpoint: DIR
 *   docs_dir: DIR
 *   include: [PATTERN, ...]
 *   exclude: [PATTERN, ...]
 *   views:                   (views.h; also the keys of a project file)
 *     NAME:
 *       profile: claude-code | codex | copilot | gemini
 *       budget: characters   per_skill: characters
 *       include: [PATTERN, ...]   exclude: [PATTERN, ...]   pins: [ID, ...]
 *       project: DIR         (its .skillsfs.yaml adds to the above)
 *   accept:                  (findings accepted for one content only)
 *     - {skill: ID, rule: security/..., digest: sha256:HEX}
 *   options:                 (mount_opts.h: the rows a file may give)
 *     NAME: true | false | a number | a word | DIR
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "contract.h"
#include "grow.h"
#include "skillsfs.h"
#include "source.h"
#include "trust.h"
#include "views.h"

#define MAX_FILE_BYTES (1024 * 1024)

/* A source entry as it is read; what it owns goes to sfs_config_file
 * once it is whole (add_source), or is freed (entry_free). */
struct entry {
	const char *url;        /* url:, or NULL */
	char *token_file;       /* token_file:, or NULL */
	char *verify;           /* verify:, or NULL */
	const char *command;    /* command: as written, or NULL */
	const yaml_node_t *command_at;
	char *program;          /* and the file it runs (absolute) */
	const char *name;       /* name:, or NULL */
	char **args;            /* args:, NULL-terminated once given */
	size_t nargs;
	char **env;             /* env: as NAME=VALUE, likewise */
	size_t nenv;
	int private_skills;     /* private:, 0 unless given */
};

struct cfg_ctx {
	yaml_document_t *doc;
	const char *dir;        /* folder of the file, "" for the cwd */
	const char *home;
	struct sfs_config_file *out;
	struct sfs_config_error *err;
	struct entry e;         /* the source entry being read */
	const yaml_node_t *lock; /* the lock: key, once read */
	struct sfs_view_def *view;   /* the view being read */
};

__attribute__((format(printf, 4, 5)))
static int fail(struct cfg_ctx *c, const yaml_node_t *at, const char *key,
                const char *fmt, ...)
{
	va_list ap;

	if (at) {
		c->err->line = (unsigned)at->start_mark.line + 1;
		c->err->column = (unsigned)at->start_mark.column + 1;
	}
	snprintf(c->err->key, sizeof(c->err->key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(c->err->message, sizeof(c->err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int no_memory(struct cfg_ctx *c)
{
	snprintf(c->err->message, sizeof(c->err->message), "%s",
	         strerror(ENOMEM));
	return -ENOMEM;
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool is_plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* ---- values ------------------------------------------------------------- */

static int take_bool(struct cfg_ctx *c, const yaml_node_t *v,
                     const char *key, int *out)
{
	if (v->type == YAML_SCALAR_NODE && is_plain(v)) {
		const char *s = scalar(v);
		if (!strcmp(s, "true") || !strcmp(s, "True") ||
		    !strcmp(s, "TRUE")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(s, "false") || !strcmp(s, "False") ||
		    !strcmp(s, "FALSE")) {
			*out = 0;
			return 0;
		}
	}
	return fail(c, v, key, "expected true or false");
}

/* A plain decimal number from 0 to max, of `unit`. */
static int take_number(struct cfg_ctx *c, const yaml_node_t *v,
                       const char *key, long max, const char *unit,
                       long *out)
{
	if (v->type == YAML_SCALAR_NODE && is_plain(v) &&
	    sfs_decimal(scalar(v), 0, max, out) == 0)
		return 0;
	return fail(c, v, key, "expected %s (0-%ld)", unit, max);
}

/* A plain decimal number, as -o takes row r's (mount_opts.h). */
static int take_opt_number(struct cfg_ctx *c, const yaml_node_t *v,
                           const char *key, const struct sfs_opt_row *r,
                           long *out)
{
	char expected[64];

	if (v->type == YAML_SCALAR_NODE && is_plain(v) &&
	    sfs_opt_number(r, scalar(v), out) == 0)
		return 0;
	sfs_opt_expected(r, expected, sizeof(expected));
	return fail(c, v, key, "expected %s", expected);
}

/* A non-empty string: quoted, or plain and not YAML's null. */
static int take_string(struct cfg_ctx *c, const yaml_node_t *v,
                       const char *key, const char *what, const char **out)
{
	if (v->type == YAML_SCALAR_NODE) {
		const char *s = scalar(v);
		bool null = is_plain(v) && (!strcmp(s, "~") ||
		            !strcmp(s, "null") || !strcmp(s, "Null") ||
		            !strcmp(s, "NULL"));
		if (*s && !null) {
			if (strlen(s) != v->data.scalar.length)
				return fail(c, v, key, "%s contains a NUL byte",
				            what);
			*out = s;
			return 0;
		}
	}
	return fail(c, v, key, "expected %s", what);
}

/* A path made usable: "~/" expanded, relative ones taken against the
 * file's folder; `what` names it in an error ("a folder path"). */
static int take_path_of(struct cfg_ctx *c, const yaml_node_t *v,
                        const char *key, const char *what, char **out)
{
	const char *s;
	int rc = take_string(c, v, key, what, &s);
	int len;

	if (rc < 0)
		return rc;
	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
		if (!c->home || !*c->home)
			return fail(c, v, key, "'%s' starts with ~ but HOME is "
			            "not set", s);
		len = asprintf(out, "%s%s", c->home, s + 1);
	} else if (s[0] == '~') {
		return fail(c, v, key, "'%s': only ~/ (the home folder) is "
		            "understood", s);
	} else if (s[0] == '/' || !*c->dir) {
		len = asprintf(out, "%s", s);
	} else {
		len = asprintf(out, "%s/%s", c->dir, s);
	}
	if (len < 0) {
		*out = NULL;
		return no_memory(c);
	}
	return 0;
}

static int take_path(struct cfg_ctx *c, const yaml_node_t *v,
                     const char *key, char **out)
{
	return take_path_of(c, v, key, "a folder path", out);
}

static int push(struct cfg_ctx *c, char ***v, size_t *n, char *s)
{
	char **slot = sfs_append(v, n, sizeof(**v));
	if (!slot) {
		free(s);
		return no_memory(c);
	}
	*slot = s;
	return 0;
}

/* A list of paths or patterns; one scalar counts as a list of one. */
static int take_list(struct cfg_ctx *c, const yaml_node_t *v,
                     const char *key, bool paths, char ***list, size_t *n)
{
	const yaml_node_item_t *items = NULL, *end = NULL;
	yaml_node_item_t one = 0;

	if (v->type == YAML_SEQUENCE_NODE) {
		items = v->data.sequence.items.start;
		end = v->data.sequence.items.top;
	} else if (v->type == YAML_SCALAR_NODE) {
		one = (yaml_node_item_t)(v - c->doc->nodes.start) + 1;
		items = &one;
		end = &one + 1;
	} else {
		return fail(c, v, key, "expected a list of %s",
		            paths ? "folder paths" : "patterns");
	}
	for (const yaml_node_item_t *i = items; i < end; i++) {
		const yaml_node_t *item = yaml_document_get_node(c->doc, *i);
		char *s = NULL;
		const char *pattern;
		int rc;
		if (paths) {
			rc = take_path(c, item, key, &s);
		} else {
			rc = take_string(c, item, key, "a pattern", &pattern);
			if (rc == 0 && !(s = strdup(pattern)))
				rc = no_memory(c);
		}
		if (rc == 0)
			rc = push(c, list, n, s);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- mappings ----------------------------------------------------------- */

typedef int (*entry_fn)(struct cfg_ctx *c, const char *key,
                        const yaml_node_t *k, const yaml_node_t *v);

/* Calls fn for each pair of a mapping; refuses duplicate and non-scalar
 * keys.  `prefix` names the mapping in messages ("" at the top). */
static int each_entry(struct cfg_ctx *c, const yaml_node_t *map,
                      const char *prefix, entry_fn fn)
{
	const yaml_node_pair_t *start = map->data.mapping.pairs.start;
	const yaml_node_pair_t *top = map->data.mapping.pairs.top;

	for (const yaml_node_pair_t *p = start; p < top; p++) {
		const yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		char key[128];
		if (k->type != YAML_SCALAR_NODE)
			return fail(c, k, prefix, "keys must be plain names");
		snprintf(key, sizeof(key), "%s%s%s", prefix,
		         *prefix ? "." : "", scalar(k));
		for (const yaml_node_pair_t *q = start; q < p; q++) {
			const yaml_node_t *qk =
				yaml_document_get_node(c->doc, q->key);
			if (qk->type == YAML_SCALAR_NODE &&
			    !strcmp(scalar(qk), scalar(k)))
				return fail(c, k, key, "given twice (first on "
				            "line %zu)", qk->start_mark.line + 1);
		}
		int rc = fn(c, key, k, v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A key of options:, by mount_opts.h's table: its value checked as -o
 * NAME=VALUE would be, kept in the row's slot. */
static int option_entry(struct cfg_ctx *c, const char *key,
                        const yaml_node_t *k, const yaml_node_t *v)
{
	const char *name = scalar(k);
	int id = sfs_opt_find(name, strlen(name));
	const struct sfs_opt_row *r = id < 0 ? NULL : sfs_opt_row(id);
	struct sfs_opt_value *out = id < 0 ? NULL : &c->out->options[id];
	int flag = 0, rc;

	if (!r || !r->in_file) {
		char known[512];
		sfs_opt_file_names(known, sizeof(known));
		return fail(c, k, key, "unknown option (known: %s)", known);
	}
	if (sfs_opt_is_flag(r->kind)) {
		rc = take_bool(c, v, key, &flag);
		out->number = flag;
	} else if (sfs_opt_is_number(r->kind)) {
		rc = take_opt_number(c, v, key, r, &out->number);
	} else {
		free(out->text);
		out->text = NULL;
		rc = take_path(c, v, key, &out->text);
	}
	out->given = rc == 0;
	return rc;
}

/* ---- sources --------------------------------------------------------------- */

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void entry_free(struct entry *e)
{
	free(e->token_file);
	free(e->verify);
	free(e->program);
	free_strv(e->args);
	free_strv(e->env);
	memset(e, 0, sizeof(*e));
}

/* Appends s (owned) to the NULL-terminated list *v of *n strings. */
static int push_strv(struct cfg_ctx *c, char ***v, size_t *n, char *s)
{
	char **nv = s ? realloc(*v, (*n + 2) * sizeof(*nv)) : NULL;

	if (!nv) {
		free(s);
		return no_memory(c);
	}
	*v = nv;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	return 0;
}

/* A scalar as it is written, "" too (an argument may be empty), but not
 * YAML's null. */
static int take_text(struct cfg_ctx *c, const yaml_node_t *v,
                     const char *key, const char *what, const char **out)
{
	if (v->type == YAML_SCALAR_NODE && *scalar(v))
		return take_string(c, v, key, what, out);
	if (v->type == YAML_SCALAR_NODE && !is_plain(v)) {
		*out = "";
		return 0;
	}
	return fail(c, v, key, "expected %s", what);
}

/* The executable file `name` in a folder of $PATH (absolute folders
 * only: an empty or relative one would depend on the current folder),
 * malloc'd; NULL with errno. */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	char *save = NULL, *found = NULL;
	struct stat st;

	if (!copy)
		return NULL;
	int err = ENOENT;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/')
			continue;
		if (asprintf(&found, "%s/%s", dir, name) < 0) {
			found = NULL;
			err = ENOMEM;
			break;
		}
		if (stat(found, &st) != 0 || !S_ISREG(st.st_mode) ||
		    access(found, X_OK) != 0) {
			free(found);
			found = NULL;
		}
	}
	free(copy);
	errno = err;
	return found;
}

/* command: a path (as the file's other paths, checked when it is run),
 * or a name looked up on $PATH now. */
static int take_command(struct cfg_ctx *c, const yaml_node_t *v,
                        const char *key)
{
	int rc = take_string(c, v, key, "a command", &c->e.command);

	if (rc < 0)
		return rc;
	c->e.command_at = v;
	if (strchr(c->e.command, '/'))
		return take_path_of(c, v, key, "a command", &c->e.program);
	c->e.program = find_on_path(c->e.command);
	if (!c->e.program)
		return errno == ENOMEM ? no_memory(c) :
		       fail(c, v, key, "'%s' is not found on PATH (give its "
		            "path)", c->e.command);
	return 0;
}

/* args: a list of strings. */
static int take_args(struct cfg_ctx *c, const yaml_node_t *v,
                     const char *key)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(c, v, key, "expected a list of strings");
	for (const yaml_node_item_t *i = v->data.sequence.items.start;
	     i < v->data.sequence.items.top; i++) {
		const yaml_node_t *item = yaml_document_get_node(c->doc, *i);
		const char *arg;
		int rc = take_text(c, item, key, "a string (an argument)", &arg);
		if (rc == 0)
			rc = push_strv(c, &c->e.args, &c->e.nargs, strdup(arg));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One NAME: VALUE of env:; the value is never put in a message. */
static int env_entry(struct cfg_ctx *c, const char *key,
                     const yaml_node_t *k, const yaml_node_t *v)
{
	const char *name = scalar(k), *value;
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
	                        "rstuvwxyz0123456789_");
	char *pair;

	if (!*name || name[n] || (*name >= '0' && *name <= '9'))
		return fail(c, k, key, "not a variable's name ([A-Za-z_] "
		            "then [A-Za-z0-9_])");
	int rc = take_text(c, v, key, "a string (quote an empty one)",
	                   &value);
	if (rc < 0)
		return rc;
	if (asprintf(&pair, "%s=%s", name, value) < 0)
		pair = NULL;
	return push_strv(c, &c->e.env, &c->e.nenv, pair);
}

/* One key of a source entry. */
static int source_entry(struct cfg_ctx *c, const char *key,
                        const yaml_node_t *k, const yaml_node_t *v)
{
	struct sfs_source_url u;
	const char *url, *why, *what = scalar(k);

	/* a file, never the token itself: the config file is often shared,
	 * and a command line is seen by every user of the machine */
	if (strcmp(what, "token_file") == 0)
		return take_path_of(c, v, key, "a file path", &c->e.token_file);
	if (strcmp(what, "verify") == 0)
		return take_path_of(c, v, key, "an allowed-signers file",
		                    &c->e.verify);
	if (strcmp(what, "command") == 0)
		return take_command(c, v, key);
	if (strcmp(what, "private") == 0)
		return take_bool(c, v, key, &c->e.private_skills);
	if (strcmp(what, "args") == 0)
		return take_args(c, v, key);
	if (strcmp(what, "env") == 0)
		return v->type != YAML_MAPPING_NODE ?
		       fail(c, v, key, "expected a mapping of NAME: VALUE") :
		       each_entry(c, v, key, env_entry);
	if (strcmp(what, "name") == 0) {
		int rc = take_string(c, v, key, "a name", &c->e.name);
		return rc < 0 || sfs_source_stdio_name_valid(c->e.name) ? rc :
		       fail(c, v, key, "expected a plain name (1-64 of "
		            "[a-z0-9._-])");
	}
	if (strcmp(what, "url") != 0)
		return fail(c, k, key, "unknown key (known: url, token_file, "
		            "verify, private, command, args, env, name)");
	int rc = take_string(c, v, key, "a source URL", &url);
	if (rc < 0)
		return rc;
	rc = sfs_source_url_parse(url, &u, &why);
	if (rc == -ENOMEM)
		return no_memory(c);
	if (rc < 0)
		return fail(c, v, key, "%s: %s", url, why);
	sfs_source_url_free(&u);
	if (sfs_source_caps(url) & SFS_SOURCE_COMMAND)
		return fail(c, v, key, "%s: a stdio source is given by "
		            "command: (and name:), not url:", url);
	c->e.url = url;
	return 0;
}

/* The root a command: entry names, in *root: mcp+stdio:NAME, NAME its
 * name: or the command's base name, which must then be a plain name. */
static int stdio_root(struct cfg_ctx *c, const char *key, char **root)
{
	const char *name = c->e.name;
	char ckey[160];

	*root = NULL;
	if (!name) {
		const char *slash = strrchr(c->e.command, '/');
		name = slash ? slash + 1 : c->e.command;
		snprintf(ckey, sizeof(ckey), "%s.command", key);
		if (!sfs_source_stdio_name_valid(name))
			return fail(c, c->e.command_at, ckey, "'%s' cannot "
			            "name the source (mcp+stdio:NAME, 1-64 of "
			            "[a-z0-9._-]): give name:", name);
	}
	if (asprintf(root, "mcp+stdio:%s", name) < 0) {
		*root = NULL;
		return no_memory(c);
	}
	return 0;
}

/* Why the entry just read cannot be a source, or 0. */
static int check_entry(struct cfg_ctx *c, const yaml_node_t *item,
                       const char *key)
{
	const struct entry *e = &c->e;

	if (e->url && e->command)
		return fail(c, item, key, "give url: or command:, not both");
	if (!e->url && !e->command)
		return fail(c, item, key, "a source needs url: (or command: "
		            "for an MCP server over stdio)");
	if (e->url && (e->args || e->env || e->name))
		return fail(c, item, key, "args, env and name are for "
		            "command: sources only");
	if (e->token_file &&
	    (!e->url || !(sfs_source_caps(e->url) & SFS_SOURCE_TOKEN)))
		return fail(c, item, key, "token_file is for a source that "
		            "takes a bearer token (mcp+https://, ...) only");
	if (e->verify &&
	    (!e->url || !(sfs_source_caps(e->url) & SFS_SOURCE_SIGNED)))
		return fail(c, item, key, "verify is for git sources only (an "
		            "allowed-signers file their commits are held to)");
	return 0;
}

/* The line of the source entry that named root before (item i of seq),
 * or 0. */
static size_t named_before(struct cfg_ctx *c, const yaml_node_t *seq,
                           const char *root)
{
	for (size_t j = 0; j < c->out->nsources; j++)
		if (strcmp(c->out->sources[j], root) == 0)
			return yaml_document_get_node(c->doc,
				seq->data.sequence.items.start[j])
				->start_mark.line + 1;
	return 0;
}

/* Appends the source entry just read (c->e), as `root`. */
static int add_source(struct cfg_ctx *c, char *root)
{
	struct sfs_config_file *o = c->out;
	char **tokens = realloc(o->source_token_files,
	                        (o->nsources + 1) * sizeof(*tokens));

	if (tokens)
		o->source_token_files = tokens;
	struct sfs_source_command *cmds = realloc(o->source_commands,
		(o->nsources + 1) * sizeof(*cmds));
	if (cmds)
		o->source_commands = cmds;
	bool *private_skills = realloc(o->source_private,
	                               (o->nsources + 1) * sizeof(bool));
	if (private_skills)
		o->source_private = private_skills;
	char **verify = realloc(o->source_verify_files,
	                        (o->nsources + 1) * sizeof(*verify));
	if (verify)
		o->source_verify_files = verify;
	if (!root || !tokens || !cmds || !private_skills || !verify) {
		free(root);
		return no_memory(c);
	}
	struct sfs_source_command cmd = { .env = c->e.env };
	if (c->e.program) {
		cmd.argv = calloc(c->e.nargs + 2, sizeof(*cmd.argv));
		if (!cmd.argv) {
			free(root);
			return no_memory(c);
		}
		cmd.argv[0] = c->e.program;
		for (size_t i = 0; i < c->e.nargs; i++)
			cmd.argv[i + 1] = c->e.args[i];
	}
	/* the slots first: push() counts the source */
	tokens[o->nsources] = c->e.token_file;
	verify[o->nsources] = c->e.verify;
	cmds[o->nsources] = cmd;
	private_skills[o->nsources] = c->e.private_skills == 1;
	int rc = push(c, &o->sources, &o->nsources, root);
	if (rc < 0) {
		free(cmd.argv);
		return rc;
	}
	/* owned by o now (the args' strings: by cmd.argv) */
	free(c->e.args);
	memset(&c->e, 0, sizeof(c->e));
	return 0;
}

/* One entry of sources:, item i of seq. */
static int take_source(struct cfg_ctx *c, const yaml_node_t *seq,
                       const yaml_node_t *item, const char *key)
{
	if (item->type != YAML_MAPPING_NODE)
		return fail(c, item, key, "expected a mapping with url: "
		            "(- url: git+file:///PATH) or command:");
	int rc = each_entry(c, item, key, source_entry);
	if (rc == 0)
		rc = check_entry(c, item, key);
	if (rc < 0 || !c->e.command)
		return rc < 0 ? rc : add_source(c, strdup(c->e.url));
	char *root;
	rc = stdio_root(c, key, &root);
	size_t line = rc == 0 ? named_before(c, seq, root) : 0;
	if (line) {
		rc = fail(c, item, key, "the sources on lines %zu and %zu are "
		          "both %s: give each its own name:", line,
		          item->start_mark.line + 1, root);
		free(root);
		return rc;
	}
	return rc < 0 ? rc : add_source(c, root);
}

/* sources: a list of mappings, each with url: (and token_file:) or
 * command: (args:, env:, name:). */
static int take_sources(struct cfg_ctx *c, const yaml_node_t *v,
                        const char *key)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(c, v, key, "expected a list of sources "
		            "(- url: git+file:///PATH)");
	for (const yaml_node_item_t *i = v->data.sequence.items.start;
	     i < v->data.sequence.items.top; i++) {
		int rc = take_source(c, v, yaml_document_get_node(c->doc, *i),
		                     key);
		entry_free(&c->e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- views: (views.h) ---------------------------------------------------- */

#define MAX_BUDGET 10000000L

static int read_project(struct cfg_ctx *c, const yaml_node_t *v,
                        const char *key, const char *dir);

/* A key of a view, or of a project file (project: only in a view). */
static int view_key(struct cfg_ctx *c, const char *key, const yaml_node_t *k,
                    const yaml_node_t *v)
{
	struct sfs_view_def *d = c->view;
	const char *last = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
	const char *s;
	int rc;

	if (!strcmp(last, "profile")) {
		if ((rc = take_string(c, v, key, "a profile's name", &s)) < 0)
			return rc;
		if (!sfs_profile_find(s))
			return fail(c, v, key, "unknown profile '%s' (known: "
			            "claude-code, codex, copilot, gemini)", s);
		free(d->profile);
		return (d->profile = strdup(s)) ? 0 : no_memory(c);
	}
	if (!strcmp(last, "budget"))
		return take_number(c, v, key, MAX_BUDGET, "characters",
		                   &d->budget);
	if (!strcmp(last, "per_skill"))
		return take_number(c, v, key, MAX_BUDGET, "characters",
		                   &d->per_skill);
	if (!strcmp(last, "include"))
		return take_list(c, v, key, false, &d->include, &d->ninclude);
	if (!strcmp(last, "exclude"))
		return take_list(c, v, key, false, &d->exclude, &d->nexclude);
	if (!strcmp(last, "pins"))
		return take_list(c, v, key, false, &d->pins, &d->npins);
	if (!strcmp(last, "project") && strchr(key, '.')) {
		char *dir = NULL;
		if ((rc = take_path(c, v, key, &dir)) == 0)
			rc = read_project(c, v, key, dir);
		free(dir);
		return rc;
	}
	return fail(c, k, key, "unknown key (known: profile, budget, "
	            "per_skill, include, exclude, pins%s)",
	            strchr(key, '.') ? ", project" : "");
}

static int view_entry(struct cfg_ctx *c, const char *key,
                      const yaml_node_t *k, const yaml_node_t *v)
{
	struct sfs_config_file *o = c->out;
	c->view = sfs_append(&o->views, &o->nviews, sizeof(*o->views));
	if (!c->view)
		return no_memory(c);
	*c->view = (struct sfs_view_def){ .budget = SFS_UNSET,
	                                  .per_skill = SFS_UNSET };
	if (!sfs_skill_id_valid(scalar(k), strlen(scalar(k))))
		return fail(c, k, key, "a view's name is a skill name: 1-64 "
		            "of a-z, 0-9 and '-'");
	if (!(c->view->name = strdup(scalar(k))))
		return no_memory(c);
	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, key, "expected a mapping (profile, budget, "
		            "include, exclude, pins, project)");
	int rc = each_entry(c, v, key, view_key);
	if (rc == 0 && !c->view->profile && c->view->budget == SFS_UNSET)
		rc = fail(c, k, key, "give a profile or a budget");
	return rc;
}

/* ---- accept: findings accepted after review -------------------------- */

/* One key of an accept: entry, into the entry being read (the last). */
static int accept_key(struct cfg_ctx *c, const char *key,
                      const yaml_node_t *k, const yaml_node_t *v)
{
	struct sfs_accept *a = &c->out->accept[c->out->naccept - 1];
	const char *name = scalar(k), *s;
	const char **slot = !strcmp(name, "skill") ? &a->skill :
	                    !strcmp(name, "rule") ? &a->rule : NULL;

	if (strcmp(name, "digest") && !slot)
		return fail(c, k, key, "unknown key (known: skill, rule, "
		            "digest)");
	int rc = take_string(c, v, key, slot ? "a name" : "a digest", &s);
	if (rc == 0 && !slot && !sfs_parse_digest(s, a->digest))
		return fail(c, v, key, "expected sha256: and 64 lowercase hex "
		            "digits, as skillsfs check prints it");
	if (rc == 0 && slot && slot == &a->rule && strncmp(s, "security/", 9))
		return fail(c, v, key, "expected a rule of the security pass "
		            "(security/...)");
	if (rc == 0 && slot && !(*slot = strdup(s)))
		return no_memory(c);
	return rc;
}

/* accept: a list of {skill, rule, digest}, each key given. */
static int take_accepts(struct cfg_ctx *c, const yaml_node_t *v,
                        const char *key)
{
	struct sfs_config_file *o = c->out;

	if (v->type != YAML_SEQUENCE_NODE)
		return fail(c, v, key, "expected a list of {skill, rule, "
		            "digest}");
	for (yaml_node_item_t *i = v->data.sequence.items.start;
	     i < v->data.sequence.items.top; i++) {
		const yaml_node_t *item = yaml_document_get_node(c->doc, *i);
		const struct sfs_accept *a = sfs_append(&o->accept,
		                                        &o->naccept,
		                                        sizeof(*a));
		if (!a)
			return no_memory(c);
		if (item->type != YAML_MAPPING_NODE)
			return fail(c, item, key, "expected {skill, rule, "
			            "digest}");
		int rc = each_entry(c, item, key, accept_key);
		if (rc == 0 && (!a->skill || !a->rule ||
		                !memcmp(a->digest, (uint8_t[32]){ 0 }, 32)))
			rc = fail(c, item, key, "an entry needs skill, rule "
			          "and digest");
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int top_entry(struct cfg_ctx *c, const char *key,
                     const yaml_node_t *k, const yaml_node_t *v)
{
	struct sfs_config_file *o = c->out;

	if (!strcmp(key, "roots"))
		return take_list(c, v, key, true, &o->roots, &o->nroots);
	if (!strcmp(key, "sources"))
		return take_sources(c, v, key);
	if (!strcmp(key, "include"))
		return take_list(c, v, key, false, &o->include, &o->ninclude);
	if (!strcmp(key, "exclude"))
		return take_list(c, v, key, false, &o->exclude, &o->nexclude);
	if (!strcmp(key, "docs_dir")) {
		free(o->docs_dir);
		return take_path(c, v, key, &o->docs_dir);
	}
	if (!strcmp(key, "mountpoint")) {
		free(o->mountpoint);
		return take_path(c, v, key, &o->mountpoint);
	}
	if (!strcmp(key, "lock")) {
		c->lock = k;
		return take_path_of(c, v, key, "a lockfile's path", &o->lock);
	}
	if (!strcmp(key, "accept"))
		return take_accepts(c, v, key);
	if (!strcmp(key, "options")) {
		if (v->type != YAML_MAPPING_NODE)
			return fail(c, v, key, "expected a mapping of options");
		return each_entry(c, v, key, option_entry);
	}
	if (!strcmp(key, "views")) {
		if (v->type != YAML_MAPPING_NODE)
			return fail(c, v, key, "expected a mapping of views");
		return each_entry(c, v, key, view_entry);
	}
	return fail(c, k, key, "unknown key (known: roots, sources, lock, "
	            "mountpoint, docs_dir, include, exclude, views, "
	            "accept, options)");
}

/* ---- reading ------------------------------------------------------------ */

/* The file, if it passes the ownership-and-mode rule (trust.h): a config
 * file can run commands (a stdio source's command:), so one that another
 * user could change is never read. */
static int load(struct cfg_ctx *c, const char *text, size_t len)
{
	yaml_parser_t parser;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return no_memory(c);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, c->doc)) {
		c->err->line = (unsigned)parser.problem_mark.line + 1;
		c->err->column = (unsigned)parser.problem_mark.column + 1;
		rc = parser.error == YAML_MEMORY_ERROR ? no_memory(c) :
		     fail(c, NULL, "", "not valid YAML: %s%s%s",
		          parser.problem ? parser.problem : "syntax error",
		          parser.context ? " " : "",
		          parser.context ? parser.context : "");
	}
	yaml_parser_delete(&parser);
	return rc;
}

static void reset(struct sfs_config_file *out)
{
	memset(out, 0, sizeof(*out));   /* no option given */
}

/* The folder part of path, "" when it has none. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup("");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int sfs_config_file_read(const char *path, const char *home,
                         struct sfs_config_file *out,
                         struct sfs_config_error *err)
{
	yaml_document_t doc;
	char *text = NULL;
	size_t len = 0;

	reset(out);
	memset(err, 0, sizeof(*err));
	err->file = path;
	struct cfg_ctx c = { .doc = &doc, .home = home, .out = out,
	                     .err = err };

	char why[sizeof(err->message)] = "";
	int rc = sfs_trust_read(path, SFS_TRUST_CONFIG, MAX_FILE_BYTES,
	                        &text, &len, why, sizeof(why));
	if (rc == -EPERM)
		snprintf(err->message, sizeof(err->message), "%s", why);
	if (rc < 0 && rc != -EPERM)
		snprintf(err->message, sizeof(err->message), "cannot read: %s",
		         rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
	if (rc < 0)
		return rc;
	char *dir = folder_of(path);
	rc = dir ? load(&c, text, len) : no_memory(&c);
	free(text);
	if (rc < 0) {
		free(dir);
		return rc;
	}
	c.dir = dir;
	const yaml_node_t *top = yaml_document_get_root_node(&doc);
	if (top && top->type == YAML_SCALAR_NODE && is_plain(top) &&
	    !*scalar(top))
		top = NULL;   /* only comments */
	if (top && top->type != YAML_MAPPING_NODE)
		rc = fail(&c, top, "", "expected a mapping of keys "
		          "(roots, options, ...)");
	else if (top)
		rc = each_entry(&c, top, "", top_entry);
	if (rc == 0 && c.lock && (out->nroots || out->nsources))
		rc = fail(&c, c.lock, "lock", "the lockfile names every source: "
		          "give lock, or roots and sources, not both");
	yaml_document_delete(&doc);
	free(dir);
	if (rc < 0)
		sfs_config_file_free(out);
	return rc;
}

/* A project file's keys into c->view. */
static int project_top(struct cfg_ctx *c, const yaml_node_t *top)
{
	if (top && top->type == YAML_SCALAR_NODE && is_plain(top) &&
	    !*scalar(top))
		return 0;   /* only comments */
	if (top && top->type != YAML_MAPPING_NODE)
		return fail(c, top, "", "expected a mapping of keys (pins, "
		            "include, exclude, profile, budget, per_skill)");
	return top ? each_entry(c, top, "", view_key) : 0;
}

/* Reads path into c->view: 0, or a negative errno with c->err set (its
 * file: path). */
static int project_read(struct cfg_ctx *c, const char *path)
{
	yaml_document_t doc;
	char *text = NULL;
	size_t len = 0;
	struct cfg_ctx p = { .doc = &doc, .dir = "", .home = c->home,
	                     .out = c->out, .err = c->err, .view = c->view };
	char why[sizeof(c->err->message)] = "";
	int rc = sfs_trust_read(path, SFS_TRUST_CONFIG, MAX_FILE_BYTES,
	                        &text, &len, why, sizeof(why));

	c->err->file = path;
	if (rc == -EPERM)
		snprintf(c->err->message, sizeof(c->err->message), "%s", why);
	else if (rc < 0)
		snprintf(c->err->message, sizeof(c->err->message),
		         "cannot read: %s", rc == -EFBIG ? "larger than 1 MiB"
		         : strerror(-rc));
	if (rc < 0)
		return rc;
	rc = load(&p, text, len);
	free(text);
	if (rc < 0)
		return rc;
	rc = project_top(&p, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	return rc;
}

/* project: DIR in a view: DIR's project file adds its keys.  An error in
 * it names it; the configuration file is then not used either. */
static int read_project(struct cfg_ctx *c, const yaml_node_t *v,
                        const char *key, const char *dir)
{
	char *path = NULL;
	const char *file = c->err->file;

	free(c->view->project);
	c->view->project = strdup(dir);
	if (!c->view->project ||
	    asprintf(&path, "%s/" SFS_PROJECT_FILE, dir) < 0)
		return no_memory(c);
	int rc = project_read(c, path);
	if (rc < 0 && rc != -ENOMEM) {
		/* told as the configuration file's error at this key, the
		 * project file's place in the message */
		char msg[sizeof(c->err->message)];
		snprintf(msg, sizeof(msg), "%s", c->err->message);
		char at[16] = "";
		if (c->err->line)
			snprintf(at, sizeof(at), ":%u", c->err->line);
		c->err->file = file;
		c->err->line = c->err->column = 0;
		rc = fail(c, v, key, "%.100s%s: %.130s", path, at, msg);
	}
	free(path);
	return rc;
}

int sfs_project_file_read(const char *path, const char *home,
                          struct sfs_view_def *def,
                          struct sfs_config_error *err)
{
	struct sfs_config_file none;
	struct cfg_ctx c = { .home = home, .out = &none, .err = err,
	                     .view = def };

	reset(&none);
	memset(err, 0, sizeof(*err));
	return project_read(&c, path);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sfs_config_file_free(struct sfs_config_file *cf)
{
	free_list(cf->roots, cf->nroots);
	free_list(cf->source_token_files, cf->nsources);
	free_list(cf->source_verify_files, cf->nsources);
	for (size_t i = 0; cf->source_commands && i < cf->nsources; i++) {
		free_strv(cf->source_commands[i].argv);
		free_strv(cf->source_commands[i].env);
	}
	free(cf->source_commands);
	free(cf->source_private);
	free_list(cf->sources, cf->nsources);
	free_list(cf->include, cf->ninclude);
	free_list(cf->exclude, cf->nexclude);
	free(cf->docs_dir);
	for (int i = 0; i < SFS_NOPTS; i++)
		free(cf->options[i].text);
	free(cf->mountpoint);
	free(cf->lock);
	for (size_t i = 0; i < cf->naccept; i++) {
		free((char *)cf->accept[i].skill);
		free((char *)cf->accept[i].rule);
	}
	free(cf->accept);
	for (size_t i = 0; i < cf->nviews; i++)
		sfs_view_def_free(&cf->views[i]);
	free(cf->views);
	reset(cf);
}
