/*
 * sshsig.h - SSH signatures (OpenSSH's PROTOCOL.sshsig) checked against
 * an allowed-signers file (ssh-keygen(1), ALLOWED SIGNERS), as git checks
 * a commit signed with gpg.format=ssh: the signature's key must be on a
 * line of the file whose namespaces (if it names any) take the
 * signature's, valid at the time git gives (the committer's), and the
 * signature must verify over the signed bytes.
 *
 * Keys: ssh-ed25519, ssh-rsa (signatures rsa-sha2-256 and rsa-sha2-512)
 * and ecdsa-sha2-nistp256, with nettle.  A line of another kind, or a
 * cert-authority line, is read and never matches: why is kept for the
 * caller to report.
 */
#ifndef SKILLSFS_SSHSIG_H
#define SKILLSFS_SSHSIG_H

#include <stddef.h>
#include <stdint.h>

struct sfs_signers;

/* The room a signer's principal is given in (NUL included); a longer
 * one is cut there. */
#define SFS_PRINCIPAL_MAX 128

/* Reads an allowed-signers file's text.  Returns 0 and *out (owned; free
 * with sfs_signers_free), or -ENOMEM, or -EINVAL with why (cap bytes)
 * saying which line is not one and what is wrong with it. */
int sfs_signers_parse(const char *text, size_t len, struct sfs_signers **out,
                      char *why, size_t cap);
void sfs_signers_free(struct sfs_signers *s);
/* How many lines name a key that can match. */
size_t sfs_signers_count(const struct sfs_signers *s);

/*
 * Verifies the armored signature (`-----BEGIN SSH SIGNATURE-----` ...)
 * over data, made in namespace ns, by a listed key valid at `when`
 * (seconds since the epoch).  Returns 0 and the first principal of the
 * matching line in principal (SFS_PRINCIPAL_MAX bytes), or -EPERM (a signature this
 * file does not allow: unknown key, wrong namespace, outside its time,
 * a bad signature) or -EINVAL (not a signature this reads), each with
 * why (cap bytes), or -ENOMEM.
 */
int sfs_sshsig_verify(const struct sfs_signers *s, const char *armor,
                      size_t alen, const void *data, size_t dlen,
                      const char *ns, int64_t when, char *principal,
                      char *why, size_t cap);

#endif
