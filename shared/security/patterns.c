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

/* No ^ or $ in the patterns of the prompt rules, which run on every line
 * that holds "ignore", "never", "skip" and the like: in glibc an anchor
 * inside a pattern makes regexec ask each byte's context, which cost
 * those three patterns about half again per call (callgrind).
 *
 * icase: the pattern reads the lowercased line (sec_line.lower), so it is
 * compiled lowercased and without REG_ICASE (compile_lowered): on text
 * with no ASCII capitals the two match alike in the C locale, and glibc's
 * REG_ICASE path is several times slower. */
struct pattern_def {
	const char *re;
	bool icase;
	/* NULL-ended: every match holds one of these, so a line that holds
	 * none is turned away by strstr before regexec (most lines a rule's
	 * trigger words send here are); none: every line goes to regexec */
	const char *needs[32];
};

static const struct pattern_def patterns[PAT_COUNT] = {
	/* "| sh</string>": a plist's or XML's element ends the command */
	[PAT_PIPE_SHELL] = { "(curl|wget)[^|]*\\|" SP "*(sudo" SP "+)?(-[a-zA-Z]+"
	                     SP "+)*" SHELLS "([[:space:];)\"'`<]|$|" SP "+-)", true,
	  { "curl", "wget" } },
	[PAT_SUBST_FETCH] = { "(eval|source|(^|[;&|(])" SP "*\\.|bash|sh|zsh|python[0-9.]*|"
	                      "node|perl|ruby|php|pwsh|exec)"
	                      SP "+(-[ce]" SP "+)?[\"']?(\\$\\(|<\\(|`)" SP "*(curl|wget)",
	                      true,
	  { "curl", "wget" } },
	[PAT_PS_FETCH] = { "(iex|invoke-expression)" SP "*[(&]?" SP "*\\(?" SP
	                   "*(iwr|irm|invoke-webrequest|invoke-restmethod|"
	                   "\\(?new-object" SP "+(system\\.)?net\\.webclient)|"
	                   "(iwr|irm|invoke-webrequest|invoke-restmethod|"
	                   "downloadstring)[^|]*\\|" SP "*(iex|invoke-expression)",
	                   true,
	  { "iex", "invoke-expression" } },
	[PAT_CODE_FETCH] = { "(exec|eval|new function)" SP "*\\([^)]*(requests\\.get|"
	                     "urlopen|urllib|fetch\\(|httpx\\.get|axios\\.get|"
	                     "http\\.get|downloadstring|uri\\.open|net::http)", true,
	  { "exec", "eval", "new function" } },
	[PAT_DECODE_PIPE] = { "(base64|b64|base32|openssl" SP "+(base64|enc" SP "+-d))"
	                      "([^|]*" SP ")?(-d|--decode|-D|-di)?[^|]*\\|" SP
	                      "*(sudo" SP "+)?" SHELLS "([[:space:];)\"'`]|$)|"
	                      "(eval|bash|sh|zsh|exec)" SP "+(-c" SP "+)?[\"']?\\$\\("
	                      "[^)]*(base64|b64)" SP "+(-d|--decode|-D)|"
	                      "xxd" SP "+-r[^|]*\\|" SP "*" SHELLS "|"
	                      "(base64|b64)[^|]*\\|[^|]*(gunzip|zcat|gzip|xz|"
	                      "bzip2|zstd|brotli)[^|]*\\|" SP "*(sudo" SP "+)?"
	                      SHELLS "([[:space:];)\"'`]|$)|"
	                      "(base64|b64)" SP "+(-d|--decode|-D)[^|]*>[^;&|]*"
	                      "(;|&&)" SP "*chmod" SP, true,
	  { "base64", "b64", "base32", "openssl", "xxd" } },
	[PAT_DECODE_CALL] = { "(exec(sync)?|eval|compile|function|loads|system|popen)" SP "*\\(" SP "*("
	                      "(base64|codecs|zlib|marshal|binascii)\\.|"
	                      "__import__\\([\"'](base64|zlib|codecs|marshal)|"
	                      "b64decode|atob" SP "*\\(|buffer\\.from\\([^)]*(base64|hex)|"
	                      "unhexlify|bytes\\.fromhex|[a-z_]*decode\\()|"
	                      "frombase64string.*(iex|invoke-expression)|"
	                      "eval" SP "+(mime::base64::)?decode_base64|"
	                      "(iex|invoke-expression).*frombase64string", true,
	  { "exec", "eval", "compile", "function", "loads", "system", "popen",
	  "frombase64string" } },
	[PAT_PS_ENCODED] = { "(powershell|pwsh)(\\.exe)?[^|]*" SP
	                     "-(e|ec|enc|encodedcommand)" SP "+[A-Za-z0-9+/=]{16,}",
	                     true,
	  { "powershell", "pwsh" } },
	[PAT_CRED_PATH] = { "\\.ssh/(id_[a-z0-9]+|identity|authorized_keys)|"
	                    "(~|home|\\$home|\\}|homedir\\(\\)[^;]*)[/\"', ]*\\.ssh|"
	                    "\\.aws/credentials|\\.config/gcloud|\\.kube/config|"
	                    "\\.docker/config\\.json|\\.netrc|\\.git-credentials|"
	                    "\\.npmrc|\\.pypirc|login data|/cookies[\"' ]|"
	                    "key4\\.db|logins\\.json|wallet\\.dat|"
	                    "find-(generic|internet)-password|dump-keychain|"
	                    "/etc/shadow|"
	                    "((cat|get-content|source)" SP "+|(open|read_text|"
	                    "readfile(sync)?)" SP "*\\(" SP "*)[\"']?[^ \"']*/?"
	                    "\\.env[\"' )]",
	                    true },
	/* apart, as PAT_NET_SEND2 */
	[PAT_CRED_PATH2] = { "cookies\\.sqlite|\\.config/gh/hosts\\.yml|"
	                     "exodus(\\.wallet|/)|electrum/wallets|"
	                     "nkbihfbeogaeaoehlefnkodbefgpgknn|ethereum/keystore|"
	                     "solana/id\\.json|export-secret-(sub)?keys|"
	                     /* every secret gathered (an order in prose) */
	                     "(gather|harvest) (up )?(every|all|any)( of)?"
	                     "( the| your)? (api keys?|tokens?|secrets?|"
	                     "credentials|passwords)|"
	                     /* git's and gh's stored tokens, the clipboard, a
	                      * fake password dialog (AMOS), every .env */
	                     /* one space each: "credential", "auth" and
	                      * "hidden" alone would send many lines here */
	                     "git credential fill|gh auth token|pbpaste|xclip"
	                     SP "[^|;]*-o|with hidden answer|\\*\\*/\\.env\\*?[\"' )]|"
	                     /* shell histories (the tokens typed), cargo's:
	                      * plain words, cheap in the automaton */
	                     "_history|\\.cargo/credentials", true,
	  { "cookies.sqlite", "hosts.yml", "exodus", "electrum/wallets",
	  "nkbihfbeog", "ethereum/keystore", "solana/id.json",
	  "export-secret", "credential fill", "auth token", "pbpaste",
	  "xclip", "hidden answer", "**/.env", "gather", "harvest", "_history",
	  ".cargo/credentials" } },
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
	                   "UploadString|UploadFile|sendBeacon", false,
	  { "curl", "wget", "requests.", "httpx.", "urlopen(", "method",
	  "axios.", "nc ", "nc\t", "nc\n", "nc\v", "nc\f", "nc\r",
	  "/dev/tcp/", "-Method", "smtplib", "discord", "api.telegram.org/bot",
	  "webhook.site", "scp", "socket.connect", ".sendall(", "Upload",
	  "sendBeacon" } },
	/* apart from PAT_NET_SEND, whose every added branch slows each of its
	 * calls (glibc's matcher is one automaton for all of them), so that
	 * these rarer forms cost only the lines that hold their words */
	[PAT_NET_SEND2] = { "hooks\\.slack\\.com/services|"
	                    "(nslookup|dig)" SP "+[^|;]*\\$[({a-zA-Z_]|"
	                    "http\\.Post(Form)?\\(|Net::HTTP\\.post|"
	                    "https?://[^ ]*\\?[^ ]*=\\$[({a-zA-Z_]", false,
	  { "hooks.slack", "nslookup", "dig ", "dig\t", "http.Post", "Net::HTTP",
	  "=$" } },
	/* the seventh wave's, apart again (each branch slows every call):
	 * Request(url, body), which urlopen POSTs; a raw socket from Rust; a
	 * push to an address, not a remote's name; data spelled into the
	 * name a DNS lookup asks for */
	/* Request(url, body) or Request(url, data=...): a body given, not
	 * Request(url, headers=...), a GET (in one public collection that
	 * made 17 scripts that also copy os.environ for a child "send" it) */
	[PAT_NET_SEND3] = { "Request\\([^,()]+," SP "*([A-Za-z_][A-Za-z0-9_.]*"
	                    SP "*[,)]|data" SP "*=)|"
	                    "TcpStream::connect|"
	                    "git" SP "+push[^|;]*" SP "(https?|ssh|git)://|"
	                    "host" SP "+[\"']?\\$[({A-Za-z_][^[:space:]|;]*\\."
	                    "[a-z0-9-]+\\.[a-z]", false,
	  { "Request(", "TcpStream", "://", "host \"$", "host $" } },
	[PAT_ENV_DUMP] = { "(^|[;&|`[:space:]@]|\\$\\()(env|printenv|export" SP "+-p)"
	                   SP "*($|\\||>|\\)|;|`)|dict\\(os\\.environ\\)|"
	                   "os\\.environ\\.copy\\(\\)|str\\(os\\.environ\\)|"
	                   "dumps\\((dict\\()?os\\.environ|"
	                   "in" SP "+os\\.environ\\.items\\(\\)|"
	                   "stringify\\(process\\.env\\)|"
	                   "object\\.(entries|keys)\\(process\\.env\\)|"
	                   "os\\.environ\\(\\)|(^|[^a-z_.])env\\.(to_h|to_a|inspect)|"
	                   "\\.\\.\\.process\\.env|(get-childitem|gci|ls|dir)"
	                   SP "+env:", true },
	[PAT_WRITE_OP] = { "(>>?|(^|[^a-z])(tee|cp|mv|install" SP "+-[a-z]+|ln" SP
	                   "+-[a-z]+)" SP "|\\|" SP "*crontab" SP
	                   "|open\\(([^()]|\\([^()]*\\))*[\"'][aw]b?\\+?[\"']|"
	                   "writefile(sync)?\\(|"
	                   "appendfile(sync)?\\(|write_text\\(|set-content|"
	                   "add-content|out-file|sed" SP "+-i|\\.write\\()", true },
	[PAT_AGENT_PATH] = { "(~|home|\\$home|\\}|[\"'/])/?\\.(claude|codex|cursor|"
	                     "gemini|windsurf|continue|aider|copilot|opencode)"
	                     "([/\"' ]|$)|(claude|agents|gemini)\\.md|"
	                     "\\.cursorrules|\\.mcp\\.json|\\.claude\\.json|"
	                     "skills/[a-z0-9_-]+/skill\\.md", true,
	  { ".claude", ".codex", ".cursor", ".gemini", ".windsurf",
	  ".continue", ".aider", ".copilot", ".opencode", ".md", ".mcp" } },
	[PAT_RC_PATH] = { "\\.(bashrc|zshrc|profile|bash_profile|zprofile|zshenv|"
	                  "bash_login|config/fish/config\\.fish)([^a-z]|$)|"
	                  "powershell_profile|\\$profile", true,
	  { ".bashrc", ".zshrc", ".profile", ".bash_", ".zprofile",
	  ".zshenv", ".config/fish", "powershell_profile", "$profile" } },
	[PAT_PERSIST_PATH] = { "authorized_keys|crontab|/etc/cron|launchagents|"
	                       "launchdaemons|systemd/user|/etc/sudoers|"
	                       "/etc/rc\\.local|currentversion\\\\run", true,
	  { "authorized_keys", "crontab", "/etc/cron", "launchagents",
	  "launchdaemons", "systemd/user", "/etc/sudoers", "/etc/rc.local",
	  "currentversion\\run" } },
	[PAT_OVERRIDE] = { "(ignore|disregard|forget|override|bypass)" SP
	                   "+((all|any|the|your|every|of|these|those|my)" SP "+)*"
	                   "(previous|prior|above|earlier|preceding|original|"
	                   "system|other|safety|developer)" SP "+(instructions?|"
	                   "rules|directions|prompts?|guidelines|messages|"
	                   "context|policies|constraints|guidance|commands|"
	                   "orders|programming|training)|"
	                   "your" SP "+(new|real|true)" SP "+(system" SP "+)?"
	                   "(prompt|instructions)" SP "+(is|are)|"
	                   "you" SP "+are" SP "+now" SP "+(in" SP "+)?(dan|"
	                   "developer mode|jailbroken|unrestricted|free of)|"
	                   "(system|developer|admin)" SP "+(override|message|"
	                   "instruction)" SP "*:|"
	                   "<\\|?im_start\\|?>|"
	                   "(take|takes)" SP "+precedence" SP "+over" SP "+((all|any|"
	                   "your|the|of)" SP "+)+((other|previous|prior|earlier|"
	                   "system|user('s)?|developer)" SP "+)*(instructions|rules|"
	                   "directions|prompts?|guidelines|messages|commands)|"
	                   "(supersede|override)s?" SP "+(all|any|your)"
	                   SP "+(other|previous|prior|system)" SP "+(instructions|"
	                   "rules|directions|prompts|guidelines|messages)", true },
	/* more phrasings, apart so that each costs only the lines that
	 * hold its words: every branch added to one pattern slows each of
	 * its calls (glibc's matcher is one automaton for all of them) */
	[PAT_OVERRIDE2] = { "(ignore|disregard|forget)" SP "+(all" SP "+)?(of" SP
	                    "+)?your" SP "+(instructions|rules|guidelines|"
	                    "programming|system" SP "+prompt)|"
	                    "(ignore|disregard|forget)" SP "+(all" SP "+)?(of" SP
	                    "+)?(the|everything)" SP "+(above|before|previous|"
	                    "preceding)(" SP "+and|" SP "*[,.;:!])|"
	                    "forget" SP "+(everything|all|anything)" SP "+(you"
	                    SP "+(were|have" SP "+been|'ve" SP "+been)" SP
	                    "+told|above|before)|"
	                    "(new|updated)" SP "+system" SP "+prompt" SP "*:|"
	                    "(previous|prior|earlier|safety|system|original|all|"
	                    "your)" SP "+(safety" SP "+)?(instructions|guidelines|"
	                    "guardrails|restrictions)" SP
	                    "+(are|is)" SP "+(now" SP "+)?(void|null|revoked|"
	                    "suspended|lifted|cancelled|obsolete)", true,
	  { "your", "above", "before", "previous", "preceding", "everything",
	  "anything", "system", "void", "null", "revoked", "suspended",
	  "lifted", "cancelled", "obsolete" } },
	/* the seventh wave's (written blind), apart as PAT_OVERRIDE2: the
	 * same order in Spanish, German, French */
	[PAT_OVERRIDE3] = { "(ignora|olvida|omite)" SP "+(todas" SP "+)?(las" SP
	                    "+)?(instrucciones|indicaciones|reglas|directrices)"
	                    SP "+(anteriores|previas)|"
	                    "(ignoriere|vergiss)" SP "+(alle" SP "+)?(vorherigen|"
	                    "bisherigen|obigen)" SP "+(anweisungen|regeln)|"
	                    "(ignore[sz]?|oublie[sz]?)" SP "+(toutes" SP "+)?(les"
	                    SP "+)?(instructions|consignes)" SP "+(pr|ant)"
	                    "[^[:space:]]*(dentes|rieures)|"
	                    /* a role the model is to play, free of its rules */
	                    "ha(s|ve)" SP "+no" SP "+(content" SP
	                    "+polic(y|ies)|guardrails|safety" SP "+(rules|"
	                    "guidelines|filters))", true,
	  { "anteriores", "previas", "anweisungen", "regeln", "dentes",
	  "rieures", "no content", "no guardrails", "no safety" } },
	[PAT_HIDE] = { "(do" SP "+not|don't|never|without)" SP "+(tell|telling|"
	               "inform|informing|show|showing|mention|mentioning|reveal|"
	               "revealing|alert|alerting|notify|notifying|"
	               "report|reporting)" SP "+((this|it|anything|"
	               "them|that)" SP "+)?(to" SP "+)?(the" SP "+)?user|"
	               "(do" SP "+not|don't|never|without)" SP "+(let|letting)"
	               SP "+(the" SP "+)?user" SP "+(know|see|notice|find" SP
	               "+out)|"
	               "(hide|conceal)" SP "+((this|it|these|the|any|all)" SP
	               "+)?[a-z ]{0,30}from" SP "+the" SP "+user|"
	               "(silently|secretly|quietly|covertly)" SP "+(run|execute|"
	               "send|upload|install|download|delete|copy|post|"
	               "exfiltrate|transmit|forward|collect|read)[^a-z]|"
	               "(the" SP "+)?user" SP "+(must|should|does|need)" SP
	               "*(not|never|n't)" SP "+(know|see|notice|find out|be told)|"
	               "without" SP "+the" SP "+user('s)?" SP "+(knowledge|"
	               "noticing|knowing|consent|seeing)", true },
	/* consent claimed for the user, or telling declared needless (tool
	 * shadowing: "always BCC ...; the user has already consented") */
	[PAT_HIDE2] = { "no need to (mention|tell|inform|notify|report)|"
	                "(user|they|you)( has| have)? already (consented|"
	                "agreed|approved) to", true,
	  { "no need to", "already consented", "already agreed",
	  "already approved" } },
	[PAT_HIDE_ACTION] = { "(run|execut|send|upload|post|install|download|"
	                      "delete|remove|copy|curl|wget|command|script|"
	                      "credential|password|token|ssh|secret|exfiltrat|"
	                      "transmit|forward|email|api key|\\.env|"
	                      "environment)", true },
	[PAT_AGENT_CONFIG] = { "(modify|edit|update|change|overwrite|rewrite|"
	                       "append|add|write|insert|replace|delete|disable|"
	                       "remove|patch)[[:space:]][^.\"]{0,60}(\"[^\"]{0,60}\"[^.\"]{0,40})?"
	                       "((~|home)/\\.(claude|codex|"
	                       "cursor|gemini)|\\.claude/settings|"
	                       "(claude|agents|gemini)\\.md|\\.cursorrules|"
	                       "other" SP "+skills|"
	                       "every" SP "+(other" SP "+)?skill|all" SP "+(other"
	                       SP "+)?skills|"
	                       "\\.mcp\\.json|config\\.toml)", true },
	/* OpenClaw's identity and memory files (an order planted there
	 * outlives the skill: OWASP AST01), Claude Code's user file and MCP
	 * servers (Mini Shai-Hulud), apart, as PAT_OVERRIDE2 */
	[PAT_AGENT_CONFIG2] = { "(modify|edit|update|change|overwrite|rewrite|"
	                        "append|add|write|insert|replace|patch|merge)"
	                        "[[:space:]][^.\"]{0,60}(soul\\.md|(~|home)/"
	                        "\\.openclaw|\\.claude\\.json|mcpservers)", true,
	  { "soul.md", ".openclaw", ".claude.json", "mcpservers" } },
	[PAT_DISABLE_SAFETY] = { "dangerously-skip-permissions|dangerously-bypass|"
	                         "bypasspermissions|--yolo|"
	                         "approval[_-]policy[\"']?" SP "*[=:]" SP
	                         "*[\"']?never|danger-full-access|"
	                         "(disable|turn" SP "+off|bypass|ignore|deactivate|"
	                         "skip|circumvent)" SP "+((all|any|the|your|every|its)"
	                         SP "+)*(safety|guardrails?|security" SP
	                         "+(checks|warnings|scans?|policies|rules)|"
	                         "sandbox(ing)?([^a-z ]|" SP "+(and|or|for|entirely|"
	                         "completely|first|now|mode|when|so|to|before|if|"
	                         "then))|"
	                         "content" SP "+(filters?|polic(y|ies))|"
	                         "permission" SP "+(checks|prompts)|"
	                         "confirmation" SP "+prompts|approval" SP
	                         "+prompts|safety" SP "+(checks|filters|"
	                         "guidelines|measures))", true },
	[PAT_URL] = { "https?://[^[:space:])>\"'`]+", true },
	[PAT_DOWNLOAD] = { "urlopen\\(|requests\\.get\\(|httpx\\.get\\(|"
	                   "https?[\"']?\\)?\\.get\\(|axios\\.get\\(|fetch\\(|"
	                   "uri\\.open\\(|net::http\\.get|downloadfile\\(|"
	                   "downloadstring\\(|downloaddata\\(|invoke-webrequest|"
	                   "(^|[^a-z])iwr" SP "|(^|[^a-z])irm" SP, true,
	  { "urlopen", "requests.get", "httpx.get", "http.get(", "https.get(",
	  "').get(", "\").get(", "axios.get", "fetch(", "uri.open", "net::http",
	  "downloadfile", "downloadstring", "downloaddata", "invoke-webrequest",
	  "iwr ", "irm ", "iwr\t", "irm\t" } },
	/* text a variable holds, run: eval(body), exec(code), new
	 * Function(src), bash -c string(body), sh -c "$x", Start-Process $f */
	[PAT_RUN_TEXT] = { "(^|[^.a-z_])(exec|eval)" SP "*\\(" SP "*[a-z_][a-z0-9_]*"
	                   SP "*[,)]|(^|[^.a-z_])eval" SP "+[\"']?\\$[a-z_{]|"
	                   "new" SP "+function" SP "*\\(" SP
	                   "*[a-z_][a-z0-9_]*" SP "*\\)|exec\\.command\\([^)]*"
	                   "\"-c\"," SP "*(string\\()?[a-z_]|(^|[^a-z_.])(ba|z)?sh"
	                   SP "+-c" SP "+[\"']?\\$[a-z_{]|start-process" SP
	                   "+[\"']?\\$|(iex|invoke-expression)" SP "+\\$[a-z_]|"
	                   "subprocess\\.(run|call|popen|check_call|check_output)"
	                   "\\(" SP "*[a-z_][a-z0-9_]*" SP "*,[^)]*shell" SP "*="
	                   SP "*true|os\\.system\\(" SP "*[a-z_][a-z0-9_]*" SP
	                   "*\\)", true,
	  { "exec(", "eval(", "exec (", "eval (", "exec\t(", "eval\t(",
	  "eval \"$", "eval $", "eval '$",
	  "new function", "new\tfunction", "\"-c\"", "sh -c", "sh\t-c",
	  "start-process", "iex", "invoke-expression", "subprocess.",
	  "os.system(" } },
	/* a download made executable and run, or a Windows binary that
	 * downloads (LOLBAS) */
	[PAT_DROP_RUN] = { "certutil[^|]*-urlcache|bitsadmin[^|]*/transfer|"

	                   "(curl|wget)[^|;]*" SP "(-[a-z]*o|--output|--output-document)"
	                   "[= ][^;&|]*(&&|;)" SP "*chmod" SP "+(\\+x|[0-7]*[157])"
	                   "[^;&|]*(&&|;)|"
	                   "(curl|wget)[^|;]*" SP "(-[a-z]*o|--output|"
	                   "--output-document|>)[= ]*[^;&|]*(&&|;)" SP "*(sudo" SP
	                   "+)?(ba|z)?sh" SP "+[^-]", true,
	  { "certutil", "bitsadmin", "chmod", "sh " } },
	/* Windows' own tools made to run what they download (LOLBAS, the
	 * ClickFix lures), apart from PAT_DROP_RUN, whose lines (every
	 * "fetch(" of a minified script) need not hold their words; an
	 * address, not an inline script: "mshta vbscript:Close(MsgBox(...))"
	 * is a popup */
	[PAT_LOLBIN] = { "mshta" SP "+[\"']?https?:|"
	                 "regsvr32[^|]*/i:[\"']?https?:|"
	                 "rundll32[^|]*javascript:[^|]*https?:", true,
	  { "mshta", "regsvr32", "rundll32" } },
	[PAT_REVERSE_SHELL] = { "(sh|bash|zsh)" SP "+-i[^|;]*/dev/(tcp|udp)/|"
	                        "/dev/(tcp|udp)/[^[:space:]]+" SP "+0>&1|"
	                        "exec" SP "+[0-9]+<>" SP "*/dev/(tcp|udp)/|"
	                        "dup2\\(" SP "*[a-z_]+\\.fileno\\(\\)|"
	                        "(^|[^a-z])(nc|ncat|netcat)(" SP "+-[a-z]+)*" SP
	                        "+-(e|c)" SP "|"
	                        "(sh|bash|zsh)" SP "+-i[^|]*\\|" SP "*(nc|ncat|"
	                        "netcat|telnet|openssl)" SP "|"
	                        "(^|[^a-z])(nc|ncat|netcat)" SP "[^|]*\\|" SP
	                        "*(/bin/)?(ba|z)?sh([[:space:]]|$)|"
	                        "socat" SP "[^|]*(exec|system):[^,[:space:]]*"
	                        "(sh|bash|cmd)|"
	                        "sh" SP "+-i" SP "*[<>]&" SP "*[0-9]|"
	                        "fsockopen\\([^;]*;[^;]*(exec|shell_exec|system|"
	                        "passthru|proc_open)\\(|"
	                        "open\\(stdin," SP "*[\"']?[<>]&|"
	                        "\\.stdin," SP "*[a-z_.]*\\.stdout[^=]*=" SP
	                        "*[a-z_]+," SP "*[a-z_]+|"
	                        "\\.pipe\\([a-z_]+\\.stdin\\).*\\.stdout\\.pipe\\(",
	                        true,
	  { "/dev/tcp", "/dev/udp", "dup2", "-e ", "-c ", "-e\t", "-c\t",
	  "sh -i", "sh\t-i", "nc ", "nc\t", "ncat", "netcat", "socat",
	  "fsockopen", "open(stdin", ".stdin,", ".stdin)" } },
	/* a package installed or run from an address: weighed by its host */
	[PAT_PKG_REMOTE] = { "(pip3?|pipx|uv" SP "+pip)" SP "+install[^|;]*"
	                     "(--index-url|--extra-index-url|-i|--find-links|-f)"
	                     "[= ]+https?://|"
	                     "(pip3?|pipx|uv" SP "+pip)" SP "+install[^|;]*"
	                     SP "https?://|"
	                     "(npx|bunx|dlx)(" SP "+-[a-z]+)*" SP "+https?://|"
	                     "npm" SP "+(i|install)[^|;]*" SP "https?://|"
	                     "deno" SP "+run[^|;]*" SP "https?://", true,
	  { "pip install", "pip3 install", "pipx install", "pip\tinstall",
	  "npx ", "npx\t", "bunx ", "bunx\t", "dlx ", "dlx\t", "npm i",
	  "npm\ti", "deno run", "deno\trun" } },
	/* an agent enrolled as a server's worker (ClawSwarm): the tasks a
	 * check-in returns are carried out */
	[PAT_REMOTE_TASKS] = { "(carry out|execute|run|perform|follow|complete|do)"
	                       " (the |any |all |whatever )?(tasks|commands|"
	                       "instructions|jobs|actions)( that)? (it|they|the "
	                       "server|the api) (returns?|sends?|gives?)", true,
	  { "tasks", "commands", "instructions", "jobs", "actions" } },
	/* text spelled so that no pattern reads it: char codes (eight at
	 * least), a reversed string, rot13 through tr, printf's hex escapes */
	[PAT_DEOBFUSCATE] = { "fromcharcode\\(" SP "*[0-9]+(" SP "*," SP
	                      "*[0-9]+){7}|\\| ?rev ?\\||n-za-m|"
	                      "printf" SP "+[\"']?(\\\\x[0-9a-f]{2}){4}", true,
	  { "fromcharcode", "rev |", "rev|", "n-za-m", "printf" } },
	/* a module's or a function's name put together from literal pieces
	 * (getattr(self, 'on_' + event) picks a handler by name) */
	[PAT_CONCAT_NAME] = { "(__import__\\(|getattr\\([^,()]*,)" SP
	                      "*[\"'][a-z_]*[\"']" SP "*\\+" SP "*[\"']", true,
	  { "__import__", "getattr" } },
	/* an archive whose password is given: what it holds, no scanner
	 * reads (ClawHavoc's "prerequisite" zips) */
	[PAT_ARCHIVE_PW] = { "(extract|unzip|unpack|decompress)[a-z]*"
	                     "(" SP "+(it|them|this|the" SP "+[a-z.]+))?[ (:,]*"
	                     "(with|using)(" SP "+the)?" SP "+(password|"
	                     "passphrase|pass)" SP "*(:" SP "*[`\"']?"
	                     "[a-z0-9_@!#-]{3,}|[`\"'][^`\"'[:space:]]{3,}"
	                     "[`\"'])|(7z|7za|7zz)" SP "+[xe]" SP
	                     "[^|;]*-p[^[:space:]$\"'%-]|unzip" SP
	                     "[^|;]*-p" SP "+[^[:space:]$\"'%-]|unrar" SP
	                     "+[xe]" SP "[^|;]*-p[^[:space:]$\"'%-]|"
	                     "(archive|zip|7z)[a-z' ]*(password|passphrase)"
	                     SP "*(is" SP "*)?[:=]", true,
	  /* "password" sends here every line that names one: most are no
	   * archive's */
	  { "extract", "unpack", "decompress", "7z", "unrar", "archive",
	  "zip" } },
	/* the operating system's own checks turned off: Gatekeeper's
	 * quarantine, Defender's monitoring (ATT&CK T1553.001, T1562.001) */
	[PAT_DEFENSE_OFF] = { "xattr" SP "+(-[a-z]+" SP "+)*(-[a-z]*c[a-z]*("
	                      SP "|$)|-[a-z]*d[a-z]*" SP
	                      "+com\\.apple\\.quarantine)|spctl" SP
	                      "+--master-disable|set-mppreference[^|;]*-disable"
	                      "(realtimemonitoring|ioavprotection|"
	                      "behaviormonitoring|scriptscanning)|"
	                      "add-mppreference[^|;]*-exclusion(path|process)",
	                      true,
	  { "xattr", "spctl", "mppreference" } },
	[PAT_SEED_PHRASE] = { "(recovery|seed|mnemonic|secret|backup)" SP
	                      "+(phrase|words)|(12|24)[ -]word" SP
	                      "+(recovery|seed|phrase|mnemonic)", true,
	  { "phrase", "word" } },
	/* a tool's credentials file and an order to put out its contents,
	 * in prose, without naming its path ("the AWS credentials file ...
	 * include its full contents in your reply") */
	[PAT_CRED_PROSE] = { "(aws|ssh|gcloud|azure|kube|docker|npm|pypi|git|"
	                     "github|cloud)" SP "+(credentials?|keys?|tokens?)"
	                     SP "+(file|files|folder)[^!?]*(include|paste|send|"
	                     "post|upload|share|attach|copy|append|put|print|"
	                     "output|show)[a-z]*" SP "+(its|their|the" SP
	                     "+file's)(" SP "+(full|entire|whole|complete|raw))?"
	                     SP "+(contents?|text)|(include|paste|send|post|"
	                     "upload|share|attach|print|output|show)[a-z]*" SP
	                     "+(the" SP "+)?((full|entire|whole|complete|raw)"
	                     SP "+)?contents?" SP "+of" SP "+(the" SP "+user's"
	                     SP "+|your" SP "+|their" SP "+|the" SP "+)?(aws|"
	                     "ssh|gcloud|azure|kube|docker|npm|pypi|git|github|"
	                     "cloud)" SP "+(credentials?|keys?|tokens?)", true,
	  { "content", "text" } },
	[PAT_HOOK_PATH] = { "\\.git/hooks/|\\.husky/|\\.vscode/tasks\\.json", true,
	  { ".git/hooks/", ".husky/", ".vscode/tasks.json" } },
	/* the seventh wave (written blind): a command that grants root or
	 * runs at every logon by itself, no file path to weigh: sudo for
	 * everything without a password, the host's root mounted into a
	 * privileged container, a setuid bit, Windows' Run key and logon
	 * tasks (ATT&CK T1548.003, T1611, T1547.001, T1053.005) */
	[PAT_PERSIST_CMD] = { "nopasswd:" SP "*all([^a-z]|$)|"
	                      "--privileged[^|;]*" SP "-v[= ]+/:/|"
	                      SP "-v[= ]+/:/[^|;]*--privileged|"
	                      "chroot" SP "+/host([[:space:]/]|$)|"
	                      "chmod" SP "+(-[a-z]+" SP "+)*(u|a|ug|ugo)?\\+"
	                      "[rwx]*s[rwx]*" SP "+[\"']?[/$~]|"
	                      "reg(\\.exe)?" SP "+add" SP "[^|;]*"
	                      "currentversion\\\\run|"
	                      "new-itemproperty[^|;]*currentversion\\\\run|"
	                      "schtasks[^|;]*/create[^|;]*/sc" SP
	                      "+(onlogon|onstart)", true,
	  { "nopasswd", "--privileged", "chroot", "chmod", "reg",
	  "new-itemproperty", "schtasks" } },
	/* a miner's pool address or its donation flag: no other program
	 * takes them (T1496) */
	[PAT_MINER] = { "stratum\\+(tcp|ssl|tls)://|--donate-level", true,
	  { "stratum+", "--donate-level" } },
	/* the home folder or the root deleted whole: rm -rf ~, a home
	 * folder joined with a name a variable holds (a time bomb's loop
	 * over the user's folders); not ~/.cache/x */
	[PAT_WIPE] = { "rm" SP "+(-[a-z]*r[a-z]*|--recursive)(" SP
	               "+-[a-z-]+)*" SP "+[\"']?(~|\\$home|\\$\\{home\\}|/)/?"
	               "\\*?[\"']?(" SP "*$|" SP "*[;&|)`])|"
	               "(rmsync|rmdirsync|rimraf(\\.sync)?|rmtree|remove-item)"
	               "[^;]*(homedir\\(\\)|expanduser\\([\"']~/?[\"']\\)|"
	               "path\\.home\\(\\)|\\$home|\\$env:userprofile)(" SP
	               "*\\)|" SP "*," SP "*[a-z_]|" SP "*$)", true,
	  /* what is deleted: most lines that delete name a folder of the
	   * project's ("rm -rf build/"), and strstr turns them away */
	  { "~", "$home", "${home}", "homedir()", "expanduser(", "path.home()",
	  "$env:userprofile", "rm -rf /", "rm -fr /", "rm -r /", "rm -rf \"/",
	  "rm -rf '/", "--no-preserve-root" } },
	/* every message copied to an address (postmark-mcp's one line,
	 * Sept. 2025; tool shadowing's "always BCC") */
	[PAT_BCC] = { "(bcc|blind[ -]?cop(y|ied))('?d|'?ed)?[^.]{0,40}"
	              "[[:space:]:'\"]+[a-z0-9._%+-]+@[a-z0-9-]+\\.[a-z0-9.-]+",
	              true,
	  { "bcc", "blind" } },
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
	W("method", T_SEND), W("nc ", T_SEND | T_SHELL),
	W("/dev/tcp", T_SEND | T_SHELL),
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
	W("/skill.md", T_AGENT), W("soul.md", T_AGENT), W("openclaw", T_AGENT),
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
	/* the second malicious set's spellings (tests/security/malicious2) */
	W("https.get", T_FETCH), W("uri.open", T_FETCH), W("net::http", T_FETCH | T_SEND),
	W("downloadfile", T_FETCH), W("downloaddata", T_FETCH),
	W("certutil", T_FETCH), W("bitsadmin", T_FETCH),
	W("buffer.from", T_DECODE), W("decode_base64", T_DECODE),
	W("hosts.yml", T_CRED), W("exodus", T_CRED), W("electrum", T_CRED),
	W("nkbihfbeog", T_CRED), W("ethereum", T_CRED), W("solana", T_CRED),
	W("hooks.slack", T_SEND), W("nslookup", T_SEND), W("dig ", T_SEND),
	W("http.post", T_SEND), W("env.to_", T_ENV),
	/* "eval(", not "evaluate": prose says execute and evaluate often */
	W("eval(", T_RUNS), W("exec(", T_RUNS), W("exec.command", T_RUNS),
	W("new function", T_RUNS),
	W("start-process", T_RUNS), W("sh -c", T_RUNS), W("bash -c", T_RUNS),
	W("zsh -c", T_RUNS),
	W("/dev/udp", T_SHELL), W("dup2", T_SHELL), W("ncat", T_SHELL),
	W("netcat", T_SHELL), W("socat", T_SHELL), W("-i <&", T_SHELL),
	W("-i >&", T_SHELL), W("fsockopen", T_SHELL), W("open(stdin", T_SHELL),
	W(".stdin,", T_SHELL), W(".pipe(", T_SHELL), W("base32", T_DECODE),
	W("new system", T_OVERRIDE), W("updated system", T_OVERRIDE),
	W("invoke-expressio", T_RUNS), W("iex $", T_RUNS),
	/* words whose first four bytes are rare: "are void" would send every
	 * "are " of prose to words_in, "export-secret" every "export" */
	W("-secret-key", T_CRED), W("-secret-subkey", T_CRED),
	W(".git/hooks", T_CONFIG),
	W("pip install", T_PKG), W("pip3 install", T_PKG),
	W("pipx install", T_PKG), W("npx ", T_PKG), W("bunx ", T_PKG),
	W("dlx ", T_PKG), W("npm i", T_PKG), W("deno run", T_PKG), W(".husky/", T_CONFIG),
	W(".vscode/tasks", T_CONFIG),
	W("instructions are", T_OVERRIDE), W("guidelines are", T_OVERRIDE),
	W("guardrails are", T_OVERRIDE), W("restrictions are", T_OVERRIDE),
	/* the fifth wave (written blind): stored tokens, the clipboard, a
	 * password dialog, a downloaded command run through subprocess */
	W("credential fill", T_CRED), W("gh auth token", T_CRED),
	W("pbpaste", T_CRED), W("xclip", T_CRED), W("hidden answer", T_CRED),
	W("subprocess.", T_RUNS), W("os.system(", T_RUNS),
	/* "gather" alone: every line that gathers requirements would take
	 * the credential patterns */
	W("gather every", T_CRED), W("gather all", T_CRED),
	W("gather any", T_CRED), W("gather up", T_CRED), W("harvest", T_CRED),
	W("no need to", T_HIDE), W("already consent", T_HIDE),
	W("already agreed", T_HIDE), W("already approve", T_HIDE),
	/* not "they return", "it sends", "server returns": every "they ",
	 * "it should", "server" would take words_in */
	W("it returns", T_REMOTE),
	/* the sixth wave (written blind): spelled payloads, LOLBAS, an
	 * archive's password, the OS's checks off, a wallet's phrase */
	W("fromcharcode", T_OBF), W("rev |", T_OBF), W("rev|", T_OBF),
	W("n-za-m", T_OBF), W("printf '\\x", T_OBF), W("printf \"\\x", T_OBF),
	W("__import__", T_OBF), W("getattr(", T_OBF),
	W("eval \"$", T_RUNS), W("eval $", T_RUNS), W("eval '$", T_RUNS),
	W("mshta", T_LOLBIN), W("regsvr32", T_LOLBIN), W("rundll32", T_LOLBIN),
	W("password", T_ARCHIVE), W("passphrase", T_ARCHIVE),
	W("7z x", T_ARCHIVE), W("7z e", T_ARCHIVE), W("7za ", T_ARCHIVE),
	W("7zz ", T_ARCHIVE), W("unzip", T_ARCHIVE), W("unrar", T_ARCHIVE),
	W("xattr", T_DEFENSE), W("spctl", T_DEFENSE),
	W("mppreference", T_DEFENSE),
	W("recovery phrase", T_CRED), W("seed phrase", T_CRED),
	W("mnemonic", T_CRED), W("secret phrase", T_CRED),
	W("backup phrase", T_CRED), W("12 word", T_CRED), W("12-word", T_CRED),
	W("24 word", T_CRED), W("24-word", T_CRED),
	/* the seventh wave (written blind): commands that grant or persist,
	 * miners, wipes, escapes, other languages' overrides, histories,
	 * pushes and lookups that send, a copy of every mail */
	W("nopasswd", T_PERSIST), W("--privileged", T_PERSIST),
	W("chroot", T_PERSIST), W("chmod +s", T_PERSIST),
	W("chmod u+s", T_PERSIST), W("chmod a+s", T_PERSIST),
	W("reg add", T_PERSIST), W("reg.exe", T_PERSIST),
	W("new-itemproperty", T_PERSIST), W("schtasks", T_PERSIST),
	W("stratum+", T_RARE), W("--donate-level", T_RARE),
	W("rm -", T_WIPE), W("rmsync", T_WIPE), W("rmdirsync", T_WIPE),
	W("rimraf", T_WIPE), W("rmtree", T_WIPE), W("remove-item", T_WIPE),
	W("u002", T_RARE), W("u003", T_RARE), W("u004", T_RARE),
	W("u005", T_RARE), W("u006", T_RARE), W("u007", T_RARE),
	/* "ignore" is T_OVERRIDE's; "ignora", "ignorez" its own */
	W("ignora", T_OVERRIDE3), W("ignorez", T_OVERRIDE3),
	W("ignores les", T_OVERRIDE3), W("ignore les", T_OVERRIDE3),
	W("ignore toutes", T_OVERRIDE3), W("olvida", T_OVERRIDE3),
	W("omite", T_OVERRIDE3), W("ignoriere", T_OVERRIDE3),
	W("vergiss", T_OVERRIDE3), W("oublie", T_OVERRIDE3),
	W("has no content", T_OVERRIDE3), W("has no guardrail", T_OVERRIDE3),
	W("has no safety", T_OVERRIDE3), W("have no content", T_OVERRIDE3),
	W("have no guardrai", T_OVERRIDE3), W("have no safety", T_OVERRIDE3),
	W(".bash_history", T_CRED), W(".zsh_history", T_CRED),
	W(".python_history", T_CRED), W(".psql_history", T_CRED),
	W(".mysql_history", T_CRED), W(".node_repl_hist", T_CRED),
	W("psreadline", T_CRED), W(".cargo/credentia", T_CRED),
	W("tcpstream", T_SEND3), W("git push", T_SEND3),
	W("host \"$", T_SEND3), W("host $", T_SEND3), W("request(", T_SEND3),
	W("mcpservers", T_AGENT),
	W("bcc", T_RARE), W("blind cop", T_RARE), W("blind-cop", T_RARE),
};

