/*
 * test_lines.c - the line documents (index.json, catalog/skills_index.json)
 * are written without cJSON trees, the records (catalog/<id>.json) through
 * them; each must be exactly what cJSON prints: every line of the
 * first two as cJSON_PrintUnformatted prints it, every record as
 * cJSON_Print does (and a newline).  Each is parsed back and printed again
 * by cJSON, over skills whose strings need every kind of escape.
 *
 * usage: test_lines [ROOT]   ROOT: check a corpus of one's own too.
 * Prints TAP.
 */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "skillsfs.h"

/* Every line between the first and the last, as cJSON prints it. */
static void check_lines(const char *doc, const char *what)
{
	char *copy = strdup(doc);
	size_t lines = 0, same = 0;

	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		size_t n = strlen(line);
		if (strcmp(line, "{\"skills\":[") == 0 ||
		    strcmp(line, "]}") == 0)
			continue;
		if (n && line[n - 1] == ',')
			line[--n] = '\0';
		cJSON *j = cJSON_Parse(line);
		char *again = j ? cJSON_PrintUnformatted(j) : NULL;
		lines++;
		if (again && strcmp(again, line) == 0)
			same++;
		else
			printf("# %s\n# %s\n", line, again ? again : "(unparsed)");
		free(again);
		cJSON_Delete(j);
	}
	ok(lines > 0 && same == lines, "%s: %zu of %zu lines as cJSON prints "
	   "them", what, same, lines);
	free(copy);
}

/* Every record of the catalog as cJSON_Print prints it. */
static void check_records(const sfs_catalog *cat, const char *what)
{
	size_t n = sfs_catalog_nskills(cat), same = 0;

	for (size_t i = 0; i < n; i++) {
		char *rec = sfs_render_skill_record(cat,
		                                    sfs_catalog_skill(cat, i));
		cJSON *j = rec ? cJSON_Parse(rec) : NULL;
		char *again = j ? cJSON_Print(j) : NULL;
		size_t len = again ? strlen(again) : 0;
		if (again && strncmp(again, rec, len) == 0 &&
		    strcmp(rec + len, "\n") == 0)
			same++;
		else
			printf("# %s\n# %s\n", rec ? rec : "(none)",
			       again ? again : "(unparsed)");
		free(again);
		cJSON_Delete(j);
		free(rec);
	}
	ok(n > 0 && same == n, "%s: %zu of %zu records as cJSON prints them",
	   what, same, n);
}

/* The three documents of the catalog of `root`. */
static void check_root(const char *root, const char *what)
{
	const char *roots[] = { root };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&cfg, NULL);
	char *index = sfs_render_index(cat);
	char *skills = sfs_render_skills_index(cat);
	ok(index && skills, "%s: rendered", what);
	if (index)
		check_lines(index, "index.json");
	if (skills)
		check_lines(skills, "skills_index.json");
	check_records(cat, what);
	free(index);
	free(skills);
	sfs_catalog_unref(cat);
}

int main(int argc, char **argv)
{
	char root[256], dir[512];

	fixture_start("test_lines");
	snprintf(root, sizeof(root), "%s/r", top);
	write_file(at("r/escapes/SKILL.md"),
	           "---\nname: escapes\n"
	           "description: \"Quotes \\\" and backslashes \\\\, a tab\\t,"
	           " a bell \\a, \\x1f, DEL \\x7f, / slash, \\u00e9t\\u00e9 and"
	           " \\U0001F600\"\n"
	           "license: 'single ''quoted'' \\ \"'\n"
	           "x-notes: [\"t\\\"1\", t\\\\2, \"\\u00fc\", \"\\x01\"]\n"
	           "x-values:\n  float: 1.5\n  big: 12345678901234567890\n"
	           "  neg: -7\n  exp: 6.02e23\n  none: ~\n  yes: true\n"
	           "  list: [1, \"two\", 3.25, null]\n"
	           "  nested: {a: {b: [\"\\n\", \"\\r\\f\\b\"]}}\n"
	           "x-personal-mcp:\n  id: escapes\n  version: 1.0.0-rc.1\n"
	           "  tags: [t-1, t-2]\n"
	           "  capabilities: [resource://skills/escapes/document]\n"
	           "---\n# Body\n");
	write_file(at("r/escapes/na\"me.txt"), "quoted\n");
	write_file(at("r/escapes/back\\slash.txt"), "backslash\n");
	write_file(at("r/escapes/\xc3\xa9t\xc3\xa9/caf\xc3\xa9.md"), "utf-8\n");
	write_file(at("r/escapes/empty"), "");
	write_file(at("r/plain/SKILL.md"), "---\nname: plain\ndescription: Plain."
	           "\n---\n");

	const char *roots[] = { root };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&cfg, NULL);
	ok(sfs_catalog_nskills(cat) == 2, "both skills served");

	char *index = sfs_render_index(cat);
	char *skills = sfs_render_skills_index(cat);
	ok(index && skills, "rendered");
	if (index)
		check_lines(index, "index.json");
	if (skills)
		check_lines(skills, "skills_index.json");
	ok(index && strstr(index, "\"size\":0}"), "an empty file has size 0");
	check_records(cat, "escapes");
	free(index);
	free(skills);
	sfs_catalog_unref(cat);

	/* no skills: the documents read in place give them */
	snprintf(dir, sizeof(dir), "%s/none", top);
	if (mkdir(dir, 0755) < 0)
		die(dir);
	const char *empty[] = { dir };
	struct sfs_config lines = { .roots = empty, .nroots = 1 };
	cat = build_catalog(&lines, NULL);
	sfs_lines_doc *d = sfs_lines_doc_new(cat, false, NULL);
	char buf[64] = "";
	int rc = -1;
	if (d && sfs_lines_doc_size(d) < sizeof(buf))
		rc = sfs_lines_doc_read(d, 0, sfs_lines_doc_size(d), buf);
	ok(rc == 0 && strcmp(buf, "{\"skills\":[\n]}\n") == 0,
	   "an empty catalog's index.json read in place");
	sfs_lines_doc_free(d);
	sfs_catalog_unref(cat);
	remove_tree(top);
	if (argc > 1)
		check_root(argv[1], argv[1]);
	return tap_end();
}
