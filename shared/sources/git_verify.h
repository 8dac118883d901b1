/*
 * git_verify.h - whether a commit is signed by an allowed signer, as
 * `git verify-commit` with gpg.format=ssh and gpg.ssh.allowedSignersFile
 * judges it: the commit's gpgsig header, an SSH signature in namespace
 * "git" over the commit without that header, by a key of the file valid
 * at the committer's time.
 */
#ifndef SKILLSFS_GIT_VERIFY_H
#define SKILLSFS_GIT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

struct sfs_signers;

/* Returns 0 and the signer's principal (SFS_PRINCIPAL_MAX bytes), or
 * -EPERM with why (cap bytes: unsigned, signed by a key not allowed, a bad signature,
 * an OpenPGP signature), or -EIO when the commit cannot be read, or
 * -ENOMEM. */
int sfs_git_verify_commit(git_repository *repo, const git_oid *id,
                          const struct sfs_signers *signers, char *principal,
                          char *why, size_t cap);

/* How far back along a followed branch's first parents the newest signed
 * commit is looked for. */
#define SFS_GIT_VERIFY_DEPTH 1000

/* The allowed-signers file at path, read under trust.h's rule (another
 * user must not be able to choose who may sign).  Returns 0 and *out
 * (sfs_signers_free), or -errno with why (cap bytes). */
int sfs_git_signers_load(const char *path, struct sfs_signers **out,
                         char *why, size_t cap);

/*
 * The commit to serve of *c under signers: *c itself when an allowed
 * signer signed it; else, when `follow` (a branch that moves), the
 * newest commit on its first-parent line within SFS_GIT_VERIFY_DEPTH
 * that is, which replaces *c (*older set).  Returns 0 with the signer's
 * principal (SFS_PRINCIPAL_MAX bytes) and, with *older, why the newer ones are not
 * served in why; -EKEYREJECTED when none is, with why; or -ENOMEM, -EIO.
 */
int sfs_git_signed_commit(git_repository *repo, git_commit **c,
                          const struct sfs_signers *signers, bool follow,
                          bool *older, char *principal, char *why,
                          size_t cap);

/* Whether ref (NULL: HEAD) names a branch, which moves, rather than a
 * tag or a commit. */
bool sfs_git_ref_moves(git_repository *repo, const char *ref);

#endif
