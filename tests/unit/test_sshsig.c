/*
 * test_sshsig.c - SSH signatures against allowed-signers files
 * (shared/sshsig.c), with keys and signatures made by the real
 * ssh-keygen: each key type verifies; a changed message, another
 * namespace, a key not listed, a line whose namespaces or validity
 * exclude the signature, a cert-authority line and a broken armor are
 * refused; ssh-keygen -Y verify agrees on each verdict.  Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "sshsig.h"

static const char *const kinds[] = { "ed25519", "rsa", "ecdsa" };
#define NKINDS (sizeof(kinds) / sizeof(*kinds))
#define MESSAGE "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" \
                "author A <a@example.com> 1700000000 +0000\n\nsigned\n"
#define WHEN 1700000000   /* 2023-11-14 */

/* The public key line "type base64 comment" of key kind i. */
static char *pubkey(size_t i)
{
	size_t n;
	char *k = slurp(at("%s.pub", kinds[i]), &n);
	k[strcspn(k, "\n")] = '\0';
	return k;
}

static void make_keys(void)
{
	for (size_t i = 0; i < NKINDS; i++)
		sh("ssh-keygen -q -t %s -N '' -C %s@example.com -f %s",
		    kinds[i], kinds[i], at("%s", kinds[i]));
	sh("ssh-keygen -q -t ed25519 -N '' -f %s", at("stranger"));
	write_file(at("msg"), MESSAGE);
	for (size_t i = 0; i < NKINDS; i++)
		sh("ssh-keygen -q -Y sign -n git -f %s < %s > %s", at("%s",
		    kinds[i]), at("msg"), at("%s.sig", kinds[i]));
	sh("ssh-keygen -q -Y sign -n file -f %s < %s > %s", at("ed25519"),
	    at("msg"), at("file.sig"));
	sh("ssh-keygen -q -Y sign -n git -f %s < %s > %s", at("stranger"),
	    at("msg"), at("stranger.sig"));
}

static struct sfs_signers *signers(const char *text)
{
	struct sfs_signers *s = NULL;
	char why[256] = "";
	int rc = sfs_signers_parse(text, strlen(text), &s, why, sizeof(why));
	if (rc < 0) {
		printf("# %s\n", why);
		errno = -rc;
		die("sfs_signers_parse");
	}
	return s;
}

/* Our verdict on sig over msg, and ssh-keygen's with the same file. */
static int verdict(const char *allowed, const char *sig, const char *msg,
                   const char *ns, char *principal, bool *keygen_ok)
{
	size_t alen;
	char *armor = slurp(sig, &alen);
	struct sfs_signers *s = signers(allowed);
	char why[256] = "";
	int rc = sfs_sshsig_verify(s, armor, alen, msg, strlen(msg), ns, WHEN,
	                           principal, why, sizeof(why));
	if (rc < 0)
		printf("# refused: %s\n", why);
	write_file(at("allowed"), allowed);
	write_file(at("check"), msg);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "ssh-keygen -Y find-principals -f %s -s %s "
	         "-Overify-time=20231114 < /dev/null > %s 2>/dev/null",
	         at("allowed"), sig, at("principal"));
	bool found = system(cmd) == 0;
	char who[256] = "x";
	if (found) {
		size_t n;
		char *p = slurp(at("principal"), &n);
		snprintf(who, sizeof(who), "%.*s", (int)strcspn(p, "\n"), p);
		free(p);
	}
	snprintf(cmd, sizeof(cmd), "ssh-keygen -Y verify -f %s -I '%s' -n %s "
	         "-s %s -Overify-time=20231114 < %s > /dev/null 2>&1",
	         at("allowed"), who, ns, sig, at("check"));
	*keygen_ok = found && system(cmd) == 0;
	sfs_signers_free(s);
	free(armor);
	return rc;
}

static char *line_for(size_t i, const char *principals, const char *options)
{
	char *k = pubkey(i);
	char *line = malloc(strlen(k) + 512);
	sprintf(line, "# team\n%s %s%s%s\n", principals, options ? options : "",
	        options ? " " : "", k);
	free(k);
	return line;
}

