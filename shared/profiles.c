/*
 * profiles.c - what each agent's skill listing costs and allows, in one
 * table, so that one edit follows an agent's new release.  Figures from
 * the agents' loaders (spec: agents-and-discovery.md):
 *
 * Claude Code 2.1.197: 1% of a 200k-token context x 4 characters, 8,000,
 * of which its 13 bundled skills take 4,453 by its own count (its "over
 * budget" warning, measured by tests/agents); at most 1,536 characters of
 * description each (it cuts the rest); entries "- name: description".
 * Codex 0.169.0: 8,000 when the context is unknown, of which its 4
 * system skills take 1,723 (measured the same way); the SKILL.md path is
 * in each entry; a description over 1,024 characters: not loaded.
 * Gemini CLI 0.61.0 has no cap (836 skills: 270 KB with every request):
 * the view keeps it to Copilot's size.  Copilot CLI 1.0.102: 15,000 of
 * its <available_skills> entries, user skills in name order, then its 2
 * built-in skills (769); past it the rest by name only, its own included
 * (measured by tests/agents); an entry is "<skill>\n  <name>..</name>\n
 * <description>..</description>\n  <location>user</location>\n</skill>"
 * and a newline, 91 characters beside the name and description.
 */
#include <string.h>

#include "views.h"

static const struct sfs_profile profiles[] = {
	{ .name = "claude-code", .budget = 8000 - 4453, .per_skill = 1536,
	  .lists_when_to_use = true, .entry_extra = 4 },
	{ .name = "codex", .budget = 8000 - 1723, .per_skill = 1024,
	  .refuses_long = true, .lists_path = true, .entry_extra = 12 },
	{ .name = "copilot", .budget = 15000 - 769, .per_skill = 1024,
	  .entry_extra = 91 },
	{ .name = "gemini", .budget = 15000, .per_skill = 1024,
	  .lists_path = true, .entry_extra = 48 },
};

size_t sfs_profile_count(void)
{
	return sizeof(profiles) / sizeof(profiles[0]);
}

const struct sfs_profile *sfs_profile_at(size_t i)
{
	return i < sfs_profile_count() ? &profiles[i] : NULL;
}

const struct sfs_profile *sfs_profile_find(const char *name)
{
	for (size_t i = 0; i < sfs_profile_count(); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}
