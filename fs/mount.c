/*
 * mount.c - `skillsfs MOUNTPOINT ...`: checks the mountpoint, builds the
 * first generation, mounts, daemonizes, starts the refresh thread and
 * runs the FUSE loop until unmounted or signalled (SIGHUP rebuilds: see
 * refresh.c).
 *
 * Every path is resolved before daemonizing (libfuse then changes
 * directory to /).  Exit status: 0 after a clean unmount, 1 when mounting
 * or serving failed, 2 on a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "fetcher.h"
#include "lockfile.h"
#include "remote_read.h"
#include "report.h"
#include "serve_loop.h"
#include "source.h"

#define CACHE_TIMEOUT 86400.0   /* invalidation keeps caches right */

/* "skillsfs: MESSAGE" on stderr; returns CLI_EXIT_FAILED (1). */
#define fail(...) cli_fail("skillsfs", __VA_ARGS__)

static bool dir_is_empty(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!dir)
		return true;   /* mount(2) will tell */
	while (empty && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(dir);
	return empty;
}

/* Whether path is the root of a mount already listed in mountinfo; sets
 * *fstype to its type (malloc'd). */
static bool mounted_at(const char *path, char **fstype)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char mnt[PATH_MAX], type[256];
		/* id parent major:minor root mountpoint opts ... - type ... */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		const char *dash = strstr(line, " - ");
		if (strcmp(mnt, path) != 0 || !dash ||
		    sscanf(dash + 3, "%255s", type) != 1)
			continue;
		*fstype = strdup(type);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* Checks the mountpoint and makes it absolute; returns 0 or an exit status
 * after a message with advice. */
