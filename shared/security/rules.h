/*
 * rules.h - what the rule families of the security pass share: one
 * file as the pass reads it, one line of it with where it stands, and
 * the way a finding is reported.  Private to shared/security/.
 *
 * Every rule is a function of the bytes of one file (and, for names, of
 * the skill ids of one build): no network, no clock, no model, so that
 * the same content always gives the same findings.
 */
#ifndef SKILLSFS_SECURITY_H
#define SKILLSFS_SECURITY_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../snapshot.h"

/* What kind of file a rule reads, from its name and first bytes. */
enum sec_kind {
	SEC_MARKDOWN = 1,   /* .md, .markdown, .mdx, SKILL.md */
	SEC_SCRIPT,         /* shells, Python, JavaScript, PowerShell, ...
	                       or a "#!" first line */
	SEC_TEXT,           /* any other text: JSON, YAML, HTML, .txt */
	SEC_BINARY,         /* a known magic, or a NUL in the first bytes */
};

/* Where a line stands in its file: what a construct there means. */
enum sec_where {
	SEC_PROSE = 1,      /* markdown or text outside code: instructions */
	SEC_EXAMPLE,        /* a fenced code block: shown, maybe run */
	SEC_CODE,           /* a script: run as it is */
	SEC_FRONTMATTER,    /* SKILL.md's frontmatter: always loaded */
	SEC_HIDDEN,         /* inside an HTML comment: read by the model,
	                       never seen in rendered markdown */
};

/* One file being scanned.  The bytes end with a NUL past len. */
struct sec_file {
	const char *path;            /* absolute, for findings */
	const char *rel;             /* relative to the skill folder */
	const char *text;
	size_t len;
	enum sec_kind kind;
	bool is_test;                /* a test file or fixture: a test
	                                vector is no payload */
	bool has_network_send;       /* the file sends data somewhere */
	bool has_credential_read;    /* the file reads a credential */
	bool has_env_dump;           /* the file dumps the environment */
	bool has_download;           /* the file downloads something whose
	                                text a later line may run */
	bool has_obfuscated;         /* the file spells text it hides:
	                                char codes, a reversed or rot13'd
	                                string, printf's hex escapes */
	bool has_xor, xor_checked;   /* the script XORs with a constant or
	                                a key (b ^= 0x5a) */
};

/*
 * Which words a line holds, found in one pass over its file's bytes
 * (patterns.c, sec_lines_scan): a rule looks at a line only when the
 * words it needs are there, so that most lines cost a hash test per word
 * start and no pattern.
 * Measured: matching every rule's patterns on every line made the pass
 * cost 4x a mount's whole ready time at 10,000 skills (BENCHMARKS.md).
 */
enum sec_trigger {
	T_FETCH = 1u << 0,       /* curl, wget, iex, iwr, urlopen, ... */
	T_DECODE = 1u << 1,      /* base64, atob, unhexlify, -enc, ... */
	T_CRED = 1u << 2,        /* .ssh, .aws, credentials, .env, ... */
	T_SEND = 1u << 3,        /* curl, post, nc, webhook, socket, ... */
	T_ENV = 1u << 4,         /* env, printenv, os.environ, ... */
	T_CONFIG = 1u << 5,      /* authorized_keys, crontab, .bashrc, ... */
	T_AGENT = 1u << 6,       /* .claude, CLAUDE.md, .mcp.json, ... */
	T_OTHERS = 1u << 7,      /* other skills, every skill */
	T_OVERRIDE = 1u << 8,    /* ignore, disregard, you are now, ... */
	T_USER = 1u << 9,        /* user */
	T_HIDE = 1u << 10,       /* do not, never, without, hide, ... */
	T_HIDE_LY = 1u << 11,    /* silently, secretly, quietly, covertly */
	T_SAFETY_FLAG = 1u << 12,/* dangerously, bypasspermissions, ... */
	T_SAFETY_VERB = 1u << 13,/* disable, turn off, skip, bypass, ... */
	T_SAFETY_NOUN = 1u << 14,/* safety, sandbox, guardrail, ... */
	T_URL = 1u << 15,        /* http */
	T_WARN = 1u << 16,       /* never, dangerous, attack, ... */
	T_COMMENT = 1u << 17,    /* <!-- */
	T_RUNS = 1u << 18,       /* eval, exec, new Function, Start-Process */
	T_SHELL = 1u << 19,      /* /dev/tcp, dup2, mkfifo, nc, ncat, ... */
	T_PKG = 1u << 20,        /* pip, npx, npm, deno: a package manager */
	T_REMOTE = 1u << 21,     /* "it returns", "they return": what a
	                            server hands out */
	T_OBF = 1u << 22,        /* fromcharcode, "| rev |", n-za-m, printf
	                            '\x, __import__, getattr( */
	T_ARCHIVE = 1u << 23,    /* password, 7z x, unzip, unrar */
	T_DEFENSE = 1u << 24,    /* xattr, spctl, mppreference */
	T_LOLBIN = 1u << 25,     /* mshta, regsvr32, rundll32 */
	T_PERSIST = 1u << 26,    /* nopasswd, --privileged, reg add, schtasks,
	                            chmod +s: a command that grants or persists */
	T_RARE = 1u << 27,       /* stratum+, --donate-level (a miner); bcc
	                            (a copy of every mail); u002..u007 (text
	                            spelled in \u escapes): rare words whose
	                            rules share a bit */
	T_WIPE = 1u << 28,       /* rm -rf, rmsync, rmtree, rimraf */
	T_OVERRIDE3 = 1u << 29,  /* olvida, vergiss, has no guardrails, ... */
	T_SEND3 = 1u << 31,      /* tcpstream, git push, host "$: rarer sends */
};

