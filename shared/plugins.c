/*
 * plugins.c - which Claude Code plugin a skill folder belongs to.
 *
 * Discovery finds skills in plugins the way it finds any skill (a folder
 * holding SKILL.md); what this file adds is the plugin's name, from the
 * manifests Claude Code reads:
 *
 *   <plugin>/.claude-plugin/plugin.json       "name", and "skills": more
 *                                             folders besides skills/
 *   <repo>/.claude-plugin/marketplace.json    "plugins": [{"name",
 *                                             "source": "./path",
 *                                             "skills": ["./path", ...]}]
 *   <plugins folder>/installed_plugins.json   {"plugins": {"name@market":
 *                                             [{"installPath": ...}]}}
 *
 * In Claude Code's plugins folder only the installed plugins' folders are
 * searched, and of a plugin whose entry in its marketplace (a clone in
 * marketplaces/<market>/) lists skills, only those skill folders: such a
 * plugin ("strict": false) is often a whole repository, copied once per
 * plugin it holds.
 *
 * Each manifest gives rules "a skill folder that is D, or directly inside
 * D, belongs to plugin N"; the most specific rule (the longest D) wins.
 * Paths are lexical, like every path discovery makes, and a path in a
 * manifest that climbs out of the folder holding it is ignored with a
 * warning.  A manifest that cannot be read or parsed is a warning naming
 * it; the skills are then served without a plugin.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "snapshot.h"

/* Manifests are small; a larger file is not one. */
#define MANIFEST_MAX (1024 * 1024)

