/*
 * stdio.c - the stdio transport (MCP's): a server that the client runs as
 * its child, one message a line on the child's standard input and
 * output.  Bytes in, bytes out: session.c says what they mean, and
 * answers what the server asks.  A line that is not a JSON-RPC message
 * breaks the transport's rule ("MUST NOT write anything to its stdout
 * that is not a valid MCP message"): the session says so.
 *
 * The child:
 *  - has the process's environment with the source's env: over it;
 *  - writes its standard error where the daemon's own goes (the terminal
 *    with -f, the journal under systemd, /dev/null once daemonized): MCP
 *    has a server log there, and a pipe would need a reader or fill up
 *    and stall the server;
 *  - keeps no other descriptor of ours (the FUSE device above all: a
 *    child holding it would keep the mount alive after an unmount);
 *  - starts with every signal at its default and none blocked (the
 *    daemon's threads block some, libfuse ignores SIGPIPE);
 *  - leads a process group of its own: a ^C on the daemon's terminal
 *    reaches the daemon, which ends the server, and the end reaches what
 *    a wrapper (npx, a shell script) started in turn.
 *
 * The program passes the rule the configuration file that names it passed
 * (trust.h): one another user may change would run with the daemon's
 * rights, root's under a system mount, as sshd holds its
 * AuthorizedKeysCommand.  Its arguments are the file's to choose.
 *
 * A write to a server that died raises SIGPIPE: it is blocked on the
 * writing thread meanwhile and a pending one taken, so that it never
 * ends the process whatever its disposition.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "transport.h"
#include "trust.h"

/* How long an ending server has to exit before the next, harder, ask;
 * and when the client's owner stops (a mount that ends). */
#define CLOSE_WAIT_MS 1000
#define STOPPING_WAIT_MS 100
/* How often a wait on the server asks whether to stop. */
#define STOP_LOOK_MS 250
#define CHUNK 65536

extern char **environ;

struct stdio {
	struct mcp_transport t;
	pid_t pid;             /* and its process group's id; 0: none */
	bool exited;           /* then, as waitid says: */
	int how;               /* CLD_EXITED, CLD_KILLED...; 0: not known */
	int status;            /* its exit status, or the signal */
	int in, out;           /* our ends of its stdin and stdout */
	char *command;
	char *label;           /* "the MCP server <command>" */
	char asked[64];        /* the last request's method, for messages */
	char *buf;             /* what it wrote and was not taken yet: */
	size_t start, len, cap;   /* buf[start..len) */
};

static long long now_ms(void)
{
	return mcp_now_ms();
}

/* ---- the child's life ------------------------------------------------ */

/* Whether the child exited within ms (< 0: however long it takes); its
 * status is kept then.  It is not reaped: while it is a zombie its pid,
 * which is also its process group's id, cannot be taken by another
 * process, so that end_group() signals none but the group's. */
static bool exited_within(struct stdio *c, int ms)
{
	long long deadline = now_ms() + ms;
	int pfd = -1;

#ifdef SYS_pidfd_open
	if (c->pid > 0 && ms > 0)
		pfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
#endif
	while (c->pid > 0 && !c->exited) {
		siginfo_t si = { 0 };
		int r = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT |
		               (ms < 0 ? 0 : WNOHANG));
		if (r == 0 && si.si_pid == c->pid) {
			c->exited = true;
			c->how = si.si_code;
			c->status = si.si_status;
			break;
		}
		if (r < 0 && errno == ECHILD) {
			/* SIGCHLD ignored: the kernel reaped it */
			c->exited = true;
			c->how = 0;
			break;
		}
		if (r < 0 && errno != EINTR)
			break;   /* (EINVAL): no wait would end */
		long long left = deadline - now_ms();
		if (ms >= 0 && left <= 0)
			break;
		if (ms < 0 || r < 0)
			continue;
		/* woken by its exit; without pidfds, looked at every 10 ms */
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
		if (pfd >= 0)
			poll(&p, 1, (int)left);
		else
			nanosleep(&tick, NULL);
	}
	if (pfd >= 0)
		close(pfd);
	return c->pid == 0 || c->exited;
}

/* Whether a process of the group pgid runs (a zombie has ended), as
 * /proc shows; true when /proc cannot be read, so that the group is
 * signalled rather than left. */
