/*
 * fetched.c - what the kinds of source that serve a fetched copy (git
 * remotes, MCP servers, well-known indexes) say at discover, in one
 * wording: a bad URL, no cache folder to fetch into, nothing fetched yet;
 * and what the two that store a listing (MCP servers, well-known indexes)
 * do with it, in one way: load the stored listing a build serves, begin
 * discover, list a skill's files, tell whether a read may open a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot.h"
#include "source.h"
#include "trust.h"

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

int sfs_fetched_read(const char *path, off_t max, char **text, size_t *len,
                     struct stat *st)
{
	int fd = sfs_cache_open_read(path);
	int rc = 0;

	*text = NULL;
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		rc = -errno;
	else if (st->st_size > max)
		rc = -EFBIG;
	if (rc == 0 && !(*text = malloc((size_t)st->st_size + 1)))
		rc = -ENOMEM;
	ssize_t n = rc == 0 ? pread(fd, *text, (size_t)st->st_size, 0) : 0;
	if (rc == 0 && n != st->st_size)
		rc = n < 0 ? -errno : -EIO;
	close(fd);
	if (rc < 0) {
		free(*text);
		*text = NULL;
		return rc;
	}
	(*text)[n] = '\0';
	*len = (size_t)n;
	return 0;
}

/* The hex name of the listing to serve (keep while it is stored, else
 * the current one) into hex: 0, -ENOENT when none, -ENOMEM. */
static int listing_to_serve(const char *state, const char *keep,
                            char hex[65])
{
	char *path = keep[0] ? sfs_mcp_listing_path(state, keep) : NULL;
	char *text;
	struct stat st;
	size_t len;

	if (path && access(path, F_OK) == 0) {
		free(path);
		snprintf(hex, 65, "%s", keep);
		return 0;
	}
	free(path);
	if (!(path = sfs_mcp_current_path(state)))
		return -ENOMEM;
	int rc = sfs_fetched_read(path, 64, &text, &len, &st);
	free(path);
	if (rc == -ENOMEM)
		return rc;
	if (rc == 0 && len == 64)
		snprintf(hex, 65, "%s", text);
	free(text);
	return rc == 0 && len == 64 ? 0 : -ENOENT;
}

int sfs_fetched_load_listing(const char *state, const char *keep,
                             struct sfs_fetched_listing *out)
{
	char *path, *text;
	struct stat st;
	size_t len;
	int rc = listing_to_serve(state, keep, out->hex);

	if (rc < 0)
		return rc;
	if (!(path = sfs_mcp_listing_path(state, out->hex)))
		return -ENOMEM;
	rc = sfs_fetched_read(path, SFS_FETCHED_LISTING_MAX, &text, &len, &st);
	free(path);
	if (rc == -ENOMEM)
		return rc;
	out->doc = rc == 0 ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(out->doc,
	                                                    "skills")))
		return -ENOENT;
	out->time = st.st_mtim;
	out->uid = st.st_uid;
	out->gid = st.st_gid;
	return 0;
}

int sfs_fetched_discover(struct sfs_scan *s, const struct sfs_source_owned *own,
                         char *(*state_of)(const char *cache_dir,
                                           const char *location),
                         const char *keep, const char *noun,
                         struct sfs_fetched_root *out, bool *exists)
{
	int rc = sfs_fetched_location(s, own->url, &out->location);

	*exists = out->ready = false;
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (!own->cache_dir)
		return sfs_fetched_no_cache(s, own->url, out->location);
	if (!(out->state = state_of(own->cache_dir, out->location)))
		return -ENOMEM;
	rc = sfs_fetched_load_listing(out->state, keep, &out->served);
	if (rc == -ENOENT)
		return sfs_fetched_not_yet(s, own->url, own->note);
	if (rc == 0 && own->note)
		rc = sfs_diag_add_root(s->global, SFS_WARNING, own->url,
		                       "serving the %s %.12s, fetched before: "
		                       "%s", noun, out->served.hex, own->note);
	*exists = out->ready = rc == 0;
	return rc < 0 ? rc : 1;
}

void sfs_fetched_root_free(struct sfs_fetched_root *r)
{
	free(r->location);
	free(r->state);
	cJSON_Delete(r->served.doc);
}

bool sfs_fetched_can_open(const struct sfs_fetched_root *r,
                          const struct sfs_file *f)
{
	return r->ready && S_ISREG(f->mode) && f->hashed;
}

int sfs_fetched_list(const struct sfs_scan *s, const char *dir,
                     struct sfs_arena *arena, struct sfs_diag_list *diags,
                     const struct sfs_fetched_listing *served,
                     const uint8_t id[32], const cJSON *files,
                     sfs_fetched_add_fn *add, void *arg,
                     struct sfs_tree *out)
{
	struct sfs_listed l = { .arena = arena, .id = id, .time = served->time,
	                        .uid = served->uid, .gid = served->gid };
	const cJSON *file;
	bool capped = false;
	int rc = 0;

	sfs_listed_stamp(&l, &out->self, id);
	out->self.mode = S_IFDIR | 0755;
	cJSON_ArrayForEach(file, files) {
		if (l.n >= s->max_files) {
			capped = true;
			break;
		}
		if ((rc = add(arg, &l, file)) < 0)
			break;
	}
	if (rc == 0)
		rc = sfs_scan_finish_listing(s, dir, l.v, l.n, capped, arena,
		                             diags, out);
	free(l.v);
	return rc;
}