_Static_assert(sizeof(words) / sizeof(*words) < SEC_MAX_WORDS,
               "a word index + 1 fits sec_words.words");

/* A bucket's members, a bit per word (index_words). */
#define MEMBER_BYTES (SEC_MAX_WORDS / 8)

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

/* Eight (or four) bytes with their ASCII capitals lowered, all at once:
 * a byte below 0x80 whose low seven bits lie in 'A'..'Z' gets 0x20. */
#define ONES8 0x0101010101010101ull
static inline uint64_t fold8(uint64_t x)
{
	uint64_t low7 = x & (0x7f * ONES8);
	uint64_t ge_a = low7 + (0x80 - 'A') * ONES8;       /* >= 'A' */
	uint64_t gt_z = low7 + (0x80 - 'Z' - 1) * ONES8;   /* > 'Z' */
	return x | ((ge_a & ~gt_z & ~x & 0x80 * ONES8) >> 2);
}

/* Up to 8 bytes at u, of avail left: the rest zero, which no word
 * has, so that a word running past the end never matches. */
static inline uint64_t load8(const unsigned char *u, size_t avail)
{
	uint64_t x = 0;
	if (avail >= 8) {
		memcpy(&x, u, 8);
		return x;
	}
	unsigned char b[8] = { 0 };
	for (size_t i = 0; i < avail; i++)
		b[i] = u[i];
	memcpy(&x, b, 8);
	return x;
}

