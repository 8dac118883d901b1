/*
 * git_stream.c - a git blob's bytes in chunks, never held whole.
 *
 * Why: libgit2 1.5 reads an object whole into memory (git_odb_read,
 * git_blob_lookup), and streams none from a pack (git_odb_open_rstream is
 * for loose objects only).  A 1 GiB blob of zeros (1 MiB packed) took 1 GB
 * of the daemon's memory to mount, and past 1 MiB each read of the mount
 * inflated the whole blob again (a 64 MiB file read in 32.5 s).  A loose
 * object and a whole (not deltified) object in a pack are one zlib stream
 * each, which this file inflates 64 KiB at a time, from the repository's
 * own files: objects/XX/YYYY..., and the packs of objects/pack found by
 * their version 2 .idx.  Anything else (a delta, an alternate, another
 * odb backend) is left to libgit2.
 *
 * Nothing here is trusted: the bytes are hashed by the caller and checked
 * against the blob id or the published digest before any is used.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>
#include <zlib.h>

#include "git_stream.h"

#define CHUNK (64 * 1024)
#define OBJ_BLOB 3              /* a pack entry's type of a whole blob */
#define IDX_MAGIC "\377tOc"
#define IDX_HEAD (8 + 256 * 4)  /* magic, version, fan-out table */

/* One zlib stream of a file, from an offset, and where its bytes go. */
struct inflater {
	int fd;
	off_t pos;
	z_stream z;
	sfs_git_sink sink;
	void *arg;
	bool loose;                 /* the bytes start with "blob SIZE\0" */
	char head[32];              /* a loose object's header, as read */
	size_t nhead;
	bool in_body;
	uint64_t declared;          /* the size its header gives */
	uint64_t given;             /* bytes given to the sink */
	unsigned char in[CHUNK], out[CHUNK];
};

/* A loose object's header: "blob SIZE\0", into declared. */
static int parse_head(struct inflater *f)
{
	char *end;

	if (strncmp(f->head, "blob ", 5) != 0)
		return -EIO;
	f->declared = strtoull(f->head + 5, &end, 10);
	return *end == '\0' && end != f->head + 5 ? 0 : -EIO;
}

/* The n bytes inflated at p: the header first (loose), then the body. */
static int take(struct inflater *f, const unsigned char *p, size_t n)
{
	while (!f->in_body && n) {
		if (f->nhead == sizeof(f->head))
			return -EIO;
		char c = (char)*p++;
		n--;
		f->head[f->nhead++] = c;
		if (c == '\0') {
			f->in_body = true;
			int rc = parse_head(f);
			if (rc < 0)
				return rc;
		}
	}
	if (!n)
		return 0;
	if (f->given + n > f->declared)
		return -EIO;   /* longer than its header says */
	f->given += n;
	return f->sink(f->arg, p, n);
}

static int inflate_all(struct inflater *f)
{
	int zrc = Z_OK;

	while (zrc != Z_STREAM_END) {
		if (f->z.avail_in == 0) {
			ssize_t r = pread(f->fd, f->in, CHUNK, f->pos);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -EIO;   /* the stream ends before its end */
			f->pos += r;
			f->z.next_in = f->in;
			f->z.avail_in = (uInt)r;
		}
		f->z.next_out = f->out;
		f->z.avail_out = CHUNK;
		zrc = inflate(&f->z, Z_NO_FLUSH);
		if (zrc != Z_OK && zrc != Z_STREAM_END &&
		    !(zrc == Z_BUF_ERROR && f->z.avail_in == 0))
			return -EIO;
		int rc = take(f, f->out, CHUNK - f->z.avail_out);
		if (rc < 0)
			return rc;
	}
	return f->in_body && f->given == f->declared ? 0 : -EIO;
}

/* Inflates the zlib stream of fd at pos into sink. */
static int inflate_file(int fd, off_t pos, bool loose, uint64_t declared,
                        sfs_git_sink sink, void *arg, uint64_t *size)
{
	struct inflater *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	*f = (struct inflater){ .fd = fd, .pos = pos, .sink = sink,
	                        .arg = arg, .loose = loose,
	                        .in_body = !loose, .declared = declared };
	if (inflateInit(&f->z) != Z_OK) {
		free(f);
		return -ENOMEM;
	}
	int rc = inflate_all(f);
	*size = f->declared;
	inflateEnd(&f->z);
	free(f);
	return rc;
}

static int stream_loose(const char *objects, const git_oid *id,
                        sfs_git_sink sink, void *arg, uint64_t *size)
{
	char hex[GIT_OID_HEXSZ + 1], *path;

	git_oid_tostr(hex, sizeof(hex), id);
	if (asprintf(&path, "%s/%.2s/%s", objects, hex, hex + 2) < 0)
		return -ENOMEM;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EIO;
	int rc = inflate_file(fd, 0, true, 0, sink, arg, size);
	close(fd);
	return rc;
}

static int read_at(int fd, void *p, size_t n, off_t off)
{
	return pread(fd, p, n, off) == (ssize_t)n ? 0 : -EIO;
}

/* The offset of id in the pack of the version 2 index idx; -ENOENT when
 * it is not there. */
