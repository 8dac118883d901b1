/*
 * trust.c - the ownership-and-mode rule, and cache files opened under it
 * (trust.h says what each promises).
 *
 * Why a walk from / rather than a stat of the path: a folder another user
 * may write lets that user swap what it holds between the check and the
 * open.  Each folder is opened from the one above with O_NOFOLLOW and
 * looked at through its descriptor, and the next name is opened from
 * that descriptor, so what was checked is what is used.  A symbolic link
 * met on the way is read (readlinkat) and its target walked the same way,
 * from / or from the folder that holds it: $HOME or a cache folder behind
 * a link still works, and the folder holding the link passed the rule.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "sealed.h"
#include "trust.h"

/* As the kernel's limit on links in one path. */
#define MAX_LINKS 40
#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* ---- saying why --------------------------------------------------------- */

static void user_name(uid_t uid, char *out, size_t len)
{
	struct passwd pw, *found = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		snprintf(out, len, "%s (uid %u)", found->pw_name, (unsigned)uid);
	else
		snprintf(out, len, "uid %u", (unsigned)uid);
}

/* "PATH is owned by USER, mode 0NNN: PROBLEM; FIX", -EPERM. */
static int refuse(char *why, size_t wlen, const char *path,
                  const struct stat *st, const char *problem, const char *fix)
{
	char owner[128];

	user_name(st->st_uid, owner, sizeof(owner));
	if (why && wlen)
		snprintf(why, wlen, "refusing %s, owned by %s with mode %04o: %s; "
		         "%s", path, owner, (unsigned)(st->st_mode & 07777),
		         problem, fix);
	return -EPERM;
}

static bool owner_ok(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* A folder on the way passes the rule. */
static int check_folder(const struct stat *st, const char *path, char *why,
                        size_t wlen)
{
	if (!owner_ok(st))
		return refuse(why, wlen, path, st, "a folder on the way belongs "
		              "to another user, who could replace what it holds",
		              "use a folder of yours or root's");
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))
		return refuse(why, wlen, path, st, "others may write this "
		              "folder and replace what it holds",
		              "chmod go-w it, or use another folder");
	return 0;
}

/* A file passes the rule for `kind`. */
static int check_file(const struct stat *st, const char *path,
                      enum sfs_trust_kind kind, off_t max, char *why,
                      size_t wlen)
{
	bool secret = kind == SFS_TRUST_SECRET;

	if (!S_ISREG(st->st_mode))
		return refuse(why, wlen, path, st, "not a regular file (a FIFO, "
		              "a device or a folder could block or mislead the "
		              "reader)", "give a regular file");
	if (!owner_ok(st))
		return refuse(why, wlen, path, st, secret
		              ? "a token must belong to you or root"
		              : "a file another user can change may not steer "
		                "skillsfs (as ssh and cron refuse such files)",
		              "chown it to yourself, or use a copy of your own");
	if (st->st_mode & (secret ? 077 : 022))
		return refuse(why, wlen, path, st, secret
		              ? "others may read or write this token"
		              : "others may write this file",
		              secret ? "chmod 600 it" : "chmod go-w it");
	if (max > 0 && st->st_size > max) {
		if (why && wlen)
			snprintf(why, wlen, "%s is larger than %lld bytes", path,
			         (long long)max);
		return -EFBIG;
	}
	return 0;
}

/* ---- the walk ----------------------------------------------------------- */

struct walk {
	int fd;                    /* the folder reached, checked */
	char here[PATH_MAX];       /* its path, for messages */
	int links;
};

static int walk_from_root(struct walk *w, char *why, size_t wlen)
{
	struct stat st;
	int fd = open("/", OPEN_DIR);

	if (fd < 0)
		return -errno;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = fd;
	strcpy(w->here, "/");
	if (fstat(fd, &st) < 0)
		return -errno;
	return check_folder(&st, "/", why, wlen);
}

