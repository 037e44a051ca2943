/* SPDX-License-Identifier: Apache-2.0 */
/* A per-process limit of requests per client address in a fixed window,
 * for the routes open to anyone (activation links): a small table of
 * (address, count, window start) under a mutex. Each httpd child keeps
 * its own, so a client spread over several children gets their sum; when
 * the table is full, the entry whose window is oldest makes room. */
#ifndef UC_RATELIMIT_H
#define UC_RATELIMIT_H

#include <apr_pools.h>
#include <apr_time.h>

typedef struct uc_ratelimit uc_ratelimit_t;

/* `limit` requests per `window` for each of up to `entries` addresses. */
apr_status_t uc_ratelimit_create(apr_pool_t *pool, int limit,
                                 apr_interval_time_t window, int entries,
                                 uc_ratelimit_t **out);

/* Counts a request of `address` at `now`: 0 when it is within the limit,
 * else the seconds until its window ends (at least 1). */
int uc_ratelimit_hit(uc_ratelimit_t *rl, const char *address,
                     apr_time_t now);

#endif
