/*
 * code.c - code that runs what it fetches or decodes, reads credentials
 * or dumps the environment and sends them away, or writes outside its
 * folder into the agent's configuration, shell start-up files or other
 * places that run later.  Weighed by where the line stands (a script is
 * run; prose is an order; a fenced example is shown), by the host a
 * fetch goes to (a vendor's installer, an unknown host, a raw address or
 * a paste site) and by what the same file does besides (a credential
 * read in a file that also sends is an exfiltration).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rules.h"

/* HOST_PLAIN: an unknown host over plain http; HOST_SUSPICIOUS: a raw
 * address, a paste or tunnel site, a TLD of throwaway domains */
enum host_class { HOST_NONE, HOST_VENDOR, HOST_UNKNOWN, HOST_PLAIN,
                  HOST_SUSPICIOUS };

/* Installers that real skills tell agents to run. */
static const char *const vendors[] = {
	"astral.sh", "sh.rustup.rs", "rustup.rs", "get.docker.com", "deno.land",
	"deno.com", "bun.sh", "brew.sh", "get.pnpm.io", "pnpm.io",
	"install.python-poetry.org", "pyenv.run", "ollama.com", "claude.ai",
	"anthropic.com", "cli.github.com", "get.sdkman.io", "sdk.cloud.google.com",
	"awscli.amazonaws.com", "fly.io", "vercel.com", "supabase.com",
	"tailscale.com", "starship.rs", "nixos.org", "get.k3s.io", "helm.sh",
	"deb.nodesource.com", "rpm.nodesource.com", "go.dev", "volta.sh",
	"mise.run", "mise.jdx.dev", "opencode.ai", "cursor.com", "pkgx.sh",
	"get.rvm.io", "dot.net", "dotnet.microsoft.com", "modular.com",
	"sh.vector.dev", "foundry.paradigm.xyz", "install.determinate.systems",
	"nodejs.org", "npmjs.com", "openai.com", "railway.app", "docker.com",
	"gitlab.com", "get.helm.sh", "github.com", "fnm.vercel.app", "raw.githubusercontent.com/homebrew",
	"raw.githubusercontent.com/nvm-sh", "github.com/astral-sh",
	"cli.doppler.com", "get.jenkins.io", "releases.hashicorp.com",
	"install.pulumi.com", "get.pulumi.com", "wasmtime.dev", "wasmer.io",
	"spacetimedb.com", "cloudflare.com", "pixi.sh", "micro.mamba.pm",
	"install.julialang.org", "ziglang.org", "haskell.org", "ghcup",
};

static const char *const suspicious[] = {
	"pastebin.com", "paste.ee", "hastebin", "ghostbin", "rentry.co",
	"transfer.sh", "0x0.st", "ngrok", "trycloudflare.com", "webhook.site",
	"requestbin", "pipedream.net", "interact.sh", "oast.", "burpcollaborator",
	"bit.ly", "tinyurl.com", "is.gd", "t.co/", "discord.com/api/webhooks",
	"discordapp.com", "cdn.discordapp", "gist.githubusercontent.com",
	".onion", "glot.io", "termbin.com", "ix.io", "sprunge.us", "temp.sh",
	"file.io", "anonfiles", "catbox.moe", "workers.dev", "duckdns.org",
	"no-ip.", "serveo.net", "localtunnel", "loca.lt", "pages.dev",
};

static const char *const bad_tlds[] = {
	".xyz", ".top", ".tk", ".ml", ".ga", ".cf", ".gq", ".ru", ".su", ".zip",
	".mov", ".click", ".icu", ".cn", ".pw", ".cc",
};

static bool host_is(const char *host, size_t n, const char *name)
{
	size_t m = strlen(name);
	if (memchr(name, '/', m))   /* a host and the start of a path */
		return strncmp(host, name, m) == 0;
	return (n == m && memcmp(host, name, n) == 0) ||
	       (n > m && host[n - m - 1] == '.' &&
	        memcmp(host + n - m, name, m) == 0);
}

/* The class of the first URL (or bare address) after `from` on the
 * line, lowercased. */
static enum host_class classify(const char *lower, const char **where)
{
	const char *u = strstr(lower, "://");
	if (!u) {
		/* curl 1.2.3.4/x, wget evil.example/x */
		for (const char *p = lower; *p; p++)
			if (isdigit((unsigned char)*p) &&
			    (p == lower || p[-1] == ' ')) {
				int a, b, cc, d;
				if (sscanf(p, "%d.%d.%d.%d", &a, &b, &cc, &d) == 4)
					return HOST_SUSPICIOUS;
			}
		return HOST_NONE;
	}
	bool plain = u - lower >= 4 && strncmp(u - 4, "http", 4) == 0 &&
	             (u - lower < 5 || u[-5] != 's') && u[-1] != 's';
	const char *h = u + 3;
	size_t n = strcspn(h, "/:?#\"' )`|;");
	*where = h;
	for (size_t i = 0; i < sizeof(suspicious) / sizeof(*suspicious); i++)
		if (memmem(h, strlen(h), suspicious[i], strlen(suspicious[i])))
			if ((size_t)((const char *)memmem(h, strlen(h), suspicious[i],
			                                  strlen(suspicious[i])) - h)
			    <= n)
				return HOST_SUSPICIOUS;
	int a, b, cc, d;
	if (strncmp(h, "localhost", 9) == 0 || strncmp(h, "127.", 4) == 0 ||
	    strncmp(h, "[::1]", 5) == 0)
		return HOST_UNKNOWN;   /* the user's own machine */
	if (sscanf(h, "%d.%d.%d.%d", &a, &b, &cc, &d) == 4)
		return HOST_SUSPICIOUS;
	for (size_t i = 0; i < sizeof(vendors) / sizeof(*vendors); i++)
		if (host_is(h, n, vendors[i]))
			return plain ? HOST_UNKNOWN : HOST_VENDOR;
	for (size_t i = 0; i < sizeof(bad_tlds) / sizeof(*bad_tlds); i++) {
		size_t m = strlen(bad_tlds[i]);
		if (n > m && memcmp(h + n - m, bad_tlds[i], m) == 0)
			return HOST_SUSPICIOUS;
	}
	return plain ? HOST_PLAIN : HOST_UNKNOWN;
}

