/*
 * catalog.c - builds the immutable catalog snapshot: every skill folder
 * found, read and validated on its own into a unit (unit.c), or taken
 * from the previous snapshot when its listing shows nothing changed;
 * then checked against the others (shadowing, depends_on) and frozen,
 * with a reference count.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lockfile.h"
#include "snapshot.h"
#include "source.h"

#define DEFAULT_MAX_DEPTH   16
#define DEFAULT_MAX_ENTRIES 1000000
#define DEFAULT_MAX_FILES   100000
/* The bytes of one skill's files a listing keeps at most for the
 * security pass (sfs_scan.keep_skill_max), per thread that reads; past
 * them a file is read again. */
#define KEEP_SKILL_MAX      ((size_t)16 << 20)
/* Threads that read skill folders at most, and the folders that make a
 * thread worth starting. */
#define MAX_THREADS         4
#define FOLDERS_PER_THREAD  16
/* Frontmatter is capped at SFS_FM_MAX_BYTES; the margin leaves room for
 * the BOM, the fences and a little more, so the parser can tell an
 * over-large frontmatter from a missing closing fence. */
#define SKILL_MD_HEAD       (SFS_FM_MAX_BYTES + 4096)
/* The body is read only for its checks, up to the largest skill a host
 * must accept (SEP-2640 limits). */
#define SKILL_MD_BODY_MAX   (16 * 1024 * 1024)
/* The headings a skill's search row holds: enough for a long SKILL.md's
 * outline, little beside its frontmatter. */
#define SEARCH_HEADINGS_MAX 2048

/* One skill folder while the catalog is being built. */
struct cand {
	struct sfs_found *found;      /* its SKILL.md spelled as listed */
	struct sfs_unit *unit;        /* one reference, moved to the catalog */
	struct sfs_diag_list cross;   /* findings of the checks across
	                                 skills; in the catalog's arena */
	struct sfs_diag_list held;    /* trust hold: the new version's
	                                 findings that keep the old one
	                                 served; in the catalog's arena */
	uint8_t held_digest[32];      /* and that version's digest */
	int state;                    /* 0 served, or sfs_unserved_reason */
	const char *shadowed_by;
	bool duplicate;               /* the same folder via another root */
	const char *key;              /* its own path, while mark_duplicates
	                                 runs */
};

struct build {
	sfs_catalog *cat;
	const struct sfs_config *cfg;
	const sfs_catalog *reuse;     /* prev, when its units may be taken */
	struct sfs_scan scan;
	struct sfs_arena paths;       /* the found folders' paths */
	struct sfs_digests digests;   /* prev's, for scan */
	struct sfs_diag_list global;
	struct cand *c;
	size_t n;
	atomic_size_t next;           /* the next candidate to read */
	atomic_bool failed;           /* a worker ran out of memory */
	struct sfs_security *sec;     /* the security pass's rules */
};

/* One step of a build; 0, or a negative errno that ends the build. */
typedef int build_step(struct build *b);

/* The steps in order, until one fails. */
static int run_steps(struct build *b, build_step *const *steps, size_t n)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = steps[i](b);
	return rc;
}

/* One thread reading skill folders, one after another. */
struct worker {
	struct build *b;
	struct sfs_scan scan;         /* the build's, with this thread's hint
	                                 and hashed count */
	struct sfs_arena scratch;     /* one skill folder's reading */
	size_t parsed, listed;
	int rc;
	pthread_t thread;
};

/* One skill folder being read and validated; everything in the build's
 * scratch arena or owned here until it becomes a unit. */
struct reading {
	const struct sfs_found *found;
	const struct sfs_source *source;
	struct sfs_arena *arena;
	struct sfs_diag_list diags;
	struct sfs_tree tree;
	const char *skill_md_path;    /* absolute, as named in the source */
	struct sfs_frontmatter fm;
	bool parsed;                  /* fm needs freeing */
	struct sfs_meta meta;         /* used once the skill is valid */
	const char *id;               /* the skill id, if it has one */
	size_t *hashed;               /* the count of files hashed */
	struct stat md_stat;          /* of SKILL.md as opened */
	char *md_text;                /* SKILL.md read whole, kept for the
	                                 security pass; owned */
	size_t md_len;
	bool md_hashed;               /* SKILL.md's digest is md_text's */
};

/* ---- reading one skill -------------------------------------------------- */

static bool has_error(const struct sfs_diag_list *l)
{
	return sfs_diag_count(l, SFS_ERROR) > 0;
}

/* Reads up to `max` bytes at `off` into a NUL-terminated malloc'd buffer;
 * when `expect` is not negative, stops once that many were read (what the
 * file held when it was listed: the read that would return 0 is
 * saved). */
