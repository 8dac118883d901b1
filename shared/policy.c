/*
 * policy.c - what the trust policy (sfs_config.trust) makes of a skill's
 * findings: which high findings stand (not accepted by the operator for
 * this very content), and which of them a new version brings that the
 * served one lacks.  catalog.c decides with these which skills it serves.
 */
#include <errno.h>
#include <string.h>

#include "lockfile.h"
#include "snapshot.h"

/* Whether cfg accepts finding d of skill s: an accept entry names the
 * skill, the rule and the digest of s's content.  *digest is computed on
 * the first entry that names skill and rule (*have says so). */
static bool accepted(const struct sfs_config *cfg, const struct sfs_skill *s,
                     const char *id, const struct sfs_diag *d,
                     uint8_t digest[32], bool *have)
{
	for (size_t i = 0; i < cfg->naccept; i++) {
		const struct sfs_accept *a = &cfg->accept[i];
		if (strcmp(a->skill, id) != 0 || strcmp(a->rule, d->rule) != 0)
			continue;
		if (!*have && sfs_skill_digest(s, digest) < 0)
			return false;   /* out of memory: not accepted */
		*have = true;
		if (memcmp(a->digest, digest, 32) == 0)
			return true;
	}
	return false;
}

bool sfs_policy_stands(const struct sfs_config *cfg,
                       const struct sfs_unit *u, const struct sfs_diag *d,
                       uint8_t digest[32], bool *have)
{
	if (!d->rule || d->risk != SFS_RISK_HIGH)
		return false;
	return !u->id || !accepted(cfg, &u->skill, u->id, d, digest, have);
}

const struct sfs_diag *sfs_policy_first(const struct sfs_config *cfg,
                                        const struct sfs_unit *u,
                                        const struct sfs_diag *cross,
                                        size_t ncross)
{
	uint8_t digest[32];
	bool have = false;

	for (size_t i = 0; i < u->skill.ndiags; i++)
		if (sfs_policy_stands(cfg, u, &u->skill.diags[i], digest, &have))
			return &u->skill.diags[i];
	for (size_t i = 0; i < ncross; i++)
		if (sfs_policy_stands(cfg, u, &cross[i], digest, &have))
			return &cross[i];
	return NULL;
}

/* Whether the unit `before` has a finding of d's rule, file and message:
 * a line that moved is the same finding. */
static bool had(const struct sfs_unit *before, const struct sfs_diag *d)
{
	for (size_t i = 0; i < before->skill.ndiags; i++) {
		const struct sfs_diag *o = &before->skill.diags[i];
		if (o->rule && strcmp(o->rule, d->rule) == 0 &&
		    strcmp(o->file, d->file) == 0 &&
		    strcmp(o->message, d->message) == 0)
			return true;
	}
	return false;
}

int sfs_policy_new_high(const struct sfs_config *cfg,
                        const struct sfs_unit *now,
                        const struct sfs_unit *before,
                        struct sfs_diag_list *out)
{
	uint8_t digest[32];
	bool have = false;

	for (size_t i = 0; i < now->skill.ndiags; i++) {
		const struct sfs_diag *d = &now->skill.diags[i];
		if (!sfs_policy_stands(cfg, now, d, digest, &have) ||
		    had(before, d))
			continue;
		int rc = sfs_diag_add_rule(out, d->risk, d->rule, d->file,
		                           d->line, d->column, "%s",
		                           d->message);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Whether v[0..i) has a high finding of v[i]'s rule already. */
static bool rule_seen(const struct sfs_diag *v, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (v[k].rule && v[k].risk == SFS_RISK_HIGH &&
		    strcmp(v[k].rule, v[i].rule) == 0)
			return true;
	return false;
}

/* fn for each rule of v's high findings, once, with id and digest. */
static void each_rule(const struct sfs_diag *v, size_t n, const char *id,
                      const uint8_t digest[32], sfs_accept_fn fn, void *arg)
{
	struct sfs_accept a = { .skill = id };

	memcpy(a.digest, digest, sizeof(a.digest));
	for (size_t i = 0; i < n; i++) {
		if (!v[i].rule || v[i].risk != SFS_RISK_HIGH || rule_seen(v, i))
			continue;
		a.rule = v[i].rule;
		fn(&a, arg);
	}
}

int sfs_catalog_each_accept(const sfs_catalog *cat, sfs_accept_fn fn,
                            void *arg)
{
	for (size_t i = 0; i < cat->nfolders; i++) {
		const struct sfs_folder *f = &cat->folders[i];
		const struct sfs_unit *u = sfs_unit_find(cat, f->dir);
		uint8_t digest[32];
		if (!f->id || !u)
			continue;
		if (f->nheld) {   /* the version held back is to be accepted */
			each_rule(f->held, f->nheld, f->id, f->held_digest, fn,
			          arg);
			continue;
		}
		bool any = false;
		for (size_t k = 0; k < f->ndiags && !any; k++)
			any = f->diags[k].rule &&
			      f->diags[k].risk == SFS_RISK_HIGH;
		if (!any)
			continue;
		if (sfs_skill_digest(&u->skill, digest) < 0)
			return -ENOMEM;
		each_rule(f->diags, f->ndiags, f->id, digest, fn, arg);
	}
	return 0;
}