static const char *host_words(enum host_class h)
{
	return h == HOST_VENDOR ? "a vendor's installer" :
	       h == HOST_SUSPICIOUS ? "a raw address, paste site or "
	                              "throwaway domain" :
	       h == HOST_PLAIN ? "an unencrypted host" :
	       h == HOST_UNKNOWN ? "an unknown host" : "a computed address";
}

static int found(struct sec_ctx *c, const struct sec_file *f,
                 const struct sec_line *l, size_t so, enum sfs_risk r,
                 const char *rule, const char *what, const char *more)
{
	char esc[200];
	if (r == SFS_RISK_NONE)
		return 0;
	if (f->is_test)
		r = sec_lower(r);
	sec_excerpt(l->p + so, l->len - so, 70, esc, sizeof(esc));
	return sec_report(c, f, (size_t)(l->p - f->text) + so, r, rule,
	                  "%s%s: \"%s\"", what, more, esc);
}

/* [code, prose, example, frontmatter or hidden] by where the line is */
static enum sfs_risk by_where(const struct sec_line *l, enum sfs_risk code,
                              enum sfs_risk prose, enum sfs_risk example)
{
	switch (l->where) {
	case SEC_CODE: return code;
	case SEC_PROSE: return prose;
	case SEC_EXAMPLE: return l->warned ? SFS_RISK_NONE : example;
	default: return SFS_RISK_HIGH;
	}
}

static int fetch_exec(struct sec_ctx *c, const struct sec_file *f,
                      const struct sec_line *l)
{
	static const enum sec_pattern pats[] = {
		PAT_PIPE_SHELL, PAT_SUBST_FETCH, PAT_PS_FETCH, PAT_CODE_FETCH,
	};
	size_t so = 0, eo = 0, base = 0, i;
	bool hit = false;

	if (!(l->mask & T_FETCH))
		return 0;
	while (!hit) {
		for (i = 0; !hit && i < sizeof(pats) / sizeof(*pats); i++)
			hit = sec_match(c->sec, pats[i], l->lower + base, &so, &eo);
		if (!hit)
			return 0;
		so += base;
		eo += base;
		/* | python3 -m json.tool, | node -e '...': the download is
		 * data the command reads, not the program it runs; look on */
		const char *rest = l->lower + eo;
		rest += rest[0] == '-';   /* the match may end in " -" */
		if (i == 1 && rest[0] && strchr("mce", rest[0]) && rest[1] == ' ') {
			hit = false;
			base = eo;
		}
	}
	/* a pipe into a shell is how vendors ship installers; code run
	 * straight from a substitution or a download call rarely is */
	bool piped = i == 1;
	const char *h = NULL;
	enum host_class hc = classify(l->lower + so, &h);
	enum sfs_risk r;
	switch (hc) {
	case HOST_VENDOR:
		r = by_where(l, SFS_RISK_MEDIUM, SFS_RISK_LOW, SFS_RISK_LOW);
		if (l->where == SEC_HIDDEN)
			r = SFS_RISK_MEDIUM;
		break;
	case HOST_SUSPICIOUS:
		/* shown in a fenced block with no warning, it is still a
		 * paste site's or a raw address's code to run */
		r = by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_HIGH);
		break;
	case HOST_PLAIN:
		r = by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM);
		break;
	default:
		r = by_where(l, SFS_RISK_HIGH, piped ? SFS_RISK_MEDIUM
		                                     : SFS_RISK_HIGH, SFS_RISK_LOW);
	}
	/* a container image's build runs apart from the user's files */
	if (l->where == SEC_CODE && hc != HOST_SUSPICIOUS && hc != HOST_PLAIN &&
	    strstr(f->rel, "Dockerfile"))
		r = sec_lower(r);
	return found(c, f, l, so, r, "security/fetch-exec",
	             "runs what it downloads, from ", host_words(hc));
}

/* A line that runs text a variable holds (eval(body), exec(code), bash
 * -c string(body)) in a file that downloads: the download and the run
 * are lines apart (a callback, a setup.py install command). */
