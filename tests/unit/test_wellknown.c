/*
 * test_wellknown.c - a website's skills index (shared/wellknown/index.c):
 * the RFC's worked example of a skill digest, a v0.2.0 index read whole,
 * each rule that leaves one skill out while the others are kept, a v0.1
 * index read with its warning, and documents refused whole.  Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "index.h"
#include "skillsfs.h"

static void digest_of(const char *text, char out[SFS_DIGEST_LEN])
{
	uint8_t sum[32];
	sfs_sha256(text, strlen(text), sum);
	sfs_format_digest(sum, out);
}

/* The RFC: SKILL.md "# Hello\n" and scripts/run.sh "#!/bin/sh\n". */
static void worked_example(void)
{
	struct sfs_wk_file f[2] = { { .path = "scripts/run.sh" },
	                            { .path = "SKILL.md" } };
	uint8_t d[32];
	char text[SFS_DIGEST_LEN];

	sfs_sha256("#!/bin/sh\n", 10, f[0].sha256);
	sfs_sha256("# Hello\n", 8, f[1].sha256);
	sfs_wk_skill_digest(f, 2, d);
	sfs_format_digest(d, text);
	ok(strcmp(text, "sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544"
	                "105c4185a7c4ab12eb1e") == 0,
	   "the RFC's worked example, files given unsorted: %s", text);
}

/* An index of skills named in names, each with SKILL.md and run.sh,
 * `mangle` applied to the text of the one named `bad`. */
static char *index_text(const char *const *names, size_t n)
{
	char md[SFS_DIGEST_LEN], run[SFS_DIGEST_LEN], skill[SFS_DIGEST_LEN];
	struct sfs_wk_file f[2] = { { .path = "SKILL.md" },
	                            { .path = "scripts/run.sh" } };
	uint8_t d[32];
	char *out = malloc(65536), *p = out;

	digest_of("# Hello\n", md);
	digest_of("#!/bin/sh\n", run);
	sfs_parse_digest(md, f[0].sha256);
	sfs_parse_digest(run, f[1].sha256);
	sfs_wk_skill_digest(f, 2, d);
	sfs_format_digest(d, skill);
	p += sprintf(p, "{\"version\":\"0.2.0\",\"skills\":[");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s{\"name\":\"%s\",\"description\":\"d\","
		             "\"digest\":\"%s\",\"files\":[{\"path\":"
		             "\"SKILL.md\",\"digest\":\"%s\"},{\"path\":"
		             "\"scripts/run.sh\",\"digest\":\"%s\"}]}",
		             i ? "," : "", names[i], skill, md, run);
	strcpy(p, "]}");
	return out;
}

static struct sfs_wk_index parse(const char *text, int want_rc)
{
	struct sfs_wk_index idx;
	int rc = sfs_wk_index_parse(text, strlen(text), &idx);
	if (rc != want_rc)
		printf("# rc %d, want %d\n", rc, want_rc);
	for (size_t i = 0; i < idx.nproblems; i++)
		printf("# %s %s: %s\n", idx.problems[i].error ? "error" :
		       "warning", idx.problems[i].field, idx.problems[i].message);
	return idx;
}

static void good_index(void)
{
	const char *names[] = { "zeta", "alpha" };
	char *text = index_text(names, 2);
	struct sfs_wk_index idx = parse(text, 0);

	ok(idx.nskills == 2 && idx.nproblems == 0 && idx.verifiable,
	   "a v0.2.0 index: two skills, no problem");
	ok(idx.nskills == 2 && strcmp(idx.skills[0].name, "alpha") == 0 &&
	   idx.skills[0].nfiles == 2 && idx.skills[0].has_digest &&
	   strcmp(idx.skills[0].files[1].path, "scripts/run.sh") == 0,
	   "skills by name, files by path, digests kept");
	sfs_wk_index_free(&idx);
	free(text);
}

/* The index of two skills with one replacement made in the text: the
 * skill "bad" is left out, "good" kept, a problem names want. */
