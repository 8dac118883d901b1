/*
 * selection.c - see selection.h.  A view's skills are the names of its
 * folder in the mount, so the server needs no copy of the views' rules:
 * the mount chose them.  The ranking is the mount's too: search/<words>
 * is read, never recomputed here.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "selection.h"

void selection_free(struct selection *sel)
{
	free(sel->v);
	memset(sel, 0, sizeof(*sel));
}

/* ---- membership ---------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **v;
	size_t n;
};

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static int names_add(struct names *s, const char *name)
{
	char **v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	return (s->v[s->n] = strdup(name)) ? (s->n++, 0) : -ENOMEM;
}

static bool names_has(const struct names *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_str);
}

/* The skill folders of MOUNT/views/<view>, sorted. */
static int view_members(const char *mount, const char *view,
                        struct names *out)
{
	char *dir = sfs_mount_view(mount, view, NULL, NULL);
	DIR *d;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	if (!sfs_skill_id_valid(view, strlen(view)) || !(d = opendir(dir))) {
		free(dir);
		return -ENOENT;
	}
	free(dir);
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (e->d_name[0] != '.' && strcmp(e->d_name, SFS_FIND_SKILLS))
			rc = names_add(out, e->d_name);
	closedir(d);
	qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return rc;
}

/* The ids search/<query> ranks, best first. */
static int ranked(const char *mount, const char *query, struct names *out)
{
	char *path = sfs_mount_search(mount, query);
	FILE *f = path ? fopen(path, "re") : NULL;
	char *line = NULL, id[65];
	size_t cap = 0;
	ssize_t len;
	int rc = path ? 0 : -ENOMEM;

	free(path);
	if (!f)
		return rc;   /* a plain folder has no search/: no ranking */
	while (rc == 0 && (len = getline(&line, &cap, f)) > 0)
		if (sfs_search_line(line, (size_t)len - (line[len - 1] == '\n'),
		                    id, sizeof(id)))
			rc = names_add(out, id);
	free(line);
	fclose(f);
	return rc;
}

/* ---- ordering ------------------------------------------------------------ */

struct ranked_pos {
	size_t idx;
	long key;    /* pin or search rank; LONG_MAX: none */
};

static int cmp_pos(const void *a, const void *b)
{
	const struct ranked_pos *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static long rank_of(const struct names *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i], id) == 0)
			return (long)i;
	return -1;
}

/* Orders sel by pins (no query) or by the search's ranks (a query). */
static int order(struct selection *sel, const struct model *md,
                 const struct sfs_view_def *project, const struct names *rk,
                 bool query)
{
	struct ranked_pos *p = malloc((sel->n ? sel->n : 1) * sizeof(*p));
	bool moved = false;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < sel->n; i++) {
		const char *id = md->skills[sel->v[i]].id;
		long k = query ? rank_of(rk, id) : sfs_view_def_pin(project, id);
		p[i] = (struct ranked_pos){ sel->v[i], k < 0 ? 0x7fffffffL : k };
		moved |= k >= 0;
	}
	qsort(p, sel->n, sizeof(*p), cmp_pos);
	for (size_t i = 0; i < sel->n; i++)
		sel->v[i] = p[i].idx;
	free(p);
	sel->by_id = !moved;
	return 0;
}

int selection_make(const char *mount, const struct model *md,
                   const char *view, const struct sfs_view_def *project,
                   const char *query,
                   bool (*keep)(const struct model *md, size_t i,
                                const char *query, void *arg),
                   void *arg, struct selection *out, const char **why)
{
	struct names members = { 0 }, rk = { 0 };
	int rc = view ? view_members(mount, view, &members) : 0;

	memset(out, 0, sizeof(*out));
	out->by_id = true;
	*why = rc == -ENOENT ? "no such view in the mount (status.json's "
	                       "\"views\" names them)" : NULL;
	if (rc == 0 && query)
		rc = ranked(mount, query, &rk);
	if (rc == 0 && !(out->v = malloc((md->n ? md->n : 1) *
	                                 sizeof(*out->v))))
		rc = -ENOMEM;
	/* with a query: those with every word; none: the ranked ones */
	for (int pass = 0; rc == 0 && pass < (query ? 2 : 1) && !out->n;
	     pass++) {
		for (size_t i = 0; i < md->n; i++) {
			const char *id = md->skills[i].id;
			if ((view && !names_has(&members, id)) ||
			    !sfs_view_def_admits(project, id) ||
			    (pass == 1 && rank_of(&rk, id) < 0) ||
			    !keep(md, i, pass == 0 ? query : NULL, arg))
				continue;
			out->v[out->n++] = i;
		}
	}
	if (rc == 0)
		rc = order(out, md, project, &rk, query != NULL);
	names_free(&members);
	names_free(&rk);
	if (rc < 0)
		selection_free(out);
	return rc;
}

/* Reads path into def: 1, 0 when there is no such file, -1 when it is
 * wrong (said on stderr). */
static int project_at(const char *path, struct sfs_view_def *def)
{
	struct sfs_config_error err;
	char at[16] = "";

	memset(def, 0, sizeof(*def));
	def->budget = def->per_skill = SFS_UNSET;
	int rc = sfs_project_file_read(path, getenv("HOME"), def, &err);
	if (rc == 0)
		return 1;
	sfs_view_def_free(def);
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;
	if (err.line)
		snprintf(at, sizeof(at), ":%u", err.line);
	fprintf(stderr, "skillsfs-mcp: %s%s:%s%s %s; the session lists "
	        "skills without it\n", path, at, err.key[0] ? " " : "",
	        err.key, err.message);
	return -1;
}

int selection_project(const char *cwd, struct sfs_view_def *def)
{
	char *dir = strdup(cwd), *path = NULL;
	int rc = 0;

	while (dir && rc == 0) {
		bool top = strcmp(dir, "/") == 0;
		if (asprintf(&path, "%s/" SFS_PROJECT_FILE, top ? "" : dir) < 0)
			break;
		rc = project_at(path, def);
		free(path);
		char *slash = strrchr(dir, '/');
		if (top || !slash)
			break;
		slash[slash == dir] = '\0';   /* up one folder; "/" stays */
	}
	free(dir);
	return rc;
}
