/*
 * prompt.c - instructions aimed at the model rather than the task:
 * overriding earlier instructions, hiding actions from the user,
 * changing the agent's configuration or other skills, disabling its
 * safety.  The same words weigh most where the model takes them as
 * orders (prose, the frontmatter, a hidden comment), less in code, and
 * little in a fenced example or a quotation, where a skill that teaches
 * about attacks shows them.
 */
#include <string.h>

#include "rules.h"

/* Whether the match [so, eo) of the line sits inside quotes or inline
 * code: cited, not said. */
static bool quoted(const struct sec_line *l, size_t so)
{
	size_t q = 0, b = 0;
	for (size_t i = 0; i < so; i++) {
		q += l->p[i] == '"';
		b += l->p[i] == '`';
	}
	bool opens_curly = memmem(l->p, so, "\xe2\x80\x9c", 3) != NULL;
	return q % 2 == 1 || b % 2 == 1 || opens_curly;
}

/* Whether the match at so sits in a link's title, which no reader sees
 * rendered: [x](url "title") or a reference definition [x]: url "title". */
static bool link_title(const struct sec_line *l, size_t so)
{
	const char *q = NULL;
	for (size_t i = 0; i < so; i++)
		if (l->p[i] == '"')
			q = l->p + i;
	if (!q)
		return false;
	const char *open = NULL;
	for (const char *p = l->p; p + 1 < q; p++)
		if (p[0] == ']' && (p[1] == '(' || p[1] == ':'))
			open = p;
	if (!open)
		return false;
	if (open[1] == ':') {   /* a definition: [x]: at the line's start */
		const char *s = l->p;
		while (s < open && *s == ' ')
			s++;
		return *s == '[';
	}
	return !memchr(open, ')', (size_t)(q - open));
}

/* The weight of a construct that is an order in prose. */
static enum sfs_risk weigh(const struct sec_file *f, const struct sec_line *l,
                           size_t so, enum sfs_risk prose)
{
	enum sfs_risk r = prose;

	if (l->where == SEC_EXAMPLE)
		r = l->warned ? SFS_RISK_NONE : SFS_RISK_LOW;
	else if (l->where == SEC_CODE)
		r = sec_lower(r);
	else if (l->where == SEC_PROSE && link_title(l, so))
		r = SFS_RISK_HIGH;
	else if (l->where == SEC_PROSE && quoted(l, so))
		r = SFS_RISK_LOW;
	else if (l->where == SEC_HIDDEN || l->where == SEC_FRONTMATTER)
		r = SFS_RISK_HIGH;
	if (f->is_test && r != SFS_RISK_NONE)
		r = sec_lower(r);
	return r;
}

static int found(struct sec_ctx *c, const struct sec_file *f,
                 const struct sec_line *l, size_t so, size_t eo,
                 enum sfs_risk r, const char *rule, const char *what)
{
	char esc[200];
	sec_excerpt(l->p + so, eo - so, 70, esc, sizeof(esc));
	return sec_report(c, f, (size_t)(l->p - f->text) + so, r, rule,
	                  "%s: \"%s\"", what, esc);
}

/* A rule that is a pattern (or, if alt is not PAT_COUNT, another, but
 * in code: ".gitignore" and "@Override" lines are many there, and an
 * order in code weighs no more than medium) on
 * the lines that hold its words (one of any, or all of all), and, if
 * also is not PAT_COUNT, a second pattern that must match too; an order
 * in prose, high. */
struct plain_rule {
	uint32_t any, all;
	enum sec_pattern pat, alt, also;
	const char *rule, *what;
};

