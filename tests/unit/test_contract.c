/*
 * test_contract.c - the mount contract (shared/contract.h) read back from
 * what the library writes: every entry of index.json and
 * skills_index.json, as render.c prints them, must give the contract's
 * readers the skill's id, plugin and invocation flags, over skills whose
 * strings need escapes, whose files have non-ASCII names, that belong to
 * a plugin or turn invocation off.  Also the URI builders against the
 * parser, and entries whose keys come in another order.
 *
 * Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract.h"
#include "skillsfs.h"

static int tests, failures;
static char top[] = "/tmp/test_contract.XXXXXX";

/* One TAP line; name may be built by the caller (see named). */
static void ok(bool cond, const char *name)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++tests, name);
	failures += !cond;
}

/* "<id>: <what>", for ok(). */
static const char *named(const char *id, const char *what)
{
	static char name[256];

	snprintf(name, sizeof(name), "%s: %s", id, what);
	return name;
}

static void die(const char *what)
{
	fprintf(stdout, "Bail out! %s (%s)\n", what, strerror(errno));
	exit(1);
}

/* Writes text to top/rel, making its folders. */
static void write_file(const char *rel, const char *text)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (char *p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die(path);
		*p = '/';
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t len = (ssize_t)strlen(text);
	if (fd < 0 || write(fd, text, (size_t)len) != len || close(fd) < 0)
		die(path);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

/* What a reader of the documents should find for a skill. */
struct want {
	const char *id;
	const char *plugin;   /* NULL: none */
	bool model, user;
	bool found_index, found_skills;
};

static struct want wants[] = {
	{ "escapes", NULL, true, true, false, false },
	{ "hidden", NULL, false, true, false, false },
	{ "manual", NULL, true, false, false, false },
	{ "plugged", "my-plugin", true, true, false, false },
};

static struct want *want_of(const char *id)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(*wants); i++)
		if (strcmp(wants[i].id, id) == 0)
			return &wants[i];
	return NULL;
}

/* Each line of doc through the contract's readers. */
static void read_doc(const char *doc, bool skills_index)
{
	const char *p = doc;

	ok(strncmp(doc, SFS_LINES_HEAD, strlen(SFS_LINES_HEAD)) == 0 &&
	   strcmp(doc + strlen(doc) - strlen(SFS_LINES_TAIL),
	          SFS_LINES_TAIL) == 0,
	   named(skills_index ? "skills_index.json" : "index.json",
	         "head and tail"));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), elen;
		char id[80], plugin[256];
		if (sfs_lines_entry(p, len, &elen)) {
			bool got = skills_index
				? sfs_skills_index_entry_id(p, elen, id, sizeof(id))
				: sfs_index_entry_id(p, elen, id, sizeof(id));
			struct want *w = got ? want_of(id) : NULL;
			ok(w != NULL, named(got ? id : "?", "read back"));
			if (w && skills_index) {
				bool has = sfs_skills_index_entry_plugin(
					p, elen, plugin, sizeof(plugin));
				ok(w->plugin ? has && !strcmp(plugin, w->plugin)
				             : !has, named(id, "plugin"));
				w->found_skills = true;
			} else if (w) {
				struct sfs_invocable inv =
					sfs_index_entry_invocable(p, elen);
				ok(inv.model == w->model && inv.user == w->user,
				   named(id, "invocation flags"));
				w->found_index = true;
			}
		}
		p += len + (nl ? 1 : 0);
	}
}

static void test_round_trip(void)
{
	write_file("r/escapes/SKILL.md",
	           "---\nname: escapes\n"
	           "description: \"Quotes \\\" and backslashes \\\\, a tab\\t,"
	           " \\u00e9t\\u00e9 and \\U0001F600; plugin: no\"\n"
	           "x-note: '\"plugin\": \"fake\", \"user-invocable\": 1'\n"
	           "---\n# Body\n");
	write_file("r/escapes/na\"me.txt", "quoted\n");
	write_file("r/escapes/\xc3\xa9t\xc3\xa9/caf\xc3\xa9 %20.md", "utf-8\n");
	write_file("r/hidden/SKILL.md", "---\nname: hidden\ndescription: "
	           "No model.\ndisable-model-invocation: true\n---\n");
	write_file("r/manual/SKILL.md", "---\nname: manual\ndescription: "
	           "No user.\nuser-invocable: false\n---\n");
	write_file("r/my-plugin/.claude-plugin/plugin.json",
	           "{\"name\": \"my-plugin\"}\n");
	write_file("r/my-plugin/skills/plugged/SKILL.md",
	           "---\nname: plugged\ndescription: In a plugin.\n---\n");

	char root[512];
	snprintf(root, sizeof(root), "%s/r", top);
	const char *roots[] = { root };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = NULL;
	if (sfs_catalog_build(&cfg, NULL, &cat) < 0)
		die("sfs_catalog_build");
	char *index = sfs_render_index(cat);
	char *skills = sfs_render_skills_index(cat);
	ok(index && skills, "rendered");
	if (index)
		read_doc(index, false);
	if (skills)
		read_doc(skills, true);
	for (size_t i = 0; i < sizeof(wants) / sizeof(*wants); i++)
		ok(wants[i].found_index && wants[i].found_skills,
		   named(wants[i].id, "in both documents"));
	free(index);
	free(skills);
	sfs_catalog_unref(cat);
}

