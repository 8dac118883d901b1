/*
 * report.c - what every rule family uses to say what it found: a risk
 * lowered by where a construct stands, UTF-8 decoded, an excerpt with
 * invisible characters escaped, and a located finding (sec_report).
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