static int run_fetched(struct sec_ctx *c, const struct sec_file *f,
                       const struct sec_line *l)
{
	size_t so;
	/* a markdown file's prose and examples are no one program */
	if (!(l->mask & T_RUNS) || !f->has_download || f->kind == SEC_MARKDOWN ||
	    !sec_match_near(c->sec, PAT_RUN_TEXT, l->lower, &so))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/fetch-exec", "runs what the same file downloads",
	             "");
}

/* A download made executable and run (curl -o f && chmod +x f && f),
 * or Windows' own tools made to download (certutil -urlcache): weighed
 * by the host, as a pipe into a shell. */
static int drop_run(struct sec_ctx *c, const struct sec_file *f,
                    const struct sec_line *l)
{
	size_t so;
	if (!((l->mask & T_FETCH) &&
	      sec_match(c->sec, PAT_DROP_RUN, l->lower, &so, NULL)) &&
	    !((l->mask & T_LOLBIN) &&
	      sec_match_near(c->sec, PAT_LOLBIN, l->lower, &so)))
		return 0;
	const char *h = NULL;
	enum host_class hc = classify(l->lower + so, &h);
	bool lolbin = strncmp(l->lower + so, "certutil", 8) == 0 ||
	              strncmp(l->lower + so, "bitsadmin", 9) == 0 ||
	              strncmp(l->lower + so, "mshta", 5) == 0 ||
	              strncmp(l->lower + so, "regsvr32", 8) == 0 ||
	              strncmp(l->lower + so, "rundll32", 8) == 0;
	enum sfs_risk r = lolbin || hc == HOST_SUSPICIOUS || hc == HOST_PLAIN ?
	        by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM) :
	        hc == HOST_VENDOR ? SFS_RISK_LOW :
	        by_where(l, SFS_RISK_MEDIUM, SFS_RISK_MEDIUM, SFS_RISK_LOW);
	return found(c, f, l, so, r, "security/fetch-exec",
	             "downloads a program and runs it, from ", host_words(hc));
}

/* A package installed or run from an address (pip install -i URL, npx
 * URL, deno run URL): weighed by the host, as a download piped into a
 * shell, for installing a package runs its code.  Only on the lines that
 * hold both a package manager's words and a URL. */
static int package_remote(struct sec_ctx *c, const struct sec_file *f,
                          const struct sec_line *l)
{
	size_t so;
	if ((l->mask & (T_URL | T_PKG)) != (T_URL | T_PKG) ||
	    !sec_match(c->sec, PAT_PKG_REMOTE, l->lower, &so, NULL))
		return 0;
	const char *h = NULL;
	enum host_class hc = classify(l->lower + so, &h);
	enum sfs_risk r = hc == HOST_SUSPICIOUS || hc == HOST_PLAIN ?
	        by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM) :
	        hc == HOST_VENDOR ? SFS_RISK_LOW :
	        by_where(l, SFS_RISK_MEDIUM, SFS_RISK_LOW, SFS_RISK_LOW);
	return found(c, f, l, so, r, "security/fetch-exec",
	             "installs or runs a package from ", host_words(hc));
}

static int decode_exec(struct sec_ctx *c, const struct sec_file *f,
                       const struct sec_line *l)
{
	static const enum sec_pattern pats[] = {
		PAT_DECODE_PIPE, PAT_DECODE_CALL, PAT_PS_ENCODED,
	};
	size_t so = 0;
	bool hit = false;

	if (!(l->mask & T_DECODE))
		return 0;
	size_t i;
	for (i = 0; !hit && i < sizeof(pats) / sizeof(*pats); i++)
		hit = sec_match(c->sec, pats[i], l->lower, &so, NULL);
	if (!hit)
		return 0;
	/* a literal -EncodedCommand is no documentation's example: what it
	 * runs is hidden from the reader too */
	bool ps = pats[i - 1] == PAT_PS_ENCODED;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH,
	                      ps ? SFS_RISK_HIGH : SFS_RISK_MEDIUM),
	             "security/decode-exec", "runs what it decodes", "");
}

static bool code_comment(const struct sec_line *l);

/* Whether a pipe after s feeds a shell or an interpreter. */
static bool pipes_to_shell(const char *s)
{
	static const char *const shells[] = {
		"sh", "bash", "zsh", "dash", "ksh", "python", "node", "perl",
		"ruby", "php", "pwsh", "iex", "eval",
	};
	for (const char *p = strchr(s, '|'); p; p = strchr(p + 1, '|')) {
		const char *q = p + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "sudo ", 5) == 0)
			q += 5;
		for (size_t i = 0; i < sizeof(shells) / sizeof(*shells); i++) {
			size_t n = strlen(shells[i]);
			if (strncmp(q, shells[i], n) == 0 &&
			    !isalpha((unsigned char)q[n]))
				return true;
		}
	}
	return false;
}

/* Text spelled so that no other pattern reads it (char codes, a
 * reversed or rot13'd string, printf's hex escapes) and run: on the
 * same line, through a pipe into a shell, or on another line of the
 * same script (eval(c), eval "$u"); or a name put together from
 * literal pieces (__import__('o' + 's')), which only hides what it
 * names. */
