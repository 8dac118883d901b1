/*
 * test_views.c - views.c and search.c on a built catalog: a view stays
 * within 90% of its budget, lists pins first and then the cheapest
 * entries, leaves out what its agent would refuse and says why, and is
 * the same at every build; find-skills names the search folder; search
 * ranks the skill that holds the words first, reads headings, and
 * contract.c reads back the lines search.c writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "fixture.h"
#include "search.h"
#include "views.h"

#define MOUNT "/mnt/skills"

static void skill(const char *id, const char *description, const char *body)
{
	char text[8192];

	snprintf(text, sizeof(text), "---\nname: %s\ndescription: %s\n---\n%s",
	         id, description, body);
	write_file(at("root/%s/SKILL.md", id), text);
}

static const struct sfs_view *view_named(const struct sfs_views *vs,
                                         const char *name)
{
	for (size_t i = 0; i < vs->n; i++)
		if (strcmp(vs->v[i].name, name) == 0)
			return &vs->v[i];
	return NULL;
}

static bool holds(const sfs_catalog *cat, const struct sfs_view *v,
                  const char *id)
{
	for (size_t i = 0; i < v->nskills; i++)
		if (strcmp(sfs_catalog_skill(cat, v->skills[i])->id, id) == 0)
			return true;
	return false;
}

static const char *why_out(const struct sfs_view *v, const char *id)
{
	for (size_t i = 0; i < v->nout; i++)
		if (strcmp(v->out[i].id, id) == 0)
			return v->out[i].why;
	return NULL;
}

static void test_views(const sfs_catalog *cat)
{
	char *pins[] = { "zz-pinned", "not-there" };
	char *include[] = { "tool-*", "zz-*" };
	struct sfs_view_def def = {
		.name = "team", .budget = 1000, .per_skill = SFS_UNSET,
		.include = include, .ninclude = 2, .pins = pins, .npins = 2,
	};
	struct sfs_views *vs, *again;

	ok(sfs_views_build(cat, &def, 1, MOUNT, &vs) == 0, "views built");
	ok(vs->n == 5, "four built-in views and one defined (%zu)", vs->n);
	for (size_t i = 0; i < vs->n; i++)
		ok(vs->v[i].spend <= vs->v[i].profile.budget * 9 / 10,
		   "%s: spends %zu of %zu", vs->v[i].name, vs->v[i].spend,
		   vs->v[i].profile.budget);
	const struct sfs_view *cc = view_named(vs, "claude-code");
	const struct sfs_view *codex = view_named(vs, "codex");
	const struct sfs_view *team = view_named(vs, "team");
	ok(cc && codex && team, "views by name");
	ok(cc->nskills > 0 && cc->over_budget > 0,
	   "claude-code is full: %zu in, %zu over budget", cc->nskills,
	   cc->over_budget);
	ok(!holds(cat, codex, "long-one") && why_out(codex, "long-one") &&
	   strstr(why_out(codex, "long-one"), "refuse"),
	   "codex leaves out a 1,100-character description, saying why");
	ok(holds(cat, cc, "long-one") || cc->over_budget,
	   "claude-code may list it (under 1,536)");
	ok(!holds(cat, cc, "wordy-when") && why_out(cc, "wordy-when") &&
	   strstr(why_out(cc, "wordy-when"), "cut"),
	   "claude-code counts when_to_use with the description");
	ok(why_out(codex, "wordy-when") == NULL,
	   "codex does not list when_to_use: 600 characters pass");
	/* cheapest first: every skill in the view costs no more than one
	 * left out over budget, so the short ones are in */
	ok(holds(cat, cc, "a") && holds(cat, cc, "b"),
	   "the cheapest entries are in");
	ok(team->nskills >= 1 && strcmp(sfs_catalog_skill(cat,
	   team->skills[0])->id, "zz-pinned") == 0, "the pin comes first");
	for (size_t i = 1; i < team->nskills; i++)
		ok(strncmp(sfs_catalog_skill(cat, team->skills[i])->id,
		           "tool-", 5) == 0, "team admits tool-* only (%s)",
		   sfs_catalog_skill(cat, team->skills[i])->id);
	ok(why_out(team, "not-there") != NULL, "a missing pin is said");
	ok(team->excluded == 6, "a, b, long-one, pdf-forms, ledger, "
	   "wordy-when not admitted (%zu)",
	   team->excluded);
	ok(strstr(cc->find_skills, "name: find-skills\n") &&
	   strstr(cc->find_skills, "cat \"" MOUNT "/search/<words>\""),
	   "find-skills says how to search the mount");
	char more[64];
	snprintf(more, sizeof(more), "the %zu more skills",
	         sfs_catalog_nskills(cat) - cc->nskills);
	ok(strstr(cc->find_skills, more) != NULL, "and how many more: %s",
	   more);

	ok(sfs_views_build(cat, &def, 1, MOUNT, &again) == 0 &&
	   again->n == vs->n, "built again");
	for (size_t i = 0; i < vs->n; i++)
		ok(again->v[i].nskills == vs->v[i].nskills &&
		   memcmp(again->v[i].skills, vs->v[i].skills,
		          vs->v[i].nskills * sizeof(*vs->v[i].skills)) == 0,
		   "%s: the same at every build", vs->v[i].name);
	sfs_views_free(again);
	sfs_views_free(vs);

	def.profile = "no-such-agent";
	ok(sfs_views_build(cat, &def, 1, MOUNT, &vs) == -EINVAL,
	   "an unknown profile is refused");
}

