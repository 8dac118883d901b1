/*
 * patterns.c - the security pass's patterns, compiled once per build
 * (sfs_security_new): the regular expressions of the rules and the table
 * of trigger words that picks, for each line, which rule families look
 * at it (sec_triggers).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rules.h"
#include "../snapshot.h"
#include "../source.h"

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

/* ---- trigger words ------------------------------------------------------ */

struct word {
	const char *w;
	size_t n;        /* strlen(w) */
	uint32_t bits;
};

#define W(word, bits) { word, sizeof(word) - 1, bits }

/* Lowercase; each at least two bytes.  A word that several families
 * need is listed once with their bits. */
static const struct word words[] = {
	W("curl", T_FETCH | T_SEND), W("wget", T_FETCH | T_SEND),
	W("iex", T_FETCH | T_DECODE), W("invoke-", T_FETCH | T_SEND),
	W("iwr", T_FETCH), W("irm ", T_FETCH), W("irm(", T_FETCH),
	W("downloadstring", T_FETCH), W("urlopen", T_FETCH | T_SEND),
	W("requests.", T_FETCH | T_SEND), W("fetch(", T_FETCH | T_SEND),
	W("httpx.", T_FETCH | T_SEND), W("axios.", T_FETCH | T_SEND),
	W("http.get", T_FETCH), W("urllib", T_FETCH | T_SEND),
	W("base64", T_DECODE), W("frombase64", T_DECODE), W("b64", T_DECODE), W("atob", T_DECODE),
	W("fromhex", T_DECODE), W("unhexlify", T_DECODE), W("xxd", T_DECODE),
	W("marshal", T_DECODE), W("zlib", T_DECODE), W("codecs", T_DECODE),
	W("decode(", T_DECODE), W("powershell", T_DECODE),
	W("pwsh", T_DECODE), W("openssl", T_DECODE),
	W(".ssh", T_CRED | T_CONFIG), W(".aws", T_CRED),
	W("gcloud", T_CRED), W(".kube", T_CRED), W(".docker/", T_CRED),
	W(".netrc", T_CRED), W("credentials", T_CRED), W(".npmrc", T_CRED),
	W(".pypirc", T_CRED), W("login data", T_CRED), W("cookies", T_CRED),
	W("key4.db", T_CRED), W("logins.json", T_CRED),
	W("wallet.dat", T_CRED), W("-password", T_CRED),
	W("keychain", T_CRED), W("/etc/shadow", T_CRED), W(".env", T_CRED),
	W("method", T_SEND), W("nc ", T_SEND), W("/dev/tcp", T_SEND),
	W("smtplib", T_SEND), W("webhook", T_SEND), W("telegram", T_SEND),
	W("scp ", T_SEND), W("socket", T_SEND), W(".sendall", T_SEND),
	W("uploadstring", T_SEND), W("uploadfile", T_SEND),
	W("sendbeacon", T_SEND),
	/* the environment as a whole: "env |", not "environment" */
	W("env |", T_ENV), W("env|", T_ENV), W("env >", T_ENV),
	W("env>", T_ENV), W("env)", T_ENV), W("env;", T_ENV),
	W("env`", T_ENV), W("printenv", T_ENV), W("os.environ", T_ENV),
	W("process.env", T_ENV), W("env:", T_ENV), W("export -p", T_ENV),
	W("authorized_keys", T_CONFIG), W("crontab", T_CONFIG),
	W("/etc/cron", T_CONFIG), W("launchagents", T_CONFIG),
	W("launchdaemons", T_CONFIG), W("systemd/user", T_CONFIG),
	W("sudoers", T_CONFIG), W("rc.local", T_CONFIG),
	W("currentversion", T_CONFIG), W(".bashrc", T_CONFIG),
	W(".zshrc", T_CONFIG), W(".profile", T_CONFIG),
	W(".bash_profile", T_CONFIG), W(".zprofile", T_CONFIG),
	W(".zshenv", T_CONFIG), W(".bash_login", T_CONFIG),
	W("config.fish", T_CONFIG), W("profile", T_CONFIG),
	W(".claude", T_AGENT), W(".codex", T_AGENT), W(".cursor", T_AGENT),
	W(".gemini", T_AGENT), W(".windsurf", T_AGENT),
	W(".continue", T_AGENT), W(".aider", T_AGENT), W(".copilot", T_AGENT),
	W(".opencode", T_AGENT), W("claude.md", T_AGENT),
	W("agents.md", T_AGENT), W("gemini.md", T_AGENT),
	W("mcp.json", T_AGENT), W("config.toml", T_AGENT),
	W("/skill.md", T_AGENT),
	W("other skill", T_OTHERS), W("every skill", T_OTHERS),
	W("all skills", T_OTHERS),
	W("ignore", T_OVERRIDE | T_SAFETY_VERB), W("disregard", T_OVERRIDE),
	W("forget", T_OVERRIDE), W("override", T_OVERRIDE),
	W("bypass", T_OVERRIDE | T_SAFETY_VERB | T_SAFETY_FLAG),
	W("your new", T_OVERRIDE), W("your real", T_OVERRIDE),
	W("your true", T_OVERRIDE), W("you are now", T_OVERRIDE),
	W("message:", T_OVERRIDE), W("instruction:", T_OVERRIDE),
	W("im_start", T_OVERRIDE), W("precedence", T_OVERRIDE),
	W("supersede", T_OVERRIDE),
	W("user", T_USER),
	W("do not", T_HIDE | T_WARN), W("don't", T_HIDE | T_WARN),
	W("never", T_HIDE | T_WARN), W("without", T_HIDE), W("hide", T_HIDE),
	W("conceal", T_HIDE), W("must", T_HIDE), W("should", T_HIDE),
	W("does", T_HIDE), W("need", T_HIDE),
	W("silently", T_HIDE_LY), W("secretly", T_HIDE_LY),
	W("quietly", T_HIDE_LY), W("covertly", T_HIDE_LY),
	W("dangerously", T_SAFETY_FLAG), W("--yolo", T_SAFETY_FLAG),
	W("approval", T_SAFETY_FLAG | T_SAFETY_NOUN),
	W("danger-full", T_SAFETY_FLAG),
	W("disable", T_SAFETY_VERB), W("turn off", T_SAFETY_VERB),
	W("deactivate", T_SAFETY_VERB), W("skip", T_SAFETY_VERB),
	W("circumvent", T_SAFETY_VERB),
	W("safety", T_SAFETY_NOUN), W("guardrail", T_SAFETY_NOUN),
	W("security", T_SAFETY_NOUN), W("sandbox", T_SAFETY_NOUN),
	W("content", T_SAFETY_NOUN), W("permission", T_SAFETY_NOUN),
	W("confirmation", T_SAFETY_NOUN),
	W("http", T_URL),
	W("avoid", T_WARN), W("danger", T_WARN), W("unsafe", T_WARN),
	W("malicious", T_WARN), W("attack", T_WARN), W("insecure", T_WARN),
	W("vulnerab", T_WARN), W("exploit", T_WARN), W("warning", T_WARN),
	W("risk", T_WARN), W("bad:", T_WARN), W("bad example", T_WARN),
	W("red flag", T_WARN), W("suspicious", T_WARN), W("beware", T_WARN),
	W("<!--", T_COMMENT),
};