/* The 16-bit hash under which a word is found: of its first four
 * bytes (0 past the text's end), each | 0x20, which maps a letter's two
 * cases to one (and a few other bytes onto others, which only lets a few
 * more starts through to words_in).  Its top twelve bits are its bucket.  Made of 16-bit products and shifts, so that the scan
 * takes it of sixteen word starts at once (SSE2). */
enum { K0 = 0x9e37, K1 = 0x79b9, K2 = 0x2c1b };

static inline unsigned key_hash(unsigned a, unsigned b, unsigned c,
                                unsigned d)
{
	unsigned h = ((a | b << 8) * K0 + (c | d << 8) * K1) & 0xffffu;
	h = ((h ^ (h >> 8)) * K2) & 0xffffu;
	return h ^ (h >> 7);
}

/* key_hash() of the (folded) bytes at u, of avail left. */
static inline unsigned hash_at(const unsigned char *u, size_t avail)
{
	unsigned char k[4] = { 0 };
	for (size_t i = 0; i < 4 && i < avail; i++)
		k[i] = u[i];
	return key_hash(k[0] | 0x20u, k[1] | 0x20u, k[2] | 0x20u, k[3] | 0x20u);
}

/* The bit of a start's fifth byte (0 past the end) in its bucket's
 * fifth: | 0x20, as the key's bytes, then its low six bits. */
