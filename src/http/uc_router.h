/* Route tables as data: each API family declares its routes (method,
 * pattern, operation, flags) in one array; the router matches a call's
 * method and path against them. */
#ifndef UC_ROUTER_H
#define UC_ROUTER_H

#include "uc_call.h"
#include "../authz/uc_rules.h"

#define UC_ROUTE_MAX_PARAMS 6
#define UC_ROUTE_MAX_SEGMENTS 12

enum {
    UC_ROUTE_BODY = 1 << 0,   /* the operation reads a JSON request body */
    UC_ROUTE_TXN = 1 << 1     /* the operation runs in one transaction */
};

typedef struct uc_route {
    uc_method_t method;
    const char *pattern;      /* "/catalogs/{name}": {x} matches one segment */
    uc_operation_fn operation;
    unsigned flags;
    const uc_rule_t *rule;    /* who may call it; a route without one fails */
    /* The body may come wrapped in an object member of this name
     * ({"function_info": {...}}); the operation sees what is inside. */
    const char *envelope;
    /* The resource family whose generic operation the route runs
     * (src/api/uc_family.h); the call sees it. */
    const struct uc_api_family *family;
} uc_route_t;

typedef struct uc_route_match {
    const uc_route_t *route;  /* NULL when nothing matched */
    const char *params[UC_ROUTE_MAX_PARAMS];
    unsigned allowed;         /* bit per uc_method_t of the path's methods */
} uc_route_match_t;

/* Tables end with an entry whose pattern is NULL. The result is:
 * a route (match->route set), a known path with another method (route NULL,
 * allowed != 0: 405), or an unknown path (both zero: 404). */
void uc_router_match(apr_pool_t *pool, const uc_route_t *const *tables,
                     uc_method_t method, const char *path,
                     uc_route_match_t *match);

const char *uc_method_name(uc_method_t method);

/* Enforces the route's rule, then runs the operation, both inside one
 * transaction when the route asks for one: any error rolls everything
 * back. */
uc_error_t *uc_router_run(const uc_route_t *route, uc_call_t *call,
                          uc_jw_t *out);

/* "GET, HEAD, PATCH" for an Allow header. */
const char *uc_router_allow_header(apr_pool_t *pool, unsigned allowed);

#endif
