/*
 * http_cache.c - the parts of an HTTP cache (RFC 9111) a plain GET of a
 * document fetched again and again needs: the conditional request made
 * of the stored answer's validators, and what an answer says of its
 * validators and of how long it stays fresh, read with curl_easy_header.
 *
 * skillsfs is a private cache: s-maxage and proxy-revalidate (a shared
 * cache's) are ignored.  A stale answer is always revalidated before it
 * is used again, so must-revalidate changes nothing.  No heuristic
 * freshness: an answer that says nothing of its lifetime is fetched on
 * the caller's own schedule.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_cache.h"

/* ---- the request ---------------------------------------------------------- */

static int add_header(struct curl_slist **l, const char *name,
                      const char *value)
{
	char line[SFS_HTTP_VALIDATOR_MAX + 32];
	struct curl_slist *grown;

	if (!value[0])
		return 0;
	snprintf(line, sizeof(line), "%s: %s", name, value);
	if (!(grown = curl_slist_append(*l, line)))
		return -ENOMEM;
	*l = grown;
	return 0;
}

int mcp_http_cache_ask(const struct sfs_http_cache *c, struct curl_slist **l)
{
	int rc = add_header(l, "If-None-Match", c->etag);

	return rc < 0 ? rc : add_header(l, "If-Modified-Since",
	                                c->last_modified);
}

/* ---- the answer ------------------------------------------------------------ */

/* The value of the answer's header `name` (its `index`th line), or
 * NULL. */
static const char *header(CURL *curl, const char *name, size_t index,
                          size_t *amount)
{
	struct curl_header *h;

	if (curl_easy_header(curl, name, index, CURLH_HEADER, -1, &h) !=
	    CURLHE_OK)
		return NULL;
	if (amount)
		*amount = h->amount;
	return h->value;
}

/* A delta-seconds value (RFC 9111 1.2.2): -1 when it is not one; one too
 * large for an int is the largest. */
static long long delta_seconds(const char *s, size_t n)
{
	long long v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v < INT_MAX)
			v = v * 10 + (s[i] - '0');
	}
	return v > INT_MAX ? INT_MAX : v;
}

/* What Cache-Control says: max_age (-1: none given, 0 when invalid, the
 * first when given twice), and whether the answer is stale at once. */
struct directives {
	long long max_age;
	bool no_cache, no_store;
};

/* Reads the directives of one Cache-Control line into d. */
static void read_directives(const char *p, struct directives *d)
{
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		const char *name = p;
		while (*p && *p != '=' && *p != ',' && *p != ' ' && *p != '\t')
			p++;
		size_t nlen = (size_t)(p - name);
		const char *value = NULL;
		size_t vlen = 0;
		if (*p == '=' && *++p == '"') {
			value = ++p;
			while (*p && *p != '"')
				p += p[0] == '\\' && p[1] ? 2 : 1;
			vlen = (size_t)(p - value);
			if (*p)
				p++;
		} else if (p > name + nlen) {   /* past the '=' */
			value = p;
			while (*p && *p != ',' && *p != ' ' && *p != '\t')
				p++;
			vlen = (size_t)(p - value);
		}
		while (*p && *p != ',')
			p++;
		if (nlen == 7 && strncasecmp(name, "max-age", 7) == 0 &&
		    d->max_age < 0) {
			long long v = value ? delta_seconds(value, vlen) : -1;
			d->max_age = v < 0 ? 0 : v;   /* invalid: stale */
		} else if (nlen == 8 && strncasecmp(name, "no-store", 8) == 0) {
			d->no_store = true;
		} else if (nlen == 8 && strncasecmp(name, "no-cache", 8) == 0 &&
		           !value) {
			/* (no-cache="field" is about fields, not the body) */
			d->no_cache = true;
		}
	}
}

/* The answer's lifetime in seconds from its Expires and Date (both the
 * server's clock, so that a skew of ours does not count): -1 when it
 * gives no Expires; an invalid one is in the past (RFC 9111 5.3). */
static long long expires_lifetime(CURL *curl)
{
	const char *expires = header(curl, "Expires", 0, NULL);
	const char *date = header(curl, "Date", 0, NULL);

	if (!expires)
		return -1;
	time_t e = curl_getdate(expires, NULL);
	time_t now = date ? curl_getdate(date, NULL) : -1;
	if (now < 0)
		now = time(NULL);
	return e < 0 || e <= now ? 0 : (long long)(e - now);
}

static long long lifetime_ms(CURL *curl, const struct directives *d)
{
	const char *age = header(curl, "Age", 0, NULL);
	long long a = age ? delta_seconds(age, strlen(age)) : 0;
	long long s = d->max_age >= 0 ? d->max_age : expires_lifetime(curl);

	if (d->no_store || d->no_cache)
		return 0;
	if (s < 0)
		return -1;
	s -= a > 0 ? a : 0;
	return s > 0 ? s * 1000 : 0;
}

/* Copies a validator worth keeping (printable, short enough) into out;
 * whether it did. */
static bool keep_validator(const char *v, char out[SFS_HTTP_VALIDATOR_MAX])
{
	size_t n = v ? strlen(v) : 0;

	if (n == 0 || n >= SFS_HTTP_VALIDATOR_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return false;
	memcpy(out, v, n + 1);
	return true;
}

/* The answer's Last-Modified, when it is a second or more before its
 * Date: a change within the second it was sent would keep the same
 * Last-Modified, and a server would take If-Modified-Since for it
 * unchanged (RFC 9110 8.8.2.2 holds such a date weak). */
static const char *strong_last_modified(CURL *curl)
{
	const char *lm = header(curl, "Last-Modified", 0, NULL);
	const char *date = header(curl, "Date", 0, NULL);
	time_t m = lm ? curl_getdate(lm, NULL) : -1;
	time_t d = date ? curl_getdate(date, NULL) : -1;

	return m >= 0 && d >= 0 && m < d ? lm : NULL;
}

void mcp_http_cache_learn(CURL *curl, long status, struct sfs_http_cache *c)
{
	struct directives d = { .max_age = -1 };
	size_t amount = 1;

	for (size_t i = 0; i < amount; i++) {
		const char *line = header(curl, "Cache-Control", i, &amount);
		if (line)
			read_directives(line, &d);
	}
	c->not_modified = status == 304;
	c->no_store = d.no_store;
	c->fresh_ms = lifetime_ms(curl, &d);
	/* a 304 updates what it gives and keeps the rest (RFC 9111 4.3.4) */
	if (!keep_validator(header(curl, "ETag", 0, NULL), c->etag) &&
	    status != 304)
		c->etag[0] = '\0';
	if (!keep_validator(strong_last_modified(curl), c->last_modified) &&
	    status != 304)
		c->last_modified[0] = '\0';
	if (d.no_store)
		c->etag[0] = c->last_modified[0] = '\0';
}
