/*
 * fetched.c - what the kinds of source that serve a fetched copy (git
 * remotes, MCP servers, well-known indexes) say at discover, in one
 * wording: a bad URL, no cache folder to fetch into, nothing fetched yet.
 */
#include <errno.h>
#include <stdlib.h>

#include "snapshot.h"
#include "source.h"

int sfs_fetched_location(struct sfs_scan *s, const char *url,
                         char **location)
{
	struct sfs_source_url u;
	const char *why;

	*location = NULL;
	int rc = sfs_source_url_parse(url, &u, &why);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		rc = sfs_diag_add_root(s->global, SFS_ERROR, url, "%s", why);
		return rc < 0 ? rc : 1;
	}
	*location = u.location;
	u.location = NULL;
	sfs_source_url_free(&u);
	return 0;
}

int sfs_fetched_no_cache(struct sfs_scan *s, const char *url,
                         const char *location)
{
	return sfs_diag_add_root(s->global, SFS_ERROR, url, "no cache folder "
	                         "to fetch %s into (set XDG_CACHE_HOME or "
	                         "HOME, or -o cache_dir)", location);
}

int sfs_fetched_not_yet(struct sfs_scan *s, const char *url,
                        const char *note)
{
	return sfs_diag_add_root(s->global, SFS_ERROR, url, "not fetched yet: "
	                         "%s", note ? note : "the first fetch has not "
	                         "finished");
}
