/*
 * sealed.c - bytes read and written whole, and memory files sealed against
 * change (see sealed.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sealed.h"

int sfs_write_full(int fd, off_t at, const void *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		const char *from = (const char *)p + done;
		ssize_t w = at < 0 ? write(fd, from, n - done)
		                   : pwrite(fd, from, n - done,
		                            at + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		done += (size_t)w;
	}
	return 0;
}

ssize_t sfs_read_full(int fd, off_t at, void *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		char *to = (char *)p + done;
		ssize_t r = at < 0 ? read(fd, to, n - done)
		                   : pread(fd, to, n - done, at + (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

int sfs_sealed_new(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	return fd < 0 ? -errno : fd;
}

int sfs_seal(int fd)
{
	return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	             F_SEAL_WRITE | F_SEAL_SEAL) < 0 ? -errno : 0;
}

int sfs_sealed_copy(const char *name, const void *p, size_t n)
{
	int fd = sfs_sealed_new(name);
	int rc = fd < 0 ? fd : sfs_write_full(fd, 0, p, n);

	if (rc == 0)
		rc = sfs_seal(fd);
	if (rc < 0 && fd >= 0)
		close(fd);
	return rc < 0 ? rc : fd;
}
