/*
 * package.c - a skill's package unpacked and checked (package.h).
 *
 * libarchive reads the archive from memory; nothing is written to disk
 * here, so no path in it can reach one: the rules below are those of
 * what the index may name, and each verified file goes to the caller's
 * sink under the index's own path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <nettle/sha2.h>

#include "package.h"
#include "skillsfs.h"

#define CHUNK 65536

static int refuse(char *why, size_t cap, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(char *why, size_t cap, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return rc;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct sfs_wk_file *)a)->path,
	              ((const struct sfs_wk_file *)b)->path);
}

/* The entry's path as the index would spell it: "./" in front and a
 * folder's trailing "/" dropped.  NULL when it breaks the rules. */
static const char *entry_path(struct archive_entry *e, char *buf, size_t cap)
{
	const char *p = archive_entry_pathname(e);

	if (!p)
		return NULL;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	size_t n = strlen(p);
	if (n >= cap)
		return NULL;
	memcpy(buf, p, n + 1);
	if (n && buf[n - 1] == '/')
		buf[n - 1] = '\0';
	/* the skill folder itself, as tar -C DIR . writes it */
	if (archive_entry_filetype(e) == AE_IFDIR &&
	    (!buf[0] || strcmp(buf, ".") == 0))
		return buf;
	return sfs_wk_path_ok(buf) ? buf : NULL;
}

struct unpack {
	struct archive *a;
	const struct sfs_wk_skill *s;
	const struct sfs_wk_sink *sink;
	size_t total;           /* bytes unpacked so far */
	int given;              /* files the sink kept */
	bool mismatch;          /* a file differed from the index */
	char *buf;              /* CHUNK bytes; owned */
	char *why;
	size_t cap;
};

/* Copies one listed file to the sink while it is hashed; its bytes are
 * kept only when they are the index's. */
static int copy_file(struct unpack *u, const struct sfs_wk_file *f,
                     const char *path)
{
	struct sha256_ctx ctx;
	uint8_t sum[32];
	size_t size = 0;
	char *buf = u->buf;
	int rc = u->sink->open(u->sink->arg, f);

	sha256_init(&ctx);
	while (rc == 0) {
		la_ssize_t n = archive_read_data(u->a, buf, CHUNK);
		if (n == 0)
			break;
		if (n < 0)
			rc = refuse(u->why, u->cap, -EINVAL, "%s: %s", path,
			            archive_error_string(u->a));
		else if ((size += (size_t)n) > SFS_WK_MAX_FILE_BYTES ||
		         (u->total += (size_t)n) > SFS_WK_MAX_UNPACKED_BYTES)
			rc = refuse(u->why, u->cap, -EINVAL, "%s: past the %u "
			            "MiB a file, or %u MiB a package, unpacked",
			            path, SFS_WK_MAX_FILE_BYTES >> 20,
			            SFS_WK_MAX_UNPACKED_BYTES >> 20);
		else {
			sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
			rc = u->sink->write(u->sink->arg, buf, (size_t)n);
		}
	}
	sha256_digest(&ctx, 32, sum);
	bool ok = rc == 0 && f->has_digest && memcmp(sum, f->sha256, 32) == 0;
	int closed = u->sink->close(u->sink->arg, ok);
	if (rc == 0 && !ok) {
		u->mismatch = true;
		refuse(u->why, u->cap, 0, "%s: its bytes in the package are not "
		       "the ones the index names", path);
	}
	if (rc == 0 && ok)
		u->given++;
	return rc ? rc : closed;
}

/* Reads past a file the index does not list, its bytes counted with the
 * package's: libarchive's skip would inflate them as well, unbounded (a
 * few MiB of a .tar.gz of zeros are GiBs to inflate, on the thread a
 * stop waits for). */
