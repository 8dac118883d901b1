/*
 * fuzz.h - the libFuzzer entry points every target defines, and the
 * invariant check the targets share.  The same target sources build into
 * libFuzzer binaries (-Dfuzz=true, clang) and into replay programs
 * (replay.c) that run the seed corpus once in every build.
 */
#ifndef SKILLSFS_FUZZ_H
#define SKILLSFS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional: run once before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant that must hold for every input: a violation is a finding,
 * so it aborts (libFuzzer then saves the input as a crash). */
#define FUZZ_ASSERT(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: invariant violated: %s: ", \
			__FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* A cleaned relative path: not empty, not absolute, and no empty, "."
 * or ".." component (so no "//" and no trailing '/'). */
static inline void fuzz_assert_clean_rel(const char *p)
{
	FUZZ_ASSERT(p && *p && p[0] != '/', "path '%s' is empty or absolute",
		    p ? p : "(null)");
	for (const char *s = p; *s;) {
		size_t len = strcspn(s, "/");
		FUZZ_ASSERT(len > 0, "empty segment in '%s'", p);
		FUZZ_ASSERT(!(len == 1 && s[0] == '.'), "'.' in '%s'", p);
		FUZZ_ASSERT(!(len == 2 && s[0] == '.' && s[1] == '.'),
			    "'..' in '%s'", p);
		s += len;
		if (*s == '/') {
			s++;
			FUZZ_ASSERT(*s, "trailing '/' in '%s'", p);
		}
	}
}

#endif
