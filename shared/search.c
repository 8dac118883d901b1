/*
 * search.c - the ranked search of search.h: an in-memory SQLite FTS5
 * table with one row per served skill (rowid: its catalog index) and
 * bm25 ranking, where a word in the name weighs most, then tags, then
 * the description, then the headings of SKILL.md.  The porter stemmer
 * lets "filling forms" find "fill a form".
 *
 * bm25 scores every row that holds any of the words, so a word that most
 * skills hold ("with", "for") would make a query score the whole catalog:
 * 30 ms at 10,000 skills where the rarer words alone take under 1 ms.
 * Such words (held by over a tenth of the skills) are left out of the
 * query, unless every word is one: then the rarest stays.  The index is
 * contentless (a search returns row ids only): 1.2 MB at 10,000 skills.
 *
 * One connection serves every query; two statements are prepared once
 * and shared, so a mutex guards their use.
 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "contract.h"
#include "grow.h"
#include "internal.h"
#include "search.h"

struct sfs_search {
	atomic_uint refs;
	pthread_mutex_t lock;     /* guards query and count */
	sqlite3 *db;
	sqlite3_stmt *query;
	sqlite3_stmt *count;      /* how many rows hold a word */
	size_t rows;
};

/* bm25 weights of the columns, in table order. */
#define SEARCH_TABLE \
	"CREATE VIRTUAL TABLE skill USING fts5(name, tags, description, " \
	"headings, tokenize = 'porter unicode61', content = '')"
#define SEARCH_QUERY \
	"SELECT rowid FROM skill WHERE skill MATCH ?1 " \
	"ORDER BY bm25(skill, 10.0, 5.0, 3.0, 1.0) LIMIT ?2"
#define SEARCH_COUNT "SELECT count(*) FROM skill WHERE skill MATCH ?1"

/* At most this many words of a query count. */
#define MAX_WORDS 16

static int sql_fail(sqlite3 *db)
{
	(void)db;
	return -EIO;
}

static int bind_text(sqlite3_stmt *st, int col, const char *s, size_t n)
{
	return sqlite3_bind_text(st, col, s ? s : "", s ? (int)n : 0,
	                         SQLITE_STATIC) == SQLITE_OK ? 0 : -EIO;
}

/* The tags of s, space-separated, into buf (grown as needed). */
static int join_tags(const struct sfs_skill *s, char **buf, size_t *cap,
                     size_t *len)
{
	*len = 0;
	for (size_t t = 0; t < s->ntags; t++) {
		size_t k = strlen(s->tags[t]);
		if (sfs_grow(buf, cap, *len + k + 2, 1) < 0)
			return -ENOMEM;
		memcpy(*buf + *len, s->tags[t], k);
		*len += k;
		(*buf)[(*len)++] = ' ';
	}
	return 0;
}

static int insert_skill(sqlite3_stmt *ins, uint32_t i,
                        const struct sfs_skill *s, char **tags,
                        size_t *tags_cap)
{
	size_t tlen;
	int rc = join_tags(s, tags, tags_cap, &tlen);

	if (rc < 0)
		return rc;
	sqlite3_reset(ins);
	if (sqlite3_bind_int64(ins, 1, i) != SQLITE_OK ||
	    bind_text(ins, 2, s->id, strlen(s->id)) < 0 ||
	    bind_text(ins, 3, *tags, tlen) < 0 ||
	    bind_text(ins, 4, s->description,
	              s->description ? strlen(s->description) : 0) < 0 ||
	    bind_text(ins, 5, s->headings,
	              s->headings ? strlen(s->headings) : 0) < 0)
		return -EIO;
	return sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
}

static int fill(sqlite3 *db, const sfs_catalog *cat, size_t *rows)
{
	sqlite3_stmt *ins = NULL;
	char *tags = NULL;
	size_t tags_cap = 0;
	int rc = 0;

	if (sqlite3_exec(db, SEARCH_TABLE, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO skill(rowid, name, tags, "
	                       "description, headings) VALUES (?, ?, ?, ?, ?)",
	                       -1, &ins, NULL) != SQLITE_OK)
		return sql_fail(db);
	for (size_t i = 0; i < sfs_catalog_nskills(cat) && rc == 0; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, i);
		/* a search file is shared like index.json, which leaves
		 * out what not every user may read (allow_other) */
		if (!sfs_catalog_private(cat, s->dir)) {
			rc = insert_skill(ins, (uint32_t)i, s, &tags,
			                  &tags_cap);
			++*rows;
		}
	}
	sqlite3_finalize(ins);
	free(tags);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = sql_fail(db);
	return rc;
}

int sfs_search_build(const sfs_catalog *cat, sfs_search **out)
{
	struct sfs_search *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	atomic_init(&s->refs, 1);
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		return -ENOMEM;
	}
	rc = sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE |
	                     SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                     NULL) == SQLITE_OK ? 0 : -ENOMEM;
	if (rc == 0)
		rc = fill(s->db, cat, &s->rows);
	if (rc == 0 && (sqlite3_prepare_v3(s->db, SEARCH_QUERY, -1,
	                                   SQLITE_PREPARE_PERSISTENT,
	                                   &s->query, NULL) != SQLITE_OK ||
	                sqlite3_prepare_v3(s->db, SEARCH_COUNT, -1,
	                                   SQLITE_PREPARE_PERSISTENT,
	                                   &s->count, NULL) != SQLITE_OK))
		rc = sql_fail(s->db);
	if (rc < 0) {
		sfs_search_unref(s);
		return rc;
	}
	*out = s;
	return 0;
}

