/*
 * settle_signs.h - what a build saw of the skills of the current
 * generation it would change (enum settle_sign in settle.h), looked at in
 * the sources.  Only folders are looked at: a git commit or an MCP listing
 * cannot be caught halfway.
 */
#ifndef SKILLSFS_SETTLE_SIGNS_H
#define SKILLSFS_SETTLE_SIGNS_H

#include "gen.h"

/* The signs of the files g found changed since prev, per skill of g: a
 * malloc'd array indexed like g's catalog's skills, or NULL. */
unsigned *settle_file_signs(const struct gen *prev, const struct gen *g);

/* The signs of a skill a build lost. */
unsigned settle_gone_signs(const struct sfs_skill *s);

/* The signs of the files of a (the current version) that b (the new
 * one) lacks. */
unsigned settle_lost_signs(const struct sfs_skill *a, const struct sfs_skill *b);

#endif
