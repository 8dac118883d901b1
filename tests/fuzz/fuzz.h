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

#endif