static void destroy(sfs_search *s)
{
	sqlite3_finalize(s->query);
	sqlite3_finalize(s->count);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

SFS_REFCOUNTED(sfs_search, sfs_search, destroy)

/* The words of `text`: each run of letters and digits (any byte >= 0x80
 * counts as a letter), lowercased and quoted for FTS5, which keeps its
 * operators out of a reader's words.  At most MAX_WORDS. */
static size_t split_words(const char *text, char *buf, char **words)
{
	size_t n = 0;
	char *o = buf;

	for (const unsigned char *p = (const unsigned char *)text; *p;) {
		if (!isalnum(*p) && *p < 0x80) {
			p++;
			continue;
		}
		if (n == MAX_WORDS)
			break;
		words[n++] = o;
		*o++ = '"';
		while (*p && (isalnum(*p) || *p >= 0x80))
			*o++ = (char)tolower(*p++);
		*o++ = '"';
		*o++ = '\0';
	}
	return n;
}

/* How many rows hold the quoted word w; under the lock. */
static long long rows_with(sfs_search *s, const char *w)
{
	long long n = -1;

	sqlite3_reset(s->count);
	if (sqlite3_bind_text(s->count, 1, w, -1, SQLITE_STATIC) == SQLITE_OK &&
	    sqlite3_step(s->count) == SQLITE_ROW)
		n = sqlite3_column_int64(s->count, 0);
	sqlite3_reset(s->count);
	return n;
}

/* The FTS5 query: the words joined by OR, so that a skill holding more
 * of them ranks higher and one holding some still shows, without the
 * words over a tenth of the rows hold (see the top); under the lock.
 * Empty when no word is held at all. */
static void match_expr(sfs_search *s, char **words, size_t n, char *q)
{
	long long common = (long long)(s->rows / 10 > 20 ? s->rows / 10 : 20);
	long long rarest = 0;
	const char *fallback = NULL;

	*q = '\0';
	for (size_t i = 0; i < n; i++) {
		long long k = rows_with(s, words[i]);
		if (k <= 0)
			continue;
		if (k <= common) {
			if (*q)
				strcat(q, " OR ");
			strcat(q, words[i]);
		} else if (!fallback || k < rarest) {
			fallback = words[i];
			rarest = k;
		}
	}
	if (!*q && fallback)
		strcpy(q, fallback);
}

int sfs_search_run(sfs_search *s, const char *words, uint32_t *hits,
                   size_t max, size_t *n)
{
	size_t len = strlen(words);
	char *buf = malloc(3 * len + 1), *q = malloc(7 * len + 1);
	char *w[MAX_WORDS];
	int rc = 0;

	*n = 0;
	if (!buf || !q) {
		free(buf);
		free(q);
		return -ENOMEM;
	}
	size_t nw = split_words(words, buf, w);
	pthread_mutex_lock(&s->lock);
	match_expr(s, w, nw, q);
	if (*q && max) {
		sqlite3_reset(s->query);
		if (sqlite3_bind_text(s->query, 1, q, -1, SQLITE_STATIC) !=
		    SQLITE_OK ||
		    sqlite3_bind_int64(s->query, 2, (sqlite3_int64)max) !=
		    SQLITE_OK)
			rc = -EIO;
		while (rc == 0 && *n < max) {
			int step = sqlite3_step(s->query);
			if (step == SQLITE_DONE)
				break;
			if (step != SQLITE_ROW) {
				rc = -EIO;
				break;
			}
			hits[(*n)++] = (uint32_t)sqlite3_column_int64(s->query,
			                                              0);
		}
		sqlite3_reset(s->query);
		sqlite3_clear_bindings(s->query);
	}
	pthread_mutex_unlock(&s->lock);
	free(buf);
	free(q);
	return rc;
}

/* The description on one line: tabs and line breaks as spaces. */
static size_t put_flat(char *out, const char *s)
{
	size_t n = 0;

	for (; s && *s; s++, n++)
		out[n] = *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s;
	return n;
}

char *sfs_render_search(const sfs_catalog *cat, const uint32_t *hits,
                        size_t n, const char *mount)
{
	size_t cap = 1;

	for (size_t i = 0; i < n; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, hits[i]);
		char *path = sfs_mount_skill(mount, s->id, "SKILL.md");
		if (!path)
			return NULL;
		cap += strlen(s->id) + strlen(path) + 3 +
		       (s->description ? strlen(s->description) : 0);
		free(path);
	}
	char *text = malloc(cap), *o = text;
	for (size_t i = 0; text && i < n; i++) {
		const struct sfs_skill *s = sfs_catalog_skill(cat, hits[i]);
		char *path = sfs_mount_skill(mount, s->id, "SKILL.md");
		if (!path) {
			free(text);
			return NULL;
		}
		o += sprintf(o, "%s%c", s->id, SFS_SEARCH_SEP);
		o += put_flat(o, s->description);
		o += sprintf(o, "%c%s\n", SFS_SEARCH_SEP, path);
		free(path);
	}
	if (text)
		*o = '\0';
	return text;
}

