/*
 * tls_exit.c - OpenSSL told not to free its state at exit.
 *
 * Why: a git fetch runs on a thread of its own that a stop does not wait
 * for (git_fetch.c: libgit2 has no way to cancel a transfer), and over
 * ssh it is inside OpenSSL (libssh2's).  OpenSSL 3 registers an atexit
 * handler at its first use that frees its locks and tables, so a daemon
 * leaving while such a fetch was in a handshake crashed in that thread
 * (a SEGV in libcrypto's lock under ASan, test git-remote).  With
 * OPENSSL_INIT_NO_ATEXIT given first, the process ends with OpenSSL as
 * it is, as every other library's memory goes with the process.
 */
#include <openssl/crypto.h>

#include "tls_exit.h"

void sfs_tls_no_atexit(void)
{
	OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
