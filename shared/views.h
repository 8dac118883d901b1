/*
 * views.h - views: for each agent, the skills that fit the listing it
 * puts into the model's context, chosen (never cut) from the catalog.
 *
 * An agent lists each skill it finds with its name and description
 * (Codex also with the path of its SKILL.md), and caps what that listing
 * may take; past the cap it drops descriptions or skills without telling
 * the model.  A view is the selection that stays under the cap: pinned
 * ids first, then the other skills its patterns admit, cheapest first,
 * until what the agent would spend reaches 90% of the budget.  Every
 * view also holds find-skills, a virtual skill that tells the model how
 * to search the rest (search/<words>).  The mount lays a view out as
 * views/<name>/ (contract.h), status.json tells what each holds.
 */
#ifndef SFS_VIEWS_H
#define SFS_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skillsfs.h"

/* What an agent's listing costs and allows (profiles.c: one table). */
struct sfs_profile {
	const char *name;
	size_t budget;         /* characters of the listing left to a view */
	size_t per_skill;      /* the longest description it lists whole
	                          (0: no limit); a longer one is left out */
	bool refuses_long;     /* past per_skill the agent does not load the
	                          skill at all (else it cuts it) */
	bool lists_path;       /* each entry holds the path of its SKILL.md */
	bool lists_when_to_use;   /* and the frontmatter's when_to_use,
	                             within per_skill with the description */
	size_t entry_extra;    /* characters of an entry beside its name,
	                          description and path */
};

/* The built-in profiles, each also a view of the same name. */
size_t sfs_profile_count(void);
const struct sfs_profile *sfs_profile_at(size_t i);
const struct sfs_profile *sfs_profile_find(const char *name);

/* A view as the configuration file (views:) or a project file defines
 * it.  Everything malloc'd; free with sfs_view_def_free. */
struct sfs_view_def {
	char *name;
	char *profile;          /* a built-in profile, or NULL */
	long budget;            /* characters, SFS_UNSET unless given */
	long per_skill;         /* SFS_UNSET unless given */
	char **include;         /* fnmatch(3) patterns on ids; none: all */
	size_t ninclude;
	char **exclude;
	size_t nexclude;
	char **pins;            /* ids, listed first, in this order */
	size_t npins;
	char *project;          /* the project folder it was made for, or
	                           NULL (see sfs_project_file_read) */
};
void sfs_view_def_free(struct sfs_view_def *d);
/* Whether d (NULL: none, all) admits the skill id: pinned, or matched by
 * its include patterns (when it has any) and by none of its exclude
 * patterns. */
bool sfs_view_def_admits(const struct sfs_view_def *d, const char *id);
/* The place of id among d's pins, or -1. */
long sfs_view_def_pin(const struct sfs_view_def *d, const char *id);

/* A skill a view leaves out for a reason of its own. */
struct sfs_view_out {
	const char *id;         /* the catalog's, or a pin's */
	const char *why;        /* static text */
};

/* One view, as a generation serves it. */
struct sfs_view {
	char *name;
	struct sfs_profile profile;  /* the figures it was filled with */
	uint32_t *skills;       /* catalog indices, in the view's order */
	size_t nskills;         /* without find-skills */
	size_t spend;           /* characters the agent spends, find-skills
	                           included */
	size_t over_budget;     /* admitted skills that did not fit */
	size_t excluded;        /* skills its patterns do not admit */
	struct sfs_view_out *out;    /* refused skills and missing pins */
	size_t nout;
	char *find_skills;      /* the text of find-skills/SKILL.md */
};

struct sfs_views {
	struct sfs_view *v;     /* sorted by name */
	size_t n;
};

/*
 * The built-in views and those of defs (a def of a built-in's name
 * replaces it), filled from cat, with find-skills telling the search
 * folder of the mount at `mount` (absolute).  0 and *out, or -ENOMEM or
 * -EINVAL (a def names an unknown profile).
 */
int sfs_views_build(const sfs_catalog *cat, const struct sfs_view_def *defs,
                    size_t ndefs, const char *mount, struct sfs_views **out);
void sfs_views_free(struct sfs_views *v);

/* The project file a project folder may hold: pins, include, exclude,
 * profile, budget, per_skill, as a view of the configuration file has
 * them (see skillsfs(5)). */
#define SFS_PROJECT_FILE ".skillsfs.yaml"

/* Adds what the project file at path says to def (config.c).  0, or a
 * negative errno with *err set (its file: path). */
int sfs_project_file_read(const char *path, const char *home,
                          struct sfs_view_def *def,
                          struct sfs_config_error *err);

#endif
