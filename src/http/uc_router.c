/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_router.h"

#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

static const char *const method_names[UC_METHOD_COUNT] = {
    "GET", "POST", "PUT", "PATCH", "DELETE"
};

const char *uc_method_name(uc_method_t method)
{
    return method < UC_METHOD_COUNT ? method_names[method] : "?";
}

/* Splits "/a/b/" into segments; an empty segment in the middle ("a//b")
 * makes the path unroutable. A single trailing slash is tolerated. */
static int split_path(apr_pool_t *pool, const char *path, char **segs)
{
    char *copy = apr_pstrdup(pool, path), *p = copy;
    int n = 0;

    if (*p == '/')
        p++;
    while (*p) {
        char *slash = strchr(p, '/');
        if (n == UC_ROUTE_MAX_SEGMENTS)
            return -1;
        if (slash) {
            *slash = '\0';
            if (slash == p)
                return -1;
        }
        segs[n++] = p;
        if (!slash)
            break;
        p = slash + 1;
    }
    return n;
}

/* Matches the split path against one pattern without allocating: routing
 * runs on every request, over the routes the path's first segment may
 * reach. */
static int pattern_matches(const char *p, char **segs, int nsegs,
                           const char **params)
{
    int i = 0, np = 0;

    for (;; i++) {
        const char *s;

        while (*p == '/')
            p++;
        if (!*p)
            return i == nsegs;
        if (i == nsegs)
            return 0;
        if (*p == '{') {
            if (np == UC_ROUTE_MAX_PARAMS)
                return 0;
            params[np++] = segs[i];
            while (*p && *p != '/')
                p++;
            continue;
        }
        for (s = segs[i]; *p && *p != '/' && *p == *s; p++, s++)
            ;
        if ((*p && *p != '/') || *s)
            return 0;
    }
}

/* The routes a path may reach, by its first segment: those whose first
 * segment is that literal or a parameter, in the order of the tables. */
struct uc_router {
    apr_hash_t *by_first;        /* literal -> apr_array of routes */
    apr_array_header_t *others;  /* a first segment no literal names */
    apr_array_header_t *root;    /* the path "/" */
};

/* The first segment of a pattern: its length, and whether it is a
 * {parameter}. */
static const char *first_segment(const char *pattern, apr_size_t *len,
                                 int *param)
{
    const char *seg = pattern + (*pattern == '/');

    *len = strcspn(seg, "/");
    *param = *seg == '{';
    return seg;
}

static apr_array_header_t *routes_make(apr_pool_t *pool)
{
    return apr_array_make(pool, 8, sizeof(const uc_route_t *));
}

uc_router_t *uc_router_make(apr_pool_t *pool, const uc_route_t *const *tables)
{
    uc_router_t *router = apr_pcalloc(pool, sizeof(*router));
    const uc_route_t *const *t;
    const uc_route_t *r;
    apr_hash_index_t *hi;

    router->by_first = apr_hash_make(pool);
    router->others = routes_make(pool);
    router->root = routes_make(pool);
    for (t = tables; *t; t++)
        for (r = *t; r->pattern; r++) {
            apr_size_t len;
            int param;
            const char *seg = first_segment(r->pattern, &len, &param);

            if (len && !param && !apr_hash_get(router->by_first, seg, len))
                apr_hash_set(router->by_first, seg, len, routes_make(pool));
        }
    for (t = tables; *t; t++)
        for (r = *t; r->pattern; r++) {
            apr_size_t len;
            int param;
            const char *seg = first_segment(r->pattern, &len, &param);

            if (!len)
                APR_ARRAY_PUSH(router->root, const uc_route_t *) = r;
            else if (!param)
                APR_ARRAY_PUSH((apr_array_header_t *)apr_hash_get(
                                   router->by_first, seg, len),
                               const uc_route_t *) = r;
            else {
                APR_ARRAY_PUSH(router->others, const uc_route_t *) = r;
                for (hi = apr_hash_first(pool, router->by_first); hi;
                     hi = apr_hash_next(hi))
                    APR_ARRAY_PUSH((apr_array_header_t *)apr_hash_this_val(hi),
                                   const uc_route_t *) = r;
            }
        }
    return router;
}

void uc_router_match(apr_pool_t *pool, const uc_router_t *router,
                     uc_method_t method, const char *path,
                     uc_route_match_t *match)
{
    char *segs[UC_ROUTE_MAX_SEGMENTS];
    const apr_array_header_t *routes;
    int nsegs, i;

    memset(match, 0, sizeof(*match));
    nsegs = split_path(pool, path, segs);
    if (nsegs < 0)
        return;
    routes = nsegs ? apr_hash_get(router->by_first, segs[0],
                                  APR_HASH_KEY_STRING)
                   : router->root;
    if (!routes)
        routes = router->others;
    for (i = 0; i < routes->nelts; i++) {
        const uc_route_t *r = APR_ARRAY_IDX(routes, i, const uc_route_t *);
        const char *params[UC_ROUTE_MAX_PARAMS] = { NULL };

        if (!pattern_matches(r->pattern, segs, nsegs, params))
            continue;
        match->allowed |= 1u << r->method;
        if (r->method == method && !match->route) {
            match->route = r;
            memcpy(match->params, params, sizeof(params));
        }
    }
}

const char *uc_router_allow_header(apr_pool_t *pool, unsigned allowed)
{
    const char *out = NULL;
    int m;

    for (m = 0; m < UC_METHOD_COUNT; m++) {
        if (!(allowed & (1u << m)))
            continue;
        out = out ? apr_pstrcat(pool, out, ", ", uc_method_name(m), NULL)
                  : uc_method_name(m);
        if (m == UC_GET)
            out = apr_pstrcat(pool, out, ", HEAD", NULL);
    }
    return out ? out : "";
}

/* A literal segment of a pattern, or NULL for a {parameter}. */
static const char *literal(apr_pool_t *pool, const char *seg, apr_size_t n)
{
    return *seg == '{' ? NULL : apr_pstrmemdup(pool, seg, n);
}

const char *uc_route_family(apr_pool_t *pool, const uc_route_t *route)
{
    const char *p = route->pattern, *first = NULL, *last = NULL;

    while (*p) {
        const char *seg = p + (*p == '/'), *end = strchr(seg, '/');
        apr_size_t n = end ? (apr_size_t)(end - seg) : strlen(seg);
        const char *lit = n ? literal(pool, seg, n) : NULL;

        if (lit && !first)
            first = lit;
        else if (lit)
            last = lit;
        p = seg + n;
    }
    if (!first)
        return "/";
    return last ? apr_pstrcat(pool, first, "/", last, NULL) : first;
}