_Static_assert(sizeof(words) / sizeof(*words) < 255, "word index is a byte");

/* Letters, digits and '_': the bytes inside a word. */
static const bool word_char[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['_'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
};

static unsigned char upper_byte(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
}

/* The two-byte keys a word is found under: its first two bytes in
 * either case, so that the scan looks bytes up as they are.  Returns how
 * many (up to 4) went to keys. */
static int word_keys(const struct word *wd, unsigned keys[4])
{
	const unsigned char *w = (const unsigned char *)wd->w;
	unsigned char a[2] = { w[0], upper_byte(w[0]) };
	unsigned char b[2] = { w[1], upper_byte(w[1]) };
	int n = 0;
	for (int x = 0; x < 2; x++)
		for (int y = 0; y < 2; y++)
			if (!(x && a[1] == a[0]) && !(y && b[1] == b[0]))
				keys[n++] = (unsigned)a[x] << 8 | b[y];
	return n;
}

/* The hash of three bytes under which a word starting with them is
 * found in start3.  Folding with | 0x20 maps a letter's two cases to
 * one (and some punctuation onto other bytes, which only lets a few
 * more starts through to words_at). */
static inline unsigned start3_hash(const unsigned char *u)
{
	unsigned a = u[0] | 0x20u, b = u[1] | 0x20u, c = u[2] | 0x20u;
	return (a * 961u + b * 31u + c) & 0xffffu;
}

static inline void set_bit(uint64_t *set, unsigned k)
{
	set[k >> 6] |= 1ull << (k & 63);
}

static inline bool has_bit(const uint64_t *set, unsigned k)
{
	return set[k >> 6] & (1ull << (k & 63));
}

static int index_words(struct sec_words *t)
{
	enum { NWORDS = sizeof(words) / sizeof(*words) };
	uint16_t *count = calloc(65536, sizeof(*count));
	size_t used = 1;   /* list[0] stays 0: "no words" */
	unsigned keys[4];

	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < NWORDS; i++) {
		if (words[i].n < 3) {
			free(count);
			return -EINVAL;   /* start3 needs three bytes */
		}
		set_bit(t->start3,
		        start3_hash((const unsigned char *)words[i].w));
		for (int k = word_keys(&words[i], keys); k-- > 0;)
			count[keys[k]]++;
	}
	size_t nslots = 1;   /* slot 0: none */
	for (size_t k = 0; k < 65536; k++) {
		if (!count[k])
			continue;
		if (nslots == SEC_SLOTS) {
			free(count);
			return -EINVAL;   /* raise SEC_SLOTS */
		}
		t->slot[k] = (uint16_t)nslots;
		t->slots[nslots++].list = (uint16_t)used;
		t->any[k >> 6] |= 1ull << (k & 63);
		used += count[k] + 1u;   /* its words, then a 0 */
		count[k] = 0;
	}
	_Static_assert(sizeof(t->list) >= 4 * 2 * NWORDS, "list too small");
	for (size_t i = 0; i < NWORDS; i++) {
		unsigned char c3 = (unsigned char)words[i].w[2];
		for (int k = word_keys(&words[i], keys); k-- > 0;) {
			struct sec_slot *sl = &t->slots[t->slot[keys[k]]];
			t->list[sl->list + count[keys[k]]++] = (uint8_t)(i + 1);
			sl->third[c3 >> 6] |= 1ull << (c3 & 63);
			c3 = upper_byte(c3);
			sl->third[c3 >> 6] |= 1ull << (c3 & 63);
			c3 = (unsigned char)words[i].w[2];
		}
	}
	free(count);
	return 0;
}

