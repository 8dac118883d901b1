/*
 * source_git.c - a commit of a git repository as a source of skills,
 * read straight from its object database with libgit2: nothing is checked
 * out, nothing is written into the repository.
 *
 * One build resolves the URL's ref (a branch, a tag, a full commit id,
 * or HEAD) to exactly one commit, once, in discover; the listing and
 * every read of that build's catalog then see only that commit's tree,
 * so a generation's bytes never change, whatever happens to the branch.
 * The next build (SIGHUP) resolves the ref again.
 *
 * A skill is a folder of the tree holding SKILL.md, found as the folder
 * source finds them (the same depth limit, the same folders skipped).
 * Its entries carry git's modes (100755 is served executable), the
 * commit's time as their mtime, and the id of their blob as identity
 * (sfs_file's version): a blob the previous
 * build listed at the same path is not hashed again, and a read opens
 * exactly the blob that was listed.  A symbolic link is served when it
 * resolves inside the skill, as on disk; a submodule (a commit of another
 * repository) and a Git LFS pointer (the content lives elsewhere) are
 * reported and not served.
 *
 * libgit2's objects are not shared between threads: the build reads
 * skills on several, the mount reads files on others.  Each thread takes
 * a handle of its own (the repository opened once more, with its own
 * copy of the served tree) for as long as it uses libgit2.  With one
 * handle and a lock, the build's threads waited for each other: 939 ms
 * for the catalog of 10,000 skills on 2 threads, 701 ms on one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "git_big.h"
#include "git_blobs.h"
#include "git_digests.h"
#include "kept_units.h"
#include "git_names.h"
#include "git_verify.h"
#include "sshsig.h"
#include "git_stream.h"
#include "grow.h"
#include "snapshot.h"
#include "source.h"
#include "tls_exit.h"
#include "trust.h"

/* How many symbolic links one path may lead through (the kernel's
 * limit). */
#define MAX_LINK_HOPS 40
/* The first line of a Git LFS pointer file; such files are smaller than
 * 1024 bytes (the LFS specification). */
#define LFS_MAGIC "version https://git-lfs.github.com/spec/v1"
#define LFS_MAX_POINTER 1024

/* HANDLES at most: the build's threads (catalog.c's MAX_THREADS) and a
 * reader or two of the mount. */
#define HANDLES 6

struct git_handle {
	pthread_mutex_t lock;       /* held by the thread using it */
	git_repository *repo;
	git_tree *top;              /* the commit's tree at SUBDIR */
};

struct git_source {
	struct sfs_source_owned own;   /* url: the root as configured;
	                                  cache_dir: where remote roots are
	                                  cloned; note: why the last fetch
	                                  failed */
	char *verify;               /* the allowed-signers file, or NULL */
	struct sfs_git_digests *digests;   /* blobs read before; owned */
	pthread_mutex_t lock;       /* guards nhandles, the handles' making */
	struct git_handle handles[HANDLES];
	unsigned nhandles;          /* opened; [0] by discover */
	char *path;                 /* the repository read (a clone's) */
	git_oid top_id;             /* the served tree */
	pthread_mutex_t digests_lock;
	char keep[GIT_OID_HEXSZ + 1];   /* the commit to serve again, or "" */
	char commit[GIT_OID_HEXSZ + 1];
	struct timespec time;       /* the commit's: every entry's mtime */
	uid_t uid;                  /* the repository folder's owner */
	gid_t gid;
	bool ready;                 /* discover resolved the commit */
	struct sfs_git_big *big;    /* big blobs' bytes for reads; owned */
	/* The units a former mount kept (kept_units.c), read by a build
	 * with no previous catalog; owned until the build took them. */
	struct sfs_kept_units *kept;
	bool starting;              /* this build is such a one */
	bool missed;                /* a skill was read: keep them again */
};

static const char *git_message(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown error";
}

/* ---- state -------------------------------------------------------------- */

/* All of g, also a g open_state() gave up on half made (its pointers
 * NULL then). */
static void free_state(void *state)
{
	struct git_source *g = state;

	for (unsigned i = 0; i < HANDLES; i++) {
		git_tree_free(g->handles[i].top);
		git_repository_free(g->handles[i].repo);
		pthread_mutex_destroy(&g->handles[i].lock);
	}
	sfs_git_digests_close(g->digests);
	sfs_kept_units_free(g->kept);
	sfs_git_big_free(g->big);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->digests_lock);
	free(g->path);
	sfs_source_owned_free(&g->own);
	free(g->verify);
	free(g);
	git_libgit2_shutdown();
}

/* The state of the git source of a->root for one build: with a->version
 * (a full commit id) the build serves that commit instead of resolving
 * the URL's ref.  A remote URL is read from its clone under cache_dir;
 * a->note is why its last fetch failed. */
static void *open_state(const struct sfs_source_args *a)
{
	struct git_source *g = calloc(1, sizeof(*g));

	sfs_tls_no_atexit();   /* before libgit2 starts libssh2 */
	if (!g || git_libgit2_init() < 0) {
		free(g);
		return NULL;
	}
	/* Reading an object does not hash it again to compare with its id:
	 * 12% of a mount of 10,000 skills from a warm cache went to that.
	 * A clone's objects were hashed when they were fetched (git's
	 * index-pack names each object by its hash), and a local
	 * repository is the user's own.  (A libgit2 setting of the whole
	 * process; skillsfs reads objects nowhere else.) */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->digests_lock, NULL);
	for (unsigned i = 0; i < HANDLES; i++)
		pthread_mutex_init(&g->handles[i].lock, NULL);
	if (a->version)
		snprintf(g->keep, sizeof(g->keep), "%s", a->version);
	if (sfs_source_owned_copy(a, &g->own) < 0 ||
	    !sfs_strdup_or_null(a->opts ? a->opts->verify : NULL,
	                        &g->verify) ||
	    !(g->big = sfs_git_big_new(a->cache_dir))) {
		free_state(g);
		return NULL;
	}
	return g;
}

static const char *version(const struct sfs_source *src)
{
	const struct git_source *g = src->state;
	return g && g->ready ? g->commit : NULL;
}

/* ---- identities --------------------------------------------------------- */

/* The blob (or tree) id as the entry's version. */
static void stamp(struct sfs_file *e, const git_oid *id,
                  const struct git_source *g)
{
	_Static_assert(sizeof(e->version.id) == GIT_OID_RAWSZ,
	               "a version holds a git object id");
	memcpy(e->version.id, id->id, sizeof(e->version.id));
	e->mtime = g->time;
	e->uid = g->uid;
	e->gid = g->gid;
}

