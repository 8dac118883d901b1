/*
 * git_repo.c - what the git source and its fetch both need of a
 * repository: the folder of a remote's clone under the cache folder, and
 * the commit a ref names.  (Each of the two files used to hold one and
 * call the other for the other.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "snapshot.h"
#include "source.h"

/* A name for the clone's folder that says which repository it is: the
 * last part of the URL's path, in letters, digits, '.', '-' and '_'. */
static void readable_name(const char *location, char *out, size_t len)
{
	const char *end = location + strlen(location);

	while (end > location && end[-1] == '/')
		end--;
	const char *start = end;
	while (start > location && start[-1] != '/' && start[-1] != ':')
		start--;
	size_t n = 0;
	for (const char *p = start; p < end && n + 1 < len; p++)
		out[n++] = (char)((*p >= 'a' && *p <= 'z') ||
		                  (*p >= 'A' && *p <= 'Z') ||
		                  (*p >= '0' && *p <= '9') ||
		                  *p == '.' || *p == '-' || *p == '_' ? *p : '_');
	out[n] = '\0';
	if (n >= 4 && strcmp(out + n - 4, ".git") == 0)
		out[n - 4] = '\0';
	if (out[0] == '\0' || out[0] == '.')
		snprintf(out, len, "repo");
}

char *sfs_git_clone_path(const char *cache_dir, const char *location)
{
	uint8_t sum[32];
	char name[64], *path;

	if (!cache_dir || !*cache_dir)
		return NULL;
	sfs_sha256(location, strlen(location), sum);
	readable_name(location, name, sizeof(name));
	if (asprintf(&path, "%s/git/%s-%02x%02x%02x%02x%02x%02x%02x%02x.git",
	             cache_dir, name, sum[0], sum[1], sum[2], sum[3], sum[4],
	             sum[5], sum[6], sum[7]) < 0)
		return NULL;
	return path;
}

/* The commit `ref` names in repo: a full commit id, a branch, a tag, or
 * (NULL) HEAD.  Returns 0 or libgit2's error. */
int sfs_git_find_commit(git_repository *repo, const char *ref,
                        git_commit **out)
{
	git_object *obj = NULL;
	git_reference *r;
	int rc;

	if (!ref) {
		rc = git_revparse_single(&obj, repo, "HEAD");
	} else if (sfs_source_is_commit_id(ref)) {
		git_oid id;
		rc = git_oid_fromstr(&id, ref);
		if (rc == 0)
			rc = git_object_lookup(&obj, repo, &id,
			                       GIT_OBJECT_COMMIT);
	} else {
		rc = git_reference_dwim(&r, repo, ref);
		if (rc == 0) {
			rc = git_reference_peel(&obj, r, GIT_OBJECT_COMMIT);
			git_reference_free(r);
		}
	}
	if (rc == 0) {
		rc = git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT);
		git_object_free(obj);
	}
	return rc;
}
