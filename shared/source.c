/*
 * source.c - a root's source opened, updated and heard through its
 * kind's operations: a configured root is of the kind its form names
 * (source_form.c's table, the one place that names the kinds: the first
 * whose prefix it starts with, git+... a commit of a git repository,
 * mcp+... an MCP server's skills), or a folder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_gc.h"
#include "internal.h"
#include "snapshot.h"
#include "source.h"

/* The form's operations: linked, or loaded from the module of the kinds
 * (kinds.c). */
static const struct sfs_source_ops *ops_of(const struct sfs_source_form *f)
{
	if (!f)
		return NULL;
	return f->ops ? f->ops : sfs_kinds_load(f->ops_name);
}

const struct sfs_source_ops *sfs_source_kind(const char *root)
{
	return ops_of(sfs_source_form(root));
}

const struct sfs_source_ops *sfs_source_kind_named(const char *name)
{
	return ops_of(sfs_source_form_named(name));
}

const struct sfs_source_ops *sfs_source_kind_at(size_t i)
{
	const struct sfs_source_form *f;
	const struct sfs_source_ops *ops;

	for (size_t j = 0; (f = sfs_source_form_at(j)); j++)
		if ((ops = ops_of(f)) && i-- == 0)
			return ops;
	return NULL;
}

/* The error of asking a kind this program neither links nor loads
 * (skillsfs-mcp builds no catalog; the module of the kinds missing),
 * rather than a crash. */
static int not_linked(const char *root, char *why, size_t wlen)
{
	snprintf(why, wlen, "%s: this program does not read sources of the "
	         "kind %s", root, sfs_source_form(root)->kind);
	return -ENOSYS;
}

/* cfg's note of the root (why its last update failed), or NULL. */
static const char *root_note(const struct sfs_config *cfg, const char *root)
{
	for (size_t i = 0; cfg->root_notes && i < cfg->nroots; i++)
		if (strcmp(cfg->roots[i], root) == 0)
			return cfg->root_notes[i];
	return NULL;
}

/* cfg's options of the root, or NULL. */
static const struct sfs_source_options *root_options(
	const struct sfs_config *cfg, const char *root)
{
	for (size_t i = 0; cfg->root_options && i < cfg->nroots; i++)
		if (strcmp(cfg->roots[i], root) == 0)
			return &cfg->root_options[i];
	return NULL;
}

char *sfs_source_cache_entry(const char *root, const char *cache_dir)
{
	const struct sfs_source_ops *kind = sfs_source_kind(root);
	struct sfs_source_url u;
	const char *why;
	char *path = NULL;
	size_t n = cache_dir ? strlen(cache_dir) : 0;

	if (!kind || !kind->cache_path || !n ||
	    sfs_source_url_parse(root, &u, &why) < 0)
		return NULL;
	path = kind->cache_path(&u, cache_dir);
	sfs_source_url_free(&u);
	/* the entry's name inside the cache folder */
	if (path && strncmp(path, cache_dir, n) == 0 && path[n] == '/')
		memmove(path, path + n + 1, strlen(path + n + 1) + 1);
	else if (path) {
		free(path);
		path = NULL;
	}
	return path;
}

int sfs_source_open(const struct sfs_config *cfg, const char *root,
                    const char *version, struct sfs_source *out)
{
	const struct sfs_source_ops *kind = sfs_source_kind(root);

	*out = (struct sfs_source){
		.ops = kind, .root = root, .caps = sfs_source_caps(root),
	};
	if (!kind)
		return -ENOSYS;   /* this program links no such kind */
	if (!kind->open || !cfg)
		return 0;   /* the docs folder's keeps nothing */
	const struct sfs_source_options *o = root_options(cfg, root);
	out->private_skills = o && o->private_skills;
	out->state = kind->open(&(struct sfs_source_args){
		.root = root,
		.version = version,
		.cache_dir = cfg->cache_dir,
		.note = root_note(cfg, root),
		.opts = o,
		.found = cfg->found,
		.found_arg = cfg->found_arg,
	});
	return out->state ? 0 : -ENOMEM;
}

int sfs_source_update(const struct sfs_config *cfg, const char *root,
                      char *version, size_t vlen, unsigned *ttl_ms,
                      char *why, size_t wlen)
{
	const struct sfs_source_ops *kind = sfs_source_kind(root);
	unsigned ignored;

	if (!ttl_ms)
		ttl_ms = &ignored;
	*ttl_ms = 0;
	if (!kind)
		return not_linked(root, why, wlen);
	if (!kind->update)
		return 0;
	/* a trust policy judges every file of what it serves, and a
	 * build reads only what is at hand */
	enum sfs_fetch_ahead ahead = cfg->trust != SFS_TRUST_REPORT ?
		SFS_FETCH_ALL_FILES : cfg->fetch_skill_mds ?
		SFS_FETCH_SKILL_MDS : SFS_FETCH_LISTING;
	int rc = kind->update(root, root_options(cfg, root), cfg->cache_dir,
	                      ahead, version, vlen, ttl_ms, why, wlen);
	return rc < 0 ? rc : 1;
}

int sfs_source_listen(const struct sfs_config *cfg, const char *root,
                      void (*heard)(void *), bool (*stop)(void *),
                      void *arg, char *why, size_t wlen)
{
	const struct sfs_source_ops *kind = sfs_source_kind(root);

	if (!kind)
		return not_linked(root, why, wlen);
	if (!kind->listen || !(sfs_source_caps(root) & SFS_SOURCE_LISTENS)) {
		snprintf(why, wlen, "%s: no notifications from this kind of "
		         "source", root);
		return -EOPNOTSUPP;
	}
	return kind->listen(root, root_options(cfg, root), heard, stop, arg,
	                    why, wlen);
}

/* (source.h) Beside the table rather than in catalog.c: private.c and
 * the readers of a skill's files ask it, and catalog.c calls them. */
const struct sfs_source *sfs_catalog_source(const sfs_catalog *cat,
                                            size_t i)
{
	return i <= cat->nroots ? &cat->sources[i] : NULL;
}

int sfs_source_owned_copy(const struct sfs_source_args *a,
                          struct sfs_source_owned *o)
{
	return sfs_strdup_or_null(a->root, &o->url) &&
	       sfs_strdup_or_null(a->cache_dir, &o->cache_dir) &&
	       sfs_strdup_or_null(a->note, &o->note) ? 0 : -ENOMEM;
}

void sfs_source_owned_free(struct sfs_source_owned *o)
{
	free(o->url);
	free(o->cache_dir);
	free(o->note);
}
