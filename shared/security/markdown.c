/*
 * markdown.c - text hidden by markdown: HTML comments that hold prose
 * (never shown when the document is rendered, always read by the model),
 * and link or image URLs that carry data out (a query with placeholders
 * the model fills in, a long encoded part), which an image does with no
 * click at all.
 */
#include <ctype.h>
#include <string.h>

#include "rules.h"

/* What a comment of tooling or provenance says: left alone. */
static bool provenance(const char *lower)
{
	static const char *const words[] = {
		"generated", "source:", "license", "licence", "copyright",
		"spdx", "markdownlint", "prettier", "toc", "todo", "fixme",
		"auto-generated", "do not edit", "derived from", "adapted from",
		"upstream", "version", "last updated", "vale ", "cspell",
		"end of", "begin", "section", "prettier-ignore",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strstr(lower, words[i]))
			return true;
	return false;
}

/* Words that, hidden from the reader, speak to the model or of a
 * payload. */
static bool speaks_to_model(const char *lower)
{
	static const char *const words[] = {
		"ignore", "instructions", "assistant:", "you must", "you are ",
		"do not tell", "don't tell", "do not mention", "tell the user",
		"execute", "curl ", "wget ", "| sh", "|sh", "| bash", "base64",
		"upload", "send ", "exfil", "password", "secret",
		".ssh", "credentials", "api key", "always run", "first run",
		"silently", "important:", "override", ".env", "when you answer",
		"in your response", "in your answer", "include its",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strstr(lower, words[i]))
			return true;
	return false;
}

static size_t count_words(const char *s, size_t len)
{
	size_t n = 0;
	bool in = false;
	for (size_t i = 0; i < len; i++) {
		bool w = isalpha((unsigned char)s[i]);
		n += w && !in;
		in = w;
	}
	return n;
}

int sec_markdown_comment(struct sec_ctx *c, const struct sec_file *f,
                         size_t off, const char *text, size_t len)
{
	char lower[2048], esc[200];
	size_t n = len < sizeof(lower) - 1 ? len : sizeof(lower) - 1;

	for (size_t i = 0; i < n; i++)
		lower[i] = (char)tolower((unsigned char)text[i]);
	lower[n] = '\0';
	size_t words = count_words(text, len);
	if (words < 4)
		return 0;
	/* a marker of tooling, one token: <!-- skill-flavor:x-y:start --> */
	size_t a = 0, b = len;
	while (a < b && isspace((unsigned char)text[a]))
		a++;
	while (b > a && isspace((unsigned char)text[b - 1]))
		b--;
	bool token = true;
	for (size_t i = a; i < b && token; i++)
		token = !isspace((unsigned char)text[i]);
	if (token)
		return 0;
	bool model = speaks_to_model(lower);
	if (!model && (provenance(lower) || words < 8))
		return 0;
	sec_excerpt(text, len, 60, esc, sizeof(esc));
	enum sfs_risk r = model ? SFS_RISK_HIGH : SFS_RISK_LOW;
	/* an HTML page's comments are its authors' notes as much as
	 * anything: a page is no skill's instructions */
	if (f->kind != SEC_MARKDOWN && r == SFS_RISK_HIGH)
		r = SFS_RISK_MEDIUM;
	if (f->is_test)
		r = sec_lower(r);
	return sec_report(c, f, off, r, "security/html-comment",
	                  "an HTML comment, hidden when rendered, holds %s: "
	                  "\"%s\"", model ? "words to the model" : "prose", esc);
}

/* A placeholder the model would fill in: {x}, {{x}}, $VAR, ${x}, <X>,
 * [X], %7B. */
static bool placeholder(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		char ch = s[i], nx = s[i + 1];
		if (ch == '{' && memchr(s + i, '}', len - i))
			return true;
		if (ch == '$' && (nx == '{' || isupper((unsigned char)nx)))
			return true;
		if (ch == '<' && isupper((unsigned char)nx))
			return true;
		if (ch == '[' && isupper((unsigned char)nx))
			return true;
		if (ch == '%' && (nx == '7') && i + 2 < len &&
		    (s[i + 2] == 'B' || s[i + 2] == 'b'))
			return true;
	}
	return false;
}

/* The longest run that looks encoded: letters of both cases and digits
 * (base64) or hex digits, unbroken by the '-', '_' and '/' of readable
 * paths. */
static size_t encoded_run(const char *s, size_t len)
{
	size_t best = 0;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		bool upper = false, lower = false, digit = false, hex = true;
		while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '+' ||
		                   s[j] == '=' || s[j] == '%')) {
			unsigned char ch = (unsigned char)s[j++];
			upper = upper || isupper(ch);
			lower = lower || islower(ch);
			digit = digit || isdigit(ch);
			hex = hex && (isxdigit(ch) || ch == '%');
		}
		if (digit && ((upper && lower) || hex) && j - i > best)
			best = j - i;
		i = j + 1;
	}
	return best;
}

