/*
 * test_mcp_session.c - the MCP client's JSON-RPC session
 * (shared/mcp_client/session.c) driven over the real stdio transport, a
 * child running mcp_script_server.py: the handshake and the version it
 * settles, the stateless era, an answer found among notifications, a
 * stray answer and requests of the server's (each answered), a JSON-RPC
 * error, a line that is not JSON-RPC, a deadline, the owner's stop, a
 * server that exits; and that every server is reaped.  Prints TAP.
 *
 * Usage: test_mcp_session PYTHON3 SCRIPT
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "fixture.h"
#include "mcp_client/session.h"

static const char *python, *script, *http_script;
static char why[1024];

/* A session with the script server run in `mode` (and its argument, or
 * NULL): the open's result, the session in *s. */
static int open_mode(const char *mode, const char *arg, long timeout_ms,
                     bool (*stop)(void *), void *stop_arg,
                     struct mcp_session **s)
{
	const char *argv[] = { python, script, mode, arg, NULL };
	struct mcp_transport *t;

	why[0] = '\0';
	*s = NULL;
	int rc = mcp_stdio_open(argv, NULL, &t, why, sizeof(why));
	if (rc < 0)
		return rc;
	return mcp_session_open(t, timeout_ms, stop, stop_arg, s, why,
	                        sizeof(why));
}

/* A session that must open. */
static struct mcp_session *must_open(const char *mode, const char *arg,
                                     long timeout_ms, bool (*stop)(void *),
                                     void *stop_arg)
{
	struct mcp_session *s;

	if (open_mode(mode, arg, timeout_ms, stop, stop_arg, &s) < 0) {
		fprintf(stderr, "%s\n", why);
		errno = EPROTO;
		die("opening a session with the script server");
	}
	return s;
}

/* mcp_session_call with params from JSON text (or none). */
static int call(struct mcp_session *s, const char *method,
                const char *params, cJSON **result)
{
	why[0] = '\0';
	*result = NULL;
	return mcp_session_call(s, method, params ? cJSON_Parse(params) : NULL,
	                        result, why, sizeof(why));
}