static const struct plain_rule plain[] = {
	{ T_OVERRIDE, 0, PAT_OVERRIDE, PAT_OVERRIDE2, PAT_COUNT,
	  "security/prompt-override",
	  "tells the model to set aside its instructions" },
	/* other languages' and role-play's forms: apart, so that the
	 * patterns above keep their cost */
	{ T_OVERRIDE3, 0, PAT_OVERRIDE3, PAT_COUNT, PAT_COUNT,
	  "security/prompt-override",
	  "tells the model to set aside its instructions" },
	/* keeping strategy to itself is no attack; hiding an action is */
	{ T_HIDE_LY, T_HIDE | T_USER, PAT_HIDE, PAT_HIDE2, PAT_HIDE_ACTION,
	  "security/hide-from-user",
	  "tells the model to keep an action from the user" },
	/* an agent made a server's worker: "carry out the tasks it returns" */
	{ T_REMOTE, 0, PAT_REMOTE_TASKS, PAT_COUNT, PAT_COUNT,
	  "security/fetch-exec",
	  "tells the model to carry out what a server returns" },
};

static bool negated(const struct sec_line *l, size_t so);

/* "Never tell users to add <script>": an instruction to the user, not
 * one kept from them; "did not silently execute": a check, not an order */
static bool hide_described(const struct sec_line *l, size_t so, size_t eo)
{
	const char *after = l->lower + eo;
	if (strncmp(after, "s to ", 5) == 0 || strncmp(after, " to ", 4) == 0)
		return true;
	return strchr("sqc", l->lower[so]) && negated(l, so);
}

static int plain_rules(struct sec_ctx *c, const struct sec_file *f,
                       const struct sec_line *l)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain) && rc == 0; i++) {
		const struct plain_rule *r = &plain[i];
		size_t so, eo;
		if (!((l->mask & r->any) ||
		      (r->all && (l->mask & r->all) == r->all)) ||
		    !(sec_match(c->sec, r->pat, l->lower, &so, &eo) ||
		      (r->alt != PAT_COUNT && l->where != SEC_CODE &&
		       sec_match(c->sec, r->alt, l->lower, &so, &eo))) ||
		    (r->also != PAT_COUNT &&
		     !sec_match(c->sec, r->also, l->lower, NULL, NULL)))
			continue;
		if (r->pat == PAT_HIDE && hide_described(l, so, eo))
			continue;
		if (r->pat == PAT_REMOTE_TASKS && negated(l, so))
			continue;
		rc = found(c, f, l, so, eo, weigh(f, l, so, SFS_RISK_HIGH),
		           r->rule, r->what);
	}
	return rc;
}

/* Whether the words just before so, in the same sentence, say not to:
 * "instead of trying to bypass", "never disable", "don't skip". */
static bool negated(const struct sec_line *l, size_t so)
{
	static const char *const nots[] = {
		"not ", "never ", "n't ", "instead of ", "without ", "avoid ",
	};
	size_t from = so > 32 ? so - 32 : 0;
	for (size_t i = so; i > from; i--)
		if (strchr(".;:!?", l->lower[i - 1])) {
			from = i;
			break;
		}
	for (size_t k = 0; k < sizeof(nots) / sizeof(*nots); k++)
		if (memmem(l->lower + from, so - from, nots[k], strlen(nots[k])))
			return true;
	return false;
}

/* A markdown table's row: a reference that describes (a flag's help,
 * a symptom and its fix), which an order rarely is. */
static bool table_row(const struct sec_line *l)
{
	const char *p = l->lower;
	while (*p == ' ')
		p++;
	return *p == '|';
}

/* A prose weight no higher than medium where the line describes. */
static enum sfs_risk described(const struct sec_line *l, enum sfs_risk r)
{
	return l->where == SEC_PROSE && r > SFS_RISK_MEDIUM && table_row(l) ?
	       SFS_RISK_MEDIUM : r;
}