/* Whether the query names what it carries: the model's context. */
static bool names_data(const char *lower, size_t len)
{
	static const char *const words[] = {
		"data=", "secret", "token", "key=", "conversation", "history",
		"chat", "env", "password", "creds", "ssh", "q=", "d=", "c=",
		"content=", "prompt", "leak", "exfil", "memo",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (memmem(lower, len, words[i], strlen(words[i])))
			return true;
	return false;
}

/* Whether the text (after a URL) names the conversation or a secret. */
static bool names_secret(const char *lower, size_t len)
{
	static const char *const words[] = {
		"conversation", "chat history", "chat so far",
		"messages so far", "password", "api key", "secret", "credential", "private key",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (memmem(lower, len, words[i], strlen(words[i])))
			return true;
	return false;
}

static bool known_badge_host(const char *lower, size_t len)
{
	static const char *const hosts[] = {
		"://img.shields.io/", "://badge.fury.io/", "://github.com/",
		"://raw.githubusercontent.com/", "://api.github.com/",
		"://docs.", "://localhost", "://127.0.0.1", "://example.",
	};
	for (size_t i = 0; i < sizeof(hosts) / sizeof(*hosts); i++)
		if (memmem(lower, len, hosts[i], strlen(hosts[i])))
			return true;
	return false;
}

static int check_url(struct sec_ctx *c, const struct sec_file *f,
                     const struct sec_line *l, size_t so, size_t eo)
{
	const char *u = l->p + so, *lu = l->lower + so;
	size_t len = eo - so;
	const char *q = memchr(u, '?', len);
	size_t qlen = q ? len - (size_t)(q - u) : 0;
	bool image = (so >= 2 && l->p[so - 1] == '(' && memchr(l->p, '!', so) &&
	              memmem(l->p, so, "![", 2)) ||
	             memmem(l->lower, so, "<img", 4) != NULL;
	const char *host_end = memchr(lu + 8, '/', len > 8 ? len - 8 : 0);
	size_t path_off = host_end ? (size_t)(host_end - lu) : len;
	bool holder = placeholder(u + path_off, len - path_off);
	bool blob = encoded_run(u + path_off, len - path_off) >= 64;
	char esc[200];

	/* "?d= followed by a summary of the conversation": a value the
	 * model is told to add after the URL, of what it must not send */
	bool completed = q && lu[len - 1] == '=' &&
	                 names_secret(l->lower + eo, l->len - eo);
	if (completed) {
		enum sfs_risk cr = l->where == SEC_EXAMPLE ?
		        (l->warned ? SFS_RISK_NONE : SFS_RISK_MEDIUM) :
		        f->is_test ? SFS_RISK_MEDIUM : SFS_RISK_HIGH;
		sec_excerpt(u, len, 80, esc, sizeof(esc));
		return sec_report(c, f, (size_t)(l->p - f->text) + so, cr,
		                  "security/data-url", "%s URL the model is "
		                  "told to complete with the conversation or "
		                  "secrets: %s", image ? "an image" : "a link",
		                  esc);
	}
	if (!holder && !blob)
		return 0;
	if (known_badge_host(lu, len) && !blob)
		return 0;
	bool data = q && names_data(lu + (q - u), qlen);
	/* a placeholder in the path picks a page (/html/{id}/x1.png); one
	 * in the query is what the image carries out */
	bool query_holder = image && holder && q && placeholder(q, qlen);
	enum sfs_risk r = image && (query_holder || (holder && data)) ?
	                  SFS_RISK_HIGH :
	                  image && holder ? SFS_RISK_MEDIUM :
	                  image ? SFS_RISK_MEDIUM :
	                  data || l->where == SEC_HIDDEN ? SFS_RISK_HIGH :
	                  holder ? SFS_RISK_LOW : SFS_RISK_MEDIUM;
	if (l->where == SEC_EXAMPLE)
		r = l->warned ? SFS_RISK_NONE : sec_lower(r);
	if (f->is_test)
		r = sec_lower(r);
	sec_excerpt(u, len, 80, esc, sizeof(esc));
	return sec_report(c, f, (size_t)(l->p - f->text) + so, r,
	                  "security/data-url", "%s URL that carries %s: %s",
	                  image ? "an image" : "a link",
	                  holder ? "placeholders the model fills in"
	                         : "a long encoded part", esc);
}

int sec_markdown_line(struct sec_ctx *c, const struct sec_file *f,
                      const struct sec_line *l)
{
	size_t so, eo, base = 0;
	int rc = 0;

	if (!(l->mask & T_URL))
		return 0;
	while (rc == 0 && base < l->len &&
	       sec_match(c->sec, PAT_URL, l->lower + base, &so, &eo)) {
		rc = check_url(c, f, l, base + so, base + eo);
		base += eo;
	}
	return rc;
}