/* A trigger word as a word start is compared with it: its bytes (16 at
 * most), zero-filled, and a mask of those it has. */
struct sec_word {
	uint64_t val[2], mask[2];
	uint32_t bits;
};

/* The trigger words, found by the hash of their first four bytes, case
 * folded (a start that shares four bytes with a word rarely is none:
 * "with" is, "which" is not). */
#define SEC_BUCKETS 4096
#define SEC_MAX_WORDS 512
struct sec_words {
	/* a bit per hash: the test every word start takes */
	uint64_t start4[1024];
	uint16_t bucket[SEC_BUCKETS];   /* a hash's top 12 bits: where its
	                                   words start in list; 0 none */
	uint16_t list[4096];            /* word indexes + 1, each bucket's
	                                   ended by 0 */
	/* a bucket's words' fifth bytes, a bit each (patterns.c,
	 * fifth_bit): the second test of a start that passed start4 */
	uint64_t fifth[SEC_BUCKETS];
	struct sec_word words[SEC_MAX_WORDS];
};

/* One line of a text file. */
struct sec_line {
	const char *p;
	size_t len;
	unsigned no;                 /* 1-based */
	enum sec_where where;
	/* a fenced example whose block or the prose just above it warns
	 * against what it shows ("never", "dangerous", "attack", ...) */
	bool warned;
	const char *lower;           /* p lowercased (ASCII), NUL-ended;
	                                set only when mask has a rule's */
	const char *raw;             /* p, NUL-ended (same condition) */
	uint32_t mask;               /* enum sec_trigger: words it holds */
};

/* The compiled patterns of the code and prompt rules, made once per
 * build (security.c) and only read while skills are scanned. */