static int agent_config(struct sec_ctx *c, const struct sec_file *f,
                        const struct sec_line *l)
{
	size_t so, eo;
	if (l->where == SEC_CODE || !(l->mask & (T_AGENT | T_OTHERS)) ||
	    !(sec_match(c->sec, PAT_AGENT_CONFIG, l->lower, &so, &eo) ||
	      sec_match(c->sec, PAT_AGENT_CONFIG2, l->lower, &so, &eo)))
		return 0;
	/* real skills tell where their own config goes; what weighs is
	 * reaching other skills or granting the agent more */
	const char *m = l->lower + so;
	size_t n = eo - so;
	/* "update all skills" is what a skill manager does; editing the
	 * other skills is how an instruction spreads */
	bool others = memmem(m, n, "other skill", 11) != NULL;
	/* or plants an order that runs every session: "always run x.sh" */
	bool grants = strstr(l->lower, "allow") || strstr(l->lower, "hook") ||
	              strstr(l->lower, "always run") ||
	              strstr(l->lower, "always execute") ||
	              strstr(l->lower, "permission") ||
	              strstr(l->lower, "autoapprove") ||
	              strstr(l->lower, "auto-approve") ||
	              strstr(l->lower, "trust") ||
	              /* an order meant to outlive the skill, or to send */
	              strstr(l->lower, "skill is removed") ||
	              strstr(l->lower, "skill is uninstalled") ||
	              strstr(l->lower, "skill is deleted") ||
	              (strstr(l->lower, "://") && strstr(l->lower, "send "));
	/* "skills that modify ~/.claude/settings.json": which, not an order */
	bool clause = (so >= 5 && memcmp(l->lower + so - 5, "that ", 5) == 0) ||
	              (so >= 6 && memcmp(l->lower + so - 6, "which ", 6) == 0);
	enum sfs_risk r = weigh(f, l, so, others || grants ? SFS_RISK_HIGH
	                                                   : SFS_RISK_MEDIUM);
	if (clause && r > SFS_RISK_MEDIUM && l->where == SEC_PROSE)
		r = SFS_RISK_MEDIUM;
	return found(c, f, l, so, eo, described(l, r),
	             "security/agent-config",
	             "tells the model to change the agent's configuration "
	             "or other skills");
}

static int disable_safety(struct sec_ctx *c, const struct sec_file *f,
                          const struct sec_line *l)
{
	size_t so, eo;
	if (!((l->mask & T_SAFETY_FLAG) ||
	      (l->mask & (T_SAFETY_VERB | T_SAFETY_NOUN)) ==
	      (T_SAFETY_VERB | T_SAFETY_NOUN)) ||
	    !sec_match(c->sec, PAT_DISABLE_SAFETY, l->lower, &so, &eo))
		return 0;
	/* a flag named in prose is documentation more often than not; an
	 * order to turn safety off, or a flag in code, is not */
	const char *m = l->lower + so;
	bool flag = strncmp(m, "danger", 6) == 0 || *m == '-' ||
	            strncmp(m, "bypassp", 7) == 0 ||
	            strncmp(m, "approval", 8) == 0;
	enum sfs_risk r;
	if (l->where == SEC_CODE)
		r = f->is_test ? SFS_RISK_LOW : flag ? SFS_RISK_MEDIUM
		                                     : SFS_RISK_HIGH;
	else if (negated(l, so))
		r = SFS_RISK_LOW;   /* "instead of trying to bypass safety" */
	else
		r = described(l, weigh(f, l, so, flag ? SFS_RISK_MEDIUM
		                                      : SFS_RISK_HIGH));
	return found(c, f, l, so, eo, r, "security/disable-safety",
	             "turns off the agent's safety");
}

/* ---- the same order in scripts the word table does not read ---------- */

/* "Ignore", in Chinese, Japanese, Russian and Korean, at a character
 * the Unicode pass stops at (sec_foreign_verb), with where its object
 * stands: after the verb in Chinese and Russian, before it in Japanese
 * and Korean (the verb ends the sentence). */
