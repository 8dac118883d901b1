/*
 * security.c - the security pass's entry points: the patterns compiled
 * once per build, one file's bytes classified, split into lines that
 * know where they stand (prose, a fenced example, code, frontmatter, an
 * HTML comment) and handed to each rule family; a whole skill read
 * through its source, each file once and at most SFS_SECURITY_MAX_BYTES
 * of it.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "security.h"
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

static unsigned char lower_byte(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

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

static int index_words(struct sec_words *t)
{
	enum { NWORDS = sizeof(words) / sizeof(*words) };
	uint16_t *count = calloc(65536, sizeof(*count));
	size_t used = 1;   /* list[0] stays 0: "no words" */
	unsigned keys[4];

	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < NWORDS; i++)
		for (int k = word_keys(&words[i], keys); k-- > 0;)
			count[keys[k]]++;
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

/* Whether some word starts with the two bytes at u + i: the test every
 * word start takes, inline; words_at() follows for the few that pass. */
static inline bool may_start(const struct sec_words *t,
                             const unsigned char *u, size_t i)
{
	unsigned k = (unsigned)u[i] << 8 | u[i + 1];
	return t->any[k >> 6] & (1ull << (k & 63));
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
		while (j < wd->n && lower_byte(u[i + j]) == (unsigned char)wd->w[j])
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
			if (i + b + 1 < len && may_start(t, u, i + b))
				mask |= words_at(t, u, i + b, len);
		}
	}
#endif
	for (; i + 1 < len; i++) {
		bool w = word_char[u[i]];
		if ((w && !before) || punct_start(u[i]))
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
	       cp >= 0xE0000 ||   /* plane 14 (tags, selectors) and up */
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

	if (risk == SFS_RISK_NONE || c->reported >= SEC_MAX_FINDINGS)
		return 0;
	c->reported++;
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

/* A fenced block warns when its own lines do too ("never", "dangerous",
 * "attack", ...): look ahead once, up to its closing fence. */
static bool block_warns(const struct sfs_security *sec, const char *p,
                        const char *end, char fence)
{
	const char *q = p;
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (!nl || (nl + 3 < end && nl[1] == fence && nl[2] == fence &&
		            nl[3] == fence)) {
			q = nl ? nl : end;
			break;
		}
		q = nl + 1;
	}
	return sec_triggers(sec, p, (size_t)(q - p)) & T_WARN;
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
                      struct walk *w, struct sec_line *l)
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
				(next && block_warns(c->sec, next, end, ch));
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
	if ((l->mask & T_COMMENT) && (f->kind == SEC_MARKDOWN ||
	    ends_with(f->rel, ".html") || ends_with(f->rel, ".htm"))) {
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
		if (l->mask & T_WARN) {
			w->warned_above = true;
			w->prose_since_warn = 0;
		} else if (++w->prose_since_warn > 3) {
			w->warned_above = false;
		}
	}
	return 0;
}

/* The words that make a line worth a rule's look. */
#define RULE_TRIGGERS (T_FETCH | T_DECODE | T_CRED | T_ENV | T_CONFIG | \
	T_AGENT | T_OTHERS | T_OVERRIDE | T_HIDE_LY | T_SAFETY_FLAG | T_URL | \
	T_USER | T_SAFETY_VERB)

/* One line's bytes: where it starts, how long it is (without "\r"). */
struct span {
	size_t off, len;
};

/* The lines of f and the words each holds; *n lines.  NULL when out of
 * memory. */
static struct span *split(const struct sfs_security *sec,
                          const struct sec_file *f, uint32_t **masks,
                          size_t *n)
{
	size_t cap = 64, k = 0;
	struct span *v = malloc(cap * sizeof(*v));
	uint32_t *m = malloc(cap * sizeof(*m));
	bool oom = !v || !m;

	for (const char *p = f->text, *end = f->text + f->len;
	     !oom && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;   /* CRLF files: the line is the same */
		if (k == cap) {
			struct span *nv = realloc(v, 2 * cap * sizeof(*v));
			if (nv)
				v = nv;
			uint32_t *nm = nv ? realloc(m, 2 * cap * sizeof(*m)) : NULL;
			if (nm)
				m = nm;
			oom = !nv || !nm;
			if (oom)
				break;
			cap *= 2;
		}
		v[k] = (struct span){ (size_t)(p - f->text), len };
		m[k++] = sec_triggers(sec, p, len);
		p = nl ? nl + 1 : end;
	}
	if (oom) {
		free(v);
		free(m);
		return NULL;
	}
	*masks = m;
	*n = k;
	return v;
}

/* The line's bytes, as they are and lowercased, NUL-ended, in *raw and
 * *lower (grown as needed).  0 or -ENOMEM. */
static int copy_line(const char *p, size_t len, char **raw, char **lower,
                     size_t *cap)
{
	if (len + 1 > *cap) {
		char *r = realloc(*raw, len + 1);
		if (r)
			*raw = r;
		char *lw = r ? realloc(*lower, len + 1) : NULL;
		if (!lw)
			return -ENOMEM;
		*lower = lw;
		*cap = len + 1;
	}
	for (size_t i = 0; i < len; i++) {
		(*raw)[i] = p[i];
		(*lower)[i] = (char)lower_byte((unsigned char)p[i]);
	}
	(*raw)[len] = (*lower)[len] = '\0';
	return 0;
}

static int scan_lines(struct sec_ctx *c, struct sec_file *f)
{
	struct walk w = { 0 };
	uint32_t *masks = NULL;
	size_t n = 0, cap = 0;
	char *raw = NULL, *lower = NULL;
	int rc = 0;
	struct span *v = split(c->sec, f, &masks, &n);

	if (!v)
		return -ENOMEM;
	/* what the whole file does, before any line is judged: a credential
	 * read weighs by whether the file also sends */
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!(masks[i] & (T_SEND | T_CRED | T_ENV)))
			continue;
		rc = copy_line(f->text + v[i].off, v[i].len, &raw, &lower, &cap);
		struct sec_line l = { .p = f->text + v[i].off, .len = v[i].len,
		                      .no = (unsigned)i + 1, .lower = lower,
		                      .raw = raw, .mask = masks[i] };
		if (rc == 0)
			sec_code_survey(c->sec, f, &l);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct sec_line l = { .p = f->text + v[i].off, .len = v[i].len,
		                      .no = (unsigned)i + 1, .mask = masks[i] };
		rc = place_line(c, f, &w, &l);
		if (rc == 0 && (l.mask & RULE_TRIGGERS)) {
			rc = copy_line(l.p, l.len, &raw, &lower, &cap);
			l.raw = raw;
			l.lower = lower;
			if (rc == 0)
				rc = sec_code_line(c, f, &l);
			if (rc == 0)
				rc = sec_prompt_line(c, f, &l);
			if (rc == 0 && f->kind != SEC_SCRIPT)
				rc = sec_markdown_line(c, f, &l);
		}
		if (rc == 0)
			rc = sec_blob_line(c, f, &l);
	}
	free(raw);
	free(lower);
	free(masks);
	free(v);
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
	if (rc == 0)
		rc = scan_lines(&c, &f);
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
		} else if (src->ops->caps & SFS_SOURCE_READS_REMOTE) {
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
