/*
 * transport.h - how the session (session.c) reaches an MCP server: an
 * object that moves whole JSON-RPC messages as bytes, and reads none of
 * them.  Ids, methods, the handshake and the eras are the session's;
 * a transport only carries what the session hands it, and for its own
 * framing (an HTTP header, a message that names what was asked) it takes
 * the envelope the session fills.
 *
 * http.c fills it over Streamable HTTP, stdio.c over a command's
 * standard input and output.  Private to shared/mcp_client/.
 */
#ifndef SKILLSFS_MCP_TRANSPORT_H
#define SKILLSFS_MCP_TRANSPORT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* The limits of both transports: a server is reached (an HTTP connection
 * made) within CONNECT_TIMEOUT_S, and answers a request within TIMEOUT_S
 * (over stdio: from the request's last byte written; initialize
 * included, a server's start-up being its part of a connection). */
#define SFS_MCP_CONNECT_TIMEOUT_S 10L
#define SFS_MCP_TIMEOUT_S 120L
/* A message larger than this is refused: a skill's files are at most
 * 16 MiB (SEP-2640's limit), base64 makes a third more of them. */
#define SFS_MCP_MAX_ANSWER (32u << 20)

/* What the session says of a message it sends, for the transport's
 * framing and its messages; the message's bytes say the same. */
struct mcp_envelope {
	const char *method;    /* of a request or notification; NULL for
	                        * an answer to the server */
	const char *name;      /* its params' uri (HTTP's Mcp-Name), or NULL */
	const char *version;   /* the protocol spoken; "" before it is known */
	bool stateless;        /* the stateless era: method and name go in
	                        * headers too, and no session is kept */
	bool answered;         /* a request: an answer is awaited */
};

/* How long a transport may wait, and whom it asks whether to stop. */
struct mcp_wait {
	long long deadline;    /* on mcp_now_ms()'s clock; 0: none */
	long seconds;          /* the timeout it ends, for messages */
	bool (*stop)(void *);  /* asked at least every quarter second; */
	void *stop_arg;        /* NULL: never */
	long idle_s;           /* a plain GET: given up (-ETIMEDOUT) when no
	                          byte came for this long; 0: never */
};

struct mcp_transport;

struct mcp_transport_ops {
	/* Sends one message (n bytes, no line end): 0, or -errno with
	 * *why naming the server.  Over HTTP this is the whole POST, its
	 * answer (env->answered) kept for receive. */
	int (*send)(struct mcp_transport *t, const char *msg, size_t n,
	            const struct mcp_envelope *env, const struct mcp_wait *w,
	            char *why, size_t wlen);
	/* The next message the server sent: 0 with *msg (malloc'd,
	 * NUL-terminated), or -errno with *why: -ENODATA when nothing more
	 * will come for the last request (its HTTP answer ended; *why
	 * empty), -ETIMEDOUT, -ECANCELED (stop said so), -EIO (the server
	 * ended), or an HTTP status's (-EACCES for 401, -ENOENT for 404). */
	int (*receive)(struct mcp_transport *t, const struct mcp_wait *w,
	               char **msg, char *why, size_t wlen);
	/* Forgets the session the server keeps for us (HTTP: the
	 * Mcp-Session-Id a 404 said expired): whether there was one.  NULL:
	 * the transport keeps none. */
	bool (*forget)(struct mcp_transport *t);
	/* Holds a stream of the server's messages open (msg sent to open
	 * it, NULL: the session's own stream) and hands each to
	 * heard(arg, text) as it comes, until w->stop says to stop or the
	 * server ends it: 0 then, or -errno with *why (-EOPNOTSUPP: the
	 * server keeps no stream; -ENOENT: its session expired; -EACCES:
	 * 401).  NULL: the transport has no such stream. */
	int (*stream)(struct mcp_transport *t, const char *msg,
	              const struct mcp_envelope *env, const struct mcp_wait *w,
	              void (*heard)(void *, const char *), void *arg,
	              char *why, size_t wlen);
	/* Ends the transport (a child server, which is reaped); `hurry`:
	 * its owner is stopping, and waits on nothing it can cut short. */
	void (*close)(struct mcp_transport *t, bool hurry);
};

struct mcp_transport {
	const struct mcp_transport_ops *ops;
	const char *name;      /* the URL, or the command (argv[0]) */
	const char *label;     /* for messages: "the MCP server CMD", the URL */
	const char *frame;     /* what one message is: "a line", "an event" */
	bool in_step;          /* a failed exchange leaves the next in step
	                        * (each HTTP POST stands alone; a pipe that
	                        * a half-read answer may follow does not) */
};

/* A plain GET (with head: a HEAD) of url, waiting as w says, `token`
 * (or NULL) as a bearer token: sfs_http_get in client.h; with cache (a
 * GET only, or NULL) a conditional one: sfs_http_get_cached. */
struct sfs_http_cache;
int mcp_http_get(const char *url, const char *token, bool head,
                 struct sfs_http_cache *cache, const struct mcp_wait *w,
                 char **body, size_t *len, long long *length, char *why,
                 size_t wlen);

/* A transport over Streamable HTTP to `url` (http:// or https://;
 * certificates from SSL_CERT_FILE and SSL_CERT_DIR when set); `token`
 * (or NULL) goes as a bearer token and never into *why. */
int mcp_http_open(const char *url, const char *token,
                  struct mcp_transport **out, char *why, size_t wlen);

/* A transport over the standard input and output of argv (argv[0] an
 * absolute path; NULL-terminated), run with the process's environment
 * and env's NAME=VALUE strings (or NULL) over it. */
int mcp_stdio_open(const char *const *argv, const char *const *env,
                   struct mcp_transport **out, char *why, size_t wlen);

static inline long long mcp_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* *why for an allocation that failed: -ENOMEM. */
static inline int mcp_no_memory(char *why, size_t wlen)
{
	snprintf(why, wlen, "out of memory");
	return -ENOMEM;
}

static inline bool mcp_stopped(const struct mcp_wait *w)
{
	return w->stop && w->stop(w->stop_arg);
}

#endif
