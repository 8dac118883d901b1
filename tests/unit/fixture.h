/*
 * fixture.h - what the unit tests that build skill trees share: TAP
 * output, and a temporary folder `top` to build the trees in, removed at
 * exit (also when a test bails out).  Every helper that can fail bails
 * out with a message: a fixture that cannot be built is no test.
 */
#ifndef SKILLSFS_UNIT_FIXTURE_H
#define SKILLSFS_UNIT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "skillsfs.h"

/* The test's temporary folder, made by fixture_start(). */
extern const char *top;

/* Makes /tmp/<name>.XXXXXX (removed at exit) and line-buffers stdout so
 * TAP lines interleave with the library's messages in order. */
void fixture_start(const char *name);

/* One TAP line: "ok N - ..." or "not ok N - ...". */
void ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The TAP plan; the exit status of the test (1 if anything failed). */
int tap_end(void);

/* "Bail out! <what>: <strerror(errno)>" and exit 1. */
__attribute__((noreturn)) void die(const char *what);

/* An absolute path under top; static storage, the last 8 stay valid. */
const char *at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* mkdir -p. */
void mkdirs(const char *path);

/* Writes a file (making its folders); returns path. */
const char *write_file(const char *path, const char *text);

/* A valid SKILL.md (or `md`) in dir, for the skill named after the
 * folder, with extra frontmatter lines (or NULL) and a body. */
void write_skill(const char *dir, const char *md, const char *extra,
                 const char *body);

/* rm -rf; 0 or -1 (errno set), like nftw. */
int remove_tree(const char *path);

/* Empties top for the next test. */
void clear_top(void);

/* Runs a shell command (printf-style); bails out when it fails. */
void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The first line of a shell command's output, without its newline
 * (static storage, valid until the next call); bails out when the
 * command cannot run or prints nothing. */
const char *sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A whole file, malloc'd and NUL-terminated, its length in *len; bails
 * out when it cannot be read. */
char *slurp(const char *path, size_t *len);

/* sfs_catalog_build, bailing out when the library fails. */
sfs_catalog *build_catalog(const struct sfs_config *cfg,
                           const sfs_catalog *prev);

/* Whether cat's status.json holds both texts a and b. */
bool status_says(const sfs_catalog *cat, const char *a, const char *b);

/* The folder dir of cat that is not served, or NULL. */
const struct sfs_unserved *unserved_at(const sfs_catalog *cat,
                                       const char *dir);

#endif
