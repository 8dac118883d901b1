/*
 * audit.c - the --audit-log file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "buf.h"

/* "2026-11-22T10:00:00.123Z" for the wall clock now; `out` >= 32 bytes. */
static void iso8601_now(char *out, size_t outlen)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, outlen, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, outlen - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

int audit_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
		      0600);
	return fd < 0 ? -errno : fd;
}

void audit_write(int fd, const struct audit_entry *e)
{
	static bool warned;
	char now[40];

	if (fd < 0)
		return;
	iso8601_now(now, sizeof(now));
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return;
	cJSON_AddStringToObject(o, "time", now);
	if (e->method)
		cJSON_AddStringToObject(o, "method", e->method);
	else
		cJSON_AddNullToObject(o, "method");
	if (e->id_raw)
		cJSON_AddItemToObject(o, "id", cJSON_CreateRaw(e->id_raw));
	if (e->key && e->value)
		cJSON_AddStringToObject(o, e->key, e->value);
	if (e->arg_key && e->arg)
		cJSON_AddStringToObject(o, e->arg_key, e->arg);
	cJSON_AddStringToObject(o, "outcome", e->outcome);
	if (strcmp(e->outcome, "error") == 0)
		cJSON_AddNumberToObject(o, "code", e->code);
	/* Three decimals are enough and keep the line short. */
	char ms[32];
	snprintf(ms, sizeof(ms), "%.3f", e->duration_ms);
	cJSON_AddItemToObject(o, "duration_ms", cJSON_CreateRaw(ms));

	char *text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return;
	struct buf line = { 0 };
	buf_adds(&line, text);
	buf_addc(&line, '\n');
	free(text);
	if (line.failed) {
		buf_free(&line);
		return;
	}
	/* One write per line: O_APPEND keeps concurrent writers' lines whole. */
	ssize_t w = write(fd, line.data, line.len);
	if ((w < 0 || (size_t)w != line.len) && !warned) {
		warned = true;
		fprintf(stderr, "skillsfs-mcp: cannot write the audit log: %s\n",
			w < 0 ? strerror(errno) : "short write");
	}
	buf_free(&line);
}
