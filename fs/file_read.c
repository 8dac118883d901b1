/*
 * file_read.c - a read of a skill file in two halves (file_read.h).
 */
#include <errno.h>
#include <syslog.h>
#include <unistd.h>

#include "backing.h"
#include "daemon.h"
#include "fetcher.h"
#include "file_read.h"
#include "report.h"

/* A remote source could not give the bytes its listing names (they did
 * not match, or the server could not be reached): told at once, since
 * status.json tells why only after the next build. */
static void say_unverified(struct daemon *d, const struct gen *g,
                           const struct node *n)
{
	const struct sfs_skill *s = gen_skill(g, n);
	const struct sfs_file *f = gen_file(g, n);

	if (s && f && !backing_is_watched(g->cat, s->root))
		report_say(d, LOG_WARNING, "skills/%s/%s: not served: the "
		           "source did not give the bytes its listing names "
		           "(status.json says why after the next refresh)",
		           s->id, f->path);
}

void file_read_open(struct daemon *d, struct gen *g, const struct node *n,
                    struct file_bytes *out)
{
	const struct kept *k = gen_kept(g, n);
	const struct sfs_skill *s = gen_skill(g, n);

	*out = (struct file_bytes){ .fd = -1 };
	/* a read, even of kept bytes, is a use of what the root keeps in
	 * the cache folder (skillsfs gc drops the least recently used) */
	if (s)
		fetcher_root_read(d, s->root);
	/* the first read of a file in a generation copies it, so that its
	 * published bytes stay readable whatever happens to the source */
	if (!k && retain_node(&d->retainer, g, n,
	                      d->retainer.budget / 4 * 3, RETAIN_FILE_MAX) == 0)
		k = gen_kept(g, n);
	if (k) {
		/* the published bytes, whatever the source holds now; g
		 * holds them as long as the reader holds g */
		out->kept = k->bytes;
		return;
	}
	int fd = backing_open(g, n, &out->borrowed);
	if (fd >= 0) {
		out->fd = fd;
		return;
	}
	/* the source changed or went since the scan: refresh now */
	if (fd == -ESTALE || fd == -ENOENT || fd == -ENOTDIR)
		refresher_stale(d);
	else if (fd == -EIO)
		say_unverified(d, g, n);
	out->err = fd;
}

void file_read_close(struct file_bytes *b)
{
	if (b->fd >= 0 && !b->borrowed)
		close(b->fd);
	b->fd = -1;
}

void file_read_reply(fuse_req_t req, struct file_bytes *b, size_t size,
                     off_t off)
{
	if (b->kept) {
		fuse_reply_buf(req, (const char *)b->kept + off, size);
		return;
	}
	if (b->fd < 0) {
		fuse_reply_err(req, b->err < 0 ? -b->err : EIO);
		return;
	}
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = b->fd;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
	file_read_close(b);
}
