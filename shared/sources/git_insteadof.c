/*
 * git_insteadof.c - url.<base>.insteadOf, applied to a git source's URL
 * as git applies it: of every value that starts the URL, the longest
 * wins, and its <base> replaces it.
 *
 * libgit2 would do this itself when a remote is made without
 * GIT_REMOTE_CREATE_SKIP_INSTEADOF, but libgit2 1.5 leaks a regex match
 * for every configuration entry that its rewriting looks at (ASan finds
 * it in every fetch), so the entries are walked here with a plain
 * iterator, which matches nothing by regex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "git_insteadof.h"

#define PREFIX "url."
#define SUFFIX ".insteadof"   /* libgit2 gives section and key lowercase */

/* The <base> of an entry named url.<base>.insteadof (its length in
 * *len), or NULL for any other entry (url.<base>.pushinsteadof too). */
static const char *base_of(const char *name, size_t *len)
{
	size_t n = strlen(name), p = strlen(PREFIX), s = strlen(SUFFIX);

	if (n <= p + s || strncmp(name, PREFIX, p) != 0 ||
	    strcmp(name + n - s, SUFFIX) != 0)
		return NULL;
	*len = n - p - s;
	return name + p;
}

char *sfs_git_insteadof(const char *url)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	char *best = NULL;          /* <base> of the longest match */
	size_t best_value = 0;      /* the length of its value */

	if (git_config_open_default(&cfg) == 0 &&
	    git_config_iterator_new(&it, cfg) == 0)
		while (git_config_next(&e, it) == 0) {
			size_t blen, vlen = e->value ? strlen(e->value) : 0;
			const char *base = base_of(e->name, &blen);
			if (!base || vlen == 0 || vlen <= best_value ||
			    strncmp(url, e->value, vlen) != 0)
				continue;
			char *copy = strndup(base, blen);
			if (!copy)
				break;
			free(best);
			best = copy;
			best_value = vlen;
		}
	git_config_iterator_free(it);
	git_config_free(cfg);
	char *out;
	if (asprintf(&out, "%s%s", best ? best : "", url + best_value) < 0)
		out = NULL;
	free(best);
	return out;
}
