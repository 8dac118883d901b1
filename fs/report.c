/*
 * report.c - tells the user, at start and after each refresh, which skill
 * folders were newly left out (rejected or shadowed) and how many skills
 * are served: on stderr with -f, else to syslog, since a daemon in the
 * background has no terminal.  status.json keeps the whole story.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "contract.h"
#include "daemon.h"
#include "options.h"
#include "report.h"

void report_say(const struct daemon *d, int priority, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (d->opt->foreground) {
		fprintf(stderr, "skillsfs: %s\n", line);
		return;
	}
	/* openlog once is enough; repeating it costs nothing */
	openlog("skillsfs", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	syslog(priority, "%s", line);
}

/* The unserved folder `dir` of prev with the same reason, or NULL. */
static const struct sfs_unserved *known(const sfs_catalog *prev,
                                        const struct sfs_unserved *u)
{
	size_t n;
	const struct sfs_unserved *v = prev ? sfs_catalog_unserved(prev, &n)
	                                    : NULL;

	if (!v)
		return NULL;
	size_t lo = 0, hi = n;   /* sorted by dir */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].dir, u->dir);
		if (c == 0)
			return v[mid].reason == u->reason ? &v[mid] : NULL;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The first error of a rejected folder: why it is not served. */
static const struct sfs_diag *first_error(const struct sfs_unserved *u)
{
	for (size_t i = 0; i < u->ndiags; i++)
		if (u->diags[i].severity == SFS_ERROR)
			return &u->diags[i];
	return u->ndiags ? &u->diags[0] : NULL;
}

static void report_unserved(const struct daemon *d,
                            const struct sfs_unserved *u)
{
	if (u->reason == SFS_SHADOWED) {
		report_say(d, LOG_NOTICE, "shadowed: %s: skill \"%s\" is served from "
		    "%s", u->dir, u->id ? u->id : "", u->shadowed_by);
		return;
	}
	if (u->reason == SFS_UNLOCKED) {
		report_say(d, LOG_WARNING, "not in the lock: %s: skill \"%s\"",
		    u->dir, u->id ? u->id : "");
		return;
	}
	const struct sfs_diag *e = first_error(u);
	if (!e) {
		report_say(d, LOG_WARNING, "rejected: %s", u->dir);
	} else if (e->line) {
		report_say(d, LOG_WARNING, "rejected: %s: %s:%u:%u: %s%s%s", u->dir,
		    e->file, e->line, e->column, e->field,
		    *e->field ? ": " : "", e->message);
	} else {
		report_say(d, LOG_WARNING, "rejected: %s: %s: %s%s%s", u->dir, e->file,
		    e->field, *e->field ? ": " : "", e->message);
	}
}

void report_catalog(const struct daemon *d, const sfs_catalog *prev,
                    const sfs_catalog *cat)
{
	size_t n;
	const struct sfs_unserved *v = sfs_catalog_unserved(cat, &n);

	for (size_t i = 0; v && i < n; i++)
		if (!known(prev, &v[i]))
			report_unserved(d, &v[i]);
	struct sfs_counts c = sfs_catalog_counts(cat);
	char more[160] = "";
	int used = 0;
	if (c.unlocked)
		used = snprintf(more, sizeof(more),
		                ", %zu not in the lock", c.unlocked);
	/* the trust policy's (skillsfs(1), Trust policy) */
	if (c.withheld || c.held)
		snprintf(more + used, sizeof(more) - (size_t)used,
		         ", %zu withheld, %zu held as they were", c.withheld,
		         c.held);
	report_say(d, LOG_INFO, "%zu served, %zu rejected, %zu shadowed%s: see "
	    "%s/%s", c.served, c.invalid, c.shadowed, more,
	    d->opt->mountpoint, sfs_mount_row(SFS_MOUNT_STATUS)->path);
}
