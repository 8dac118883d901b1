/*
 * automount.c - the mount a session serves, and who keeps it alive.
 *
 * MCP clients start one skillsfs-mcp per session, often several at once,
 * and kill them as they like (SIGKILL included).  So no session owns a
 * mount; a keeper does:
 *
 *   RUNDIR            $XDG_RUNTIME_DIR/skillsfs, else /tmp/skillsfs-UID;
 *                     0700 and ours, or refused.
 *   RUNDIR/KEY/       a private mount point.  KEY is a digest of the
 *                     canonical roots, --config (path and content),
 *                     --docs-dir and --trust, so sessions with the same roots share
 *                     a mount and sessions with other roots never do.
 *   BASE.hold         every session holds LOCK_SH on it for its life.
 *   BASE.keeper       the keeper holds LOCK_EX on it for its life.
 *   BASE.start        LOCK_EX while a session looks for, or starts, a
 *                     keeper: one keeper per mount.
 *   BASE.log          the keeper's and skillsfs's stderr.
 *   (BASE is RUNDIR/KEY for a private mount, RUNDIR/m-DIGEST for --mount.)
 *
 * The files go with the mount: the keeper removes them while it holds
 * LOCK_EX on BASE.hold, and the last session out of a mount no keeper
 * keeps does the same.  So a session that waited for BASE.hold checks that
 * the file it locked is still the one at that path.
 *
 * The keeper (keeper.c) is the parent of the skillsfs daemon and nobody's
 * child.  When it can take LOCK_EX on BASE.hold for the whole linger, no
 * session is left: holding that lock (so no session can start to use the
 * mount meanwhile) it stops skillsfs, which unmounts, and exits.  The
 * kernel drops a process's locks however it dies, so:
 *
 *   - a session killed: its LOCK_SH goes; the last one gone starts the
 *     linger.  Every session killed: the mount goes after the linger.
 *   - the keeper killed: skillsfs gets SIGTERM (PR_SET_PDEATHSIG) and
 *     unmounts; the next request of a session finds the mount gone and,
 *     with the keeper lock free, starts a new keeper.
 *   - skillsfs killed: the keeper sees its child end, detaches the dead
 *     mount (fusermount3 -uz) and exits; sessions start a new one.
 *   - both killed: a dead mount with a free keeper lock; the next session
 *     detaches it and starts over.
 *
 * A session keeps nothing open on the mount between requests, so an
 * explicit mount with idle sessions can be unmounted (fusermount3 -u).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "automount.h"
#include "buf.h"
#include "clock.h"
#include "files.h"
#include "keeper.h"
#include "mount.h"
#include "source.h"

/* status.json, in messages */
#define STATUS (sfs_mount_row(SFS_MOUNT_STATUS)->path)

#define KEY_HEX 16
#define STATUS_HEAD_MAX ((size_t)1 << 20)
#define RECOVER_INTERVAL_NS 1000000000u

enum probe { READY, NEED_MOUNT, FAILED, KEEPER_GONE };

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static uint64_t deadline_in(unsigned ms)
{
	return now_ns() + (uint64_t)ms * 1000000u;
}

/* ---- canonical roots and the key ---------------------------------------- */

/* The real path when it exists (a symlinked root is the same root), else
 * the absolute one (skillsfs reports a missing root, it does not fail);
 * a source's URL as it is. */
static char *canonical(const char *path)
{
	if (sfs_source_is_url(path))
		return strdup(path);
	char *real = realpath(path, NULL);

	return real ? real : sfs_path_absolute(path);
}