static int deobfuscate_run(struct sec_ctx *c, const struct sec_file *f,
                           const struct sec_line *l)
{
	size_t so;
	if ((l->mask & T_OBF) && !(l->where == SEC_CODE && code_comment(l))) {
		if (sec_match_near(c->sec, PAT_DEOBFUSCATE, l->lower, &so) &&
		    (pipes_to_shell(l->lower + so) ||
		     strstr(l->lower, "eval") || strstr(l->lower, "exec(")))
			return found(c, f, l, so, by_where(l, SFS_RISK_HIGH,
			             SFS_RISK_HIGH, SFS_RISK_MEDIUM),
			             "security/decode-exec",
			             "runs text it spelled to hide it", "");
		if (sec_match_near(c->sec, PAT_CONCAT_NAME, l->lower, &so))
			return found(c, f, l, so, by_where(l, SFS_RISK_HIGH,
			             SFS_RISK_MEDIUM, SFS_RISK_LOW),
			             "security/decode-exec", "puts together "
			             "from pieces the name of what it calls",
			             "");
	}
	if (!(l->mask & T_RUNS) || !f->has_obfuscated ||
	    f->kind == SEC_MARKDOWN ||
	    !sec_match_near(c->sec, PAT_RUN_TEXT, l->lower, &so))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/decode-exec",
	             "runs text the same file spelled to hide it", "");
}

/* A command whose name is spelled from variables ("$P1$P2" -fsSL URL |
 * "$I"), piped on, with an address: a download run, its words hidden. */
static bool spelled_command(const char *lower)
{
	const char *p = lower;
	while (*p == ' ' || *p == '\t')
		p++;
	p += *p == '"';
	for (int k = 0; k < 2; k++) {
		if (*p++ != '$')
			return false;
		bool brace = *p == '{';
		p += brace;
		if (!(isalpha((unsigned char)*p) || *p == '_'))
			return false;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		if (brace && *p++ != '}')
			return false;
	}
	return strchr(p, '|') != NULL;
}

static int spelled_fetch(struct sec_ctx *c, const struct sec_file *f,
                         const struct sec_line *l)
{
	if (!(l->mask & T_URL) || (l->where != SEC_CODE &&
	                           l->where != SEC_EXAMPLE) ||
	    !spelled_command(l->lower))
		return 0;
	return found(c, f, l, 0,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/fetch-exec", "runs a command whose name it "
	             "spells from variables, with an address", "");
}

/* An archive extracted with the password given (ClawHavoc's
 * "prerequisite" zips): what it holds, no scanner reads. */
static int archive_password(struct sec_ctx *c, const struct sec_file *f,
                            const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_ARCHIVE) ||
	    !sec_match_near(c->sec, PAT_ARCHIVE_PW, l->lower, &so))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/fetch-exec", "extracts an archive whose "
	             "password it gives (no scanner reads what it holds)", "");
}

/* Whether the file names a program to download (an installer's or an
 * executable's address). */
static bool names_program_download(const struct sec_file *f)
{
	static const char *const exts[] = { ".dmg", ".pkg", ".exe", ".msi" };
	if (!memmem(f->text, f->len, "://", 3))
		return false;
	for (size_t i = 0; i < sizeof(exts) / sizeof(*exts); i++)
		if (memmem(f->text, f->len, exts[i], strlen(exts[i])))
			return true;
	return false;
}

/* The operating system's checks turned off: Gatekeeper's quarantine
 * taken from a download, Defender's monitoring stopped.  Developers
 * clear the quarantine of their own builds; a skill that also names a
 * program to download clears it for that program. */
static int defense_off(struct sec_ctx *c, const struct sec_file *f,
                       const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_DEFENSE) ||
	    (l->where == SEC_CODE && code_comment(l)) ||
	    !sec_match(c->sec, PAT_DEFENSE_OFF, l->lower, &so, NULL))
		return 0;
	bool xattr = strncmp(l->lower + so, "xattr", 5) == 0;
	enum sfs_risk r = !xattr || names_program_download(f) ?
	        by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM) :
	        by_where(l, SFS_RISK_MEDIUM, SFS_RISK_MEDIUM, SFS_RISK_LOW);
	return found(c, f, l, so, r, "security/disable-safety",
	             "turns off the operating system's checks (Gatekeeper's "
	             "quarantine, Defender)", "");
}

/* Whether the line is a comment of its script: never run. */
static bool code_comment(const struct sec_line *l)
{
	const char *p = l->lower;
	while (*p == ' ' || *p == '\t')
		p++;
	return (p[0] == '#' && p[1] != '!') || (p[0] == '/' && p[1] == '/') ||
	       p[0] == '*' || (p[0] == '/' && p[1] == '*');
}

static bool sends_in_prose(const char *lower)
{
	static const char *const words[] = {
		"send", "upload", "post ", "include", "paste", "share", "attach",
		"forward", "transmit", "email", "copy",
	};
	/* at a word's start: "pbpaste" reads the clipboard, "pbcopy" writes it */
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		for (const char *p = lower; (p = strstr(p, words[i])) != NULL; p++)
			if (p == lower || !(p[-1] >= 'a' && p[-1] <= 'z'))
				return true;
	return false;
}

/* A command's output put into a URL's query ("https://h/?t=$(gh auth
 * token)"): whoever fetches the URL sends it. */
static bool query_substitutes(const struct sec_line *l)
{
	const char *q;
	return (l->mask & T_URL) && (q = strstr(l->lower, "=$(")) != NULL &&
	       memchr(l->lower, '?', (size_t)(q - l->lower)) != NULL;
}