static void here_append(struct walk *w, const char *name)
{
	size_t n = strlen(w->here);

	if (strcmp(name, "..") == 0) {
		char *slash = strrchr(w->here, '/');
		if (slash && slash != w->here)
			*slash = '\0';
		else
			strcpy(w->here, "/");
		return;
	}
	snprintf(w->here + n, sizeof(w->here) - n, "%s%s",
	         n > 1 ? "/" : "", name);
}

/* Steps into the folder `name` of w->fd, made when missing and create. */
static int step_into(struct walk *w, const char *name, bool create,
                     char *why, size_t wlen)
{
	struct stat st;
	int fd = openat(w->fd, name, OPEN_DIR);

	if (fd < 0 && errno == ENOENT && create && strcmp(name, "..") != 0) {
		if (mkdirat(w->fd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(w->fd, name, OPEN_DIR);
	}
	if (fd < 0)
		return -errno;
	close(w->fd);
	w->fd = fd;
	here_append(w, name);
	if (fstat(fd, &st) < 0)
		return -errno;
	return check_folder(&st, w->here, why, wlen);
}

/* The target of the link `name` in w->fd, then "/" and rest, into out.
 * The link must be the running user's or root's: another user may own
 * one in a sticky folder that passed (/tmp), and lead the walk to any
 * folder of root's; the kernel's fs.protected_symlinks, which refuses
 * that for an open, is off on some systems and does not see a readlink. */
static int follow(struct walk *w, const char *name, const char *rest,
                  char *out, size_t outlen, char *why, size_t wlen)
{
	char target[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	ssize_t n;

	if (++w->links > MAX_LINKS)
		return -ELOOP;
	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode) && !owner_ok(&st)) {
		snprintf(path, sizeof(path), "%s%s%.*s", w->here,
		         strcmp(w->here, "/") ? "/" : "", NAME_MAX, name);
		return refuse(why, wlen, path, &st, "a link another user "
		              "owns leads wherever that user wants",
		              "use the folder it names, or a link of yours");
	}
	n = readlinkat(w->fd, name, target, sizeof(target) - 1);
	if (n < 0)
		return errno == EINVAL ? -ENOTDIR : -errno;
	target[n] = '\0';
	if ((size_t)snprintf(out, outlen, "%s%s%s", target, *rest ? "/" : "",
	                     rest) >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

/* Walks the folders of `path` (the whole of it) from w's folder, or from
 * / when it is absolute. */
static int walk_path(struct walk *w, const char *path, bool create,
                     char *why, size_t wlen)
{
	char todo[PATH_MAX], next[PATH_MAX];
	int rc = 0;

	if (strlen(path) >= sizeof(todo))
		return -ENAMETOOLONG;
	strcpy(todo, path);
	if (todo[0] == '/' && (rc = walk_from_root(w, why, wlen)) < 0)
		return rc;
	char *p = todo;
	while (*p) {
		size_t len = strcspn(p, "/");
		char *rest = p + len + (p[len] == '/');
		p[len] = '\0';
		if (len == 0 || strcmp(p, ".") == 0) {
			p = rest;
			continue;
		}
		rc = step_into(w, p, create, why, wlen);
		if (rc == -ELOOP || rc == -ENOTDIR) {
			/* a link: walk its target instead */
			rc = follow(w, p, rest, next, sizeof(next), why, wlen);
			if (rc < 0)
				return rc;
			strcpy(todo, next);
			p = todo;
			if (todo[0] == '/' && (rc = walk_from_root(w, why, wlen)) < 0)
				return rc;
			continue;
		}
		if (rc < 0)
			return rc;
		p = rest;
	}
	return 0;
}

/* Starts a walk at the working folder (reached from /, checked). */
static int walk_start(struct walk *w, const char *path, char *why, size_t wlen)
{
	w->fd = -1;
	w->links = 0;
	if (path[0] == '/')
		return 0;
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return -errno;
	int rc = walk_path(w, cwd, false, why, wlen);
	free(cwd);
	return rc;
}

int sfs_trust_dir_open(const char *path, bool create, char *why, size_t wlen)
{
	struct walk w;
	int rc = walk_start(&w, path, why, wlen);

	if (rc == 0)
		rc = walk_path(&w, path, create, why, wlen);
	if (rc == 0 && w.fd < 0)   /* "" */
		rc = -ENOENT;
	if (rc < 0) {
		if (w.fd >= 0)
			close(w.fd);
		if (rc != -EPERM && why && wlen)
			snprintf(why, wlen, "cannot open the folder %s: %s", path,
			         strerror(-rc));
		return rc;
	}
	return w.fd;
}

int sfs_cache_check(const char *cache_dir, char *why, size_t wlen)
{
	int fd = sfs_trust_dir_open(cache_dir, true, why, wlen);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The folder part of path into dir, its last name into *base. */
static int split(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dlen, ".");
		*base = path;
	} else if ((size_t)(slash - path) + 2 > dlen) {
		return -ENAMETOOLONG;
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);
		memcpy(dir, path, n);
		dir[n] = '\0';
		*base = slash + 1;
	}
	return **base && strcmp(*base, ".") && strcmp(*base, "..") ? 0 : -EISDIR;
}

int sfs_trust_open(const char *path, enum sfs_trust_kind kind, off_t max,
                   char *why, size_t wlen)
{
	char dir[PATH_MAX], cur[PATH_MAX], shown[PATH_MAX];
	const char *base;
	struct stat st;
	int rc = 0;

	if (strlen(path) >= sizeof(cur))
		return -ENAMETOOLONG;
	strcpy(cur, path);
	for (int links = 0; rc == 0; links++) {
		if (links > MAX_LINKS)
			rc = -ELOOP;
		else
			rc = split(cur, dir, sizeof(dir), &base);
		int dfd = rc < 0 ? rc : sfs_trust_dir_open(dir, false, why, wlen);
		if (dfd < 0)
			return rc < 0 ? rc : dfd;
		int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		                O_CLOEXEC);
		if (fd < 0 && errno == ELOOP) {
			/* a link in a folder that passed: its target, from there */
			char target[PATH_MAX];
			ssize_t n = readlinkat(dfd, base, target, sizeof(target) - 1);
			close(dfd);
			if (n < 0)
				return -errno;
			target[n] = '\0';
			if (target[0] == '/')
				snprintf(shown, sizeof(shown), "%s", target);
			else if (snprintf(shown, sizeof(shown), "%s/%s", dir, target)
			         >= (int)sizeof(shown))
				return -ENAMETOOLONG;
			strcpy(cur, shown);
			continue;
		}
		rc = fd < 0 ? -errno : 0;
		close(dfd);
		if (rc < 0) {
			if (why && wlen)
				snprintf(why, wlen, "cannot read %s: %s", path,
				         strerror(-rc));
			return rc;
		}
		if (fstat(fd, &st) < 0)
			rc = -errno;
		else
			rc = check_file(&st, path, kind, max, why, wlen);
		/* a regular file: reads never block, whatever the flag says */
		if (rc == 0 && fcntl(fd, F_SETFL, 0) < 0)
			rc = -errno;
		if (rc < 0) {
			close(fd);
			return rc;
		}
		return fd;
	}
	return rc;
}

