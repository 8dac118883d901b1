/*
 * client.c - a client of an MCP server over the transport its root names
 * (client.h): an HTTP endpoint with the bearer token of the root's
 * token_file (http.c), or a command run with its args and env (stdio.c),
 * with one JSON-RPC session over either (session.c).
 *
 * A root configured with token_file sends the file's text as a bearer
 * token.  The file is read each time a client is opened, so a token that
 * was rotated in it is the one sent next; the token itself is never put
 * in a message, only the file's name.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "session.h"
#include "snapshot.h"
#include "trust.h"

#define STDIO_PREFIX "stdio:"
/* A bearer token file larger than this is not a token. */
#define MAX_TOKEN 8192

struct sfs_mcp_client {
	struct mcp_session *session;
};

/* The token in `file`: its text without the line end around it, in *out
 * (malloc'd).  A token is one line of printable ASCII: anything else
 * could not go into a header unchanged. */
static int read_token(const char *file, char **out, char *why, size_t wlen)
{
	/* the rule skillsfs-mcp --token-file holds its own token to */
	int fd = sfs_trust_open(file, SFS_TRUST_SECRET, MAX_TOKEN, why, wlen);
	char buf[MAX_TOKEN + 1];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	int err = errno;

	*out = NULL;
	if (fd >= 0)
		close(fd);
	if (fd == -EPERM || fd == -EFBIG)
		return -EACCES;   /* why says which file, and what to do */
	if (n < 0) {
		snprintf(why, wlen, "cannot read the token file %s: %s", file,
		         sfs_strerror(fd < 0 ? -fd : err));
		return -EACCES;
	}
	size_t len = (size_t)n, start = 0;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
	               buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	while (start < len && (buf[start] == ' ' || buf[start] == '\t'))
		start++;
	bool ok = len > start && (size_t)n <= MAX_TOKEN;
	for (size_t i = start; ok && i < len; i++)
		ok = buf[i] > 32 && buf[i] < 127;
	if (ok)
		*out = strndup(buf + start, len - start);
	explicit_bzero(buf, sizeof(buf));
	if (!ok) {
		snprintf(why, wlen, "the token file %s does not hold one line "
		         "of printable text", file);
		return -EINVAL;
	}
	return *out ? 0 : -ENOMEM;
}

/* An HTTP transport to `location` with the token of token_file (or
 * none). */
static int open_http(const char *location,
                     const struct sfs_source_options *opts,
                     struct mcp_transport **t, char *why, size_t wlen)
{
	const char *token_file = opts ? opts->token_file : NULL;
	char *token = NULL;
	int rc = token_file ? read_token(token_file, &token, why, wlen) : 0;

	*t = NULL;
	if (rc < 0)
		return rc;
	rc = mcp_http_open(location, token, t, why, wlen);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	return rc;
}

/* The transport `location` names. */
static int open_transport(const char *location,
                          const struct sfs_source_options *opts,
                          struct mcp_transport **t, char *why, size_t wlen)
{
	if (strncmp(location, STDIO_PREFIX, strlen(STDIO_PREFIX)) != 0)
		return open_http(location, opts, t, why, wlen);
	if (!opts || !opts->argv || !opts->argv[0]) {
		*t = NULL;
		snprintf(why, wlen, "mcp+%s has no command to run: a stdio "
		         "source is given by the config file's sources: with "
		         "command:", location);
		return -EINVAL;
	}
	return mcp_stdio_open(opts->argv, opts->env, t, why, wlen);
}

int sfs_mcp_client_open(const char *location,
                        const struct sfs_source_options *opts,
                        struct sfs_mcp_client **out, char *why, size_t wlen)
{
	struct sfs_mcp_client *c = calloc(1, sizeof(*c));
	struct mcp_transport *t = NULL;
	const char *token_file = opts ? opts->token_file : NULL;
	int rc = c ? open_transport(location, opts, &t, why, wlen) : -ENOMEM;

	*out = NULL;
	if (rc == 0)
		rc = mcp_session_open(t, SFS_MCP_TIMEOUT_S * 1000,
		                      opts ? opts->stop : NULL,
		                      opts ? opts->stop_arg : NULL, &c->session,
		                      why, wlen);
	/* a 401 is said in terms of the token */
	bool http = strncmp(location, STDIO_PREFIX, strlen(STDIO_PREFIX)) != 0;
	if (rc == -EACCES && t && http && token_file)
		snprintf(why, wlen, "%s: the server refused the token in %s "
		         "(401)", location, token_file);
	else if (rc == -EACCES && t && http)
		snprintf(why, wlen, "%s needs a token (401): give token_file "
		         "in the source's entry of the config file", location);
	else if (rc == -ENOMEM && !c)
		snprintf(why, wlen, "out of memory");
	if (rc < 0) {
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int sfs_mcp_client_call(struct sfs_mcp_client *c, const char *method,
                        cJSON *params, cJSON **result, char *why,
                        size_t wlen)
{
	return mcp_session_call(c->session, method, params, result, why, wlen);
}

int sfs_mcp_client_listen(struct sfs_mcp_client *c, const char *method,
                          void (*heard)(void *), bool (*stop)(void *),
                          void *arg, char *why, size_t wlen)
{
	return mcp_session_listen(c->session, method, heard, stop, arg, why,
	                          wlen);
}

const char *sfs_mcp_client_name(const struct sfs_mcp_client *c)
{
	return mcp_session_name(c->session);
}

void sfs_mcp_client_close(struct sfs_mcp_client *c)
{
	if (!c)
		return;
	mcp_session_close(c->session);
	free(c);
}

/* sfs_http_get, and with cache sfs_http_get_cached. */
static int http_get(const char *url, const struct sfs_source_options *opts,
                    bool head, struct sfs_http_cache *cache, char **body,
                    size_t *len, long long *length, char *why, size_t wlen)
{
	const char *token_file = opts ? opts->token_file : NULL;
	char *token = NULL;
	struct mcp_wait w = {
		.deadline = mcp_now_ms() + SFS_MCP_TIMEOUT_S * 1000,
		.seconds = SFS_MCP_TIMEOUT_S,
		.stop = opts ? opts->stop : NULL,
		.stop_arg = opts ? opts->stop_arg : NULL,
		.idle_s = opts && opts->fetch_timeout_s ? opts->fetch_timeout_s
		                                        : SFS_FETCH_TIMEOUT_S,
	};
	int rc = token_file ? read_token(token_file, &token, why, wlen) : 0;

	*body = NULL;
	*len = 0;
	*length = -1;
	if (rc < 0)
		return rc;
	rc = mcp_http_get(url, token, head, cache, &w, body, len, length, why,
	                  wlen);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	return rc;
}

int sfs_http_get(const char *url, const struct sfs_source_options *opts,
                 bool head, char **body, size_t *len, long long *length,
                 char *why, size_t wlen)
{
	return http_get(url, opts, head, NULL, body, len, length, why, wlen);
}

int sfs_http_get_cached(const char *url,
                        const struct sfs_source_options *opts,
                        struct sfs_http_cache *c, char **body, size_t *len,
                        char *why, size_t wlen)
{
	long long ignored;

	c->not_modified = c->no_store = false;
	c->fresh_ms = -1;
	return http_get(url, opts, false, c, body, len, &ignored, why, wlen);
}

unsigned sfs_http_cache_ttl_ms(const struct sfs_http_cache *c)
{
	if (c->fresh_ms < 0)
		return 0;
	if (c->fresh_ms == 0)
		return 1;
	return c->fresh_ms > (long long)UINT_MAX ? UINT_MAX
	                                         : (unsigned)c->fresh_ms;
}