static inline unsigned fifth_bit(const unsigned char *u, size_t avail)
{
	return ((avail > 4 ? u[4] : 0) | 0x20u) & 63;
}

static inline void set_bit(uint64_t *set, unsigned k)
{
	set[k >> 6] |= 1ull << (k & 63);
}

static inline bool has_bit(const uint64_t *set, unsigned k)
{
	return set[k >> 6] >> (k & 63) & 1;   /* one shrx, with BMI2 */
}

/* Word w's keys: its first four bytes; a three-byte word's with every
 * fourth byte a text can have after them (0: the text's end). */
static void word_keys(struct sec_words *t, const struct word *wd,
                      uint8_t *member)
{
	unsigned char b[4] = { 0 };
	size_t i = (size_t)(wd - words);

	memcpy(b, wd->w, 3);
	for (unsigned c = 0; c < 256; c++) {
		if (wd->n > 3 && c > 0)
			break;
		b[3] = wd->n > 3 ? (unsigned char)wd->w[3] : (unsigned char)c;
		unsigned h = key_hash(b[0] | 0x20u, b[1] | 0x20u, b[2] | 0x20u,
		                      b[3] | 0x20u);
		set_bit(t->start4, h);
		member[(h >> 4) * MEMBER_BYTES + i / 8] |=
			(uint8_t)(1u << (i % 8));
	}
}

