/*
 * render_tool.c - prints one of the library's JSON renderings of a catalog
 * built from the given roots, so that tests can compare whole documents
 * without a mount.  Built for the test suite only, never installed.
 *
 * usage: render_tool [--strict] --skills-dir DIR... WHAT
 * WHAT: index | skills-index | record=ID | status | findings | dirs |
 *       frontmatters (every served skill's frontmatter by id, listed in
 *       index.json or not: what index.json would show for it)
 * status uses generation 7, last_refresh 2026-01-02T03:04:05.678Z,
 * refresh_mode "polling" and root source "--skills-dir".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skillsfs.h"

static int usage(void)
{
	fputs("usage: render_tool [--strict] --skills-dir DIR... "
	      "index|skills-index|record=ID|status|findings|dirs|"
	      "frontmatters\n", stderr);
	return 2;
}

static char *render_status(const sfs_catalog *cat)
{
	size_t n = sfs_catalog_nroots(cat);
	const char **sources = calloc(n ? n : 1, sizeof(*sources));
	if (!sources)
		return NULL;
	for (size_t i = 0; i < n; i++)
		sources[i] = "--skills-dir";
	struct sfs_status_info info = {
		.generation = 7,
		.last_refresh = { .tv_sec = 1767323045, .tv_nsec = 678900000 },
		.refresh_mode = "polling",
		.root_sources = sources,
	};
	char *text = sfs_render_status(cat, &info);
	free(sources);
	return text;
}

static char *render_dirs(const sfs_catalog *cat)
{
	size_t n, len = 1;
	const char *const *dirs = sfs_catalog_dirs(cat, &n);
	for (size_t i = 0; i < n; i++)
		len += strlen(dirs[i]) + 1;
	char *text = malloc(len);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		strcat(strcat(text, dirs[i]), "\n");
	return text;
}

static char *render_frontmatters(const sfs_catalog *cat)
{
	cJSON *all = cJSON_CreateObject();
	char *text;

	for (size_t i = 0; all && i < sfs_catalog_nskills(cat); i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		cJSON *fm = cJSON_ParseWithLength(s->frontmatter_json.p,
		                                   s->frontmatter_json.len);
		if (!fm || !cJSON_AddItemToObject(all, s->id, fm)) {
			cJSON_Delete(fm);
			cJSON_Delete(all);
			return NULL;
		}
	}
	text = all ? cJSON_PrintUnformatted(all) : NULL;
	cJSON_Delete(all);
	return text;
}

/* What the tool renders by name (but record=ID). */
static const struct {
	const char *name;
	char *(*render)(const sfs_catalog *cat);
} renderers[] = {
	{ "frontmatters", render_frontmatters },
	{ "index", sfs_render_index },
	{ "skills-index", sfs_render_skills_index },
	{ "status", render_status },
	{ "findings", sfs_render_findings },
	{ "dirs", render_dirs },
};

static char *render(const sfs_catalog *cat, const char *what)
{
	for (size_t i = 0; i < sizeof(renderers) / sizeof(*renderers); i++)
		if (strcmp(what, renderers[i].name) == 0)
			return renderers[i].render(cat);
	if (strncmp(what, "record=", 7) == 0) {
		const struct sfs_skill *s = sfs_catalog_find(cat, what + 7);
		if (!s) {
			fprintf(stderr, "render_tool: no skill %s\n", what + 7);
			exit(1);
		}
		return sfs_render_skill_record(cat, s);
	}
	exit(usage());
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "skills-dir", required_argument, NULL, 'd' },
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char **roots = calloc((size_t)argc, sizeof(*roots));
	struct sfs_config cfg = { .roots = roots };
	int c;

	if (!roots)
		return 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'd')
			roots[cfg.nroots++] = optarg;
		else if (c == 's')
			cfg.strict = true;
		else
			return usage();
	}
	if (optind + 1 != argc)
		return usage();

	sfs_catalog *cat;
	int rc = sfs_catalog_build(&cfg, NULL, &cat);
	if (rc < 0) {
		fprintf(stderr, "render_tool: %s\n", strerror(-rc));
		return 1;
	}
	char *text = render(cat, argv[optind]);
	sfs_catalog_unref(cat);
	free(roots);
	if (!text) {
		fputs("render_tool: out of memory\n", stderr);
		return 1;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}
