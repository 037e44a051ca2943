/* SPDX-License-Identifier: Apache-2.0 */
/* Route tables as data: each API family declares its routes (method,
 * pattern, operation, flags) in one array; the router matches a call's
 * method and path against them. */
#ifndef UC_ROUTER_H
#define UC_ROUTER_H

#include "../call/uc_call.h"

#define UC_ROUTE_MAX_PARAMS 6
#define UC_ROUTE_MAX_SEGMENTS 12

typedef struct uc_route_match {
    const uc_route_t *route;  /* NULL when nothing matched */
    const char *params[UC_ROUTE_MAX_PARAMS];
    unsigned allowed;         /* bit per uc_method_t of the path's methods */
} uc_route_match_t;

typedef struct uc_router uc_router_t;

/* The routes of `tables` (NULL-ended; each table ends with an entry whose
 * pattern is NULL) indexed by their first segment, so that a call is
 * matched against the few routes its path may reach, not against every
 * route of the API. Made once, in a pool that outlives the calls; read by
 * any number of threads. */
uc_router_t *uc_router_make(apr_pool_t *pool, const uc_route_t *const *tables);

/* The first route of the tables, in their order, for the method and the
 * path. The result is: a route (match->route set), a known path with
 * another method (route NULL, allowed != 0: 405), or an unknown path (both
 * zero: 404). */
void uc_router_match(apr_pool_t *pool, const uc_router_t *router,
                     uc_method_t method, const char *path,
                     uc_route_match_t *match);

const char *uc_method_name(uc_method_t method);

/* The family a route counts under in the server's metrics: its first
 * literal segment, and its last when there are more ("/catalogs/{name}":
 * catalogs; "/models/{full_name}/versions/{version}": models/versions). */
const char *uc_route_family(apr_pool_t *pool, const uc_route_t *route);

/* "GET, HEAD, PATCH" for an Allow header. */
const char *uc_router_allow_header(apr_pool_t *pool, unsigned allowed);

#endif