static void test_search(const sfs_catalog *cat)
{
	sfs_search *s;
	uint32_t hits[SFS_SEARCH_MAX_HITS];
	size_t n;

	ok(sfs_search_build(cat, &s) == 0, "index built");
	ok(sfs_search_run(s, "filling PDF forms", hits, 10, &n) == 0 && n > 0 &&
	   strcmp(sfs_catalog_skill(cat, hits[0])->id, "pdf-forms") == 0,
	   "stemmed words find pdf-forms first");
	ok(sfs_search_run(s, "quarterly reconciliation", hits, 10, &n) == 0 &&
	   n == 1 && strcmp(sfs_catalog_skill(cat, hits[0])->id,
	                    "ledger") == 0, "a heading of the body is found");
	ok(sfs_search_run(s, "\"(*OR NEAR", hits, 10, &n) == 0,
	   "FTS5 operators in the words are plain words");
	ok(sfs_search_run(s, "zzqx", hits, 10, &n) == 0 && n == 0,
	   "no match: nothing");
	ok(sfs_search_run(s, "", hits, 10, &n) == 0 && n == 0, "no word");

	sfs_search_run(s, "pdf", hits, 10, &n);
	char *text = sfs_render_search(cat, hits, n, MOUNT);
	char id[65];
	const char *nl = text ? strchr(text, '\n') : NULL;
	ok(nl && sfs_search_line(text, (size_t)(nl - text), id, sizeof(id)) &&
	   strcmp(id, "pdf-forms") == 0, "contract.c reads the line back");
	ok(text && strstr(text, "\t" MOUNT "/skills/pdf-forms/SKILL.md\n"),
	   "the line ends with the SKILL.md path");
	ok(!sfs_search_line("nope", 4, id, sizeof(id)),
	   "a line without tabs is not one");
	free(text);
	sfs_search_unref(s);

	char *p = sfs_mount_search(MOUNT, "a/b");
	ok(p && strcmp(p, MOUNT "/search/a b") == 0, "'/' becomes a space");
	free(p);
	p = sfs_mount_search(MOUNT, "..");
	ok(p && strcmp(p, MOUNT "/search/  ") == 0, "'..' is not a folder");
	free(p);
}