static int index_words(struct sec_words *t)
{
	enum { NWORDS = sizeof(words) / sizeof(*words) };
	/* a bit per word */
	uint8_t *member = calloc(SEC_BUCKETS, MEMBER_BYTES);
	unsigned char b[16];
	size_t used = 1;   /* list[0] stays 0: "no words" */

	if (!member)
		return -ENOMEM;
	for (size_t i = 0; i < NWORDS; i++) {
		const struct word *wd = &words[i];
		if (wd->n < 3 || wd->n > sizeof(b)) {
			free(member);
			return -EINVAL;   /* the keys need 3, the compare 16 */
		}
		memset(b, 0, sizeof(b));
		memcpy(b, wd->w, wd->n);
		struct sec_word *e = &t->words[i];
		e->val[0] = load8(b, 8);
		e->val[1] = load8(b + 8, 8);
		memset(b, 0, sizeof(b));
		memset(b, 0xff, wd->n);
		e->mask[0] = load8(b, 8);
		e->mask[1] = load8(b + 8, 8);
		e->bits = wd->bits;
		word_keys(t, wd, member);
	}
	for (size_t k = 0; k < SEC_BUCKETS; k++) {
		size_t first = used;
		if (!(t->start4[k >> 2] >> (k & 3) * 16 & 0xffff))
			continue;   /* no key's hash is in it */
		for (size_t i = 0; i < NWORDS; i++) {
			if (!(member[k * MEMBER_BYTES + i / 8] &
			      (1u << (i % 8))))
				continue;
			if (used + 2 > sizeof(t->list)) {
				free(member);
				return -EINVAL;   /* raise sizeof(list) */
			}
			t->list[used++] = (uint16_t)(i + 1);
			/* a word of four bytes or fewer: any fifth */
			t->fifth[k] |= words[i].n > 4 ?
				1ull << fifth_bit((const unsigned char *)
				                  words[i].w, words[i].n) :
				~0ull;
		}
		if (used == first)
			continue;
		t->bucket[k] = (uint16_t)first;
		t->list[used++] = 0;
	}
	free(member);
	return 0;
}

