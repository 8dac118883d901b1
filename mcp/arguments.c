/*
 * arguments.c - Claude Code's argument placeholders in a skill's body.
 *
 * Claude Code (utils/argumentSubstitution.ts) splits what follows /<skill>
 * into words with shell quoting, maps the names of the frontmatter's
 * `arguments` to those positions, and replaces $name, $ARGUMENTS[N], $N
 * and $ARGUMENTS, in that order of precedence, with an empty string for a
 * missing word; when nothing was replaced and arguments were given it
 * appends them after "ARGUMENTS: ".  ${CLAUDE_SKILL_DIR} is the skill's
 * folder.  Here it is one pass over the body, so a value is never
 * mistaken for a placeholder.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arguments.h"
#include "buf.h"

#define BLANKS " \t\r\n\f\v"

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A usable name: not empty, not only digits. */
static bool name_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return true;
	return false;
}

/* Appends the name s[0..n) to the list; false when out of memory. */
static bool push_name(char ***names, size_t *n, size_t *cap,
                      const char *s, size_t len)
{
	if (!name_ok(s, len))
		return true;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		char **p = realloc(*names, c * sizeof(*p));
		if (!p)
			return false;
		*names = p;
		*cap = c;
	}
	char *name = strndup(s, len);
	if (!name)
		return false;
	(*names)[(*n)++] = name;
	return true;
}

char **args_names(const cJSON *fm, size_t *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(fm, "arguments");
	const cJSON *item;
	char **names = NULL;
	size_t cap = 0;
	bool ok = true;

	*n = 0;
	if (cJSON_IsString(v)) {
		for (const char *p = v->valuestring; ok && *p;) {
			p += strspn(p, BLANKS);
			size_t len = strcspn(p, BLANKS);
			if (len)
				ok = push_name(&names, n, &cap, p, len);
			p += len;
		}
	} else if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(item, v) {
			if (ok && cJSON_IsString(item) && *item->valuestring)
				ok = push_name(&names, n, &cap, item->valuestring,
					       strlen(item->valuestring));
		}
	}
	return names;
}

void args_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *args_hint(const cJSON *fm)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(fm, "argument-hint");
	const cJSON *item;
	struct buf b = { 0 };

	if (cJSON_IsString(v))
		return *v->valuestring ? strdup(v->valuestring) : NULL;
	if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
		return NULL;
	cJSON_ArrayForEach(item, v) {
		char *text = cJSON_IsString(item) ? strdup(item->valuestring)
						  : cJSON_PrintUnformatted(item);
		buf_printf(&b, "%s[%s]", b.len ? " " : "", text ? text : "");
		free(text);
	}
	return buf_take(&b);
}

/* ---- words ------------------------------------------------------------ */

static int push_word(struct args *a, struct buf *w)
{
	char **p = realloc(a->v, (a->n + 1) * sizeof(*p));
	if (!p) {
		buf_free(w);
		return -ENOMEM;
	}
	a->v = p;
	char *word = buf_take(w);
	if (!word)
		return -ENOMEM;
	a->v[a->n++] = word;
	return 0;
}

/* Words at blanks only. */
static int split_blanks(const char *raw, struct args *a)
{
	for (const char *p = raw; *p;) {
		p += strspn(p, BLANKS);
		size_t len = strcspn(p, BLANKS);
		if (len) {
			struct buf w = { 0 };
			buf_add(&w, p, len);
			if (push_word(a, &w) < 0)
				return -ENOMEM;
		}
		p += len;
	}
	return 0;
}

/* Shell words: '...' literal, "..." with \ before " \ $ ` newline, a
 * backslash outside quotes takes the next byte.  Returns 1 when a quote
 * is left open. */
static int split_shell(const char *raw, struct args *a)
{
	const char *p = raw;

	for (;;) {
		p += strspn(p, BLANKS);
		if (!*p)
			return 0;
		struct buf w = { 0 };
		while (*p && !strchr(BLANKS, *p)) {
			if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');
				if (!end) {
					buf_free(&w);
					return 1;
				}
				buf_add(&w, p + 1, (size_t)(end - p - 1));
				p = end + 1;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
						p++;
					buf_addc(&w, *p);
				}
				if (!*p) {
					buf_free(&w);
					return 1;
				}
				p++;
			} else if (*p == '\\' && p[1]) {
				buf_addc(&w, p[1]);
				p += 2;
			} else {
				buf_addc(&w, *p++);
			}
		}
		if (push_word(a, &w) < 0)
			return -ENOMEM;
	}
}

