/*
 * http_access.c - the listen address, Host and Origin checks, and the
 * bearer token of skillsfs-mcp --http.
 *
 * Why Host and Origin (MCP transports, Streamable HTTP, "Security
 * Warning"): a web page whose DNS name is rebound to 127.0.0.1 makes the
 * browser send its requests to a local server, with that name in Host and
 * the page's own origin in Origin.  A server on loopback that accepts only
 * loopback names in both is out of the page's reach.  A server on another
 * address needs a token, which a page does not have.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "automount.h"
#include "http_access.h"
#include "trust.h"

/* ---- the listen address ----------------------------------------------- */

static bool parse_port(const char *s, unsigned *port)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (v > 65535)
		return false;
	*port = (unsigned)v;
	return true;
}

static void set_v4(struct http_listen *l, const struct in_addr *a, unsigned port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&l->addr;

	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	sin->sin_addr = *a;
	l->addrlen = sizeof(*sin);
	l->loopback = (ntohl(a->s_addr) >> 24) == 127;
	inet_ntop(AF_INET, a, l->host, sizeof(l->host));
}

static void set_v6(struct http_listen *l, const struct in6_addr *a,
                   unsigned port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&l->addr;
	char text[INET6_ADDRSTRLEN];

	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons((uint16_t)port);
	sin6->sin6_addr = *a;
	l->addrlen = sizeof(*sin6);
	l->loopback = IN6_IS_ADDR_LOOPBACK(a);
	inet_ntop(AF_INET6, a, text, sizeof(text));
	snprintf(l->host, sizeof(l->host), "[%s]", text);
}

const char *http_listen_parse(const char *spec, struct http_listen *l)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	struct in_addr a4;
	struct in6_addr a6;
	unsigned port;

	bool bracketed = spec[0] == '[';

	memset(l, 0, sizeof(*l));
	if (bracketed) {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':')
			return "write an IPv6 address in brackets, with a port: [::1]:PORT";
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (colon && memchr(spec, ':', (size_t)(colon - spec)))
			return "write an IPv6 address in brackets: [::1]:PORT";
	}
	if (!parse_port(colon ? colon + 1 : spec, &port))
		return "the port must be a number from 0 to 65535 (0: any free port)";
	if (!colon) {
		a4.s_addr = htonl(INADDR_LOOPBACK);
		set_v4(l, &a4, port);
		return NULL;
	}
	size_t n = (size_t)(colon - spec);
	if (bracketed)
		spec++, n -= 2;
	if (n == 0 || n >= sizeof(host))
		return "name the address to listen on before the port, or give the port alone";
	memcpy(host, spec, n);
	host[n] = '\0';
	if (strcasecmp(host, "localhost") == 0) {
		a4.s_addr = htonl(INADDR_LOOPBACK);
		set_v4(l, &a4, port);
	} else if (bracketed && inet_pton(AF_INET6, host, &a6) == 1) {
		set_v6(l, &a6, port);
	} else if (!bracketed && inet_pton(AF_INET, host, &a4) == 1) {
		set_v4(l, &a4, port);
	} else {
		return "the address must be numeric (127.0.0.1, [::1], 0.0.0.0) or localhost";
	}
	return NULL;
}

int http_listen_open(struct http_listen *l)
{
	int family = l->addr.ss_family, one = 1;
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	struct sockaddr_storage bound;
	socklen_t len = sizeof(bound);
	if (bind(fd, (struct sockaddr *)&l->addr, l->addrlen) < 0 ||
	    listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&bound, &len) < 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	l->port = ntohs(family == AF_INET6
			? ((struct sockaddr_in6 *)&bound)->sin6_port
			: ((struct sockaddr_in *)&bound)->sin_port);
	return fd;
}

/* ---- Host and Origin -------------------------------------------------- */

/* The host of an authority "host[:port]", host maybe "[v6]": false when
 * it is not one. */
static bool authority_host(const char *a, size_t n, const char **host,
                           size_t *hlen)
{
	const char *end = a + n, *rest;

	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return false;
		rest = close + 1;
	} else {
		rest = memchr(a, ':', n);
		if (!rest)
			rest = end;
	}
	*host = a;
	*hlen = (size_t)(rest - a);
	if (*hlen == 0)
		return false;
	if (rest < end && *rest++ != ':')
		return false;
	for (; rest < end; rest++)
		if (*rest < '0' || *rest > '9')
			return false;
	return true;
}

/* host (as in an authority) as an address of `family`, into out. */
static bool host_address(const char *host, size_t n, int family, void *out)
{
	char text[INET6_ADDRSTRLEN + 2];
	bool bracketed = n >= 2 && host[0] == '[' && host[n - 1] == ']';

	if (bracketed != (family == AF_INET6))
		return false;
	if (bracketed)
		host++, n -= 2;
	if (n >= sizeof(text))
		return false;
	memcpy(text, host, n);
	text[n] = '\0';
	return inet_pton(family, text, out) == 1;
}

static bool loopback_host(const char *host, size_t n)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (n == 9 && strncasecmp(host, "localhost", 9) == 0)
		return true;
	if (host_address(host, n, AF_INET, &a4))
		return (ntohl(a4.s_addr) >> 24) == 127;
	return host_address(host, n, AF_INET6, &a6) && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* host is the address `local`, written as a URL writes it. */
static bool same_address(const struct sockaddr_storage *local, const char *host,
                         size_t n)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (local->ss_family == AF_INET)
		return host_address(host, n, AF_INET, &a4) &&
		       a4.s_addr == ((const struct sockaddr_in *)local)->sin_addr.s_addr;
	return local->ss_family == AF_INET6 &&
	       host_address(host, n, AF_INET6, &a6) &&
	       memcmp(&a6, &((const struct sockaddr_in6 *)local)->sin6_addr,
		      sizeof(a6)) == 0;
}

