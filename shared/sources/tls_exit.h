/*
 * tls_exit.h - OpenSSL kept from tearing itself down at exit while a
 * thread still uses it (tls_exit.c).
 */
#ifndef SKILLSFS_TLS_EXIT_H
#define SKILLSFS_TLS_EXIT_H

/* Before anything that may start OpenSSL (libgit2 starting libssh2,
 * libcurl): cheap, and the first call of the process is the one that
 * counts. */
void sfs_tls_no_atexit(void);

#endif