static bool group_runs(pid_t pgid)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	bool runs = false;

	if (!proc)
		return true;
	while (!runs && (de = readdir(proc))) {
		char path[300], stat[512];
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, stat, sizeof(stat) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;   /* it ended meanwhile */
		stat[n] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold anything */
		char *end = strrchr(stat, ')'), state;
		int ppid, pgrp;
		runs = end && sscanf(end + 1, " %c %d %d", &state, &ppid,
		                     &pgrp) == 3 && pgrp == pgid && state != 'Z';
	}
	closedir(proc);
	return runs;
}

/* Whether every process of the group pgid ended within ms. */
static bool group_ended_within(pid_t pgid, int ms)
{
	long long deadline = now_ms() + ms;
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

	while (group_runs(pgid)) {
		if (now_ms() >= deadline)
			return false;
		nanosleep(&tick, NULL);
	}
	return true;
}

/*
 * Ends the server and all its process group, then reaps it.  A server
 * asked to exit by the end of its input may leave behind what a wrapper
 * started (sh -c 'helper & exec server', npx): the group is asked to end
 * (SIGTERM), then made to (SIGKILL) after CLOSE_WAIT_MS.  The leader is
 * reaped last: until then its pid, the group's id, is no other's.
 */
static void end_group(struct stdio *c, bool hurry)
{
	if (c->pid <= 0)
		return;
	/* a mount that ends waits for no server: a stop within a second */
	int grace = hurry ? STOPPING_WAIT_MS : CLOSE_WAIT_MS;
	exited_within(c, grace);
	if (group_runs(c->pid)) {
		kill(-c->pid, SIGTERM);
		if (!group_ended_within(c->pid, grace)) {
			kill(-c->pid, SIGKILL);
			group_ended_within(c->pid, CLOSE_WAIT_MS);
		}
	}
	exited_within(c, -1);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
}

/* Why the server is gone, in why: how it ended, when it did. */
static int ended(struct stdio *c, char *why, size_t wlen)
{
	char how[64] = "closed its standard output";

	if (exited_within(c, CLOSE_WAIT_MS)) {
		if (c->how == CLD_EXITED)
			snprintf(how, sizeof(how), "exited with status %d",
			         c->status);
		else if (c->how == CLD_KILLED || c->how == CLD_DUMPED)
			snprintf(how, sizeof(how), "was killed by signal %d",
			         c->status);
	}
	snprintf(why, wlen, "%s %s before answering %s", c->label, how,
	         c->asked);
	return -EIO;
}

/* The process's environment with add's NAME=VALUE over it (an array of
 * borrowed strings), or NULL. */
static char **child_env(const char *const *add)
{
	size_t n = 0, k = 0, m = 0;

	while (environ && environ[n])
		n++;
	while (add && add[k])
		k++;
	char **v = calloc(n + k + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		bool over = false;
		for (size_t j = 0; !over && j < k; j++)
			over = strncmp(add[j], environ[i], len + 1) == 0;
		if (!over)
			v[m++] = environ[i];
	}
	for (size_t j = 0; v && j < k; j++)
		v[m++] = (char *)add[j];
	return v;
}

/* fd moved above 2, so that the child's dup2 onto 0 or 1 cannot close
 * the other pipe's end there. */
static int above_stdio(int *fd)
{
	if (*fd > 2)
		return 0;
	int high = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (high < 0)
		return -errno;
	close(*fd);
	*fd = high;
	return 0;
}

static int pipes(int in[2], int out[2])
{
	in[0] = in[1] = out[0] = out[1] = -1;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	int rc = above_stdio(&in[0]);
	if (rc == 0)
		rc = above_stdio(&out[1]);
	/* our ends never block: every wait has a deadline (poll) */
	if (rc == 0 && (fcntl(in[1], F_SETFL, O_NONBLOCK) < 0 ||
	                fcntl(out[0], F_SETFL, O_NONBLOCK) < 0))
		rc = -errno;
	return rc;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

/* posix_spawn of argv with in[0] as its stdin, out[1] as its stdout. */
static int spawn(struct stdio *c, const char *const *argv,
                 char **envp, int in[2], int out[2])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;

	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -ENOMEM;
	}
	int rc = posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	if (rc == 0)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (rc == 0)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
		                              POSIX_SPAWN_SETSIGDEF |
		                              POSIX_SPAWN_SETPGROUP);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&at, &all);
	if (rc == 0)
		rc = posix_spawnattr_setpgroup(&at, 0);
	if (rc == 0)
		rc = posix_spawn(&c->pid, argv[0], &fa, &at,
		                 (char *const *)argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		c->pid = 0;
	return -rc;
}