static int read_at(int fd, off_t off, size_t max, off_t expect, char **out,
                   size_t *len)
{
	size_t cap = max < 65536 ? max : 65536, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	while (n < max) {
		if (n == cap) {
			cap = cap * 2 < max ? cap * 2 : max;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t r = pread(fd, buf + n, cap - n, off + (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;
			free(buf);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (expect >= 0 && off + (off_t)n >= expect && n > 0)
			break;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Looks a skill-relative path up in the sorted tree. */
static const struct sfs_file *tree_find(const struct sfs_tree *t,
                                        const char *path)
{
	return sfs_file_find(t->files, t->nfiles, path);
}

/* sfs_exists_fn for the body checks: any entry of the tree counts. */
static bool body_link_exists(const char *relpath, const char **actual,
                             void *arg)
{
	const struct reading *r = arg;
	char *p = strdup(relpath);
	bool found = false;

	*actual = NULL;
	if (!p)
		return true;   /* no finding rather than a false one */
	if (!sfs_path_clean_rel(p)) {
		free(p);
		return false;
	}
	if (p[0] == '\0' || tree_find(&r->tree, p)) {
		found = true;
	} else {
		for (size_t i = 0; i < r->tree.nfiles; i++) {
			if (strcasecmp(r->tree.files[i].path, p) == 0) {
				*actual = r->tree.files[i].path;
				break;
			}
		}
	}
	free(p);
	return found;
}

static void fm_position(const struct reading *r, const char *key,
                        unsigned *line, unsigned *col)
{
	const struct sfs_fm_pos *pos =
		r->parsed ? sfs_frontmatter_pos(&r->fm, key) : NULL;
	*line = pos ? pos->line : 0;
	*col = pos ? pos->column : 0;
	if (pos && pos->value_line) {
		*line = pos->value_line;
		*col = pos->value_column;
	}
}

/* Every declared reference must be a regular file of the skill. */
static int check_references(struct reading *r)
{
	for (size_t i = 0; i < r->meta.nrefs; i++) {
		const struct sfs_ref *ref = &r->meta.refs[i];
		char *p = sfs_arena_strdup(r->arena, ref->path);
		if (!p)
			return -ENOMEM;
		const struct sfs_file *f =
			sfs_path_clean_rel(p) ? tree_find(&r->tree, p) : NULL;
		if (f && (S_ISREG(f->mode) || (S_ISLNK(f->mode) && f->hashed)))
			continue;

		char *field = sfs_arena_printf(r->arena, "x-personal-mcp."
		                               "references.%s.path", ref->id);
		if (!field)
			return -ENOMEM;
		unsigned line, col;
		fm_position(r, field, &line, &col);
		int rc = sfs_diag_add(&r->diags, SFS_ERROR, r->skill_md_path,
		                      line, col, field, f ?
		                      "reference %s is not a regular file" :
		                      "reference %s does not exist in the skill",
		                      ref->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/*
 * SKILL.md's digest when the listing left it to be taken from what is read
 * here (sfs_scan_tree): from `text` when it is the whole file,
 * else by reading the descriptor again.  Returns 0 or -errno.
 */
static int hash_skill_md(struct reading *r, int fd, const char *text,
                         size_t len, bool whole)
{
	struct sfs_file *f = &r->tree.files[r->tree.skill_md];
	off_t size = (off_t)len;

	if (f->hashed || !S_ISREG(f->mode))
		return 0;
	/* The identity of the file read, which a save by rename may have
	 * put in place since it was listed: identity, digest and content
	 * then describe one file. */
	const struct stat st = r->md_stat;
	f->mode = st.st_mode;
	f->mtime = st.st_mtim;
	f->ctime = st.st_ctim;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->uid = st.st_uid;
	f->gid = st.st_gid;
	if (whole) {
		sfs_sha256(text, len, f->sha256);
		r->md_hashed = true;
	} else {
		int rc = lseek(fd, 0, SEEK_SET) < 0 ? -errno :
		         sfs_sha256_fd(fd, f->sha256, &size);
		if (rc < 0)
			return rc;
	}
	/* what was hashed is what the digest describes */
	f->size = size;
	f->hashed = true;
	(*r->hashed)++;
	return 0;
}

/* The checks of the frontmatter, which choose the skill id (the name,
 * else the folder's name). */
static int check_frontmatter(struct reading *r)
{
	int rc = sfs_validate_frontmatter(&r->fm, r->skill_md_path,
	                                  base_name(r->found->dir), r->arena,
	                                  &r->diags, &r->meta);
	r->id = r->meta.name;
	return rc;
}

/* Parses and validates SKILL.md from the open descriptor.  A file that
 * fits the first read (nearly all do) is read once, for its frontmatter,
 * its body and its digest. */
static int check_md_text(struct reading *r, int fd, char *text, size_t len,
                         bool whole);

static int check_skill_md(struct reading *r, int fd)
{
	const struct sfs_file *f = &r->tree.files[r->tree.skill_md];
	char *text;
	size_t len;

	int rc = read_at(fd, 0, SKILL_MD_HEAD, S_ISREG(f->mode) ? f->size : -1,
	                 &text, &len);
	bool whole = rc == 0 && len < SKILL_MD_HEAD;
	if (rc == 0) {
		rc = hash_skill_md(r, fd, text, len, whole);
		if (rc < 0)
			free(text);
	}
	if (rc < 0)
		return rc == -ENOMEM ? rc :
		       sfs_diag_add(&r->diags, SFS_ERROR, r->skill_md_path, 0, 0,
		                    "", "cannot read: %s", sfs_strerror(-rc));
	return check_md_text(r, fd, text, len, whole);
}

/* The bytes the listing hashed SKILL.md from (sfs_tree.bytes: a git
 * root's blob, inflated once for its digest), taken from the tree when
 * they are the whole file as check_skill_md reads it; NULL when there
 * are none, and SKILL.md is then opened through the source. */
static char *take_held_md(struct reading *r, size_t *len)
{
	const struct sfs_file *f = &r->tree.files[r->tree.skill_md];
	unsigned char **held = r->tree.bytes ?
	                       &r->tree.bytes[r->tree.skill_md] : NULL;

	if (!held || !*held || !f->hashed || f->size < 0 ||
	    (size_t)f->size >= SKILL_MD_HEAD)
		return NULL;
	char *text = (char *)*held;
	*held = NULL;
	*len = (size_t)f->size;
	return text;
}

/* SKILL.md's text (malloc'd; whole: all of the file, else its first
 * SKILL_MD_HEAD bytes, the body then read from fd) parsed and checked. */
static int check_md_text(struct reading *r, int fd, char *text, size_t len,
                         bool whole)
{
	char *more = NULL;
	int rc;

	if (whole) {
		/* the security pass reads these bytes, not the file again */
		r->md_text = text;
		r->md_len = len;
	}
	rc = sfs_frontmatter_parse(text, len, r->skill_md_path, r->arena,
	                           &r->diags, &r->fm);
	r->parsed = true;
	if (rc == 0)
		rc = check_frontmatter(r);
	if (rc < 0) {
		if (text != r->md_text)
			free(text);
		return rc == -ENOMEM ? rc : 0;
	}

	const char *body = NULL;
	size_t blen = 0;
	if (whole) {
		size_t off = r->fm.body_offset < len ? r->fm.body_offset : len;
		body = text + off;
		blen = len - off;
	} else {
		rc = read_at(fd, (off_t)r->fm.body_offset, SKILL_MD_BODY_MAX, -1,
		             &more, &blen);
		if (rc == -ENOMEM) {
			if (text != r->md_text)
				free(text);
			return rc;
		}
		body = rc == 0 ? more : NULL;
	}
	if (body)
		r->meta.headings = sfs_search_headings(body, blen,
		                                       SEARCH_HEADINGS_MAX,
		                                       r->arena);
	rc = body ? sfs_validate_body(body, blen, r->fm.body_line,
	                              r->skill_md_path, body_link_exists, r,
	                              &r->diags) : 0;
	free(more);
	if (text != r->md_text)
		free(text);
	return rc < 0 ? rc : check_references(r);
}

/*
 * A skill whose source lists its frontmatter and has not fetched SKILL.md
 * yet (an MCP server: SEP-2640 has a host fetch it when the skill is
 * loaded, not when it is listed): validated from the listed frontmatter.
 * There is no body to check, and no positions; the source marks SKILL.md's
 * identity so that a build after the fetch reads the file itself.
 */
static int check_listed(struct reading *r)
{
	memset(&r->fm, 0, sizeof(r->fm));
	r->fm.json = r->source->ops->listed_frontmatter(r->source,
	                                                r->found->dir);
	if (!r->fm.json)
		return -ENOMEM;
	r->parsed = true;
	if (!cJSON_IsObject(r->fm.json))
		return sfs_diag_add(&r->diags, SFS_ERROR, r->skill_md_path, 0, 0,
		                    "", "the listing gives no frontmatter "
		                    "mapping; the skill cannot be served");
	int rc = check_frontmatter(r);
	return rc < 0 ? rc : check_references(r);
}

/* Reads and validates SKILL.md, once the tree is listed. */
static int check_folder(struct worker *w, struct reading *r)
{
	const struct sfs_found *f = r->found;
	int rc;

	if (strcmp(f->skill_md, "SKILL.md") != 0) {
		rc = sfs_diag_add(&r->diags, SFS_WARNING, r->skill_md_path, 0, 0,
		                  "", "spelled %s; rename it to SKILL.md",
		                  f->skill_md);
		if (rc < 0)
			return rc;
	}
	if (r->tree.skill_md == r->tree.nfiles)
		return has_error(&r->diags) ? 0 :
		       sfs_diag_add(&r->diags, SFS_ERROR, r->skill_md_path, 0, 0,
		                    "", "cannot be read; the skill cannot be "
		                    "served");

	size_t held_len;
	char *held = take_held_md(r, &held_len);
	if (held) {
		w->parsed++;
		r->md_hashed = true;   /* the bytes hashed, as offered */
		return check_md_text(r, -1, held, held_len, true);
	}
	int fd = r->source->ops->open_skill_md(r->source, r->skill_md_path,
	                                       &r->tree.files[r->tree.skill_md],
	                                       &r->md_stat);
	if (fd == -EAGAIN && r->source->ops->listed_frontmatter)
		return check_listed(r);
	if (fd < 0)
		return sfs_diag_add(&r->diags, SFS_ERROR, r->skill_md_path, 0, 0,
		                    "", "cannot read: %s",
		                    fd == -EINVAL ? "not a regular file"
		                                  : sfs_strerror(-fd));
	w->parsed++;
	rc = check_skill_md(r, fd);
	close(fd);
	return rc;
}

/*
 * The security pass over every file of the folder, valid or not (a
 * missing frontmatter must not hide a payload), and over its names: the
 * frontmatter's and the folder's.
 */
static int check_security(struct worker *w, struct reading *r)
{
	/* a trust policy judges every file: its update fetched them */
	bool remote = w->b->cfg->trust != SFS_TRUST_REPORT;
	int rc = sfs_security_scan_skill(w->b->sec, r->source, r->found->dir,
	                                 &r->tree, r->md_text, r->md_len,
	                                 remote, &r->diags);
	const cJSON *name = r->parsed && r->fm.json ?
		cJSON_GetObjectItemCaseSensitive(r->fm.json, "name") : NULL;
	unsigned line = 0, column = 0;

	if (rc == 0 && cJSON_IsString(name)) {
		fm_position(r, "name", &line, &column);
		rc = sfs_security_check_name(name->valuestring, r->skill_md_path,
		                             line, column, &r->diags);
	}
	if (rc == 0 && (!cJSON_IsString(name) ||
	                strcmp(name->valuestring, base_name(r->found->dir))))
		rc = sfs_security_check_name(base_name(r->found->dir),
		                             r->found->dir, 0, 0, &r->diags);
	return rc;
}

/* Hands the caller (sfs_config.hashed) the bytes of the files this reading
 * hashed from what it read whole: the copies of fs/retain.h are then of
 * exactly the hashed content, whatever a writer did since (issue 28). */
static void offer_kept(const struct build *b, const struct reading *r)
{
	const struct sfs_config *cfg = b->cfg;
	const struct sfs_tree *t = &r->tree;

	if (!cfg->hashed)
		return;
	for (size_t i = 0; t->bytes && i < t->nfiles; i++)
		if (t->bytes[i] && t->files[i].hashed)
			cfg->hashed(cfg->hashed_arg, &t->files[i], t->bytes[i]);
	if (r->md_hashed && r->md_text &&
	    t->files[t->skill_md].size == (off_t)r->md_len)
		cfg->hashed(cfg->hashed_arg, &t->files[t->skill_md],
		          (const unsigned char *)r->md_text);
}

/* The finished reading as a unit of its own. */
static int make_unit(struct worker *w, struct reading *r, size_t nlisting,
                     struct sfs_unit **out)
{
	int rc = 0;

	if (w->b->cfg->strict)
		sfs_diag_promote_warnings(&r->diags);
	if (!has_error(&r->diags) && !r->id)
		rc = sfs_diag_add(&r->diags, SFS_ERROR, r->skill_md_path, 0, 0,
		                  "name", "no usable name");
	if (rc < 0)
		return rc;

	struct sfs_unit_draft d = {
		.found = r->found,
		.skill_md_path = r->skill_md_path,
		.id = r->id,
		.tree = &r->tree,
		.frontmatter = r->parsed ? r->fm.json : NULL,
		.body_offset = r->parsed ? r->fm.body_offset : 0,
		.meta = &r->meta,
		.diags = &r->diags,
		.nlisting = nlisting,
		.invalid = has_error(&r->diags),
	};
	fm_position(r, "name", &d.name_line, &d.name_column);
	fm_position(r, "x-personal-mcp.depends_on", &d.deps_line,
	            &d.deps_column);
	*out = sfs_unit_make(&d);
	return *out ? 0 : -ENOMEM;
}

/* Whether cat (may be NULL) serves the folder dir as it was, held by the
 * trust policy. */
static int cmp_folder_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct sfs_folder *)elem)->dir);
}

static bool trust_held(const sfs_catalog *cat, const char *dir)
{
	const struct sfs_folder *f;

	if (!cat || cat->trust != SFS_TRUST_HOLD || !cat->counts.held)
		return false;
	f = bsearch(dir, cat->folders, cat->nfolders, sizeof(*f),
	            cmp_folder_key);   /* sorted by dir */
	return f && f->nheld;
}

/*
 * Lists one skill folder, then takes its unit from prev when the listing
 * shows every entry unchanged, or reads and validates it on its own.
 */
static int read_folder(struct worker *w, struct cand *c)
{
	struct build *b = w->b;
	struct reading r = { .found = c->found, .arena = &w->scratch,
	                     .source = &b->cat->sources[c->found->root],
	                     .hashed = &w->scan.hashed };
	struct sfs_unit *old = sfs_unit_find(b->reuse, c->found->dir);

	if (c->found->same && !trust_held(b->reuse, c->found->dir)) {
		/* discovery saw by stat alone that nothing changed (a folder
		 * held by the trust policy is read again: the unit served is
		 * not what its folder holds) */
		c->unit = sfs_unit_ref(c->found->same);
		return 0;
	}
	w->listed++;
	sfs_arena_reset(&w->scratch);
	r.diags.arena = &w->scratch;
	w->scan.hint = old ? old->skill.files : NULL;
	w->scan.nhint = old ? old->skill.nfiles : 0;
	int rc = r.source->ops->list(r.source, &w->scan, c->found,
	                             &w->scratch, &r.diags, &r.tree);
	/* after the listing, which spells SKILL.md */
	r.skill_md_path = sfs_arena_printf(&w->scratch, "%s/%s",
	                                   c->found->dir, c->found->skill_md);
	if (!r.skill_md_path)
		rc = -ENOMEM;
	size_t nlisting = r.diags.n;
	/* the plugin comes from discovery, not from the folder */
	bool same_plugin = old && (old->skill.plugin == c->found->plugin ||
	                           (old->skill.plugin && c->found->plugin &&
	                            strcmp(old->skill.plugin,
	                                   c->found->plugin) == 0));
	if (rc == 0 && same_plugin &&
	    sfs_unit_same_tree(old, c->found, &r.tree, &r.diags)) {
		c->unit = sfs_unit_ref(old);
	} else {
		if (rc == 0)
			rc = check_folder(w, &r);
		if (rc == 0)
			rc = check_security(w, &r);
		if (rc == 0)
			rc = make_unit(w, &r, nlisting, &c->unit);
		if (rc == 0)
			offer_kept(b, &r);
	}
	sfs_tree_drop_bytes(&r.tree);
	free(r.md_text);
	if (r.parsed)
		sfs_frontmatter_free(&r.fm);
	sfs_diag_list_free(&r.diags);
	return rc;
}

/* ---- the skills together ------------------------------------------------ */

static int cmp_cand_dir(const void *x, const void *y)
{
	const struct cand *const *a = x, *const *b = y;
	int c = strcmp((*a)->key, (*b)->key);
	if (c == 0)
		c = (*a > *b) - (*a < *b);
	return c;
}

/*
 * Each folder's own path, to tell the same folder found twice: the real
 * path of one reached through a symlink (the `skills` installer links
 * .claude/skills/x to .agents/skills/x), else its path with its root's
 * real path in front (a root may be named through a symlink too).  Paths
 * made here go to *made (malloc'd, one per candidate, NULL when none).
 */
static int set_keys(struct build *b, char ***made)
{
	const sfs_catalog *cat = b->cat;
	bool links = false;

	*made = NULL;
	for (size_t i = 0; i < b->n; i++) {
		b->c[i].key = b->c[i].found->real ? b->c[i].found->real
		                                  : b->c[i].found->dir;
		links |= b->c[i].found->real != NULL;
	}
	if (!links)
		return 0;
	char **real = calloc(cat->nroots, sizeof(*real));
	*made = calloc(b->n, sizeof(**made));
	int rc = real && *made ? 0 : -ENOMEM;
	for (size_t r = 0; rc == 0 && r < cat->nroots; r++)
		real[r] = realpath(cat->roots[r], NULL);
	for (size_t i = 0; rc == 0 && i < b->n; i++) {
		const struct sfs_found *f = b->c[i].found;
		const char *root = cat->roots[f->root], *rr = real[f->root];
		size_t n = strlen(root);
		if (f->real || !rr || strcmp(rr, root) == 0 ||
		    strncmp(f->dir, root, n) != 0)
			continue;
		if (asprintf(&(*made)[i], "%s%s", rr, f->dir + n) < 0) {
			(*made)[i] = NULL;
			rc = -ENOMEM;
		} else {
			b->c[i].key = (*made)[i];
		}
	}
	for (size_t r = 0; real && r < cat->nroots; r++)
		free(real[r]);
	free(real);
	return rc;
}

/* The same folder found twice (a root listed twice, one root inside
 * another, or a symlink to a skill folder found elsewhere) is one skill
 * folder: the first finding in precedence order counts. */
static int mark_duplicates(struct build *b)
{
	if (b->n < 2)
		return 0;
	char **made;
	struct cand **v = malloc(b->n * sizeof(*v));
	int rc = set_keys(b, &made);
	if (!v || rc < 0)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < b->n; i++)
		v[i] = &b->c[i];
	if (rc == 0)
		sfs_sort(v, b->n, sizeof(*v), cmp_cand_dir);
	for (size_t i = 1; rc == 0 && i < b->n; i++)
		if (strcmp(v[i]->key, v[i - 1]->key) == 0)
			v[i]->duplicate = true;
	for (size_t i = 0; made && i < b->n; i++)
		free(made[i]);
	free(made);
	free(v);
	return rc;
}

static const char *cand_id(const struct cand *c)
{
	return c->unit->id;
}

static const struct sfs_skill *cand_skill(const struct cand *c)
{
	return &c->unit->skill;
}

static int cmp_cand_id(const void *x, const void *y)
{
	const struct cand *const *a = x, *const *b = y;
	int c = strcmp(cand_id(*a), cand_id(*b));
	if (c == 0)   /* precedence: root order, then path order */
		c = (*a > *b) - (*a < *b);
	return c;
}

/* Valid skills with the same id: the first in precedence order is served,
 * the others are shadowed. */
static int resolve_shadowing(struct build *b)
{
	struct cand **v = malloc((b->n ? b->n : 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].state == 0 && !b->c[i].duplicate)
			v[n++] = &b->c[i];
	sfs_sort(v, n, sizeof(*v), cmp_cand_id);

	int rc = 0;
	for (size_t i = 1; rc == 0 && i < n; i++) {
		struct cand *c = v[i];
		if (strcmp(cand_id(c), cand_id(v[i - 1])) != 0)
			continue;
		size_t w = i - 1;
		while (v[w]->state != 0)
			w--;   /* stops at the run's first, which is served */
		const struct cand *winner = v[w];
		c->state = SFS_SHADOWED;
		/* the unit's: found paths go with the build */
		c->shadowed_by = winner->unit->dir;
		rc = sfs_diag_add(&c->cross,
		                  b->cfg->strict ? SFS_ERROR : SFS_WARNING,
		                  c->unit->skill_md_path, c->unit->name_line,
		                  c->unit->name_column, "name",
		                  "skill \"%s\" is shadowed by %s, "
		                  "which is served", cand_id(c),
		                  winner->unit->skill_md_path);
	}
	free(v);
	return rc;
}

/* ---- names that look alike ---------------------------------------------- */

static const char *cand_name(const struct cand *c)
{
	return c->duplicate || !c->unit ? NULL : c->unit->id ? c->unit->id
	                                        : base_name(c->unit->dir);
}

/* Whether s is all ASCII: of two names that look alike, the one that is
 * not is the impostor. */
static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static int confusable_one(struct build *b, struct cand *c,
                          const struct cand *other, enum sfs_risk risk)
{
	char mine[256], theirs[256];
	(void)b;
	return sfs_diag_add_rule(&c->cross, risk, "security/confusable-name",
	                         c->unit->skill_md_path, c->unit->name_line,
	                         c->unit->name_column, "the name \"%s\" looks "
	                         "like \"%s\" (%s)",
	                         sfs_security_escape(cand_name(c), mine,
	                                             sizeof(mine)),
	                         sfs_security_escape(cand_name(other), theirs,
	                                             sizeof(theirs)),
	                         other->unit->skill_md_path);
}

static int confusable_pair(size_t i, size_t j, void *arg)
{
	struct build *b = arg;
	struct cand *x = &b->c[i], *y = &b->c[j];
	bool ax = ascii(cand_name(x)), ay = ascii(cand_name(y));
	int rc = 0;

	if (!ax || ax == ay)
		rc = confusable_one(b, x, y, ax == ay ? SFS_RISK_MEDIUM
		                                      : SFS_RISK_HIGH);
	if (rc == 0 && (!ay || ax == ay))
		rc = confusable_one(b, y, x, ax == ay ? SFS_RISK_MEDIUM
		                                      : SFS_RISK_HIGH);
	return rc;
}

/* Skills whose names look alike, served or not (security/confusable-name). */
static int check_confusables(struct build *b)
{
	const char **names = malloc((b->n ? b->n : 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		names[i] = cand_name(&b->c[i]);
	int rc = sfs_security_confusable_pairs(names, b->n, confusable_pair, b);
	free(names);
	return rc;
}

/* ---- a lockfile's skills ------------------------------------------------ */

/* What the lock src of the candidate's source (a folder or an MCP
 * server) says of the candidate c, which has an id.  An MCP skill's
 * digest is of the sizes and digests its listing gives, which every read
 * is verified against: the digest of what it serves. */
static int judge_locked(struct build *b, struct cand *c,
                        const struct sfs_lock_source *src)
{
	const struct sfs_lock_skill *l = sfs_lock_find(src, cand_id(c));
	uint8_t found[32];
	char want[SFS_DIGEST_LEN], got[SFS_DIGEST_LEN];

	if (!l && c->state != 0)
		return 0;   /* not served anyway */
	if (!l) {
		c->state = SFS_UNLOCKED;
		return sfs_diag_add(&c->cross,
		                    b->cfg->strict ? SFS_ERROR : SFS_WARNING,
		                    c->unit->skill_md_path, c->unit->name_line,
		                    c->unit->name_column, "name",
		                    "skill \"%s\" is not in the lock of %s, so "
		                    "it is not served", cand_id(c), src->root);
	}
	int rc = sfs_skill_digest(cand_skill(c), found);
	if (rc < 0 || memcmp(found, l->digest, sizeof(found)) == 0)
		return rc;
	sfs_format_digest(l->digest, want);
	sfs_format_digest(found, got);
	c->state = SFS_INVALID;
	return sfs_diag_add(&c->cross, SFS_ERROR, c->unit->skill_md_path, 0, 0,
	                    "", "skill \"%s\" differs from the lock: locked "
	                    "%s, found %s", cand_id(c), want, got);
}

/*
 * With a lock, a source that names its skills (a folder, an MCP server)
 * serves only those, each only with the content it had when it was
 * locked (sfs_config.lock).  The lock's sources are the roots, in order.
 * Before shadowing: a skill withdrawn here must not shadow a locked one
 * of a later root.
 */
static int check_locked(struct build *b)
{
	const struct sfs_lock *lock = b->cfg->lock;
	int rc = 0;

	for (size_t i = 0; lock && rc == 0 && i < b->n; i++) {
		struct cand *c = &b->c[i];
		unsigned root = c->found->root;
		if (c->duplicate || !cand_id(c) || root >= lock->nsources ||
		    !lock->sources[root].names_skills)
			continue;
		rc = judge_locked(b, c, &lock->sources[root]);
	}
	return rc;
}

/* ---- the trust policy --------------------------------------------------- */

/* trust withhold: a skill with a high finding not accepted is not served,
 * and its folder says which. */
static int withhold(struct build *b, struct cand *c)
{
	const struct sfs_diag *d = sfs_policy_first(b->cfg, c->unit,
	                                            c->cross.v, c->cross.n);
	if (!d)
		return 0;
	c->state = SFS_WITHHELD;
	return sfs_diag_add(&c->cross, SFS_ERROR, c->unit->skill_md_path, 0, 0,
	                    "", "skill \"%s\" is withheld (trust=withhold): "
	                    "%s at %s:%u, not accepted for its content",
	                    cand_id(c), d->rule, d->file, d->line);
}

/* trust hold: a skill prev served whose folder now brings a high finding
 * that version lacks keeps prev's version, and says why. */
static int hold(struct build *b, struct cand *c)
{
	struct sfs_unit *old = sfs_unit_find(b->reuse, c->unit->dir);

	if (!old || old == c->unit || !old->id || !c->unit->id ||
	    strcmp(old->id, c->unit->id) != 0 ||
	    sfs_catalog_find(b->reuse, old->id) != &old->skill)
		return 0;   /* not served before, or under another name */
	int rc = sfs_policy_new_high(b->cfg, c->unit, old, &c->held);
	if (rc == 0 && c->held.n)
		rc = sfs_skill_digest(&c->unit->skill, c->held_digest);
	if (rc < 0 || c->held.n == 0)
		return rc;
	sfs_unit_unref(c->unit);
	c->unit = sfs_unit_ref(old);
	return 0;
}

/* What sfs_config.trust makes of each skill that would be served; before
 * shadowing, so that a skill withheld leaves its id to the next. */
static int check_trust(struct build *b)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (c->duplicate || c->state != 0)
			continue;
		if (b->cfg->trust == SFS_TRUST_WITHHOLD)
			rc = withhold(b, c);
		else if (b->cfg->trust == SFS_TRUST_HOLD && b->reuse)
			rc = hold(b, c);
	}
	return rc;
}

/* ---- depends_on --------------------------------------------------------- */

/* The served skills sorted by id, and the dependency graph over them. */
struct graph {
	struct cand **v;
	size_t n;
	/* Tarjan's strongly connected components */
	size_t *index, *low, *stack;
	bool *on_stack;
	size_t sp, counter;
	struct build *b;
	int rc;
};

static int cmp_id_key(const void *key, const void *elem)
{
	const struct cand *const *c = elem;
	return strcmp(key, cand_id(*c));
}

/* The served skill with this id, as an index into g->v, or -1. */
static long graph_find(const struct graph *g, const char *id)
{
	struct cand **c = bsearch(id, g->v, g->n, sizeof(*g->v), cmp_id_key);
	return c && (*c)->state == 0 ? (long)(c - g->v) : -1;
}

static int dep_error(struct cand *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int dep_error(struct cand *c, const char *fmt, ...)
{
	va_list ap;

	c->state = SFS_INVALID;
	va_start(ap, fmt);
	int rc = sfs_diag_addv(&c->cross, SFS_ERROR, c->unit->skill_md_path,
	                       c->unit->deps_line, c->unit->deps_column,
	                       "x-personal-mcp.depends_on", fmt, ap);
	va_end(ap);
	return rc;
}

/* Invalidates served skills that depend on a skill that is not served,
 * until none is left.  Returns 0 or -ENOMEM. */
static int check_missing_deps(struct graph *g)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < g->n; i++) {
			struct cand *c = g->v[i];
			if (c->state != 0)
				continue;
			bool bad = false;
			const struct sfs_skill *s = cand_skill(c);
			for (size_t d = 0; d < s->ndepends_on; d++) {
				const char *dep = s->depends_on[d];
				if (graph_find(g, dep) >= 0)
					continue;
				int rc = dep_error(c, "depends on \"%s\", which "
				                   "is not a served skill", dep);
				if (rc < 0)
					return rc;
				bad = true;
			}
			changed |= bad;
		}
	}
	return 0;
}

static int cmp_size(const void *x, const void *y)
{
	const size_t *a = x, *b = y;
	return (*a > *b) - (*a < *b);
}

/* A component of more than one skill, or a skill that depends on itself,
 * is a cycle: every member is invalid. */
static void report_cycle(struct graph *g, size_t *members, size_t n)
{
	const struct sfs_skill *first = cand_skill(g->v[members[0]]);
	bool self = false;
	for (size_t d = 0; d < first->ndepends_on; d++)
		self |= strcmp(first->depends_on[d], first->id) == 0;
	if (n == 1 && !self)
		return;

	sfs_sort(members, n, sizeof(*members), cmp_size);
	char list[512];
	size_t len = 0;
	list[0] = '\0';
	for (size_t i = 0; i < n && len + 1 < sizeof(list); i++) {
		int w = snprintf(list + len, sizeof(list) - len, "%s%s",
		                 i ? ", " : "", cand_id(g->v[members[i]]));
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len >= sizeof(list))
		len = sizeof(list) - 1;
	for (size_t i = 0; i < n && g->rc == 0; i++)
		g->rc = dep_error(g->v[members[i]],
		                  "depends_on forms a cycle: %s", list);
}

static void strongconnect(struct graph *g, size_t v)
{
	g->index[v] = g->low[v] = ++g->counter;
	g->stack[g->sp++] = v;
	g->on_stack[v] = true;

	const struct sfs_skill *c = cand_skill(g->v[v]);
	for (size_t d = 0; d < c->ndepends_on; d++) {
		long w = graph_find(g, c->depends_on[d]);
		if (w < 0)
			continue;
		if (!g->index[w]) {
			strongconnect(g, (size_t)w);
			if (g->low[w] < g->low[v])
				g->low[v] = g->low[w];
		} else if (g->on_stack[w] && g->index[w] < g->low[v]) {
			g->low[v] = g->index[w];
		}
	}
	if (g->low[v] != g->index[v])
		return;
	size_t top = g->sp;
	do
		g->on_stack[g->stack[--g->sp]] = false;
	while (g->stack[g->sp] != v);
	report_cycle(g, g->stack + g->sp, top - g->sp);
}

static int check_cycles(struct graph *g)
{
	g->index = calloc(g->n, sizeof(*g->index));
	g->low = calloc(g->n, sizeof(*g->low));
	g->stack = calloc(g->n, sizeof(*g->stack));
	g->on_stack = calloc(g->n, sizeof(*g->on_stack));
	g->rc = g->index && g->low && g->stack && g->on_stack ? 0 : -ENOMEM;

	/* A reported cycle's members become invalid during the walk; edges
	 * to them are then ignored, as Tarjan ignores edges to finished
	 * components anyway. */
	for (size_t v = 0; g->rc == 0 && v < g->n; v++)
		if (!g->index[v])
			strongconnect(g, v);
	free(g->index);
	free(g->low);
	free(g->stack);
	free(g->on_stack);
	return g->rc;
}

static int check_dependencies(struct build *b)
{
	struct graph g = { .b = b };
	g.v = malloc((b->n ? b->n : 1) * sizeof(*g.v));
	if (!g.v)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].state == 0 && !b->c[i].duplicate)
			g.v[g.n++] = &b->c[i];
	sfs_sort(g.v, g.n, sizeof(*g.v), cmp_cand_id);

	int rc = check_missing_deps(&g);
	if (rc == 0)
		rc = check_cycles(&g);
	if (rc == 0)
		rc = check_missing_deps(&g);
	free(g.v);
	return rc;
}

