/*
 * read_whole.c - a file read whole: the documents of a mount, which the
 * commands that read a running mount (lock, status) take in one piece.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"

int cli_read_whole(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct buf b = { 0 };

	if (fd < 0)
		return -errno;
	int rc = buf_read_fd(&b, fd, SIZE_MAX);
	close(fd);
	if (rc < 0) {
		buf_free(&b);
		return rc;
	}
	*len = b.len;
	*out = buf_take(&b);
	return *out ? 0 : -ENOMEM;
}