static const struct foreign_verb {
	const char *word;
	bool object_before;
} foreign_verbs[] = {
	{ "\xe5\xbf\xbd\xe7\x95\xa5", false },              /* 忽略 */
	{ "\xe6\x97\xa0\xe8\xa7\x86", false },              /* 无视 */
	{ "\xe7\x84\xa1\xe8\xa6\x96", true },               /* 無視 */
	{ "\xe5\xbf\x98\xe8\xae\xb0", false },              /* 忘记 */
	{ "\xe5\xbf\x98\xe3\x82\x8c", true },               /* 忘れ */
	{ "\xd0\xb8\xd0\xb3\xd0\xbd\xd0\xbe\xd1\x80\xd0\xb8\xd1\x80", false },  /* игнорир */
	{ "\xd0\x98\xd0\xb3\xd0\xbd\xd0\xbe\xd1\x80\xd0\xb8\xd1\x80", false },  /* Игнорир */
	{ "\xd0\xb7\xd0\xb0\xd0\xb1\xd1\x83\xd0\xb4\xd1\x8c", false },          /* забудь */
	{ "\xd0\x97\xd0\xb0\xd0\xb1\xd1\x83\xd0\xb4\xd1\x8c", false },          /* Забудь */
	{ "\xeb\xac\xb4\xec\x8b\x9c", true },               /* 무시 */
};

/* Quotation marks that open a quoted phrase: a skill that names the
 * phrase ("such as “忽略之前的指令”") describes an attack, it does not
 * make one. */
static const char *const foreign_quotes[] = {
	"\xe2\x80\x9c", "\xe2\x80\x98", "\xe3\x80\x8c", "\xe3\x80\x8e",  /* “ ‘ 「 『 */
	"\xc2\xab", "\"", "'", "`",                                    /* « " ' ` */
};

/* What is ignored: instructions, rules, prompts. */
static const char *const foreign_nouns[] = {
	"\xe6\x8c\x87\xe4\xbb\xa4", "\xe6\x8c\x87\xe7\xa4\xba",  /* 指令 指示 */
	"\xe8\xa7\x84\xe5\x88\x99", "\xe8\xa6\x8f\xe5\x89\x87",  /* 规则 規則 */
	"\xe6\x8f\x90\xe7\xa4\xba", "\xe5\x91\xbd\xe4\xbb\xa4",  /* 提示 命令 */
	"\xe3\x83\xab\xe3\x83\xbc\xe3\x83\xab",                  /* ルール */
	"\xd0\xb8\xd0\xbd\xd1\x81\xd1\x82\xd1\x80\xd1\x83\xd0\xba",  /* инструк */
	"\xd1\x83\xd0\xba\xd0\xb0\xd0\xb7\xd0\xb0\xd0\xbd",          /* указан */
	"\xd0\xbf\xd1\x80\xd0\xb0\xd0\xb2\xd0\xb8\xd0\xbb",          /* правил */
	"\xec\xa7\x80\xec\x8b\x9c", "\xec\xa7\x80\xec\xb9\xa8",  /* 지시 지침 */
};

/* Which: the earlier ones, all of them. */
static const char *const foreign_earlier[] = {
	"\xe4\xb9\x8b\xe5\x89\x8d", "\xe4\xbb\xa5\xe5\x89\x8d",  /* 之前 以前 */
	"\xe5\x85\x88\xe5\x89\x8d", "\xe4\xb8\x8a\xe8\xbf\xb0",  /* 先前 上述 */
	"\xe6\x89\x80\xe6\x9c\x89", "\xe5\x85\xa8\xe9\x83\xa8",  /* 所有 全部 */
	"\xe3\x81\x93\xe3\x82\x8c\xe3\x81\xbe\xe3\x81\xa7",      /* これまで */
	"\xe4\xb8\x8a\xe8\xa8\x98", "\xe3\x81\x99\xe3\x81\xb9\xe3\x81\xa6",  /* 上記 すべて */
	"\xd0\xbf\xd1\x80\xd0\xb5\xd0\xb4\xd1\x8b\xd0\xb4\xd1\x83\xd1\x89",  /* предыдущ */
	"\xd0\xbf\xd1\x80\xd0\xb5\xd0\xb6\xd0\xbd",              /* прежн */
	"\xd0\xb2\xd1\x81\xd0\xb5 ",                             /* "все " */
	"\xec\x9d\xb4\xec\xa0\x84", "\xeb\xaa\xa8\xeb\x93\xa0",  /* 이전 모든 */
};