/* ---- freezing the snapshot ---------------------------------------------- */

/*
 * A folder's findings: its unit's (sorted already), and those of the
 * checks across skills merged in, sorted by file and position (stable:
 * the unit's first), the order in which editors and people read them.
 * Without findings across skills, the unit's own array.
 */
static const struct sfs_diag *folder_diags(struct sfs_arena *a,
                                           const struct cand *c, size_t *n)
{
	const struct sfs_skill *s = cand_skill(c);
	size_t total = s->ndiags + c->cross.n;

	*n = total;
	if (c->cross.n == 0)
		return s->diags;
	struct sfs_diag *v = sfs_arena_alloc(a, total * sizeof(*v));
	struct sfs_diag_key *k = malloc(total * sizeof(*k));
	if (!v || !k) {
		free(k);
		return NULL;
	}
	for (size_t i = 0; i < total; i++)
		k[i] = (struct sfs_diag_key){
			.d = i < s->ndiags ? &s->diags[i]
			                   : &c->cross.v[i - s->ndiags],
			.order = i,
		};
	sfs_sort(k, total, sizeof(*k), sfs_diag_cmp);
	for (size_t i = 0; i < total; i++)
		v[i] = *k[i].d;
	free(k);
	return v;
}

static void count_diags(struct sfs_counts *n, const struct sfs_diag *v,
                        size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (v[i].severity == SFS_ERROR)
			n->errors++;
		else
			n->warnings++;
	}
}

