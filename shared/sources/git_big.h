/*
 * git_big.h - the checked bytes of git blobs past SFS_GIT_STREAM_MIN,
 * unpacked once for the reads of one build (git_big.c).
 */
#ifndef SKILLSFS_GIT_BIG_H
#define SKILLSFS_GIT_BIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct git_oid;
struct git_repository;
struct sfs_git_big;

/* The big blobs of one build, unpacked under cache_dir (or NULL: in
 * memory); NULL when out of memory.  Frees with sfs_git_big_free. */
struct sfs_git_big *sfs_git_big_new(const char *cache_dir);
void sfs_git_big_free(struct sfs_git_big *b);

/* Whether the build keeps the bytes of a big blob of `size` that it reads
 * (reserving room for them); false without a cache folder. */
bool sfs_git_big_reserve(struct sfs_git_big *b, uint64_t size);
/* A file with no name to write a big blob's bytes into, or -errno. */
int sfs_git_big_file(const struct sfs_git_big *b);
/* Writes the n bytes at p at offset `at` of fd: 0 or -errno. */
int sfs_git_big_write(int fd, off_t at, const void *p, size_t n);
/* Keeps fd (owned from now on), the checked bytes of the blob id. */
void sfs_git_big_keep(struct sfs_git_big *b, const struct git_oid *id, int fd);

/* A descriptor of the bytes of the blob id of repo, which must be `size`
 * bytes with that SHA-256: the kept ones, else unpacked now, checked, and
 * kept.  Returns it (the caller closes it), -EIO when the blob holds
 * other bytes, or another -errno. */
int sfs_git_big_open(struct sfs_git_big *b, struct git_repository *repo,
                     const struct git_oid *id, off_t size,
                     const uint8_t sha256[32]);

#endif
