/*
 * fuzz_mcp.c - one input is what a client writes to skillsfs-mcp's
 * stdin: one or several JSON-RPC lines.  A fresh server over a fixture
 * mount (fixture.h) reads them through the same line framing as main.c
 * (in two chunks, so lines also cross a read boundary), then idles once
 * and shuts down, which closes open subscriptions.
 *
 * Invariants on everything the server writes: each message is one line of
 * valid JSON-RPC 2.0, no content from outside the mount is ever served
 * (the fixture's symlinks lead to FIXTURE_SECRET), and every path handed
 * out is inside the mount.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "fuzz.h"
#include "jsonrpc.h"
#include "server.h"

#ifndef FUZZ_SKILLS_DIR
#error "FUZZ_SKILLS_DIR: the example skills the fixture is made from"
#endif

static const char *mount_path;
static char real_mount[PATH_MAX];
static int audit_fd = -1;
static bool echo;   /* FUZZ_MCP_ECHO=1: print what the server writes */

struct run {
	const uint8_t *input;
	size_t input_len;
	size_t messages;
};

static bool input_has(const struct run *run, const char *needle)
{
	return memmem(run->input, run->input_len, needle, strlen(needle)) != NULL;
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* An absolute path the server hands out must lie in the mount, as
 * written and with every symlink followed. */
static void check_path(const char *key, const char *path)
{
	char real[PATH_MAX];

	if (path[0] != '/')
		return;
	FUZZ_ASSERT(below(path, mount_path), "%s %s is outside the mount %s",
		    key, path, mount_path);
	for (const char *s = path + strlen(mount_path); *s;) {
		s++;   /* the '/' */
		size_t len = strcspn(s, "/");
		FUZZ_ASSERT(len > 0 && !(len == 1 && s[0] == '.') &&
			    !(len == 2 && s[0] == '.' && s[1] == '.'),
			    "%s %s has an empty, '.' or '..' component", key, path);
		s += len;
	}
	if (realpath(path, real))
		FUZZ_ASSERT(below(real, real_mount), "%s %s leads to %s, "
			    "outside the mount", key, path, real);
}

static void walk(const cJSON *j)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, j) {
		if (cJSON_IsString(c) && c->string &&
		    (strcmp(c->string, META_PATH) == 0 ||
		     strcmp(c->string, "path") == 0))
			check_path(c->string, c->valuestring);
		walk(c);
	}
}

static void on_emit(void *arg, const char *text, size_t len)
{
	struct run *run = arg;

	run->messages++;
	if (echo)
		printf("%.*s\n", (int)len, text);
	FUZZ_ASSERT(strlen(text) == len, "message with a NUL byte");
	FUZZ_ASSERT(!memchr(text, '\n', len), "message spans lines: %s", text);
	FUZZ_ASSERT(!strstr(text, FIXTURE_SECRET) ||
		    input_has(run, FIXTURE_SECRET),
		    "served content from outside the mount: %s", text);
	cJSON *msg = cJSON_ParseWithLength(text, len);
	FUZZ_ASSERT(cJSON_IsObject(msg), "not a JSON object: %s", text);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	FUZZ_ASSERT(cJSON_IsString(v) && strcmp(v->valuestring, "2.0") == 0,
		    "not JSON-RPC 2.0: %s", text);
	bool result = cJSON_HasObjectItem(msg, "result");
	bool error = cJSON_HasObjectItem(msg, "error");
	bool method = cJSON_HasObjectItem(msg, "method");
	FUZZ_ASSERT(result + error + method == 1,
		    "not one of result, error or notification: %s", text);
	if (result || error)
		FUZZ_ASSERT(cJSON_HasObjectItem(msg, "id"), "reply without id: %s",
			    text);
	if (error) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(msg, "error");
		FUZZ_ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "code")) &&
			    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message")),
			    "error without code or message: %s", text);
	}
	walk(msg);
	cJSON_Delete(msg);
}

static void on_line(void *arg, const char *line, size_t len)
{
	mcp_server_handle_line(arg, line, len);
}

static void on_overflow(void *arg)
{
	mcp_server_oversized(arg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *skills = getenv("SKILLSFS_FUZZ_SKILLS");

	(void)argc;
	(void)argv;
	echo = getenv("FUZZ_MCP_ECHO") && strcmp(getenv("FUZZ_MCP_ECHO"), "1") == 0;
	mount_path = fixture_mount(skills && *skills ? skills : FUZZ_SKILLS_DIR);
	FUZZ_ASSERT(realpath(mount_path, real_mount), "realpath %s", mount_path);
	/* The audit log is part of every request's path. */
	audit_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run run = { .input = data, .input_len = size };
	struct mcp_config cfg = {
		.mount = mount_path,
		.emit = on_emit,
		.emit_arg = &run,
		.audit_fd = audit_fd,
	};
	struct line_reader reader = { 0 };
	struct mcp_server *s = mcp_server_new(&cfg);

	FUZZ_ASSERT(s, "out of memory");
	size_t half = size / 2;
	line_reader_feed(&reader, (const char *)data, half, on_line,
			 on_overflow, s);
	line_reader_feed(&reader, (const char *)data + half, size - half,
			 on_line, on_overflow, s);
	mcp_server_tick(s);
	mcp_server_shutdown(s);
	FUZZ_ASSERT(s->nsubs == 0, "subscriptions left open after shutdown");
	mcp_server_free(s);
	line_reader_free(&reader);
	return 0;
}
