/*
 * read_whole.c - a file read whole: the documents of a mount, which the
 * commands that read a running mount (lock, status) take in one piece.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

int cli_read_whole(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	char *buf = NULL;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (!buf || n == cap) {
			char *nb = realloc(buf, (cap = buf ? cap * 2 : cap) + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			int err = got < 0 ? -errno : 0;
			close(fd);
			if (err) {
				free(buf);
				return err;
			}
			break;
		}
		n += (size_t)got;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