static void unstamp(const struct sfs_version *v, git_oid *id)
{
	memcpy(id->id, v->id, sizeof(v->id));
}

/* The path of the skill folder `dir` (as discover named it) in the
 * served tree: "" for its top, NULL when dir is not below the root. */
static const char *in_tree(const struct git_source *g, const char *dir)
{
	size_t n = strlen(g->own.url);

	if (strncmp(dir, g->own.url, n) != 0)
		return NULL;
	if (dir[n] == '\0')
		return dir + n;
	return dir[n] == '/' ? dir + n + 1 : NULL;
}

/* ---- resolving the URL to a commit -------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int report(struct sfs_scan *s, const char *url, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = sfs_diag_addv(s->global, SFS_ERROR, url, 0, 0, "", fmt, ap);
	va_end(ap);
	return rc;
}

/* The tree at SUBDIR of the commit, into handle 0's top. */
static int take_tree(struct git_source *g, struct sfs_scan *s,
                     git_commit *c, const char *subdir)
{
	git_tree *tree;
	git_tree_entry *e;

	if (git_commit_tree(&tree, c) < 0)
		return report(s, g->own.url, "cannot read the tree of commit %s: "
		              "%s", g->commit, git_message());
	if (!subdir) {
		g->handles[0].top = tree;
		return 0;
	}
	int rc = git_tree_entry_bypath(&e, tree, subdir);
	if (rc == 0) {
		rc = git_tree_entry_type(e) != GIT_OBJECT_TREE ? GIT_ENOTFOUND :
		     git_tree_lookup(&g->handles[0].top, g->handles[0].repo,
		                     git_tree_entry_id(e));
		git_tree_entry_free(e);
	}
	git_tree_free(tree);
	if (rc == 0)
		return 0;
	return report(s, g->own.url, "%s is not a folder in commit %s; give a "
	              "folder of the repository after ':' (#REF:SUBDIR)",
	              subdir, g->commit);
}

/* With verify: (g->verify), the commit *c is served only if an allowed
 * signer signed it; a branch that moved to a commit that is not serves
 * its newest one that is (a warning says why), and with none the root
 * serves nothing (an error).  Returns 0 to go on with *c, 1 when the
 * root is not served (the finding made), or -ENOMEM. */
