/*
 * syslog_capture.c - LD_PRELOAD shim for tests: what the daemon sends to
 * syslog(3) is appended to the file SKILLSFS_TEST_SYSLOG names, one
 * "PRIORITY LINE" per message, so that a test can read what a daemon in
 * the background logged without a syslog daemon or root's /dev/log.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

void openlog(const char *ident, int option, int facility);
void syslog(int priority, const char *format, ...);
void __syslog_chk(int priority, int flag, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

void openlog(const char *ident, int option, int facility)
{
	(void)ident;
	(void)option;
	(void)facility;
}

__attribute__((format(printf, 2, 0)))
static void capture(int priority, const char *format, va_list ap)
{
	const char *path = getenv("SKILLSFS_TEST_SYSLOG");
	char line[2048];
	int n = snprintf(line, sizeof(line), "%d ", LOG_PRI(priority));

	if (!path || n < 0)
		return;
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, format, ap);
	strcat(line, "\n");
	/* one write per line, appended: lines from threads stay whole */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, strlen(line)) < 0) {
		/* nothing to do: the test sees the line missing */
	}
	close(fd);
}

void syslog(int priority, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	capture(priority, format, ap);
	va_end(ap);
}

/* what syslog() becomes under _FORTIFY_SOURCE */
void __syslog_chk(int priority, int flag, const char *format, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, format);
	capture(priority, format, ap);
	va_end(ap);
}
