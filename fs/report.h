/*
 * report.h - what a build left out, told to the user (report.c).
 */
#ifndef SKILLSFS_REPORT_H
#define SKILLSFS_REPORT_H

#include "skillsfs.h"

struct daemon;

/* Logs one line per skill folder of cat that is rejected or shadowed and
 * was not so in prev (NULL at start: every one), then the counts. */
void report_catalog(const struct daemon *d, const sfs_catalog *prev,
                    const sfs_catalog *cat);

/* One line to the user: on stderr with -f, else to syslog at
 * `priority` (LOG_WARNING, ...). */
__attribute__((format(printf, 3, 4)))
void report_say(const struct daemon *d, int priority, const char *fmt, ...);

#endif