static void left_out(const char *from, const char *to, const char *want,
                     const char *what)
{
	const char *names[] = { "good", "bad" };
	char *text = index_text(names, 2);
	char *at_bad = strstr(text, "\"name\":\"bad\"");
	char *hit = at_bad ? strstr(at_bad, from) : NULL;
	if (!hit)
		die(from);
	size_t tail = strlen(hit + strlen(from));
	memmove(hit + strlen(to), hit + strlen(from), tail + 1);
	memcpy(hit, to, strlen(to));
	struct sfs_wk_index idx = parse(text, 0);
	bool named = false;
	for (size_t i = 0; i < idx.nproblems; i++)
		named |= idx.problems[i].error &&
		         strstr(idx.problems[i].message, want) &&
		         strncmp(idx.problems[i].field, "skills[1]", 9) == 0;
	ok(idx.nskills == 1 && strcmp(idx.skills[0].name, "good") == 0 &&
	   named, "left out: %s", what);
	sfs_wk_index_free(&idx);
	free(text);
}

static void rules(void)
{
	left_out("\"path\":\"scripts/run.sh\"", "\"path\":\"../run.sh\"",
	         "not a relative path", "a path with ..");
	left_out("\"path\":\"scripts/run.sh\"", "\"path\":\"/etc/passwd\"",
	         "not a relative path", "an absolute path");
	left_out("\"path\":\"scripts/run.sh\"", "\"path\":\"a?b\"",
	         "not a relative path", "a path with ?");
	left_out("\"path\":\"scripts/run.sh\"", "\"path\":\"SKILL.md\"",
	         "listed twice", "a file listed twice");
	left_out("\"path\":\"SKILL.md\"", "\"path\":\"README.md\"",
	         "SKILL.md is not among", "no SKILL.md");
	left_out("\"name\":\"bad\"", "\"name\":\"Bad_Name\"", "is not 1-64",
	         "a name against the rule");
	left_out("\"digest\":\"sha256:", "\"digest\":\"sha256:0", "digest",
	         "a digest of 65 hex digits");
	left_out("\",\"files\"", "0\",\"files\"", "digest",
	         "a skill digest that is no digest");
	left_out("]}", "],\"package\":{\"url\":\"\"}}", "needs a url",
	         "a package without its url");
}

static void wrong_skill_digest(void)
{
	const char *names[] = { "one" };
	char *text = index_text(names, 1);
	char *d = strstr(text, "\"digest\":\"sha256:") + 17;
	*d = *d == '0' ? '1' : '0';
	struct sfs_wk_index idx = parse(text, 0);
	ok(idx.nskills == 0 && idx.nproblems == 1 &&
	   strstr(idx.problems[0].message, "not what its files make"),
	   "a skill digest its files do not make is left out");
	sfs_wk_index_free(&idx);
	free(text);
}

static void v01(void)
{
	const char *text = "{\"skills\":[{\"name\":\"old\",\"description\":"
	                   "\"x\",\"files\":[\"SKILL.md\",\"a.md\"]}]}";
	struct sfs_wk_index idx = parse(text, 0);
	ok(idx.nskills == 1 && !idx.verifiable && idx.nproblems == 1 &&
	   !idx.problems[0].error && !idx.skills[0].files[0].has_digest,
	   "a v0.1 index is read, with a warning that nothing is verified");
	sfs_wk_index_free(&idx);
}

static void refused(const char *text, const char *want, const char *what)
{
	struct sfs_wk_index idx = parse(text, -EINVAL);
	ok(idx.nproblems && strstr(idx.problems[idx.nproblems - 1].message,
	                           want), "refused whole: %s", what);
	sfs_wk_index_free(&idx);
}

int main(void)
{
	worked_example();
	good_index();
	rules();
	wrong_skill_digest();
	v01();
	refused("[1,2]", "not a JSON object", "a JSON array");
	refused("{\"version\":\"1.0.0\",\"skills\":[]}", "version 1",
	        "major version 1");
	refused("{\"version\":\"0.2\",\"skills\":[]}", "M.m.p",
	        "a version of two parts");
	refused("{\"version\":\"0.2.0\"}", "skills list", "no skills");
	refused("{\"version\":", "not a JSON object", "cut short");
	return tap_end();
}
