/*
 * trust.h - one ownership-and-mode rule (ssh's StrictModes) for what may
 * steer a skillsfs program: its config file, a token file, its cache
 * folder; and cache files opened so that no link or foreign file is
 * followed or trusted.
 *
 * The rule: a file or folder is owned by the running user or root and
 * writable by nobody else (a folder writable by others passes only when
 * it is sticky, as /tmp is, so nobody can replace what it holds); a
 * secret is readable by nobody else either; every folder on the way from
 * / passes it too.  A symbolic link is followed only when it sits in a
 * folder that passed and is the running user's or root's, so nobody else
 * can change where it leads.
 *
 * Every function returns a negative errno on failure; those that take
 * `why` then say there which file, its owner and mode, and what to do.
 */
#ifndef SFS_TRUST_H
#define SFS_TRUST_H

#include <dirent.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum sfs_trust_kind {
	SFS_TRUST_CONFIG,   /* writable by its owner alone */
	SFS_TRUST_SECRET,   /* readable and writable by its owner alone */
};

/*
 * Opens the regular file at `path` for reading, refused (-EPERM, or
 * -EFBIG past max bytes) unless it and every folder above it pass the
 * rule.  It is opened O_NONBLOCK and O_NOFOLLOW and looked at before a
 * byte is read, so a FIFO, a device or a link cannot block or mislead
 * the reader.  Returns the descriptor (close-on-exec).
 */
int sfs_trust_open(const char *path, enum sfs_trust_kind kind, off_t max,
                   char *why, size_t wlen);

/* The whole of such a file (sfs_trust_open), NUL-terminated in *text
 * (malloc'd), *len bytes without the NUL.  Returns 0 or -errno (-EFBIG
 * past max bytes). */
int sfs_trust_read(const char *path, enum sfs_trust_kind kind, off_t max,
                   char **text, size_t *len, char *why, size_t wlen);

/* The folder at `path`, made 0700 (with its missing parents) when
 * `create`, opened after it and every folder above it passed the rule.
 * Returns an O_DIRECTORY descriptor. */
int sfs_trust_dir_open(const char *path, bool create, char *why, size_t wlen);

/* The folder dfd, to be read from its start (a dup would share dfd's
 * offset, left where the last reading ended), or NULL with errno. */
DIR *sfs_dir_read(int dfd);

/* Calls each(dfd, name, st, arg) for every entry of the folder dfd but
 * . and .. (st: its lstat; an entry gone meanwhile is passed over),
 * stopping at the first non-zero answer: 0, that answer, or -errno when
 * dfd cannot be read. */
typedef int sfs_dir_each_fn(int dfd, const char *name, const struct stat *st,
                            void *arg);
int sfs_dir_each(int dfd, sfs_dir_each_fn *each, void *arg);

/* sfs_trust_dir_open(cache_dir, true), closed: 0 when the cache folder
 * may be used, else why not. */
int sfs_cache_check(const char *cache_dir, char *why, size_t wlen);

/*
 * Cache files, each at a path inside a cache folder.  The folder that
 * holds it is opened as sfs_trust_dir_open does (made when missing), and
 * the file is opened from that descriptor with O_NOFOLLOW: a link, a
 * file that is not regular or one another user owns is never followed.
 */
/* For reading (O_NONBLOCK): -ELOOP for a link, -EPERM for a file that is
 * not a regular one of ours, or in a folder that fails the rule.  (Reads
 * and sfs_cache_write check that folder, reached by a path with no link;
 * the folders above it are walked by sfs_cache_check, which every update
 * calls, and by the other functions here: trust.c says why.) */
int sfs_cache_open_read(const char *path);
/* For appending (O_RDWR | O_APPEND), made `mode` when missing; a link or
 * a foreign or many-linked file in its place is removed and made again. */
int sfs_cache_open_append(const char *path, mode_t mode);
/* Writes n bytes of p to `path` through a temporary made with O_EXCL
 * beside it and renamed into place.  Returns 0, or with keep_fd the
 * written file's descriptor (O_RDWR, at its end). */
int sfs_cache_write(const char *path, const void *p, size_t n, mode_t mode,
                    bool keep_fd);
/* The same in parts, for a file too large to hold whole in memory:
 * sfs_cache_begin makes the temporary (t->fd, O_RDWR; `path` must stay
 * until the commit); sfs_cache_commit renames it into place when rc is
 * 0, else removes it, and returns rc, the rename's error, 0 or (with
 * keep_fd) the descriptor. */
struct sfs_cache_tmp {
	int dfd, fd;
	const char *base;
	char name[NAME_MAX + 1];
};
int sfs_cache_begin(const char *path, mode_t mode, struct sfs_cache_tmp *t);
int sfs_cache_commit(struct sfs_cache_tmp *t, int rc, bool keep_fd);
/* Removes the entry at `path` (not what a link there points to). */
int sfs_cache_unlink(const char *path);
/* The folder that holds `path`, made when missing and checked. */
int sfs_cache_mkdirs(const char *path);

/* The cache folder's key (cache_key.c), read from cache_dir, or made
 * there when it has none: 0 or -errno. */
#define SFS_CACHE_KEY_LEN 32
int sfs_cache_key(const char *cache_dir, uint8_t key[SFS_CACHE_KEY_LEN]);

/*
 * Whole entries of a folder dfd of the cache (opened with
 * sfs_trust_dir_open): a file, a link or a folder and all it holds.
 * Nothing is reached through a link, nor on another filesystem than
 * dfd's (a mount inside the cache is neither counted nor emptied).
 */
/* The regular file `name` of dfd whole, NUL-terminated (malloc'd), or
 * NULL when it is none (a link is never followed), is past max bytes or
 * cannot be read; with fd_out, its descriptor is left open there. */
char *sfs_cache_read_at(int dfd, const char *name, size_t max, int *fd_out);
/* The bytes of the regular files of entry `name`, or -errno. */
long long sfs_cache_entry_size(int dfd, const char *name);
/* Removes entry `name` (a link as a link): 0 (also when it is gone
 * already) or -errno. */
int sfs_cache_remove_entry(int dfd, const char *name);

#endif