int sfs_trust_read(const char *path, enum sfs_trust_kind kind, off_t max,
                   char **text, size_t *len, char *why, size_t wlen)
{
	int fd = sfs_trust_open(path, kind, max, why, wlen);
	if (fd < 0)
		return fd;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return -errno;
	}
	char *buf = malloc((size_t)max + 1);
	size_t n = buf ? fread(buf, 1, (size_t)max + 1, f) : 0;
	int rc = !buf ? -ENOMEM : ferror(f) ? -EIO :
	         n > (size_t)max ? -EFBIG : 0;
	fclose(f);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* ---- cache files -------------------------------------------------------- */

/* A cache file may be used: a regular file of ours (or root's) that
 * nobody else may write; one we write has no other name either. */
static bool cache_file_ok(int fd, bool writing)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && owner_ok(&st) &&
	       !(st.st_mode & 022) && (!writing || (st.st_nlink == 1 &&
	                                             st.st_uid == geteuid()));
}

/*
 * The folder of a cache file, checked.  `walk`: walked from / as
 * sfs_trust_dir_open does (made when missing with create).  Else, for
 * the many reads and writes of blobs, one openat2 that follows no link
 * and a check of that folder alone, where the walk costs two calls a
 * folder: a second mount of 10,000 git skills opens 10,000 kept SKILL.md
 * blobs, and the walk took 35 us an open against 5 us for open(2) on the
 * (loaded) benchmark machine, about 0.3 s for a mount measured at 386 ms.
 * The folders above are walked by every update (sfs_cache_check) and by
 * the git-digests open of every build, and a file used must still be a
 * regular file of ours or root's nobody else may write, which nobody else
 * can make, wherever they moved folders.  Where openat2 cannot be used (a
 * missing folder, an old kernel, a link on the way), the walk.
 */