bool http_host_ok(const struct http_listen *l, const char *host)
{
	const char *h;
	size_t n;

	if (!l->loopback || !host)
		return true;
	return authority_host(host, strlen(host), &h, &n) && loopback_host(h, n);
}

bool http_origin_ok(const struct http_listen *l, const char *origin,
                    const struct sockaddr_storage *local)
{
	const char *sep, *oh;
	size_t on;

	if (!origin)
		return true;
	sep = strstr(origin, "://");
	if (!sep)
		return false;   /* "null", among others */
	size_t slen = (size_t)(sep - origin);
	if (!((slen == 4 && strncasecmp(origin, "http", 4) == 0) ||
	      (slen == 5 && strncasecmp(origin, "https", 5) == 0)))
		return false;
	const char *auth = sep + 3;
	if (strpbrk(auth, "/?#@ ") ||
	    !authority_host(auth, strlen(auth), &oh, &on))
		return false;
	return l->loopback ? loopback_host(oh, on) : same_address(local, oh, on);
}

/* ---- the bearer token ------------------------------------------------- */

bool http_same_secret(const char *given, size_t glen, const char *secret,
                      size_t slen)
{
	/* Every byte of the secret is looked at, whatever matched. */
	volatile unsigned char diff = glen != slen;

	for (size_t i = 0; i < slen; i++)
		diff |= (unsigned char)(secret[i] ^ (i < glen ? given[i] : 0));
	return diff == 0;
}

bool http_bearer_ok(const char *authorization, const char *token)
{
	const char *p = authorization;

	if (!p || strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
		return false;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return http_same_secret(p, n, token, strlen(token));
}

#define TOKEN_HOWTO "(for example: head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE)"

/* The first line of the file at fd (of its first cap - 1 bytes), blanks
 * around it dropped, into buf.  Its length, or -errno. */
static ssize_t first_line(int fd, char *buf, size_t cap)
{
	size_t len = 0, start = 0;
	ssize_t n;

	while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
	}
	char *nl = memchr(buf, '\n', len);
	if (nl)
		len = (size_t)(nl - buf);
	while (start < len && (buf[start] == ' ' || buf[start] == '\t'))
		start++;
	while (len > start && (buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
			       buf[len - 1] == '\r'))
		len--;
	memmove(buf, buf + start, len - start);
	buf[len - start] = '\0';
	return (ssize_t)(len - start);
}

int http_token_read(const char *prog, const char *path, char **token)
{
	char buf[HTTP_TOKEN_MAX + 2], why[1024];
	/* the library's rule, the one the mount's MCP client holds its
	 * token files to: ours or root's, nobody else may read or write it
	 * or the folders above it; a FIFO or a device is refused unread */
	int fd = sfs_trust_open(path, SFS_TRUST_SECRET, 0, why, sizeof(why));

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return -1;
	}
	ssize_t len = first_line(fd, buf, sizeof(buf));
	close(fd);
	if (len < 0) {
		fprintf(stderr, "%s: cannot read the token file %s: %s\n", prog,
			path, strerror((int)-len));
		return -1;
	}
	for (ssize_t i = 0; i < len; i++) {
		if (buf[i] < 0x21 || buf[i] > 0x7E) {
			fprintf(stderr, "%s: the token in %s holds a blank or a "
				"character that is not printable ASCII, which an "
				"Authorization header cannot carry " TOKEN_HOWTO "\n",
				prog, path);
			return -1;
		}
	}
	if (len < HTTP_TOKEN_MIN || len > HTTP_TOKEN_MAX) {
		fprintf(stderr, "%s: the token in %s is %zd characters long: use "
			"%d to %d " TOKEN_HOWTO "\n", prog, path, len,
			HTTP_TOKEN_MIN, HTTP_TOKEN_MAX);
		return -1;
	}
	*token = strdup(buf);
	if (!*token) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	return 0;
}

/* 32 random bytes in hex: 256 bits no local user can guess. */
#define GENERATED_BYTES 32

int http_token_generate(const char *prog, const struct http_listen *l,
                        char **token, char **path)
{
	unsigned char raw[GENERATED_BYTES];
	char hex[2 * GENERATED_BYTES + 2], host[sizeof(l->host)];
	char *dir = automount_runtime_dir();

	*token = *path = NULL;
	if (!dir)
		return -1;
	/* the address without an IPv6 address's brackets */
	snprintf(host, sizeof(host), "%s", l->host[0] == '[' ? l->host + 1
	                                                      : l->host);
	host[strcspn(host, "]")] = '\0';
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw) ||
	    asprintf(path, "%s/http-%s-%u.token", dir, host, l->port) < 0) {
		fprintf(stderr, "%s: cannot make a token: %s\n", prog,
			strerror(errno));
		*path = NULL;
		free(dir);
		return -1;
	}
	free(dir);
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	explicit_bzero(raw, sizeof(raw));
	hex[2 * GENERATED_BYTES] = '\n';
	hex[2 * GENERATED_BYTES + 1] = '\0';
	int rc = sfs_cache_write(*path, hex, strlen(hex), 0600, false);
	hex[2 * GENERATED_BYTES] = '\0';
	if (rc < 0 || !(*token = strdup(hex))) {
		fprintf(stderr, "%s: cannot write the token file %s: %s\n", prog,
			*path, strerror(rc < 0 ? -rc : ENOMEM));
		free(*path);
		*path = NULL;
		explicit_bzero(hex, sizeof(hex));
		return -1;
	}
	explicit_bzero(hex, sizeof(hex));
	return 0;
}