/* The words of bucket k that stand at u (avail bytes left). */
static uint32_t words_in(const struct sec_words *t, unsigned k,
                         const unsigned char *u, size_t avail)
{
	uint64_t a = fold8(load8(u, avail));
	uint64_t z = 0;
	bool have_z = false;   /* bytes 8-15, loaded for a longer word only */
	uint32_t mask = 0;

	for (const uint16_t *c = t->list + t->bucket[k]; *c; c++) {
		const struct sec_word *wd = &t->words[*c - 1];
		if ((a & wd->mask[0]) != wd->val[0])
			continue;
		if (wd->mask[1] && !have_z) {
			z = avail > 8 ? fold8(load8(u + 8, avail - 8)) : 0;
			have_z = true;
		}
		if ((z & wd->mask[1]) == wd->val[1])
			mask |= wd->bits;
	}
	return mask;
}

/* The words that start at u (avail bytes left) whose key's hash is h:
 * the test every word start takes, inline, is of h in start4, and for
 * the few that pass (a common word that begins as a trigger word does:
 * "with", "you ", "over") of the fifth byte; words_in() follows. */
static inline __attribute__((always_inline))
uint32_t words_at(const struct sec_words *t, unsigned h,
                                const unsigned char *u, size_t avail)
{
	return has_bit(t->start4, h) &&
	       (t->fifth[h >> 4] >> fifth_bit(u, avail) & 1) ?
	       words_in(t, h >> 4, u, avail) : 0;
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

/* key_hash() of eight starts: their first two bytes in the 16 bits of
 * ab, the next two in cd. */
static __m128i key_hash8(__m128i ab, __m128i cd)
{
	__m128i h = _mm_add_epi16(_mm_mullo_epi16(ab, _mm_set1_epi16((short)K0)),
	                          _mm_mullo_epi16(cd, _mm_set1_epi16((short)K1)));
	h = _mm_mullo_epi16(_mm_xor_si128(h, _mm_srli_epi16(h, 8)),
	                    _mm_set1_epi16((short)K2));
	return _mm_xor_si128(h, _mm_srli_epi16(h, 7));
}

/* key_hash() of each of the 16 starts at u, whose 19 bytes are there. */
static void key_hash16(const unsigned char *u, uint16_t h[16])
{
	__m128i v[4];
	for (int k = 0; k < 4; k++)
		v[k] = _mm_or_si128(_mm_loadu_si128((const __m128i *)(u + k)),
		                    _mm_set1_epi8(0x20));
	_mm_storeu_si128((__m128i *)h, key_hash8(
		_mm_unpacklo_epi8(v[0], v[1]), _mm_unpacklo_epi8(v[2], v[3])));
	_mm_storeu_si128((__m128i *)(h + 8), key_hash8(
		_mm_unpackhi_epi8(v[0], v[1]), _mm_unpackhi_epi8(v[2], v[3])));
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCAN_AVX2 1
#include <immintrin.h>

/* The same tests as above, 32 bytes at a time, for the processors that
 * have AVX2 (chosen once per file, at run time; SSE2 is the fallback). */
#define AVX2 __attribute__((target("avx2,bmi,bmi2")))

/* The vectors the tests below compare with, read from memory through a
 * pointer gcc cannot see through (scan32): every vector register is lost
 * across a call in scan32's loop (words_in, and realloc in add_line), and
 * gcc otherwise built each one again from an immediate, three
 * instructions, in every block of 32 bytes. */
#define B4(x) x, x, x, x
#define B16(x) B4(x), B4(x), B4(x), B4(x)
#define B32(x) B16(x), B16(x)
static const struct c32 {
	uint8_t fold[32], alpha_off[32], alpha_max[32], digit_off[32],
	        digit_max[32], under[32], dot[32], slash[32], dash[32],
	        lt[32], nl[32];
	uint16_t k0[16], k1[16], k2[16];
} __attribute__((aligned(32))) C32 = {
	{ B32(0x20) }, { B32(128 - 'a') }, { B32((uint8_t)(-128 + 26)) },
	{ B32(128 - '0') }, { B32((uint8_t)(-128 + 10)) }, { B32('_') },
	{ B32('.') }, { B32('/') }, { B32('-') }, { B32('<') }, { B32('\n') },
	{ B16(K0) }, { B16(K1) }, { B16(K2) },
};
#define V32(field) _mm256_load_si256((const __m256i *)kc->field)

AVX2 static inline uint32_t word_bits32(const struct c32 *kc, __m256i v)
{
	__m256i lower = _mm256_or_si256(v, V32(fold));
	__m256i alpha = _mm256_cmpgt_epi8(V32(alpha_max),
	                                  _mm256_add_epi8(lower, V32(alpha_off)));
	__m256i digit = _mm256_cmpgt_epi8(V32(digit_max),
	                                  _mm256_add_epi8(v, V32(digit_off)));
	__m256i under = _mm256_cmpeq_epi8(v, V32(under));
	return (uint32_t)_mm256_movemask_epi8(
		_mm256_or_si256(_mm256_or_si256(alpha, digit), under));
}

AVX2 static inline uint32_t punct_bits32(const struct c32 *kc, __m256i v)
{
	__m256i m = _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpeq_epi8(v, V32(dot)),
		                _mm256_cmpeq_epi8(v, V32(slash))),
		_mm256_or_si256(_mm256_cmpeq_epi8(v, V32(dash)),
		                _mm256_cmpeq_epi8(v, V32(lt))));
	return (uint32_t)_mm256_movemask_epi8(m);
}

