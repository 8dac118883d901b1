/*
 * git_verify.c - a commit's signature against allowed signers
 * (git_verify.h): libgit2 separates the signature from the bytes it
 * signs, sshsig.c judges the pair.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "git_verify.h"
#include "sshsig.h"

#define SSH_ARMOR "-----BEGIN SSH SIGNATURE-----"
#define PGP_ARMOR "-----BEGIN PGP SIGNATURE-----"

/* The committer's time: what git passes ssh-keygen as -Overify-time. */
static int commit_time(git_repository *repo, const git_oid *id, int64_t *when)
{
	git_commit *c = NULL;

	if (git_commit_lookup(&c, repo, id) < 0)
		return -EIO;
	*when = (int64_t)git_commit_time(c);
	git_commit_free(c);
	return 0;
}

static int judge(const git_buf *sig, const git_buf *data, int64_t when,
                 const struct sfs_signers *signers, char *principal,
                 char *why, size_t cap)
{
	if (strncmp(sig->ptr, PGP_ARMOR, strlen(PGP_ARMOR)) == 0) {
		snprintf(why, cap, "it is signed with OpenPGP, which is not "
		         "checked: sign with an SSH key (git config "
		         "gpg.format ssh)");
		return -EPERM;
	}
	if (strncmp(sig->ptr, SSH_ARMOR, strlen(SSH_ARMOR)) != 0) {
		snprintf(why, cap, "its signature is of no kind skillsfs "
		         "checks");
		return -EPERM;
	}
	int rc = sfs_sshsig_verify(signers, sig->ptr, sig->size, data->ptr,
	                           data->size, "git", when, principal, why,
	                           cap);
	return rc == -ENOMEM ? rc : rc < 0 ? -EPERM : 0;
}

int sfs_git_verify_commit(git_repository *repo, const git_oid *id,
                          const struct sfs_signers *signers, char *principal,
                          char *why, size_t cap)
{
	git_buf sig = { 0 }, data = { 0 };
	int64_t when = 0;
	int rc = commit_time(repo, id, &when);

	if (rc < 0) {
		snprintf(why, cap, "the commit cannot be read");
		return rc;
	}
	int err = git_commit_extract_signature(&sig, &data, repo,
	                                       (git_oid *)id, NULL);
	if (err == GIT_ENOTFOUND) {
		snprintf(why, cap, "it is not signed");
		rc = -EPERM;
	} else if (err < 0) {
		snprintf(why, cap, "its signature cannot be read");
		rc = -EIO;
	} else {
		rc = judge(&sig, &data, when, signers, principal, why, cap);
	}
	git_buf_dispose(&sig);
	git_buf_dispose(&data);
	return rc;
}