int args_split(const char *raw, struct args *a)
{
	int rc = split_shell(raw, a);

	if (rc == 1) {
		for (size_t i = 0; i < a->n; i++)
			free(a->v[i]);
		a->n = 0;
		rc = split_blanks(raw, a);
	}
	return rc;
}

int args_set(struct args *a, size_t i, const char *value)
{
	while (a->n <= i) {
		struct buf w = { 0 };
		if (push_word(a, &w) < 0)
			return -ENOMEM;
	}
	char *copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(a->v[i]);
	a->v[i] = copy;
	return 0;
}

int args_join(struct args *a)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < a->n; i++) {
		const char *w = a->v[i];
		if (i)
			buf_addc(&b, ' ');
		if (*w && !strpbrk(w, BLANKS "'\"\\")) {
			buf_adds(&b, w);
			continue;
		}
		/* '...' keeps everything but a single quote: '\'' */
		buf_addc(&b, '\'');
		for (; *w; w++) {
			if (*w == '\'')
				buf_adds(&b, "'\\''");
			else
				buf_addc(&b, *w);
		}
		buf_addc(&b, '\'');
	}
	free(a->owned_raw);
	a->owned_raw = buf_take(&b);
	a->raw = a->owned_raw;
	return a->raw ? 0 : -ENOMEM;
}

void args_free(struct args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	free(a->owned_raw);
	memset(a, 0, sizeof(*a));
}

/* ---- substitution ----------------------------------------------------- */

static const char *word_at(const struct args *a, const char *digits, size_t n)
{
	size_t i = 0;

	for (size_t k = 0; k < n; k++) {
		if (i > a->n)
			return "";   /* far past the last word */
		i = i * 10 + (size_t)(digits[k] - '0');
	}
	return i < a->n ? a->v[i] : "";
}

/* The placeholder at p (just after a '$'): its length and value, or 0. */
static size_t placeholder(const char *p, const struct args *a,
                          const char *const *names, size_t nnames,
                          const char **value)
{
	for (size_t i = 0; i < nnames; i++) {
		size_t n = strlen(names[i]);
		if (strncmp(p, names[i], n) == 0 && p[n] != '[' &&
		    !word_char(p[n])) {
			*value = i < a->n ? a->v[i] : "";
			return n;
		}
	}
	if (strncmp(p, "ARGUMENTS[", 10) == 0) {
		size_t d = strspn(p + 10, "0123456789");
		if (d && p[10 + d] == ']') {
			*value = word_at(a, p + 10, d);
			return 10 + d + 1;
		}
	}
	size_t d = strspn(p, "0123456789");
	if (d && !word_char(p[d])) {
		*value = word_at(a, p, d);
		return d;
	}
	if (strncmp(p, "ARGUMENTS", 9) == 0) {
		*value = a->raw;
		return 9;
	}
	return 0;
}

char *args_substitute(const char *body, const struct args *a,
                      const char *const *names, size_t nnames,
                      const char *skill_dir)
{
	static const char dir_mark[] = "{CLAUDE_SKILL_DIR}";
	struct buf b = { 0 };
	bool replaced = false;
	const char *p = body;

	for (;;) {
		const char *dollar = strchr(p, '$');
		if (!dollar)
			break;
		buf_add(&b, p, (size_t)(dollar - p));
		p = dollar + 1;
		const char *value = NULL;
		size_t n = a->raw ? placeholder(p, a, names, nnames, &value) : 0;
		if (n) {
			buf_adds(&b, value);
			replaced = true;
		} else if (strncmp(p, dir_mark, sizeof(dir_mark) - 1) == 0) {
			n = sizeof(dir_mark) - 1;
			buf_adds(&b, skill_dir);
		} else {
			buf_addc(&b, '$');
		}
		p += n;
	}
	buf_adds(&b, p);
	if (a->raw && *a->raw && !replaced)
		buf_printf(&b, "\n\nARGUMENTS: %s", a->raw);
	return buf_take(&b);
}