static void each_kind_verifies(void)
{
	for (size_t i = 0; i < NKINDS; i++) {
		char *allowed = line_for(i, "dev@example.com", NULL);
		char who[256] = "";
		bool keygen;
		int rc = verdict(allowed, at("%s.sig", kinds[i]), MESSAGE, "git",
		                 who, &keygen);
		ok(rc == 0 && strcmp(who, "dev@example.com") == 0 && keygen,
		   "%s: a listed key's signature verifies (rc %d, ssh-keygen "
		   "%s)", kinds[i], rc, keygen ? "too" : "refuses");
		rc = verdict(allowed, at("%s.sig", kinds[i]), MESSAGE "x", "git",
		             who, &keygen);
		ok(rc == -EPERM && !keygen, "%s: a changed message is refused",
		   kinds[i]);
		free(allowed);
	}
}

/* A principal longer than the room given for it is cut there, never
 * written past it (the signers file is the operator's, its lines long). */
static void long_principal(void)
{
	char name[301], principal[SFS_PRINCIPAL_MAX + 8];
	memset(name, 'p', 300);
	name[300] = '\0';
	char *allowed = line_for(0, name, NULL);
	size_t alen;
	char *armor = slurp(at("ed25519.sig"), &alen);
	struct sfs_signers *s = signers(allowed);
	char why[1024] = "";
	memset(principal, 'X', sizeof(principal));
	int rc = sfs_sshsig_verify(s, armor, alen, MESSAGE, strlen(MESSAGE), "git",
	                           WHEN, principal, why, sizeof(why));
	ok(rc == 0 && strlen(principal) == SFS_PRINCIPAL_MAX - 1 &&
	   principal[SFS_PRINCIPAL_MAX] == 'X',
	   "a 300-character principal is cut at %d bytes", SFS_PRINCIPAL_MAX);
	sfs_signers_free(s);
	free(armor);
	free(allowed);
}

static void refused(const char *allowed, const char *sig, const char *ns,
                    int want, const char *what)
{
	char who[256] = "";
	bool keygen;
	int rc = verdict(allowed, sig, MESSAGE, ns, who, &keygen);
	ok(rc == want && !keygen, "%s (rc %d, ssh-keygen %s)", what, rc,
	   keygen ? "accepts" : "refuses too");
}

static void refusals(void)
{
	/* the allowed-signers line (key 0's, for principals, with options),
	 * the signature file, the answer and why */
	static const struct refusal {
		const char *principals, *options, *sig;
		int want;
		const char *what;
	} cases[] = {
		{ "dev@example.com", NULL, "stranger.sig", -EPERM,
		  "a key not listed" },
		{ "dev@example.com", NULL, "file.sig", -EPERM,
		  "a signature made for namespace file" },
		{ "dev@example.com", "namespaces=\"file\"", "ed25519.sig", -EPERM,
		  "a line whose namespaces leave out git" },
		{ "dev@example.com", "valid-before=20200101Z", "ed25519.sig",
		  -EPERM, "a line no longer valid at the commit's time" },
		{ "dev@example.com", "valid-after=20300101", "ed25519.sig", -EPERM,
		  "a line not yet valid at the commit's time" },
		{ "*@example.com", "cert-authority", "ed25519.sig", -EPERM,
		  "a cert-authority line does not list a signing key" },
		{ "dev@example.com", NULL, "broken.sig", -EINVAL,
		  "a broken armor" },
	};

	write_file(at("broken.sig"), "-----BEGIN SSH SIGNATURE-----\n!!!\n"
	           "-----END SSH SIGNATURE-----\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct refusal *c = &cases[i];
		char *line = line_for(0, c->principals, c->options);

		refused(line, at("%s", c->sig), "git", c->want, c->what);
		free(line);
	}
}

static void bad_files(void)
{
	const char *bad[] = {
		"dev@example.com ssh-ed25519\n",
		"dev@example.com ssh-foo AAAA\n",
		"dev@example.com bogus-option ssh-ed25519 AAAA\n",
		"dev@example.com ssh-ed25519 ***\n",
		"dev@example.com valid-after=2023 ssh-ed25519 AAAA\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct sfs_signers *s = NULL;
		char why[256] = "";
		int rc = sfs_signers_parse(bad[i], strlen(bad[i]), &s, why,
		                           sizeof(why));
		ok(rc == -EINVAL && strstr(why, "line 1"),
		   "refused with its line: %s", why);
		sfs_signers_free(s);
	}
	struct sfs_signers *s = signers("# only a comment\n\n   \n");
	ok(sfs_signers_count(s) == 0, "comments and blank lines list nobody");
	sfs_signers_free(s);
}

int main(void)
{
	fixture_start("test_sshsig");
	make_keys();
	each_kind_verifies();
	refusals();
	long_principal();
	bad_files();
	return tap_end();
}
