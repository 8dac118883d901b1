/*
 * mount_opts.c - the rows of mount_opts.h's table, and what the daemon
 * and the configuration file share about their values: how a number is
 * written and what an error says it should be.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mount_opts.h"

static const struct sfs_opt_row rows[SFS_NOPTS] = {
#define SFS_OPT_ROW(id, name, kind, field, def, min, max, in_file, help)  \
	[SFS_OPT_##id] = { name, SFS_OPTK_##kind, def, min, max, in_file, \
	                   help },
	SFS_MOUNT_OPTS(SFS_OPT_ROW)
#undef SFS_OPT_ROW
};

static const char *const trust_words[] = { "report", "withhold", "hold",
                                           NULL };
static const char *const *const choices[SFS_NOPTS] = {
	[SFS_OPT_TRUST] = trust_words,
};

const char *const *sfs_opt_choices(enum sfs_opt id)
{
	return choices[id];
}

const struct sfs_opt_row *sfs_opt_row(enum sfs_opt id)
{
	return &rows[id];
}

int sfs_opt_find(const char *name, size_t len)
{
	for (int i = 0; i < SFS_NOPTS; i++)
		if (strlen(rows[i].name) == len &&
		    strncmp(rows[i].name, name, len) == 0)
			return i;
	return -1;
}

bool sfs_opt_is_number(enum sfs_opt_kind k)
{
	return k >= SFS_OPTK_MS && k <= SFS_OPTK_SIZE;
}

bool sfs_opt_is_flag(enum sfs_opt_kind k)
{
	return k <= SFS_OPTK_FUSE_FLAG;
}

const char *sfs_opt_arg(enum sfs_opt_kind k)
{
	static const char *const args[] = {
		[SFS_OPTK_MS] = "MS", [SFS_OPTK_US] = "US",
		[SFS_OPTK_SECONDS] = "S", [SFS_OPTK_MIB] = "MIB",
		[SFS_OPTK_COUNT] = "N", [SFS_OPTK_CHOICE] = "WORD",
		[SFS_OPTK_SIZE] = "SIZE",
		[SFS_OPTK_FOLDER] = "DIR",
		[SFS_OPTK_FILE] = "FILE", [SFS_OPTK_FOLDERS] = "DIR[:DIR...]",
	};
	return args[k] ? args[k] : "";
}

static const char *unit(enum sfs_opt_kind k)
{
	static const char *const units[] = {
		[SFS_OPTK_MS] = "milliseconds", [SFS_OPTK_US] = "microseconds",
		[SFS_OPTK_SECONDS] = "seconds", [SFS_OPTK_MIB] = "mebibytes",
		[SFS_OPTK_COUNT] = "a count",
		[SFS_OPTK_SIZE] = "a size in bytes, or with K, M, G or T",
	};
	return units[k] ? units[k] : "a value";
}

int sfs_decimal(const char *text, long min, long max, long *out)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	long n = strtol(text, &end, 10);
	if (errno || *end || n < min || n > max)
		return -EINVAL;
	*out = n;
	return 0;
}

int sfs_size(const char *text, long min, long max, long *out)
{
	static const char units[] = "KMGT";
	char digits[32];
	size_t n = strspn(text, "0123456789");
	const char *u = n && text[n] ? strchr(units, text[n] & ~0x20) : NULL;
	const char *rest = u ? text + n + 1 : text + n;
	long v;

	/* 512M, 512MB, 512MiB: binary multiples, as du and ls -h give */
	if (n == 0 || n >= sizeof(digits) || (*rest && strcmp(rest, "B") &&
	                                      (!u || strcmp(rest, "iB"))))
		return -EINVAL;
	memcpy(digits, text, n);
	digits[n] = '\0';
	if (sfs_decimal(digits, 0, LONG_MAX, &v) < 0)
		return -EINVAL;
	for (int shift = u ? (int)(u - units + 1) * 10 : 0; shift > 0;
	     shift -= 10) {
		if (v > LONG_MAX >> 10)
			return -EINVAL;
		v <<= 10;
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int sfs_opt_number(const struct sfs_opt_row *r, const char *text, long *out)
{
	const char *const *words = choices[r - rows];

	if (!sfs_opt_is_number(r->kind))
		return -EINVAL;
	for (long i = 0; words && words[i]; i++)
		if (strcmp(words[i], text) == 0) {
			*out = i;
			return 0;
		}
	if (words)
		return -EINVAL;
	if (r->kind == SFS_OPTK_SIZE)
		return sfs_size(text, r->min, r->max, out);
	return sfs_decimal(text, r->min, r->max, out);
}

void sfs_opt_expected(const struct sfs_opt_row *r, char *buf, size_t len)
{
	const char *const *words = choices[r - rows];
	size_t used = 0;

	if (words) {
		used = (size_t)snprintf(buf, len, "one of");
		for (size_t i = 0; words[i] && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s %s",
			                         i ? "," : "", words[i]);
		return;
	}
	if (r->kind == SFS_OPTK_SIZE)
		snprintf(buf, len, "%s (512M)", unit(r->kind));
	else
		snprintf(buf, len, "%s (%ld-%ld)", unit(r->kind), r->min,
		         r->max);
}

void sfs_opt_file_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < SFS_NOPTS && used < len; i++)
		if (rows[i].in_file)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			                         used ? ", " : "", rows[i].name);
}