/* Entries written by hand in another key order: read by parsing. */
static void test_key_order(void)
{
	static const char skills_line[] =
		"{\"name\":\"x\",\"plugin\":\"p-1\",\"id\":\"other-order\"}";
	static const char index_line[] =
		"{\"frontmatter\":{\"user-invocable\":false},"
		"\"uri\":\"skill://other-order/SKILL.md\"}";
	char id[80], plugin[64];

	ok(sfs_skills_index_entry_id(skills_line, strlen(skills_line), id,
	                             sizeof(id)) && !strcmp(id, "other-order"),
	   "skills_index entry in another order: id");
	ok(sfs_skills_index_entry_plugin(skills_line, strlen(skills_line),
	                                 plugin, sizeof(plugin)) &&
	   !strcmp(plugin, "p-1"), "skills_index entry in another order: plugin");
	ok(sfs_index_entry_id(index_line, strlen(index_line), id, sizeof(id)) &&
	   !strcmp(id, "other-order"), "index entry in another order: id");
	struct sfs_invocable inv =
		sfs_index_entry_invocable(index_line, strlen(index_line));
	ok(inv.model && !inv.user, "index entry in another order: flags");
	ok(!sfs_index_entry_id("{\"uri\":\"skill://Bad/SKILL.md\"}", 30, id,
	                       sizeof(id)), "an invalid id is refused");
}

/* uri (malloc'd, freed here) parses as kind, with id and path. */
static void parses(char *uri, enum sfs_uri_kind kind, const char *id,
                   const char *path)
{
	struct sfs_uri u;

	sfs_uri_parse(uri ? uri : "", &u);
	ok(u.kind == kind && !strcmp(u.id, id) &&
	   !strcmp(u.path ? u.path : "", path), named(uri ? uri : "?", "parsed"));
	sfs_uri_free(&u);
	free(uri);
}

/* Each builder's URI parses back to what it was built from. */
static void test_uris(void)
{
	static const char name[] = "d\xc3\xa9j\xc3\xa0 vu/a%b.md";
	char *s = sfs_uri_skill("pdf", name);

	ok(s && !strcmp(s, "skill://pdf/d%C3%A9j%C3%A0%20vu/a%25b.md"),
	   "a skill URI is percent-encoded");
	parses(s, SFS_URI_SKILL_PATH, "pdf", name);
	parses(sfs_uri_document("pdf"), SFS_URI_DOCUMENT, "pdf", "");
	parses(sfs_uri_reference("pdf", "forms"), SFS_URI_REFERENCE, "pdf",
	       "forms");
	parses(sfs_uri_record("pdf"), SFS_URI_CATALOG_SKILL, "pdf", "");
	parses(sfs_uri_doc("guide/intro.md"), SFS_URI_DOC, "",
	       "guide/intro.md");
	parses(strdup(SFS_URI_SKILLS_INDEX), SFS_URI_CATALOG_INDEX, "", "");
	parses(strdup("skill://pdf/a/%2F/b"), SFS_URI_INVALID, "pdf", "");

	struct sfs_uri u;
	sfs_uri_parse("resource://skills/pl-1:pdf/document", &u);
	ok(u.kind == SFS_URI_DOCUMENT && !strcmp(u.plugin, "pl-1"),
	   "a plugin's skill");
	sfs_uri_free(&u);

	s = sfs_mount_record("/m", "pdf");
	ok(s && !strcmp(s, "/m/catalog/pdf.json"), "the record's path");
	free(s);
	s = sfs_mount_path("/m", SFS_MOUNT_SKILLS_INDEX);
	ok(s && !strcmp(s, "/m/catalog/skills_index.json"),
	   "skills_index.json's path");
	free(s);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(top))
		die("mkdtemp");
	test_round_trip();
	test_key_order();
	test_uris();
	nftw(top, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
