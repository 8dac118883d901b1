/*
 * source_git_fetch.c - bringing a git root up to date: a remote
 * repository (git+https://, git+http://, git+ssh://) is fetched into a
 * bare clone of its own under the cache folder, made on first use; a
 * local one (git+file://) is read in place and needs no fetch.  Either
 * way the answer is the commit the root's ref names now.
 *
 * The clone keeps the remote's branches and tags under their own names
 * (refs/heads/..., refs/tags/...) and its HEAD, so a ref resolves in the
 * clone exactly as in the remote repository, and source_git.c reads the
 * clone as it reads a local repository.  A fetch only adds objects and
 * moves refs: a generation that serves an older commit of the clone
 * keeps reading its blobs while the fetch runs and after it.
 *
 * This runs on a thread of the caller's (the mount's fetcher), never in
 * a build: a build reads what the clone holds and never waits for the
 * network.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "snapshot.h"
#include "source.h"
#include "trust.h"

/* The remote's branches and tags, under the same names in the clone. */
static char *fetch_refspecs[] = {
	"+refs/heads/*:refs/heads/*",
	"+refs/tags/*:refs/tags/*",
};

static const char *git_message(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown error";
}

/* The commit `ref` (NULL: HEAD) names in repo, as hex into out. */
static int resolve_ref(git_repository *repo, const char *ref, char *out,
                       size_t len)
{
	git_commit *c;
	int rc = sfs_git_find_commit(repo, ref, &c);

	if (rc < 0)
		return rc;
	git_oid_tostr(out, len, git_commit_id(c));
	git_commit_free(c);
	return 0;
}

/* Credentials for ssh: the user's agent, once per fetch (libgit2 asks
 * again when a credential is refused; asking the agent twice would loop).
 * An https remote that asks for credentials is refused: say so. */
static int credentials(git_credential **out, const char *url,
                       const char *user, unsigned int allowed, void *arg)
{
	int *asked = arg;

	(void)url;
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !*asked) {
		*asked = 1;
		return git_credential_ssh_key_from_agent(out, user ? user
		                                                   : "git");
	}
	return GIT_PASSTHROUGH;
}

/* Certificates: what OpenSSL's variables name, when set (a private
 * certificate authority), else the library's own default. */
static void use_cert_locations(void)
{
	const char *file = getenv("SSL_CERT_FILE");
	const char *dir = getenv("SSL_CERT_DIR");

	if ((file && *file) || (dir && *dir))
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS,
		                 file && *file ? file : NULL,
		                 dir && *dir ? dir : NULL);
}

/* Points the clone's HEAD at the remote's default branch. */
static void follow_remote_head(git_repository *repo, git_remote *remote)
{
	git_buf head = { 0 };

	if (git_remote_default_branch(&head, remote) == 0)
		git_repository_set_head(repo, head.ptr);
	git_buf_dispose(&head);
}

static int fetch(git_repository *repo, const char *location, char *why,
                 size_t wlen)
{
	git_remote *remote;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_strarray specs = { fetch_refspecs, 2 };
	int asked = 0;

	git_remote_create_options co = GIT_REMOTE_CREATE_OPTIONS_INIT;

	use_cert_locations();
	/* anonymous, with the refspecs given below; no url.*.insteadOf of
	 * the user's git config: the URL is taken as given (and libgit2 1.5
	 * leaks a regex match for every config entry that rewriting reads) */
	co.repository = repo;
	co.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	           GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, location, &co) < 0) {
		snprintf(why, wlen, "%s: %s", location, git_message());
		return -EINVAL;
	}
	fo.callbacks.credentials = credentials;
	fo.callbacks.payload = &asked;
	fo.prune = GIT_FETCH_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	int rc = git_remote_fetch(remote, &specs, &fo, NULL);
	if (rc == 0)
		follow_remote_head(repo, remote);
	else
		snprintf(why, wlen, "cannot fetch %s: %s (git ls-remote %s "
		         "tells whether it can be reached)", location,
		         git_message(), location);
	git_remote_free(remote);
	return rc == 0 ? 0 : -EIO;
}

/* rm -r of a clone that was being made. */
static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* The first fetch of a remote: into a new bare repository beside the
 * clone's place, renamed into it only once the fetch succeeded, so that
 * a failed first fetch leaves nothing (a clone without a commit would
 * read as an empty repository), and two mounts making the same clone at
 * once do not write into one half-made folder. */