static int check_mountpoint(const char *given, bool nonempty, char **out)
{
	struct stat st;
	char *type = NULL;

	if (stat(given, &st) < 0) {
		if (errno == ENOENT)
			return fail("mountpoint %s does not exist; create it "
			            "first (mkdir -p %s)", given, given);
		if (errno == ENOTCONN)
			return fail("%s: Transport endpoint is not connected: "
			            "a FUSE daemon that served it has died; "
			            "unmount it first with: fusermount3 -u %s",
			            given, given);
		return fail("mountpoint %s: %s", given, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return fail("mountpoint %s is not a directory", given);
	*out = realpath(given, NULL);
	if (!*out)
		return fail("mountpoint %s: %s", given, strerror(errno));
	if (mounted_at(*out, &type) && strncmp(type, "fuse", 4) == 0) {
		struct statvfs sv;
		/* statfs always reaches the daemon; cached entries may not */
		if (statvfs(*out, &sv) < 0 && errno == ENOTCONN)
			fail("%s: Transport endpoint is not connected: the %s "
			     "daemon that served it has died", *out, type);
		else
			fail("%s is busy: a %s filesystem is mounted there",
			     *out, type);
		fprintf(stderr, "skillsfs: unmount it first with: "
		        "fusermount3 -u %s\n", *out);
		free(type);
		return 1;
	}
	free(type);
	if (!nonempty && !dir_is_empty(*out)) {
		fail("mountpoint %s is not empty: the mount would hide its "
		     "files; use an empty folder, or -o nonempty", *out);
		return 1;
	}
	return 0;
}

static int check_dev_fuse(void)
{
	if (access("/dev/fuse", F_OK) == 0)
		return 0;
	return fail("/dev/fuse is missing (%s): load the fuse module "
	            "(modprobe fuse) or, in a container, pass --device "
	            "/dev/fuse (and --cap-add SYS_ADMIN)", strerror(errno));
}

static void warn_missing_roots(const struct roots *roots)
{
	struct stat st;

	for (size_t i = 0; i < roots->n; i++) {
		if (!(sfs_source_caps(roots->paths[i]) & SFS_SOURCE_WATCHED))
			continue;   /* the build reports what it cannot read */
		if (stat(roots->paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		fprintf(stderr, "skillsfs: warning: skills directory %s does "
		        "not exist (yet); it is served once it appears\n",
		        roots->paths[i]);
	}
}

/* Drops root i from the roots and their options. */
static void drop_root(struct mount_options *o, size_t i)
{
	struct roots *r = &o->roots;
	size_t after = r->n - i - 1;

	free(r->paths[i]);
	memmove(&r->paths[i], &r->paths[i + 1], after * sizeof(*r->paths));
	memmove(&r->sources[i], &r->sources[i + 1],
	        after * sizeof(*r->sources));
	if (o->root_options)
		memmove(&o->root_options[i], &o->root_options[i + 1],
		        after * sizeof(*o->root_options));
	r->n--;
}

/*
 * A root that resolves into a skillsfs mount, this one's or another's
 * (an agent's skills folder linked to a view, say), is never read: the
 * mount would list every skill twice, or wait on itself.  It is told
 * and left out; the other roots are served.
 */
static void refuse_roots_in_mounts(struct mount_options *o,
                                   const char *mountpoint)
{
	char *self = realpath(mountpoint, NULL);

	for (size_t i = 0; i < o->roots.n;) {
		const char *root = o->roots.paths[i];
		bool path = sfs_source_caps(root) & SFS_SOURCE_WATCHED;
		char *real = path ? realpath(root, NULL) : NULL;
		char *other = real ? sfs_skillsfs_mount_of(real) : NULL;
		/* a root that does not exist yet may be inside this mount,
		 * whose folders appear with it */
		const char *at = real ? real : root;
		size_t n = self ? strlen(self) : 0;
		bool mine = self && path &&
		            strncmp(at, self, n) == 0 &&
		            (at[n] == '/' || !at[n]);
		if (mine || other) {
			fprintf(stderr, "skillsfs: skills directory %s%s%s is "
			        "inside the skillsfs mount at %s: not read (it "
			        "would %s); give that mount's own skills "
			        "directories instead\n", root,
			        strcmp(root, at) ? " -> " : "",
			        strcmp(root, at) ? at : "",
			        mine ? self : other,
			        mine ? "wait on itself" : "list every skill "
			        "twice");
			drop_root(o, i);
		} else {
			i++;
		}
		free(real);
		free(other);
	}
	free(self);
}

/* A source that could not be read at start (a git root whose ref did
 * not resolve, an MCP server never reached) is told on stderr with its
 * findings, and the other roots are served; with -o strict, or from a
 * lockfile (its commit is gone, its skills cannot be checked), it ends
 * the mount.  Returns 0 or 1. */
static int check_sources(const struct daemon *d)
{
	const sfs_catalog *cat = d->cur->cat;
	size_t n;
	const struct sfs_diag *diags = sfs_catalog_diags(cat, &n);
	bool fatal = d->opt->strict || d->opt->lock;
	int status = 0;

	for (size_t i = 0; i < d->opt->roots.n; i++)
		if (fetcher_rejected(d, i))
			status = fail("%s: %s; not mounted", d->opt->roots.paths[i],
			              d->root_notes[i] ? d->root_notes[i] :
			              "refused");
	if (status)
		return status;
	for (size_t i = 0; i < sfs_catalog_nroots(cat); i++) {
		const struct sfs_source *src = sfs_catalog_source(cat, i);
		if (!src->ops->version || src->ops->version(src))
			continue;
		for (size_t k = 0; k < n; k++)
			if (strcmp(diags[k].file, src->root) == 0)
				fprintf(stderr, "skillsfs: %s: %s: %s\n",
				        fatal ? "error" : "warning",
				        diags[k].file, diags[k].message);
		if (d->opt->lock)
			status = fail("--lock: the locked source %s cannot be "
			              "read", src->root);
		else if (d->opt->strict)
			status = fail("-o strict: the source %s cannot be read",
			              src->root);
	}
	return status;
}

/* The folder of root `root` whose skill is `id` and is not served, or
 * NULL. */
static const struct sfs_unserved *unserved_of(const sfs_catalog *cat,
                                              size_t root, const char *id)
{
	size_t n;
	const struct sfs_unserved *v = sfs_catalog_unserved(cat, &n);

	for (size_t i = 0; i < n; i++)
		if (v[i].root == root && v[i].id && strcmp(v[i].id, id) == 0)
			return &v[i];
	return NULL;
}

/* Why a locked skill of `src` (root `root`: a folder or an MCP server)
 * is not served. */
static void tell_unserved(const sfs_catalog *cat, size_t root,
                          const struct sfs_lock_source *src,
                          const struct sfs_lock_skill *l)
{
	const struct sfs_unserved *u = unserved_of(cat, root, l->id);
	char locked[SFS_DIGEST_LEN];
	bool told = false;

	for (size_t k = 0; u && k < u->ndiags; k++) {
		if (u->diags[k].severity != SFS_ERROR)
			continue;
		fprintf(stderr, "skillsfs: error: %s: %s\n", src->root,
		        u->diags[k].message);
		told = true;
	}
	if (told)
		return;
	sfs_format_digest(l->digest, locked);
	fprintf(stderr, "skillsfs: error: %s: skill \"%s\" is locked (%s) "
	        "but %s\n", src->root, l->id, locked,
	        u ? "not served" : "not found");
}

/*
 * From a lockfile, every skill it names of a folder or an MCP server must
 * be served from that source, as locked (sfs_config.lock withdrew the
 * others): a skill edited, changed on the server or gone since is an
 * error naming the source, the skill and the digests.  Returns 0 or 1.
 */
static int check_lock_held(const struct daemon *d)
{
	const struct sfs_lock *lock = d->opt->lock;
	const sfs_catalog *cat = d->cur->cat;
	size_t bad = 0;

	for (size_t i = 0; lock && i < lock->nsources; i++) {
		const struct sfs_lock_source *src = &lock->sources[i];
		for (size_t k = 0; src->names_skills && k < src->nskills; k++) {
			const struct sfs_lock_skill *l = &src->skills[k];
			const struct sfs_skill *s = sfs_catalog_find(cat, l->id);
			if (s && s->root == i)
				continue;
			tell_unserved(cat, i, src, l);
			bad++;
		}
	}
	if (bad)
		return fail("--lock %s: %zu locked skill%s not as locked; not "
		            "mounting", d->opt->lock_file ? d->opt->lock_file :
		            d->opt->cf.lock, bad, bad == 1 ? " is" : "s are");
	return 0;
}

static int run_loop(struct daemon *d)
{
	const struct mount_options *o = d->opt;

	/* one thread by default: on 2 cores it beat the multi-threaded loop
	 * for every cold workload measured (find, cat, grep -r, ls -R, and
	 * four readers at once) */
	if (!o->multithreaded)
		return serve_loop(d->se, o->busy_poll_us);
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, o->clone_fd);
	if (o->max_idle_threads)
		fuse_loop_cfg_set_idle_threads(cfg, o->max_idle_threads);
	if (o->max_threads)
		fuse_loop_cfg_set_max_threads(cfg, o->max_threads);
	int rc = fuse_session_loop_mt(d->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return rc;
}

/* Raises the descriptor limit to the hard one: changed sources are held
 * open for a generation (gen_params.pin).  Returns how many may be. */
static unsigned pin_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
		if (want > rl.rlim_cur) {
			struct rlimit raised = { want, rl.rlim_max };
			if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
				rl.rlim_cur = want;
		}
	}
	rlim_t budget = rl.rlim_cur / 8;
	return budget > 1024 ? 1024 : (unsigned)budget;
}

/* sfs_source_options.stop: the mount ends, (on a worker of reads) the
 * read waited for was answered by its deadline, or the start waited for
 * the servers long enough. */
static bool daemon_stopping(void *arg)
{
	const struct daemon *d = arg;
	return atomic_load(&d->stopping) || remote_read_abandoned() ||
	       fetcher_start_waited(d);
}

/* The roots' options, each with the daemon's stop: a wait on a server
 * (a fetch, a read's, a listener's) ends once the mount stops, and a
 * read's once its deadline answered it. */
static int root_options_init(struct daemon *d, const struct mount_options *o)
{
	size_t n = o->roots.n;

	d->root_options = calloc(n ? n : 1, sizeof(*d->root_options));
	if (!d->root_options)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (o->root_options)
			d->root_options[i] = o->root_options[i];
		d->root_options[i].stop = daemon_stopping;
		d->root_options[i].stop_arg = d;
		d->root_options[i].fetch_timeout_s = o->fetch_timeout_s;
	}
	return 0;
}

static int daemon_init(struct daemon *d, const struct mount_options *o,
                       const char *mountpoint)
{
	/* A generation's large arrays (its inode table, above all) are
	 * mapped on their own and given back when the generation goes.
	 * glibc would otherwise raise the threshold to the size of the first
	 * one freed and put the next ones in the heap, which keeps their
	 * pages after they are freed. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	memset(d, 0, sizeof(*d));
	d->opt = o;
	d->mountpoint = mountpoint;
	d->max_pins = pin_budget();
	d->retainer.budget = (size_t)o->retain_mib << 20;
	d->timeout = CACHE_TIMEOUT;
	d->next_ino = TREE_ROOT_INO + 1;
	atomic_init(&d->fetch_every_ms, -1);
	if (root_options_init(d, o) < 0)
		return -ENOMEM;
	if (pthread_mutex_init(&d->cur_lock, NULL) != 0)
		return -ENOMEM;
	if (pthread_mutex_init(&d->notes_lock, NULL) != 0) {
		pthread_mutex_destroy(&d->cur_lock);
		return -ENOMEM;
	}
	int rc = cond_init_monotonic(&d->published);
	if (rc < 0) {
		pthread_mutex_destroy(&d->cur_lock);
		pthread_mutex_destroy(&d->notes_lock);
		return rc;
	}
	rc = searches_init(&d->searches);
	if (rc == 0)
		rc = lookups_init(&d->lookups);
	return rc;
}

static void daemon_fini(struct daemon *d)
{
	fetcher_stop(d);
	refresher_stop(d);
	lookups_destroy(&d->lookups);
	searches_destroy(&d->searches);
	gen_unref(d->cur);
	d->cur = NULL;
	pthread_mutex_destroy(&d->cur_lock);
	pthread_mutex_destroy(&d->notes_lock);
	pthread_cond_destroy(&d->published);
	free(d->conn_opts);
	free(d->root_options);
}

/* Mounts and serves until unmounted; returns the exit status. */
static int serve(struct daemon *d, struct mount_options *o,
                 const char *mountpoint)
{
	d->conn_opts = fuse_parse_conn_info_opts(&o->fuse_args);
	if (!d->conn_opts)
		return 2;
	d->se = fuse_session_new(&o->fuse_args, skillsfs_ops(),
	                         sizeof(struct fuse_lowlevel_ops), d);
	if (!d->se)
		return 2;   /* libfuse said which option it did not take */
	int status = 1;
	if (fuse_set_signal_handlers(d->se) != 0) {
		fail("cannot set signal handlers");
	} else if (fuse_session_mount(d->se, mountpoint) != 0) {
		fail("cannot mount on %s (see above); if a dead mount is "
		     "there, run: fusermount3 -u %s", mountpoint, mountpoint);
		fuse_remove_signal_handlers(d->se);
	} else {
		fuse_daemonize(o->foreground);
		if (refresher_start(d, fetcher_kick_fd(d)) < 0)
			fail("cannot start the refresh thread");
		else if (fetcher_start(d) < 0)
			fail("cannot start the fetch thread");
		else if (remote_reads_start(d, o->read_timeout_s,
		                            &d->remote_reads) < 0)
			fail("cannot start the threads of remote reads");
		else if (run_loop(d) >= 0)
			status = 0;   /* unmounted, or a signal number */
		/* every wait on a server ends now (within a second) */
		atomic_store(&d->stopping, true);
		remote_reads_stop(d->remote_reads);
		d->remote_reads = NULL;
		fetcher_stop(d);
		refresher_stop(d);
		fuse_remove_signal_handlers(d->se);
		fuse_session_unmount(d->se);
	}
	fuse_session_destroy(d->se);
	d->se = NULL;
	return status;
}

/* How long the start may copy published bytes before the mount answers. */
#define FIRST_FILL_MS 20

/* The first generation, then the mount.  Returns the exit status. */
static int build_and_serve(struct daemon *d, struct mount_options *o,
                           const char *mountpoint)
{
	/* local roots at once; a remote one as soon as it answers */
	fetcher_first(d);
	d->cur = refresher_build(d, NULL, NULL, 0);
	if (!d->cur)
		return fail("cannot build the catalog: %s", strerror(ENOMEM));
	int status = check_sources(d);
	if (status == 0)
		status = check_lock_held(d);
	if (status != 0)
		return status;
	report_catalog(d, NULL, d->cur->cat);
	/* an edit that came between the mount's start and the background
	 * fill's copy of a file made its first read ESTALE (a test caught
	 * it on a loaded machine); 20 ms covers a few hundred files and is
	 * 4% of the ready time of 10,000 skills */
	refresher_fill_first(d, FIRST_FILL_MS);
	daemon_trim();
	return serve(d, o, mountpoint);
}

int mount_main(int argc, char **argv)
{
	struct mount_options o;
	struct daemon d;
	char *mountpoint = NULL;
	int status = options_parse(argc, argv, &o);

	if (status != 0)
		return status;
	if (o.help) {
		options_usage(stdout, "skillsfs");
		fflush(stdout);
		fuse_lowlevel_help();
		options_free(&o);
		return 0;
	}
	if (o.version) {
		printf("skillsfs %s (libfuse %s)\n", SKILLSFS_VERSION,
		       fuse_pkgversion());
		options_free(&o);
		return 0;
	}
	status = check_mountpoint(o.mountpoint, o.nonempty, &mountpoint);
	if (status == 0)
		status = check_dev_fuse();
	if (status != 0) {
		free(mountpoint);
		options_free(&o);
		return status;
	}
	refuse_roots_in_mounts(&o, mountpoint);
	warn_missing_roots(&o.roots);

	if (daemon_init(&d, &o, mountpoint) < 0 || refresher_init(&d) < 0 ||
	    fetcher_init(&d) < 0)
		status = fail("out of memory");

	else
		status = build_and_serve(&d, &o, mountpoint);
	daemon_fini(&d);
	free(mountpoint);
	options_free(&o);
	return status;
}
