/*
 * fingerprint.h - a cheap summary of the sources, for polling: where
 * inotify cannot watch, a refresh follows when the fingerprint changes.
 */
#ifndef SKILLSFS_FINGERPRINT_H
#define SKILLSFS_FINGERPRINT_H

#include <stdint.h>

#include "cli.h"
#include "skillsfs.h"

#include <time.h>

/* Mixes the stat of every root, every folder the catalog read, every file
 * of its skills and the SKILL.md of every skill it did not serve.  Sets
 * *newest, unless NULL, to the latest ctime among them. */
uint64_t fingerprint(const sfs_catalog *cat, const struct roots *roots,
                     struct timespec *newest);

#endif