static int make_clone(const struct sfs_source_url *u, const char *path,
                      char *why, size_t wlen)
{
	git_repository *repo;
	char *tmp;
	int rc = sfs_cache_mkdirs(path);

	if (rc < 0) {
		snprintf(why, wlen, "cannot make the cache folder for %s: %s",
		         path, sfs_strerror(-rc));
		return rc;
	}
	if (asprintf(&tmp, "%s.new-%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	if (git_repository_init(&repo, tmp, 1) < 0) {
		snprintf(why, wlen, "cannot make a clone in %s: %s", tmp,
		         git_message());
		free(tmp);
		return -EIO;
	}
	/* the clone is the user's alone, whatever the umask (trust.h) */
	if (chmod(tmp, 0700) < 0) {
		rc = -errno;
		snprintf(why, wlen, "cannot make the clone %s private: %s", tmp,
		         sfs_strerror(-rc));
	} else {
		rc = fetch(repo, u->location, why, wlen);
	}
	git_repository_free(repo);
	/* another mount that made it first wins: its clone is as good */
	if (rc == 0 && rename(tmp, path) < 0 && errno != EEXIST &&
	    errno != ENOTEMPTY) {
		snprintf(why, wlen, "cannot move the clone into %s: %s", path,
		         sfs_strerror(errno));
		rc = -EIO;
	}
	nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp);
	return rc;
}

static int update_remote(const struct sfs_source_url *u, const char *clone,
                         char *commit, size_t clen, char *why, size_t wlen)
{
	git_repository *repo;
	bool fetched = false;
	int rc = sfs_trust_dir_open(clone, false, why, wlen);

	if (rc == -EPERM)   /* another user's clone, or one others may write */
		return rc;
	if (rc >= 0) {
		close(rc);
		rc = 0;
	} else {
		why[0] = '\0';
		rc = make_clone(u, clone, why, wlen);
		if (rc < 0)
			return rc;
		fetched = true;
	}
	if (git_repository_open_bare(&repo, clone) < 0) {
		snprintf(why, wlen, "cannot use the clone %s: %s (remove it: "
		         "the next fetch makes it again)", clone, git_message());
		return -EIO;
	}
	/* a commit the clone has already is served without the network */
	if (!fetched && !(u->ref && sfs_source_is_commit_id(u->ref) &&
	                  resolve_ref(repo, u->ref, commit, clen) == 0))
		rc = fetch(repo, u->location, why, wlen);
	if (rc == 0 && resolve_ref(repo, u->ref, commit, clen) < 0) {
		snprintf(why, wlen, "%s is not a branch, tag or commit of %s "
		         "(git ls-remote %s lists its branches and tags)",
		         u->ref ? u->ref : "HEAD", u->location, u->location);
		rc = -ENOENT;
	}
	git_repository_free(repo);
	return rc;
}

static int update_local(const struct sfs_source_url *u, char *commit,
                        size_t clen, char *why, size_t wlen)
{
	git_repository *repo;

	if (git_repository_open_ext(&repo, u->location,
	                            GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		snprintf(why, wlen, "%s is not a git repository (%s)",
		         u->location, git_message());
		return -ENOENT;
	}
	int rc = resolve_ref(repo, u->ref, commit, clen);
	if (rc < 0)
		snprintf(why, wlen, "%s is not a branch, tag or commit of %s",
		         u->ref ? u->ref : "HEAD", u->location);
	git_repository_free(repo);
	return rc < 0 ? -ENOENT : 0;
}

int sfs_source_git_update(const char *root, const char *cache_dir,
                          char *commit, size_t clen, char *why, size_t wlen)
{
	struct sfs_source_url u;
	int rc = sfs_source_url_parse_why(root, &u, why, wlen);

	if (rc < 0)
		return rc;
	if (git_libgit2_init() < 0) {
		sfs_source_url_free(&u);
		snprintf(why, wlen, "cannot start libgit2");
		return -ENOMEM;
	}
	if (u.kind == SFS_URL_GIT_FILE) {
		rc = update_local(&u, commit, clen, why, wlen);
	} else {
		char *clone = sfs_git_clone_path(cache_dir, u.location);
		if (clone && (rc = sfs_cache_check(cache_dir, why, wlen)) < 0) {
			/* why says which folder, and what to do */
		} else if (clone) {
			rc = update_remote(&u, clone, commit, clen, why, wlen);
		} else {
			snprintf(why, wlen, "no cache folder to fetch into "
			         "(set XDG_CACHE_HOME or HOME, or -o cache_dir)");
			rc = -EINVAL;
		}
		free(clone);
	}
	git_libgit2_shutdown();
	sfs_source_url_free(&u);
	return rc;
}
