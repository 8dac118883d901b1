/*
 * security.c - the security pass's entry points: one file's bytes
 * classified, split into lines that know where they stand (prose, a
 * fenced example, code, frontmatter, an HTML comment) and handed to each
 * rule family; a whole skill's files, at most SFS_SECURITY_MAX_BYTES of
 * each: the bytes its listing kept from hashing them (sfs_tree.bytes),
 * else read through its source.  The patterns are patterns.c's,
 * the reporting report.c's: the rule families call those, never this.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../buf.h"
#include "rules.h"
#include "../snapshot.h"
#include "../source.h"

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
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	/* each suffix named here has one dot, its first byte: the name's
	 * suffix is from its last dot */
	const char *ext = strrchr(base, '.');

	if (ext && (strcasecmp(ext, ".md") == 0 ||
	            strcasecmp(ext, ".markdown") == 0 ||
	            strcasecmp(ext, ".mdx") == 0))
		return SEC_MARKDOWN;
	for (size_t i = 0; ext && i < sizeof(script_ext) / sizeof(*script_ext);
	     i++)
		if (strcasecmp(ext, script_ext[i]) == 0)
			return SEC_SCRIPT;
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
	/* all but two of the marks hold "test": one look for most paths */
	if (!strstr(rel, "test"))
		return strstr(rel, "fixtures/") || strstr(base, ".spec.");
	return strstr(rel, "test/") || strstr(rel, "tests/") ||
	       strstr(rel, "__tests__/") || strstr(rel, "fixtures/") ||
	       strstr(rel, "testdata/") || strncmp(base, "test_", 5) == 0 ||
	       strstr(base, "_test.") || strstr(base, ".test.") ||
	       strstr(base, ".spec.");
}


/* What the lines of one file share while they are read in order. */
struct walk {
	const struct sec_span *lines;   /* the file's, nlines */
	const uint32_t *masks;      /* the trigger words of each line */
	size_t nlines;
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
 * "attack", ...): look ahead once, from line k up to its closing fence
 * (one at the line's start). */
static bool block_warns(const struct sec_file *f, const struct walk *w,
                        size_t k, char fence)
{
	for (; k < w->nlines; k++) {
		const char *q = f->text + w->lines[k].off;
		if (w->lines[k].off + 2 < f->len &&
		    q[0] == fence && q[1] == fence && q[2] == fence)
			return false;
		if (w->masks[k] & T_WARN)
			return true;
	}
	return false;
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
			w->block_warned = w->warned_above ||
				block_warns(f, w, l->no, ch);
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
		/* `<!--` in inline code is shown, not a comment */
		size_t ticks = 0;
		for (const char *t = l->p; open && t < open; t++)
			ticks += *t == '`';
		if (open && ticks % 2 == 0) {
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
	T_USER | T_SAFETY_VERB | T_RUNS | T_SHELL | T_REMOTE | T_OBF | \
	T_ARCHIVE | T_DEFENSE | T_LOLBIN | T_PERSIST | T_RARE | T_WIPE | \
	T_OVERRIDE3)

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
		(*lower)[i] = (char)sec_lower_byte((unsigned char)p[i]);
	}
	(*raw)[len] = (*lower)[len] = '\0';
	return 0;
}

/* Each line of f (its lines, found by sec_lines_scan) to the rules. */
static int scan_lines(struct sec_ctx *c, struct sec_file *f,
                      const struct sec_lines *lines)
{
	size_t cap = 0;
	char *raw = NULL, *lower = NULL;
	int rc = 0;

	const struct sec_span *v = lines->v;
	const uint32_t *masks = lines->masks;
	size_t n = lines->n;
	struct walk w = { .lines = v, .masks = masks, .nlines = n };
	/* what the whole file does, before any line is judged: a credential
	 * read weighs by whether the file also sends */
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!(masks[i] & (T_SEND | T_SEND3 | T_CRED | T_ENV | T_FETCH |
		                  T_RUNS | T_OBF)))
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
		if (rc == 0 && l.len >= SEC_BLOB_MIN)
			rc = sec_blob_line(c, f, &l);
	}
	free(raw);
	free(lower);
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
	struct sec_lines lines;
	int klass = 0, rc = 0;

	/* the one pass over the bytes finds the lines, their words and
	 * whether there is a NUL (binary) or any byte past ASCII (the
	 * Unicode rules' work) */
	bool binary = sec_magic((const unsigned char *)text, len, &klass);
	if (!binary) {
		rc = sec_lines_scan(sec, text, len, &lines);
		if (rc < 0)
			return rc;
		binary = lines.nul;
		if (binary)
			sec_lines_free(&lines);
	}
	if (binary) {
		f.kind = SEC_BINARY;
		return sec_binary_file(&c, &f, siblings, nsiblings);
	}
	f.kind = text_kind(rel, text);
	rc = sec_binary_file(&c, &f, siblings, nsiblings);
	if (rc == 0 && lines.high)
		rc = sec_unicode_file(&c, &f);
	if (rc == 0)
		rc = scan_lines(&c, &f, &lines);
	sec_lines_free(&lines);
	return rc;
}

