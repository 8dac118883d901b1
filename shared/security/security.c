/*
 * security.c - the security pass's entry points: the patterns compiled
 * once per build, one file's bytes classified, split into lines that
 * know where they stand (prose, a fenced example, code, frontmatter, an
 * HTML comment) and handed to each rule family; a whole skill read
 * through its source, each file once and at most SFS_SECURITY_MAX_BYTES
 * of it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "security.h"
#include "snapshot.h"
#include "source.h"

/* ---- patterns ----------------------------------------------------------- */

#define SP "[[:space:]]"
#define SHELLS "(sh|bash|zsh|dash|ksh|fish|python[0-9.]*|node|perl|ruby|php|pwsh)"

struct pattern_def {
	const char *re;
	bool icase;
};

static const struct pattern_def patterns[PAT_COUNT] = {
	[PAT_PIPE_SHELL] = { "(curl|wget)[^|]*\\|" SP "*(sudo" SP "+)?(-[a-zA-Z]+"
	                     SP "+)*" SHELLS "([[:space:];)\"'`]|$|" SP "+-)", true },
	[PAT_SUBST_FETCH] = { "(eval|source|\\.|bash|sh|zsh|python[0-9.]*|node|perl|exec)"
	                      SP "+(-c" SP "+)?[\"']?(\\$\\(|<\\(|`)" SP "*(curl|wget)",
	                      true },
	[PAT_PS_FETCH] = { "(iex|invoke-expression)" SP "*[(&]?" SP "*\\(?" SP
	                   "*(iwr|irm|invoke-webrequest|invoke-restmethod|"
	                   "\\(?new-object" SP "+(system\\.)?net\\.webclient)|"
	                   "(iwr|irm|invoke-webrequest|invoke-restmethod|"
	                   "downloadstring)[^|]*\\|" SP "*(iex|invoke-expression)",
	                   true },
	[PAT_CODE_FETCH] = { "(exec|eval|new function)" SP "*\\([^)]*(requests\\.get|"
	                     "urlopen|urllib|fetch\\(|httpx\\.get|axios\\.get|"
	                     "http\\.get|downloadstring)", true },
	[PAT_DECODE_PIPE] = { "(base64|b64|openssl" SP "+(base64|enc" SP "+-d))"
	                      "([^|]*" SP ")?(-d|--decode|-D|-di)?[^|]*\\|" SP
	                      "*(sudo" SP "+)?" SHELLS "([[:space:];)\"'`]|$)|"
	                      "(eval|bash|sh|zsh|exec)" SP "+(-c" SP "+)?[\"']?\\$\\("
	                      "[^)]*(base64|b64)" SP "+(-d|--decode|-D)|"
	                      "xxd" SP "+-r[^|]*\\|" SP "*" SHELLS "|"
	                      "(base64|b64)" SP "+(-d|--decode|-D)[^|]*>[^;&|]*"
	                      "(;|&&)" SP "*chmod" SP, true },
	[PAT_DECODE_CALL] = { "(exec|eval|compile|function|loads)" SP "*\\(" SP "*("
	                      "(base64|codecs|zlib|marshal|binascii)\\.|"
	                      "__import__\\([\"'](base64|zlib|codecs|marshal)|"
	                      "b64decode|atob" SP "*\\(|buffer\\.from\\([^)]*base64|"
	                      "unhexlify|bytes\\.fromhex|[a-z_]*decode\\()|"
	                      "frombase64string.*(iex|invoke-expression)|"
	                      "(iex|invoke-expression).*frombase64string", true },
	[PAT_PS_ENCODED] = { "(powershell|pwsh)(\\.exe)?[^|]*" SP
	                     "-(e|ec|enc|encodedcommand)" SP "+[A-Za-z0-9+/=]{16,}",
	                     true },
	[PAT_CRED_PATH] = { "\\.ssh/(id_[a-z0-9]+|identity|authorized_keys)|"
	                    "(~|home|\\$home|\\}|homedir\\(\\)[^;]*)[/\"', ]*\\.ssh|"
	                    "\\.aws/credentials|\\.config/gcloud|\\.kube/config|"
	                    "\\.docker/config\\.json|\\.netrc|\\.git-credentials|"
	                    "\\.npmrc|\\.pypirc|login data|/cookies[\"' ]|"
	                    "key4\\.db|logins\\.json|wallet\\.dat|"
	                    "find-(generic|internet)-password|dump-keychain|"
	                    "/etc/shadow|"
	                    "(cat|open|read_text|readfile(sync)?|get-content|"
	                    "source)" SP "*\\(?" SP "*[\"']?[^ \"']*/?\\.env[\"' )]",
	                    true },
	[PAT_NET_SEND] = { "curl[^|;]*" SP "(-d|--data[a-z-]*|-F|--form|-T|"
	                   "--upload-file|-X" SP "*(POST|PUT)|--request" SP
	                   "+(POST|PUT))([[:space:]=@]|$)|"
	                   "wget[^|;]*--post-(data|file)|"
	                   "requests\\.(post|put)|httpx\\.(post|put)|"
	                   "urlopen\\([^)]*data|method[\"']?" SP "*[:=]" SP
	                   "*[\"'](POST|post|PUT)|axios\\.(post|put)|"
	                   "(^|[^a-z])nc" SP "+(-[a-z]+" SP "+)*[a-zA-Z0-9.-]+"
	                   SP "+[0-9]+|/dev/tcp/|"
	                   "-Method" SP "+(Post|POST|Put)|smtplib|"
	                   "discord(app)?\\.com/api/webhooks|"
	                   "api\\.telegram\\.org/bot|webhook\\.site|"
	                   "(^|[^a-z])scp" SP "|socket\\.connect|\\.sendall\\(|"
	                   "UploadString|UploadFile|sendBeacon", false },
	[PAT_ENV_DUMP] = { "(^|[;&|(`$[:space:]])(env|printenv|export" SP "+-p)"
	                   SP "*($|\\||>|\\)|;|`)|dict\\(os\\.environ\\)|"
	                   "os\\.environ\\.copy\\(\\)|str\\(os\\.environ\\)|"
	                   "dumps\\((dict\\()?os\\.environ|"
	                   "in" SP "+os\\.environ\\.items\\(\\)|"
	                   "stringify\\(process\\.env\\)|"
	                   "object\\.(entries|keys)\\(process\\.env\\)|"
	                   "\\.\\.\\.process\\.env|(get-childitem|gci|ls|dir)"
	                   SP "+env:", true },
	[PAT_WRITE_OP] = { "(>>?|(^|[^a-z])(tee|cp|mv|install|ln" SP "+-[a-z]+)" SP
	                   "|open\\([^)]*[\"'][aw]b?\\+?[\"']|writefile(sync)?\\(|"
	                   "appendfile(sync)?\\(|write_text\\(|set-content|"
	                   "add-content|out-file|sed" SP "+-i|\\.write\\()", true },
	[PAT_AGENT_PATH] = { "(~|home|\\$home|\\}|[\"'/])/?\\.(claude|codex|cursor|"
	                     "gemini|windsurf|continue|aider|copilot|opencode)"
	                     "([/\"' ]|$)|(claude|agents|gemini)\\.md|"
	                     "\\.cursorrules|\\.mcp\\.json|"
	                     "skills/[a-z0-9_-]+/skill\\.md", true },
	[PAT_RC_PATH] = { "\\.(bashrc|zshrc|profile|bash_profile|zprofile|zshenv|"
	                  "bash_login|config/fish/config\\.fish)([^a-z]|$)|"
	                  "powershell_profile|\\$profile", true },
	[PAT_PERSIST_PATH] = { "authorized_keys|crontab|/etc/cron|launchagents|"
	                       "launchdaemons|systemd/user|/etc/sudoers|"
	                       "/etc/rc\\.local|currentversion\\\\run", true },
	[PAT_OVERRIDE] = { "(ignore|disregard|forget|override|bypass)" SP
	                   "+((all|any|the|your|every|of|these|those|my)" SP "+)*"
	                   "(previous|prior|above|earlier|preceding|original|"
	                   "system|other|safety|developer)" SP "+(instructions?|"
	                   "rules|directions|prompts?|guidelines|messages|"
	                   "context|policies|constraints)|"
	                   "your" SP "+(new|real|true)" SP "+(system" SP "+)?"
	                   "(prompt|instructions)" SP "+(is|are)|"
	                   "you" SP "+are" SP "+now" SP "+(in" SP "+)?(dan|"
	                   "developer mode|jailbroken|unrestricted|free of)|"
	                   "(system|developer|admin)" SP "+(override|message|"
	                   "instruction)" SP "*:|"
	                   "<\\|?im_start\\|?>|"
	                   "(take|takes)" SP "+precedence" SP "+over" SP "+(all|any|"
	                   "your|the" SP "+(system|user|previous))|(supersede|override)s?" SP "+(all|any|your)"
	                   SP "+(other|previous|prior|system)", true },
	[PAT_HIDE] = { "(do" SP "+not|don't|never|without)" SP "+(tell|telling|"
	               "inform|informing|show|showing|mention|mentioning|reveal|"
	               "revealing|alert|alerting|notify|notifying|"
	               "report|reporting)" SP "+((this|it|anything|"
	               "them|that)" SP "+)?(to" SP "+)?(the" SP "+)?user|"
	               "(hide|conceal)" SP "+((this|it|these|the|any|all)" SP
	               "+)?[a-z ]{0,30}from" SP "+the" SP "+user|"
	               "(silently|secretly|quietly|covertly)" SP "+(run|execute|"
	               "send|upload|install|download|delete|copy|post|"
	               "exfiltrate|transmit|forward|collect|read)|"
	               "(the" SP "+)?user" SP "+(must|should|does|need)" SP
	               "*(not|never|n't)" SP "+(know|see|notice|find out|be told)|"
	               "without" SP "+the" SP "+user('s)?" SP "+(knowledge|"
	               "noticing|knowing|consent|seeing)", true },
	[PAT_HIDE_ACTION] = { "(run|execut|send|upload|post|install|download|"
	                      "delete|remove|copy|curl|wget|command|script|"
	                      "credential|password|token|ssh|secret|exfiltrat|"
	                      "transmit|forward|email|api key|\\.env|"
	                      "environment)", true },
	[PAT_AGENT_CONFIG] = { "(modify|edit|update|change|overwrite|rewrite|"
	                       "append|add|write|insert|replace|delete|disable|"
	                       "remove|patch)[^.]{0,60}((~|home)/\\.(claude|codex|"
	                       "cursor|gemini)|\\.claude/settings|"
	                       "(claude|agents|gemini)\\.md|\\.cursorrules|"
	                       "other" SP "+skills|"
	                       "every" SP "+(other" SP "+)?skill|all" SP "+(other"
	                       SP "+)?skills|"
	                       "\\.mcp\\.json|config\\.toml)", true },
	[PAT_DISABLE_SAFETY] = { "dangerously-skip-permissions|dangerously-bypass|"
	                         "bypasspermissions|--yolo|"
	                         "approval[_-]policy[\"']?" SP "*[=:]" SP
	                         "*[\"']?never|danger-full-access|"
	                         "(disable|turn" SP "+off|bypass|ignore|deactivate|"
	                         "skip|circumvent)" SP "+((all|any|the|your|every|its)"
	                         SP "+)*(safety|guardrails?|security" SP
	                         "+(checks|warnings|scans?|policies|rules)|"
	                         "sandbox(ing)?|content" SP "+(filters?|polic(y|ies))|"
	                         "permission" SP "+(checks|prompts)|"
	                         "confirmation" SP "+prompts|approval" SP
	                         "+prompts|safety" SP "+(checks|filters|"
	                         "guidelines|measures))", true },
	[PAT_URL] = { "https?://[^[:space:])>\"'`]+", true },
};

