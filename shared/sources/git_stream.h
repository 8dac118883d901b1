/*
 * git_stream.h - a git blob's bytes in chunks, never held whole
 * (git_stream.c).
 */
#ifndef SKILLSFS_GIT_STREAM_H
#define SKILLSFS_GIT_STREAM_H

#include <stddef.h>
#include <stdint.h>

struct git_repository;
struct git_oid;

/* Blobs larger than this are streamed, at build and at read. */
#define SFS_GIT_STREAM_MIN (1024 * 1024)

/* Takes the next n bytes of a blob; returns 0 or -errno to stop. */
typedef int (*sfs_git_sink)(void *arg, const void *p, size_t n);

/* Gives the bytes of the blob `id` of repo to sink, in order, in chunks
 * of at most 64 KiB, and its size (as its object header says) in *size.
 * Memory does not grow with the blob: a loose object or a whole object
 * in a pack is inflated as it is read.  A blob stored as a delta (git
 * stores none of blobs past core.bigFileThreshold, 512 MiB by default)
 * or found only through alternates is read whole by libgit2.  Nothing is
 * checked here: the caller hashes what it gets.  Returns 0, -ENOENT, -EIO
 * (unreadable or not a blob), -ENOMEM, or the sink's error. */
int sfs_git_blob_stream(struct git_repository *repo, const struct git_oid *id,
                        uint64_t *size, sfs_git_sink sink, void *arg);

#endif
