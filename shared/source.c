/*
 * source.c - which kind of source a configured root names: a folder's
 * path, or a URL of another kind (source_url.c): git+... a commit of a
 * git repository, mcp+... an MCP server's skills.  A new kind of source
 * adds its line here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source.h"

/* Whether root names an MCP server (mcp+https://..., mcp+stdio:NAME). */
static bool is_mcp(const char *root)
{
	return strncmp(root, "mcp+", 4) == 0;
}

/* Whether root names one run as a command. */
static bool is_stdio(const char *root)
{
	return strncmp(root, "mcp+stdio:", 10) == 0;
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

int sfs_source_open(const struct sfs_config *cfg, const char *root,
                    const char *version, struct sfs_source *out)
{
	*out = (struct sfs_source){ .ops = &sfs_source_dir, .root = root };
	if (!sfs_source_is_url(root))
		return 0;
	const struct sfs_source_options *o = root_options(cfg, root);
	out->private_skills = o && o->private_skills;
	if (is_mcp(root)) {
		out->ops = &sfs_source_mcp;
		out->state = sfs_source_mcp_new(root, version, cfg->cache_dir,
		                                root_note(cfg, root),
		                                root_options(cfg, root),
		                                cfg->found, cfg->found_arg);
	} else {
		out->ops = &sfs_source_git;
		out->state = sfs_source_git_new(root, version, cfg->cache_dir,
		                                root_note(cfg, root));
	}
	return out->state ? 0 : -ENOMEM;
}

int sfs_source_update(const struct sfs_config *cfg, const char *root,
                      char *version, size_t vlen, unsigned *ttl_ms,
                      char *why, size_t wlen)
{
	unsigned ignored;

	if (!ttl_ms)
		ttl_ms = &ignored;
	*ttl_ms = 0;
	if (!sfs_source_is_url(root))
		return 0;
	const struct sfs_source_options *o = root_options(cfg, root);
	int rc = is_mcp(root) ?
	         sfs_source_mcp_update(root, o, cfg->cache_dir,
	                               cfg->fetch_skill_mds, version, vlen,
	                               ttl_ms, why, wlen) :
	         sfs_source_git_update(root, cfg->cache_dir, o, version,
	                               vlen, why, wlen);
	return rc < 0 ? rc : 1;
}

int sfs_source_listen(const struct sfs_config *cfg, const char *root,
                      void (*heard)(void *), bool (*stop)(void *),
                      void *arg, char *why, size_t wlen)
{
	if (!sfs_source_listens(root)) {
		snprintf(why, wlen, "%s: no notifications from this kind of "
		         "source", root);
		return -EOPNOTSUPP;
	}
	const struct sfs_source_options *o = root_options(cfg, root);
	return sfs_source_mcp_listen(root, o, heard, stop, arg, why, wlen);
}

bool sfs_source_stoppable(const char *root)
{
	/* every URL but git+file://, which is read in place */
	return sfs_source_is_url(root) &&
	       strncmp(root, "git+file:", 9) != 0;
}

bool sfs_source_listens(const char *root)
{
	/* a stdio server runs only for a fetch: it is refreshed by
	 * fetch_interval and SIGHUP */
	return is_mcp(root) && !is_stdio(root);
}
