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
 *
 * A remote's update runs on a thread of its own (a job), which the
 * caller waits for while its options' stop says to go on and the job
 * makes progress.  libgit2 1.5 has no deadline on a connection or an
 * answer (GIT_OPT_SET_SERVER_TIMEOUT is 1.7's) and cuts a fetch short
 * only from a callback, which comes only with data, so a server that
 * never answers, or answers a byte a second, would hold the caller for
 * as long as it likes.  The caller stops waiting instead: when told to
 * stop (-ECANCELED), and once the job made no progress (an object, a
 * kibibyte of pack, a message of the server's) for the options'
 * fetch_timeout_s (-ETIMEDOUT).  The job runs on alone, owning what it
 * uses, until its next callback ends it, it ends, or the process exits.
 * (The job holds its own git_libgit2_init, so the library is never shut
 * down under it.)
 *
 * One job at a time works in a clone, whatever the process: each holds
 * an flock on a file beside the clone (CLONE.fetching) while it works,
 * and sets the file's time as it makes progress.  A fetch that follows
 * waits for the lock while the holder makes progress, and skips the
 * clone at once (-EBUSY) when it made none for fetch_timeout_s: that is
 * a fetch given up on a server that still holds it, and waiting behind
 * it would hold the caller as long.  What a job that never ended left in
 * the clone (libgit2's *.lock files and *_git2_* temporaries, a first
 * clone's CLONE.new) is removed by the next one to hold the lock, before
 * it fetches: a lock file left behind would fail every later fetch.
 * Refs move only once a pack is whole, so what is left is garbage, never
 * a ref to a missing object.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "git_insteadof.h"
#include "git_verify.h"
#include "snapshot.h"
#include "sshsig.h"
#include "source.h"
#include "tls_exit.h"
#include "trust.h"

/* The remote's branches and tags, under the same names in the clone. */
static char *fetch_refspecs[] = {
	"+refs/heads/*:refs/heads/*",
	"+refs/tags/*:refs/tags/*",
};

/* One update of a remote root, shared by its thread and the caller that
 * waits for it; the last of the two to let go frees it. */
struct job {
	pthread_mutex_t lock;
	pthread_cond_t ended;
	int refs;
	bool done;
	bool abandoned;          /* its caller gave up: end at the next
	                            callback */
	long long progress_ms;   /* when it last moved (CLOCK_MONOTONIC) */
	unsigned timeout_s;      /* no progress for this long: give up */
	int lock_fd;             /* CLONE.fetching while held, or -1 */
	long long touched_ms;    /* when lock_fd's time was last set */
	struct sfs_source_url u;
	char *clone;
	int rc;
	char commit[GIT_OID_HEXSZ + 1];
	char why[1024];
};

/* A fetch moves when the server sends objects, or this much more of a
 * pack: a server that trickles a byte a second makes no progress. */
#define PROGRESS_BYTES 1024

static long long clock_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* j made progress: its caller waits on, and CLONE.fetching's time says
 * so to a fetch of another process waiting for the clone (at most every
 * TOUCH_MS, well within the shortest timeout). */
#define TOUCH_MS 250
static void job_progress(struct job *j)
{
	long long now = clock_ms(CLOCK_MONOTONIC);

	pthread_mutex_lock(&j->lock);
	j->progress_ms = now;
	pthread_mutex_unlock(&j->lock);
	if (j->lock_fd >= 0 && now - j->touched_ms >= TOUCH_MS) {
		futimens(j->lock_fd, NULL);
		j->touched_ms = now;
	}
}

/* Whether j is to end: its caller gave up, or it made no progress for
 * its timeout (also when no caller waits any more: a start's). */
static bool job_gave_up(struct job *j)
{
	long long now = clock_ms(CLOCK_MONOTONIC);

	pthread_mutex_lock(&j->lock);
	bool up = j->abandoned ||
	          now - j->progress_ms >= (long long)j->timeout_s * 1000;
	pthread_mutex_unlock(&j->lock);
	return up;
}

/* Why a fetch was given up, into why. */
static void say_gave_up(const struct job *j, char *why, size_t wlen)
{
	snprintf(why, wlen, "the fetch of %s gave up after %u s without "
	         "progress (-o fetch_timeout; git ls-remote %s tells whether "
	         "the server answers)", j->u.location, j->timeout_s,
	         j->u.location);
}

/* A pack larger than this, or of more objects, is no skills
 * repository's: a remote that sends one without end (as fast as it is
 * taken: no timeout ends it) filled the cache's disk, or with tiny
 * objects grew the daemon by ~120 bytes an object, until it stopped. */
#define MAX_PACK_BYTES (1u << 30)
#define MAX_PACK_OBJECTS 1000000u

/* What libgit2's callbacks share during one fetch. */
struct fetch_watch {
	struct job *job;
	int asked;               /* the ssh agent was asked */
	bool too_big;            /* the pack passed a MAX_PACK_* */
	size_t bytes;            /* received_bytes at the last progress */
	unsigned objects;        /* received + indexed objects and deltas
	                            at the last progress */
};

/* libgit2 calls this as a pack comes; a non-zero return ends the fetch
 * (GIT_EUSER). */
static int on_transfer(const git_indexer_progress *p, void *arg)
{
	struct fetch_watch *w = arg;
	unsigned objects = p->received_objects + p->indexed_objects +
	                   p->indexed_deltas;

	if (objects != w->objects || p->received_bytes >= w->bytes +
	                                                  PROGRESS_BYTES) {
		w->objects = objects;
		w->bytes = p->received_bytes;
		job_progress(w->job);
	}
	if (p->received_bytes > MAX_PACK_BYTES ||
	    p->received_objects > MAX_PACK_OBJECTS) {
		w->too_big = true;
		return -1;
	}
	return job_gave_up(w->job) ? -1 : 0;
}

/* The server's own progress messages ("Counting objects"). */
static int on_sideband(const char *text, int len, void *arg)
{
	struct fetch_watch *w = arg;

	(void)text;
	(void)len;
	job_progress(w->job);
	return job_gave_up(w->job) ? -1 : 0;
}

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
	struct fetch_watch *w = arg;

	(void)url;
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !w->asked) {
		w->asked = 1;
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

/* Fetches j's location (as given; fetched from `url`, what the user's
 * url.<base>.insteadOf makes of it) into repo; libgit2's callbacks mark
 * j's progress and end the fetch once j gave up (job_gave_up). */
static int fetch(git_repository *repo, struct job *j, const char *url,
                 char *why, size_t wlen)
{
	const char *location = j->u.location;
	git_remote *remote;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_strarray specs = { fetch_refspecs, 2 };
	struct fetch_watch watch = { .job = j };
	char as[1200] = "";

	git_remote_create_options co = GIT_REMOTE_CREATE_OPTIONS_INIT;

	if (strcmp(url, location) != 0)
		snprintf(as, sizeof(as), " (as %s, by url.insteadOf)", url);
	use_cert_locations();
	/* anonymous, with the refspecs given below; url.*.insteadOf was
	 * applied by git_insteadof.c (git_insteadof.c says why not here) */
	co.repository = repo;
	co.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	           GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, url, &co) < 0) {
		snprintf(why, wlen, "%s%s: %s", location, as, git_message());
		return -EINVAL;
	}
	fo.callbacks.credentials = credentials;
	fo.callbacks.transfer_progress = on_transfer;
	fo.callbacks.sideband_progress = on_sideband;
	fo.callbacks.payload = &watch;
	fo.prune = GIT_FETCH_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	int rc = git_remote_fetch(remote, &specs, &fo, NULL);
	if (rc == 0)
		follow_remote_head(repo, remote);
	else if (watch.too_big)
		snprintf(why, wlen, "the fetch of %s%s stopped: its pack is "
		         "larger than %u MiB or %u objects, more than a "
		         "skills repository's", location, as,
		         MAX_PACK_BYTES >> 20, MAX_PACK_OBJECTS);
	else if (rc == GIT_EUSER && job_gave_up(j))
		say_gave_up(j, why, wlen);
	else
		snprintf(why, wlen, "cannot fetch %s%s: %s (git ls-remote %s "
		         "tells whether it can be reached)", location, as,
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

static void remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A file a fetch that never ended left in a clone: a lock file
 * (refs/heads/main.lock, packed-refs.lock, pack-*.idx.lock: libgit2
 * refuses to write what one locks) or a temporary (objects/pack/
 * pack_git2_XXXXXX, objects/tmp_object_git2_XXXXXX). */
static int remove_leftover(const char *path, const struct stat *st,
                           int flag, struct FTW *ftw)
{
	const char *name = path + ftw->base;
	size_t n = strlen(name);

	if (flag == FTW_F && S_ISREG(st->st_mode) &&
	    ((n > 5 && strcmp(name + n - 5, ".lock") == 0) ||
	     strstr(name, "_git2_")))
		unlink(path);
	return 0;
}

/* The first fetch of a remote: into a new bare repository beside the
 * clone's place (CLONE.new), renamed into it only once the fetch
 * succeeded, so that a failed first fetch leaves nothing (a clone
 * without a commit would read as an empty repository).  The caller holds
 * the clone's lock: CLONE.new is a dead job's, if anything. */
static int make_clone(struct job *j, const char *url, const char *path,
                      char *why, size_t wlen)
{
	git_repository *repo;
	char *tmp;
	int rc;

	if (asprintf(&tmp, "%s.new", path) < 0)
		return -ENOMEM;
	remove_tree(tmp);
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
		rc = fetch(repo, j, url, why, wlen);
	}
	git_repository_free(repo);
	/* (a clone there is another program's, made as this one is) */
	if (rc == 0 && rename(tmp, path) < 0 && errno != EEXIST &&
	    errno != ENOTEMPTY) {
		snprintf(why, wlen, "cannot move the clone into %s: %s", path,
		         sfs_strerror(errno));
		rc = -EIO;
	}
	remove_tree(tmp);
	free(tmp);
	return rc;
}

/* Another job holds the clone's lock (fd, on CLONE.fetching at path):
 * whether to wait on.  The holder sets the file's time as it makes
 * progress, which is progress of j's too (*seen: the time last seen);
 * a holder that made none for j's timeout is one a fetch gave up, whose
 * server still holds it: j skips the clone (-EBUSY) rather than wait
 * behind it.  Naps STOP_POLL_MS when j waits on. */
#define STOP_POLL_MS 100
static int wait_for_holder(struct job *j, int fd, const char *path,
                           long long *seen, char *why, size_t wlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int e = errno;
		snprintf(why, wlen, "cannot read %s: %s", path,
		         sfs_strerror(e));
		return -e;
	}
	long long mtime = (long long)st.st_mtim.tv_sec * 1000 +
	                  st.st_mtim.tv_nsec / 1000000;
	if (mtime != *seen) {
		*seen = mtime;
		job_progress(j);
	}
	if (clock_ms(CLOCK_REALTIME) - mtime > (long long)j->timeout_s * 1000) {
		snprintf(why, wlen, "the fetch of %s gave up after %u s "
		         "without progress: an earlier fetch that made none "
		         "for as long still holds its clone (%s), which is "
		         "fetched again once that one ends", j->u.location,
		         j->timeout_s, path);
		return -EBUSY;
	}
	if (job_gave_up(j)) {
		say_gave_up(j, why, wlen);
		return -ETIMEDOUT;
	}
	struct timespec nap = { 0, STOP_POLL_MS * 1000000L };
	nanosleep(&nap, NULL);
	return 0;
}

/* Takes the clone's lock (CLONE.fetching) for j, waiting while another
 * job, of this process or another, holds it and moves (wait_for_holder).
 * The file is removed when the lock is let go (unlock_clone), so a cache
 * folder at rest holds only clones: a lock taken on a file that is no
 * longer the one at `path` is taken again on the new one.  Returns its
 * descriptor, its time set to now. */
static int lock_clone(struct job *j, const char *path, char *why,
                      size_t wlen)
{
	long long seen = -1;

	for (;;) {
		struct stat held, now;
		int fd = sfs_cache_open_append(path, 0600);
		if (fd < 0) {
			snprintf(why, wlen, "cannot make the lock file %s: %s",
			         path, sfs_strerror(-fd));
			return fd;
		}
		int rc = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : 0;
		if (rc == -EWOULDBLOCK) {
			rc = wait_for_holder(j, fd, path, &seen, why, wlen);
			close(fd);
			if (rc < 0)
				return rc;
			continue;
		}
		if (rc == 0 && fstat(fd, &held) < 0)
			rc = -errno;
		if (rc < 0) {
			snprintf(why, wlen, "cannot lock %s: %s", path,
			         sfs_strerror(-rc));
			close(fd);
			return rc;
		}
		if (lstat(path, &now) == 0 && now.st_dev == held.st_dev &&
		    now.st_ino == held.st_ino) {
			futimens(fd, NULL);
			job_progress(j);   /* the fetch starts now */
			return fd;
		}
		close(fd);   /* removed by the job that held it: again */
	}
}

static void unlock_clone(const char *path, int fd)
{
	sfs_cache_unlink(path);
	close(fd);   /* and the flock with it */
}

/* What j's remote root names now, fetched into its clone; the caller
 * holds the clone's lock. */
static int update_locked(struct job *j, char *why, size_t wlen)
{
	const struct sfs_source_url *u = &j->u;
	const char *clone = j->clone;
	char *commit = j->commit;
	size_t clen = sizeof(j->commit);
	git_repository *repo;
	bool fetched = false;
	char *url = sfs_git_insteadof(u->location);
	int rc = url ? sfs_trust_dir_open(clone, false, why, wlen) : -ENOMEM;

	if (rc == -EPERM || rc == -ENOMEM) {
		/* another user's clone, or one others may write */
		free(url);
		return rc;
	}
	if (rc >= 0) {
		close(rc);
		nftw(clone, remove_leftover, 16, FTW_PHYS);
		rc = 0;
	} else {
		why[0] = '\0';
		rc = make_clone(j, url, clone, why, wlen);
		fetched = rc == 0;
	}
	if (rc == 0 && git_repository_open_bare(&repo, clone) < 0) {
		snprintf(why, wlen, "cannot use the clone %s: %s (remove it: "
		         "the next fetch makes it again)", clone, git_message());
		rc = -EIO;
	} else if (rc == 0) {
		/* a commit the clone has already is served without the
		 * network */
		if (!fetched && !(u->ref && sfs_source_is_commit_id(u->ref) &&
		                  resolve_ref(repo, u->ref, commit, clen) == 0))
			rc = fetch(repo, j, url, why, wlen);
		if (rc == 0 && resolve_ref(repo, u->ref, commit, clen) < 0) {
			snprintf(why, wlen, "%s is not a branch, tag or commit "
			         "of %s (git ls-remote %s lists its branches and "
			         "tags)", u->ref ? u->ref : "HEAD", u->location,
			         u->location);
			rc = -ENOENT;
		}
		git_repository_free(repo);
	}
	free(url);
	return rc;
}


static void job_put(struct job *j)
{
	pthread_mutex_lock(&j->lock);
	bool last = --j->refs == 0;
	pthread_mutex_unlock(&j->lock);
	if (!last)
		return;
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->ended);
	sfs_source_url_free(&j->u);
	free(j->clone);
	free(j);
}

