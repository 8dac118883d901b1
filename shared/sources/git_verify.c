/*
 * git_verify.c - a commit's signature against allowed signers
 * (git_verify.h): libgit2 separates the signature from the bytes it
 * signs, sshsig.c judges the pair.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git_verify.h"
#include "source.h"
#include "sshsig.h"
#include "trust.h"

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

#define SIGNERS_MAX_BYTES (1 << 20)

int sfs_git_signers_load(const char *path, struct sfs_signers **out,
                         char *why, size_t cap)
{
	char *text, twhy[512] = "";
	size_t len;
	int rc = sfs_trust_read(path, SFS_TRUST_CONFIG, SIGNERS_MAX_BYTES,
	                        &text, &len, twhy, sizeof(twhy));

	if (rc < 0) {
		snprintf(why, cap, "verify: %s", rc == -EPERM ? twhy :
		         strerror(-rc));
		return rc;
	}
	char pwhy[256] = "";
	rc = sfs_signers_parse(text, len, out, pwhy, sizeof(pwhy));
	free(text);
	if (rc == -EINVAL)
		snprintf(why, cap, "verify: %s: %s", path, pwhy);
	else if (rc == 0 && sfs_signers_count(*out) == 0) {
		snprintf(why, cap, "verify: %s lists no key that can sign", path);
		sfs_signers_free(*out);
		rc = -EINVAL;
	}
	return rc;
}

bool sfs_git_ref_moves(git_repository *repo, const char *ref)
{
	git_reference *r;

	if (!ref)
		return true;   /* HEAD: the branch it is on */
	if (sfs_source_is_commit_id(ref) ||
	    git_reference_dwim(&r, repo, ref) < 0)
		return false;
	bool moves = git_reference_is_branch(r) || git_reference_is_remote(r);
	git_reference_free(r);
	return moves;
}

int sfs_git_signed_commit(git_repository *repo, git_commit **c,
                          const struct sfs_signers *signers, bool follow,
                          bool *older, char *principal, char *why,
                          size_t cap)
{
	char tip_why[256] = "", tip[GIT_OID_HEXSZ + 1];
	git_commit *cur = *c;

	*older = false;
	git_oid_tostr(tip, sizeof(tip), git_commit_id(cur));
	for (unsigned depth = 0; cur; depth++) {
		char w[256] = "";
		int rc = sfs_git_verify_commit(repo, git_commit_id(cur), signers,
		                               principal, w, sizeof(w));
		if (rc == 0) {
			if (cur != *c) {
				git_commit_free(*c);
				*c = cur;
				*older = true;
				snprintf(why, cap, "%s", tip_why);
			}
			return 0;
		}
		if (rc == -ENOMEM)
			return rc;
		if (depth == 0)
			snprintf(tip_why, sizeof(tip_why), "%s", w);
		git_commit *parent = NULL;
		if (!follow || depth + 1 >= SFS_GIT_VERIFY_DEPTH ||
		    git_commit_parentcount(cur) == 0 ||
		    git_commit_parent(&parent, cur, 0) < 0)
			parent = NULL;
		if (cur != *c)
			git_commit_free(cur);
		cur = parent;
	}
	if (follow)
		snprintf(why, cap, "commit %.12s is not signed by an allowed "
		         "signer (%s), nor is any before it on its first-parent "
		         "line (%u looked at, at most)", tip, tip_why,
		         SFS_GIT_VERIFY_DEPTH);
	else
		snprintf(why, cap, "commit %.12s is not signed by an allowed "
		         "signer: %s", tip, tip_why);
	return -EKEYREJECTED;
}