static int cmp_str_ptr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_skill(const void *x, const void *y)
{
	const struct sfs_skill *const *a = x, *const *b = y;
	return strcmp((*a)->id, (*b)->id);
}

static int cmp_unit(const void *x, const void *y)
{
	const struct sfs_unit *const *a = x, *const *b = y;
	return strcmp((*a)->dir, (*b)->dir);
}

static int cmp_unserved(const void *x, const void *y)
{
	const struct sfs_unserved *a = x, *b = y;
	return strcmp(a->dir, b->dir);
}

static int cmp_folder(const void *x, const void *y)
{
	const struct sfs_folder *a = x, *b = y;
	return strcmp(a->dir, b->dir);
}

/* Every folder's unit moves to the catalog, sorted by folder so that the
 * next build finds them; the served skills are sorted by id. */
static int freeze_units(struct build *b)
{
	sfs_catalog *cat = b->cat;
	size_t nu = 0, ns = 0;

	for (size_t i = 0; i < b->n; i++) {
		nu += !b->c[i].duplicate;
		ns += !b->c[i].duplicate && b->c[i].state == 0;
	}
	cat->units = sfs_arena_alloc(&cat->arena, nu * sizeof(*cat->units));
	cat->skills = sfs_arena_alloc(&cat->arena, ns * sizeof(*cat->skills));
	if (!cat->units || !cat->skills)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (c->duplicate)
			continue;
		cat->units[cat->nunits++] = c->unit;
		c->unit = NULL;
		if (c->state != 0)
			continue;
		cat->skills[cat->nskills++] =
			&cat->units[cat->nunits - 1]->skill;
		cat->root_served[c->found->root]++;
	}
	sfs_sort(cat->units, cat->nunits, sizeof(*cat->units), cmp_unit);
	sfs_sort(cat->skills, cat->nskills, sizeof(*cat->skills), cmp_skill);
	return 0;
}