static void *job_run(void *arg)
{
	struct job *j = arg;
	char *path;
	int rc = -ENOMEM, lock;

	if (asprintf(&path, "%s.fetching", j->clone) >= 0) {
		rc = lock = lock_clone(j, path, j->why, sizeof(j->why));
		if (lock >= 0) {
			j->lock_fd = lock;
			j->touched_ms = clock_ms(CLOCK_MONOTONIC);
			rc = update_locked(j, j->why, sizeof(j->why));
			j->lock_fd = -1;
			unlock_clone(path, lock);
		}
		free(path);
	}
	pthread_mutex_lock(&j->lock);
	j->rc = rc;
	j->done = true;
	pthread_cond_signal(&j->ended);
	pthread_mutex_unlock(&j->lock);
	git_libgit2_shutdown();   /* the caller's init for this thread */
	job_put(j);
	return NULL;
}

/* How a wait for a job ended. */
enum job_end { JOB_DONE, JOB_STOPPED, JOB_NO_PROGRESS };

/* Waits for j to end, asking stop every STOP_POLL_MS, and gives up on
 * it once it made no progress for its timeout (it then ends at its next
 * callback, if any comes). */
static enum job_end job_wait(struct job *j, const struct sfs_source_options *o)
{
	bool (*stop)(void *) = o ? o->stop : NULL;
	enum job_end end = JOB_DONE;

