/*
 * fm_check.h - a tiny TAP harness for the frontmatter and validation
 * tests: each check prints "ok N - what" or "not ok N - what" with the
 * place that failed, and tap_done() prints the plan and the exit status.
 */
#ifndef FM_CHECK_H
#define FM_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 4, 5)))
static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, what) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, "%s", what)) \
		printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)

#define is_str(got, want, what) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_, "%s", what)) \
		printf("#   got \"%s\", want \"%s\"\n", \
		       g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* Tests do not handle running out of memory: they stop. */
static void *xmalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return p;
}

static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
