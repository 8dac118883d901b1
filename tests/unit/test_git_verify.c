/*
 * test_git_verify.c - commits' signatures against allowed signers
 * (shared/git_verify.c), in a repository made with the git command:
 * a commit signed with `git commit -S` by an SSH key on the list
 * verifies; an unsigned commit, one signed by a key not listed, one
 * signed with OpenPGP armor, and a forged commit (a signed commit's
 * message changed, its gpgsig kept) are refused; `git verify-commit`
 * agrees on each.  Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "fixture.h"
#include "git_verify.h"
#include "sshsig.h"

#define GIT "git -C %s -c user.name=T -c user.email=t@example.com " \
            "-c gpg.format=ssh -c commit.gpgsign=false "

static char signed_id[64], unsigned_id[64], stranger_id[64], forged_id[64],
            pgp_id[64];

static void commit(const char *key, char *id_out)
{
	const char *repo = at("repo");
	static int n;
	write_file(at("repo/f%d", ++n), "x\n");
	sh(GIT "add -A", repo);
	if (key)
		sh(GIT "-c user.signingkey=%s commit -q -S -m c%d", repo, key, n);
	else
		sh(GIT "commit -q -m c%d", repo, n);
	strcpy(id_out, sh_out("git -C %s rev-parse HEAD", repo));
}

/* A commit object like `from` with another message: its gpgsig no longer
 * covers it. */
static void forge(const char *from, char *id_out, const char *swap_from,
                  const char *swap_to)
{
	strcpy(id_out, sh_out("git -C %s cat-file commit %s | sed 's/%s/%s/' | "
	                      "git -C %s hash-object -t commit -w --stdin",
	                      at("repo"), from, swap_from, swap_to, at("repo")));
}

static void make_repo(void)
{
	sh("ssh-keygen -q -t ed25519 -N '' -C dev -f %s", at("dev"));
	sh("ssh-keygen -q -t ed25519 -N '' -C other -f %s", at("other"));
	sh("git init -q %s", at("repo"));
	commit(at("dev.pub"), signed_id);
	commit(NULL, unsigned_id);
	commit(at("other.pub"), stranger_id);
	forge(signed_id, forged_id, "^c1$", "c1 forged");
	forge(signed_id, pgp_id, "BEGIN SSH SIGNATURE", "BEGIN PGP SIGNATURE");
	sh("printf 'dev@example.com %%s\\n' \"$(cut -d' ' -f1,2 %s)\" > %s",
	   at("dev.pub"), at("allowed"));
}

static bool git_verifies(const char *id)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "git -C %s -c gpg.ssh.allowedSignersFile=%s "
	         "verify-commit %s > /dev/null 2>&1", at("repo"), at("allowed"),
	         id);
	return system(cmd) == 0;
}

static void expect(git_repository *repo, const struct sfs_signers *s,
                   const char *id, int want, const char *what)
{
	git_oid oid;
	char who[256] = "", why[256] = "";

	git_oid_fromstr(&oid, id);
	int rc = sfs_git_verify_commit(repo, &oid, s, who, why, sizeof(why));
	bool git = git_verifies(id);
	if (rc < 0)
		printf("# refused: %s\n", why);
	ok(rc == want && git == (want == 0) &&
	   (want || strcmp(who, "dev@example.com") == 0),
	   "%s (rc %d, git verify-commit %s)", what, rc,
	   git ? "accepts" : "refuses");
}

int main(void)
{
	fixture_start("test_git_verify");
	make_repo();
	git_libgit2_init();
	git_repository *repo = NULL;
	if (git_repository_open(&repo, at("repo")) < 0)
		die("git_repository_open");
	size_t len;
	FILE *f = fopen(at("allowed"), "r");
	char text[4096];
	len = f ? fread(text, 1, sizeof(text), f) : 0;
	if (f)
		fclose(f);
	struct sfs_signers *s = NULL;
	char why[256];
	if (sfs_signers_parse(text, len, &s, why, sizeof(why)) < 0)
		die(why);

	expect(repo, s, signed_id, 0, "a commit signed by a listed key");
	expect(repo, s, unsigned_id, -EPERM, "an unsigned commit");
	expect(repo, s, stranger_id, -EPERM, "a commit signed by another key");
	expect(repo, s, forged_id, -EPERM,
	       "a signed commit's message changed, its signature kept");
	expect(repo, s, pgp_id, -EPERM, "an OpenPGP signature");

	sfs_signers_free(s);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return tap_end();
}