	pthread_mutex_lock(&j->lock);
	while (!j->done) {
		if (stop && stop(o->stop_arg)) {
			j->abandoned = true;   /* end at the next callback */
			end = JOB_STOPPED;
			break;
		}
		if (clock_ms(CLOCK_MONOTONIC) - j->progress_ms >=
		    (long long)j->timeout_s * 1000) {
			j->abandoned = true;
			end = JOB_NO_PROGRESS;
			break;
		}
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += STOP_POLL_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&j->ended, &j->lock, &t);
	}
	pthread_mutex_unlock(&j->lock);
	return end;
}

static struct job *job_new(struct sfs_source_url *u, char *clone,
                           const struct sfs_source_options *o)
{
	struct job *j = calloc(1, sizeof(*j));
	pthread_condattr_t ca;

	if (!j)
		return NULL;
	int rc = pthread_condattr_init(&ca);
	if (rc == 0) {
		rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (rc == 0)
			rc = pthread_cond_init(&j->ended, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (rc != 0) {
		free(j);
		return NULL;
	}
	pthread_mutex_init(&j->lock, NULL);
	j->refs = 2;
	j->u = *u;                  /* the job's from now on */
	*u = (struct sfs_source_url){ 0 };
	j->clone = clone;
	j->lock_fd = -1;
	j->timeout_s = o && o->fetch_timeout_s ? o->fetch_timeout_s
	                                       : SFS_FETCH_TIMEOUT_S;
	j->progress_ms = clock_ms(CLOCK_MONOTONIC);
	return j;
}

/* Brings the clone of a remote root up to date on a job's thread (see
 * the top), waiting for it while o's stop lets it. */
static int update_remote(struct sfs_source_url *u, char *clone,
                         const struct sfs_source_options *o, char *commit,
                         size_t clen, char *why, size_t wlen)
{
	struct job *j = job_new(u, clone, o);
	pthread_t t;

	if (!j) {
		free(clone);
		return -ENOMEM;
	}
	int rc = git_libgit2_init() < 0 ? -ENOMEM : 0;   /* the job's */
	if (rc == 0) {
		rc = -pthread_create(&t, NULL, job_run, j);
		if (rc < 0)
			git_libgit2_shutdown();
	}
	if (rc < 0) {
		snprintf(why, wlen, "cannot start a fetch of %s: %s",
		         j->u.location, sfs_strerror(-rc));
		j->refs = 1;
		job_put(j);
		return rc;
	}
	enum job_end end = job_wait(j, o);
	/* A job that ended is joined: it has only its exit left, and a
	 * program that returned before that exit ran libgit2's thread-state
	 * destructor saw that state leak (LeakSanitizer, skillsfs check of a
	 * git source in CI).  One given up on is left to end by itself. */
	if (end == JOB_DONE)
		pthread_join(t, NULL);
	else
		pthread_detach(t);
	if (end == JOB_STOPPED) {
		snprintf(why, wlen, "the fetch of %s was stopped",
		         j->u.location);
		rc = -ECANCELED;
	} else if (end == JOB_NO_PROGRESS) {
		say_gave_up(j, why, wlen);
		rc = -ETIMEDOUT;
	} else {
		rc = j->rc;
		snprintf(commit, clen, "%s", j->commit);
		snprintf(why, wlen, "%s", j->why);
	}
	job_put(j);
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

/* A root pinned to a commit id under verify: (opts->verify) must name a
 * commit an allowed signer signed: else -EKEYREJECTED, which refuses
 * the mount at start (fs/fetcher.c), for nothing else could be served. */
static int check_pinned(const struct sfs_source_url *u, const char *path,
                        const struct sfs_source_options *opts, char *why,
                        size_t wlen)
{
	struct sfs_signers *signers;
	git_repository *repo;
	git_oid id;
	char who[SFS_PRINCIPAL_MAX];

	if (!opts || !opts->verify || !u->ref ||
	    !sfs_source_is_commit_id(u->ref))
		return 0;
	int rc = sfs_git_signers_load(opts->verify, &signers, why, wlen);
	if (rc < 0)
		return rc == -ENOMEM ? rc : -EKEYREJECTED;
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
	                            NULL) < 0 || git_oid_fromstr(&id, u->ref) < 0) {
		sfs_signers_free(signers);
		return 0;   /* the build says what cannot be read */
	}
	char w[256] = "";
	rc = sfs_git_verify_commit(repo, &id, signers, who, w, sizeof(w));
	if (rc < 0 && rc != -ENOMEM) {
		snprintf(why, wlen, "the pinned commit %.12s is not signed by an "
		         "allowed signer of %s: %s", u->ref, opts->verify, w);
		rc = -EKEYREJECTED;
	}
	git_repository_free(repo);
	sfs_signers_free(signers);
	return rc;
}

int sfs_source_git_update(const char *root, const char *cache_dir,
                          const struct sfs_source_options *opts,
                          char *commit, size_t clen, char *why, size_t wlen)
{
	struct sfs_source_url u;
	int rc = sfs_source_url_parse_why(root, &u, why, wlen);

	if (rc < 0)
		return rc;
	sfs_tls_no_atexit();
	if (git_libgit2_init() < 0) {
		sfs_source_url_free(&u);
		snprintf(why, wlen, "cannot start libgit2");
		return -ENOMEM;
	}
	if (u.where == SFS_URL_LOCAL) {
		rc = update_local(&u, commit, clen, why, wlen);
		if (rc == 0)
			rc = check_pinned(&u, u.location, opts, why, wlen);
	} else {
		char *clone = sfs_git_clone_path(cache_dir, u.location);
		if (clone && (rc = sfs_cache_check(cache_dir, why, wlen)) < 0) {
			/* why says which folder, and what to do */
		} else if (clone && (rc = sfs_cache_mkdirs(clone)) < 0) {
			snprintf(why, wlen, "cannot make the cache folder for "
			         "%s: %s", clone, sfs_strerror(-rc));
		} else if (clone) {
			char *path = strdup(clone);
			rc = update_remote(&u, clone, opts, commit, clen, why,
			                   wlen);
			clone = NULL;   /* the job's */
			if (rc == 0 && path)
				rc = check_pinned(&u, path, opts, why, wlen);
			free(path);
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