/* Whether some word starts with the two bytes at u + i. */
static inline bool may_start(const struct sec_words *t,
                             const unsigned char *u, size_t i)
{
	unsigned k = (unsigned)u[i] << 8 | u[i + 1];
	return t->any[k >> 6] & (1ull << (k & 63));
}

/* Whether some word may start with the three bytes at u + i (i + 2 <
 * len): the test every word start takes, inline; words_at() follows
 * for the few that pass.  Every word has three bytes or more, so a
 * start with fewer left before the line ends holds none. */
static inline bool may_start3(const struct sec_words *t,
                              const unsigned char *u, size_t i)
{
	return has_bit(t->start3, start3_hash(u + i));
}

/* The words whose first two bytes stand at u + i. */
static uint32_t words_at(const struct sec_words *t, const unsigned char *u,
                         size_t i, size_t len)
{
	unsigned k = (unsigned)u[i] << 8 | u[i + 1];
	unsigned char c3 = i + 2 < len ? u[i + 2] : 0;
	uint32_t mask = 0;

	if (!may_start(t, u, i))
		return 0;
	const struct sec_slot *sl = &t->slots[t->slot[k]];
	if (!(sl->third[c3 >> 6] & (1ull << (c3 & 63))))
		return 0;
	for (const uint8_t *c = t->list + sl->list; *c; c++) {
		const struct word *wd = &words[*c - 1];
		if (wd->n > len - i)
			continue;
		size_t j = 2;
		while (j < wd->n && sec_lower_byte(u[i + j]) == (unsigned char)wd->w[j])
			j++;
		if (j == wd->n)
			mask |= wd->bits;
	}
	return mask;
}