static int freeze_folders(struct build *b)
{
	sfs_catalog *cat = b->cat;
	size_t nu = 0, nf = 0;

	for (size_t i = 0; i < b->n; i++) {
		const struct cand *c = &b->c[i];
		if (c->duplicate)
			continue;   /* no unit */
		size_t nd = cand_skill(c)->ndiags + c->cross.n;
		nu += c->state != 0;
		nf += c->state != 0 || nd > 0 || c->held.n > 0;
	}
	cat->unserved = sfs_arena_alloc(&cat->arena, nu * sizeof(*cat->unserved));
	cat->folders = sfs_arena_alloc(&cat->arena, nf * sizeof(*cat->folders));
	if (!cat->unserved || !cat->folders)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		const struct cand *c = &b->c[i];
		if (c->duplicate)
			continue;
		size_t nd;
		const struct sfs_diag *d = folder_diags(&cat->arena, c, &nd);
		if (!d && nd)
			return -ENOMEM;
		if (c->state != 0)
			cat->unserved[cat->nunserved++] = (struct sfs_unserved){
				.reason = c->state, .dir = c->unit->dir,
				.id = c->unit->id, .root = c->found->root,
				.shadowed_by = c->shadowed_by,
				.diags = d, .ndiags = nd,
			};
		struct sfs_diag *held = NULL;
		if (c->held.n) {
			held = sfs_arena_alloc(&cat->arena,
			                       c->held.n * sizeof(*held));
			if (!held)
				return -ENOMEM;
			memcpy(held, c->held.v, c->held.n * sizeof(*held));
			cat->counts.held++;
		}
		if (c->state != 0 || nd > 0 || c->held.n > 0)
			cat->folders[cat->nfolders++] = (struct sfs_folder){
				.dir = c->unit->dir, .id = c->unit->id,
				.state = c->state, .shadowed_by = c->shadowed_by,
				.diags = d, .ndiags = nd,
				.held = held, .nheld = c->held.n,
			};
		if (c->held.n)
			memcpy(cat->folders[cat->nfolders - 1].held_digest,
			       c->held_digest, 32);
		if (c->state == SFS_INVALID)
			cat->counts.invalid++;
		else if (c->state == SFS_SHADOWED)
			cat->counts.shadowed++;
		else if (c->state == SFS_UNLOCKED)
			cat->counts.unlocked++;
		else if (c->state == SFS_WITHHELD)
			cat->counts.withheld++;
		count_diags(&cat->counts, d, nd);
	}
	sfs_sort(cat->unserved, cat->nunserved, sizeof(*cat->unserved),
	      cmp_unserved);
	sfs_sort(cat->folders, cat->nfolders, sizeof(*cat->folders), cmp_folder);
	return 0;
}

