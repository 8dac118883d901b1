/*
 * keeper.c - the keeper of a shared mount: the parent of its skillsfs
 * daemon, which ends the daemon when no session has held the mount for a
 * while (automount.c says why it is built this way).
 *
 * It polls rather than waits: flock() has no way to say "tell me when the
 * last shared holder goes", and a poll every KEEPER_TICK_MS costs nothing
 * next to the linger.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "keeper.h"
#include "mount.h"

#define KEEPER_TICK_MS 100
#define DAEMON_STOP_MS 5000

static volatile sig_atomic_t keeper_stop;

static void on_stop(int sig)
{
	keeper_stop = sig;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Runs a command with stdout sent to stderr; its exit status or -1. */
static int run(char *const argv[])
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool keeper_unmount(const char *mount, bool lazy)
{
	char *argv[] = { "fusermount3", lazy ? "-uz" : "-u", (char *)mount,
			 NULL };

	if (run(argv) == 0)
		return true;
	/* Without fusermount3, root can still unmount directly. */
	return geteuid() == 0 && umount2(mount, lazy ? MNT_DETACH : 0) == 0;
}

static bool still_mounted(const char *mount)
{
	char fstype[64];

	return mount_kind(mount, fstype, sizeof(fstype)) == MOUNT_SKILLSFS;
}

/* The daemon: our child, told to stop (SIGTERM: it unmounts itself) when
 * we die, whatever kills us. */
static pid_t start_daemon(const struct keeper_spec *k)
{
	char **argv = calloc(k->nargs + 4, sizeof(*argv));
	pid_t keeper = getpid();

	if (!argv)
		return -1;
	size_t n = 0;
	argv[n++] = (char *)k->prog;
	argv[n++] = (char *)k->mount;
	argv[n++] = "-f";   /* stays our child: we see it end */
	for (size_t i = 0; i < k->nargs; i++)
		argv[n++] = k->args[i];
	argv[n] = NULL;

	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != keeper)
			_exit(1);   /* we died before prctl took effect */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "skillsfs-mcp: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	free(argv);
	return pid;
}

/* Waits up to ms for the daemon to end; true when it has. */
static bool reap(pid_t pid, unsigned ms)
{
	uint64_t until = now_ns() + (uint64_t)ms * 1000000u;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		sleep_ms(10);
	} while (now_ns() < until);
	return false;
}

static void stop_daemon(const struct keeper_spec *k, pid_t daemon)
{
	kill(daemon, SIGTERM);
	if (!reap(daemon, DAEMON_STOP_MS)) {
		fprintf(stderr, "skillsfs-mcp: skillsfs %d did not stop; "
			"killing it\n", (int)daemon);
		kill(daemon, SIGKILL);
		reap(daemon, DAEMON_STOP_MS);
	}
	/* A daemon that died without unmounting leaves a dead mount: detach
	 * it, so the next session finds the place clear. */
	if (still_mounted(k->mount))
		keeper_unmount(k->mount, true);
}

static void record_pids(int fd, pid_t daemon)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "keeper %d\nskillsfs %d\n",
			 (int)getpid(), (int)daemon);

	if (ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) < 0)
		return;   /* only for people and tests: not worth failing */
}

/* Called holding LOCK_EX on the hold file: no session uses the files,
 * and one that waits for the hold finds it gone and makes a new one. */
static void remove_files(const struct keeper_spec *k)
{
	unlink(k->log_path);
	unlink(k->start_path);
	unlink(k->keeper_path);
	unlink(k->hold_path);
}

static void finish(const struct keeper_spec *k)
{
	if (k->remove_dir)
		rmdir(k->mount);
	_exit(0);
}

/* The keeper's life: it holds keeper_fd's lock until it exits. */
static void keeper_run(const struct keeper_spec *k, int keeper_fd)
{
	struct sigaction sa = { .sa_handler = on_stop };
	uint64_t idle_since = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);

	int hold_fd = open(k->hold_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (hold_fd < 0) {
		fprintf(stderr, "skillsfs-mcp: cannot open %s: %s\n",
			k->hold_path, strerror(errno));
		_exit(1);
	}
	pid_t daemon = start_daemon(k);
	if (daemon < 0) {
		fprintf(stderr, "skillsfs-mcp: cannot start %s: %s\n", k->prog,
			strerror(errno));
		_exit(1);
	}
	record_pids(keeper_fd, daemon);
	for (;;) {
		sleep_ms(KEEPER_TICK_MS);
		if (keeper_stop) {
			stop_daemon(k, daemon);
			finish(k);
		}
		int status;
		if (waitpid(daemon, &status, WNOHANG) == daemon) {
			/* Unmounted by someone, or crashed: in that case its
			 * mount is dead, and in the way of the next one. */
			if (still_mounted(k->mount))
				keeper_unmount(k->mount, true);
			finish(k);
		}
		if (flock(hold_fd, LOCK_EX | LOCK_NB) < 0) {
			idle_since = 0;   /* a session holds it */
			continue;
		}
		uint64_t now = now_ns();
		if (!idle_since)
			idle_since = now;
		if (now - idle_since < (uint64_t)k->linger_ms * 1000000u) {
			flock(hold_fd, LOCK_UN);
			continue;
		}
		/* Holding LOCK_EX, no session can start to use the mount
		 * while it goes: they wait, then start a new keeper. */
		stop_daemon(k, daemon);
		remove_files(k);
		finish(k);
	}
}

/* In the first child: detach, take the keeper lock, fork the keeper. */
static void become_keeper(const struct keeper_spec *k)
{
	setsid();
	int kfd = open(k->keeper_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (kfd < 0)
		_exit(1);
	if (flock(kfd, LOCK_EX | LOCK_NB) < 0)
		_exit(errno == EWOULDBLOCK ? 3 : 1);
	int log = open(k->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0600);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (log < 0 || null < 0)
		_exit(1);
	/* Keep nothing of the session: not its protocol pipes (a client
	 * waits for them to close), not its locks. */
	if (dup2(null, STDIN_FILENO) < 0 || dup2(log, STDOUT_FILENO) < 0 ||
	    dup2(log, STDERR_FILENO) < 0 || dup2(kfd, 3) < 0)
		_exit(1);
	fcntl(3, F_SETFD, FD_CLOEXEC);
	closefrom(4);
	/* Nor its folder: the keeper may outlive the project's filesystem
	 * being mounted.  Every path it has is absolute. */
	if (chdir("/") < 0)
		_exit(1);
	pid_t pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);   /* the keeper is init's child now, not the session's */
	keeper_run(k, 3);
}

int keeper_spawn(const struct keeper_spec *k)
{
	int status;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		become_keeper(k);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		return -EEXIST;
	return -EIO;
}