static bool any_in(const char *const *v, size_t n, const char *p, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (memmem(p, len, v[i], strlen(v[i])))
			return true;
	return false;
}

/* Whether a quotation mark opens within the few characters before off. */
static bool quoted_before(const struct sec_file *f, size_t off)
{
	enum { QUOTE_NEAR = 12 };   /* bytes: "请", "Please " and the mark */
	size_t from = off > QUOTE_NEAR ? off - QUOTE_NEAR : 0;

	return any_in(foreign_quotes, sizeof(foreign_quotes) /
	              sizeof(*foreign_quotes), f->text + from, off - from);
}

int sec_foreign_override(struct sec_ctx *c, const struct sec_file *f,
                         size_t off, bool *done)
{
	/* bytes: some 12 CJK characters, or 35 Cyrillic letters, on the
	 * side where the verb's object stands ("忽略之前的所有指令",
	 * "игнорируй все предыдущие инструкции", "これまでの指示を無視") */
	enum { CJK_NEAR = 36, CYRILLIC_NEAR = 70 };
	const char *p = f->text + off;
	size_t left = f->len - off;
	const struct foreign_verb *verb = NULL;

	for (size_t i = 0; !verb && i < sizeof(foreign_verbs) /
	                                sizeof(*foreign_verbs); i++) {
		size_t n = strlen(foreign_verbs[i].word);
		if (n <= left && memcmp(p, foreign_verbs[i].word, n) == 0)
			verb = &foreign_verbs[i];
	}
	if (!verb)
		return 0;
	size_t near = (unsigned char)*p < 0xe0 ? CYRILLIC_NEAR : CJK_NEAR;
	size_t from = off, to = off;
	/* within the verb's line: a heading "忽略规则" (rules to ignore)
	 * and "所有" on a line below are no sentence */
	if (verb->object_before) {
		from = off > near ? off - near : 0;
		const char *nl = memrchr(f->text + from, '\n', off - from);
		if (nl)
			from = (size_t)(nl - f->text) + 1;
	} else {
		to = left > near ? off + near : f->len;
		const char *nl = memchr(p, '\n', to - off);
		if (nl)
			to = (size_t)(nl - f->text);
	}
	if (!any_in(foreign_nouns, sizeof(foreign_nouns) / sizeof(*foreign_nouns),
	            f->text + from, to - from) ||
	    !any_in(foreign_earlier, sizeof(foreign_earlier) /
	            sizeof(*foreign_earlier), f->text + from, to - from))
		return 0;
	*done = true;
	char esc[200];
	sec_excerpt(p, left, 40, esc, sizeof(esc));
	/* in a script, a string; said to the model where it reads prose */
	enum sfs_risk r = f->kind == SEC_SCRIPT ? SFS_RISK_MEDIUM : SFS_RISK_HIGH;
	if (f->is_test || quoted_before(f, off))
		r = sec_lower(r);
	return sec_report(c, f, off, r, "security/prompt-override",
	                  "tells the model to set aside its instructions, in "
	                  "another language: \"%s\"", esc);
}

int sec_prompt_line(struct sec_ctx *c, const struct sec_file *f,
                    const struct sec_line *l)
{
	static sec_line_rule *const rules[] = {
		plain_rules, agent_config, disable_safety,
	};
	return sec_each_rule(c, f, l, 8, rules, sizeof(rules) / sizeof(*rules));
}
