/*
 * diag.c - the list of findings that validation and scanning produce.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "internal.h"

static bool plain_at(const unsigned char *s, size_t n, size_t *len)
{
	*len = sfs_utf8_seq(s, n);
	return *len > 1 || (*len == 1 && s[0] >= 0x20 && s[0] != 0x7F);
}

/*
 * A copy of s in the arena with every byte that is not UTF-8, and every
 * control character, written as \xNN: findings are printed one per line
 * and rendered as JSON, and a hostile file name or link target must break
 * neither.
 */
static char *printable(struct sfs_arena *a, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), extra = 0, len;

	for (size_t i = 0; i < n;) {
		if (plain_at(u + i, n - i, &len)) {
			i += len;
		} else {
			extra += 3;
			i++;
		}
	}
	if (!extra)
		return sfs_arena_strdup(a, s);
	char *out = sfs_arena_alloc(a, n + extra + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		if (plain_at(u + i, n - i, &len)) {
			memcpy(o, u + i, len);
			o += len;
			i += len;
		} else {
			o += sprintf(o, "\\x%02X", u[i]);
			i++;
		}
	}
	*o = '\0';
	return out;
}

int sfs_diag_addv(struct sfs_diag_list *l, enum sfs_severity sev,
                  const char *file, unsigned line, unsigned column,
                  const char *field, const char *fmt, va_list ap)
{
	if (sfs_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;

	char buf[1024];
	vsnprintf(buf, sizeof(buf), fmt, ap);

	struct sfs_diag *d = &l->v[l->n];
	d->severity = sev;
	d->rule = NULL;
	d->risk = SFS_RISK_NONE;
	d->file = printable(l->arena, file ? file : "");
	d->line = line;
	d->column = column;
	d->field = printable(l->arena, field ? field : "");
	d->message = printable(l->arena, buf);
	if (!d->file || !d->field || !d->message)
		return -ENOMEM;
	l->n++;
	return 0;
}

int sfs_diag_add(struct sfs_diag_list *l, enum sfs_severity sev,
                 const char *file, unsigned line, unsigned column,
                 const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sfs_diag_addv(l, sev, file, line, column, field, fmt, ap);
	va_end(ap);
	return rc;
}

int sfs_diag_hidden(struct sfs_diag_list *l, const char *path,
                    bool is_skill_md, const char *why)
{
	if (is_skill_md)
		return sfs_diag_add(l, SFS_ERROR, path, 0, 0, "",
		                    "%s; the skill cannot be served", why);
	return sfs_diag_add(l, SFS_WARNING, path, 0, 0, "", "%s; hidden", why);
}

int sfs_diag_add_root(struct sfs_diag_list *l, enum sfs_severity sev,
                      const char *root, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sfs_diag_addv(l, sev, root, 0, 0, "", fmt, ap);
	va_end(ap);
	return rc;
}

int sfs_diag_add_rule(struct sfs_diag_list *l, enum sfs_risk risk,
                      const char *rule, const char *file, unsigned line,
                      unsigned column, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sfs_diag_addv(l, SFS_WARNING, file, line, column, "", fmt, ap);
	va_end(ap);
	if (rc == 0) {
		l->v[l->n - 1].rule = rule;
		l->v[l->n - 1].risk = risk;
	}
	return rc;
}

const char *sfs_risk_name(enum sfs_risk r)
{
	static const char *const names[] = { NULL, "low", "medium", "high" };
	return r >= SFS_RISK_NONE && r <= SFS_RISK_HIGH ? names[r] : NULL;
}

size_t sfs_diag_count(const struct sfs_diag_list *l, enum sfs_severity sev)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].severity == sev;
	return n;
}

void sfs_diag_promote_warnings(struct sfs_diag_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].rule)
			l->v[i].severity = SFS_ERROR;
}

void sfs_diag_list_free(struct sfs_diag_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int sfs_diag_cmp(const void *x, const void *y)
{
	const struct sfs_diag_key *a = x, *b = y;
	int c = strcmp(a->d->file, b->d->file);
	if (c == 0)
		c = (a->d->line > b->d->line) - (a->d->line < b->d->line);
	if (c == 0)
		c = (a->d->column > b->d->column) -
		    (a->d->column < b->d->column);
	if (c == 0)
		c = (a->order > b->order) - (a->order < b->order);
	return c;
}
