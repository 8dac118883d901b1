/*
 * replay.c - runs a fuzz target over files without libFuzzer: every file
 * named, and every file in every folder named (sorted by name), is one
 * input.  Linked with each target, it turns the seed corpus into a
 * regression test that runs in every build, gcc included.
 *
 *   replay-TARGET FILE|DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Targets that need no set-up leave LLVMFuzzerInitialize undefined. */
#pragma weak LLVMFuzzerInitialize

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			unsigned char *p = realloc(data, cap);
			if (!p) {
				fprintf(stderr, "replay: out of memory\n");
				exit(1);
			}
			data = p;
		}
		size_t n = fread(data + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(data);
		return -1;
	}
	/* An exact-size copy, so reading past the input is caught as it
	 * would be under libFuzzer. */
	unsigned char *input = malloc(len ? len : 1);
	if (!input) {
		fprintf(stderr, "replay: out of memory\n");
		exit(1);
	}
	if (len)
		memcpy(input, data, len);
	free(data);
	LLVMFuzzerTestOneInput(input, len);
	free(input);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_dir(const char *dir, size_t *count)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name);
	int rc = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int rc;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = run_dir(argv[i], &count);
		} else {
			rc = run_file(argv[i]);
			count += rc == 0;
		}
		if (rc < 0)
			status = 1;
	}
	printf("replayed %zu inputs\n", count);
	if (count == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		status = 1;
	}
	return status;
}