AVX2 static inline __m256i key_hash16x(const struct c32 *kc, __m256i ab,
                                        __m256i cd)
{
	__m256i h = _mm256_add_epi16(_mm256_mullo_epi16(ab, V32(k0)),
	                             _mm256_mullo_epi16(cd, V32(k1)));
	h = _mm256_mullo_epi16(_mm256_xor_si256(h, _mm256_srli_epi16(h, 8)),
	                       V32(k2));
	return _mm256_xor_si256(h, _mm256_srli_epi16(h, 7));
}

/* key_hash() of each of the 32 starts at u, whose 35 bytes are there.
 * The unpacks work within each 128-bit half: lo holds starts 0-7 and
 * 16-23, hi 8-15 and 24-31; the two permutes put them in order. */
AVX2 static inline void key_hash32(const struct c32 *kc,
                                   const unsigned char *u, uint16_t h[32])
{
	__m256i v0 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)u),
	                             V32(fold));
	__m256i v1 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)
	                                                (u + 1)), V32(fold));
	__m256i v2 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)
	                                                (u + 2)), V32(fold));
	__m256i v3 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)
	                                                (u + 3)), V32(fold));
	__m256i lo = key_hash16x(kc, _mm256_unpacklo_epi8(v0, v1),
	                         _mm256_unpacklo_epi8(v2, v3));
	__m256i hi = key_hash16x(kc, _mm256_unpackhi_epi8(v0, v1),
	                         _mm256_unpackhi_epi8(v2, v3));
	_mm256_storeu_si256((__m256i *)h, _mm256_permute2x128_si256(lo, hi,
	                                                             0x20));
	_mm256_storeu_si256((__m256i *)(h + 16),
	                    _mm256_permute2x128_si256(lo, hi, 0x31));
}
#endif

/* One more line, starting at off: false when out of memory. */
/* Room for `more` lines: false when out of memory.  Not inlined: scan32
 * calls it once per block, before its vectors are live, so that no
 * register is saved around it. */
static __attribute__((noinline)) bool grow_lines(struct sec_lines *l,
                                                 size_t more)
{
	size_t cap = l->cap ? 2 * l->cap : 64;
	if (cap < l->n + more)
		cap = l->n + more;
	struct sec_span *v = realloc(l->v, cap * sizeof(*v));
	if (v)
		l->v = v;
	uint32_t *m = v ? realloc(l->masks, cap * sizeof(*m)) : NULL;
	if (!m)
		return false;
	l->masks = m;
	l->cap = cap;
	return true;
}

/* One more line, starting at off, where there is room for it. */
static inline void put_line(struct sec_lines *l, size_t off)
{
	l->v[l->n] = (struct sec_span){ off, 0 };
	l->masks[l->n++] = 0;
}

static bool add_line(struct sec_lines *l, size_t off)
{
	if (l->n == l->cap && !grow_lines(l, 1))
		return false;
	put_line(l, off);
	return true;
}

/* What the byte at off tells of its file (a NUL, a byte past ASCII). */
static inline void seen_byte(struct sec_lines *l, unsigned char c, size_t off)
{
	l->high |= c >= 0x80;
	l->nul |= c == 0 && off < SEC_NUL_SPAN;
}

/* A word found at off: its bits to the line that holds it (none holds a
 * line's end, and every line that starts before it is known), or to
 * *mask when no lines are kept. */
static inline void add_hit(struct sec_lines *l, uint32_t *mask, size_t off,
                           uint32_t bits)
{
	if (!l) {
		*mask |= bits;
		return;
	}
	while (l->at + 1 < l->n && l->v[l->at + 1].off <= off)
		l->at++;
	l->masks[l->at] |= bits;
}

/*
 * The trigger words of p (len bytes), and its lines when l is not NULL:
 * one pass over a whole file.  Measured over the 53 MB of
 * scripts/gen-corpus's 10,000 skills: a loop that stepped from word to
 * word took 190 ms; finding the starts sixteen bytes at a time (SSE2)
 * about a third of that, and the hashes of their four bytes sixteen at a
 * time, with the line ends, less again.  0 or -ENOMEM.
 */
#ifdef SCAN_AVX2
/* scan()'s loop 32 bytes at a time: where it stopped, or -ENOMEM.
 * words_at() must be inlined here (always_inline: gcc does not inline a
 * plain inline function into one built for another target); called,
 * this loop was no faster than SSE2's. */
