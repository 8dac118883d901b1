/*
 * http_access.h - who may use skillsfs-mcp's HTTP endpoint: the address it
 * listens on (--http), the Host and Origin a request may name (DNS
 * rebinding protection), and the bearer token it may have to carry
 * (--token-file).
 */
#ifndef MCP_HTTP_ACCESS_H
#define MCP_HTTP_ACCESS_H

#include <stdbool.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct http_listen {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	bool loopback;             /* 127.0.0.0/8 or ::1 */
	char host[INET6_ADDRSTRLEN + 2];  /* as in a URL: 127.0.0.1, [::1] */
	unsigned port;             /* 0 until http_listen_open() picks one */
};

/*
 * Parses --http's PORT, HOST:PORT or [IPV6]:PORT, HOST a numeric address
 * or localhost; PORT alone is 127.0.0.1:PORT.  Returns NULL, or what is
 * wrong with `spec` (a static string).
 */
const char *http_listen_parse(const char *spec, struct http_listen *l);
/* A listening socket (non-blocking, close-on-exec) on l's address; with
 * port 0 the system picks a free one.  Sets l->port to the port bound.
 * Returns the socket, or -errno. */
int http_listen_open(struct http_listen *l);

/* The Host header a request names (NULL: none, as HTTP/1.0 allows) may
 * reach a server on l: on loopback only localhost, 127.0.0.0/8 and [::1]
 * (a rebound DNS name is refused); elsewhere any (a token guards it). */
bool http_host_ok(const struct http_listen *l, const char *host);
/* The Origin header (NULL: none, not a browser) names a page that may
 * call: on loopback one on a loopback host; elsewhere one on `local`, the
 * address the request came to.  "null", a name, and anything that is not
 * http[s]://host[:port] may not. */
bool http_origin_ok(const struct http_listen *l, const char *origin,
                    const struct sockaddr_storage *local);

/* The longest token accepted, and the shortest worth the name. */
#define HTTP_TOKEN_MAX 4096
#define HTTP_TOKEN_MIN 16

/*
 * Reads the bearer token from the first line of `path` (surrounding
 * blanks dropped): visible ASCII, HTTP_TOKEN_MIN to HTTP_TOKEN_MAX
 * characters, in a file that only its owner may read.  Returns 0 with
 * *token malloc'd, or -1 after printing "PROG: ..." with what to do.
 */
int http_token_read(const char *prog, const char *path, char **token);
/*
 * A new random token for a server on l (l->port known), written to
 * RUNDIR/http-HOST-PORT.token (0600, in the 0700 runtime folder only its
 * user may enter), for the local clients of that user to read.  Returns
 * 0 with *token and *path malloc'd, or -1 after printing why.
 */
int http_token_generate(const char *prog, const struct http_listen *l,
                        char **token, char **path);
/* given equals secret, compared in a time that does not tell where they
 * differ (only the secret's length shows). */
bool http_same_secret(const char *given, size_t glen, const char *secret,
                      size_t slen);
/* `authorization` is "Bearer <token>" with this token (http_same_secret). */
bool http_bearer_ok(const char *authorization, const char *token);

#endif