static int credential_read(struct sec_ctx *c, const struct sec_file *f,
                           const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_CRED) || !f->has_credential_read ||
	    (l->where == SEC_CODE && code_comment(l)) ||
	    !(sec_match(c->sec, PAT_CRED_PATH, l->lower, &so, NULL) ||
	      sec_match(c->sec, PAT_CRED_PATH2, l->lower, &so, NULL)))
		return 0;
	/* ssh's client settings and known hosts are no secret */
	const char *ssh = strstr(l->lower + so, ".ssh/");
	if (ssh && ssh - (l->lower + so) < 12 &&
	    (strncmp(ssh + 5, "config", 6) == 0 ||
	     strncmp(ssh + 5, "known_hosts", 11) == 0) &&
	    !sec_match(c->sec, PAT_CRED_PATH, ssh + 5, NULL, NULL))
		return 0;
	/* prose is an order by its own words; another line's curl in a
	 * README is an example of the API, not where the secret goes */
	bool send = l->where == SEC_PROSE ? sends_in_prose(l->lower) :
	            f->has_network_send || sends_in_prose(l->lower);
	/* a secret put into a URL's query for a host not a vendor's is sent
	 * by whoever runs the example */
	const char *h = NULL;
	bool in_query = query_substitutes(l) &&
	                classify(l->lower, &h) != HOST_VENDOR;
	enum sfs_risk r = by_where(l, send || in_query ? SFS_RISK_HIGH :
	                           SFS_RISK_MEDIUM,
	                           send ? SFS_RISK_HIGH : SFS_RISK_LOW,
	                           in_query ? SFS_RISK_HIGH : send ?
	                           SFS_RISK_MEDIUM : SFS_RISK_LOW);
	return found(c, f, l, so, r, "security/credential-read",
	             "reads credentials",
	             send ? " and the same file sends data out" : "");
}

/* Orders in prose that need no path: a wallet's recovery phrase asked
 * for and sent to an address, a tool's credentials file whose contents
 * are to be put out.  Not where the line warns ("never share your seed
 * phrase"). */
static int credential_prose(struct sec_ctx *c, const struct sec_file *f,
                            const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_CRED) || (l->mask & T_WARN) ||
	    l->where == SEC_CODE || l->where == SEC_EXAMPLE)
		return 0;
	if ((l->mask & T_URL) && sends_in_prose(l->lower) &&
	    sec_match(c->sec, PAT_SEED_PHRASE, l->lower, &so, NULL))
		return found(c, f, l, so, SFS_RISK_HIGH,
		             "security/credential-read",
		             "asks for a wallet's recovery phrase and sends it",
		             "");
	if (!sec_match(c->sec, PAT_CRED_PROSE, l->lower, &so, NULL))
		return 0;
	return found(c, f, l, so, SFS_RISK_HIGH,
	             "security/credential-read", "tells the model to put out "
	             "a credentials file's contents", "");
}

static int env_exfil(struct sec_ctx *c, const struct sec_file *f,
                     const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_ENV) || !f->has_env_dump || !f->has_network_send ||
	    !sec_match(c->sec, PAT_ENV_DUMP, l->lower, &so, NULL))
		return 0;
	/* in prose, only a command that pipes the dump into a send */
	if (l->where != SEC_CODE && l->where != SEC_EXAMPLE) {
		size_t to;
		if (!sec_match(c->sec, PAT_NET_SEND, l->raw + so, &to, NULL) &&
		    !sec_match(c->sec, PAT_NET_SEND2, l->raw + so, &to, NULL))
			return 0;
		/* past the byte before the dump, which its match holds */
		const char *gap = l->raw + so + 1;
		if (to == 0 || !memchr(gap, '|', to - 1) ||
		    memchr(gap, '`', to - 1) || memchr(gap, ';', to - 1))
			return 0;
	}
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/env-exfil", "dumps the whole environment, "
	             "and the same file sends data out", "");
}

/* Whether the path at so is the last word of the command the write
 * operator at wo begins: cp and mv write their last argument only. */
static bool written_to(const char *lower, size_t wo, size_t so)
{
	const char *op = lower + wo;
	while (*op && !isalpha((unsigned char)*op) && *op != '>' && *op != '|')
		op++;
	if (strncmp(op, "cp", 2) != 0 && strncmp(op, "mv", 2) != 0)
		return true;
	const char *p = lower + so;
	while (*p && !isspace((unsigned char)*p))
		p++;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0' || *p == ';' || *p == '&' || *p == '|' ||
	       *p == ')' || *p == '`';
}

/* The first write operator of the line that reaches a path of pattern
 * pat after it, with no other command or stderr redirect between:
 * true, and the path's offset in *so. */
