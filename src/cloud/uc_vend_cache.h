/* SPDX-License-Identifier: Apache-2.0 */
/* Vended credentials kept by a process until shortly before they expire,
 * so that a burst of requests for the same data makes one call to the
 * cloud: the first caller of a key fetches, the others wait for what it
 * gets. Entries hold secrets; they are wiped when they go. Safe for the
 * threads of a process (event MPM) and per process (prefork). */
#ifndef UC_VEND_CACHE_H
#define UC_VEND_CACHE_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

#define UC_VENDED_VALUES 3

/* A temporary credential as the catalog answers it: `kind` names its
 * object (aws_temp_credentials, azure_user_delegation_sas,
 * gcp_oauth_token), `values` its members in the order of `names`. */
typedef struct uc_vended {
    const char *kind;
    const char *names[UC_VENDED_VALUES];
    const char *values[UC_VENDED_VALUES];
    apr_time_t expires;
} uc_vended_t;

typedef struct uc_vend_cache uc_vend_cache_t;

/* At most `max_entries` credentials; gone (wiped) with `pool`. */
uc_error_t *uc_vend_cache_create(apr_pool_t *pool, int max_entries,
                                 uc_vend_cache_t **out);

/* Makes a credential for the cache: into `out`, from `pool`. */
typedef uc_error_t *(*uc_vend_fetch_fn)(apr_pool_t *pool, void *baton,
                                        uc_vended_t *out);

/* The credential of `key` that is still good at `now` for at least the
 * rest of its reuse window (a quarter of its lifetime, at most five
 * minutes, before it expires), copied into `pool`; otherwise the one
 * `fetch` makes, which is kept. Concurrent callers of one key wait for
 * the first one's fetch, for `wait` at most (then they fetch themselves).
 * A failed fetch is not kept: its error goes to its own caller, and a
 * waiting one fetches again. `cache` NULL fetches every time. *hit tells
 * whether no fetch was made for this call. */
uc_error_t *uc_vend_cache_get(uc_vend_cache_t *cache, apr_pool_t *pool,
                              const char *key, apr_time_t now,
                              apr_interval_time_t wait,
                              uc_vend_fetch_fn fetch, void *baton,
                              uc_vended_t *out, int *hit);

/* Entries held now (for tests and status). */
int uc_vend_cache_size(uc_vend_cache_t *cache);

#endif
