/*
 * automount.c - starting and stopping skillsfs on behalf of the server.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "automount.h"
#include "mount.h"
#include "util.h"

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

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

static bool unmount_once(const char *mount, bool lazy)
{
	char *argv[] = { "fusermount3", lazy ? "-uz" : "-u", (char *)mount,
			 NULL };
	int rc = run(argv);

	if (rc == 0)
		return true;
	/* Without fusermount3, root can still unmount directly. */
	return geteuid() == 0 && umount2(mount, lazy ? MNT_DETACH : 0) == 0;
}

int automount_detach_stale(const char *mount)
{
	return unmount_once(mount, true) ? 0 : -1;
}

static pid_t spawn(const char *prog, const char *mount, char *const *args,
                   size_t nargs)
{
	char **argv = calloc(nargs + 4, sizeof(*argv));
	if (!argv)
		return -1;
	size_t k = 0;
	argv[k++] = (char *)prog;
	argv[k++] = (char *)mount;
	/* In the foreground it stays our child: its messages reach our
	 * stderr, and we can tell when it ends. */
	argv[k++] = "-f";
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = args[i];
	argv[k] = NULL;

	pid_t pid = fork();
	if (pid == 0) {
		/* Our stdout is the protocol stream: keep skillsfs off it.
		 * Its own session, so a terminal's ^C reaches us, not it: we
		 * unmount it in order. */
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		setsid();
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(prog, argv);
		fprintf(stderr, "skillsfs-mcp: cannot run %s: %s\n", prog,
			strerror(errno));
		_exit(127);
	}
	free(argv);
	return pid;
}

int automount_start(struct automount *am, const char *mount,
                    char *const *args, size_t nargs, unsigned timeout_ms,
                    volatile sig_atomic_t *stop)
{
	struct stat st;
	char fstype[64];

	memset(am, 0, sizeof(*am));
	if (stat(mount, &st) < 0) {
		if (errno != ENOENT || mkdir(mount, 0755) < 0) {
			fprintf(stderr, "skillsfs-mcp: cannot create the mount point %s: %s\n",
				mount, strerror(errno));
			return -1;
		}
		am->created_dir = true;
	}
	char *prog = find_skillsfs();
	const char *run_prog = prog ? prog : "skillsfs";
	am->pid = spawn(run_prog, mount, args, nargs);
	if (am->pid < 0) {
		fprintf(stderr, "skillsfs-mcp: cannot start %s: %s\n", run_prog,
			strerror(errno));
		am->pid = 0;
		free(prog);
		return -1;
	}

	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
	unsigned pause = 2;
	int rc = -1;
	for (;;) {
		if (mount_kind(mount, fstype, sizeof(fstype)) == MOUNT_SKILLSFS &&
		    mount_status_readable(mount) == 0) {
			am->mount = strdup(mount);
			rc = am->mount ? 0 : -1;
			break;
		}
		int status;
		if (am->pid > 0 && waitpid(am->pid, &status, WNOHANG) == am->pid) {
			am->pid = 0;
			/* Exit 0 is a daemon going to the background. */
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
				if (WIFEXITED(status))
					fprintf(stderr, "skillsfs-mcp: %s exited with status %d before mounting %s\n",
						run_prog, WEXITSTATUS(status), mount);
				else
					fprintf(stderr, "skillsfs-mcp: %s was killed by signal %d\n",
						run_prog, WTERMSIG(status));
				break;
			}
		}
		if (*stop) {
			fprintf(stderr, "skillsfs-mcp: interrupted while mounting\n");
			break;
		}
		if (now_ns() > deadline) {
			fprintf(stderr, "skillsfs-mcp: %s did not mount %s within %u ms\n",
				run_prog, mount, timeout_ms);
			break;
		}
		sleep_ms(pause);
		if (pause < 50)
			pause *= 2;
	}
	free(prog);
	if (rc < 0) {
		/* Leave nothing behind: a mount that came up late, a child. */
		am->mount = strdup(mount);
		automount_stop(am);
	}
	return rc;
}

void automount_stop(struct automount *am)
{
	char fstype[64];

	if (am->mount && mount_kind(am->mount, fstype, sizeof(fstype)) ==
			 MOUNT_SKILLSFS) {
		bool done = false;
		/* Busy for a moment if a client still has a file open. */
		for (int i = 0; i < 5 && !done; i++) {
			done = unmount_once(am->mount, false);
			if (!done)
				sleep_ms(100);
		}
		if (!done && !unmount_once(am->mount, true))
			fprintf(stderr, "skillsfs-mcp: cannot unmount %s\n",
				am->mount);
	}
	if (am->pid > 0) {
		int status;
		/* Unmounted, skillsfs ends by itself; make sure it does. */
		for (int step = 0; step < 3; step++) {
			uint64_t until = now_ns() + 2000000000u;
			while (now_ns() < until) {
				if (waitpid(am->pid, &status, WNOHANG) != 0)
					goto reaped;
				sleep_ms(10);
			}
			kill(am->pid, step == 0 ? SIGTERM : SIGKILL);
		}
		waitpid(am->pid, &status, 0);
reaped:
		am->pid = 0;
	}
	if (am->created_dir && am->mount)
		rmdir(am->mount);
	free(am->mount);
	am->mount = NULL;
}

void automount_check(struct automount *am)
{
	int status;

	if (am->pid <= 0 || waitpid(am->pid, &status, WNOHANG) != am->pid)
		return;
	am->pid = 0;
	if (WIFEXITED(status))
		fprintf(stderr, "skillsfs-mcp: skillsfs exited with status %d; "
			"%s no longer answers\n", WEXITSTATUS(status), am->mount);
	else
		fprintf(stderr, "skillsfs-mcp: skillsfs was killed by signal %d; "
			"%s no longer answers\n", WTERMSIG(status), am->mount);
}