static bool write_reaches(const struct sfs_security *sec,
                          const struct sec_line *l, enum sec_pattern pat,
                          size_t *so)
{
	size_t base = 0, wo, po;

	while (l->lower[base] &&
	       sec_match(sec, PAT_WRITE_OP, l->lower + base, &wo, NULL)) {
		wo += base;
		base = wo + 1;
		if (wo > 0 && l->lower[wo] == '>' &&
		    isdigit((unsigned char)l->lower[wo - 1]))
			continue;   /* 2>/dev/null */
		if (!sec_match(sec, pat, l->lower + wo, &po, NULL))
			return false;
		size_t i = l->lower[wo] == '|' ? wo + 1 : wo;
		for (; i < wo + po; i++)
			if (l->lower[i] == '|' || l->lower[i] == ';' ||
			    (l->lower[i] == '&' && l->lower[i + 1] == '&'))
				break;
		if (i < wo + po || !written_to(l->lower, wo, wo + po))
			continue;
		*so = wo + po;
		return true;
	}
	return false;
}

static int config_write(struct sec_ctx *c, const struct sec_file *f,
                        const struct sec_line *l)
{
	size_t so;
	enum sec_pattern pat;

	if (!(l->mask & (T_CONFIG | T_AGENT)) ||
	    (l->where == SEC_CODE && code_comment(l)))
		return 0;
	if (sec_match(c->sec, PAT_AGENT_PATH, l->lower, NULL, NULL))
		pat = PAT_AGENT_PATH;
	else if (sec_match(c->sec, PAT_PERSIST_PATH, l->lower, NULL, NULL))
		pat = PAT_PERSIST_PATH;
	else if (sec_match(c->sec, PAT_RC_PATH, l->lower, NULL, NULL))
		pat = PAT_RC_PATH;
	else if (sec_match(c->sec, PAT_HOOK_PATH, l->lower, NULL, NULL))
		pat = PAT_HOOK_PATH;
	else
		return 0;
	/* the write goes to that path: an operator before it */
	if (!write_reaches(c->sec, l, pat, &so))
		return 0;
	bool payload = strstr(l->lower, "curl") || strstr(l->lower, "wget") ||
	               strstr(l->lower, "base64") || strstr(l->lower, "alias ") ||
	               strstr(l->lower, "ssh-") || strstr(l->lower, "/tmp/") ||
	               strstr(l->lower, "/dev/shm") ||
	               strstr(l->lower, "ld_preload");
	/* a start-up file or a repository's hook: installers and linters
	 * write them; what is written weighs */
	enum sfs_risk r = (pat == PAT_RC_PATH || pat == PAT_HOOK_PATH) &&
	                  !payload ?
	        by_where(l, SFS_RISK_MEDIUM, SFS_RISK_LOW, SFS_RISK_LOW) :
	        by_where(l, SFS_RISK_HIGH, SFS_RISK_MEDIUM, SFS_RISK_LOW);
	return found(c, f, l, so, r, "security/config-write",
	             pat == PAT_AGENT_PATH ?
	             "writes into the agent's configuration" :
	             pat == PAT_PERSIST_PATH ?
	             "writes where code runs later (keys, cron, start-up)" :
	             pat == PAT_HOOK_PATH ?
	             "writes a hook that runs later (git, husky, VS Code's "
	             "tasks)" : "writes into a shell start-up file", "");
}

/* A shell that serves a remote host: bash -i >& /dev/tcp/..., nc -e sh,
 * a socket dup2'd over stdin and stdout. */
static int reverse_shell(struct sec_ctx *c, const struct sec_file *f,
                         const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_SHELL) ||
	    !sec_match_near(c->sec, PAT_REVERSE_SHELL, l->lower, &so))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/reverse-shell",
	             "hands a shell to a remote host", "");
}

/* A command that grants root or runs at every logon by itself (sudo
 * for all without a password, the host's root in a privileged
 * container, a setuid bit, Windows' Run key or a logon task): shown in
 * a fenced block with no warning, it is still one to run. */
static int persist_cmd(struct sec_ctx *c, const struct sec_file *f,
                       const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_PERSIST) || (l->where == SEC_CODE && code_comment(l)) ||
	    !sec_match(c->sec, PAT_PERSIST_CMD, l->lower, &so, NULL))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_HIGH),
	             "security/config-write", "grants root or runs at every "
	             "logon (sudoers, a privileged container over /, setuid, "
	             "a Run key, a logon task)", "");
}

/* A miner's pool address or donation flag (T1496). */
static int miner(struct sec_ctx *c, const struct sec_file *f,
                 const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_RARE) ||
	    !sec_match(c->sec, PAT_MINER, l->lower, &so, NULL))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_HIGH),
	             "security/miner", "runs a cryptocurrency miner", "");
}

/* The home folder or the root deleted whole (a time bomb, protestware):
 * high in code, which runs; named in prose it is a security guide's list
 * of what never to run far more often than an order (in a public
 * collection of 17,842 skills, 26 of 26 such lines were), so medium
 * there, and nothing where the line warns ("never run rm -rf /"). */
/* Whether the command at so is the text of a string literal in a
 * program that is no shell script, on a line that runs nothing: a
 * guard's list of what to block ('rm -rf /': True, includes("rm -rf /")),
 * not a command; a shell script, or exec("rm -rf ~"), runs it. */
