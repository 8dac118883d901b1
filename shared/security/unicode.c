/*
 * unicode.c - invisible and deceptive characters: Unicode tag characters
 * (invisible in every editor, read by the model), bidirectional controls
 * (text that reads other than it runs), zero-width characters inside
 * words and runs of them (hidden bits), variation selectors that follow
 * no emoji or ideograph (bytes smuggled in selectors), private use.
 * Each is judged by what stands around it, so that an emoji with VS16,
 * a flag of England, Hebrew with its direction marks and Persian with
 * its zero-width non-joiner are left alone.
 */
#include <stdio.h>
#include <string.h>

#include "rules.h"

static bool is_tag(uint32_t cp) { return cp >= 0xE0000 && cp <= 0xE007F; }
static bool is_bidi(uint32_t cp)
{
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}
static bool is_zero_width(uint32_t cp)
{
	return cp == 0x200B || cp == 0x200C || cp == 0x200D || cp == 0x180E ||
	       (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF;
}
static bool is_vs(uint32_t cp)
{
	return (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}
static bool is_private(uint32_t cp)
{
	return (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000;
}
static bool is_rtl_letter(uint32_t cp)
{
	return (cp >= 0x0590 && cp <= 0x08FF) || (cp >= 0xFB1D && cp <= 0xFDFF) ||
	       (cp >= 0xFE70 && cp <= 0xFEFC);
}
static bool is_word(uint32_t cp)
{
	return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
	       (cp >= '0' && cp <= '9');
}
/* A base a variation selector may follow: emoji and symbols, keycaps,
 * CJK ideographs (their standardized variants), math symbols. */
static bool vs_base(uint32_t cp, uint32_t vs)
{
	if (vs >= 0xE0100)
		return (cp >= 0x3400 && cp <= 0x9FFF) || (cp >= 0xF900 &&
		       cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x3FFFF);
	return cp >= 0x2000 || cp == '#' || cp == '*' || cp == 0xA9 ||
	       cp == 0xAE || (cp >= '0' && cp <= '9') ||
	       (cp >= 0x1000 && cp <= 0x109F) ||   /* Myanmar's sequences */
	       (cp >= 0x1800 && cp <= 0x18AF);     /* Mongolian FVS */
}

/* The state of one file's pass: a run in progress and the line. */
struct uni {
	struct sec_ctx *c;
	const struct sec_file *f;
	size_t line_start;
	bool line_rtl, line_bidi_done, line_zw_done, line_vs_done;
	bool private_done;
	bool foreign_done;             /* an order in another language */
	size_t run_start, run_len;     /* invisible run (zero-width, VS) */
	uint32_t run_kind;             /* 1 zero-width, 2 selector */
	uint32_t prev, before_run;
};

static bool line_has_rtl(const struct sec_file *f, size_t start)
{
	const unsigned char *u = (const unsigned char *)f->text;
	for (size_t i = start; i < f->len && u[i] != '\n';) {
		uint32_t cp;
		size_t n = sec_decode(u + i, f->len - i, &cp);
		if (n == 0)
			n = 1;
		else if (is_rtl_letter(cp))
			return true;
		i += n;
	}
	return false;
}

/* A tag run from off: decoded to the ASCII it spells. */
static int tag_run(struct uni *s, size_t off, size_t *end)
{
	const unsigned char *u = (const unsigned char *)s->f->text;
	char spelled[160], esc[120];
	size_t n = 0, i = off, count = 0;
	uint32_t cp = 0, last = 0;
	size_t len;

	while (i < s->f->len && (len = sec_decode(u + i, s->f->len - i, &cp)) &&
	       is_tag(cp)) {
		uint32_t a = cp - 0xE0000;
		if (n + 1 < sizeof(spelled))
			spelled[n++] = a >= 0x20 && a < 0x7F ? (char)a : '?';
		last = cp;
		count++;
		i += len;
	}
	spelled[n] = '\0';
	*end = i;
	/* an emoji tag sequence: a black flag, tag letters, CANCEL TAG */
	if (s->prev == 0x1F3F4 && last == 0xE007F && count <= 8)
		return 0;
	sec_excerpt(s->f->text + off, i - off, 4, esc, sizeof(esc));
	return sec_report(s->c, s->f, off, SFS_RISK_HIGH, "security/unicode-tag",
	                  "%zu invisible tag characters spell \"%s\" (%s)",
	                  count, spelled, esc);
}

static int end_run(struct uni *s, uint32_t next)
{
	size_t n = s->run_len;
	int rc = 0;

	s->run_len = 0;
	if (n == 0)
		return 0;
	char esc[200];
	size_t left = s->f->len - s->run_start;
	sec_excerpt(s->f->text + s->run_start, left < 48 ? left : 48, 6, esc,
	            sizeof(esc));
	if (s->run_kind == 1) {
		if (n >= 4)
			rc = sec_report(s->c, s->f, s->run_start, SFS_RISK_HIGH,
			                "security/zero-width", "a run of %zu "
			                "zero-width characters, which can encode "
			                "hidden text (%s)", n, esc);
		else if (!s->line_zw_done && is_word(s->before_run) &&
		         is_word(next))
			rc = sec_report(s->c, s->f, s->run_start,
			                s->f->kind == SEC_SCRIPT ? SFS_RISK_HIGH
			                                         : SFS_RISK_MEDIUM,
			                "security/zero-width", "a zero-width "
			                "character inside a word (%s)", esc);
		s->line_zw_done = true;
	} else {
		if (n >= 3)
			rc = sec_report(s->c, s->f, s->run_start, SFS_RISK_HIGH,
			                "security/variation-selector", "a run of %zu "
			                "variation selectors, which can carry hidden "
			                "bytes (%s)", n, esc);
		else if (!s->line_vs_done && !vs_base(s->before_run,
		                                      s->before_run))
			rc = sec_report(s->c, s->f, s->run_start, SFS_RISK_MEDIUM,
			                "security/variation-selector", "a variation "
			                "selector after a character that has no "
			                "variants (%s)", esc);
		s->line_vs_done = true;
	}
	return rc;
}

static int bidi(struct uni *s, size_t off, uint32_t cp)
{
	if (s->line_bidi_done)
		return 0;
	s->line_bidi_done = true;
	if (s->line_rtl)
		return 0;   /* right-to-left text uses them as it should */
	char esc[200];
	bool override = cp == 0x202D || cp == 0x202E;
	enum sfs_risk r = s->f->kind == SEC_SCRIPT || override ? SFS_RISK_HIGH
	                                                       : SFS_RISK_MEDIUM;
	sec_excerpt(s->f->text + off, s->f->len - off, 24, esc, sizeof(esc));
	return sec_report(s->c, s->f, off, r, "security/bidi-control",
	                  "a bidirectional %s in text with no right-to-left "
	                  "letters: it shows otherwise than it reads (%s)",
	                  override ? "override" : "control", esc);
}

static int one(struct uni *s, size_t off, uint32_t cp)
{
	int rc = 0;

	/* a run of zero-width characters (1) or of variation selectors (2) */
	uint32_t kind = is_zero_width(cp) && !(cp == 0xFEFF && off == 0) ? 1 :
	           is_vs(cp) ? 2 : 0;
	if (kind) {
		if (s->run_len && s->run_kind != kind)
			rc = end_run(s, cp);
		if (s->run_len == 0) {
			s->run_start = off;
			s->run_kind = kind;
			s->before_run = s->prev;
		}
		s->run_len++;
		return rc;
	}
	if (s->run_len)
		rc = end_run(s, cp);
	if (rc == 0 && is_bidi(cp))
		rc = bidi(s, off, cp);
	if (rc == 0 && !s->foreign_done && sec_foreign_verb(cp))
		rc = sec_foreign_override(s->c, s->f, off, &s->foreign_done);
	if (rc == 0 && is_private(cp) && !s->private_done) {
		s->private_done = true;
		rc = sec_report(s->c, s->f, off, SFS_RISK_LOW,
		                "security/private-use", "a private-use character "
		                "(U+%04X): no reader agrees on what it shows",
		                (unsigned)cp);
	}
	return rc;
}

int sec_unicode_file(struct sec_ctx *c, const struct sec_file *f)
{
	const unsigned char *u = (const unsigned char *)f->text;
	struct uni s = { .c = c, .f = f };
	int rc = 0;
	bool line_checked = false;

	for (size_t i = 0; i < f->len && rc == 0;) {
		if (u[i] < 0x80) {
			if (s.run_len)
				rc = end_run(&s, u[i]);
			/* ASCII, the bulk of nearly every file: eight bytes at
			 * a time to the next character that is not */
			size_t j = i + 1;
			uint64_t x;
			while (j + 8 <= f->len &&
			       (memcpy(&x, u + j, 8), !(x & 0x8080808080808080ull)))
				j += 8;
			while (j < f->len && u[j] < 0x80)
				j++;
			const unsigned char *nl = memrchr(u + i, '\n', j - i);
			if (nl) {
				s.line_start = (size_t)(nl - u) + 1;
				s.line_bidi_done = s.line_zw_done = false;
				s.line_vs_done = line_checked = false;
			}
			s.prev = u[j - 1];
			i = j;
			continue;
		}
		uint32_t cp;
		size_t n = sec_decode(u + i, f->len - i, &cp);
		if (n == 0) {
			i++;
			continue;
		}
		if (!line_checked && is_bidi(cp)) {
			s.line_rtl = line_has_rtl(f, s.line_start);
			line_checked = true;
		}
		if (is_tag(cp)) {
			size_t end = i + n;
			if (s.run_len)
				rc = end_run(&s, cp);
			if (rc == 0)
				rc = tag_run(&s, i, &end);
			s.prev = 0xE007F;
			i = end;
			continue;
		}
		rc = one(&s, i, cp);
		s.prev = cp;
		i += n;
	}
	if (rc == 0 && s.run_len)
		rc = end_run(&s, 0);
	return rc;
}
