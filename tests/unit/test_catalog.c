/*
 * test_catalog.c - catalog snapshots built over temporary skill trees:
 * discovery, shadowing, skill trees and symlinks, cross-skill checks,
 * digest reuse and deterministic rendering.  Prints TAP.
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fixture.h"
#include "skillsfs.h"

/* ---- building trees ----------------------------------------------------- */

/* A valid SKILL.md for folder `dir` (spelled `md`) with extra frontmatter
 * lines. */
static void skill(const char *dir, const char *md, const char *extra)
{
	write_skill(dir, md, extra, "Body.\n");
}

/* An empty top folder with a plain skill at each of the folders named
 * (below it; the list ends with NULL). */
__attribute__((sentinel))
static void fresh_skills(const char *dir, ...)
{
	va_list ap;

	clear_top();
	va_start(ap, dir);
	for (; dir; dir = va_arg(ap, const char *))
		skill(at("%s", dir), NULL, NULL);
	va_end(ap);
}

/* ---- building catalogs -------------------------------------------------- */

static sfs_catalog *build_cfg(struct sfs_config *cfg, const sfs_catalog *prev)
{
	return build_catalog(cfg, prev);
}

static sfs_catalog *build(const char *root1, const char *root2, bool strict)
{
	const char *roots[2] = { root1, root2 };
	struct sfs_config cfg = {
		.roots = roots, .nroots = root2 ? 2 : 1, .strict = strict,
	};
	return build_cfg(&cfg, NULL);
}

struct found {
	const char *file_has, *field, *message_has;
	enum sfs_severity severity;
	int n;
};

static void match_diag(const struct sfs_diag *d, void *arg)
{
	struct found *f = arg;
	if (f->severity && d->severity != f->severity)
		return;
	if (f->file_has && !strstr(d->file, f->file_has))
		return;
	if (f->field && strcmp(d->field, f->field) != 0)
		return;
	if (f->message_has && !strstr(d->message, f->message_has))
		return;
	f->n++;
}

/* How many findings match: file containing file_has, exactly field (when
 * not NULL), message containing message_has, the severity (when not 0). */
static int count_diags(const sfs_catalog *cat, enum sfs_severity sev,
                       const char *file_has, const char *field,
                       const char *message_has)
{
	struct found f = { file_has, field, message_has, sev, 0 };
	sfs_catalog_each_diag(cat, match_diag, &f);
	return f.n;
}

static void print_diag(const struct sfs_diag *d, void *arg)
{
	(void)arg;
	printf("# %s:%u:%u: %s: %s: %s\n", d->file, d->line, d->column,
	       d->severity == SFS_ERROR ? "error" : "warning", d->field,
	       d->message);
}

static const struct sfs_file *file_of(const struct sfs_skill *s,
                                      const char *path)
{
	for (size_t i = 0; s && i < s->nfiles; i++)
		if (strcmp(s->files[i].path, path) == 0)
			return &s->files[i];
	return NULL;
}

static bool has_dir(const sfs_catalog *cat, const char *dir)
{
	size_t n;
	const char *const *v = sfs_catalog_dirs(cat, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], dir) == 0)
			return true;
	return false;
}

/* ---- the tests ---------------------------------------------------------- */