static bool quoted_data(const struct sec_file *f, const struct sec_line *l,
                        size_t so)
{
	static const char *const shells[] = { ".sh", ".bash", ".zsh", NULL };
	static const char *const runs[] = {
		"exec", "system", "spawn", "popen", "subprocess", "shell",
		"run(", "call(", NULL,
	};
	size_t n = strlen(f->rel);

	if (so == 0 || !strchr("'\"`", l->lower[so - 1]))
		return false;
	for (const char *const *e = shells; *e; e++)
		if (n >= strlen(*e) && strcmp(f->rel + n - strlen(*e), *e) == 0)
			return false;
	if (f->len > 2 && f->text[0] == '#' && f->text[1] == '!') {
		const char *nl = memchr(f->text, '\n', f->len);
		size_t first = nl ? (size_t)(nl - f->text) : f->len;
		if (memmem(f->text, first, "sh", 2))
			return false;   /* #!/bin/sh, #!/usr/bin/env bash */
	}
	for (const char *const *r = runs; *r; r++)
		if (strstr(l->lower, *r))
			return false;
	return true;
}

static int wipe(struct sec_ctx *c, const struct sec_file *f,
                const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_WIPE) || (l->where == SEC_CODE && code_comment(l)) ||
	    (l->where == SEC_PROSE && (l->mask & T_WARN)) ||
	    !sec_match(c->sec, PAT_WIPE, l->lower, &so, NULL))
		return 0;
	enum sfs_risk code = l->where == SEC_CODE && quoted_data(f, l, so) ?
	                     SFS_RISK_MEDIUM : SFS_RISK_HIGH;
	return found(c, f, l, so,
	             by_where(l, code, SFS_RISK_MEDIUM, SFS_RISK_MEDIUM),
	             "security/wiper", "deletes the home folder or the root "
	             "whole", "");
}

/* Every message copied to an address: hard-coded in code (postmark-mcp)
 * or ordered in prose for every message; an example's parameter is
 * documentation. */
static int mail_copy(struct sec_ctx *c, const struct sec_file *f,
                     const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_RARE) || (l->where == SEC_CODE && code_comment(l)) ||
	    !sec_match(c->sec, PAT_BCC, l->lower, &so, NULL))
		return 0;
	bool every = strstr(l->lower, "every") || strstr(l->lower, "always") ||
	             strstr(l->lower, "each ") || strstr(l->lower, "all ");
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, every ? SFS_RISK_HIGH
	                                              : SFS_RISK_MEDIUM,
	                      SFS_RISK_LOW),
	             "security/mail-copy", "copies mail to a fixed address", "");
}

/* The value of the n hex digits at p, or -1. */
static int hex_digits(const char *p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		int d = isdigit((unsigned char)p[i]) ? p[i] - '0' :
		        isxdigit((unsigned char)p[i]) ? (p[i] | 0x20) - 'a' + 10 :
		        -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Printable ASCII spelled in \uXXXX or \xXX escapes, decoded into out
 * (size), lowercased: how many escapes there were. */
static size_t unescape(const char *p, char *out, size_t size)
{
	size_t n = 0, k = 0;
	while (*p && k + 1 < size) {
		int v = -1, w = 0;
		if (p[0] == '\\' && p[1] == 'u')
			v = hex_digits(p + 2, 4), w = 6;
		else if (p[0] == '\\' && p[1] == 'x')
			v = hex_digits(p + 2, 2), w = 4;
		if (v >= 0x20 && v < 0x7f) {
			out[k++] = (char)sec_lower_byte((unsigned char)v);
			n++;
			p += w;
		} else {
			out[k++] = (char)sec_lower_byte((unsigned char)*p++);
		}
	}
	out[k] = '\0';
	return n;
}

/* A command or a module spelled in escapes (require('\u0063\u0068...')):
 * no reader and no other pattern sees what it names. */
static int escaped_run(struct sec_ctx *c, const struct sec_file *f,
                       const struct sec_line *l)
{
	static const char *const runs[] = {
		"child_process", "exec", "eval", "spawn", "system", "curl",
		"wget", "| sh", "|sh", "/bin/", "powershell", "invoke-expression",
	};
	char buf[1024];
	if (!(l->mask & T_RARE) || l->where == SEC_PROSE ||
	    unescape(l->raw, buf, sizeof(buf)) < 4)
		return 0;
	for (size_t i = 0; i < sizeof(runs) / sizeof(*runs); i++)
		if (strstr(buf, runs[i]))
			return found(c, f, l, 0, by_where(l, SFS_RISK_HIGH,
			             SFS_RISK_HIGH, SFS_RISK_MEDIUM),
			             "security/decode-exec", "spells in escapes "
			             "what it runs", "");
	return 0;
}

/* A loop over every installed skill's SKILL.md in a file that appends
 * to a path a variable holds: an order planted in the other skills. */
static int skills_glob_write(struct sec_ctx *c, const struct sec_file *f,
                             const struct sec_line *l)
{
	static const char *const appends[] = {
		">> \"$", ">>\"$", ">> $", ">>$", "sed -i", "tee -a \"$",
		"tee -a $",
	};
	enum { BODY = 1024 };   /* the loop's body: the lines just after */
	const char *at;
	if (!(l->mask & T_AGENT) || l->where == SEC_PROSE ||
	    !(at = strstr(l->lower, "skills/*/skill.md")))
		return 0;
	size_t from = (size_t)(l->p - f->text);
	size_t n = f->len - from < BODY ? f->len - from : BODY;
	for (size_t i = 0; i < sizeof(appends) / sizeof(*appends); i++)
		if (memmem(f->text + from, n, appends[i], strlen(appends[i])))
			return found(c, f, l, (size_t)(at - l->lower),
			             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH,
			                      SFS_RISK_HIGH),
			             "security/agent-config", "writes into every "
			             "installed skill", "");
	return 0;
}