int sfs_plugins_rule(struct sfs_scan *s, struct sfs_plugin_rules *r,
                     const char *dir, const char *name)
{
	if (sfs_grow(&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return -ENOMEM;
	const char *n = sfs_arena_strdup(s->arena, name);
	if (!n)
		return -ENOMEM;
	r->v[r->n++] = (struct sfs_plugin_rule){ .dir = dir, .name = n };
	return 0;
}

/* base/rel cleaned, in the arena; NULL with *climbs set when rel is
 * absolute or climbs above base. */
static char *resolve(struct sfs_scan *s, const char *base, const char *rel,
                     bool *climbs)
{
	char *clean = sfs_arena_strdup(s->arena, rel);

	*climbs = false;
	if (!clean)
		return NULL;
	if (!sfs_path_clean_rel(clean)) {
		*climbs = true;
		return NULL;
	}
	if (!*clean)
		return sfs_arena_strdup(s->arena, base);
	return sfs_arena_printf(s->arena, "%s%s%s", base,
	                        base[strlen(base) - 1] == '/' ? "" : "/",
	                        clean);
}

/* A rule for base/rel, or a warning naming the manifest and field when
 * rel leaves base. */
static int rule_at(struct sfs_scan *s, struct sfs_plugin_rules *r,
                   const char *manifest, const char *field,
                   const char *base, const char *rel, const char *name)
{
	bool climbs;
	char *dir = resolve(s, base, rel, &climbs);

	if (climbs)
		return sfs_diag_add(s->global, SFS_WARNING, manifest, 0, 0,
		                    field, "path \"%s\" leaves %s: ignored",
		                    rel, base);
	return dir ? sfs_plugins_rule(s, r, dir, name) : -ENOMEM;
}

/* The manifest `rel` of the folder dfd, parsed; NULL when it is not
 * there, and then also when it cannot be read or parsed (a warning). */
static cJSON *read_manifest(struct sfs_scan *s, int dfd, const char *rel,
                            const char *abs, int *rc)
{
	*rc = 0;
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			*rc = sfs_diag_add(s->global, SFS_WARNING, abs, 0, 0, "",
			                   "cannot read plugin manifest: %s",
			                   sfs_strerror(errno));
		return NULL;
	}
	char *text = malloc(MANIFEST_MAX + 1);
	size_t len = 0;
	ssize_t got = 1;
	while (text && len < MANIFEST_MAX &&
	       (got = read(fd, text + len, MANIFEST_MAX - len)) > 0)
		len += (size_t)got;
	int err = errno;
	close(fd);
	if (!text) {
		*rc = -ENOMEM;
		return NULL;
	}
	cJSON *json = NULL;
	const char *why = NULL;
	if (got < 0)
		why = sfs_strerror(err);
	else if (len == MANIFEST_MAX)
		why = "larger than 1 MiB";
	if (!why) {
		text[len] = '\0';
		json = cJSON_ParseWithLength(text, len);
		if (!cJSON_IsObject(json))
			why = "not a JSON object";
	}
	free(text);
	if (why) {
		cJSON_Delete(json);
		*rc = sfs_diag_add(s->global, SFS_WARNING, abs, 0, 0, "",
		                   "cannot use plugin manifest: %s; its skills "
		                   "are served without a plugin", why);
		return NULL;
	}
	return json;
}

static const char *string_of(const cJSON *obj, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(j) && *j->valuestring ? j->valuestring : NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* A "skills" value: one path or a list of them, relative to base. */
static int skills_paths(struct sfs_scan *s, struct sfs_plugin_rules *r,
                        const char *manifest, const char *field,
                        const char *base, const cJSON *skills,
                        const char *name)
{
	const cJSON *item;
	int rc = 0;

	if (cJSON_IsString(skills))
		return rule_at(s, r, manifest, field, base,
		               skills->valuestring, name);
	cJSON_ArrayForEach(item, skills)
		if (rc == 0 && cJSON_IsString(item))
			rc = rule_at(s, r, manifest, field, base,
			             item->valuestring, name);
	return rc;
}

/* The manifest .claude-plugin/<file> of the folder dfd (at `path`), as
 * read_manifest, and its absolute path in *abs. */
static cJSON *read_claude_manifest(struct sfs_scan *s, int dfd,
                                   const char *path, const char *file,
                                   const char **abs, int *rc)
{
	char rel[64];

	snprintf(rel, sizeof(rel), ".claude-plugin/%s", file);
	*abs = sfs_arena_printf(s->arena, "%s/%s", path, rel);
	*rc = -ENOMEM;
	return *abs ? read_manifest(s, dfd, rel, *abs, rc) : NULL;
}

/* <path>/.claude-plugin/plugin.json: skills/ and the "skills" paths. */
static int read_plugin(struct sfs_scan *s, int dfd, const char *path,
                       struct sfs_plugin_rules *r)
{
	const char *abs;
	int rc;
	cJSON *m = read_claude_manifest(s, dfd, path, "plugin.json", &abs,
	                                &rc);
	if (!m)
		return rc;
	const char *name = string_of(m, "name");
	if (!name)
		name = base_name(path);
	rc = rule_at(s, r, abs, "", path, "skills", name);
	const cJSON *skills = cJSON_GetObjectItemCaseSensitive(m, "skills");
	if (rc == 0 && skills)
		rc = skills_paths(s, r, abs, "skills", path, skills, name);
	cJSON_Delete(m);
	return rc;
}

/* One plugin entry of a marketplace at `path`. */
static int marketplace_entry(struct sfs_scan *s, struct sfs_plugin_rules *r,
                             const char *abs, const char *path,
                             const char *plugin_root, const cJSON *e,
                             size_t i)
{
	const char *name = string_of(e, "name");
	const char *source = string_of(e, "source");
	char field[64];
	bool climbs;

	/* A plugin fetched from elsewhere (github, git, npm) has no
	 * folder here. */
	if (!name || !source)
		return 0;
	snprintf(field, sizeof(field), "plugins.%zu.source", i);
	const char *base = path;
	if (plugin_root && source[0] != '.') {
		base = resolve(s, path, plugin_root, &climbs);
		if (!base)
			return climbs ? rule_at(s, r, abs, "metadata.pluginRoot",
			                        path, plugin_root, name)
			              : -ENOMEM;
	}
	const char *dir = resolve(s, base, source, &climbs);
	if (!dir)
		return climbs ? rule_at(s, r, abs, field, base, source, name)
		              : -ENOMEM;
	const cJSON *skills = cJSON_GetObjectItemCaseSensitive(e, "skills");
	if (!skills)
		return rule_at(s, r, abs, field, dir, "skills", name);
	snprintf(field, sizeof(field), "plugins.%zu.skills", i);
	return skills_paths(s, r, abs, field, dir, skills, name);
}

/* <path>/.claude-plugin/marketplace.json: each local plugin's skills. */
static int read_marketplace(struct sfs_scan *s, int dfd, const char *path,
                            struct sfs_plugin_rules *r)
{
	const char *abs;
	int rc;
	cJSON *m = read_claude_manifest(s, dfd, path, "marketplace.json",
	                                &abs, &rc);
	if (!m)
		return rc;
	const char *plugin_root = string_of(
		cJSON_GetObjectItemCaseSensitive(m, "metadata"), "pluginRoot");
	const cJSON *e;
	size_t i = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(m, "plugins")) {
		if (rc == 0 && cJSON_IsObject(e))
			rc = marketplace_entry(s, r, abs, path, plugin_root, e, i);
		i++;
	}
	cJSON_Delete(m);
	return rc;
}

int sfs_plugins_read(struct sfs_scan *s, int dfd, const char *path,
                     struct sfs_plugin_rules *r)
{
	int rc = read_marketplace(s, dfd, path, r);
	return rc < 0 ? rc : read_plugin(s, dfd, path, r);
}

const char *sfs_plugins_match(const struct sfs_plugin_rules *r,
                              const char *dir)
{
	const struct sfs_plugin_rule *best = NULL;
	const char *slash = strrchr(dir, '/');
	size_t parent = slash ? (size_t)(slash - dir) : 0;

	for (size_t i = 0; i < r->n; i++) {
		const char *d = r->v[i].dir;
		size_t n = strlen(d);
		bool hit = strcmp(d, dir) == 0 ||
		           (n == parent && strncmp(d, dir, n) == 0);
		if (hit && (!best || n > strlen(best->dir)))
			best = &r->v[i];
	}
	return best ? best->name : NULL;
}

int sfs_plugins_installed(struct sfs_scan *s, int dfd, const char *root,
                          struct sfs_installed **out, size_t *nout)
{
	const char *abs = sfs_arena_printf(s->arena, "%s/installed_plugins.json",
	                                   root);
	int rc;

	*out = NULL;
	*nout = 0;
	if (!abs)
		return -ENOMEM;
	cJSON *m = read_manifest(s, dfd, "installed_plugins.json", abs, &rc);
	if (!m)
		return rc;
	const cJSON *plugins = cJSON_GetObjectItemCaseSensitive(m, "plugins");
	size_t cap = 0;
	const cJSON *p, *e;
	cJSON_ArrayForEach(p, plugins) {
		char *name = sfs_arena_strdup(s->arena, p->string);
		if (!name) {
			rc = -ENOMEM;
			break;
		}
		char *at_sign = strchr(name, '@');
		const char *market = at_sign ? at_sign + 1 : NULL;
		if (at_sign)
			*at_sign = '\0';
		cJSON_ArrayForEach(e, p) {
			const char *at = string_of(e, "installPath");
			const char *home = getenv("HOME");
			size_t n = strlen(root);
			if (!at || rc < 0)
				continue;
			/* written "~/.claude/plugins/..." by some versions */
			if (at[0] == '~' && at[1] == '/' && home && *home) {
				at = sfs_arena_printf(s->arena, "%s%s", home, at + 1);
				if (!at) {
					rc = -ENOMEM;
					break;
				}
			}
			if (strncmp(at, root, n) != 0 || at[n] != '/') {
				rc = sfs_diag_add(s->global, SFS_WARNING, abs, 0, 0,
				                  p->string, "installPath %s is not "
				                  "inside %s: not searched", at, root);
				continue;
			}
			if (*nout == cap) {
				cap = cap ? cap * 2 : 8;
				struct sfs_installed *v = realloc(*out,
				                                  cap * sizeof(*v));
				if (!v) {
					rc = -ENOMEM;
					break;
				}
				*out = v;
			}
			char *rel = sfs_arena_strdup(s->arena, at + n + 1);
			if (!rel) {
				rc = -ENOMEM;
			} else if (!sfs_path_clean_rel(rel) || !*rel) {
				/* "..": it would lead out of the folder */
				rc = sfs_diag_add(s->global, SFS_WARNING, abs, 0, 0,
				                  p->string, "installPath %s is not "
				                  "inside %s: not searched", at, root);
			} else {
				(*out)[(*nout)++] = (struct sfs_installed){
					.rel = rel, .name = name,
					.market = market && *market ? market : NULL,
				};
			}
		}
	}
	cJSON_Delete(m);
	return rc;
}

int sfs_plugins_listed(struct sfs_scan *s, int dfd, const char *root,
                       const struct sfs_installed *p, const char ***out,
                       size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!p->market || strchr(p->market, '/') || p->market[0] == '.')
		return 0;
	const char *rel = sfs_arena_printf(s->arena, "marketplaces/%s/"
	                                   ".claude-plugin/marketplace.json",
	                                   p->market);
	const char *abs = rel ? sfs_arena_printf(s->arena, "%s/%s", root, rel)
	                      : NULL;
	int rc;
	if (!abs)
		return -ENOMEM;
	cJSON *m = read_manifest(s, dfd, rel, abs, &rc);
	if (!m)
		return rc;
	const cJSON *e, *item, *skills = NULL;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(m, "plugins")) {
		const char *name = string_of(e, "name");
		if (name && strcmp(name, p->name) == 0)
			skills = cJSON_GetObjectItemCaseSensitive(e, "skills");
	}
	const cJSON *list = cJSON_IsArray(skills) ? skills : NULL;
	size_t n = (size_t)cJSON_GetArraySize(list);
	const char **v = n ? sfs_arena_alloc(s->arena, n * sizeof(*v)) : NULL;
	if (n && !v)
		rc = -ENOMEM;
	cJSON_ArrayForEach(item, list) {
		char *clean = cJSON_IsString(item) ?
		              sfs_arena_strdup(s->arena, item->valuestring) : NULL;
		if (rc < 0)
			break;
		if (cJSON_IsString(item) && !clean)
			rc = -ENOMEM;
		else if (clean && sfs_path_clean_rel(clean) && *clean)
			v[(*nout)++] = clean;
	}
	cJSON_Delete(m);
	*out = v;
	return rc;
}
