/*
 * fuzz_security.c - one input is one file of a skill, read by the
 * security pass under a name its first byte picks (SKILL.md, a script, a
 * reference, a test file, an image): every rule family sees it.
 *
 * Invariants beyond "no crash, no leak, no undefined behaviour": every
 * finding names a security/ rule and a risk, stands inside the input
 * (line and column from 1, the line no further than the input has), and
 * says what it saw in valid UTF-8 with no invisible character left
 * unescaped.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "snapshot.h"
#include "utf8.h"

static const char *const names[] = {
	"SKILL.md", "scripts/run.sh", "references/guide.md", "tests/test_x.py",
	"assets/logo.png", "notes.txt", "scripts/tool.py", "page.html",
};
static const char *const siblings[] = { "scripts/run.sh", "scripts/run.c" };

static struct sfs_security *sec;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	FUZZ_ASSERT(sfs_security_new(&sec) == 0, "rules do not compile");
	return 0;
}

/* No tag character, bidirectional control or zero-width character is
 * printed as it is. */
static bool shows_nothing_hidden(const char *m)
{
	static const char *const hidden[] = {
		"\xf3\xa0", "\xe2\x80\xae", "\xe2\x80\xad", "\xe2\x80\x8b",
		"\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9",
	};
	for (size_t i = 0; i < sizeof(hidden) / sizeof(*hidden); i++)
		if (strstr(m, hidden[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size > 256 * 1024)
		return 0;
	const char *rel = names[data[0] % (sizeof(names) / sizeof(*names))];
	size_t len = size - 1;
	char *text = malloc(len + 1);
	struct sfs_arena arena = { 0 };
	struct sfs_diag_list diags = { .arena = &arena };
	size_t lines = 1;

	FUZZ_ASSERT(text, "out of memory");
	memcpy(text, data + 1, len);
	text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	FUZZ_ASSERT(sfs_security_scan_bytes(sec, "/skills/demo/x", rel, text,
	                                    len, siblings, 2, &diags) == 0,
	            "scan failed");
	for (size_t i = 0; i < diags.n; i++) {
		const struct sfs_diag *d = &diags.v[i];
		FUZZ_ASSERT(d->rule && strncmp(d->rule, "security/", 9) == 0,
		            "finding without a rule: %s", d->message);
		FUZZ_ASSERT(d->risk >= SFS_RISK_LOW && d->risk <= SFS_RISK_HIGH,
		            "risk %d", (int)d->risk);
		FUZZ_ASSERT(d->line >= 1 && d->line <= lines && d->column >= 1,
		            "%s at %u:%u of %zu lines", d->rule, d->line,
		            d->column, lines);
		FUZZ_ASSERT(sfs_utf8_valid(d->message, strlen(d->message)),
		            "message not UTF-8: %s", d->rule);
		FUZZ_ASSERT(shows_nothing_hidden(d->message),
		            "%s shows a hidden character", d->rule);
	}
	sfs_diag_list_free(&diags);
	sfs_arena_free(&arena);
	free(text);
	return 0;
}