/* Whether the file XORs with a constant or a key (b ^= 0x5a, c ^ key):
 * a payload kept from every pattern until it runs. */
static bool xor_decodes(const struct sec_file *f)
{
	for (const char *p = memchr(f->text, '^', f->len); p;
	     p = memchr(p + 1, '^', f->len - (size_t)(p + 1 - f->text))) {
		const char *q = p + 1 + (p[1] == '=');
		while (*q == ' ')
			q++;
		if ((q[0] == '0' && (q[1] == 'x' || q[1] == 'X') &&
		     isxdigit((unsigned char)q[2])) ||
		    strncasecmp(q, "key", 3) == 0 ||
		    (p[1] == '=' && isdigit((unsigned char)*q)))
			return true;
	}
	return false;
}

/* Text a variable holds run, in a script that XORs: the decoded
 * payload run. */
static int xor_run(struct sec_ctx *c, const struct sec_file *f,
                   const struct sec_line *l)
{
	size_t so;
	if (!(l->mask & T_RUNS) || !f->has_xor || f->has_download ||
	    f->has_obfuscated ||
	    !sec_match_near(c->sec, PAT_RUN_TEXT, l->lower, &so))
		return 0;
	return found(c, f, l, so,
	             by_where(l, SFS_RISK_HIGH, SFS_RISK_HIGH, SFS_RISK_MEDIUM),
	             "security/decode-exec",
	             "runs text the same file decodes by XOR", "");
}

/* The seventh wave's rules (written blind), in one call, each only on
 * the lines that hold its words: a call per rule per line cost more than
 * their tests. */
static int seventh_wave(struct sec_ctx *c, const struct sec_file *f,
                        const struct sec_line *l)
{
	uint32_t m = l->mask;
	int rc = 0;
	if (!(m & (T_PERSIST | T_RARE | T_WIPE | T_AGENT | T_RUNS)))
		return 0;
	if (m & T_PERSIST)
		rc = persist_cmd(c, f, l);
	if (rc == 0 && (m & T_WIPE))
		rc = wipe(c, f, l);
	if (rc == 0 && (m & T_RARE))
		rc = miner(c, f, l);
	if (rc == 0 && (m & T_RARE))
		rc = mail_copy(c, f, l);
	if (rc == 0 && (m & T_RARE))
		rc = escaped_run(c, f, l);
	if (rc == 0 && (m & T_AGENT))
		rc = skills_glob_write(c, f, l);
	if (rc == 0 && (m & T_RUNS))
		rc = xor_run(c, f, l);
	return rc;
}

void sec_code_survey(const struct sfs_security *sec, struct sec_file *f,
                     const struct sec_line *l)
{
	if (!f->has_network_send && (l->mask & T_SEND))
		f->has_network_send = sec_match(sec, PAT_NET_SEND, l->raw, NULL,
		                                NULL) ||
		                      sec_match(sec, PAT_NET_SEND2, l->raw, NULL,
		                                NULL);
	if (!f->has_network_send && (l->mask & T_SEND3))
		f->has_network_send = sec_match(sec, PAT_NET_SEND3, l->raw, NULL,
		                                NULL);
	/* once per script that runs a variable's text */
	if (!f->xor_checked && f->kind != SEC_MARKDOWN && (l->mask & T_RUNS)) {
		f->xor_checked = true;
		f->has_xor = xor_decodes(f);
	}
	if (!f->has_credential_read && (l->mask & T_CRED))
		f->has_credential_read = sec_match(sec, PAT_CRED_PATH, l->lower,
		                                   NULL, NULL) ||
		                         sec_match(sec, PAT_CRED_PATH2, l->lower,
		                                   NULL, NULL);
	if (!f->has_env_dump && (l->mask & T_ENV))
		f->has_env_dump = sec_match(sec, PAT_ENV_DUMP, l->lower, NULL,
		                            NULL);
	if (!f->has_obfuscated && (l->mask & T_OBF)) {
		size_t so;
		f->has_obfuscated = sec_match_near(sec, PAT_DEOBFUSCATE,
		                                   l->lower, &so);
	}
	/* only run_fetched asks, and never of markdown */
	if (!f->has_download && f->kind != SEC_MARKDOWN &&
	    (l->mask & (T_FETCH | T_RUNS))) {
		size_t so;
		f->has_download = sec_match_near(sec, PAT_DOWNLOAD, l->lower,
		                                 &so);
	}
}

int sec_code_line(struct sec_ctx *c, const struct sec_file *f,
                  const struct sec_line *l)
{
	static sec_line_rule *const rules[] = {
		fetch_exec, run_fetched, drop_run, package_remote, decode_exec,
		deobfuscate_run, spelled_fetch, archive_password, defense_off,
		credential_read, credential_prose,
		env_exfil, config_write, reverse_shell, seventh_wave,
	};
	return sec_each_rule(c, f, l, 4, rules, sizeof(rules) / sizeof(*rules));
}