static int hold_to_signers(struct git_source *g, struct sfs_scan *s,
                           const char *ref, git_commit **c)
{
	struct sfs_signers *signers;
	char why[512] = "", who[SFS_PRINCIPAL_MAX] = "", tip[GIT_OID_HEXSZ + 1];
	bool older;
	git_repository *repo = g->handles[0].repo;

	git_oid_tostr(tip, sizeof(tip), git_commit_id(*c));
	int rc = sfs_git_signers_load(g->verify, &signers, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return report(s, g->own.url, "%s; nothing is served", why) ?: 1;
	rc = sfs_git_signed_commit(repo, c, signers,
	                           !g->keep[0] && sfs_git_ref_moves(repo, ref),
	                           &older, who, why, sizeof(why));
	sfs_signers_free(signers);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return report(s, g->own.url, "%s; nothing is served", why) ?: 1;
	if (older) {
		char served[GIT_OID_HEXSZ + 1];
		git_oid_tostr(served, sizeof(served), git_commit_id(*c));
		return sfs_diag_add(s->global, SFS_WARNING, g->own.url, 0, 0, "",
		                    "%s is at %.12s, which is not signed by "
		                    "an allowed signer (%s): serving %.12s, the "
		                    "newest commit before it that is (signed by "
		                    "%s)", ref ? ref : "HEAD", tip, why, served,
		                    who);
	}
	return 0;
}

/* Opens the repository and resolves the ref; what fails is a finding. */
static int resolve(struct git_source *g, struct sfs_scan *s,
                   const struct sfs_source_url *u)
{
	struct stat st;
	git_commit *c;

	if (stat(u->location, &st) < 0)
		return report(s, g->own.url, "cannot read the repository %s: %s",
		              u->location, sfs_strerror(errno));
	if (git_repository_open_ext(&g->handles[0].repo, u->location,
	                            GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return report(s, g->own.url, "%s is not a git repository (%s); "
		              "give the folder of a repository, bare or not",
		              u->location, git_message());
	/* a rebuild that is not to move the source serves its commit */
	const char *ref = g->keep[0] ? g->keep : u->ref;
	int rc = sfs_git_find_commit(g->handles[0].repo, ref, &c);
	if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH || rc == GIT_EPEEL)
		return report(s, g->own.url, ref ?
		              "%s is not a branch, tag or commit of %s; "
		              "git -C %s show-ref lists its branches and tags" :
		              "%s%s has no commit at HEAD (git -C %s log)",
		              ref ? ref : "", u->location, u->location);
	if (rc < 0)
		return report(s, g->own.url, "cannot resolve %s in %s: %s",
		              ref ? ref : "HEAD", u->location, git_message());
	if (g->verify && (rc = hold_to_signers(g, s, ref, &c)) != 0) {
		git_commit_free(c);
		return rc < 0 ? rc : 0;
	}
	git_oid_tostr(g->commit, sizeof(g->commit), git_commit_id(c));
	g->time = (struct timespec){ .tv_sec = (time_t)git_commit_time(c) };
	g->uid = st.st_uid;
	g->gid = st.st_gid;
	rc = take_tree(g, s, c, u->subdir);
	git_commit_free(c);
	g->ready = rc == 0 && g->handles[0].top;
	if (g->ready) {
		git_oid_cpy(&g->top_id, git_tree_id(g->handles[0].top));
		g->nhandles = 1;
		g->path = strdup(u->location);
		if (!g->path)
			return -ENOMEM;
	}
	return rc;
}

/* A remote root: its clone under the cache folder, as sfs_source_update
 * last fetched it.  What the last fetch said when it failed is a
 * finding: an error when nothing was fetched, a warning when an older
 * fetch is served. */
static int resolve_clone(struct git_source *g, struct sfs_scan *s,
                         struct sfs_source_url *u)
{
	char *clone = sfs_git_clone_path(g->own.cache_dir, u->location);
	struct stat st;
	int rc;

	if (!clone)
		return g->own.cache_dir ? -ENOMEM :
		       sfs_fetched_no_cache(s, g->own.url, u->location);
	char twhy[512];
	int cfd = sfs_trust_dir_open(clone, false, twhy, sizeof(twhy));
	if (cfd == -EPERM) {   /* another user's clone: never read */
		rc = report(s, g->own.url, "%s", twhy);
		free(clone);
		return rc;
	}
	if (cfd < 0 || stat(clone, &st) < 0) {
		if (cfd >= 0)
			close(cfd);
		rc = sfs_fetched_not_yet(s, g->own.url, g->own.note);
		free(clone);
		return rc;
	}
	close(cfd);
	free(u->location);
	u->location = clone;
	rc = resolve(g, s, u);
	if (rc == 0 && g->own.note)
		rc = g->ready ?
		     sfs_diag_add(s->global, SFS_WARNING, g->own.url, 0, 0, "",
		                  "serving commit %s, fetched before: %s",
		                  g->commit, g->own.note) :
		     report(s, g->own.url, "%s", g->own.note);
	return rc;
}

/* ---- discovery ---------------------------------------------------------- */

struct finder {
	struct git_source *g;
	struct sfs_scan *s;
	unsigned root;
	size_t budget;          /* entries this root may still read */
	bool out_of_budget;
	const char *too_deep;   /* the first folder left unsearched */
	size_t searched;
};

/* "dir/name" in the arena. */
static char *join(struct sfs_arena *a, const char *dir, const char *name)
{
	return *dir ? sfs_arena_printf(a, "%s/%s", dir, name)
	            : sfs_arena_strdup(a, name);
}

/* The spelling of SKILL.md in a tree, or NULL.  Every entry is looked
 * at, not one found by name: a tree that gives SKILL.md twice is a skill
 * whose listing then refuses both. */
static const char *skill_md_of(const git_tree *t)
{
	static const char *const spellings[] = { "SKILL.md", "skill.md" };
	size_t n = git_tree_entrycount(t);

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < n; i++) {
			const git_tree_entry *e = git_tree_entry_byindex(t, i);
			git_filemode_t mode = git_tree_entry_filemode(e);
			if (strcmp(git_tree_entry_name(e), spellings[k]) == 0 &&
			    mode != GIT_FILEMODE_TREE &&
			    mode != GIT_FILEMODE_COMMIT)
				return spellings[k];
		}
	return NULL;
}

/*
 * The previous build's unit of the skill folder dir when it was listed
 * from this very tree, or NULL.  A tree id names every byte below it
 * (entries, modes, links), so such a skill is taken whole, neither
 * listed again nor its SKILL.md read: a switch to a commit that changed
 * one skill of 10,000 re-read all 10,000 (1,053 ms from SIGHUP to the
 * change being served) while file identities carried the commit's time.
 */
static struct sfs_unit *same_tree(const struct finder *w, const char *dir,
                                  const git_oid *id)
{
	const struct sfs_scan *s = w->s;
	struct sfs_unit *u = s->reuse ? sfs_unit_find(s->reuse, dir) : NULL;
	git_oid was;

	if (!u || u->root != w->root || u->skill.plugin)
		return NULL;
	unstamp(&u->self.version, &was);
	return git_oid_equal(&was, id) ? u : NULL;
}

/* The unit a former mount kept of the skill folder dir listed from this
 * very tree (kept_units.c), or NULL; the build's copy is a miss. */
static struct sfs_unit *kept_tree(const struct finder *w, const char *dir,
                                  const git_oid *id)
{
	struct sfs_unit *u = sfs_kept_units_find(w->g->kept, dir, id->id);

	if (!u) {
		w->g->missed = true;
		/* one of another tree: read anew, not held beside it */
		sfs_kept_units_drop(w->g->kept, dir);
	}
	return u;
}

static int add_found(struct finder *w, const char *path, const char *md,
                     const git_tree *t)
{
	struct sfs_scan *s = w->s;
	struct sfs_arena *a = s->paths ? s->paths : s->arena;
	const char *dir = *path ? sfs_arena_printf(a, "%s/%s", w->g->own.url, path)
	                        : sfs_arena_strdup(a, w->g->own.url);

	if (!dir || sfs_grow(&s->found, &s->capfound, s->nfound + 1,
	                     sizeof(*s->found)) < 0)
		return -ENOMEM;
	s->found[s->nfound++] = (struct sfs_found){
		.dir = dir, .skill_md = md, .root = w->root,
		.same = same_tree(w, dir, git_tree_id(t)),
	};
	if (!s->found[s->nfound - 1].same)
		s->found[s->nfound - 1].same = kept_tree(w, dir,
		                                         git_tree_id(t));
	return 0;
}

static int find_in(struct finder *w, const git_tree *t, const char *path,
                   unsigned depth);

/* One entry of a folder that is not a skill: a folder to search, unless
 * git fsck would refuse it (`refused`: why). */
static int find_entry(struct finder *w, const git_tree_entry *e,
                      const char *refused, const char *path, unsigned depth)
{
	struct sfs_scan *s = w->s;
	const char *name = git_tree_entry_name(e);

	if (git_tree_entry_filemode(e) != GIT_FILEMODE_TREE)
		return 0;
	if (refused)
		return sfs_diag_add(s->global, SFS_WARNING, w->g->own.url, 0, 0, "",
		                    "folder %s of the tree: entry \"%s\" not "
		                    "searched: %s", *path ? path : ".", name,
		                    refused);
	if (sfs_scan_skipped_folder(name))
		return 0;
	const char *child = join(s->arena, path, name);
	if (!child)
		return -ENOMEM;
	const char *bad = sfs_bad_name(name);
	if (bad)
		return sfs_diag_add(s->global, SFS_WARNING, w->g->own.url, 0, 0, "",
		                    "%s: not searched: the folder's %s", child,
		                    bad);
	if (depth + 1 > s->max_depth) {
		if (!w->too_deep)
			w->too_deep = child;
		return 0;
	}
	git_tree *sub;
	if (git_tree_lookup(&sub, w->g->handles[0].repo,
	                    git_tree_entry_id(e)) < 0)
		return sfs_diag_add(s->global, SFS_WARNING, w->g->own.url, 0, 0, "",
		                    "%s: cannot read the folder: %s", child,
		                    git_message());
	int rc = find_in(w, sub, child, depth + 1);
	git_tree_free(sub);
	return rc;
}

static int find_in(struct finder *w, const git_tree *t, const char *path,
                   unsigned depth)
{
	size_t n = git_tree_entrycount(t);

	w->searched++;
	if (n > w->budget) {
		w->out_of_budget = true;
		n = w->budget;
	}
	w->budget -= n;
	/* a skill is not searched for more skills; its listing refuses
	 * the entries git fsck would */
	const char *md = skill_md_of(t);
	if (md)
		return add_found(w, path, md, t);
	const char **refused;
	int rc = sfs_git_tree_check(t, &refused);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = find_entry(w, git_tree_entry_byindex(t, i),
		                refused ? refused[i] : NULL, path, depth);
	free(refused);
	return rc;
}

static int cmp_found(const void *a, const void *b)
{
	const struct sfs_found *x = a, *y = b;
	return strcmp(x->dir, y->dir);
}

static int find_skills(struct git_source *g, struct sfs_scan *s,
                       unsigned idx)
{
	struct finder w = { .g = g, .s = s, .root = idx,
	                    .budget = s->max_entries };
	size_t first = s->nfound;
	int rc = find_in(&w, g->handles[0].top, "", 0);

	if (rc < 0)
		return rc;
	if (s->nfound > first)
		sfs_sort(s->found + first, s->nfound - first,
		         sizeof(*s->found), cmp_found);
	else
		rc = sfs_diag_add(s->global, SFS_WARNING, g->own.url, 0, 0, "",
		                  "no skill found in commit %s: searched %zu "
		                  "folders up to %u levels down for a SKILL.md",
		                  g->commit, w.searched, s->max_depth);
	if (rc == 0 && w.out_of_budget)
		rc = sfs_diag_add(s->global, SFS_WARNING, g->own.url, 0, 0, "",
		                  "search stopped after %zu entries; skills "
		                  "further on were not found", s->max_entries);
	if (rc == 0 && w.too_deep)
		rc = sfs_diag_add(s->global, SFS_WARNING, g->own.url, 0, 0, "",
		                  "%s: not searched: more than %u folder levels "
		                  "below the source", w.too_deep, s->max_depth);
	return rc;
}

static void units_for(const struct git_source *g, bool strict,
                      unsigned trust, unsigned max_depth, size_t max_files,
                      unsigned idx, struct sfs_kept_for *f)
{
	*f = (struct sfs_kept_for){
		.place = "git-units", .strict = strict, .trust = trust,
		.max_depth = max_depth,
		.max_files = max_files, .time = g->time, .uid = g->uid,
		.gid = g->gid, .root = idx,
	};
}

/* What a former mount kept of the root's units, for a build that has no
 * previous catalog to take them from (a start).  A file that is not
 * what this program wrote under its key is a warning and ignored. */
static int take_kept(struct git_source *g, struct sfs_scan *s, unsigned idx)
{
	struct sfs_kept_for f;
	uint8_t key[SFS_CACHE_KEY_LEN];

	g->missed = false;
	g->starting = true;
	sfs_kept_units_free(g->kept);
	g->kept = NULL;
	if (!g->own.cache_dir || !sfs_git_digests_key(g->digests, key))
		return 0;
	units_for(g, s->strict, s->trust, s->max_depth, s->max_files, idx,
	          &f);
	return sfs_kept_units_take(g->own.cache_dir, g->own.url, key, &f,
	                           &g->kept, s->global);
}

/* After a start that read a skill no former mount kept: the root's units
 * kept for the next start, in place of the former ones.  Not after a
 * rebuild (SIGHUP, a fetch), whose new generation would wait for the
 * file: 22.6 MB at 10,000 skills, and a switch of one skill took 432 ms
 * instead of about 100 (scripts/bench-git, 2026-11-26); a commit served
 * only since then is read whole at the next start, and kept then. */
static void built(const struct sfs_source *src, const struct sfs_catalog *cat,
                  unsigned idx)
{
	struct git_source *g = src->state;
	struct sfs_kept_for f;
	uint8_t key[SFS_CACHE_KEY_LEN];

	if (!g || !g->ready)
		return;
	pthread_mutex_lock(&g->lock);
	/* the catalog holds its own references */
	sfs_kept_units_free(g->kept);
	g->kept = NULL;
	if (g->starting && g->missed && g->own.cache_dir && g->digests &&
	    sfs_git_digests_key(g->digests, key)) {
		units_for(g, cat->strict, cat->trust, cat->max_depth,
		          cat->max_files, idx, &f);
		/* a cache that cannot be written: the next start reads every
		 * skill, as this one did */
		(void)sfs_kept_units_save(g->own.cache_dir, g->own.url, key,
		                          &f, cat->units, cat->nunits);
	}
	g->missed = false;
	pthread_mutex_unlock(&g->lock);
}

static int discover(const struct sfs_source *src, struct sfs_scan *s,
                    unsigned idx, bool *exists)
{
	struct git_source *g = src->state;
	struct sfs_source_url u;
	const char *why;

	*exists = false;
	int rc = sfs_source_url_parse(g->own.url, &u, &why);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return report(s, g->own.url, "%s", why);
	pthread_mutex_lock(&g->lock);
	rc = u.where == SFS_URL_REMOTE ? resolve_clone(g, s, &u)
	                                  : resolve(g, s, &u);
	if (rc == 0 && g->ready && !g->digests) {
		g->digests = sfs_git_digests_open(g->own.cache_dir);
		rc = g->digests ? 0 : -ENOMEM;
	}
	if (rc == 0 && g->ready && !s->reuse)
		rc = take_kept(g, s, idx);
	if (rc == 0 && g->ready) {
		*exists = true;
		rc = find_skills(g, s, idx);
	}
	pthread_mutex_unlock(&g->lock);
	sfs_source_url_free(&u);
	return rc;
}

/* ---- handles ------------------------------------------------------------- */

/* Opens handle i: the repository once more, and the served tree in it. */
static int open_handle(struct git_source *g, struct git_handle *h)
{
	if (git_repository_open_ext(&h->repo, g->path,
	                            GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return -EIO;
	if (git_tree_lookup(&h->top, h->repo, &g->top_id) < 0) {
		git_repository_free(h->repo);
		h->repo = NULL;
		return -EIO;
	}
	return 0;
}

/* A handle for this thread's use, locked: a free one, else a new one
 * while there may be more, else the next one to come free.  NULL when
 * the source was not resolved. */
static struct git_handle *take_handle(struct git_source *g)
{
	pthread_mutex_lock(&g->lock);
	unsigned n = g->nhandles;
	pthread_mutex_unlock(&g->lock);
	if (!g->ready || n == 0)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		if (pthread_mutex_trylock(&g->handles[i].lock) == 0)
			return &g->handles[i];
	pthread_mutex_lock(&g->lock);
	struct git_handle *h = NULL;
	if (g->nhandles < HANDLES) {
		h = &g->handles[g->nhandles];
		pthread_mutex_lock(&h->lock);
		if (open_handle(g, h) == 0) {
			g->nhandles++;
		} else {
			pthread_mutex_unlock(&h->lock);
			h = NULL;
		}
	}
	n = g->nhandles;
	pthread_mutex_unlock(&g->lock);
	if (!h) {
		/* all in use: wait for one (spread by the caller's stack) */
		uintptr_t spread = (uintptr_t)&h >> 12;
		h = &g->handles[spread % n];
		pthread_mutex_lock(&h->lock);
	}
	return h;
}

static void give_handle(struct git_handle *h)
{
	if (h)
		pthread_mutex_unlock(&h->lock);
}

/* ---- one skill's tree --------------------------------------------------- */

struct lister {
	struct git_source *g;
	struct git_handle *h;       /* the thread's */
	struct sfs_scan *s;
	const struct sfs_found *f;
	struct sfs_arena *arena;
	struct sfs_diag_list *diags;
	const git_tree *skill;      /* the skill folder's tree */
	struct sfs_file *v;         /* owned (malloc) until copied */
	size_t n, cap;
	bool capped;
	struct sfs_tree_keep kept;  /* the blobs inflated to hash them */
};

/* A hidden entry: a warning, or an error when it is SKILL.md itself. */
static int hide(struct lister *l, bool is_skill_md, const char *rel,
                const char *why)
{
	const char *abs = sfs_arena_printf(l->arena, "%s/%s", l->f->dir, rel);

	return abs ? sfs_diag_hidden(l->diags, abs, is_skill_md, why) : -ENOMEM;
}

/* An entry git fsck would refuse, in the folder rel (NULL: the skill's
 * top): not served, and the skill not at all when it is SKILL.md. */
static int refuse(struct lister *l, const char *rel, const char *name,
                  const char *why)
{
	bool is_skill_md = !rel && strcmp(name, l->f->skill_md) == 0;
	const char *folder = rel ? sfs_arena_printf(l->arena, "%s/%s",
	                                            l->f->dir, rel)
	                         : l->f->dir;

	if (!folder)
		return -ENOMEM;
	return sfs_diag_add(l->diags, is_skill_md ? SFS_ERROR : SFS_WARNING,
	                    folder, 0, 0, "", "tree entry \"%s\": %s; %s",
	                    name, why, is_skill_md ? "the skill cannot be "
	                    "served" : "hidden");
}

static bool is_lfs_pointer(const void *p, size_t n)
{
	size_t m = strlen(LFS_MAGIC);
	return n < LFS_MAX_POINTER && n >= m && memcmp(p, LFS_MAGIC, m) == 0;
}

/* The size of the blob `id`, from its object header (a pack's or a
 * loose object's first bytes), without reading it. */
static int blob_size(git_repository *repo, const git_oid *id, uint64_t *size)
{
	git_odb *odb;
	git_object_t type;
	size_t n;

	if (git_repository_odb(&odb, repo) < 0)
		return -EIO;
	int rc = git_odb_read_header(&n, &type, odb, id) < 0 ||
	         type != GIT_OBJECT_BLOB ? -EIO : 0;
	git_odb_free(odb);
	*size = n;
	return rc;
}

/* e's size and digest, learnt from the blob `id`: published, and kept for
 * the next mounts. */
static void learnt(struct lister *l, struct sfs_file *e, const git_oid *id,
                   off_t size)
{
	e->size = size;
	e->hashed = true;
	l->s->hashed++;
	pthread_mutex_lock(&l->g->digests_lock);
	sfs_git_digests_add(l->g->digests, id->id, e->size, e->sha256);
	pthread_mutex_unlock(&l->g->digests_lock);
}

/* A big blob as it streams at build: hashed, and written to `fd` for the
 * reads of this build when fd >= 0. */
struct streamed {
	struct sfs_git_hash h;
	int fd;
	off_t at;
};

static int hash_chunk(void *arg, const void *p, size_t n)
{
	struct streamed *s = arg;

	sfs_git_hash_update(&s->h, p, n);
	if (s->fd >= 0 && sfs_git_big_write(s->fd, s->at, p, n) < 0) {
		close(s->fd);   /* a full disk: a read unpacks it */
		s->fd = -1;
	}
	s->at += (off_t)n;
	return 0;
}

/*
 * digest_blob for a blob of `size` bytes past SFS_GIT_STREAM_MIN: hashed
 * as it streams, in memory that does not grow with it (no LFS pointer is
 * that large), and learnt for the next mounts when `learn`.  Within
 * sfs_git_big_reserve, the bytes checked here are kept for the reads too
 * (git_big.c), which then neither inflate nor hash them again, and such a
 * blob is read at every build although its digest is in the cache: the
 * first read of a 64 MiB file took 10.6 times a folder root's when it
 * unpacked and hashed it, 2.4 times when the build had (BENCHMARKS.md).
 */
static int digest_streamed(struct lister *l, struct sfs_file *e,
                           const git_oid *id, uint64_t size, bool learn)
{
	struct streamed s = { .fd = -1 };
	uint64_t got;

	if (learn ? sfs_git_big_reserve(l->g->big, size) : true)
		s.fd = sfs_git_big_file(l->g->big);
	sfs_git_hash_init(&s.h, size);
	int rc = sfs_git_blob_stream(l->h->repo, id, &got, hash_chunk, &s);
	if (rc == 0 && (got != size || !sfs_git_hash_is(&s.h, id->id,
	                                                e->sha256)))
		rc = -EBADMSG;
	if (rc == 0 && s.fd >= 0)
		sfs_git_big_keep(l->g->big, id, s.fd);
	else if (s.fd >= 0)
		close(s.fd);
	if (rc < 0)
		return rc == -ENOMEM || rc == -EBADMSG ? rc : -EIO;
	if (learn) {
		learnt(l, e, id, (off_t)size);
	} else {
		e->size = (off_t)size;
		e->hashed = true;
	}
	return 0;
}

/*
 * Keeps the n checked bytes of the blob `id` that e was hashed from, for
 * the build (sfs_tree.bytes: the catalog parses SKILL.md from them, the
 * security pass scans every file from them; each inflated once, not
 * three times).  Not written into the cache folder: a SKILL.md read here
 * is parsed from these bytes, and the next start takes its skill from
 * the kept units (git_units.c); a git-blobs file is written only when a
 * build has to open a SKILL.md it holds no bytes of (open_skill_md).
 * Writing one per skill here was 40% of a first mount's CPU
 * (BENCHMARKS.md).
 */
static void keep_bytes(struct lister *l, const struct sfs_file *e,
                       const void *p, size_t n)
{
	if (n > sfs_tree_keep_room(&l->kept))
		return;
	unsigned char *copy = malloc(n + 1);
	if (!copy)
		return;   /* read again when needed */
	memcpy(copy, p, n);
	copy[n] = '\0';
	sfs_tree_keep_add(&l->kept, e->path, copy, n);
}

/*
 * Size and digest of the blob `id` for the entry e (path set): the
 * previous build's when it listed this very blob at this path, else by
 * reading it (its bytes then kept, keep_bytes).  Returns 0, 1 when the
 * blob is a Git LFS pointer, -ENOMEM, -EIO when it cannot be read, or
 * -EBADMSG when its bytes are not the blob (an object rewritten in
 * place).
 */
static int digest_blob(struct lister *l, struct sfs_file *e, const git_oid *id)
{
	const struct sfs_file *h = sfs_file_find(l->s->hint, l->s->nhint,
	                                         e->path);
	git_oid known;
	git_blob *b;

	if (h && h->hashed) {
		unstamp(&h->version, &known);
		if (git_oid_equal(&known, id)) {
			e->size = h->size;
			memcpy(e->sha256, h->sha256, sizeof(e->sha256));
			e->hashed = true;
			return 0;
		}
	}
	/* an earlier mount's reading (only blobs that are no LFS
	 * pointer are kept) */
	pthread_mutex_lock(&l->g->digests_lock);
	bool cached = sfs_git_digests_find(l->g->digests, id->id, &e->size,
	                                   e->sha256);
	pthread_mutex_unlock(&l->g->digests_lock);
	if (cached && !sfs_git_big_reserve(l->g->big, (uint64_t)e->size)) {
		e->hashed = true;
		return 0;
	}
	uint64_t size;
	int rc = blob_size(l->h->repo, id, &size);
	if (rc == 0 && size > SFS_GIT_STREAM_MIN)
		return digest_streamed(l, e, id, size, !cached);
	if (rc < 0 || git_blob_lookup(&b, l->h->repo, id) < 0)
		return -EIO;
	const void *p = git_blob_rawcontent(b);
	size_t n = (size_t)git_blob_rawsize(b);
	/* what is learnt here is published and kept across mounts: only of
	 * bytes that are the blob */
	rc = !sfs_git_blob_verify(p, n, id->id, NULL) ? -EBADMSG :
	     is_lfs_pointer(p, n);
	if (rc == 0) {
		sfs_sha256(p, n, e->sha256);
		learnt(l, e, id, (off_t)n);
		keep_bytes(l, e, p, n);
	}
	git_blob_free(b);
	return rc;
}

static int push(struct lister *l, const struct sfs_file *e)
{
	struct sfs_file *slot = sfs_file_push(&l->v, &l->n, &l->cap);

	if (!slot)
		return -ENOMEM;
	*slot = *e;
	return 0;
}

static int add_blob(struct lister *l, struct sfs_file *model,
                    const git_tree_entry *te, bool is_skill_md)
{
	struct sfs_file e = *model;
	bool exec = git_tree_entry_filemode(te) == GIT_FILEMODE_BLOB_EXECUTABLE;

	e.mode = S_IFREG | (exec ? 0755 : 0644);
	stamp(&e, git_tree_entry_id(te), l->g);
	int rc = digest_blob(l, &e, git_tree_entry_id(te));
	if (rc == 1)
		return hide(l, is_skill_md, model->source, "a Git LFS pointer "
		            "(its content is not in the repository)");
	if (rc == -EIO)
		return hide(l, is_skill_md, model->source, "cannot read the "
		            "blob from the repository");
	if (rc == -EBADMSG)
		return hide(l, is_skill_md, model->source, "the blob's bytes "
		            "are not those its id names (a corrupt object; git "
		            "fsck tells more)");
	return rc < 0 ? rc : push(l, &e);
}

/* The text of the link blob `id`, NUL-terminated, in the arena; NULL
 * when it cannot be read or holds a NUL byte (*nomem on ENOMEM). */
static const char *link_text(struct lister *l, const git_oid *id,
                             bool *nomem)
{
	git_blob *b;
	const char *text = NULL;

	*nomem = false;
	/* a link's text is short: a huge blob is not read whole to learn it */
	uint64_t size;
	if (blob_size(l->h->repo, id, &size) < 0 || size >= PATH_MAX ||
	    git_blob_lookup(&b, l->h->repo, id) < 0)
		return NULL;
	size_t n = (size_t)git_blob_rawsize(b);
	const char *p = git_blob_rawcontent(b);
	if (n > 0 && n < PATH_MAX && !memchr(p, '\0', n)) {
		text = sfs_arena_strndup(l->arena, p, n);
		*nomem = !text;
	}
	git_blob_free(b);
	return text;
}

/* The one entry of t named `name`, NULL when there is none; *twice when
 * there are more (libgit2's lookup by name would pick one of them). */
static const git_tree_entry *only_entry(const git_tree *t, const char *name,
                                        bool *twice)
{
	size_t n = git_tree_entrycount(t);
	const git_tree_entry *found = NULL;

	*twice = false;
	for (size_t i = 0; i < n && !*twice; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		if (strcmp(git_tree_entry_name(e), name) == 0) {
			*twice = found != NULL;
			found = e;
		}
	}
	return found;
}

/*
 * The entry at the clean relative path p of the skill's tree, into *out
 * (free it), when every entry on the way is one git fsck accepts; else a
 * finding's text in *why.  Returns 0, or -ENOMEM.
 */
static int entry_at(struct lister *l, const char *p, git_tree_entry **out,
                    const char **why)
{
	const git_tree *t = l->skill;
	git_tree *owned = NULL;
	char *copy = strdup(p), *save = NULL;

	*out = NULL;
	*why = NULL;
	if (!copy)
		return -ENOMEM;
	for (char *part = strtok_r(copy, "/", &save); part && !*why; ) {
		bool twice;
		const git_tree_entry *e = only_entry(t, part, &twice);
		char *next = strtok_r(NULL, "/", &save);
		if (!e || (next && git_tree_entry_filemode(e) !=
		                   GIT_FILEMODE_TREE)) {
			*why = "symbolic link is dangling";
		} else if (twice || sfs_git_bad_entry_name(part)) {
			*why = "symbolic link leads to an entry git fsck refuses";
		} else if (!next) {
			if (git_tree_entry_dup(out, e) < 0)
				*why = "cannot read symbolic link";
		} else {
			git_tree *sub;
			if (git_tree_lookup(&sub, l->h->repo,
			                    git_tree_entry_id(e)) < 0) {
				*why = "cannot read the target of the symbolic "
				       "link";
			} else {
				git_tree_free(owned);
				owned = sub;
				t = sub;
			}
		}
		part = next;
	}
	git_tree_free(owned);
	free(copy);
	return 0;
}

/*
 * Where the link at `rel` with `target` leads in the skill's tree,
 * following links on the way to the last one, into *out (free it); a
 * finding's text in *why when it leads nowhere inside the skill.
 * Returns 0, or -ENOMEM.
 */
static int follow_link(struct lister *l, const char *rel, const char *target,
                       git_tree_entry **out, const char **why)
{
	*out = NULL;
	for (int hop = 0; hop < MAX_LINK_HOPS; hop++) {
		if (target[0] == '/') {
			*why = "symbolic link has an absolute target";
			return 0;
		}
		const char *slash = strrchr(rel, '/');
		char *p = slash ? sfs_arena_printf(l->arena, "%.*s/%s",
		                                   (int)(slash - rel), rel,
		                                   target)
		                : sfs_arena_strdup(l->arena, target);
		if (!p)
			return -ENOMEM;
		if (!sfs_path_clean_rel(p) || p[0] == '\0') {
			*why = "symbolic link points outside the skill folder";
			return 0;
		}
		git_tree_entry *e;
		int rc = entry_at(l, p, &e, why);
		if (rc < 0 || *why)
			return rc;
		if (git_tree_entry_filemode(e) != GIT_FILEMODE_LINK) {
			*out = e;
			return 0;
		}
		bool nomem;
		target = link_text(l, git_tree_entry_id(e), &nomem);
		git_tree_entry_free(e);
		if (nomem)
			return -ENOMEM;
		if (!target) {
			*why = "cannot read symbolic link";
			return 0;
		}
		rel = p;
	}
	*why = "symbolic link loops";
	return 0;
}

/* Keeps the symbolic link when it resolves inside the skill to a folder
 * or a file, as the folder source does; hides it otherwise. */
static int add_link(struct lister *l, struct sfs_file *model,
                    const git_tree_entry *te, bool is_skill_md)
{
	struct sfs_file e = *model;
	const char *why = NULL;
	git_tree_entry *to;
	bool nomem;

	e.link = link_text(l, git_tree_entry_id(te), &nomem);
	if (nomem)
		return -ENOMEM;
	if (!e.link)
		return hide(l, is_skill_md, model->source,
		            "cannot read symbolic link");
	int rc = follow_link(l, model->source, e.link, &to, &why);
	if (rc < 0 || why)
		return rc < 0 ? rc : hide(l, is_skill_md, model->source, why);
	e.mode = S_IFLNK | 0777;
	git_filemode_t mode = git_tree_entry_filemode(to);
	if (mode == GIT_FILEMODE_TREE && !is_skill_md) {
		/* a folder link: its own identity */
		stamp(&e, git_tree_entry_id(te), l->g);
		e.size = (off_t)strlen(e.link);
		rc = push(l, &e);
	} else if (mode == GIT_FILEMODE_BLOB ||
	           mode == GIT_FILEMODE_BLOB_EXECUTABLE) {
		/* a file link: its target's content, identity and digest */
		stamp(&e, git_tree_entry_id(to), l->g);
		rc = digest_blob(l, &e, git_tree_entry_id(to));
		if (rc == 0)
			rc = push(l, &e);
		else if (rc > 0 || rc == -EIO || rc == -EBADMSG)
			rc = hide(l, is_skill_md, model->source, rc > 0 ?
			          "symbolic link to a Git LFS pointer" : "cannot read the target of the "
			          "symbolic link");
	} else {
		rc = hide(l, is_skill_md, model->source, mode == GIT_FILEMODE_TREE ?
		          "SKILL.md is a folder" : "symbolic link does not "
		          "point to a regular file or folder");
	}
	git_tree_entry_free(to);
	return rc;
}

static int list_tree(struct lister *l, const git_tree *t, const char *rel,
                     unsigned depth);

static int add_folder(struct lister *l, struct sfs_file *model,
                      const git_tree_entry *te, unsigned depth)
{
	struct sfs_file e = *model;
	git_tree *sub;

	if (depth + 1 > l->s->max_depth)
		return hide(l, false, model->source, "folder nested too deep");
	if (git_tree_lookup(&sub, l->h->repo, git_tree_entry_id(te)) < 0)
		return hide(l, false, model->source, "cannot read the folder "
		            "from the repository");
	e.mode = S_IFDIR | 0755;
	stamp(&e, git_tree_entry_id(te), l->g);
	e.size = 4096;
	int rc = push(l, &e);
	if (rc == 0)
		rc = list_tree(l, sub, model->source, depth + 1);
	git_tree_free(sub);
	return rc;
}

static int list_entry(struct lister *l, const git_tree_entry *te,
                      const char *rel, unsigned depth)
{
	const char *name = git_tree_entry_name(te);
	bool is_skill_md = !rel && strcmp(name, l->f->skill_md) == 0;
	struct sfs_file model = { .parent = -1 };
	char why[128];

	model.source = rel ? join(l->arena, rel, name)
	                   : sfs_arena_strdup(l->arena, name);
	if (!model.source)
		return -ENOMEM;
	model.path = is_skill_md ? "SKILL.md" : model.source;
	const char *slash = strrchr(model.path, '/');
	model.name = slash ? slash + 1 : model.path;
	const char *bad = sfs_bad_name(name);
	if (bad)
		return hide(l, false, model.source, bad);

	switch (git_tree_entry_filemode(te)) {
	case GIT_FILEMODE_TREE:
		if (is_skill_md)
			return hide(l, true, model.source,
			            "SKILL.md is a folder");
		if (sfs_scan_hidden_in_skill(name))
			return 0;
		return add_folder(l, &model, te, depth);
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return add_blob(l, &model, te, is_skill_md);
	case GIT_FILEMODE_LINK:
		return add_link(l, &model, te, is_skill_md);
	case GIT_FILEMODE_COMMIT:
		snprintf(why, sizeof(why), "a submodule (commit %.12s of "
		         "another repository, not fetched)",
		         git_oid_tostr_s(git_tree_entry_id(te)));
		return hide(l, is_skill_md, model.source, why);
	default:
		return hide(l, is_skill_md, model.source, "an entry of an "
		            "unknown kind");
	}
}

static int list_tree(struct lister *l, const git_tree *t, const char *rel,
                     unsigned depth)
{
	size_t n = git_tree_entrycount(t);
	const char **refused;
	int rc = sfs_git_tree_check(t, &refused);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(t, i);
		if (l->n >= l->s->max_files) {
			l->capped = true;
			break;
		}
		rc = refused && refused[i] ?
		     refuse(l, rel, git_tree_entry_name(te), refused[i]) :
		     list_entry(l, te, rel, depth);
	}
	free(refused);
	return rc < 0 ? rc : 0;
}

/* The tree of the skill folder f, into *out (to free unless it is the
 * source's top). */
static int skill_tree(struct git_source *g, struct git_handle *h,
                      const struct sfs_found *f, git_tree **out, git_oid *id)
{
	const char *rel = in_tree(g, f->dir);
	git_tree_entry *e;

	if (!rel)
		return -ENOENT;
	if (!*rel) {
		*out = h->top;
		git_oid_cpy(id, git_tree_id(h->top));
		return 0;
	}
	if (git_tree_entry_bypath(&e, h->top, rel) < 0)
		return -ENOENT;
	git_oid_cpy(id, git_tree_entry_id(e));
	git_tree_entry_free(e);
	return git_tree_lookup(out, h->repo, id) < 0 ? -EIO : 0;
}

static int list(const struct sfs_source *src, struct sfs_scan *s,
                struct sfs_found *f, struct sfs_arena *arena,
                struct sfs_diag_list *diags, struct sfs_tree *out)
{
	struct git_source *g = src->state;
	struct lister l = { .g = g, .s = s, .f = f, .arena = arena,
	                    .diags = diags, .kept = { .s = s } };
	git_tree *tree = NULL;
	git_oid id;

	memset(out, 0, sizeof(*out));
	l.h = take_handle(g);
	int rc = l.h ? skill_tree(g, l.h, f, &tree, &id) : -ENOENT;
	if (rc < 0) {
		give_handle(l.h);
		return sfs_diag_add(diags, SFS_ERROR, f->dir, 0, 0, "",
		                    "cannot read the skill folder from the "
		                    "repository");
	}
	stamp(&out->self, &id, g);
	out->self.mode = S_IFDIR | 0755;
	l.skill = tree;
	rc = list_tree(&l, tree, NULL, 0);
	if (tree != l.h->top)
		git_tree_free(tree);
	give_handle(l.h);
	pthread_mutex_lock(&g->digests_lock);
	sfs_git_digests_flush(g->digests);
	pthread_mutex_unlock(&g->digests_lock);

	if (rc == 0)
		rc = sfs_scan_finish_listing(s, f->dir, l.v, l.n, l.capped,
		                             l.arena, diags, out);
	if (rc == 0)
		rc = sfs_tree_keep_hand(&l.kept, out);
	sfs_tree_keep_free(&l.kept);
	free(l.v);
	return rc;
}

/* ---- reads -------------------------------------------------------------- */

/* The bytes of the blob f was listed with, as a sealed memory file (and
 * with `keep` as a file kept in the cache folder, git_blobs.c, when it
 * can be written there), only when they are that blob and have the
 * digest listed: an object rewritten in place since (the same id, other
 * bytes; libgit2 does not check ids as it reads, see
 * open_state) is not served under the digest published (-EIO). */
static int open_blob(const struct sfs_source *src, const struct sfs_file *f,
                     bool keep)
{
	struct git_source *g = src->state;
	git_oid id;
	git_blob *b;
	int fd;

	if (!g || !g->ready)
		return -ENOENT;
	unstamp(&f->version, &id);
	struct git_handle *h = take_handle(g);
	if (!h) {
		fd = -EIO;
	} else if (f->size > SFS_GIT_STREAM_MIN) {
		fd = f->hashed ? sfs_git_big_open(g->big, h->repo, &id, f->size,
		                                  f->sha256) : -EIO;
	} else if (git_blob_lookup(&b, h->repo, &id) < 0) {
		fd = -EIO;
	} else {
		size_t n = (size_t)git_blob_rawsize(b);
		const void *p = git_blob_rawcontent(b);
		fd = (off_t)n != f->size ? -ESTALE :
		     !sfs_git_blob_verify(p, n, id.id, f->hashed ? f->sha256
		                                                 : NULL) ? -EIO :
		     keep ? sfs_git_blob_keep(g->own.cache_dir, id.id, p, n) : -1;
		if (fd < 0 && fd != -ESTALE && fd != -EIO)
			fd = sfs_git_sealed_copy(p, n);
		git_blob_free(b);
	}
	give_handle(h);
	return fd;
}

static int open_skill_md(const struct sfs_source *src, const char *path,
                         const struct sfs_file *f, struct stat *st)
{
	(void)path;
	const struct git_source *g = src->state;
	if (!S_ISREG(f->mode) && !(S_ISLNK(f->mode) && f->hashed))
		return -EINVAL;
	git_oid id;
	unstamp(&f->version, &id);
	int fd = f->size > SFS_GIT_STREAM_MIN ? -ENOENT :
	         sfs_git_blob_open(g->own.cache_dir, id.id, f->size);
	if (fd == -ENOENT || fd == -EACCES)
		fd = open_blob(src, f, g->own.cache_dir != NULL);
	if (fd < 0)
		return fd;
	/* the identity listed: what was opened is that very blob */
	sfs_source_listed_stat(f, st);
	return fd;
}

static int open_file(const struct sfs_source *src, int root_fd,
                     const struct sfs_skill *s, const struct sfs_file *f)
{
	(void)root_fd;
	(void)s;
	if (!S_ISREG(f->mode))
		return -EINVAL;
	return open_blob(src, f, false);
}

/* sfs_source_update of a git root: a remote one is fetched into its
 * clone (git_fetch.c), on a thread of its own that opts' stop stops
 * waiting for; a server's ttl is not its. */
static int update(const char *root, const struct sfs_source_options *opts,
                  const char *cache_dir, enum sfs_fetch_ahead ahead,
                  char *version, size_t vlen, unsigned *ttl_ms, char *why,
                  size_t wlen)
{
	(void)ahead;   /* a fetch brings every object */
	(void)ttl_ms;
	return sfs_source_git_update(root, cache_dir, opts, version, vlen,
	                             why, wlen);
}

/* A remote root's clone; a git+file:// root is read in place. */
static char *cache_path(const struct sfs_source_url *u, const char *cache_dir)
{
	return u->where == SFS_URL_REMOTE ?
	       sfs_git_clone_path(cache_dir, u->location) : NULL;
}

static const struct sfs_cache_place cache_places[] = {
	{ "git", SFS_CACHE_CLONES },
	{ "git-blobs", SFS_CACHE_FILES },   /* SKILL.md blobs' bytes */
	/* a git root's skills as its last start built them: read at a
	 * start only, made again by the next one */
	{ "git-units", SFS_CACHE_FILES },
	{ "git-digests", SFS_CACHE_FILE },  /* the digests of blobs */
	{ NULL, 0 },
};

const struct sfs_source_ops sfs_source_git = {
	.kind = "git",
	.open = open_state,
	.update = update,
	.cache_path = cache_path,
	.cache_places = cache_places,
	.discover = discover,
	.list = list,
	.open_skill_md = open_skill_md,
	.open_file = open_file,
	.version = version,
	.version_key = "commit",
	.built = built,
	.release = free_state,
};
