/*
 * arguments.h - a skill's prompt arguments, substituted into its body the
 * way Claude Code substitutes a slash command's arguments.
 */
#ifndef MCP_ARGUMENTS_H
#define MCP_ARGUMENTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct args {
	const char *raw;      /* as typed after /<skill>; NULL: none given */
	char **v;             /* the words of raw, or the named values */
	size_t n;
	char *owned_raw;      /* raw, when made here */
};

/*
 * The argument names a frontmatter declares (`arguments`: a string of
 * whitespace-separated names, or a list of them), in order; empty names
 * and names made only of digits ($0, $1 are positions) are left out.
 * Returns a malloc'd array of malloc'd names and sets *n (NULL and 0 when
 * there are none).
 */
char **args_names(const cJSON *fm, size_t *n);
void args_names_free(char **names, size_t n);

/* `argument-hint` as text: a string as it is; a list (YAML read
 * "[file]" as one) as "[a] [b]".  NULL when there is none; else malloc'd. */
char *args_hint(const cJSON *fm);

/* Splits raw into words as a shell would (quotes and backslashes; no
 * expansion).  An unclosed quote splits at blanks only, as Claude Code
 * falls back to.  0, or -ENOMEM. */
int args_split(const char *raw, struct args *a);
/* Puts value at position i (growing the list with empty words). */
int args_set(struct args *a, size_t i, const char *value);
/* Makes raw from the words, each quoted when it needs to be. */
int args_join(struct args *a);
void args_free(struct args *a);

/*
 * The body with its placeholders replaced: named arguments ($name, by
 * the position of its name), $ARGUMENTS[N] and $N (word N, from 0, empty
 * past the last), $ARGUMENTS (raw), and ${CLAUDE_SKILL_DIR} (skill_dir).
 * With no arguments given (a->raw NULL) only ${CLAUDE_SKILL_DIR} is.
 * When arguments were given, are not empty, and the body has no argument
 * placeholder, "\n\nARGUMENTS: <raw>" is appended.  Each placeholder is
 * replaced once: text from an argument is not searched again.  Anything
 * else that starts with '$' stays as written.  NULL when out of memory.
 */
char *args_substitute(const char *body, const struct args *a,
                      const char *const *names, size_t nnames,
                      const char *skill_dir);

#endif