/* ---- one skill, through its source -------------------------------------- */

/* Reads up to SFS_SECURITY_MAX_BYTES of fd, NUL-terminated. */
static int read_bounded(int fd, char **out, size_t *len)
{
	struct buf b = { 0 };

	/* a read error ends the bytes, as the file's end would */
	(void)buf_read_fd(&b, fd, SFS_SECURITY_MAX_BYTES);
	*len = b.len;
	*out = buf_take(&b);
	return *out ? 0 : -ENOMEM;
}

/* A remote source's file from what is at hand (remote: a trust
 * policy's build, whose update fetched it), read as open_file's would
 * be: 0 with *buf, 1 when it is not to be read (report's build: never
 * the network), or -ENOMEM.  One that is not at hand cannot be judged:
 * a high finding, so that the policy does not serve it unjudged. */
static int read_at_hand(const struct sfs_source *src, bool remote,
                        const char *path, const struct sfs_file *fl,
                        char **buf, size_t *len, struct sfs_diag_list *diags)
{
	if (!remote || !src->ops->open_at_hand)
		return 1;
	int fd = src->ops->open_at_hand(src, fl);
	if (fd == -ENOMEM)
		return fd;
	if (fd < 0) {
		int rc = sfs_diag_add_rule(diags, SFS_RISK_HIGH,
		                           "security/unfetched", path, 0, 0,
		                           "not fetched from %s, so not judged: "
		                           "%s", src->root ? src->root : "its "
		                           "source", sfs_strerror(-fd));
		return rc < 0 ? rc : 1;
	}
	int rc = read_bounded(fd, buf, len);
	close(fd);
	return rc;
}

/* dir/<the file's path in its source>, for findings, in b (one buffer for
 * a skill's files, not an allocation per file); NULL when out of memory. */
static const char *file_path(struct buf *b, const char *dir,
                             const struct sfs_file *fl)
{
	b->len = 0;
	buf_adds(b, dir);
	buf_addc(b, '/');
	buf_adds(b, fl->source ? fl->source : fl->path);
	return b->failed ? NULL : b->data;
}

int sfs_security_scan_skill(const struct sfs_security *sec,
                            const struct sfs_source *src, const char *dir,
                            const struct sfs_tree *tree, const char *md,
                            size_t md_len, bool remote,
                            struct sfs_diag_list *diags)
{
	const struct sfs_skill skill = { .dir = dir };
	const char **names = malloc((tree->nfiles + 1) * sizeof(*names));
	struct buf pb = { 0 };
	int rc = 0;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < tree->nfiles; i++)
		names[i] = tree->files[i].path;
	for (size_t i = 0; i < tree->nfiles && rc == 0; i++) {
		const struct sfs_file *fl = &tree->files[i];
		const char *path;
		char *buf = NULL;
		size_t len = 0;

		if (!S_ISREG(fl->mode) || fl->size == 0)
			continue;
		bool is_md = i == tree->skill_md;
		const unsigned char *held = tree->bytes ? tree->bytes[i] : NULL;
		if (is_md && md) {
			buf = (char *)md;
			len = md_len;
		} else if (held && (size_t)fl->size <= SFS_SECURITY_MAX_BYTES) {
			buf = (char *)held;   /* the bytes hashed, NUL-ended */
			len = (size_t)fl->size;
		} else if (held) {
			/* kept whole for the daemon's copy: the pass reads
			 * its first SFS_SECURITY_MAX_BYTES, NUL-ended */
			len = SFS_SECURITY_MAX_BYTES;
			buf = malloc(len + 1);
			if (!buf) {
				rc = -ENOMEM;
				break;
			}
			memcpy(buf, held, len);
			buf[len] = '\0';
		} else if (src->caps & SFS_SOURCE_READS_REMOTE) {
			/* never the network: what is at hand only */
			if (!(path = file_path(&pb, dir, fl))) {
				rc = -ENOMEM;
				break;
			}
			rc = read_at_hand(src, remote, path, fl, &buf, &len,
			                  diags);
			if (rc != 0) {
				rc = rc < 0 ? rc : 0;
				continue;
			}
		} else {
			int fd = src->ops->open_file(src, -1, &skill, fl);
			if (fd < 0)
				continue;   /* the listing reports what it can't read */
			rc = read_bounded(fd, &buf, &len);
			close(fd);
			if (rc < 0)
				break;
		}
		if (!(path = file_path(&pb, dir, fl)))
			rc = -ENOMEM;
		else
			rc = sfs_security_scan_bytes(sec, path, fl->path, buf, len,
			                             names, tree->nfiles, diags);
		if (buf != md && buf != (const char *)held)
			free(buf);
	}
	buf_free(&pb);
	free(names);
	return rc;
}