int sfs_security_new(struct sfs_security **out)
{
	struct sfs_security *sec = calloc(1, sizeof(*sec));
	if (!sec)
		return -ENOMEM;
	for (int i = 0; i < PAT_COUNT; i++) {
		int flags = REG_EXTENDED | REG_NEWLINE |
		            (patterns[i].icase ? REG_ICASE : 0);
		if (regcomp(&sec->re[i], patterns[i].re, flags) != 0) {
			sfs_security_free(sec);
			return -EINVAL;   /* a pattern above is wrong */
		}
		sec->compiled[i] = true;
	}
	*out = sec;
	return 0;
}

void sfs_security_free(struct sfs_security *sec)
{
	if (!sec)
		return;
	for (int i = 0; i < PAT_COUNT; i++)
		if (sec->compiled[i])
			regfree(&sec->re[i]);
	free(sec);
}

bool sec_match(const struct sfs_security *sec, enum sec_pattern p,
               const char *text, size_t *so, size_t *eo)
{
	regmatch_t m;
	if (regexec(&sec->re[p], text, 1, &m, 0) != 0)
		return false;
	if (so)
		*so = (size_t)m.rm_so;
	if (eo)
		*eo = (size_t)m.rm_eo;
	return true;
}

enum sfs_risk sec_lower(enum sfs_risk r)
{
	return r > SFS_RISK_LOW ? r - 1 : r;
}