/* Discovery's folders and every skill's, sorted, each once. */
static int freeze_dirs(struct build *b)
{
	sfs_catalog *cat = b->cat;
	const struct sfs_strvec *d = &b->scan.dirs;
	size_t n = d->n;

	for (size_t i = 0; i < cat->nunits; i++)
		n += cat->units[i]->ndirs;
	const char **v = malloc((n ? n : 1) * sizeof(*v));
	cat->dirs = sfs_arena_alloc(&cat->arena, n * sizeof(*cat->dirs));
	if (!v || !cat->dirs) {
		free(v);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < d->n; i++)
		v[n++] = d->v[i];
	for (size_t i = 0; i < cat->nunits; i++)
		for (size_t j = 0; j < cat->units[i]->ndirs; j++)
			v[n++] = cat->units[i]->dirs[j];
	sfs_sort(v, n, sizeof(*v), cmp_str_ptr);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
			cat->dirs[cat->ndirs++] = v[i];
	free(v);
	return 0;
}

static int find_private(struct build *b)
{
	return sfs_find_private(b->cat);
}

static int freeze(struct build *b)
{
	/* Folders first: they read the candidates' units, which
	 * freeze_units then moves to the catalog. */
	static build_step *const steps[] = {
		freeze_folders, freeze_units, freeze_dirs, find_private,
	};
	sfs_catalog *cat = b->cat;
	int rc = run_steps(b, steps, sizeof(steps) / sizeof(*steps));
	if (rc < 0)
		return rc;
	cat->ndiags = b->global.n;
	cat->diags = sfs_arena_alloc(&cat->arena,
	                             b->global.n * sizeof(*cat->diags));
	if (!cat->diags)
		return -ENOMEM;
	if (b->global.n)
		memcpy(cat->diags, b->global.v,
		       b->global.n * sizeof(*cat->diags));
	cat->counts.served = cat->nskills;
	count_diags(&cat->counts, cat->diags, cat->ndiags);
	cat->hashed = b->scan.hashed;
	return 0;
}