static int push(char ***list, size_t *n, char *s)
{
	if (!s)
		return -1;
	char **p = realloc(*list, (*n + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return -1;
	}
	*list = p;
	p[(*n)++] = s;
	return 0;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* The first KEY_HEX hex digits of the SHA-256 of `text`. */
static void short_digest(const char *text, size_t len, char out[KEY_HEX + 1])
{
	uint8_t d[32];

	sfs_sha256(text, len, d);
	sfs_hex_encode(d, KEY_HEX / 2, out);
}

/*
 * Fills am->expect (the roots skillsfs will serve) and am->args (what it
 * is run with), and the key naming the view: the roots, the config file
 * (its content too: it holds options) and the docs folder.
 */
static int canonical_view(struct automount *am,
                          const struct automount_spec *sp, char key[KEY_HEX + 1])
{
	struct buf text = { 0 };
	int rc = 0;

	buf_adds(&text, "skillsfs-mcp view 1\n");
	for (size_t i = 0; i < sp->ndirs && !rc; i++)
		rc = push(&am->expect, &am->nexpect, canonical(sp->dirs[i]));
	for (size_t i = 0; !sp->ndirs && sp->cf && i < sp->cf->nroots && !rc; i++)
		rc = push(&am->expect, &am->nexpect, canonical(sp->cf->roots[i]));
	for (size_t i = 0; !sp->ndirs && sp->cf && i < sp->cf->nsources && !rc;
	     i++)
		rc = push(&am->expect, &am->nexpect,
		          canonical(sp->cf->sources[i]));
	for (size_t i = 0; i < am->nexpect; i++)
		buf_printf(&text, "root %s\n", am->expect[i]);
	for (size_t i = 0; i < sp->ndirs && !rc; i++) {
		rc = push(&am->args, &am->nargs, strdup("--skills-dir"));
		if (!rc)
			rc = push(&am->args, &am->nargs, strdup(am->expect[i]));
	}
	if (sp->config && !rc) {
		char *conf = canonical(sp->config), *content = NULL;
		size_t len = 0;
		char d[KEY_HEX + 1] = "";
		if (conf && read_file(conf, (size_t)1 << 20, &content, &len) == 0)
			short_digest(content, len, d);
		free(content);
		buf_printf(&text, "config %s %s\n", conf ? conf : "", d);
		rc = push(&am->args, &am->nargs, strdup("--config"));
		if (!rc)
			rc = push(&am->args, &am->nargs, conf);
		else
			free(conf);
	}
	if (sp->docs_dir && !rc) {
		char *docs = canonical(sp->docs_dir);
		buf_printf(&text, "docs %s\n", docs ? docs : "");
		rc = push(&am->args, &am->nargs, strdup("--docs-dir"));
		if (!rc)
			rc = push(&am->args, &am->nargs, docs);
		else
			free(docs);
	}
	if (sp->trust && !rc) {   /* another policy, another mount */
		buf_printf(&text, "trust %s\n", sp->trust);
		rc = push(&am->args, &am->nargs, strdup("-o"));
		if (!rc)
			rc = push(&am->args, &am->nargs,
			          xasprintf("trust=%s", sp->trust));
	}
	if (!rc && !text.failed)
		short_digest(text.data, text.len, key);
	else
		rc = -1;
	buf_free(&text);
	return rc;
}

/* ---- the runtime folder ------------------------------------------------- */

/* Ours, a real folder, and closed to others: or it could be a trap. */
static int check_private_dir(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0) {
		fprintf(stderr, "skillsfs-mcp: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		fprintf(stderr, "skillsfs-mcp: refusing %s as the runtime folder: "
			"it must be a folder of yours (uid %u) that only you can "
			"use (mode 0700), not %s owned by uid %u with mode %04o; "
			"remove it, or set XDG_RUNTIME_DIR\n", dir,
			(unsigned)geteuid(),
			S_ISDIR(st.st_mode) ? "a folder" : "a non-folder",
			(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

char *automount_runtime_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	char *dir;

	if (xdg && xdg[0] == '/' && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid())
		dir = xasprintf("%s/skillsfs", xdg);
	else
		dir = xasprintf("/tmp/skillsfs-%u", (unsigned)geteuid());
	if (!dir)
		return NULL;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "skillsfs-mcp: cannot create the runtime folder "
			"%s: %s\n", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	if (check_private_dir(dir) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* ---- locks -------------------------------------------------------------- */

static int open_lock(const struct automount *am, const char *suffix)
{
	char *path = xasprintf("%s.%s", am->base, suffix);
	int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;

	if (fd < 0)
		fprintf(stderr, "skillsfs-mcp: cannot open %s: %s\n",
			path ? path : suffix, strerror(errno));
	free(path);
	return fd;
}

/* flock with a deadline: 0, or -1 after saying what it waited for. */
static int lock_until(int fd, int how, uint64_t deadline,
                      volatile sig_atomic_t *stop, const char *what)
{
	while (flock(fd, how | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			fprintf(stderr, "skillsfs-mcp: cannot lock %s: %s\n",
				what, strerror(errno));
			return -1;
		}
		if (*stop || now_ns() > deadline) {
			fprintf(stderr, "skillsfs-mcp: gave up waiting for %s\n",
				what);
			return -1;
		}
		sleep_ms(5);
	}
	return 0;
}

/* Whether a keeper holds BASE.keeper. */
static bool keeper_alive(const struct automount *am)
{
	int fd = open_lock(am, "keeper");
	bool alive = false;

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		alive = errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

/* What to do about the permission errors a user meets when mounting. */
static const struct {
	const char *says;
	const char *hint;
} log_hints[] = {
	{ "failed to open /dev/fuse: Permission denied",
	  "/dev/fuse is not usable by users here: as root, chmod 0666 "
	  "/dev/fuse (its mode on a stock Debian)" },
	{ "user_allow_other",
	  "allow_other (in the --config file or its options) needs a line "
	  "user_allow_other in /etc/fuse.conf for users other than root; add "
	  "it as root, or drop allow_other" },
	{ "no write access to mountpoint",
	  "--mount names a folder you may not write to: use one of yours, "
	  "or drop --mount for a private mount" },
	{ "fusermount3: mount failed: Operation not permitted",
	  "this system does not let users mount FUSE filesystems (is "
	  "fusermount3 setuid root?); ask its administrator" },
};

/* The keeper's log, for when it or skillsfs failed, and a hint. */
static void show_log(const struct automount *am)
{
	char *path = xasprintf("%s.log", am->base);
	char *text = NULL;
	size_t len = 0;

	if (path && read_file(path, 64 * 1024, &text, &len) == 0 && len) {
		fprintf(stderr, "skillsfs-mcp: %s says:\n%.*s%s", path, (int)len,
			text, text[len - 1] == '\n' ? "" : "\n");
		for (size_t i = 0; i < sizeof(log_hints) / sizeof(log_hints[0]); i++)
			if (strstr(text, log_hints[i].says))
				fprintf(stderr, "skillsfs-mcp: %s\n", log_hints[i].hint);
	}
	free(text);
	free(path);
}

/* ---- what is mounted ---------------------------------------------------- */

/* The uid that mounted `path` (its user_id= option), or -1. */
static long mount_owner(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	long uid = -1;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char point[PATH_MAX];
		/* id parent maj:min root mountpoint ... - type source superopts */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		const char *u = strstr(line, " - ");
		u = u ? strstr(u, "user_id=") : NULL;
		if (strcmp(point, path) == 0 && u)
			uid = strtol(u + 8, NULL, 10);
	}
	free(line);
	fclose(f);
	return uid;
}

/* The "roots" array of MOUNT/status.json, read from its head (it comes
 * before the long list of skills).  NULL when it cannot be read. */
static cJSON *status_roots(const char *mount)
{
	char *file = sfs_mount_path(mount, SFS_MOUNT_STATUS);
	int fd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;
	struct buf head = { 0 };
	cJSON *roots = NULL;
	char chunk[16384];

	free(file);
	if (fd < 0)
		return NULL;
	while (head.len < STATUS_HEAD_MAX && !roots) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r <= 0)
			break;
		buf_add(&head, chunk, (size_t)r);
		roots = sfs_status_roots(head.data, head.len);
	}
	close(fd);
	buf_free(&head);
	return roots;
}

static void print_set(const char *label, char **paths, size_t n)
{
	fprintf(stderr, "  %s:", label);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", paths[i]);
	fprintf(stderr, "%s\n", n ? "" : " (none)");
}

/* Whether the mount serves the roots we were given, in that order. */
static bool roots_match(const struct automount *am)
{
	char **have = NULL;
	size_t nhave = 0;
	bool same;

	if (!am->nexpect)
		return true;   /* nothing asked of it */
	cJSON *roots = status_roots(am->mount), *r;
	cJSON_ArrayForEach(r, roots) {
		const cJSON *p =
			cJSON_GetObjectItemCaseSensitive(r, SFS_STATUS_ROOT_PATH);
		if (cJSON_IsString(p))
			push(&have, &nhave, canonical(p->valuestring));
	}
	cJSON_Delete(roots);
	same = nhave == am->nexpect;
	for (size_t i = 0; same && i < nhave; i++)
		same = strcmp(have[i], am->expect[i]) == 0;
	if (!same) {
		fprintf(stderr, "skillsfs-mcp: refusing to serve %s: it is "
			"mounted with other roots than the ones given, and would "
			"show another project's skills\n", am->mount);
		print_set("mounted with", have, nhave);
		print_set("given", am->expect, am->nexpect);
		fprintf(stderr, "  Drop --mount to get a mount of your own for "
			"these roots, or give --mount a free folder.\n");
	}
	free_list(have, nhave);
	return same;
}

static void explain_denied(const struct automount *am, int err)
{
	long owner = mount_owner(am->mount);

	if (owner >= 0 && owner != (long)geteuid()) {
		fprintf(stderr, "skillsfs-mcp: cannot read the skillsfs mount at "
			"%s (%s): it belongs to another user (uid %ld), and FUSE "
			"lets no one else in unless it was mounted with -o "
			"allow_other (which a user other than root may set only "
			"with user_allow_other in /etc/fuse.conf).  Ask its owner "
			"to mount it with allow_other, or drop --mount and give "
			"--skills-dir to use a mount of your own.\n", am->mount,
			strerror(-err), owner);
		return;
	}
	fprintf(stderr, "skillsfs-mcp: cannot read %s/%s: %s; the "
		"mount's skill folders must be readable by you (uid %u)\n",
		am->mount, STATUS, strerror(-err), (unsigned)geteuid());
}

/* 0 when the mount's daemon answers and status.json can be read, else
 * -errno.  statfs first: it always reaches the daemon, where open and
 * read may be answered from the kernel's caches after it died. */
static int mount_answers(const char *mount)
{
	struct statfs sf;

	if (statfs(mount, &sf) < 0)
		/* ECONNABORTED: a daemon that died with requests in flight */
		return errno == ECONNABORTED ? -ENOTCONN : -errno;
	return mount_status_readable(mount);
}

/* What is at the mount point now, and whether it will do. */
static enum probe probe(struct automount *am)
{
	char fstype[64] = "";
	int kind = mount_kind(am->mount, fstype, sizeof(fstype));

	if (kind < 0) {
		fprintf(stderr, "skillsfs-mcp: cannot read /proc/self/mountinfo: %s\n",
			strerror(-kind));
		return FAILED;
	}
	if (kind == MOUNT_OTHER && am->plain_ok &&
	    mount_status_readable(am->mount) == 0)
		return READY;
	if (kind == MOUNT_OTHER) {
		fprintf(stderr, "skillsfs-mcp: %s is not a skillsfs mount: it "
			"is a %s mount\n", am->mount, fstype);
		return FAILED;
	}
	if (kind == MOUNT_NONE) {
		if (am->may_mount)
			return NEED_MOUNT;
		if (am->plain_ok && mount_status_readable(am->mount) == 0)
			return READY;
		fprintf(stderr, "skillsfs-mcp: %s is not a skillsfs mount: "
			"nothing is mounted there (mount it with 'skillsfs %s "
			"--skills-dir DIR', or pass --skills-dir)\n", am->mount,
			am->mount);
		return FAILED;
	}
	/* A private mount without a keeper would never go away. */
	if (am->private_mount && !keeper_alive(am))
		return NEED_MOUNT;
	int st = mount_answers(am->mount);
	if (st == 0)
		return roots_match(am) ? READY : FAILED;
	if (st == -ENOTCONN && am->may_mount)
		return NEED_MOUNT;
	if (st == -EACCES || st == -EPERM) {
		explain_denied(am, st);
		return FAILED;
	}
	if (st == -ENOTCONN)
		fprintf(stderr, "skillsfs-mcp: the skillsfs mount at %s is dead "
			"(its daemon is gone): unmount it with 'fusermount3 -uz "
			"%s', or pass --skills-dir to have it replaced\n",
			am->mount, am->mount);
	else
		fprintf(stderr, "skillsfs-mcp: %s is not a usable skillsfs mount: "
			"cannot read %s/%s: %s\n", am->mount, am->mount,
			STATUS, strerror(-st));
	return FAILED;
}

/* ---- starting a mount --------------------------------------------------- */

/* skillsfs next to us, or where the build tree puts it, or NULL (PATH). */
static char *find_skillsfs(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	const char *candidates[] = { "skillsfs", "../fs/skillsfs" };
	for (size_t i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s", self, candidates[i]);
		if (p && access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

/* Clears what is at the mount point (a dead or orphaned mount) and makes
 * the folder; 0 or -1 after saying why. */
static int clear_mount_point(const struct automount *am)
{
	char fstype[64];
	struct stat st;

	if (mount_kind(am->mount, fstype, sizeof(fstype)) == MOUNT_SKILLSFS) {
		fprintf(stderr, "skillsfs-mcp: detaching the dead or orphaned "
			"skillsfs mount at %s\n", am->mount);
		if (!keeper_unmount(am->mount, true)) {
			fprintf(stderr, "skillsfs-mcp: cannot unmount %s: ask the "
				"user who mounted it to run 'fusermount3 -uz %s'\n",
				am->mount, am->mount);
			return -1;
		}
	}
	if (stat(am->mount, &st) == 0)
		return 0;
	if (errno == ENOENT && mkdir(am->mount, am->private_mount ? 0700 : 0755) == 0)
		return 0;
	fprintf(stderr, "skillsfs-mcp: cannot create the mount point %s: %s%s\n",
		am->mount, strerror(errno), errno == EACCES ?
		" (use a folder you may write to, or drop --mount for a "
		"private mount)" : "");
	return -1;
}

static int start_keeper(struct automount *am)
{
	char *prog = find_skillsfs();
	char *hold = xasprintf("%s.hold", am->base);
	char *kpath = xasprintf("%s.keeper", am->base);
	char *start = xasprintf("%s.start", am->base);
	char *log = xasprintf("%s.log", am->base);
	struct stat st;
	int rc = -1;

	if (hold && kpath && start && log) {
		struct keeper_spec k = {
			.mount = am->mount,
			.hold_path = hold,
			.keeper_path = kpath,
			.start_path = start,
			.log_path = log,
			.prog = prog ? prog : "skillsfs",
			.args = am->args,
			.nargs = am->nargs,
			.linger_ms = am->linger_ms,
			/* A folder we made for --mount goes with the mount. */
			.remove_dir = am->private_mount || stat(am->mount, &st) < 0,
		};
		if (clear_mount_point(am) == 0) {
			rc = keeper_spawn(&k);
			if (rc < 0 && rc != -EEXIST)
				fprintf(stderr, "skillsfs-mcp: cannot start a keeper "
					"for %s: %s\n", am->mount, strerror(-rc));
			rc = rc == -EEXIST ? 0 : rc;
		}
	}
	free(prog);
	free(hold);
	free(kpath);
	free(start);
	free(log);
	return rc;
}

/* Waits for the keeper's skillsfs to answer; KEEPER_GONE when the keeper
 * ended first (a failed mount, or an old keeper clearing up). */
static enum probe wait_ready(struct automount *am, uint64_t deadline,
                             volatile sig_atomic_t *stop, unsigned timeout_ms)
{
	char fstype[64];
	unsigned pause = 2;

	for (;;) {
		if (mount_kind(am->mount, fstype, sizeof(fstype)) == MOUNT_SKILLSFS &&
		    mount_answers(am->mount) == 0)
			return roots_match(am) ? READY : FAILED;
		if (!keeper_alive(am))
			return KEEPER_GONE;
		if (*stop) {
			fprintf(stderr, "skillsfs-mcp: interrupted while mounting\n");
			return FAILED;
		}
		if (now_ns() > deadline) {
			fprintf(stderr, "skillsfs-mcp: skillsfs did not mount %s "
				"within %u ms\n", am->mount, timeout_ms);
			show_log(am);
			return FAILED;
		}
		sleep_ms(pause);
		if (pause < 50)
			pause *= 2;
	}
}

/* Serialized by BASE.start: look again, then start a keeper or wait for
 * the one starting. */
static enum probe mount_it(struct automount *am, uint64_t deadline,
                           volatile sig_atomic_t *stop, unsigned timeout_ms)
{
	int fd = open_lock(am, "start");
	enum probe p = FAILED;

	if (fd < 0 || lock_until(fd, LOCK_EX, deadline, stop,
				 "another session starting the mount") < 0)
		goto out;
	for (;;) {
		p = probe(am);
		if (p != NEED_MOUNT)
			break;
		bool ours = !keeper_alive(am);
		if (ours && start_keeper(am) < 0) {
			p = FAILED;
			break;
		}
		p = wait_ready(am, deadline, stop, timeout_ms);
		if (p != KEEPER_GONE)
			break;
		if (ours) {
			fprintf(stderr, "skillsfs-mcp: skillsfs did not mount %s\n",
				am->mount);
			show_log(am);
			p = FAILED;
			break;
		}
		/* Another keeper ended while we waited: look again. */
	}
out:
	if (fd >= 0)
		close(fd);
	return p;
}

static int settle(struct automount *am, unsigned timeout_ms,
                  volatile sig_atomic_t *stop)
{
	uint64_t deadline = deadline_in(timeout_ms);
	enum probe p = probe(am);

	if (p == NEED_MOUNT)
		p = mount_it(am, deadline, stop, timeout_ms);
	return p == READY ? 0 : -1;
}

/* ---- the session's side ------------------------------------------------- */

/* LOCK_SH on BASE.hold for the session's life.  A keeper that ended for
 * want of sessions removed the file we may have waited on: a lock on that
 * one would count for no one, so lock the file at the path. */
static int hold_mount(struct automount *am, uint64_t deadline,
                      volatile sig_atomic_t *stop)
{
	char *path = xasprintf("%s.hold", am->base);
	struct stat mine, now;

	if (!path)
		return -1;
	for (;;) {
		int fd = open_lock(am, "hold");
		if (fd < 0 || lock_until(fd, LOCK_SH, deadline, stop,
					 "the mount's keeper to finish unmounting") < 0) {
			if (fd >= 0)
				close(fd);
			free(path);
			return -1;
		}
		if (fstat(fd, &mine) == 0 && stat(path, &now) == 0 &&
		    mine.st_ino == now.st_ino && mine.st_dev == now.st_dev) {
			am->hold_fd = fd;
			free(path);
			return 0;
		}
		close(fd);
	}
}

/* The last session out of a mount no keeper keeps (one that was there,
 * or whose keeper died) removes the lock files, so they do not pile up. */
static void remove_lock_files(struct automount *am)
{
	static const char *const suffixes[] = { "log", "start", "keeper", "hold" };

	if (am->hold_fd < 0 || flock(am->hold_fd, LOCK_EX | LOCK_NB) < 0 ||
	    keeper_alive(am))
		return;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		char *path = xasprintf("%s.%s", am->base, suffixes[i]);
		if (path)
			unlink(path);
		free(path);
	}
}

static bool docs_served(const char *mount)
{
	char *docs = xasprintf("%s/docs", mount);
	struct stat st;
	bool yes = docs && stat(docs, &st) == 0 && S_ISDIR(st.st_mode);

	free(docs);
	return yes;
}

int automount_open(struct automount *am, const struct automount_spec *sp,
                   unsigned timeout_ms, volatile sig_atomic_t *stop)
{
	char key[KEY_HEX + 1] = "";
	char *rundir = NULL;

	memset(am, 0, sizeof(*am));
	am->hold_fd = -1;
	am->linger_ms = sp->linger_ms;
	am->plain_ok = sp->plain_ok;
	am->may_mount = sp->ndirs || sp->config;
	am->private_mount = !sp->mount;
	if (canonical_view(am, sp, key) < 0) {
		fprintf(stderr, "skillsfs-mcp: out of memory\n");
		return -1;
	}
	rundir = automount_runtime_dir();
	if (!rundir && (am->may_mount || !sp->mount))
		return -1;
	if (sp->mount) {
		am->mount = sfs_path_absolute(sp->mount);
		char mkey[KEY_HEX + 1] = "";
		if (am->mount)
			short_digest(am->mount, strlen(am->mount), mkey);
		am->base = rundir ? xasprintf("%s/m-%s", rundir, mkey) : NULL;
	} else {
		am->mount = xasprintf("%s/%s", rundir, key);
		am->base = xasprintf("%s/%s", rundir, key);
	}
	bool have_rundir = rundir != NULL;
	free(rundir);
	if (!am->mount || (have_rundir && !am->base)) {
		fprintf(stderr, "skillsfs-mcp: bad mount path '%s': %s\n",
			sp->mount ? sp->mount : "", strerror(errno));
		return -1;
	}
	/* A mount no keeper of ours ever kept (the user's, a service's)
	 * needs no hold: leave no lock files behind for it. */
	char *kpath = am->base ? xasprintf("%s.keeper", am->base) : NULL;
	bool kept = kpath && access(kpath, F_OK) == 0;
	free(kpath);
	if (am->base && (am->may_mount || kept) &&
	    hold_mount(am, deadline_in(timeout_ms), stop) < 0)
		return -1;
	if (settle(am, timeout_ms, stop) < 0)
		return -1;
	if (sp->docs_dir && sp->mount && !docs_served(am->mount))
		fprintf(stderr, "skillsfs-mcp: %s was mounted without docs; "
			"--docs-dir applies only when skillsfs-mcp mounts it\n",
			am->mount);
	return 0;
}

int automount_recover(struct automount *am, unsigned timeout_ms,
                      volatile sig_atomic_t *stop)
{
	uint64_t now = now_ns();

	if (!am->may_mount || !am->base ||
	    now - am->last_recover_ns < RECOVER_INTERVAL_NS)
		return -1;
	am->last_recover_ns = now;
	fprintf(stderr, "skillsfs-mcp: mounting %s again\n", am->mount);
	return settle(am, timeout_ms, stop);
}

void automount_close(struct automount *am)
{
	remove_lock_files(am);
	if (am->hold_fd >= 0)
		close(am->hold_fd);
	am->hold_fd = -1;
	free_list(am->expect, am->nexpect);
	free_list(am->args, am->nargs);
	free(am->mount);
	free(am->base);
	memset(am, 0, sizeof(*am));
	am->hold_fd = -1;
}
