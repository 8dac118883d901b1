/*
 * instructions.h - the usage guide for agents.  One text, three uses: the
 * `skillsfs-mcp instructions` command, the init-skills prompt, and the
 * `instructions` of the initialize and server/discover results.
 */
#ifndef MCP_INSTRUCTIONS_H
#define MCP_INSTRUCTIONS_H

#include <stdbool.h>

const char *instructions_text(void);
/* Prints the guide to stdout, in <skills-mcp-instructions> tags unless
 * xml is false.  Returns 0, or 1 when stdout could not be written. */
int instructions_print(bool xml);

#endif