/* ---- building ----------------------------------------------------------- */

static int cmp_str_ptr(const void *x, const void *y);

/* The folders a watcher saw change, sorted for lookups. */
static int take_changed(struct build *b, const struct sfs_config *cfg)
{
	if (!cfg->changed)
		return 0;
	b->scan.changed = malloc((cfg->nchanged ? cfg->nchanged : 1) *
	                         sizeof(*b->scan.changed));
	if (!b->scan.changed)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nchanged; i++)
		b->scan.changed[i] = cfg->changed[i];
	b->scan.nchanged = cfg->nchanged;
	sfs_sort(b->scan.changed, cfg->nchanged, sizeof(*b->scan.changed),
	         cmp_str_ptr);
	return 0;
}

/* Whether prev was built from the same roots and options, so that its
 * units say what this build would find. */
static bool reusable(const sfs_catalog *prev, const struct sfs_config *cfg,
                     const sfs_catalog *cat)
{
	if (!prev || prev->nroots != cfg->nroots ||
	    prev->strict != cfg->strict ||
	    prev->max_depth != cat->max_depth ||
	    prev->max_files != cat->max_files)
		return false;
	for (size_t i = 0; i < cfg->nroots; i++)
		if (strcmp(prev->roots[i], cfg->roots[i]) != 0)
			return false;
	return true;
}

/* The version prev served for the root `root` (index i), to serve again
 * (a git root's commit), or NULL when it is to be resolved anew (see
 * resolve_sources) or the source has no versions (a folder). */
static const char *kept_version(const sfs_catalog *prev,
                                const struct sfs_config *cfg, size_t i,
                                const char *root)
{
	if (!prev || cfg->resolve_sources || i >= prev->nroots ||
	    strcmp(prev->roots[i], root) != 0)
		return NULL;
	const struct sfs_source *src = &prev->sources[i];
	return src->ops->version ? src->ops->version(src) : NULL;
}

/* A source per root, and the docs folder's after them. */
static int set_sources(sfs_catalog *cat, const struct sfs_config *cfg,
                       const sfs_catalog *prev)
{
	cat->sources = sfs_arena_alloc(&cat->arena, (cat->nroots + 1) *
	                                            sizeof(*cat->sources));
	if (!cat->sources)
		return -ENOMEM;
	for (size_t i = 0; i < cat->nroots; i++) {
		const char *root = cat->roots[i];
		int rc = sfs_source_open(cfg, root,
		                         kept_version(prev, cfg, i, root),
		                         &cat->sources[i]);
		if (rc < 0)
			return rc;
	}
	return sfs_source_open(NULL, NULL, NULL, &cat->sources[cat->nroots]);
}

static int init_build(struct build *b, const struct sfs_config *cfg,
                      const sfs_catalog *prev)
{
	sfs_catalog *cat = b->cat;

	b->cfg = cfg;
	b->global.arena = &cat->arena;
	cat->strict = cfg->strict;
	cat->shared_only = cfg->shared_only;
	cat->locked = cfg->lock != NULL;
	cat->trust = cfg->trust;
	cat->max_depth = cfg->max_depth ? cfg->max_depth : DEFAULT_MAX_DEPTH;
	cat->max_files = cfg->max_files ? cfg->max_files : DEFAULT_MAX_FILES;
	b->reuse = reusable(prev, cfg, cat) ? prev : NULL;
	b->scan = (struct sfs_scan){
		.arena = &cat->arena,
		.global = &b->global,
		.max_depth = cat->max_depth,
		.max_entries = cfg->max_entries ? cfg->max_entries
		                                : DEFAULT_MAX_ENTRIES,
		.max_files = cat->max_files,
		.strict = cfg->strict,
		.trust = cfg->trust,
		.ctime_margin_ms = cfg->ctime_margin_ms ? cfg->ctime_margin_ms
		                                        : SFS_CTIME_MARGIN_MS,
		.paths = &b->paths,
		.reuse = b->reuse,
		.unit_if_unchanged = b->reuse ? sfs_unit_if_unchanged : NULL,
		.held = b->reuse ? cfg->held : NULL,
		.nheld = b->reuse ? cfg->nheld : 0,
		.prev = prev,
		.digests = &b->digests,
		.before_listing = cfg->before_listing,
		.before_listing_arg = cfg->before_listing_arg,
		/* What the security pass reads of a file, kept from the
		 * hashing: reading every file a second time made the pass
		 * cost a third of a mount's ready time at 10,000 skills
		 * (BENCHMARKS.md, "The security pass"). */
		.keep_file_max = cfg->keep_file_max ? cfg->keep_file_max
		                                    : SFS_SECURITY_MAX_BYTES,
		.keep_skill_max = KEEP_SKILL_MAX,
	};
	pthread_mutex_init(&b->digests.lock, NULL);
	clock_gettime(CLOCK_REALTIME, &cat->started);
	if (b->reuse) {
		/* A folder changed in the clock tick in which prev listed it
		 * keeps the ctime prev saw; timestamps may also be as coarse
		 * as 2 s (FAT).  Only older ctimes prove a listing. */
		b->scan.trusted = sfs_ms_before(b->reuse->started,
		                                b->scan.ctime_margin_ms);
		int rc = take_changed(b, cfg);
		if (rc < 0)
			return rc;
	}

	cat->nroots = cfg->nroots;
	cat->roots = sfs_arena_alloc(&cat->arena,
	                             cfg->nroots * sizeof(*cat->roots));
	cat->root_exists = sfs_arena_alloc(&cat->arena,
	                                   cfg->nroots * sizeof(bool));
	cat->root_served = sfs_arena_alloc(&cat->arena,
	                                   cfg->nroots * sizeof(size_t));
	if (!cat->roots || !cat->root_exists || !cat->root_served)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nroots; i++) {
		cat->roots[i] = sfs_arena_strdup(&cat->arena, cfg->roots[i]);
		if (!cat->roots[i])
			return -ENOMEM;
	}
	return set_sources(cat, cfg, prev);
}

static int scan_roots(struct build *b)
{
	sfs_catalog *cat = b->cat;

	for (size_t i = 0; i < cat->nroots; i++) {
		const struct sfs_source *src = &cat->sources[i];
		int rc = src->ops->discover(src, &b->scan, (unsigned)i,
		                            &cat->root_exists[i]);
		if (rc < 0)
			return rc;
	}
	sfs_scan_select(&b->scan, b->cfg);
	b->n = b->scan.nfound;
	b->c = calloc(b->n ? b->n : 1, sizeof(*b->c));
	if (!b->c)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		b->c[i].found = &b->scan.found[i];
		b->c[i].cross.arena = &cat->arena;
		b->c[i].held.arena = &cat->arena;
	}
	return mark_duplicates(b);
}

/* Takes candidates until none is left. */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct build *b = w->b;

	for (;;) {
		size_t i = atomic_fetch_add(&b->next, 1);
		if (i >= b->n || atomic_load(&b->failed))
			break;
		struct cand *c = &b->c[i];
		if (c->duplicate)
			continue;
		w->rc = read_folder(w, c);
		if (w->rc < 0) {
			atomic_store(&b->failed, true);
			break;
		}
		c->state = c->unit->invalid ? SFS_INVALID : 0;
	}
	sfs_arena_free(&w->scratch);
	return NULL;
}

/* Threads for n folders to read: as configured, else one per CPU this
 * process may use, at most MAX_THREADS, and none for a few folders. */