static int skip_file(struct unpack *u, const char *path)
{
	for (;;) {
		la_ssize_t n = archive_read_data(u->a, u->buf, CHUNK);
		if (n == 0)
			return 0;
		if (n < 0)
			return refuse(u->why, u->cap, -EINVAL, "%s: %s", path,
			              archive_error_string(u->a));
		if ((u->total += (size_t)n) > SFS_WK_MAX_UNPACKED_BYTES)
			return refuse(u->why, u->cap, -EINVAL, "%s: past the %u "
			              "MiB a package may unpack to, counting the "
			              "files the index does not list", path,
			              SFS_WK_MAX_UNPACKED_BYTES >> 20);
	}
}

static int one_entry(struct unpack *u, struct archive_entry *e)
{
	char buf[SFS_WK_MAX_PATH + 1];
	const char *path = entry_path(e, buf, sizeof(buf));
	const char *shown = archive_entry_pathname(e);
	mode_t type = archive_entry_filetype(e);

	if (!path)
		return refuse(u->why, u->cap, -EINVAL, "the package holds "
		              "\"%.200s\": an absolute path, .. or a character "
		              "a skill's path may not have", shown ? shown : "");
	if (archive_entry_hardlink(e) || type == AE_IFLNK)
		return refuse(u->why, u->cap, -EINVAL, "%s: a link; a package "
		              "may hold files and folders only", path);
	if (type == AE_IFDIR)
		return 0;
	if (type != AE_IFREG)
		return refuse(u->why, u->cap, -EINVAL, "%s: not a file or a "
		              "folder", path);
	if (archive_entry_size_is_set(e) &&
	    archive_entry_size(e) > (la_int64_t)SFS_WK_MAX_FILE_BYTES)
		return refuse(u->why, u->cap, -EINVAL, "%s: %lld bytes, past "
		              "the %u MiB a file may have", path,
		              (long long)archive_entry_size(e),
		              SFS_WK_MAX_FILE_BYTES >> 20);
	const struct sfs_wk_file *f = bsearch(
		&(struct sfs_wk_file){ .path = (char *)path }, u->s->files,
		u->s->nfiles, sizeof(*u->s->files), by_path);
	/* not listed: not served */
	return f ? copy_file(u, f, path) : skip_file(u, path);
}

static int unpack_all(struct unpack *u, const void *data, size_t len)
{
	struct archive_entry *e;
	int r;

	archive_read_support_filter_gzip(u->a);
	archive_read_support_format_tar(u->a);
	archive_read_support_format_zip(u->a);
	if (archive_read_open_memory(u->a, data, len) != ARCHIVE_OK)
		return refuse(u->why, u->cap, -EINVAL, "the package is not a "
		              ".tar.gz or a .zip: %s",
		              archive_error_string(u->a));
	int rc = 0, entries = 0;
	while (rc == 0 && (r = archive_read_next_header(u->a, &e)) ==
	                  ARCHIVE_OK) {
		if (++entries > (int)SFS_WK_MAX_FILES * 2)
			return refuse(u->why, u->cap, -EINVAL, "the package "
			              "holds more than %u entries",
			              SFS_WK_MAX_FILES * 2);
		rc = one_entry(u, e);
	}
	if (rc == 0 && r != ARCHIVE_EOF)
		rc = refuse(u->why, u->cap, -EINVAL, "the package cannot be "
		            "read: %s", archive_error_string(u->a));
	return rc;
}

int sfs_wk_package_unpack(const void *data, size_t len,
                          const struct sfs_wk_skill *s,
                          const struct sfs_wk_sink *sink, char *why,
                          size_t cap)
{
	uint8_t sum[32];
	struct unpack u = { .s = s, .sink = sink, .why = why, .cap = cap };

	sfs_sha256(data, len, sum);
	if (memcmp(sum, s->package_sha256, 32) != 0)
		return refuse(why, cap, -EBADMSG, "the package is not the one "
		              "the index names (its digest differs)");
	u.a = archive_read_new();
	u.buf = malloc(CHUNK);
	int rc = u.a && u.buf ? unpack_all(&u, data, len) : -ENOMEM;
	if (u.a)
		archive_read_free(u.a);
	free(u.buf);
	if (rc < 0)
		return rc;
	return u.mismatch ? -EBADMSG : u.given;
}
