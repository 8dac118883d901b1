/*
 * validators.h - the index's HTTP validators (ETag, Last-Modified) kept
 * beside the listing made of it, in the site's folder of the cache, so
 * that the next update asks whether the index changed (a conditional
 * GET) and a 304 keeps that listing as it is.
 */
#ifndef SKILLSFS_WELLKNOWN_VALIDATORS_H
#define SKILLSFS_WELLKNOWN_VALIDATORS_H

#include "mcp_client/client.h"
#include "source.h"

/* The validators kept in `state` for the listing `hex` into c, when
 * that listing is still there and was made fetching at least `ahead`:
 * 0, or -ENOENT (then nothing may be asked conditionally). */
int sfs_wk_validators_load(const char *state, const char *hex,
                           enum sfs_fetch_ahead ahead,
                           struct sfs_http_cache *c);
/* Keeps c's validators for the listing `hex` made fetching `ahead`, or
 * removes the ones kept when c has none: 0 or -errno. */
int sfs_wk_validators_store(const char *state, const char *hex,
                            enum sfs_fetch_ahead ahead,
                            const struct sfs_http_cache *c);
/* Forgets the validators kept in `state`. */
void sfs_wk_validators_drop(const char *state);

#endif