static int cache_dir_of(const char *path, bool create, bool walk,
                        const char **base)
{
	char dir[PATH_MAX];
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int rc = split(path, dir, sizeof(dir), base);

	if (rc < 0)
		return rc;
	int dfd = walk ? -1 : (int)syscall(SYS_openat2, AT_FDCWD, dir, &how,
	                                   sizeof(how));
	if (dfd < 0)
		return sfs_trust_dir_open(dir, create, NULL, 0);
	if (fstat(dfd, &st) < 0 || check_folder(&st, dir, NULL, 0) < 0) {
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

/* What op(dfd, base) answers in the checked folder of the cache file
 * path (cache_dir_of's create and walk), closed after it. */
static int in_cache_dir(const char *path, bool create, bool walk,
                        int (*op)(int dfd, const char *base))
{
	const char *base;
	int dfd = cache_dir_of(path, create, walk, &base);

	if (dfd < 0)
		return dfd;
	int rc = op(dfd, base);
	close(dfd);
	return rc;
}

static int open_read_at(int dfd, const char *base)
{
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!cache_file_ok(fd, false)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int sfs_cache_open_read(const char *path)
{
	return in_cache_dir(path, false, false, open_read_at);
}

int sfs_cache_open_append(const char *path, mode_t mode)
{
	const char *base;
	int dfd = cache_dir_of(path, true, true, &base);
	int fd = -1;

	if (dfd < 0)
		return dfd;
	for (int tries = 0; fd < 0 && tries < 2; tries++) {
		int flags = O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
		            O_CLOEXEC | (tries ? O_EXCL : 0);
		fd = openat(dfd, base, flags, mode);
		if (fd >= 0 && !cache_file_ok(fd, true)) {
			close(fd);
			fd = -1;
			errno = EPERM;
		}
		if (fd < 0 && (errno == ELOOP || errno == EPERM ||
		               errno == EISDIR || errno == ENXIO))
			/* not ours to write through: out of the way */
			unlinkat(dfd, base, 0);
		else if (fd < 0)
			break;
	}
	int rc = fd < 0 ? -errno : fd;
	close(dfd);
	return rc;
}

/* A new file beside `base` in dfd, made with O_EXCL; its name in tmp. */
static int make_temporary(int dfd, const char *base, mode_t mode, char *tmp,
                          size_t tlen)
{
	for (int tries = 0; tries < 100; tries++) {
		unsigned long long r;
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		if ((size_t)snprintf(tmp, tlen, ".%s.tmp-%016llx", base, r) >= tlen)
			return -ENAMETOOLONG;
		int fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		                O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

int sfs_cache_begin(const char *path, mode_t mode, struct sfs_cache_tmp *t)
{
	t->fd = -1;
	t->dfd = cache_dir_of(path, true, false, &t->base);
	if (t->dfd < 0)
		return t->dfd;
	t->fd = make_temporary(t->dfd, t->base, mode, t->name, sizeof(t->name));
	if (t->fd < 0) {
		int rc = t->fd;
		close(t->dfd);
		return rc;
	}
	return 0;
}

int sfs_cache_commit(struct sfs_cache_tmp *t, int rc, bool keep_fd)
{
	if (rc == 0 && renameat(t->dfd, t->name, t->dfd, t->base) < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(t->dfd, t->name, 0);
	close(t->dfd);
	if (rc < 0 || !keep_fd) {
		if (close(t->fd) < 0 && rc == 0)
			rc = -errno;
		return rc;
	}
	return t->fd;
}

int sfs_cache_write(const char *path, const void *p, size_t n, mode_t mode,
                    bool keep_fd)
{
	struct sfs_cache_tmp t;
	int rc = sfs_cache_begin(path, mode, &t);

	if (rc < 0)
		return rc;
	return sfs_cache_commit(&t, sfs_write_full(t.fd, -1, p, n), keep_fd);
}

static int unlink_at(int dfd, const char *base)
{
	return unlinkat(dfd, base, 0) < 0 ? -errno : 0;
}

int sfs_cache_unlink(const char *path)
{
	return in_cache_dir(path, false, true, unlink_at);
}

static int made(int dfd, const char *base)
{
	(void)dfd;
	(void)base;
	return 0;   /* cache_dir_of made the folders */
}

int sfs_cache_mkdirs(const char *path)
{
	return in_cache_dir(path, true, true, made);
}

/* ---- whole entries of a cache folder (cache_gc.c) ----------------------- */

char *sfs_cache_read_at(int dfd, const char *name, size_t max, int *fd_out)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                           O_CLOEXEC);
	struct stat st;
	char *text = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size <= max &&
	    (text = malloc((size_t)st.st_size + 1))) {
		ssize_t n = pread(fd, text, (size_t)st.st_size, 0);
		if (n < 0) {
			free(text);
			text = NULL;
		} else {
			text[n] = '\0';
		}
	}
	if (fd_out && text)
		*fd_out = fd;
	else
		close(fd);
	return text;
}

DIR *sfs_dir_read(int dfd)
{
	int fd = openat(dfd, ".", OPEN_DIR);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);

	if (!dir && fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return dir;
}

int sfs_dir_each(int dfd, sfs_dir_each_fn *each, void *arg)
{
	DIR *dir = sfs_dir_read(dfd);
	struct dirent *de;
	int rc = 0;

	if (!dir)
		return -errno;
	while (rc == 0 && (de = readdir(dir))) {
		struct stat st;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;   /* gone meanwhile */
		rc = each(dfd, de->d_name, &st, arg);
	}
	closedir(dir);
	return rc;
}

/* The folder `name` of dfd, on dfd's filesystem: never through a link,
 * never into another mount. */
static int open_child_dir(int dfd, const char *name, const struct stat *st)
{
	struct stat parent, self;
	int fd;

	if (!S_ISDIR(st->st_mode) || fstat(dfd, &parent) < 0 ||
	    st->st_dev != parent.st_dev)
		return -EXDEV;
	fd = openat(dfd, name, OPEN_DIR);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &self) < 0 || self.st_dev != st->st_dev ||
	    self.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE;   /* replaced between the look and the open */
	}
	return fd;
}

static int add_size(int dfd, const char *name, const struct stat *st,
                    void *arg)
{
	long long *total = arg;

	if (S_ISREG(st->st_mode)) {
		*total += st->st_size;
	} else if (S_ISDIR(st->st_mode)) {
		int fd = open_child_dir(dfd, name, st);
		if (fd >= 0) {
			sfs_dir_each(fd, add_size, total);
			close(fd);
		}
	}
	return 0;
}

long long sfs_cache_entry_size(int dfd, const char *name)
{
	struct stat st;
	long long total = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	add_size(dfd, name, &st, &total);
	return total;
}

static int remove_entry(int dfd, const char *name, const struct stat *st,
                        void *arg)
{
	(void)arg;
	if (S_ISDIR(st->st_mode)) {
		int fd = open_child_dir(dfd, name, st);
		if (fd < 0)
			return fd;
		int rc = sfs_dir_each(fd, remove_entry, NULL);
		close(fd);
		if (rc < 0)
			return rc;
		return unlinkat(dfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
	}
	/* a link is removed as a link: what it points to stays */
	return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
}

int sfs_cache_remove_entry(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	return remove_entry(dfd, name, &st, NULL);
}
