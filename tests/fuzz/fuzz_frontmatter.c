/*
 * fuzz_frontmatter.c - one input is a whole SKILL.md.  It goes through
 * what the catalog does with a SKILL.md: the frontmatter parser, the
 * frontmatter contract for a skill folder of a fixed name, and the body
 * checks with a stub for the files the skill has.
 *
 * Invariants beyond "no crash, no leak, no undefined behaviour": the
 * parser's answer agrees with its outputs, the body starts inside the
 * input, every finding names the file and a sane position, and every
 * link path the body checks ask about is relative and already cleaned.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "internal.h"

#define FILE_NAME "/skills/pdf-forms/SKILL.md"
#define DIR_NAME "pdf-forms"
/* Inputs far over the frontmatter bound add nothing but time. */
#define MAX_INPUT (SFS_FM_MAX_BYTES * 2)

/* The files of the fixed skill, as exists() sees them. */
static const char *const skill_files[] = {
	"SKILL.md",
	"assets",
	"assets/mapping.json",
	"references",
	"references/field-types.md",
	"references/troubleshooting.md",
	"scripts",
	"scripts/fill.sh",
	"scripts/list_fields.py",
};

static bool stub_exists(const char *relpath, const char **actual, void *arg)
{
	(void)arg;
	/* the body checks hand over paths they have cleaned */
	fuzz_assert_clean_rel(relpath);
	*actual = NULL;
	for (size_t i = 0; i < sizeof(skill_files) / sizeof(*skill_files); i++) {
		if (strcmp(relpath, skill_files[i]) == 0)
			return true;
		if (strcasecmp(relpath, skill_files[i]) == 0)
			*actual = skill_files[i];
	}
	return false;
}

static void check_diags(const struct sfs_diag_list *l, unsigned last_line)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct sfs_diag *d = &l->v[i];
		FUZZ_ASSERT(d->severity == SFS_ERROR || d->severity == SFS_WARNING,
			    "severity %d", (int)d->severity);
		FUZZ_ASSERT(d->file && strcmp(d->file, FILE_NAME) == 0,
			    "finding about %s", d->file ? d->file : "(null)");
		FUZZ_ASSERT(d->field && d->message && *d->message,
			    "finding without field or message");
		FUZZ_ASSERT(d->line <= last_line + 1,
			    "line %u past the end (%u lines)", d->line, last_line);
		FUZZ_ASSERT(d->line != 0 || d->column == 0,
			    "column %u without a line", d->column);
	}
}

static unsigned count_lines(const char *text, size_t len)
{
	unsigned n = 1;

	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n' || (text[i] == '\r' &&
					  (i + 1 == len || text[i + 1] != '\n'));
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct sfs_arena arena = { 0 };
	struct sfs_diag_list diags = { .arena = &arena };
	struct sfs_frontmatter fm = { 0 };
	struct sfs_meta meta = { 0 };

	if (size > MAX_INPUT)
		return 0;
	int rc = sfs_frontmatter_parse(text, size, FILE_NAME, &arena, &diags,
				       &fm);
	FUZZ_ASSERT(rc == 0 || rc == -1 || rc == -ENOMEM, "parse returned %d", rc);
	if (rc == -1)
		FUZZ_ASSERT(sfs_diag_count(&diags, SFS_ERROR) > 0,
			    "unusable frontmatter without an error");
	if (rc == 0) {
		FUZZ_ASSERT(cJSON_IsObject(fm.json), "usable, but not a mapping");
		FUZZ_ASSERT(fm.body_offset <= size, "body at %zu of %zu",
			    fm.body_offset, size);
		FUZZ_ASSERT(fm.body_line >= 1, "body on line 0");
		for (size_t i = 0; i < fm.npos; i++)
			FUZZ_ASSERT(fm.pos[i].key && fm.pos[i].line >= 1,
				    "position without key or line");
		rc = sfs_validate_frontmatter(&fm, FILE_NAME, DIR_NAME, &arena,
					      &diags, &meta);
		FUZZ_ASSERT(rc == 0 || rc == -ENOMEM, "validate returned %d", rc);
		for (size_t i = 0; rc == 0 && i < meta.nrefs; i++) {
			FUZZ_ASSERT(meta.refs[i].id && meta.refs[i].path,
				    "reference without id or path");
			FUZZ_ASSERT(i == 0 || strcmp(meta.refs[i - 1].id,
						     meta.refs[i].id) < 0,
				    "references not sorted by id");
		}
	}
	if (rc == 0) {
		rc = sfs_validate_body(text + fm.body_offset,
				       size - fm.body_offset, fm.body_line,
				       FILE_NAME, stub_exists, NULL, &diags);
		FUZZ_ASSERT(rc == 0 || rc == -ENOMEM, "body check returned %d", rc);
	}
	check_diags(&diags, count_lines(text, size));

	sfs_frontmatter_free(&fm);
	sfs_diag_list_free(&diags);
	sfs_arena_free(&arena);
	return 0;
}
