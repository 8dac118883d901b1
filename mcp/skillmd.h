/*
 * skillmd.h - the body of a SKILL.md: what follows its frontmatter.
 */
#ifndef MCP_SKILLMD_H
#define MCP_SKILLMD_H

#include <stddef.h>

/*
 * The frontmatter is the block between a first line "---" and the next
 * line "---" (or "..."), trailing blanks and CR allowed; a UTF-8 BOM before
 * it is skipped.  Returns a pointer into `text` where the body starts
 * (right after the closing fence's line break); without frontmatter the
 * body is the whole text after any BOM.
 */
const char *skillmd_body(const char *text, size_t len);

#endif