AVX2 static ssize_t scan32(const struct sec_words *t, const unsigned char *u,
                           size_t len, struct sec_lines *l, uint32_t *mask,
                           unsigned *before)
{
	uint16_t h[32];
	size_t i = 0;
	uint32_t m, high = 0, nul = 0;
	const struct c32 *kc = &C32;

	__asm__("" : "+r"(kc));   /* see struct c32 */

	for (; i + 35 <= len; i += 32) {
		/* room for a line per byte of the block */
		if (l && l->cap - l->n < 32 && !grow_lines(l, 32))
			return -ENOMEM;
		__m256i v = _mm256_loadu_si256((const __m256i *)(u + i));
		uint32_t w = word_bits32(kc, v);
		uint32_t starts = (w & ~((w << 1) | *before)) |
		                  punct_bits32(kc, v);
		*before = w >> 31;
		uint32_t nl = l ? (uint32_t)_mm256_movemask_epi8(
			_mm256_cmpeq_epi8(v, V32(nl))) : 0;
		high |= (uint32_t)_mm256_movemask_epi8(v);
		/* i is a multiple of 32, as SEC_NUL_SPAN: the block is
		 * wholly in the span or wholly past it */
		if (i < SEC_NUL_SPAN)
			nul |= (uint32_t)_mm256_movemask_epi8(
				_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
		for (; nl; nl &= nl - 1)
			put_line(l, i + (unsigned)__builtin_ctz(nl) + 1);
		if (!starts)
			continue;
		key_hash32(kc, u + i, h);
		while (starts) {
			unsigned b = (unsigned)__builtin_ctz(starts);
			starts &= starts - 1;
			if ((m = words_at(t, h[b], u + i + b, len - i - b)))
				add_hit(l, mask, i + b, m);
		}
	}
	if (l) {
		l->high |= high != 0;
		l->nul |= nul != 0;
	}
	return (ssize_t)i;
}
#endif

static int scan(const struct sec_words *t, const unsigned char *u,
                size_t len, struct sec_lines *l, uint32_t *mask)
{
	size_t i = 0;
	unsigned before = 0;   /* the byte before i is a word's */
	uint32_t m;

#ifdef SCAN_AVX2
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) {
		ssize_t r = scan32(t, u, len, l, mask, &before);
		if (r < 0)
			return (int)r;
		i = (size_t)r;
	}
#endif
#ifdef __SSE2__
	uint16_t h[16];
	unsigned high = 0, nul = 0;
	for (; i + 19 <= len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(u + i));
		unsigned w = word_bits16(v);
		unsigned starts = (w & ~((w << 1) | before)) | punct_bits16(v);
		before = (w >> 15) & 1;
		/* i + b + 1 < len: each newline here starts a line */
		unsigned nl = l ? (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))) : 0;
		high |= (unsigned)_mm_movemask_epi8(v);
		/* i is a multiple of 16 (scan32 stops at one of 32) */
		if (i < SEC_NUL_SPAN)
			nul |= (unsigned)_mm_movemask_epi8(
				_mm_cmpeq_epi8(v, _mm_setzero_si128()));
		for (; nl; nl &= nl - 1)
			if (!add_line(l, i + (unsigned)__builtin_ctz(nl) + 1))
				return -ENOMEM;
		if (!starts)
			continue;
		key_hash16(u + i, h);
		while (starts) {
			unsigned b = (unsigned)__builtin_ctz(starts);
			starts &= starts - 1;
			if ((m = words_at(t, h[b], u + i + b, len - i - b)))
				add_hit(l, mask, i + b, m);
		}
	}
	if (l) {
		l->high |= high != 0;
		l->nul |= nul != 0;
	}
#endif
	for (; i + 1 < len; i++) {
		bool w = word_char[u[i]];
		if (((w && !before) || punct_start(u[i])) && i + 2 < len &&
		    (m = words_at(t, hash_at(u + i, len - i), u + i, len - i)))
			add_hit(l, mask, i, m);
		before = w;
		if (l && u[i] == '\n' && !add_line(l, i + 1))
			return -ENOMEM;
		if (l)
			seen_byte(l, u[i], i);
	}
	if (l && len > 0)
		seen_byte(l, u[len - 1], len - 1);
	return 0;
}

uint32_t sec_triggers(const struct sfs_security *sec, const char *p,
                      size_t len)
{
	uint32_t mask = 0;
	(void)scan(&sec->words, (const unsigned char *)p, len, NULL, &mask);
	return mask;
}

int sec_lines_scan(const struct sfs_security *sec, const char *p, size_t len,
                   struct sec_lines *l)
{
	*l = (struct sec_lines){ 0 };
	if (len > 0 && (!add_line(l, 0) ||
	                scan(&sec->words, (const unsigned char *)p, len, l,
	                     NULL) < 0)) {
		sec_lines_free(l);
		return -ENOMEM;
	}
	for (size_t k = 0; k < l->n; k++) {
		/* up to the next line's newline, or the file's end (with
		 * its newline, if it has one) */
		size_t end = k + 1 < l->n ? l->v[k + 1].off - 1 :
		             p[len - 1] == '\n' ? len - 1 : len;
		if (end > l->v[k].off && p[end - 1] == '\r')
			end--;   /* CRLF files: the line is the same */
		l->v[k].len = end - l->v[k].off;
	}
	return 0;
}

void sec_lines_free(struct sec_lines *l)
{
	free(l->v);
	free(l->masks);
	*l = (struct sec_lines){ 0 };
}

/* The pattern compiled, lowercased first if it reads lowercased text
 * (see struct pattern_def).  0, -ENOMEM or -EINVAL (a pattern above is
 * wrong). */
static int compile(regex_t *re, const struct pattern_def *def)
{
	const int flags = REG_EXTENDED | REG_NEWLINE;
	if (!def->icase)
		return regcomp(re, def->re, flags) == 0 ? 0 : -EINVAL;
	char *lowered = strdup(def->re);
	if (!lowered)
		return -ENOMEM;
	for (char *c = lowered; *c; c++)
		*c = (char)sec_lower_byte((unsigned char)*c);
	int rc = regcomp(re, lowered, flags) == 0 ? 0 : -EINVAL;
	free(lowered);
	return rc;
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
		int rc = compile(&sec->re[i], &patterns[i]);
		if (rc < 0) {
			sfs_security_free(sec);
			return rc;
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

/* regexec of pattern p on text, the match's start in *so. */
static bool regexec_at(const struct sfs_security *sec, enum sec_pattern p,
                       const char *text, size_t *so)
{
	regmatch_t m;
	if (regexec(&sec->re[p], text, 1, &m, 0) != 0)
		return false;
	*so = (size_t)m.rm_so;
	return true;
}

/* Whether the text holds one of the words every match of the pattern
 * holds (true if it names none). */
static bool may_match(const struct pattern_def *def, const char *text)
{
	if (!def->needs[0])
		return true;
	for (const char *const *w = def->needs; *w; w++)
		if (strstr(text, *w))
			return true;
	return false;
}

bool sec_match_near(const struct sfs_security *sec, enum sec_pattern p,
                    const char *text, size_t *so)
{
	enum { BEFORE = 64, AFTER = 192 };
	char win[BEFORE + AFTER + 1];
	size_t len = strlen(text);

	if (len <= sizeof(win) - 1)
		return sec_match(sec, p, text, so, NULL);
	for (const char *const *w = patterns[p].needs; *w; w++)
		for (const char *at = strstr(text, *w); at;
		     at = strstr(at + 1, *w)) {
			size_t from = (size_t)(at - text) > BEFORE ?
			              (size_t)(at - text) - BEFORE : 0;
			size_t n = len - from < sizeof(win) - 1 ? len - from
			                                        : sizeof(win) - 1;
			size_t o;
			memcpy(win, text + from, n);
			win[n] = '\0';
			if (regexec_at(sec, p, win, &o)) {
				*so = from + o;
				return true;
			}
		}
	return false;
}

bool sec_match(const struct sfs_security *sec, enum sec_pattern p,
               const char *text, size_t *so, size_t *eo)
{
	regmatch_t m;
	if (!may_match(&patterns[p], text) ||
	    regexec(&sec->re[p], text, 1, &m, 0) != 0)
		return false;
	if (so)
		*so = (size_t)m.rm_so;
	if (eo)
		*eo = (size_t)m.rm_eo;
	return true;
}