static unsigned thread_count(const struct sfs_config *cfg, size_t n)
{
	unsigned t = cfg->threads;

	if (!t) {
		cpu_set_t set;
		t = sched_getaffinity(0, sizeof(set), &set) == 0 ?
		    (unsigned)CPU_COUNT(&set) : 1;
		if (t > MAX_THREADS)
			t = MAX_THREADS;
	}
	if (t > n / FOLDERS_PER_THREAD)
		t = (unsigned)(n / FOLDERS_PER_THREAD);
	return t ? t : 1;
}

/* Reads every folder on its own, on as many threads as are useful: the
 * folders do not depend on each other until the checks across skills. */
static int read_all(struct build *b)
{
	/* what discovery found unchanged by stat is only taken */
	size_t unread = 0;
	for (size_t i = 0; i < b->n; i++)
		unread += !b->c[i].duplicate && !b->c[i].found->same;
	unsigned n = thread_count(b->cfg, unread);
	struct worker *w = calloc(n, sizeof(*w));
	if (!w)
		return -ENOMEM;

	unsigned started = 0;
	for (unsigned i = 0; i < n; i++) {
		w[i].b = b;
		w[i].scan = b->scan;
		w[i].scan.hashed = 0;
	}
	/* The calling thread is worker 0; a thread that cannot be had
	 * leaves its share to the others. */
	while (started + 1 < n &&
	       pthread_create(&w[started + 1].thread, NULL, work,
	                      &w[started + 1]) == 0)
		started++;
	work(&w[0]);
	int rc = 0;
	for (unsigned i = 0; i <= started; i++) {
		if (i > 0)
			pthread_join(w[i].thread, NULL);
		b->cat->parsed += w[i].parsed;
		b->cat->listed += w[i].listed;
		b->scan.hashed += w[i].scan.hashed;
		if (w[i].rc < 0)
			rc = w[i].rc;
	}
	free(w);
	return rc;
}

/* Each folder on its own, then the checks across skills, in order. */
static int check_all(struct build *b)
{
	static build_step *const across[] = {
		check_locked, check_confusables, check_trust,
		resolve_shadowing, check_dependencies,
	};
	int rc = read_all(b);
	if (rc < 0)
		return rc;
	if (b->cfg->strict)
		sfs_diag_promote_warnings(&b->global);
	return run_steps(b, across, sizeof(across) / sizeof(*across));
}

static void end_build(struct build *b)
{
	for (size_t i = 0; b->c && i < b->n; i++) {
		sfs_unit_unref(b->c[i].unit);
		sfs_diag_list_free(&b->c[i].cross);
		sfs_diag_list_free(&b->c[i].held);
	}
	free(b->c);
	free(b->scan.changed);
	sfs_scan_free(&b->scan);
	sfs_arena_free(&b->paths);
	sfs_digest_cache_free(&b->digests.cache);
	pthread_mutex_destroy(&b->digests.lock);
	sfs_diag_list_free(&b->global);
	sfs_security_free(b->sec);
}

static void destroy(sfs_catalog *cat)
{
	for (size_t i = 0; i < cat->nunits; i++)
		sfs_unit_unref(cat->units[i]);
	/* what a source resolved is read through until the last reader of
	 * the catalog is gone */
	for (size_t i = 0; cat->sources && i <= cat->nroots; i++)
		if (cat->sources[i].ops && cat->sources[i].ops->release &&
		    cat->sources[i].state)
			cat->sources[i].ops->release(cat->sources[i].state);
	sfs_security_free(cat->security);
	sfs_arena_free(&cat->arena);
	free(cat);
}

int sfs_catalog_build(const struct sfs_config *cfg, const sfs_catalog *prev,
                      sfs_catalog **out)
{
	struct build b = { 0 };

	*out = NULL;
	b.cat = calloc(1, sizeof(*b.cat));
	if (!b.cat)
		return -ENOMEM;
	atomic_init(&b.cat->refs, 1);

	int rc = init_build(&b, cfg, prev);
	if (rc == 0 && prev && prev->security)
		b.sec = sfs_security_ref(prev->security);
	else if (rc == 0)
		rc = sfs_security_new(&b.sec);
	if (rc == 0)
		rc = scan_roots(&b);
	if (rc == 0 && cfg->docs_dir)
		rc = sfs_scan_docs(&b.scan, cfg->docs_dir, (unsigned)cfg->nroots,
		                   &b.cat->docs);
	if (rc == 0)
		rc = check_all(&b);
	if (rc == 0)
		rc = freeze(&b);
	if (rc == 0)
		b.cat->security = sfs_security_ref(b.sec);
	for (size_t i = 0; rc == 0 && i < b.cat->nroots; i++) {
		const struct sfs_source *src = &b.cat->sources[i];
		if (src->ops->built)
			src->ops->built(src, b.cat, (unsigned)i);
	}
	end_build(&b);
	if (rc < 0) {
		destroy(b.cat);
		return rc;
	}
	*out = b.cat;
	return 0;
}

/* ---- sharing and reading ------------------------------------------------ */

SFS_REFCOUNTED(sfs_catalog, sfs_catalog, destroy)

size_t sfs_catalog_nskills(const sfs_catalog *cat)
{
	return cat->nskills;
}

const struct sfs_skill *sfs_catalog_skill(const sfs_catalog *cat, size_t i)
{
	return i < cat->nskills ? cat->skills[i] : NULL;
}

const struct sfs_skill *sfs_catalog_docs(const sfs_catalog *cat)
{
	return cat->docs;
}

static int cmp_skill_key(const void *key, const void *elem)
{
	return strcmp(key, (*(const struct sfs_skill *const *)elem)->id);
}

long sfs_catalog_index(const sfs_catalog *cat, const char *id)
{
	if (!id)
		return -1;
	const struct sfs_skill *const *s =
		bsearch(id, cat->skills, cat->nskills, sizeof(*cat->skills),
		        cmp_skill_key);
	return s ? s - cat->skills : -1;
}

const struct sfs_skill *sfs_catalog_find(const sfs_catalog *cat,
                                         const char *id)
{
	long i = sfs_catalog_index(cat, id);
	return i < 0 ? NULL : cat->skills[i];
}

const struct sfs_unserved *sfs_catalog_unserved(const sfs_catalog *cat,
                                                size_t *n)
{
	*n = cat->nunserved;
	return cat->unserved;
}

const struct sfs_diag *sfs_catalog_diags(const sfs_catalog *cat, size_t *n)
{
	*n = cat->ndiags;
	return cat->diags;
}

size_t sfs_catalog_nroots(const sfs_catalog *cat)
{
	return cat->nroots;
}

const char *sfs_catalog_root(const sfs_catalog *cat, size_t i)
{
	return i < cat->nroots ? cat->roots[i] : NULL;
}

const char *const *sfs_catalog_dirs(const sfs_catalog *cat, size_t *n)
{
	*n = cat->ndirs;
	return cat->dirs;
}

struct sfs_counts sfs_catalog_counts(const sfs_catalog *cat)
{
	return cat->counts;
}

size_t sfs_catalog_hashed(const sfs_catalog *cat)
{
	return cat->hashed;
}

struct timespec sfs_catalog_started(const sfs_catalog *cat)
{
	return cat->started;
}

size_t sfs_catalog_parsed(const sfs_catalog *cat)
{
	return cat->parsed;
}

void sfs_catalog_each_diag(const sfs_catalog *cat, sfs_diag_fn fn, void *arg)
{
	for (size_t i = 0; i < cat->ndiags; i++)
		fn(&cat->diags[i], arg);
	for (size_t i = 0; i < cat->nfolders; i++)
		for (size_t j = 0; j < cat->folders[i].ndiags; j++)
			fn(&cat->folders[i].diags[j], arg);
}