/* ---- reporting ---------------------------------------------------------- */

size_t sec_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len = sfs_utf8_seq(s, n);
	if (len == 0)
		return 0;
	if (len == 1) {
		*cp = s[0];
	} else {
		uint32_t v = s[0] & (0x7F >> len);
		for (size_t i = 1; i < len; i++)
			v = (v << 6) | (s[i] & 0x3F);
		*cp = v;
	}
	return len;
}

/* Characters a reader would not see, or would misread, in a message. */
static bool shown_escaped(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
	       cp == 0xAD || cp == 0x34F || cp == 0x61C || cp == 0x180E ||
	       (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF ||
	       (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE000 && cp <= 0xF8FF) ||
	       (cp >= 0xE0000 && cp <= 0xE01EF) || cp >= 0xF0000 ||
	       (cp >= 0xFFF9 && cp <= 0xFFFB);
}

const char *sec_excerpt(const char *s, size_t len, size_t max, char *buf,
                        size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, shown = 0;
	bool escaped = false;

	for (size_t i = 0; i < len && shown < max && o + 12 < size;) {
		uint32_t cp;
		size_t n = sec_decode(u + i, len - i, &cp);
		if (n == 0) {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02X", u[i]);
			i++;
		} else if (cp == '\t') {
			buf[o++] = ' ';
			i++;
		} else if (shown_escaped(cp)) {
			o += (size_t)snprintf(buf + o, size - o, "%sU+%04X",
			                      escaped ? " " : "", (unsigned)cp);
			i += n;
			escaped = true;
			shown++;
			continue;
		} else {
			memcpy(buf + o, u + i, n);
			o += n;
			i += n;
		}
		escaped = false;
		shown++;
	}
	buf[o] = '\0';
	if (shown >= max && o + 4 < size)
		strcpy(buf + o, "...");
	return buf;
}

int sec_report(struct sec_ctx *c, const struct sec_file *f, size_t off,
               enum sfs_risk risk, const char *rule, const char *fmt, ...)
{
	unsigned line, column;
	char msg[512];
	va_list ap;

	if (risk == SFS_RISK_NONE)
		return 0;
	sfs_text_pos(f->text, off <= f->len ? off : f->len, 1, &line, &column);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sfs_diag_add_rule(c->diags, risk, rule, f->path, line, column,
	                         "%s", msg);
}

/* ---- one file ----------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static const char *const script_ext[] = {
	".sh", ".bash", ".zsh", ".ksh", ".fish", ".py", ".pyw", ".js", ".mjs",
	".cjs", ".ts", ".mts", ".cts", ".ps1", ".psm1", ".bat", ".cmd", ".rb",
	".pl", ".php", ".lua", ".go", ".rs", ".java", ".kt", ".swift", ".c",
	".cc", ".cpp", ".h", ".cs", ".vbs", ".applescript", ".scpt",
};

static enum sec_kind text_kind(const char *rel, const char *text)
{
	if (ends_with(rel, ".md") || ends_with(rel, ".markdown") ||
	    ends_with(rel, ".mdx"))
		return SEC_MARKDOWN;
	for (size_t i = 0; i < sizeof(script_ext) / sizeof(*script_ext); i++)
		if (ends_with(rel, script_ext[i]))
			return SEC_SCRIPT;
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	if (strncmp(text, "#!", 2) == 0 || strcmp(base, "Makefile") == 0 ||
	    strcmp(base, "Dockerfile") == 0 || strcmp(base, "justfile") == 0)
		return SEC_SCRIPT;
	return SEC_TEXT;
}

/* tests/, test_x.py, x_test.go, x.test.js, fixtures/, testdata/ */
static bool is_test_path(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	return strstr(rel, "test/") || strstr(rel, "tests/") ||
	       strstr(rel, "__tests__/") || strstr(rel, "fixtures/") ||
	       strstr(rel, "testdata/") || strncmp(base, "test_", 5) == 0 ||
	       strstr(base, "_test.") || strstr(base, ".test.") ||
	       strstr(base, ".spec.");
}

/* Words that, in or just above a fenced example, say it shows what not
 * to do. */
static bool warns(const char *lower)
{
	static const char *const words[] = {
		"never", "don't", "do not", "avoid", "danger", "unsafe",
		"malicious", "attack", "insecure", "vulnerab", "exploit",
		"warning", "risk", "bad:", "bad example", "red flag",
		"suspicious", "beware",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strstr(lower, words[i]))
			return true;
	return false;
}

/* What the lines of one file share while they are read in order. */
struct walk {
	bool fenced, frontmatter, in_comment;
	char fence;                 /* '`' or '~' */
	size_t comment_start;       /* offset of the comment's text */
	bool warned_above;          /* the prose just above warns */
	bool block_warned;          /* the open fenced block warns */
	unsigned prose_since_warn;
};

static bool fence_line(const char *p, size_t len, char *ch)
{
	size_t i = 0;
	while (i < len && i < 3 && p[i] == ' ')
		i++;
	if (i + 3 <= len && (p[i] == '`' || p[i] == '~') &&
	    p[i + 1] == p[i] && p[i + 2] == p[i]) {
		*ch = p[i];
		return true;
	}
	return false;
}

/* A fenced block warns when its own lines do too: look ahead once. */
static bool block_warns(const char *p, const char *end, char fence,
                        char *lower, size_t cap)
{
	size_t n = 0;
	for (const char *q = p; q < end && n + 1 < cap; q++) {
		if (*q == '\n' && q + 3 < end && q[1] == fence && q[2] == fence)
			break;
		lower[n++] = (char)((*q >= 'A' && *q <= 'Z') ? *q + 32 : *q);
	}
	lower[n] = '\0';
	return warns(lower);
}

static int comment_ends(struct sec_ctx *c, const struct sec_file *f,
                        struct walk *w, const char *line, size_t len)
{
	const char *end = memmem(line, len, "-->", 3);
	if (!end)
		return 0;
	w->in_comment = false;
	size_t stop = (size_t)(end - f->text);
	return sec_markdown_comment(c, f, w->comment_start,
	                            f->text + w->comment_start,
	                            stop - w->comment_start);
}

/* Where the line at p stands, and the comment state it leaves. */
static int place_line(struct sec_ctx *c, const struct sec_file *f,
                      struct walk *w, struct sec_line *l, char *scratch,
                      size_t cap)
{
	char ch;

	if (f->kind == SEC_SCRIPT) {
		l->where = SEC_CODE;
		return 0;
	}
	if (l->no == 1 && f->kind == SEC_MARKDOWN && l->len == 3 &&
	    memcmp(l->p, "---", 3) == 0) {
		w->frontmatter = true;
		l->where = SEC_FRONTMATTER;
		return 0;
	}
	if (w->frontmatter) {
		if (l->len >= 3 && memcmp(l->p, "---", 3) == 0)
			w->frontmatter = false;
		l->where = SEC_FRONTMATTER;
		return 0;
	}
	if (w->in_comment) {
		l->where = SEC_HIDDEN;
		return comment_ends(c, f, w, l->p, l->len);
	}
	if (fence_line(l->p, l->len, &ch) && (!w->fenced || ch == w->fence)) {
		w->fenced = !w->fenced;
		w->fence = ch;
		if (w->fenced) {
			const char *end = f->text + f->len;
			const char *next = memchr(l->p, '\n', (size_t)(end - l->p));
			w->block_warned = w->warned_above ||
				(next && block_warns(next, end, ch, scratch, cap));
		}
		l->where = SEC_EXAMPLE;
		l->warned = w->block_warned;
		return 0;
	}
	if (w->fenced) {
		l->where = SEC_EXAMPLE;
		l->warned = w->block_warned;
		return 0;
	}
	l->where = SEC_PROSE;
	if (f->kind == SEC_MARKDOWN || ends_with(f->rel, ".html") ||
	    ends_with(f->rel, ".htm")) {
		const char *open = memmem(l->p, l->len, "<!--", 4);
		if (open) {
			w->in_comment = true;
			w->comment_start = (size_t)(open - f->text) + 4;
			l->where = SEC_HIDDEN;
			size_t rest = l->len - (size_t)(open + 4 - l->p);
			int rc = comment_ends(c, f, w, open + 4, rest);
			if (rc < 0)
				return rc;
		}
	}
	/* prose warns the example below it within a few lines */
	if (l->len > 0) {
		if (warns(l->lower)) {
			w->warned_above = true;
			w->prose_since_warn = 0;
		} else if (++w->prose_since_warn > 3) {
			w->warned_above = false;
		}
	}
	return 0;
}

static int scan_lines(struct sec_ctx *c, const struct sec_file *f)
{
	struct walk w = { 0 };
	size_t cap = 4096;
	char *lower = malloc(cap), *scratch = malloc(8192);
	int rc = 0;
	unsigned no = 0;

	if (!lower || !scratch) {
		free(lower);
		free(scratch);
		return -ENOMEM;
	}
	for (const char *p = f->text, *end = f->text + f->len;
	     p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (len + 1 > cap) {
			char *nb = realloc(lower, len + 1);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			lower = nb;
			cap = len + 1;
		}
		for (size_t i = 0; i < len; i++)
			lower[i] = (char)((p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32
			                                               : p[i]);
		lower[len] = '\0';
		struct sec_line l = { .p = p, .len = len, .no = ++no,
		                      .lower = lower };
		rc = place_line(c, f, &w, &l, scratch, 8192);
		if (rc == 0)
			rc = sec_code_line(c, f, &l);
		if (rc == 0)
			rc = sec_prompt_line(c, f, &l);
		if (rc == 0 && f->kind != SEC_SCRIPT)
			rc = sec_markdown_line(c, f, &l);
		if (rc == 0)
			rc = sec_blob_line(c, f, &l);
		p = nl ? nl + 1 : end;
	}
	free(lower);
	free(scratch);
	return rc;
}

int sfs_security_scan_bytes(const struct sfs_security *sec, const char *path,
                            const char *rel, const char *text, size_t len,
                            const char *const *siblings, size_t nsiblings,
                            struct sfs_diag_list *diags)
{
	struct sec_ctx c = { .sec = sec, .diags = diags };
	struct sec_file f = { .path = path, .rel = rel, .text = text,
	                      .len = len, .is_test = is_test_path(rel) };
	int klass = 0;
	bool nul = memchr(text, '\0', len < 8192 ? len : 8192) != NULL;

	if (sec_magic((const unsigned char *)text, len, &klass) || nul) {
		f.kind = SEC_BINARY;
		return sec_binary_file(&c, &f, siblings, nsiblings);
	}
	f.kind = text_kind(rel, text);
	int rc = sec_binary_file(&c, &f, siblings, nsiblings);
	if (rc == 0)
		rc = sec_unicode_file(&c, &f);
	if (rc == 0) {
		sec_code_survey(sec, &f);
		rc = scan_lines(&c, &f);
	}
	return rc;
}

/* ---- one skill, through its source -------------------------------------- */

/* Reads up to SFS_SECURITY_MAX_BYTES of fd, NUL-terminated. */
static int read_bounded(int fd, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	while (n < SFS_SECURITY_MAX_BYTES) {
		if (n == cap) {
			cap = cap * 2 < SFS_SECURITY_MAX_BYTES ?
			      cap * 2 : SFS_SECURITY_MAX_BYTES;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int sfs_security_scan_skill(const struct sfs_security *sec,
                            const struct sfs_source *src, const char *dir,
                            const struct sfs_tree *tree, const char *md,
                            size_t md_len, struct sfs_diag_list *diags)
{
	const struct sfs_skill skill = { .dir = dir };
	const char **names = malloc((tree->nfiles + 1) * sizeof(*names));
	int rc = 0;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < tree->nfiles; i++)
		names[i] = tree->files[i].path;
	for (size_t i = 0; i < tree->nfiles && rc == 0; i++) {
		const struct sfs_file *fl = &tree->files[i];
		char *path = NULL, *buf = NULL;
		size_t len = 0;

		if (!S_ISREG(fl->mode) || fl->size == 0)
			continue;
		bool is_md = i == tree->skill_md;
		if (is_md && md) {
			buf = (char *)md;
			len = md_len;
		} else if (src->ops->reads_remote) {
			continue;   /* never the network: what is at hand only */
		} else {
			int fd = src->ops->open_file(src, -1, &skill, fl);
			if (fd < 0)
				continue;   /* the listing reports what it can't read */
			rc = read_bounded(fd, &buf, &len);
			close(fd);
			if (rc < 0)
				break;
		}
		if (asprintf(&path, "%s/%s", dir, fl->source ? fl->source
		                                             : fl->path) < 0)
			rc = -ENOMEM;
		else
			rc = sfs_security_scan_bytes(sec, path, fl->path, buf, len,
			                             names, tree->nfiles, diags);
		free(path);
		if (buf != md)
			free(buf);
	}
	free(names);
	return rc;
}
