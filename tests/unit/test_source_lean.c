/*
 * test_source_lean.c - a program that links no kind of source (as
 * skillsfs-mcp: shared/meson.build's skillsfs_lean_dep) still reads every
 * root's form and URL, and asking it for a kind's operations is a clear
 * error, never a crash (source_form.c names the operations weakly).
 * Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "cache_gc.h"
#include "skillsfs.h"
#include "source.h"

static const char *const roots[] = {
	"/srv/skills", "git+file:///srv/repo#main", "mcp+https://h.test/mcp",
	"mcp+stdio:tool", "https://h.test",
};
#define NROOTS (sizeof(roots) / sizeof(*roots))

/* Forms and URLs: what a configuration reader needs of a kind.  A root
 * of a kind the table lacks (scripts/kind-footprint removes one) is a
 * folder's path. */
static void test_forms(void)
{
	for (size_t i = 1; i < NROOTS; i++) {
		struct sfs_source_url u;
		const char *why = "";
		int rc = 0;

		if (sfs_source_is_url(roots[i]))
			rc = sfs_source_url_parse(roots[i], &u, &why);
		else if (strcmp(sfs_source_form(roots[i])->kind, "folder"))
			rc = -EINVAL;
		ok(rc == 0, "%s parses (kind %s; %d: %s)", roots[i],
		   sfs_source_form(roots[i])->kind, rc, why);
		if (rc == 0 && sfs_source_is_url(roots[i]))
			sfs_source_url_free(&u);
	}
	ok(sfs_source_caps("/srv/skills") & SFS_SOURCE_WATCHED,
	   "a folder's capabilities");
	ok(sfs_source_caps("mcp+stdio:tool") & SFS_SOURCE_COMMAND,
	   "a stdio server's capabilities");
}

/* The operations: none linked, every kind's ops NULL. */
static void test_no_ops(void)
{
	bool none = sfs_source_kind_at(0) == NULL;

	for (size_t i = 0; i < NROOTS; i++)
		none = none && sfs_source_kind(roots[i]) == NULL;
	ok(none && !sfs_source_kind_named("git") &&
	   !sfs_source_kind_named("folder"),
	   "no kind's operations are linked");
}

/* Asking them anyway: an error naming the root and kind. */
static void test_asking(void)
{
	struct sfs_config cfg;
	struct sfs_source src;
	char version[80], why[256] = "";

	memset(&cfg, 0, sizeof(cfg));
	int rc = sfs_source_update(&cfg, roots[1], version, sizeof(version),
	                           NULL, why, sizeof(why));
	ok(rc == -ENOSYS && strstr(why, roots[1]) && strstr(why, "git"),
	   "update: -ENOSYS, why names the root and kind (%d: %s)", rc, why);
	why[0] = '\0';
	rc = sfs_source_listen(&cfg, roots[2], NULL, NULL, NULL, why,
	                       sizeof(why));
	ok(rc == -ENOSYS && strstr(why, roots[2]),
	   "listen: -ENOSYS (%d: %s)", rc, why);
	rc = sfs_source_open(&cfg, roots[0], NULL, &src);
	ok(rc == -ENOSYS && src.ops == NULL, "open: -ENOSYS (%d)", rc);
	ok(sfs_source_cache_entry(roots[1], "/tmp/cache") == NULL,
	   "cache entry: none");
}

int main(void)
{
	test_forms();
	test_no_ops();
	test_asking();
	return tap_end();
}