/* The views: key of the configuration file, and a project's file. */
static void test_config(void)
{
	struct sfs_config_file cf;
	struct sfs_config_error err;

	write_file(at("proj/.skillsfs.yaml"), "pins: [zz-pinned]\n"
	           "include: ['tool-*']\n");
	write_file(at("good.yaml"), "views:\n  team:\n    profile: codex\n"
	           "    budget: 3000\n    pins: [a, b]\n    exclude: ['x-*']\n"
	           "    project: proj\n");
	ok(sfs_config_file_read(at("good.yaml"), "/home", &cf, &err) == 0,
	   "views read (%s)", err.message);
	ok(cf.nviews == 1 && strcmp(cf.views[0].name, "team") == 0 &&
	   strcmp(cf.views[0].profile, "codex") == 0 &&
	   cf.views[0].budget == 3000 && cf.views[0].per_skill == SFS_UNSET,
	   "its name, profile and budget");
	ok(cf.nviews == 1 && cf.views[0].npins == 3 &&
	   strcmp(cf.views[0].pins[2], "zz-pinned") == 0 &&
	   cf.views[0].ninclude == 1 && cf.views[0].nexclude == 1,
	   "the project's pins and patterns added");
	sfs_config_file_free(&cf);

	static const struct {
		const char *text, *key, *says;
	} bad[] = {
		{ "views:\n  team:\n    profile: vim\n", "views.team.profile",
		  "unknown profile 'vim'" },
		{ "views:\n  team:\n    pins: [a]\n", "views.team",
		  "give a profile or a budget" },
		{ "views:\n  Team:\n    budget: 10\n", "views.Team",
		  "a view's name" },
		{ "views:\n  team:\n    budget: 10\n    colour: red\n",
		  "views.team.colour", "unknown key" },
		{ "views:\n  team:\n    budget: lots\n", "views.team.budget",
		  "expected characters" },
		{ "views:\n  team:\n    budget: 1\n    project: nowhere\n",
		  "views.team.project", "nowhere/.skillsfs.yaml: cannot read" },
		{ "views:\n  team:\n    budget: 1\n    project: badproj\n",
		  "views.team.project", "badproj/.skillsfs.yaml:2: unknown key" },
	};
	write_file(at("badproj/.skillsfs.yaml"), "pins: [a]\nproject: x\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(at("bad.yaml"), bad[i].text);
		int rc = sfs_config_file_read(at("bad.yaml"), "/home", &cf, &err);
		ok(rc == -EINVAL && strcmp(err.key, bad[i].key) == 0 &&
		   strstr(err.message, bad[i].says) != NULL,
		   "refused at %s: %s (got %s: %s)", bad[i].key, bad[i].says,
		   err.key, err.message);
	}
}

int main(void)
{
	fixture_start("test_views");
	skill("a", "A.", "Body.\n");
	skill("b", "B.", "Body.\n");
	skill("pdf-forms", "Fill in PDF forms.", "# Filling forms\n");
	skill("ledger", "Keep the books.",
	      "# Ledger\n\n## Quarterly reconciliation\n\n```\n# not a "
	      "heading\n```\n");
	char desc[1200];
	memset(desc, 'x', 1100);
	desc[1100] = '\0';
	skill("long-one", desc, "Body.\n");
	skill("zz-pinned", "The team's own.", "Body.\n");
	/* Claude Code lists when_to_use with the description: 600 + 1,000
	 * is over its 1,536 */
	char text[4096], when[1001];
	memset(when, 'w', 1000);
	when[1000] = '\0';
	memset(desc, 'd', 600);
	desc[600] = '\0';
	snprintf(text, sizeof(text), "---\nname: wordy-when\ndescription: "
	         "%s\nwhen_to_use: %s\n---\nBody.\n", desc, when);
	write_file(at("root/wordy-when/SKILL.md"), text);
	for (int i = 0; i < 40; i++) {
		char id[32], d[200];
		snprintf(id, sizeof(id), "tool-%02d", i);
		snprintf(d, sizeof(d), "Handle the %d records of this tool, "
		         "with care, one at a time, in order.", i);
		skill(id, d, "Body.\n");
	}
	const char *roots[] = { at("root") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&cfg, NULL);

	test_views(cat);
	test_search(cat);
	test_config();
	sfs_catalog_unref(cat);
	return tap_end();
}
