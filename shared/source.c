/*
 * source.c - which kind of source a configured root names: a folder's
 * path, or a URL of another kind (source_url.c).  A new kind of source
 * adds its line here.
 */
#include <errno.h>

#include "source.h"

int sfs_source_open(const char *root, const char *version,
                    struct sfs_source *out)
{
	*out = (struct sfs_source){ .ops = &sfs_source_dir, .root = root };
	if (!sfs_source_is_url(root))
		return 0;
	out->ops = &sfs_source_git;
	out->state = sfs_source_git_new(root, version);
	return out->state ? 0 : -ENOMEM;
}
