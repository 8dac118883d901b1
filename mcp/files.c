/*
 * files.c - whole-file reads with a bound on the size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "files.h"

int read_fd(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	struct buf b = { 0 };

	/* The mount reports exact sizes; the size is a hint, EOF decides. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > max)
			return -EFBIG;
		buf_reserve(&b, (size_t)st.st_size + 1);
	}
	/* one byte past max tells a file too large */
	int rc = buf_read_fd(&b, fd, max + 1);
	if (rc == 0 && b.len > max)
		rc = -EFBIG;
	if (rc < 0) {
		buf_free(&b);
		return rc;
	}
	*len = b.len;
	char *p = buf_take(&b);
	if (!p)
		return -ENOMEM;
	/* the buffer doubled as it grew; a catalog read is kept for long */
	char *fit = realloc(p, *len + 1);
	*out = fit ? fit : p;
	return 0;
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int rc = read_fd(fd, max, out, len);
	close(fd);
	return rc;
}