/* Whether program may be run: a regular file that it and every folder
 * above it are ours or root's, and nobody else may write. */
static int program_ok(const char *program, char *why, size_t wlen)
{
	char refused[1024];
	int fd = sfs_trust_open(program, SFS_TRUST_CONFIG, 0, refused,
	                        sizeof(refused));

	if (fd < 0) {
		snprintf(why, wlen, "cannot run the MCP server %s: %s", program,
		         refused);
		return fd;
	}
	close(fd);
	return 0;
}

/* The server started, its pipes ours. */
static int start(struct stdio *c, const char *const *argv,
                 const char *const *env, char *why, size_t wlen)
{
	int rc = program_ok(argv[0], why, wlen);
	if (rc < 0)
		return rc;
	int in[2], out[2];
	char **envp = child_env(env);
	rc = envp ? pipes(in, out) : -ENOMEM;

	if (rc == 0)
		rc = spawn(c, argv, envp, in, out);
	free(envp);
	if (rc < 0) {
		snprintf(why, wlen, "cannot run the MCP server %s: %s",
		         argv[0], strerror(-rc));
		if (envp) {
			close_pair(in);
			close_pair(out);
		}
		return rc;
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	return 0;
}

/* ---- messages ---------------------------------------------------------- */

/* poll(2) on pf until it is ready (1), the deadline passes (0), or the
 * owner says to stop (-ECANCELED). */
static int await_fd(struct pollfd *pf, const struct mcp_wait *w)
{
	long long left = w->deadline - now_ms();

	while (left > 0) {
		long long slice = w->stop && left > STOP_LOOK_MS ?
		                  STOP_LOOK_MS : left;
		if (poll(pf, 1, (int)slice) > 0)
			return 1;
		if (mcp_stopped(w))
			return -ECANCELED;
		left = w->deadline - now_ms();
	}
	return 0;
}

/* *why for a wait the owner ended. */
static int cancelled(const struct stdio *c, const char *what, char *why,
                     size_t wlen)
{
	snprintf(why, wlen, "%s: %s: stopped while waiting for it",
	         c->label, what);
	return -ECANCELED;
}

/* Writes n bytes of p to the server's stdin by w's deadline, SIGPIPE
 * held off; `what` is written, for messages. */
static int write_all(struct stdio *c, const char *what, const char *p,
                     size_t n, const struct mcp_wait *w, char *why,
                     size_t wlen)
{
	sigset_t pipe_set, old, pending;
	int rc = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	bool was_pending = sigismember(&pending, SIGPIPE);
	while (rc == 0 && n > 0) {
		ssize_t put = write(c->in, p, n);
		struct pollfd pf = { .fd = c->in, .events = POLLOUT };
		if (put > 0) {
			p += put;
			n -= (size_t)put;
		} else if (put < 0 && errno == EAGAIN) {
			int ready = await_fd(&pf, w);
			rc = ready < 0 ? ready : ready == 0 ? -ETIMEDOUT : 0;
		} else if (!(put < 0 && errno == EINTR)) {
			rc = put < 0 ? -errno : -EIO;
		}
	}
	if (rc == -EPIPE && !was_pending) {
		struct timespec zero = { 0 };
		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == -EPIPE)
		return ended(c, why, wlen);
	if (rc == -ECANCELED)
		return cancelled(c, what, why, wlen);
	if (rc == -ETIMEDOUT)
		snprintf(why, wlen, "%s did not read %s within %ld s",
		         c->label, what, w->seconds);
	else if (rc < 0)
		snprintf(why, wlen, "cannot write to %s: %s", c->label,
		         strerror(-rc));
	return rc;
}

/* One message, one line: the session's text holds no newline (cJSON
 * escapes every one inside strings). */
static int stdio_send(struct mcp_transport *t, const char *msg, size_t n,
                      const struct mcp_envelope *env,
                      const struct mcp_wait *w, char *why, size_t wlen)
{
	struct stdio *c = (struct stdio *)t;
	const char *what = env->method ? env->method : "an answer";

	if (env->answered)
		snprintf(c->asked, sizeof(c->asked), "%s", what);
	int rc = write_all(c, what, msg, n, w, why, wlen);
	return rc < 0 ? rc : write_all(c, what, "\n", 1, w, why, wlen);
}

/* Room in c->buf for CHUNK more bytes, what was taken moved out. */
static int make_room(struct stdio *c)
{
	if (c->start) {
		memmove(c->buf, c->buf + c->start, c->len - c->start);
		c->len -= c->start;
		c->start = 0;
	}
	if (c->cap >= c->len + CHUNK + 1)
		return 0;
	char *grown = realloc(c->buf, c->len + CHUNK + 1);
	if (!grown)
		return -ENOMEM;
	c->buf = grown;
	c->cap = c->len + CHUNK + 1;
	return 0;
}

/* The next line the server wrote (its end '\n' cut), in *line: valid
 * until the next call. */
static int read_line(struct stdio *c, const struct mcp_wait *w,
                     char **line, char *why, size_t wlen)
{
	for (;;) {
		char *p = c->buf + c->start;
		char *nl = memchr(p, '\n', c->len - c->start);
		if (nl) {
			*nl = '\0';
			*line = p;
			c->start = (size_t)(nl + 1 - c->buf);
			return 0;
		}
		if (c->len - c->start > SFS_MCP_MAX_ANSWER) {
			snprintf(why, wlen, "%s wrote a line larger than %u MiB",
			         c->label, SFS_MCP_MAX_ANSWER >> 20);
			return -EFBIG;
		}
		if (make_room(c) < 0)
			return mcp_no_memory(why, wlen);
		struct pollfd pf = { .fd = c->out, .events = POLLIN };
		int ready = await_fd(&pf, w);
		if (ready < 0)
			return cancelled(c, c->asked, why, wlen);
		if (ready == 0) {
			snprintf(why, wlen, "%s did not answer %s within %ld s",
			         c->label, c->asked, w->seconds);
			return -ETIMEDOUT;
		}
		ssize_t n = read(c->out, c->buf + c->len, CHUNK);
		if (n == 0)
			return ended(c, why, wlen);
		if (n > 0)
			c->len += (size_t)n;
		else if (errno != EAGAIN && errno != EINTR)
			return ended(c, why, wlen);
	}
}

static int stdio_receive(struct mcp_transport *t, const struct mcp_wait *w,
                         char **msg, char *why, size_t wlen)
{
	struct stdio *c = (struct stdio *)t;
	char *line = NULL;
	int rc;

	*msg = NULL;
	do   /* an empty line carries nothing */
		rc = read_line(c, w, &line, why, wlen);
	while (rc == 0 && line[strspn(line, " \t\r")] == '\0');
	if (rc == 0 && !(*msg = strdup(line)))
		rc = -ENOMEM;
	return rc;
}

/* Ends the server: its standard input closed (the transport's way to
 * ask it to exit), SIGTERM to its process group a second later (a tenth
 * of one in a hurry), SIGKILL a second after that; it is reaped in
 * every case. */
static void stdio_close(struct mcp_transport *t, bool hurry)
{
	struct stdio *c = (struct stdio *)t;

	/* and a server stuck writing to us gets EPIPE */
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	end_group(c, hurry);
	free(c->buf);
	free(c->command);
	free(c->label);
	free(c);
}

/* no session to forget, no stream between requests */
static const struct mcp_transport_ops stdio_ops = {
	.send = stdio_send, .receive = stdio_receive, .close = stdio_close,
};

int mcp_stdio_open(const char *const *argv, const char *const *env,
                   struct mcp_transport **out, char *why, size_t wlen)
{
	struct stdio *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (c && asprintf(&c->label, "the MCP server %s", argv[0]) < 0)
		c->label = NULL;
	if (c && (!c->label || !(c->command = strdup(argv[0])) ||
	          !(c->buf = malloc(CHUNK + 1)))) {
		free(c->label);
		free(c->command);
		free(c);
		c = NULL;
	}
	if (!c)
		return mcp_no_memory(why, wlen);
	c->t = (struct mcp_transport){ .ops = &stdio_ops, .name = c->command,
	                               .label = c->label, .frame = "a line",
	                               .in_step = false };
	c->cap = CHUNK + 1;
	c->in = c->out = -1;
	c->status = -1;
	snprintf(c->asked, sizeof(c->asked), "initialize");
	int rc = start(c, argv, env, why, wlen);
	if (rc < 0) {
		stdio_close(&c->t, false);
		return rc;
	}
	*out = &c->t;
	return 0;
}
