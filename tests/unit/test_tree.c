/*
 * test_tree.c - a generation (fs/tree.c) laid out from a catalog, and
 * what changed between two of them (fs/diff.c), both pure: the mount's
 * fixed entries, each skill's files with their sizes, lookups by name and
 * by inode number, inode numbers kept for what did not change, and the
 * order in which changes are reported (content, then the indexes that
 * list it, status.json last).  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract.h"
#include "diff.h"
#include "fixture.h"
#include "tree.h"

static uint64_t next_ino = 2;

static struct gen *build(const char *root, const struct gen *prev,
                         uint64_t number)
{
	const char *roots[1] = { root };
	struct sfs_config cfg = { .roots = roots, .nroots = 1 };
	sfs_catalog *cat = build_catalog(&cfg, prev ? prev->cat : NULL);
	struct gen_params p = {
		.number = number,
		.refresh_mode = "static",
		.uid = getuid(),
		.gid = getgid(),
		.next_ino = &next_ino,
		.mountpoint = "/mnt/skills",
	};
	clock_gettime(CLOCK_REALTIME, &p.now);
	struct gen *g = gen_build(cat, prev, &p);
	sfs_catalog_unref(cat);
	if (!g)
		die("gen_build");
	return g;
}

static const struct node *path(const struct gen *g, const char *a,
                               const char *b, const char *c)
{
	const struct node *n = &g->nodes[0];
	const char *parts[3] = { a, b, c };

	for (int i = 0; i < 3 && n && parts[i]; i++)
		n = gen_child(g, n, parts[i]);
	return n;
}

static off_t size_on_disk(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? st.st_size : -1;
}

static void fixed_entries(const struct gen *g)
{
#define CHECK_TOP(e, name, path_, always, dir)                              \
	if (strchr(path_, '/') == NULL &&                                   \
	    SFS_MOUNT_##e != SFS_MOUNT_DOCS) {                              \
		const struct node *n = path(g, name, NULL, NULL);           \
		ok(n && node_is_dir(n) == (dir), "/%s is there, %s", name,  \
		   (dir) ? "a folder" : "a file");                          \
	}
	SFS_MOUNT_TABLE(CHECK_TOP)
#undef CHECK_TOP
	ok(!path(g, "docs", NULL, NULL), "no docs/ without a docs folder");
	ok(path(g, "catalog", "skills_index.json", NULL) != NULL,
	   "catalog/skills_index.json is there");
}

static void skill_files(const struct gen *g)
{
	const struct node *skills = path(g, "skills", NULL, NULL);
	const struct node *md = path(g, "skills", "alpha", "SKILL.md");
	const struct node *run = path(g, "skills", "alpha", "run.sh");

	ok(skills && skills->nkids == 2, "skills/ lists the two skills");
	ok(skills && skills->nkids == 2 &&
	   strcmp(g->nodes[skills->first].name, "alpha") == 0 &&
	   strcmp(g->nodes[skills->first + 1].name, "beta") == 0,
	   "skills/ lists them by name");
	ok(md && !node_is_dir(md) &&
	   gen_size(g, md) == size_on_disk(at("r/alpha/SKILL.md")),
	   "skills/alpha/SKILL.md has the size of its source");
	ok(run && gen_size(g, run) == size_on_disk(at("r/alpha/run.sh")),
	   "skills/alpha/run.sh has the size of its source");
	ok(!path(g, "skills", "alpha", "missing"), "a missing name is NULL");
	ok(gen_child_nocase(g, skills, "ALPHA") ==
	   path(g, "skills", "alpha", NULL), "a lookup may ignore case");
}

static void lookups_by_ino(const struct gen *g)
{
	uint32_t found = 0, links = 0;

	/* an entry of views/<view>/ is a hard link of its entry in skills/:
	 * its inode number finds that one */
	for (uint32_t i = 0; i < g->nnodes; i++) {
		const struct node *n = &g->nodes[i], *by_ino = gen_node(g, n->ino);
		links += n->in_view && by_ino != n && by_ino &&
		         by_ino->ino == n->ino && !by_ino->in_view;
		found += by_ino == n;
	}
	ok(found + links == g->nnodes && links > 0,
	   "every node is found by its inode (%u, and %u links in views/, "
	   "of %u)", found, links, g->nnodes);
	ok(!gen_node(g, next_ino + 1000), "an unknown inode is NULL");
}

/* ---- diff ---------------------------------------------------------------- */

struct seen {
	char names[64][64];
	int n;
	int folders;
};

static void on_entry(void *arg, uint64_t parent, const char *name)
{
	struct seen *s = arg;
	(void)parent;
	if (s->n < 64)
		snprintf(s->names[s->n++], sizeof(s->names[0]), "%s", name);
}

static void on_folder(void *arg, uint64_t ino)
{
	(void)ino;
	((struct seen *)arg)->folders++;
}

static int position(const struct seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return i;
	return -1;
}

static struct seen changes(const struct gen *old, const struct gen *new)
{
	struct seen s = { 0 };
	struct diff_ops ops = { on_entry, on_folder, &s };
	gen_diff(old, new, &ops);
	return s;
}

static void edit_and_diff(struct gen *g1)
{
	const struct node *a1 = path(g1, "skills", "alpha", "SKILL.md");
	uint64_t alpha_md = a1->ino;
	uint64_t beta_md = path(g1, "skills", "beta", "SKILL.md")->ino;

	write_skill(at("r/beta"), NULL, "version: \"2\"\n", "Changed.\n");
	struct gen *g2 = build(at("r"), g1, 2);
	ok(path(g2, "skills", "alpha", "SKILL.md")->ino == alpha_md,
	   "an unchanged file keeps its inode number");
	ok(path(g2, "skills", "beta", "SKILL.md")->ino != beta_md,
	   "a changed file gets a new one");

	struct seen s = changes(g1, g2);
	int md = position(&s, "SKILL.md"), index = position(&s, "index.json"),
	    status = position(&s, "status.json");
	ok(md >= 0 && index > md, "the changed SKILL.md comes before index.json");
	ok(status == s.n - 1, "status.json comes last (%d of %d)", status,
	   s.n);
	ok(position(&s, "run.sh") < 0, "an unchanged file is not reported");

	mkdirs(at("r/gamma"));
	write_skill(at("r/gamma"), NULL, NULL, "New.\n");
	struct gen *g3 = build(at("r"), g2, 3);
	s = changes(g2, g3);
	ok(position(&s, "gamma") >= 0 && position(&s, "gamma") <
	   position(&s, "index.json"), "a new skill is reported before the index");
	ok(s.folders > 0, "the folders that list it are reported");

	s = changes(g3, g3);
	ok(s.n == 0 && s.folders == 0, "a generation against itself: nothing");
	gen_unref(g2);
	gen_unref(g3);
}

int main(void)
{
	fixture_start("test_tree");
	write_skill(at("r/alpha"), NULL, NULL, "Alpha.\n");
	write_file(at("r/alpha/run.sh"), "#!/bin/sh\necho hi\n");
	write_skill(at("r/beta"), NULL, NULL, "Beta.\n");

	struct gen *g1 = build(at("r"), NULL, 1);
	fixed_entries(g1);
	skill_files(g1);
	lookups_by_ino(g1);
	edit_and_diff(g1);
	gen_unref(g1);
	return tap_end();
}
