/*
 * kinds.c - the operations of a kind of source the program does not
 * link, loaded from the module of the kinds (shared/meson.build's
 * skillsfs-kinds) when a root of that kind is first opened.
 *
 * Why: libgit2, libcurl and libarchive, and what they load in turn
 * (OpenSSL, GnuTLS, ICU, Kerberos, LDAP, ...), were 8.4 MiB of the
 * daemon's resident memory at 10,000 skills, a mount of folders alone
 * too (BENCHMARKS.md).  skillsfs links the folder's kind and names the
 * module (sfs_kinds_module, fs/kinds_path.c); skillsfs-mcp names none and
 * loads no kind; the tests and the perf tools link every kind, and never
 * get here.
 *
 * The module holds its own copy of what the kinds use of this library,
 * which has no globals: the two copies share nothing but the structures
 * passed between them, from the same headers of the same build.  It stays
 * loaded (dlopen counts its opens; it is never closed).
 */
#include <dlfcn.h>
#include <stddef.h>

#include "source.h"

/* The path of the module, when the program loads kinds from one. */
extern const char *sfs_kinds_module(void) __attribute__((weak));

const struct sfs_source_ops *sfs_kinds_load(const char *ops_name)
{
	const char *path = sfs_kinds_module ? sfs_kinds_module() : NULL;
	/* lazily bound, as the libraries were when the program linked them
	 * (binding all at once cost a git root's start 1.5 ms of CPU); the
	 * module is linked with nothing left undefined (meson.build) */
	void *module = path && ops_name ?
	               dlopen(path, RTLD_LAZY | RTLD_LOCAL) : NULL;

	return module ? dlsym(module, ops_name) : NULL;
}