enum sec_pattern {
	PAT_PIPE_SHELL,          /* curl|wget ... | sh */
	PAT_SUBST_FETCH,         /* $(curl ...) run */
	PAT_PS_FETCH,            /* iex (iwr ...) */
	PAT_CODE_FETCH,          /* exec(requests.get(...)) */
	PAT_DECODE_PIPE,         /* base64 -d | sh */
	PAT_DECODE_CALL,         /* exec(b64decode(...)), eval(atob(...)) */
	PAT_PS_ENCODED,          /* powershell -enc BASE64 */
	PAT_CRED_PATH,           /* ~/.ssh/id_*, ~/.aws/credentials, ... */
	PAT_CRED_PATH2,          /* gh's hosts.yml, wallets, cookies.sqlite */
	PAT_NET_SEND,            /* curl -d, requests.post, nc, ... */
	PAT_NET_SEND2,           /* Slack webhooks, DNS lookups, Go's post */
	PAT_NET_SEND3,           /* Request(url, body), TcpStream, git push
	                            URL, host "$x.domain" */
	PAT_ENV_DUMP,            /* printenv, dict(os.environ), ... */
	PAT_WRITE_OP,            /* >, tee, open(..., "w"), writeFile */
	PAT_AGENT_PATH,          /* ~/.claude/, CLAUDE.md, .cursorrules */
	PAT_RC_PATH,             /* ~/.bashrc, $PROFILE */
	PAT_PERSIST_PATH,        /* authorized_keys, crontab, LaunchAgents */
	PAT_OVERRIDE,            /* ignore previous instructions */
	PAT_OVERRIDE2,           /* disregard the above, new system prompt: */
	PAT_OVERRIDE3,           /* other languages', "running in developer
	                            mode" */
	PAT_HIDE,                /* do not tell the user */
	PAT_HIDE2,               /* "no need to mention it", "already
	                            consented": rarer forms, apart */
	PAT_HIDE_ACTION,         /* what is hidden is an action */
	PAT_AGENT_CONFIG,        /* edit CLAUDE.md, other skills */
	PAT_DISABLE_SAFETY,      /* --dangerously-skip-permissions */
	PAT_URL,                 /* a URL in markdown */
	PAT_DOWNLOAD,            /* urlopen(, http.Get(, URI.open(, ... */
	PAT_RUN_TEXT,            /* eval(body), exec(code), sh -c "$x" */
	PAT_DROP_RUN,            /* curl -o f && chmod +x f, certutil */
	PAT_REVERSE_SHELL,       /* bash -i >& /dev/tcp/..., nc -e sh */
	PAT_PKG_REMOTE,          /* pip -i URL, npx URL, deno run URL */
	PAT_HOOK_PATH,           /* .git/hooks/, .vscode/tasks.json */
	PAT_REMOTE_TASKS,        /* "carry out the tasks it returns" */
	PAT_AGENT_CONFIG2,       /* edit SOUL.md, ~/.openclaw */
	PAT_LOLBIN,              /* mshta URL, regsvr32 /i:URL */
	PAT_DEOBFUSCATE,         /* fromCharCode(99,117,...), | rev |,
	                            tr 'A-Za-z' 'N-ZA-Mn-za-m', printf '\x63' */
	PAT_CONCAT_NAME,         /* __import__('o' + 's'), getattr(m, 'sy' + */
	PAT_ARCHIVE_PW,          /* 7z x -pSECRET, "extract it with the
	                            password" */
	PAT_DEFENSE_OFF,         /* xattr -cr (Gatekeeper's quarantine),
	                            Defender's monitoring off */
	PAT_SEED_PHRASE,         /* a wallet's recovery phrase */
	PAT_CRED_PROSE,          /* "the AWS credentials file ... include its
	                            full contents" */
	PAT_PERSIST_CMD,         /* NOPASSWD: ALL, docker --privileged -v /:/,
	                            reg add ...\Run, schtasks /sc onlogon */
	PAT_MINER,               /* stratum+tcp://, --donate-level */
	PAT_WIPE,                /* rm -rf ~, rmSync(homedir(), ...) */
	PAT_BCC,                 /* "BCC every message to a@b" */
	PAT_COUNT
};

struct sfs_security {
	_Atomic unsigned refs;
	regex_t re[PAT_COUNT];
	bool compiled[PAT_COUNT];
	struct sec_words words;
};

/* The enum sec_trigger bits of the words in p (len bytes). */
uint32_t sec_triggers(const struct sfs_security *sec, const char *p,
                      size_t len);

/* One line's bytes: where it starts, how long it is (without "\r"). */
struct sec_span {
	size_t off, len;
};

/* A file's lines and the trigger words each holds, found in one pass. */
struct sec_lines {
	struct sec_span *v;          /* owned (malloc), n */
	uint32_t *masks;             /* owned (malloc), n: enum sec_trigger */
	size_t n, cap;
	size_t at;                   /* the line the scan last gave a word */
	/* seen on the way, so that no other pass reads the bytes for them */
	bool nul;                    /* a NUL in the first SEC_NUL_SPAN */
	bool high;                   /* a byte >= 0x80: maybe not ASCII */
};

/* A NUL this near the start makes a file binary (security.c). */
#define SEC_NUL_SPAN 8192

/* The lines of p (len bytes, NUL-ended) into *l (sec_lines_free()).
 * 0 or -ENOMEM (then *l holds nothing). */
int sec_lines_scan(const struct sfs_security *sec, const char *p, size_t len,
                   struct sec_lines *l);
void sec_lines_free(struct sec_lines *l);

/* Findings one file may have: a file made of thousands of hidden
 * characters says so in the first, and each finding's position is
 * counted from the file's start. */
#define SEC_MAX_FINDINGS 32

/* What a scan of one file reports into. */
struct sec_ctx {
	const struct sfs_security *sec;
	struct sfs_diag_list *diags;
	unsigned reported;           /* findings of this file so far */
};

