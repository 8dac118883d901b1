/*
 * instructions.c - the usage guide for agents (skills-mcp-spec.md,
 * "init-skills Prompt"): informational rather than directive, written
 * around progressive disclosure, with the five-step workflow, and clear
 * that the server only discovers skills and hands out paths inside the
 * skillsfs mount while the agent reads and runs files with its own tools.
 */
#include <stdio.h>

#include "contract.h"
#include "instructions.h"

static const char guide[] =
"# Skills MCP - Usage Guide\n"
"\n"
"This is informational guidance about the Skills MCP server (skillsfs-mcp). "
"It explains what skills are and how to work with them. It is background "
"context, not a request to do anything right now.\n"
"\n"
"## What Are Skills\n"
"\n"
"A skill is a folder that packages expertise for one kind of task: a "
"`SKILL.md` file with a short YAML header (`name`, `description`) and "
"markdown instructions, often alongside bundled resources:\n"
"\n"
"- `references/`: documentation to read when the instructions point to it\n"
"- `scripts/`: code to run rather than rewrite (it does not need to be "
"read into context to be useful)\n"
"- `assets/`: templates and other files used in the output\n"
"\n"
"Skills work like onboarding guides: they turn a general-purpose agent into "
"one that knows a team's procedures, formats and tools.\n"
"\n"
"## Core Design Philosophy\n"
"\n"
"This server is a minimal wrapper. It does two things: it lets you discover "
"which skills exist, and it gives you a skill's instructions together with "
"the absolute path of its `SKILL.md`. Everything else is done with your own "
"capabilities: reading files, listing folders, searching, and running "
"commands.\n"
"\n"
"The paths it returns point into a read-only skillsfs mount, a folder on "
"this machine that presents every served skill as ordinary files. Read from "
"it with your usual file tools and run its scripts with your shell; write "
"your output somewhere else.\n"
"\n"
"## When to Use Skills\n"
"\n"
"Skills follow progressive disclosure: load only what the current task or "
"objective needs, when it needs it.\n"
"\n"
"1. Metadata (names and descriptions) is cheap: look at it early, and again "
"whenever a new task or objective comes up.\n"
"2. Instructions (the body of `SKILL.md`) are loaded only when a skill's "
"description matches what you are doing.\n"
"3. Bundled files are read or run only when the instructions call for them.\n"
"\n"
"A skill that does not match the task or objective at hand is best left "
"unloaded; there is no benefit in reading skills ahead of need.\n"
"\n"
"## Working with Skills\n"
"\n"
"1. **Discover.** Call `list_skills` to see the available skills (id, name, "
"description, tags, path). With many skills, pass `query` (a few words "
"about the task: the best matches come first) and page with `limit` and "
"`cursor`.\n"
"2. **Evaluate.** Compare each description with the task or objective. "
"Descriptions say what a skill does and when to use it.\n"
"3. **Load.** Call `get_skill` with the skill's `id`. It returns the "
"instructions (`content`, the body of `SKILL.md`) and `path`, the absolute "
"path of that `SKILL.md` in the mount.\n"
"4. **Resolve.** Relative paths in the instructions, such as "
"`references/FORMS.md`, are relative to the folder that contains `SKILL.md`. "
"Join them to that folder and read them with your own file-reading tool, "
"only when the instructions make them relevant.\n"
"5. **Execute.** Run bundled scripts with your own shell, usually from the "
"skill's folder (for example `cd <skill folder> && python3 "
"scripts/validate.py`). Scripts do not have to be read first unless you need "
"to understand or adapt them.\n"
"\n"
"## Important Notes\n"
"\n"
"- The server never reads references or runs scripts for you; it provides "
"discovery and paths, and you handle files and execution.\n"
"- The mount is read-only. To change a template or script, copy it to a "
"working folder first.\n"
"- The set of skills can change while you work. If a skill is missing or a "
"path no longer exists, call `list_skills` again.\n"
"- Skills are instructions written by their authors. Follow them within "
"your usual rules for safety and permissions, and ask before running "
"anything whose effect is unclear.\n"
"- Gemini CLI's file tools read only inside the workspace: to read the "
"paths `get_skill` returns, add the mount with `--include-directories "
"<mount>` or `context.includeDirectories` in its settings.json.\n"
"- Skills are also available as MCP resources (`" SFS_TEMPLATE_SKILL "`, "
"`" SFS_TEMPLATE_DOCUMENT "`) for clients that read resources.\n"
"\n"
"Use skills when a task or objective matches what a skill describes: they "
"carry tested procedures, and following them gives better and more "
"consistent results.\n";

const char *instructions_text(void)
{
	return guide;
}

int instructions_print(bool xml)
{
	if (xml)
		fputs("<skills-mcp-instructions>\n", stdout);
	fputs(guide, stdout);
	if (xml)
		fputs("</skills-mcp-instructions>\n", stdout);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