static bool is_true(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Whether no child of ours is left, running or unreaped. */
static bool none_left(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* A session with a server of the handshake era, answered within
 * timeout_ms. */
static struct mcp_session *handshaken(long timeout_ms)
{
	return must_open("handshake", "2025-11-25", timeout_ms, NULL, NULL);
}

/* Ends s, and checks that its server was reaped. */
static void finish(struct mcp_session *s)
{
	mcp_session_close(s);
	ok(none_left(), "the server was ended and reaped");
}

static void test_handshake(void)
{
	struct mcp_session *s = must_open("handshake", "2025-06-18", 10000,
	                                  NULL, NULL);
	cJSON *r;

	ok(strcmp(mcp_session_version(s), "2025-06-18") == 0,
	   "the version the server chose is spoken (%s)",
	   mcp_session_version(s));
	ok(strcmp(mcp_session_name(s), python) == 0, "named by its command");
	int rc = call(s, "echo", "{\"uri\":\"skill://a/SKILL.md\"}", &r);
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(r, "params");
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	ok(rc == 0 && cJSON_IsString(uri) &&
	   strcmp(uri->valuestring, "skill://a/SKILL.md") == 0,
	   "a request's params reach the server and its result comes back");
	ok(is_true(r, "initialized"),
	   "notifications/initialized came before the first request");
	ok(!cJSON_HasObjectItem(params, "_meta"),
	   "the handshake era sends no _meta");
	cJSON_Delete(r);
	finish(s);
}

static void test_interleaved(void)
{
	struct mcp_session *s = handshaken(10000);
	cJSON *r;

	int rc = call(s, "chatty", NULL, &r);
	ok(rc == 0, "the answer is found after a notification, a stray "
	   "answer and two requests of the server's (%s)", why);
	ok(is_true(r, "pinged"), "the server's ping was answered with {}");
	ok(is_true(r, "refused"), "its other request was answered -32601");
	cJSON_Delete(r);
	rc = call(s, "echo", NULL, &r);
	ok(rc == 0, "the next request is answered in step");
	cJSON_Delete(r);
	finish(s);
}

/* A request that fails, and what that leaves for the next one. */
static const struct failure {
	const char *method;
	long timeout_ms;
	int rc;
	const char *said;      /* in *why, after the server's name */
	int next_rc;           /* of the request after it */
	const char *what;
} failures[] = {
	{ "fail", 10000, -EPROTO,
	  "answered fail with error -32602: no such skill", 0,
	  "a JSON-RPC error, which leaves the session in step" },
	{ "garbage", 10000, -EPROTO,
	  "wrote a line that is not a JSON-RPC message before answering "
	  "garbage", -EIO,
	  "a line that is not JSON-RPC, after which the session, out of "
	  "step, takes no more requests" },
	{ "silent", 3000, -ETIMEDOUT,
	  "did not answer silent within 3 s", -EIO,
	  "a request left unanswered ends at its deadline, and a late "
	  "answer is never taken for the next one" },
	{ "exit", 10000, -EIO,
	  "exited with status 5 before answering exit", -EIO,
	  "a server that exits mid-request" },
};

static void test_failures(void)
{
	for (size_t i = 0; i < sizeof(failures) / sizeof(*failures); i++) {
		const struct failure *f = &failures[i];
		struct mcp_session *s = handshaken(f->timeout_ms);
		char named[512];
		cJSON *r;

		snprintf(named, sizeof(named), "the MCP server %s ", python);
		int rc = call(s, f->method, "{}", &r);
		ok(rc == f->rc && !r && strstr(why, named) == why &&
		   strstr(why, f->said) == why + strlen(named), "%s: %s",
		   f->what, why);
		rc = call(s, "echo", NULL, &r);
		ok(rc == f->next_rc, "%s: the next request: %d", f->method, rc);
		cJSON_Delete(r);
		finish(s);
	}
}

static bool say_stop(void *arg)
{
	return *(bool *)arg;
}

static void test_stop(void)
{
	bool stopping = false;
	struct mcp_session *s = must_open("handshake", "2025-11-25", 600000,
	                                  say_stop, &stopping);
	cJSON *r;

	stopping = true;
	int rc = call(s, "silent", NULL, &r);
	ok(rc == -ECANCELED && strstr(why, "stopped while waiting"),
	   "the owner's stop ends a wait long before its deadline: %s", why);
	finish(s);
}

static void test_server_quits(void)
{
	struct mcp_session *s;

	int rc = open_mode("quit", NULL, 10000, NULL, NULL, &s);
	ok(rc == -EIO && !s && strstr(why, "exited with status 3 before "
	   "answering initialize"), "one that exits at once fails the open: "
	   "%s", why);
	ok(none_left(), "and is reaped");
}

static void test_eras(void)
{
	struct mcp_session *s = must_open("stateless", NULL, 10000, NULL,
	                                  NULL);
	cJSON *r;

	ok(strcmp(mcp_session_version(s), SFS_MCP_STATELESS_VERSION) == 0,
	   "a server that refuses initialize and names %s in server/discover "
	   "is spoken to in the stateless era", SFS_MCP_STATELESS_VERSION);
	int rc = call(s, "echo", "{\"uri\":\"skill://b\"}", &r);
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(r, "params");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		meta, "io.modelcontextprotocol/protocolVersion");
	ok(rc == 0 && cJSON_IsString(v) &&
	   strcmp(v->valuestring, SFS_MCP_STATELESS_VERSION) == 0 &&
	   cJSON_GetObjectItemCaseSensitive(meta, "io.modelcontextprotocol/"
	                                    "clientInfo"),
	   "each request carries the version and our name in its _meta");
	ok(!is_true(r, "initialized"), "and no initialized notification");
	cJSON_Delete(r);
	mcp_session_close(s);

	rc = open_mode("refuse", NULL, 10000, NULL, NULL, &s);
	ok(rc == -EPROTO && !s && strstr(why, "answered initialize with "
	   "error -32600"), "a server that refuses both eras fails the open "
	   "with its refusal: %s", why);
	ok(none_left(), "and is reaped");
}

static void test_no_such_command(void)
{
	const char *argv[] = { "/nonexistent/mcp-server", NULL };
	struct mcp_transport *t = NULL;

	int rc = mcp_stdio_open(argv, NULL, &t, why, sizeof(why));
	ok(rc == -ENOENT && !t && strstr(why, "cannot run the MCP server "
	   "/nonexistent/mcp-server"), "a command that cannot run: %s", why);
}

/* The member `key` of an object (NULL: none). */
static const cJSON *member(const cJSON *r, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(r, key);
}

static void test_http(void)
{
	char cmd[4096], url[64];
	struct mcp_transport *t;
	struct mcp_session *s;
	cJSON *r;
	int port;

	snprintf(cmd, sizeof(cmd), "exec %s %s", python, http_script);
	FILE *server = popen(cmd, "r");
	if (!server || fscanf(server, "%d", &port) != 1)
		die("starting the HTTP script server");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/mcp", port);
	why[0] = '\0';
	int rc = mcp_http_open(url, NULL, &t, why, sizeof(why));
	if (rc == 0)
		rc = mcp_session_open(t, 10000, NULL, NULL, &s, why, sizeof(why));
	ok(rc == 0 && strcmp(mcp_session_version(s), "2025-06-18") == 0,
	   "over HTTP, the answer to initialize is found in an event stream "
	   "with CRLF line ends, after an event without data (%s)", why);
	if (rc < 0) {
		pclose(server);
		return;
	}
	rc = call(s, "echo", "{\"n\":1}", &r);
	ok(rc == 0 && cJSON_IsString(member(r, "session")) &&
	   cJSON_GetNumberValue(member(r, "opened")) == 1,
	   "the session id the server gave goes with each request");
	cJSON_Delete(r);
	rc = call(s, "chatty", NULL, &r);
	ok(rc == 0 && cJSON_IsTrue(member(r, "chatty")), "an answer after a "
	   "notification, its data over two data: lines (%s)", why);
	cJSON_Delete(r);
	rc = call(s, "fail", "{}", &r);
	ok(rc == -EPROTO && strstr(why, "answered fail with error -32602: no "
	   "such skill"), "a JSON-RPC error sent with HTTP status 400: %s",
	   why);
	rc = call(s, "crash", NULL, &r);
	ok(rc == -EIO && strstr(why, "answered crash with HTTP status 500"),
	   "a server error without JSON-RPC: %s", why);
	rc = call(s, "expire", NULL, &r);
	cJSON_Delete(r);
	rc = rc ? rc : call(s, "echo", "{\"n\":2}", &r);
	const cJSON *params = member(r, "params");
	ok(rc == 0 && cJSON_GetNumberValue(member(r, "opened")) == 2 &&
	   cJSON_GetNumberValue(member(params, "n")) == 2,
	   "a session that expired (404) is opened anew, once, and the "
	   "request sent again (%s)", why);
	cJSON_Delete(r);
	rc = call(s, "bye", NULL, &r);
	cJSON_Delete(r);
	mcp_session_close(s);
	ok(rc == 0 && pclose(server) == 0, "the server was told to end, and "
	   "ended");
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s PYTHON3 SCRIPT HTTP_SCRIPT\n",
		        argv[0]);
		return 2;
	}
	python = argv[1];
	script = argv[2];
	http_script = argv[3];
	fixture_start("test_mcp_session");
	test_handshake();
	test_interleaved();
	test_failures();
	test_stop();
	test_server_quits();
	test_eras();
	test_no_such_command();
	test_http();
	return tap_end();
}