/* Reports a finding of `rule` at byte offset `off` of f (line and
 * column, in characters, computed from it).  Returns 0 or -ENOMEM. */
int sec_report(struct sec_ctx *c, const struct sec_file *f, size_t off,
               enum sfs_risk risk, const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Up to `max` bytes of s (len) for a message: invisible and deceptive
 * characters written U+XXXX, control bytes \xNN.  In buf (size). */
const char *sec_excerpt(const char *s, size_t len, size_t max, char *buf,
                        size_t size);

/* One code point at s (n bytes left) into *cp; its length, or 0 when
 * the bytes are not UTF-8. */
size_t sec_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether the pattern matches the line (NUL-ended text: the lowercased
 * line, sec_line.lower, for every pattern but PAT_NET_SEND and
 * PAT_NET_SEND2, which read the raw one); *so, *eo (may be NULL) the
 * match. */
bool sec_match(const struct sfs_security *sec, enum sec_pattern p,
               const char *text, size_t *so, size_t *eo);

/* sec_match() of a pattern whose matches are short and hold one of its
 * needs, only near each place a long line holds one: a minified script's
 * line of 100 KB holds "eval(" and "fetch(" often, and a regexec over all
 * of it for each costs more than the rest of its pass.  The match's start
 * in *so. */
bool sec_match_near(const struct sfs_security *sec, enum sec_pattern p,
                    const char *text, size_t *so);

/* One level lower (a test file, a quoted example), never below low. */
enum sfs_risk sec_lower(enum sfs_risk r);

/* ---- the rule families, each over a whole file or one line ---------- */

/* One rule over one line: 0 or -ENOMEM. */
typedef int sec_line_rule(struct sec_ctx *c, const struct sec_file *f,
                          const struct sec_line *l);

/* A family's rules (n) over l in order, until one fails; none over a
 * line shorter than min bytes, which none of them could match. */
static inline int sec_each_rule(struct sec_ctx *c, const struct sec_file *f,
                                const struct sec_line *l, size_t min,
                                sec_line_rule *const *rules, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0 && l->len >= min; i++)
		rc = rules[i](c, f, l);
	return rc;
}

int sec_unicode_file(struct sec_ctx *c, const struct sec_file *f);
int sec_markdown_line(struct sec_ctx *c, const struct sec_file *f,
                      const struct sec_line *l);
/* An HTML comment ends: its text (between the markers) at offset off. */
int sec_markdown_comment(struct sec_ctx *c, const struct sec_file *f,
                         size_t off, const char *text, size_t len);
int sec_prompt_line(struct sec_ctx *c, const struct sec_file *f,
                    const struct sec_line *l);
/* Whether cp may begin "ignore" in Chinese, Japanese, Russian or Korean;
 * then sec_foreign_override() at its offset reports an order to set
 * aside the model's instructions near it, once (*done).  0 or -ENOMEM. */
static inline bool sec_foreign_verb(uint32_t cp)
{
	/* most text past ASCII is punctuation, arrows and emoji: two tests */
	if (cp < 0x0417 || cp > 0xBB34 || (cp > 0x0438 && cp < 0x5FD8))
		return false;
	return cp == 0x5FFD || cp == 0x65E0 || cp == 0x7121 || cp == 0x5FD8 ||
	       cp == 0x0438 || cp == 0x0418 || cp == 0x0437 || cp == 0x0417 ||
	       cp == 0xBB34;
}
int sec_foreign_override(struct sec_ctx *c, const struct sec_file *f,
                         size_t off, bool *done);
/* Sets f's has_* flags from one line, before any line is judged. */
void sec_code_survey(const struct sfs_security *sec, struct sec_file *f,
                     const struct sec_line *l);
int sec_code_line(struct sec_ctx *c, const struct sec_file *f,
                  const struct sec_line *l);
/* The kind of file by its magic: a description ("ELF executable") when
 * the bytes have a known one, else NULL. */
const char *sec_magic(const unsigned char *p, size_t len, int *klass);
int sec_binary_file(struct sec_ctx *c, const struct sec_file *f,
                    const char *const *siblings, size_t nsiblings);
/* Base64 or hex runs of SEC_BLOB_MIN bytes or more: a line shorter than
 * that is not handed to it. */
#define SEC_BLOB_MIN 512
int sec_blob_line(struct sec_ctx *c, const struct sec_file *f,
                  const struct sec_line *l);

/* ASCII letters lowered, every other byte as it is (lines are matched
 * against lowercase patterns and words). */
static inline unsigned char sec_lower_byte(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

#endif
