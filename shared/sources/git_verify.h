/*
 * git_verify.h - whether a commit is signed by an allowed signer, as
 * `git verify-commit` with gpg.format=ssh and gpg.ssh.allowedSignersFile
 * judges it: the commit's gpgsig header, an SSH signature in namespace
 * "git" over the commit without that header, by a key of the file valid
 * at the committer's time.
 */
#ifndef SKILLSFS_GIT_VERIFY_H
#define SKILLSFS_GIT_VERIFY_H

#include <stddef.h>

#include <git2.h>

struct sfs_signers;

/* Returns 0 and the signer's principal (cap bytes), or -EPERM with why
 * (cap bytes: unsigned, signed by a key not allowed, a bad signature,
 * an OpenPGP signature), or -EIO when the commit cannot be read, or
 * -ENOMEM. */
int sfs_git_verify_commit(git_repository *repo, const git_oid *id,
                          const struct sfs_signers *signers, char *principal,
                          char *why, size_t cap);

#endif
