/*
 * frontmatter_json.c - the frontmatter of one SKILL.md as JSON, for
 * readers outside the library (the MCP server reads a SKILL.md that the
 * mount serves and needs its fields exactly as the catalog read them).
 */
#include "internal.h"

cJSON *sfs_skillmd_frontmatter(const char *text, size_t len,
                               size_t *body_offset)
{
	struct sfs_arena arena = { 0 };
	struct sfs_diag_list diags = { .arena = &arena };
	struct sfs_frontmatter fm;
	cJSON *json = NULL;

	if (sfs_frontmatter_parse(text, len, "SKILL.md", &arena, &diags,
	                          &fm) == 0) {
		json = fm.json;
		fm.json = NULL;
		if (body_offset)
			*body_offset = fm.body_offset;
	}
	sfs_frontmatter_free(&fm);
	sfs_diag_list_free(&diags);
	sfs_arena_free(&arena);
	return json;
}