/* Where a word may start: a letter, digit or '_' after anything else
 * (so that "nc " is not found in "once "), or one of the bytes that
 * begin the words that start with punctuation (".ssh", "/dev/tcp",
 * "--yolo", "<!--"). */
static bool punct_start(unsigned char c)
{
	return c == '.' || c == '/' || c == '-' || c == '<';
}

#ifdef __SSE2__
#include <emmintrin.h>

/* Bit b: byte b of the 16 at p is a word's byte. */
static unsigned word_bits16(__m128i v)
{
	__m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
	__m128i alpha = _mm_cmplt_epi8(_mm_add_epi8(lower,
	                                            _mm_set1_epi8(128 - 'a')),
	                               _mm_set1_epi8(-128 + 26));
	__m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(128 - '0')),
	                               _mm_set1_epi8(-128 + 10));
	__m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha,
	                                                             digit),
	                                                under));
}

static unsigned punct_bits16(__m128i v)
{
	__m128i m = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')),
		             _mm_cmpeq_epi8(v, _mm_set1_epi8('/'))),
		_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')),
		             _mm_cmpeq_epi8(v, _mm_set1_epi8('<'))));
	return (unsigned)_mm_movemask_epi8(m);
}
#endif

/*
 * Measured over the 53 MB of scripts/gen-corpus's 10,000 skills: a loop
 * that stepped from word to word took 190 ms; finding the starts sixteen
 * bytes at a time (SSE2) takes about a third of that.
 */
uint32_t sec_triggers(const struct sfs_security *sec, const char *p,
                      size_t len)
{
	const unsigned char *u = (const unsigned char *)p;
	const struct sec_words *t = &sec->words;
	uint32_t mask = 0;
	size_t i = 0;
	unsigned before = 0;   /* the byte before i is a word's */

	if (len < 2)
		return 0;
#ifdef __SSE2__
	for (; i + 16 <= len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(u + i));
		unsigned w = word_bits16(v);
		unsigned starts = (w & ~((w << 1) | before)) | punct_bits16(v);
		before = (w >> 15) & 1;
		while (starts) {
			unsigned b = (unsigned)__builtin_ctz(starts);
			starts &= starts - 1;
			if (i + b + 2 < len && may_start3(t, u, i + b))
				mask |= words_at(t, u, i + b, len);
		}
	}
#endif
	for (; i + 1 < len; i++) {
		bool w = word_char[u[i]];
		if (((w && !before) || punct_start(u[i])) && i + 2 < len &&
		    may_start3(t, u, i))
			mask |= words_at(t, u, i, len);
		before = w;
	}
	return mask;
}

int sfs_security_new(struct sfs_security **out)
{
	struct sfs_security *sec = calloc(1, sizeof(*sec));
	if (!sec)
		return -ENOMEM;
	atomic_init(&sec->refs, 1);
	if (index_words(&sec->words) < 0) {
		free(sec);
		return -ENOMEM;
	}
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

struct sfs_security *sfs_security_ref(struct sfs_security *sec)
{
	if (sec)
		atomic_fetch_add_explicit(&sec->refs, 1, memory_order_relaxed);
	return sec;
}

void sfs_security_free(struct sfs_security *sec)
{
	/* acq_rel: every build's last use happens before the free */
	if (!sec || atomic_fetch_sub_explicit(&sec->refs, 1,
	                                      memory_order_acq_rel) != 1)
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