static void test_discovery(void)
{
	fresh_skills("r/team/pdf", "r/top", "r/a/b/c/deep",
	             "r/.curated/ghost",        /* dot folders too */
	             "r/node_modules/dep", "r/.git/vcs",
	             "r/top/inner",             /* inside a skill */
	             "elsewhere/linked", "elsewhere/cat/in-linked-cat", NULL);
	if (symlink(at("elsewhere/linked"), at("r/linked")) < 0 ||
	    symlink("../elsewhere/cat", at("r/linked-cat")) < 0 ||
	    symlink("..", at("r/team/loop")) < 0 ||
	    symlink("../..", at("r/a/up")) < 0 ||
	    symlink("nowhere", at("r/dangling")) < 0)
		die("symlink");

	sfs_catalog *cat = build(at("r"), at("missing"), false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	ok(sfs_catalog_nskills(cat) == 6, "six skills found (got %zu)",
	   sfs_catalog_nskills(cat));
	ok(sfs_catalog_find(cat, "pdf") != NULL, "category folder searched");
	ok(sfs_catalog_find(cat, "deep") != NULL, "nested categories searched");
	ok(sfs_catalog_find(cat, "ghost") != NULL, "dot folders searched");
	ok(!sfs_catalog_find(cat, "dep") && !sfs_catalog_find(cat, "vcs"),
	   "node_modules and .git skipped");
	ok(!sfs_catalog_find(cat, "inner"), "no skills searched inside a skill");
	const struct sfs_skill *l = sfs_catalog_find(cat, "linked");
	ok(l && strcmp(l->dir, at("r/linked")) == 0,
	   "a symlinked skill folder is followed, named by its link");
	l = sfs_catalog_find(cat, "in-linked-cat");
	ok(l && strcmp(l->dir, at("r/linked-cat/in-linked-cat")) == 0,
	   "a symlinked category folder is searched");
	ok(count_diags(cat, SFS_WARNING, "r/team/loop", "", "(a loop): not "
	               "followed") == 1, "a link to a folder that holds it is "
	   "reported");
	ok(count_diags(cat, SFS_WARNING, "r/a/up", "", "holds the skills "
	               "folder: not followed") == 1, "a link above the root is "
	   "reported");
	ok(count_diags(cat, SFS_ERROR, "missing", "", "does not exist") == 1,
	   "missing root is an error");
	size_t nd;
	const struct sfs_diag *gd = sfs_catalog_diags(cat, &nd);
	ok(nd == 3 && gd, "three global findings (got %zu)", nd);
	ok(has_dir(cat, at("r")) && has_dir(cat, at("r/team")) &&
	   has_dir(cat, at("r/team/pdf")) && has_dir(cat, at("r/top/inner")) &&
	   has_dir(cat, at("r/a/b/c")) && has_dir(cat, at("r/linked")) &&
	   has_dir(cat, at("r/linked-cat")),
	   "roots, categories, skills and their subfolders are watched, "
	   "linked ones by their links");
	ok(!has_dir(cat, at("r/.git")) && !has_dir(cat, at("r/node_modules")),
	   "skipped folders are not watched");
	const struct sfs_skill *s = sfs_catalog_find(cat, "pdf");
	ok(s && strcmp(s->dir, at("r/team/pdf")) == 0 && s->root == 0,
	   "skill folder and root recorded");
	ok(sfs_catalog_nroots(cat) == 2 &&
	   strcmp(sfs_catalog_root(cat, 1), at("missing")) == 0,
	   "roots kept in order");
	struct sfs_counts n = sfs_catalog_counts(cat);
	ok(n.served == 6 && n.invalid == 0 && n.errors == 1 && n.warnings == 2,
	   "counts: served %zu invalid %zu errors %zu warnings %zu", n.served,
	   n.invalid, n.errors, n.warnings);
	for (size_t i = 1; i < sfs_catalog_nskills(cat); i++)
		ok(strcmp(sfs_catalog_skill(cat, i - 1)->id,
		          sfs_catalog_skill(cat, i)->id) < 0, "sorted by id");
	sfs_catalog_unref(cat);
}

static void is_str(const char *got, const char *want, const char *what)
{
	ok(strcmp(got, want) == 0, "%s (got %s)", what, got);
}

static const char *plugin_of(const sfs_catalog *cat, const char *id)
{
	const struct sfs_skill *s = sfs_catalog_find(cat, id);
	return s ? (s->plugin ? s->plugin : "(none)") : "(not served)";
}

/* Claude Code plugin folders and marketplaces, laid out as Claude Code
 * reads them: each skill records the plugin it belongs to, and its id
 * stays its own. */
static void test_plugins(void)
{
	clear_top();
	write_file(at("r/my-plugin/.claude-plugin/plugin.json"),
	           "{\"name\": \"my-plugin\", \"version\": \"1.0.0\", "
	           "\"skills\": [\"./extra\", \"../../outside\"]}\n");
	skill(at("r/my-plugin/skills/alpha"), NULL, NULL);
	skill(at("r/my-plugin/extra/beta"), NULL, NULL);
	write_file(at("r/market/.claude-plugin/marketplace.json"),
	           "{\"name\": \"mkt\", \"owner\": {\"name\": \"t\"},\n"
	           " \"plugins\": [\n"
	           "  {\"name\": \"doc-skills\", \"source\": \"./\", "
	           "\"strict\": false, \"skills\": [\"./skills/xlsx\"]},\n"
	           "  {\"name\": \"examples\", \"source\": \"./\", "
	           "\"strict\": false, \"skills\": [\"./skills/art\"]},\n"
	           "  {\"name\": \"tools\", \"source\": \"./plugins/tools\"},\n"
	           "  {\"name\": \"remote\", \"source\": {\"source\": "
	           "\"github\", \"repo\": \"o/r\"}}]}\n");
	skill(at("r/market/skills/xlsx"), NULL, NULL);
	skill(at("r/market/skills/art"), NULL, NULL);
	skill(at("r/market/skills/loose"), NULL, NULL);
	write_file(at("r/market/plugins/tools/.claude-plugin/plugin.json"),
	           "{\"name\": \"tools\"}\n");
	skill(at("r/market/plugins/tools/skills/lint"), NULL, NULL);
	write_file(at("r/broken/.claude-plugin/plugin.json"), "{\n");
	skill(at("r/broken/skills/gamma"), NULL, NULL);
	skill(at("r/plain/delta"), NULL, NULL);

	sfs_catalog *cat = build(at("r"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	is_str(plugin_of(cat, "alpha"), "my-plugin", "plugin.json: skills/");
	is_str(plugin_of(cat, "beta"), "my-plugin", "plugin.json: \"skills\"");
	is_str(plugin_of(cat, "xlsx"), "doc-skills", "marketplace: skills list");
	is_str(plugin_of(cat, "art"), "examples", "marketplace: another list");
	is_str(plugin_of(cat, "loose"), "(none)", "marketplace: unlisted skill");
	is_str(plugin_of(cat, "lint"), "tools", "marketplace: plugin source");
	is_str(plugin_of(cat, "gamma"), "(none)", "broken manifest: no plugin");
	is_str(plugin_of(cat, "delta"), "(none)", "no manifest: no plugin");
	ok(count_diags(cat, SFS_WARNING, "r/broken/.claude-plugin/plugin.json",
	               "", "cannot use plugin manifest: not a JSON object") == 1,
	   "a broken manifest is named");
	ok(count_diags(cat, SFS_WARNING, "r/my-plugin/.claude-plugin/plugin.json",
	               "skills", "leaves") == 1,
	   "a manifest path that leaves the plugin is named");
	const struct sfs_skill *a = sfs_catalog_find(cat, "alpha");
	char *rec = a ? sfs_render_skill_record(cat, a) : NULL;
	char *lines = sfs_render_skills_index(cat);
	const char *delta = lines ? strstr(lines, "\"id\":\"delta\"") : NULL;
	ok(rec && strstr(rec, "\"plugin\":\t\"my-plugin\""),
	   "catalog record has \"plugin\"");
	ok(lines && strstr(lines, "\"id\":\"alpha\"") &&
	   strstr(lines, ",\"plugin\":\"my-plugin\"}") &&
	   delta && !memmem(delta, strcspn(delta, "\n"), "plugin", 6),
	   "skills_index.json lines have \"plugin\" only for plugin skills");
	free(rec);
	free(lines);

	/* skills_index.json read in place measures the "plugin" key */
	struct sfs_config kept = { .roots = (const char *[]){ at("r") },
	                           .nroots = 1 };
	sfs_catalog *kc = build_cfg(&kept, NULL);
	sfs_lines_doc *doc = sfs_lines_doc_new(kc, true, NULL);
	char *whole = sfs_render_skills_index(kc);
	char *got = doc ? calloc(1, sfs_lines_doc_size(doc) + 1) : NULL;
	ok(got && whole && sfs_lines_doc_size(doc) == strlen(whole) &&
	   sfs_lines_doc_read(doc, 0, sfs_lines_doc_size(doc), got) == 0 &&
	   strcmp(got, whole) == 0 && strstr(got, "\"plugin\""),
	   "skills_index.json read in place has the plugins");
	free(got);
	free(whole);
	sfs_lines_doc_free(doc);
	sfs_catalog_unref(kc);

	/* A rebuild keeps the plugins, also for folders taken unchanged;
	 * a manifest that changes changes them. */
	struct sfs_config cfg = { .roots = (const char *[]){ at("r") },
	                          .nroots = 1 };
	sfs_catalog *next = build_cfg(&cfg, cat);
	is_str(plugin_of(next, "alpha"), "my-plugin", "rebuild keeps plugins");
	write_file(at("r/my-plugin/.claude-plugin/plugin.json"),
	           "{\"name\": \"renamed\"}\n");
	sfs_catalog *third = build_cfg(&cfg, next);
	is_str(plugin_of(third, "alpha"), "renamed", "a renamed plugin");
	sfs_catalog_unref(third);
	sfs_catalog_unref(next);
	sfs_catalog_unref(cat);

	/* ~/.claude/plugins: only what installed_plugins.json names */
	char json[8192];
	snprintf(json, sizeof(json), "{\"version\": 2, \"plugins\": {"
	         "\"tools@mkt\": [{\"scope\": \"user\", \"installPath\": "
	         "\"%s\", \"version\": \"1.0.0\"}],\n"
	         "\"climb@mkt\": [{\"installPath\": \"%s\"}],\n"
	         "\"away@mkt\": [{\"installPath\": \"/elsewhere\"}]}}\n",
	         at("p/cache/mkt/tools/1.0.0"), at("p/cache/../../r"));
	write_file(at("p/installed_plugins.json"), json);
	write_file(at("p/known_marketplaces.json"), "{}\n");
	write_file(at("p/cache/mkt/tools/1.0.0/.claude-plugin/plugin.json"),
	           "{\"name\": \"tools\", \"version\": \"1.0.0\"}\n");
	skill(at("p/cache/mkt/tools/1.0.0/skills/current"), NULL, NULL);
	skill(at("p/cache/mkt/tools/0.9.0/skills/stale"), NULL, NULL);
	write_file(at("p/marketplaces/mkt/.claude-plugin/marketplace.json"),
	           "{\"name\": \"mkt\", \"plugins\": [{\"name\": \"other\", "
	           "\"source\": \"./other\"}]}\n");
	skill(at("p/marketplaces/mkt/other/skills/uninstalled"), NULL, NULL);
	cat = build(at("p"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	ok(sfs_catalog_nskills(cat) == 1, "plugins folder: only installed "
	   "plugins (got %zu)", sfs_catalog_nskills(cat));
	is_str(plugin_of(cat, "current"), "tools", "installed plugin");
	ok(count_diags(cat, SFS_WARNING, "p/installed_plugins.json",
	               "climb@mkt", "is not inside") == 1 &&
	   count_diags(cat, SFS_WARNING, "p/installed_plugins.json",
	               "away@mkt", "is not inside") == 1,
	   "install paths outside the plugins folder are named, not searched");
	sfs_catalog_unref(cat);

	/* A marketplace repository installed whole for each of its
	 * "strict": false plugins, as anthropics/skills is: each plugin has
	 * only the skills its marketplace entry lists. */
	clear_top();
	const char *mkt = "anthropic-agent-skills";
	snprintf(json, sizeof(json), "{\"version\": 2, \"plugins\": {"
	         "\"document-skills@%s\": [{\"installPath\": \"%s\"}],\n"
	         "\"example-skills@%s\": [{\"installPath\": \"%s\"}]}}\n",
	         mkt, at("p/cache/%s/document-skills/abc", mkt),
	         mkt, at("p/cache/%s/example-skills/abc", mkt));
	write_file(at("p/installed_plugins.json"), json);
	static const char market_json[] =
		"{\"name\": \"anthropic-agent-skills\", \"plugins\": [\n"
		" {\"name\": \"document-skills\", \"source\": \"./\", "
		"\"strict\": false, \"skills\": [\"./skills/xlsx\"]},\n"
		" {\"name\": \"example-skills\", \"source\": \"./\", "
		"\"strict\": false, \"skills\": [\"./skills/art\", "
		"\"./skills/gone\"]}]}\n";
	write_file(at("p/marketplaces/%s/.claude-plugin/marketplace.json", mkt),
	           market_json);
	static const char *const copies[] = { "document-skills",
	                                      "example-skills" };
	for (size_t i = 0; i < 2; i++) {
		write_file(at("p/cache/%s/%s/abc/.claude-plugin/marketplace.json",
		              mkt, copies[i]), market_json);
		skill(at("p/cache/%s/%s/abc/skills/xlsx", mkt, copies[i]), NULL,
		      NULL);
		skill(at("p/cache/%s/%s/abc/skills/art", mkt, copies[i]), NULL,
		      NULL);
	}
	cat = build(at("p"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	struct sfs_counts pc = sfs_catalog_counts(cat);
	ok(pc.served == 2 && pc.shadowed == 0, "each installed plugin has its "
	   "listed skills only: %zu served, %zu shadowed", pc.served,
	   pc.shadowed);
	is_str(plugin_of(cat, "xlsx"), "document-skills", "listed skill");
	is_str(plugin_of(cat, "art"), "example-skills", "another plugin's");
	sfs_catalog_unref(cat);

	/* A root without skills says where it looked. */
	mkdirs(at("e/sub/subsub"));
	cat = build(at("e"), NULL, false);
	ok(count_diags(cat, SFS_WARNING, "e", "", "no skill found: searched 3 "
	               "folders") == 1, "a root without skills is reported");
	sfs_catalog_unref(cat);
}

/* Roots root1 and root2 (in that order) serve the three skills once,
 * shadowing nothing, "installed" from dir. */
static void installed_once(const char *root1, const char *root2,
                           const char *dir, const char *what)
{
	sfs_catalog *cat = build(root1, root2, false);
	struct sfs_counts n = sfs_catalog_counts(cat);
	const struct sfs_skill *s = sfs_catalog_find(cat, "installed");

	ok(n.served == 3 && n.shadowed == 0 && s &&
	   strcmp(s->dir, at("%s", dir)) == 0, "%s", what);
	sfs_catalog_unref(cat);
}

/* The `skills` installer keeps a skill in .agents/skills and links it
 * from .claude/skills: with both as roots that is one skill folder, served
 * once and shadowing nothing. */
static void test_installer_links(void)
{
	fresh_skills("h/.agents/skills/installed",
	             "h/.agents/skills/only-agents", NULL);
	mkdirs(at("h/.claude/skills"));
	skill(at("h/.claude/skills/own"), NULL, NULL);
	if (symlink("../../.agents/skills/installed",
	            at("h/.claude/skills/installed")) < 0)
		die("symlink");
	sfs_catalog *cat = build(at("h/.agents/skills"), at("h/.claude/skills"),
	                         false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	struct sfs_counts n = sfs_catalog_counts(cat);
	const struct sfs_skill *s = sfs_catalog_find(cat, "installed");
	ok(n.served == 3 && n.shadowed == 0 && n.warnings == 0,
	   "an installer link is the same folder: %zu served, %zu shadowed, "
	   "%zu warnings", n.served, n.shadowed, n.warnings);
	ok(s && strcmp(s->dir, at("h/.agents/skills/installed")) == 0,
	   "served from the first root");
	sfs_catalog_unref(cat);
	/* the other way round, the link's root first */
	installed_once(at("h/.claude/skills"), at("h/.agents/skills"),
	               "h/.claude/skills/installed",
	               "the link's root first: served by its link");
	/* a root named through a symlink of its own */
	if (symlink(".agents/skills", at("h/agents-link")) < 0)
		die("symlink");
	installed_once(at("h/agents-link"), at("h/.claude/skills"),
	               "h/agents-link/installed",
	               "a root named through a symlink: still one folder");
}

static void test_limits(void)
{
	fresh_skills("r/a/b/c/d/deep", "r/shallow", NULL);
	write_file(at("r/shallow/a/b/c/d/f.txt"), "deep\n");
	for (int i = 0; i < 6; i++)
		write_file(at("r/big/f%d", i), "x");
	skill(at("r/big"), NULL, NULL);

	const char *roots[] = { at("r") };
	struct sfs_config cfg = {
		.roots = roots, .nroots = 1, .max_depth = 3, .max_files = 5,
	};
	sfs_catalog *cat = build_cfg(&cfg, NULL);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	ok(!sfs_catalog_find(cat, "deep") && sfs_catalog_find(cat, "shallow"),
	   "max_depth bounds the search");
	ok(count_diags(cat, SFS_WARNING, "r/a/b/c/d", "", "not searched") == 1,
	   "depth limit reported once");
	const struct sfs_skill *sh = sfs_catalog_find(cat, "shallow");
	ok(file_of(sh, "a/b/c") && !file_of(sh, "a/b/c/d") &&
	   count_diags(cat, SFS_WARNING, "r/shallow/a/b/c/d", "",
	               "too deep") == 1,
	   "max_depth bounds the folders inside a skill too");
	const struct sfs_skill *big = sfs_catalog_find(cat, "big");
	ok(big && big->nfiles == 5, "max_files caps a skill's entries (%zu)",
	   big ? big->nfiles : 0);
	ok(count_diags(cat, SFS_WARNING, "r/big", "", "more than 5") == 1,
	   "entry cap reported");
	sfs_catalog_unref(cat);

	cfg.max_depth = 0;
	cfg.max_files = 0;
	cfg.max_entries = 3;
	cat = build_cfg(&cfg, NULL);
	ok(count_diags(cat, SFS_WARNING, NULL, "", "search stopped") == 1,
	   "entry budget per root reported");
	sfs_catalog_unref(cat);
}

static void test_shadowing(void)
{
	fresh_skills("r1/pdf", "r2/pdf", "r2/x/same", "r2/a/same", NULL);
	skill(at("r1/bad/same"), NULL, "license: [unclosed\n");

	sfs_catalog *cat = build(at("r1"), at("r2"), false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	const struct sfs_skill *s = sfs_catalog_find(cat, "pdf");
	ok(s && strcmp(s->dir, at("r1/pdf")) == 0, "first root wins");
	const struct sfs_unserved *u = unserved_at(cat, at("r2/pdf"));
	ok(u && u->reason == SFS_SHADOWED && u->id &&
	   strcmp(u->id, "pdf") == 0 && u->root == 1 &&
	   strcmp(u->shadowed_by, at("r1/pdf")) == 0,
	   "later root shadowed, with the winner named");
	ok(count_diags(cat, SFS_WARNING, "r2/pdf/SKILL.md", "name",
	               "shadowed") == 1, "shadowing is a warning on name");
	s = sfs_catalog_find(cat, "same");
	ok(s && strcmp(s->dir, at("r2/a/same")) == 0,
	   "inside a root the first folder in path order wins; "
	   "an invalid skill claims no id");
	u = unserved_at(cat, at("r2/x/same"));
	ok(u && u->reason == SFS_SHADOWED, "later folder in a root shadowed");
	u = unserved_at(cat, at("r1/bad/same"));
	ok(u && u->reason == SFS_INVALID, "invalid skill reported as invalid");
	struct sfs_counts n = sfs_catalog_counts(cat);
	ok(n.served == 2 && n.shadowed == 2 && n.invalid == 1,
	   "counts: served %zu shadowed %zu invalid %zu", n.served,
	   n.shadowed, n.invalid);
	sfs_catalog_unref(cat);

	/* The same root twice is one set of folders, not self-shadowing. */
	cat = build(at("r1"), at("r1"), false);
	n = sfs_catalog_counts(cat);
	ok(n.shadowed == 0 && n.served == 1,
	   "a root given twice shadows nothing (shadowed %zu)", n.shadowed);
	sfs_catalog_unref(cat);

	cat = build(at("r1"), at("r2"), true);
	ok(count_diags(cat, SFS_ERROR, "r2/pdf/SKILL.md", "name",
	               "shadowed") == 1, "--strict: shadowing is an error");
	sfs_catalog_unref(cat);
}

static void test_tree(void)
{
	fresh_skills("r/s", NULL);
	write_file(at("r/s/real.txt"), "hello\n");
	write_file(at("r/s/sub/deep.txt"), "deep\n");
	write_file(at("r/s/.git/config"), "git\n");
	write_file(at("r/s/.env"), "dot file\n");
	write_file(at("outside.txt"), "secret\n");
	if (symlink("real.txt", at("r/s/good")) < 0 ||
	    symlink("../real.txt", at("r/s/sub/up")) < 0 ||
	    symlink("sub", at("r/s/dirlink")) < 0 ||
	    symlink("../../outside.txt", at("r/s/escape")) < 0 ||
	    symlink(at("r/s/real.txt"), at("r/s/absolute")) < 0 ||
	    symlink("nothing", at("r/s/dangling")) < 0 ||
	    symlink("../s/real.txt", at("r/s/roundabout")) < 0 ||
	    symlink("escape", at("r/s/chain")) < 0)
		die("symlink");
	if (mkfifo(at("r/s/fifo"), 0644) < 0)
		die("mkfifo");
	skill(at("r/lower"), "skill.md", NULL);

	sfs_catalog *cat = build(at("r"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	const struct sfs_skill *s = sfs_catalog_find(cat, "s");
	ok(s != NULL, "skill with odd entries still served");
	if (!s) {
		sfs_catalog_unref(cat);
		return;
	}
	const struct sfs_file *f = file_of(s, "good");
	ok(f && S_ISLNK(f->mode) && f->link && strcmp(f->link, "real.txt") == 0
	   && f->hashed && f->size == 6, "in-skill link kept with the "
	   "target's size and digest");
	const struct sfs_file *real = file_of(s, "real.txt");
	ok(real && f && memcmp(real->sha256, f->sha256, 32) == 0,
	   "link digest equals the target's");
	f = file_of(s, "sub/up");
	ok(f && S_ISLNK(f->mode) && f->hashed, "link up within the skill kept");
	f = file_of(s, "dirlink");
	ok(f && S_ISLNK(f->mode) && !f->hashed && strcmp(f->link, "sub") == 0,
	   "link to an in-skill folder kept, without digest");
	ok(!file_of(s, "escape") && count_diags(cat, SFS_WARNING, "r/s/escape",
	   "", "outside") == 1, "escaping link hidden with a warning");
	ok(!file_of(s, "absolute") && count_diags(cat, SFS_WARNING,
	   "r/s/absolute", "", "absolute") == 1,
	   "absolute link hidden with a warning");
	ok(!file_of(s, "dangling") && count_diags(cat, SFS_WARNING,
	   "r/s/dangling", "", "dangling") == 1,
	   "dangling link hidden with a warning");
	ok(!file_of(s, "roundabout") && !file_of(s, "chain"),
	   "links leaving the skill lexically or through another link hidden");
	ok(!file_of(s, "fifo") && count_diags(cat, SFS_WARNING, "r/s/fifo", "",
	   "FIFO") == 1, "FIFO hidden with a warning");
	ok(!file_of(s, ".git") && !file_of(s, ".git/config"),
	   "dot folders inside a skill are not served");
	ok(file_of(s, ".env") != NULL, "dot files inside a skill are served");

	bool sorted = true, parents = true;
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfs_file *e = &s->files[i];
		if (i && strcmp(s->files[i - 1].path, e->path) >= 0)
			sorted = false;
		const char *slash = strrchr(e->path, '/');
		if (!slash) {
			parents &= e->parent == -1;
			continue;
		}
		parents &= e->parent >= 0 &&
		           strncmp(s->files[e->parent].path, e->path,
		                   (size_t)(slash - e->path)) == 0 &&
		           S_ISDIR(s->files[e->parent].mode) &&
		           strcmp(e->name, slash + 1) == 0;
	}
	ok(sorted, "files sorted by path");
	ok(parents, "parent indexes point at the folders");
	ok(strcmp(s->files[s->skill_md].path, "SKILL.md") == 0 &&
	   s->files[s->skill_md].hashed, "SKILL.md indexed and hashed");
	f = file_of(s, "sub");
	ok(f && S_ISDIR(f->mode) && !f->hashed, "folders listed");

	const struct sfs_skill *l = sfs_catalog_find(cat, "lower");
	ok(l && strcmp(l->files[l->skill_md].path, "SKILL.md") == 0 &&
	   strcmp(l->files[l->skill_md].source, "skill.md") == 0,
	   "skill.md presented as SKILL.md, source kept");
	ok(count_diags(cat, SFS_WARNING, "r/lower/skill.md", NULL,
	               "skill.md") == 1, "skill.md spelling is a warning");
	sfs_catalog_unref(cat);

	cat = build(at("r"), NULL, true);
	ok(!sfs_catalog_find(cat, "lower") && !sfs_catalog_find(cat, "s"),
	   "--strict: skills with warnings are not served");
	ok(count_diags(cat, SFS_WARNING, NULL, NULL, NULL) == 0,
	   "--strict: no warnings left");
	sfs_catalog_unref(cat);
}

static void test_bad_skill_md(void)
{
	clear_top();
	mkdirs(at("r/isdir/SKILL.md"));
	mkdirs(at("r/fifo"));
	if (mkfifo(at("r/fifo/SKILL.md"), 0644) < 0)
		die("mkfifo");
	mkdirs(at("r/escapes"));
	skill(at("other"), NULL, NULL);
	if (symlink("../../other/SKILL.md", at("r/escapes/SKILL.md")) < 0)
		die("symlink");
	write_file(at("r/linked/real.md"),
	           "---\nname: linked\ndescription: Linked.\n---\nBody\n");
	if (symlink("real.md", at("r/linked/SKILL.md")) < 0)
		die("symlink");

	sfs_catalog *cat = build(at("r"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	const struct sfs_unserved *u = unserved_at(cat, at("r/isdir"));
	ok(u && u->reason == SFS_INVALID &&
	   count_diags(cat, SFS_ERROR, "r/isdir/SKILL.md", NULL, "folder") == 1,
	   "SKILL.md that is a folder: one error");
	u = unserved_at(cat, at("r/fifo"));
	ok(u && u->reason == SFS_INVALID &&
	   count_diags(cat, SFS_ERROR, "r/fifo/SKILL.md", NULL, "FIFO") == 1,
	   "SKILL.md that is a FIFO: one error, no hang");
	u = unserved_at(cat, at("r/escapes"));
	ok(u && u->reason == SFS_INVALID, "SKILL.md linking outside: invalid");
	const struct sfs_skill *s = sfs_catalog_find(cat, "linked");
	ok(s && S_ISLNK(s->files[s->skill_md].mode),
	   "SKILL.md as an in-skill link is served");
	sfs_catalog_unref(cat);
}

static void test_dependencies(void)
{
	fresh_skills("r/base", NULL);
#define DEPENDS_FM \
	"x-personal-mcp:\n  id: %s\n  version: 1.0.0\n" \
	"  capabilities:\n    - resource://skills/%s/document\n" \
	"  depends_on: [%s]\n"
	char extra[1024];
	const char *specs[][2] = {
		{ "user", "base" }, { "lost", "nowhere" }, { "ping", "pong" },
		{ "pong", "ping" }, { "self", "self" }, { "fan", "ping, base" },
	};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		snprintf(extra, sizeof(extra), DEPENDS_FM, specs[i][0], specs[i][0],
		         specs[i][1]);
		skill(at("r/%s", specs[i][0]), NULL, extra);
	}
	sfs_catalog *cat = build(at("r"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	ok(sfs_catalog_find(cat, "user") && sfs_catalog_find(cat, "base"),
	   "met dependency served");
	const struct sfs_skill *u = sfs_catalog_find(cat, "user");
	ok(u && u->ndepends_on == 1 && strcmp(u->depends_on[0], "base") == 0,
	   "depends_on kept");
	ok(!sfs_catalog_find(cat, "lost") &&
	   count_diags(cat, SFS_ERROR, "r/lost/SKILL.md",
	               "x-personal-mcp.depends_on", "nowhere") == 1,
	   "missing dependency is an error");
	ok(!sfs_catalog_find(cat, "ping") && !sfs_catalog_find(cat, "pong") &&
	   count_diags(cat, SFS_ERROR, "r/ping/SKILL.md",
	               "x-personal-mcp.depends_on", "cycle") == 1 &&
	   count_diags(cat, SFS_ERROR, "r/pong/SKILL.md",
	               "x-personal-mcp.depends_on", "cycle") == 1,
	   "a cycle invalidates each member");
	ok(!sfs_catalog_find(cat, "self") &&
	   count_diags(cat, SFS_ERROR, "r/self/SKILL.md", NULL, "cycle") == 1,
	   "self-dependency is a cycle");
	ok(!sfs_catalog_find(cat, "fan") &&
	   count_diags(cat, SFS_ERROR, "r/fan/SKILL.md", NULL, "ping") == 1,
	   "depending on an invalid skill is an error");
	sfs_catalog_unref(cat);
}

static void test_references(void)
{
	clear_top();
#define REFS_FM \
	"x-personal-mcp:\n  id: %s\n  version: 1.0.0\n" \
	"  capabilities:\n    - resource://skills/%s/document\n" \
	"  references:\n    guide:\n      path: references/guide.md\n" \
	"      title: The guide\n"
	char buf[1024];
	snprintf(buf, sizeof(buf), REFS_FM, "good", "good");
	skill(at("r/good"), NULL, buf);
	write_file(at("r/good/references/guide.md"), "# Guide\n");
	snprintf(buf, sizeof(buf), REFS_FM, "bad", "bad");
	skill(at("r/bad"), NULL, buf);
	snprintf(buf, sizeof(buf), REFS_FM, "folder", "folder");
	skill(at("r/folder"), NULL, buf);
	mkdirs(at("r/folder/references/guide.md"));

	sfs_catalog *cat = build(at("r"), NULL, false);
	sfs_catalog_each_diag(cat, print_diag, NULL);
	const struct sfs_skill *s = sfs_catalog_find(cat, "good");
	ok(s && s->nrefs == 1 && strcmp(s->refs[0].id, "guide") == 0 &&
	   strcmp(s->refs[0].path, "references/guide.md") == 0,
	   "existing reference served");
	ok(!sfs_catalog_find(cat, "bad") &&
	   count_diags(cat, SFS_ERROR, "r/bad/SKILL.md",
	               "x-personal-mcp.references.guide.path",
	               "does not exist") == 1,
	   "missing reference is an error on its path field");
	ok(!sfs_catalog_find(cat, "folder") &&
	   count_diags(cat, SFS_ERROR, "r/folder/SKILL.md",
	               "x-personal-mcp.references.guide.path",
	               "not a regular file") == 1,
	   "reference that is a folder is an error");
	sfs_catalog_unref(cat);
}

static char *render_all(const sfs_catalog *cat)
{
	struct sfs_status_info info = {
		.generation = 1, .refresh_mode = "polling",
	};
	char *parts[4] = {
		sfs_render_index(cat), sfs_render_skills_index(cat),
		sfs_render_status(cat, &info), sfs_render_findings(cat),
	};
	size_t len = 1;
	for (int i = 0; i < 4; i++)
		len += parts[i] ? strlen(parts[i]) : 0;
	char *all = calloc(1, len);
	for (int i = 0; i < 4; i++) {
		if (all && parts[i])
			strcat(all, parts[i]);
		free(parts[i]);
	}
	return all;
}

static void test_determinism(void)
{
	clear_top();
	for (int i = 0; i < 20; i++) {
		skill(at("r/cat%d/skill-%02d", i % 3, i), NULL, NULL);
		write_file(at("r/cat%d/skill-%02d/data/%d.txt", i % 3, i, i),
		           "data\n");
	}
	skill(at("r/warn"), "skill.md", NULL);
	sfs_catalog *a = build(at("r"), at("nope"), false);
	sfs_catalog *b = build(at("r"), at("nope"), false);
	char *ra = render_all(a), *rb = render_all(b);
	ok(ra && rb && strcmp(ra, rb) == 0, "two builds render the same bytes");
	char *idx = sfs_render_index(a);
	ok(idx && strstr(idx, "\n{\"uri\":\"skill://skill-00/SKILL.md\","
	                 "\"frontmatter\":{\"name\":\"skill-00\","),
	   "index entry carries the frontmatter members");
	free(idx);
	char *ra2 = render_all(a);
	ok(ra && ra2 && strcmp(ra, ra2) == 0, "rendering twice is stable");
	for (size_t i = 0; i < sfs_catalog_nskills(a); i++) {
		char *x = sfs_render_skill_record(a, sfs_catalog_skill(a, i));
		char *y = sfs_render_skill_record(b, sfs_catalog_skill(b, i));
		if (!x || !y || strcmp(x, y) != 0)
			ok(false, "record %zu differs", i);
		free(x);
		free(y);
	}
	free(ra);
	free(rb);
	free(ra2);
	sfs_catalog_unref(a);
	sfs_catalog_unref(b);

	clear_top();
	a = build(at("r"), NULL, false);
	idx = sfs_render_index(a);
	char *si = sfs_render_skills_index(a);
	ok(idx && strcmp(idx, "{\"skills\":[\n]}\n") == 0 &&
	   si && strcmp(si, "{\"skills\":[\n]}\n") == 0,
	   "empty catalog renders the empty layout");
	free(idx);
	free(si);
	sfs_catalog_unref(a);
}

static void test_digest_reuse(void)
{
	enum { N = 10000 };
	clear_top();
	for (int i = 0; i < N; i++) {
		char dir[64];
		snprintf(dir, sizeof(dir), "r/c%02d/s%05d", i % 100, i);
		skill(at("%s", dir), NULL, NULL);
	}
	write_file(at("r/c00/s00000/notes.txt"), "first\n");
	write_file(at("r/c01/s00001/notes.txt"), "same size\n");

	sfs_catalog *first = build(at("r"), NULL, false);
	ok(sfs_catalog_nskills(first) == N, "%d skills served", N);
	ok(sfs_catalog_hashed(first) == N + 2, "first build hashes every file "
	   "(%zu)", sfs_catalog_hashed(first));

	write_file(at("r/c00/s00000/notes.txt"), "second, longer\n");
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *second = build_cfg(&cfg, first);
	ok(sfs_catalog_hashed(second) == 1,
	   "rebuild after one edit hashes one file (%zu)",
	   sfs_catalog_hashed(second));
	const struct sfs_file *a =
		file_of(sfs_catalog_find(first, "s00000"), "notes.txt");
	const struct sfs_file *b =
		file_of(sfs_catalog_find(second, "s00000"), "notes.txt");
	ok(a && b && memcmp(a->sha256, b->sha256, 32) != 0 && b->size == 15,
	   "the edited file has its new digest");
	a = file_of(sfs_catalog_find(first, "s00001"), "notes.txt");
	b = file_of(sfs_catalog_find(second, "s00001"), "notes.txt");
	ok(a && b && memcmp(a->sha256, b->sha256, 32) == 0,
	   "an unchanged file keeps its digest");

	uint8_t before[32] = { 0 };
	if (b)
		memcpy(before, b->sha256, sizeof(before));
	/* Same size, new content, new mtime: hashed again. */
	write_file(at("r/c01/s00001/notes.txt"), "SAME SIZE\n");
	struct timeval later[2] = { { 2000000000, 0 }, { 2000000000, 0 } };
	if (utimes(at("r/c01/s00001/notes.txt"), later) < 0)
		die("utimes");
	sfs_catalog_unref(first);
	sfs_catalog *third = build_cfg(&cfg, second);
	ok(sfs_catalog_hashed(third) == 1, "same-size edit hashed (%zu)",
	   sfs_catalog_hashed(third));
	b = file_of(sfs_catalog_find(third, "s00001"), "notes.txt");
	ok(b && memcmp(before, b->sha256, 32) != 0,
	   "same-size edit has its new digest");
	sfs_catalog_unref(second);
	sfs_catalog_unref(third);
}

static void test_refcount(void)
{
	fresh_skills("r/one", NULL);
	sfs_catalog *cat = build(at("r"), NULL, false);
	ok(sfs_catalog_ref(cat) == cat, "ref returns the catalog");
	sfs_catalog_unref(cat);
	ok(sfs_catalog_find(cat, "one") != NULL, "still readable after one "
	   "of two references is dropped");
	ok(sfs_catalog_find(cat, "two") == NULL && !sfs_catalog_find(cat, ""),
	   "unknown ids not found");
	sfs_catalog_unref(cat);
	sfs_catalog_unref(NULL);
}

static void *ref_and_read(void *arg)
{
	sfs_catalog *cat = arg;
	size_t found = 0;
	for (int i = 0; i < 20000; i++) {
		sfs_catalog *mine = sfs_catalog_ref(cat);
		found += sfs_catalog_find(mine, "one") != NULL;
		sfs_catalog_unref(mine);
	}
	return (void *)found;
}

/* References taken and dropped from several threads at once, as the FUSE
 * daemon does; the sanitizers watch the final free. */
static void test_refcount_threads(void)
{
	enum { THREADS = 8 };
	pthread_t th[THREADS];
	fresh_skills("r/one", NULL);
	sfs_catalog *cat = build(at("r"), NULL, false);
	size_t total = 0;
	int started = 0;
	for (; started < THREADS; started++)
		if (pthread_create(&th[started], NULL, ref_and_read, cat) != 0)
			break;
	for (int i = 0; i < started; i++) {
		void *found;
		pthread_join(th[i], &found);
		total += (size_t)found;
	}
	ok(started == THREADS && total == (size_t)THREADS * 20000,
	   "references shared across threads (%zu reads)", total);
	sfs_catalog_unref(cat);
}

/* ---- before_listing ---------------------------------------------------- */

struct told {
	pthread_mutex_t lock;   /* the build's threads call at once */
	char paths[64][4096];
	size_t n;
};

/* Plays a watcher that is told of a folder and, at once, sees a file
 * appear in it: only a listing made after the call finds that file. */
static void on_listing(const char *path, void *arg)
{
	struct told *t = arg;
	char late[4096];

	pthread_mutex_lock(&t->lock);
	if (t->n < 64)
		snprintf(t->paths[t->n++], sizeof(t->paths[0]), "%s", path);
	pthread_mutex_unlock(&t->lock);
	snprintf(late, sizeof(late), "%s/late.md", path);
	write_file(late, "# Written once the folder was announced\n");
}

static bool was_told(struct told *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->paths[i], path) == 0)
			return true;
	return false;
}

/* sfs_config.shared_only: the documents every user may read leave out
 * the skill whose SKILL.md not every user could read from the source. */
static void test_shared_only(void)
{
	clear_top();
	chmod(top, 0755);
	char root[4096];
	snprintf(root, sizeof(root), "%s", at("r"));
	mkdirs(at("r/open"));
	mkdirs(at("r/secret"));
	skill(at("r/open"), NULL, NULL);
	skill(at("r/secret"), NULL, NULL);
	chmod(at("r/secret/SKILL.md"), 0600);
	chmod(at("r/secret"), 0700);

	const char *roots[] = { root };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .shared_only = true };
	sfs_catalog *cat = build_cfg(&cfg, NULL);
	ok(sfs_catalog_nskills(cat) == 2, "both skills are in the catalog");
	ok(sfs_catalog_private(cat, at("r/secret")) &&
	   !sfs_catalog_private(cat, at("r/open")) &&
	   sfs_catalog_nprivate(cat) == 1, "only the 0600 one is private");
	char *index = sfs_render_index(cat);
	char *names = sfs_render_skills_index(cat);
	struct sfs_status_info info = { .refresh_mode = "inotify" };
	char *status = sfs_render_status(cat, &info);
	ok(index && strstr(index, "The open skill") &&
	   !strstr(index, "The secret skill"), "index.json leaves it out");
	ok(names && strstr(names, "The open skill") &&
	   !strstr(names, "The secret skill"),
	   "skills_index.json leaves it out");
	ok(status && strstr(status, "\"private\"") &&
	   strstr(status, at("r/secret")) &&
	   !strstr(status, "The secret skill"),
	   "status.json names its folder only");
	free(index);
	free(names);
	free(status);
	sfs_catalog_unref(cat);

	cfg.shared_only = false;
	cat = build_cfg(&cfg, NULL);
	index = sfs_render_index(cat);
	ok(!sfs_catalog_private(cat, at("r/secret")) && index &&
	   strstr(index, "The secret skill"),
	   "without shared_only every skill is shared");
	free(index);
	sfs_catalog_unref(cat);
	chmod(at("r/secret"), 0755);
}

static void test_before_listing(void)
{
	fresh_skills("r/cat/one", NULL);
	write_file(at("r/cat/one/references/a.md"), "# A\n");
	skill(at("r/two"), NULL, NULL);
	struct told t = { .lock = PTHREAD_MUTEX_INITIALIZER };
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1, .threads = 2,
	                          .before_listing = on_listing,
	                          .before_listing_arg = &t };
	sfs_catalog *cat = build_cfg(&cfg, NULL);

	size_t n, missed = 0;
	const char *const *dirs = sfs_catalog_dirs(cat, &n);
	for (size_t i = 0; i < n; i++)
		missed += !was_told(&t, dirs[i]);
	ok(n == 5 && missed == 0, "every folder read is announced (%zu of "
	   "%zu)", n - missed, n);
	const struct sfs_skill *one = sfs_catalog_find(cat, "one");
	const struct sfs_skill *two = sfs_catalog_find(cat, "two");
	ok(one && file_of(one, "late.md") && file_of(one, "references/late.md")
	   && two && file_of(two, "late.md"),
	   "announced before it is listed: a file made then is found");
	sfs_catalog_unref(cat);
}

/* The whole file at path (malloc, NUL-ended), *len bytes; NULL when it
 * cannot be read. */
static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 16);
	size_t n = f && buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;

	if (f)
		fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* What sfs_config.hashed was given: each file's path and whether its bytes
 * were the file's content as written (the digest's). */
struct offered {
	pthread_mutex_t lock;
	const char *big;        /* the content of big.txt */
	size_t n, right;
	bool skill_md, notes, big_seen;
};

static void on_kept(void *arg, const struct sfs_file *f,
                    const unsigned char *bytes)
{
	struct offered *o = arg;
	char *want = NULL;
	size_t len = 0;

	pthread_mutex_lock(&o->lock);
	o->n++;
	if (strcmp(f->path, "SKILL.md") == 0) {
		o->skill_md = true;
		want = read_text(at("r/k/SKILL.md"), &len);
	} else if (strcmp(f->path, "notes.txt") == 0) {
		o->notes = true;
		want = read_text(at("r/k/notes.txt"), &len);
	} else if (strcmp(f->path, "big.txt") == 0) {
		o->big_seen = true;
		want = strdup(o->big);
		len = strlen(o->big);
	}
	o->right += want && f->size == (off_t)len &&
	            memcmp(bytes, want, len) == 0 && bytes[len] == '\0';
	pthread_mutex_unlock(&o->lock);
	free(want);
}

/* sfs_config.hashed: the bytes read to hash a file, for the daemon's copies
 * (issue 28), within keep_file_max; a rebuild offers only what it hashed
 * again. */
static void test_kept(void)
{
	fresh_skills("r/k", NULL);
	write_file(at("r/k/notes.txt"), "notes, first\n");
	size_t big_len = (3u << 20) / 2;   /* past the 1 MiB default */
	char *big = malloc(big_len + 1);
	if (!big)
		die("malloc");
	for (size_t i = 0; i < big_len; i++)
		big[i] = (char)('a' + i % 26);
	big[big_len] = '\0';
	write_file(at("r/k/big.txt"), big);

	struct offered o = { .lock = PTHREAD_MUTEX_INITIALIZER, .big = big };
	const char *roots[] = { at("r") };
	struct sfs_config cfg = { .roots = roots, .nroots = 1,
	                          .hashed = on_kept, .hashed_arg = &o,
	                          .keep_file_max = 2u << 20 };
	sfs_catalog *first = build_cfg(&cfg, NULL);
	ok(o.n == 3 && o.right == 3 && o.skill_md && o.notes && o.big_seen,
	   "every file hashed is offered with the bytes hashed (%zu, %zu "
	   "right)", o.n, o.right);

	struct offered d = { .lock = PTHREAD_MUTEX_INITIALIZER, .big = big };
	cfg.hashed_arg = &d;
	cfg.keep_file_max = 0;
	sfs_catalog *plain = build_cfg(&cfg, NULL);
	ok(d.n == 2 && d.right == 2 && !d.big_seen,
	   "a file past keep_file_max (1 MiB by default) is not (%zu)", d.n);
	sfs_catalog_unref(plain);

	write_file(at("r/k/notes.txt"), "notes, second\n");
	struct timeval later[2] = { { 2000000000, 0 }, { 2000000000, 0 } };
	if (utimes(at("r/k/notes.txt"), later) < 0)
		die("utimes");
	struct offered e = { .lock = PTHREAD_MUTEX_INITIALIZER, .big = big };
	cfg.hashed_arg = &e;
	cfg.keep_file_max = 2u << 20;
	sfs_catalog *second = build_cfg(&cfg, first);
	ok(e.n == 1 && e.right == 1 && e.notes,
	   "a rebuild offers the edited file only, with its new bytes (%zu)",
	   e.n);
	sfs_catalog_unref(first);
	sfs_catalog_unref(second);
	free(big);
}

int main(void)
{
	fixture_start("test_catalog");
	test_discovery();
	test_plugins();
	test_installer_links();
	test_limits();
	test_shadowing();
	test_tree();
	test_bad_skill_md();
	test_dependencies();
	test_references();
	test_determinism();
	test_digest_reuse();
	test_refcount();
	test_refcount_threads();
	test_before_listing();
	test_shared_only();
	test_kept();
	return tap_end();
}
