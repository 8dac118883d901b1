/*
 * files.c - whole-file reads with a bound on the size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

int read_fd(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	size_t cap = 4096, n = 0;

	/* The mount reports exact sizes; the size is a hint, EOF decides. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > max)
			return -EFBIG;
		cap = (size_t)st.st_size + 1;
	}
	char *p = malloc(cap + 1);
	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(p);
				return -EFBIG;
			}
			size_t ncap = cap * 2;
			char *q = realloc(p, ncap + 1);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
			cap = ncap;
		}
		ssize_t r = read(fd, p + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(p);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(p);
			return -EFBIG;
		}
	}
	p[n] = '\0';
	*out = p;
	*len = n;
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