static int find_in_idx(int idx, const git_oid *id, uint64_t *off)
{
	unsigned char head[8];
	uint32_t fanout[256];

	if (read_at(idx, head, 8, 0) < 0 || memcmp(head, IDX_MAGIC, 4) != 0 ||
	    head[7] != 2 || read_at(idx, fanout, sizeof(fanout), 8) < 0)
		return -ENOENT;   /* not an index this reader knows */
	uint32_t n = ntohl(fanout[255]);
	uint32_t lo = id->id[0] ? ntohl(fanout[id->id[0] - 1]) : 0;
	uint32_t hi = ntohl(fanout[id->id[0]]);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		unsigned char probe[GIT_OID_RAWSZ];
		if (read_at(idx, probe, sizeof(probe),
		            IDX_HEAD + (off_t)mid * GIT_OID_RAWSZ) < 0)
			return -EIO;
		int c = memcmp(probe, id->id, GIT_OID_RAWSZ);
		if (c == 0) {
			off_t at = IDX_HEAD + (off_t)n * (GIT_OID_RAWSZ + 4) +
			           (off_t)mid * 4;
			uint32_t small;
			uint64_t large;
			if (read_at(idx, &small, 4, at) < 0)
				return -EIO;
			small = ntohl(small);
			if (!(small & 0x80000000u)) {
				*off = small;
				return 0;
			}
			at = IDX_HEAD + (off_t)n * (GIT_OID_RAWSZ + 8) +
			     (off_t)(small & 0x7fffffffu) * 8;
			if (read_at(idx, &large, 8, at) < 0)
				return -EIO;
			*off = be64toh(large);
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* The entry of the pack at off: a whole blob, inflated into sink;
 * -ENOTSUP for a delta or another type. */
static int stream_entry(int pack, uint64_t off, sfs_git_sink sink, void *arg,
                        uint64_t *size)
{
	unsigned char b[16];
	ssize_t got = pread(pack, b, sizeof(b), (off_t)off);

	if (got < 1)
		return -EIO;
	unsigned type = (b[0] >> 4) & 7;
	uint64_t declared = b[0] & 15;
	unsigned shift = 4;
	ssize_t i = 1;
	for (unsigned char c = b[0]; c & 0x80; shift += 7) {
		if (i >= got || shift > 57)
			return -EIO;
		c = b[i++];
		declared |= (uint64_t)(c & 0x7f) << shift;
	}
	if (type != OBJ_BLOB)
		return -ENOTSUP;
	return inflate_file(pack, (off_t)(off + (uint64_t)i), false, declared,
	                    sink, arg, size);
}

/* The pack of name (an .idx in dir) holding id, streamed; -ENOENT when
 * it does not hold it. */
static int stream_from(const char *dir, const char *name, const git_oid *id,
                       sfs_git_sink sink, void *arg, uint64_t *size)
{
	char *path;
	uint64_t off;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	int idx = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int rc = idx < 0 ? -ENOENT : find_in_idx(idx, id, &off);
	if (idx >= 0)
		close(idx);
	free(path);
	if (rc < 0)
		return rc;
	/* its pack: the same name, ending .pack instead of .idx */
	if (asprintf(&path, "%s/%.*s.pack", dir,
	             (int)(strlen(name) - strlen(".idx")), name) < 0)
		return -ENOMEM;
	int pack = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (pack < 0)
		return -EIO;
	rc = stream_entry(pack, off, sink, arg, size);
	close(pack);
	return rc;
}

static bool is_idx(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && strcmp(name + n - 4, ".idx") == 0;
}

static int stream_packed(const char *objects, const git_oid *id,
                         sfs_git_sink sink, void *arg, uint64_t *size)
{
	char *dir;

	if (asprintf(&dir, "%s/pack", objects) < 0)
		return -ENOMEM;
	DIR *d = opendir(dir);
	int rc = -ENOENT;
	for (struct dirent *e; d && rc == -ENOENT && (e = readdir(d)); )
		if (is_idx(e->d_name))
			rc = stream_from(dir, e->d_name, id, sink, arg, size);
	if (d)
		closedir(d);
	free(dir);
	return rc;
}

/* What this file does not read: libgit2 reads it, whole. */
static int stream_whole(git_repository *repo, const git_oid *id,
                        sfs_git_sink sink, void *arg, uint64_t *size)
{
	git_odb *odb;
	git_odb_object *o;

	if (git_repository_odb(&odb, repo) < 0)
		return -EIO;
	int rc = git_odb_read(&o, odb, id) < 0 ? -ENOENT : 0;
	git_odb_free(odb);
	if (rc < 0)
		return rc;
	if (git_odb_object_type(o) != GIT_OBJECT_BLOB) {
		git_odb_object_free(o);
		return -EIO;
	}
	const unsigned char *p = git_odb_object_data(o);
	size_t n = git_odb_object_size(o);
	*size = n;
	for (size_t done = 0; rc == 0 && done < n; done += CHUNK)
		rc = sink(arg, p + done, n - done < CHUNK ? n - done : CHUNK);
	git_odb_object_free(o);
	return rc;
}

int sfs_git_blob_stream(git_repository *repo, const git_oid *id,
                        uint64_t *size, sfs_git_sink sink, void *arg)
{
	char *objects;

	*size = 0;
	if (asprintf(&objects, "%sobjects", git_repository_commondir(repo)) < 0)
		return -ENOMEM;
	/* each fails before it gives any byte, or gives them all */
	int rc = stream_loose(objects, id, sink, arg, size);
	if (rc == -ENOENT)
		rc = stream_packed(objects, id, sink, arg, size);
	free(objects);
	if (rc == -ENOENT || rc == -ENOTSUP)
		rc = stream_whole(repo, id, sink, arg, size);
	return rc;
}
