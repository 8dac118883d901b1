/*
 * fixture.h - a plain folder laid out like a skillsfs mount, for driving
 * skillsfs-mcp without FUSE.  Its generated files come from the catalog
 * library's renderers over the example skills (tests/skills), so they are
 * what the daemon would serve; its skill files are copies.  Around that
 * it plants what a real mount never holds: symlinks that lead out of the
 * mount to a file whose content (FIXTURE_SECRET) must never be served.
 */
#ifndef SKILLSFS_FUZZ_FIXTURE_H
#define SKILLSFS_FUZZ_FIXTURE_H

/* The content of the file outside the mount. */
#define FIXTURE_SECRET "SKILLSFS-FUZZ-OUTSIDE-SECRET-7d41c0"

/*
 * Builds the fixture in a new temporary folder from the skills under
 * `skills_dir` and returns the absolute path of the mount folder in it
 * (static storage).  Exits with a message on any failure.  The folder is
 * removed at exit.
 */
const char *fixture_mount(const char *skills_dir);

#endif
