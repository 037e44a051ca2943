/* SPDX-License-Identifier: Apache-2.0 */
/* Route matching, Allow headers and the shape of the real route tables. */
#include "uc_test.h"

#include "../../src/http/uc_router.h"
#include "../../src/api/uc_api.h"
#include "../../src/http/uc_run.h"
#include "../../src/authz/uc_batch_check.h"
#include "../../src/mounts/uc_mounts.h"

#define BIT(m) (1u << (m))

static uc_error_t *op_a(uc_call_t *call, uc_jw_t *out)
{
    (void)call;
    uc_jw_string(out, "a");
    return NULL;
}

static uc_error_t *op_b(uc_call_t *call, uc_jw_t *out)
{
    uc_jw_string(out, "b");
    return uc_error_make(call->pool, UC_E_ABORTED, "b ran");
}

/* Any authenticated caller: the router enforces it before the operation. */
static const uc_rule_t open_rule = { UC_TARGET_CALLER, { { 0, 0 } } };

static const uc_route_t small[] = {
    { UC_GET,    "/a",             op_a, 0, &open_rule },  /* 0 */
    { UC_POST,   "/a",             op_a, UC_ROUTE_BODY, &open_rule },  /* 1 */
    { UC_GET,    "/a/{x}",         op_a, 0, &open_rule },  /* 2 */
    { UC_DELETE, "/a/{x}",         op_a, 0, &open_rule },  /* 3 */
    { UC_GET,    "/a/{x}/b/{y}",   op_a, 0, &open_rule },  /* 4 */
    { UC_PUT,    "/c/literal",     op_a, 0, &open_rule },  /* 5 */
    { UC_GET,    "/c/{p}",         op_a, 0, &open_rule },  /* 6 */
    { UC_PATCH,  "/d/{p}/{q}/{r}", op_a, 0, &open_rule },  /* 7 */
    { 0, NULL, NULL, 0, NULL }
};

static const uc_route_t other[] = {
    { UC_GET,    "/other",         op_b, 0, &open_rule },  /* 0 */
    { UC_PUT,    "/a",             op_b, 0, &open_rule },  /* 1 */
    { 0, NULL, NULL, 0, NULL }
};

/* Routes whose first segment is a parameter, or that have none, among
 * literal ones: the router's index by first segment keeps the order of
 * the tables. */
static const uc_route_t param_first[] = {
    { UC_GET,  "/",        op_a, 0, &open_rule },  /* 0 */
    { UC_GET,  "/{any}",   op_a, 0, &open_rule },  /* 1 */
    { UC_GET,  "/lit",     op_b, 0, &open_rule },  /* 2: 1 comes first */
    { UC_POST, "/lit",     op_a, 0, &open_rule },  /* 3 */
    { UC_PUT,  "/{any}/x", op_a, 0, &open_rule },  /* 4 */
    { 0, NULL, NULL, 0, NULL }
};
static const uc_route_t *const param_first_api[] = { param_first, NULL };

/* A route that forgot its rule. */
static int ran_unruled;

static uc_error_t *op_unruled(uc_call_t *call, uc_jw_t *out)
{
    (void)call;
    ran_unruled = 1;
    uc_jw_string(out, "ran");
    return NULL;
}

static const uc_route_t unruled[] = {
    { UC_GET, "/unruled", op_unruled, 0, NULL },
    { 0, NULL, NULL, 0, NULL }
};

static const uc_route_t *const small_api[] = { small, NULL };
static const uc_route_t *const two_api[] = { small, other, NULL };

static void match(apr_pool_t *pool, uc_method_t m, const char *path,
                  uc_route_match_t *out)
{
    /* Poison the output: the router must reset every field. */
    memset(out, 0xA5, sizeof(*out));
    uc_router_match(pool, uc_router_make(pool, small_api), m, path, out);
}

static void assert_no_params(const uc_route_match_t *m)
{
    int i;
    for (i = 0; i < UC_ROUTE_MAX_PARAMS; i++)
        assert_null(m->params[i]);
}

static void test_literal(void **state)
{
    apr_pool_t *pool = *state;
    uc_route_match_t m;

    match(pool, UC_GET, "/a", &m);
    assert_ptr_equal(m.route, &small[0]);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST));
    assert_no_params(&m);

    match(pool, UC_POST, "/a", &m);
    assert_ptr_equal(m.route, &small[1]);
    assert_no_params(&m);

    match(pool, UC_PUT, "/c/literal", &m);
    assert_ptr_equal(m.route, &small[5]);
    assert_no_params(&m);
    assert_int_equal(m.allowed, BIT(UC_PUT) | BIT(UC_GET));
}

static void test_params(void **state)
{
    apr_pool_t *pool = *state;
    uc_route_match_t m;

    match(pool, UC_GET, "/a/foo", &m);
    assert_ptr_equal(m.route, &small[2]);
    assert_string_equal(m.params[0], "foo");
    assert_null(m.params[1]);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_DELETE));

    match(pool, UC_DELETE, "/a/foo.bar", &m);
    assert_ptr_equal(m.route, &small[3]);
    assert_string_equal(m.params[0], "foo.bar");

    match(pool, UC_GET, "/a/first/b/second", &m);
    assert_ptr_equal(m.route, &small[4]);
    assert_string_equal(m.params[0], "first");
    assert_string_equal(m.params[1], "second");
    assert_null(m.params[2]);
    assert_int_equal(m.allowed, BIT(UC_GET));

    match(pool, UC_PATCH, "/d/1/2/3", &m);
    assert_ptr_equal(m.route, &small[7]);
    assert_string_equal(m.params[0], "1");
    assert_string_equal(m.params[1], "2");
    assert_string_equal(m.params[2], "3");
    assert_null(m.params[3]);

    /* A parameter pattern also takes a segment that equals a literal of
     * another route; both paths count towards Allow. */
    match(pool, UC_GET, "/c/literal", &m);
    assert_ptr_equal(m.route, &small[6]);
    assert_string_equal(m.params[0], "literal");
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_PUT));

    /* A literal segment does not match a different literal. */
    match(pool, UC_GET, "/a/x/c/y", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, 0);
}

static void test_params_do_not_alias_input(void **state)
{
    apr_pool_t *pool = *state;
    uc_route_match_t m;
    char path[] = "/a/one/b/two";

    match(pool, UC_GET, path, &m);
    assert_ptr_equal(m.route, &small[4]);
    /* The router works on a copy: the caller's buffer is left as it was. */
    assert_string_equal(path, "/a/one/b/two");
    memset(path, 'z', sizeof(path) - 1);
    assert_string_equal(m.params[0], "one");
    assert_string_equal(m.params[1], "two");
}

static void test_trailing_slash(void **state)
{
    apr_pool_t *pool = *state;
    uc_route_match_t m;

    match(pool, UC_GET, "/a/", &m);
    assert_ptr_equal(m.route, &small[0]);

    match(pool, UC_GET, "/a/foo/", &m);
    assert_ptr_equal(m.route, &small[2]);
    assert_string_equal(m.params[0], "foo");

    match(pool, UC_GET, "/a/x/b/y/", &m);
    assert_ptr_equal(m.route, &small[4]);
    assert_string_equal(m.params[1], "y");
}

static void test_empty_segments(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const paths[] = {
        "//a", "/a//", "/a//foo", "//a/foo", "/a/foo//", "/a/x//b/y",
        "/a/x/b//y", "/a/x/b/y//", "///", NULL
    };
    uc_route_match_t m;
    int i;

    for (i = 0; paths[i]; i++) {
        match(pool, UC_GET, paths[i], &m);
        if (m.route || m.allowed)
            fail_msg("path %s matched (route %p, allowed %#x)", paths[i],
                     (const void *)m.route, m.allowed);
    }
}

static void test_unknown_path(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const paths[] = {
        "/nope", "/", "", "/A", "/a/foo/b", "/a/foo/b/bar/baz", "/ab",
        "/c", "/d/1/2", "/d/1/2/3/4", "/catalogs", NULL
    };
    uc_route_match_t m;
    int i;

    for (i = 0; paths[i]; i++) {
        match(pool, UC_GET, paths[i], &m);
        if (m.route || m.allowed)
            fail_msg("path '%s' matched (route %p, allowed %#x)", paths[i],
                     (const void *)m.route, m.allowed);
        assert_no_params(&m);
    }
}

static void test_too_many_segments(void **state)
{
    apr_pool_t *pool = *state;
    uc_route_match_t m;
    const char *path = "/a";
    int i;

    for (i = 0; i < 40; i++)
        path = apr_pstrcat(pool, path, "/x", NULL);
    match(pool, UC_GET, path, &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, 0);
}

static void test_other_method(void **state)
{
    apr_pool_t *pool = *state;
    uc_route_match_t m;

    match(pool, UC_PATCH, "/a", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST));
    assert_no_params(&m);

    match(pool, UC_POST, "/a/foo", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_DELETE));
    assert_no_params(&m);

    match(pool, UC_PUT, "/c/other", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET));
}

static void test_several_tables(void **state)
{
    apr_pool_t *pool = *state;
    const uc_router_t *two = uc_router_make(pool, two_api);
    uc_route_match_t m;

    uc_router_match(pool, two, UC_GET, "/other", &m);
    assert_ptr_equal(m.route, &other[0]);
    assert_int_equal(m.allowed, BIT(UC_GET));

    /* Allowed methods are collected over every table. */
    uc_router_match(pool, two, UC_PUT, "/a", &m);
    assert_ptr_equal(m.route, &other[1]);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST) | BIT(UC_PUT));

    uc_router_match(pool, two, UC_DELETE, "/a", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST) | BIT(UC_PUT));
}

static void test_allow_header(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(uc_router_allow_header(pool, BIT(UC_GET) |
                                               BIT(UC_POST)),
                        "GET, HEAD, POST");
    assert_string_equal(uc_router_allow_header(pool, BIT(UC_GET) |
                                               BIT(UC_PATCH) |
                                               BIT(UC_DELETE)),
                        "GET, HEAD, PATCH, DELETE");
    assert_string_equal(uc_router_allow_header(pool, BIT(UC_DELETE)),
                        "DELETE");
    assert_string_equal(uc_router_allow_header(pool, BIT(UC_POST) |
                                               BIT(UC_PUT)),
                        "POST, PUT");
    assert_string_equal(uc_router_allow_header(pool, BIT(UC_GET)),
                        "GET, HEAD");
    assert_string_equal(uc_router_allow_header(pool, (1u << UC_METHOD_COUNT)
                                               - 1),
                        "GET, HEAD, POST, PUT, PATCH, DELETE");
    assert_string_equal(uc_router_allow_header(pool, 0), "");
}

static void test_method_names(void **state)
{
    (void)state;
    assert_string_equal(uc_method_name(UC_GET), "GET");
    assert_string_equal(uc_method_name(UC_POST), "POST");
    assert_string_equal(uc_method_name(UC_PUT), "PUT");
    assert_string_equal(uc_method_name(UC_PATCH), "PATCH");
    assert_string_equal(uc_method_name(UC_DELETE), "DELETE");
}

static void test_run_without_transaction(void **state)
{
    apr_pool_t *pool = *state;
    uc_call_t call;
    uc_jw_t *out = uc_jw_make(pool, 16);
    uc_error_t *err;

    memset(&call, 0, sizeof(call));
    call.pool = pool;
    call.principal = "alice";
    call.who = uc_principal_make(pool, "alice", NULL, NULL);
    assert_ok(uc_call_run(&small[0], &call, out));
    assert_int_equal(out->len, 3);
    assert_memory_equal(out->buf, "\"a\"", 3);

    /* An operation's error drops what it wrote. */
    uc_jw_reset(out);
    err = uc_call_run(&other[0], &call, out);
    assert_err(err, 409, "ABORTED");
    assert_string_equal(err->message, "b ran");
    assert_int_equal(out->len, 0);
}

/* A route without a rule is refused before its operation runs. */
static void test_run_without_rule(void **state)
{
    apr_pool_t *pool = *state;
    uc_call_t call;
    uc_jw_t *out = uc_jw_make(pool, 16);
    uc_error_t *err;

    memset(&call, 0, sizeof(call));
    call.pool = pool;
    call.principal = "admin";
    /* Not even an admin gets through. */
    call.who = uc_principal_make(pool, "admin", NULL, NULL);
    ((uc_principal_t *)call.who)->admin = 1;
    ran_unruled = 0;
    err = uc_call_run(&unruled[0], &call, out);
    assert_err(err, 500, "INTERNAL_ERROR");
    assert_false(ran_unruled);
    assert_int_equal(out->len, 0);
}

/* --- the real catalog API table ----------------------------------------- */

/* Every route of the real API declares who may call it. */
static void test_catalog_api_every_route_has_rule(void **state)
{
    const uc_route_t *const *t;
    const uc_route_t *r;
    int n = 0;

    (void)state;
    for (t = uc_catalog_api; *t; t++)
        for (r = *t; r->pattern; r++, n++) {
            if (!r->rule)
                fail_msg("%s %s has no authorization rule",
                         uc_method_name(r->method), r->pattern);
            assert_true(r->rule->target <= UC_TARGET_PUBLIC);
        }
    assert_true(n >= 14);
}

static void test_parameter_first_routes_keep_their_order(void **state)
{
    apr_pool_t *pool = *state;
    const uc_router_t *router = uc_router_make(pool, param_first_api);
    uc_route_match_t m;

    uc_router_match(pool, router, UC_GET, "/", &m);
    assert_ptr_equal(m.route, &param_first[0]);
    assert_int_equal(m.allowed, BIT(UC_GET));
    uc_router_match(pool, router, UC_GET, "/lit", &m);
    assert_ptr_equal(m.route, &param_first[1]);
    assert_string_equal(m.params[0], "lit");
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST));
    uc_router_match(pool, router, UC_POST, "/lit", &m);
    assert_ptr_equal(m.route, &param_first[3]);
    uc_router_match(pool, router, UC_GET, "/other", &m);
    assert_ptr_equal(m.route, &param_first[1]);
    assert_int_equal(m.allowed, BIT(UC_GET));
    uc_router_match(pool, router, UC_PUT, "/lit/x", &m);
    assert_ptr_equal(m.route, &param_first[4]);
    uc_router_match(pool, router, UC_PUT, "/other/x", &m);
    assert_ptr_equal(m.route, &param_first[4]);
    assert_string_equal(m.params[0], "other");
    uc_router_match(pool, router, UC_DELETE, "/other", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET));
    uc_router_match(pool, router, UC_GET, "/other/y", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, 0);
}

static void test_catalog_api_methods(void **state)
{
    apr_pool_t *pool = *state;
    const uc_router_t *catalog = uc_router_make(pool, uc_catalog_api);
    uc_route_match_t m;

    uc_router_match(pool, catalog, UC_GET, "/catalogs", &m);
    assert_non_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST));
    assert_string_equal(uc_router_allow_header(pool, m.allowed),
                        "GET, HEAD, POST");

    uc_router_match(pool, catalog, UC_PUT, "/catalogs/main", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_PATCH) | BIT(UC_DELETE));

    uc_router_match(pool, catalog, UC_DELETE, "/catalogs/main/", &m);
    assert_non_null(m.route);
    assert_int_equal(m.route->method, UC_DELETE);
    assert_string_equal(m.params[0], "main");

    uc_router_match(pool, catalog, UC_GET, "/schemas", &m);
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_POST));
    uc_router_match(pool, catalog, UC_GET, "/schemas/a.b", &m);
    assert_non_null(m.route);
    assert_string_equal(m.params[0], "a.b");
    assert_int_equal(m.allowed, BIT(UC_GET) | BIT(UC_PATCH) | BIT(UC_DELETE));

    uc_router_match(pool, catalog, UC_POST, "/metastore_summary", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, BIT(UC_GET));

    uc_router_match(pool, catalog, UC_GET, "/catalogs//main", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, 0);
    uc_router_match(pool, catalog, UC_GET, "/nothing/here", &m);
    assert_null(m.route);
    assert_int_equal(m.allowed, 0);
}

/* --- every API's routes --------------------------------------------------- */

/* A path for `pattern`: each {x} segment becomes a value no pattern spells
 * ("~" is in none), the n-th "~<n>", which `values` returns in order. */
static const char *path_for(apr_pool_t *pool, const char *pattern,
                            const char **values)
{
    const char *path = "", *p = pattern;
    int n = 0;

    while (*p == '/') {
        const char *seg = p + 1, *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);

        if (*seg == '{') {
            assert_true(n < UC_ROUTE_MAX_PARAMS);
            assert_true(len > 2 && seg[len - 1] == '}');
            values[n] = apr_psprintf(pool, "~%d", n);
            path = apr_pstrcat(pool, path, "/", values[n++], NULL);
        }
        else
            path = apr_pstrcat(pool, path, "/",
                               apr_pstrmemdup(pool, seg, len), NULL);
        p = seg + len;
    }
    assert_true(*p == '\0');
    return path;
}

/* Each route is the one its own paths reach, in every API the glue mounts
 * (uc_mounts): a route listed after one that also matches its paths (a
 * more general pattern, a duplicate) would never run. Its {x} segments
 * come back in order. */
static void test_every_route_is_reachable(void **state)
{
    apr_pool_t *pool = *state;
    const uc_router_t *routers[UC_MOUNT_COUNT];
    const uc_route_t *const *t;
    const uc_route_t *r;
    int a;
    int n = 0;

    for (a = 0; a < UC_MOUNT_COUNT; a++)
        routers[a] = uc_router_make(pool, uc_mounts[a].routes);
    for (a = 0; a < UC_MOUNT_COUNT; a++)
        for (t = uc_mounts[a].routes; *t; t++)
            for (r = *t; r->pattern; r++, n++) {
                const char *values[UC_ROUTE_MAX_PARAMS] = { NULL };
                const char *path;
                uc_route_match_t m;
                int i;

                assert_non_null(r->operation);
                assert_true(r->method < UC_METHOD_COUNT);
                assert_true(r->pattern[0] == '/');
                /* A GET's body is never required: without one it reads
                 * the query string. */
                if (r->method == UC_GET && (r->flags & UC_ROUTE_BODY))
                    assert_true(r->flags & UC_ROUTE_BODY_OR_QUERY);
                path = path_for(pool, r->pattern, values);
                uc_router_match(pool, routers[a], r->method, path, &m);
                if (m.route != r)
                    fail_msg("%s API: %s %s (as %s) reaches %s %s",
                             uc_mounts[a].name, uc_method_name(r->method),
                             r->pattern, path,
                             m.route ? uc_method_name(m.route->method)
                                     : "nothing",
                             m.route ? m.route->pattern : "");
                assert_true(m.allowed & BIT(r->method));
                for (i = 0; i < UC_ROUTE_MAX_PARAMS; i++)
                    if (values[i])
                        assert_string_equal(m.params[i], values[i]);
                    else
                        assert_null(m.params[i]);
            }
    assert_true(n >= 100);
}

/* Whether two patterns match the same paths: segment by segment, both
 * {parameters} or the same literal. */
static int same_paths(const char *a, const char *b)
{
    while (*a && *b) {
        size_t la = strcspn(a + 1, "/") + 1, lb = strcspn(b + 1, "/") + 1;

        if (a[1] == '{' ? b[1] != '{'
                        : la != lb || memcmp(a, b, la) != 0)
            return 0;
        a += la;
        b += lb;
    }
    return !*a && !*b;
}

/* No two routes of an API have the same method and patterns that match the
 * same paths ("/shares/{name}" and "/shares/{share}" do). */
static void test_no_route_twice(void **state)
{
    const uc_route_t *const *t1, *const *t2;
    const uc_route_t *x, *y;
    int a;

    (void)state;
    for (a = 0; a < UC_MOUNT_COUNT; a++)
        for (t1 = uc_mounts[a].routes; *t1; t1++)
            for (x = *t1; x->pattern; x++)
                for (t2 = uc_mounts[a].routes; *t2; t2++)
                    for (y = *t2; y->pattern; y++)
                        if (x != y && x->method == y->method &&
                            same_paths(x->pattern, y->pattern))
                            fail_msg("%s API: %s %s and %s", uc_mounts[a].name,
                                     uc_method_name(x->method), x->pattern,
                                     y->pattern);
    assert_true(same_paths("/shares/{name}", "/shares/{share}"));
    assert_false(same_paths("/shares/{name}", "/shares/all"));
    assert_false(same_paths("/shares/{name}", "/shares/{name}/schemas"));
    assert_false(same_paths("/shares", "/sharesx"));
}

/* The POST routes that only read: asking, not changing (an asynchronous
 * query's row is the server's state of a read, not a change). */
static int reads_only(const uc_route_t *r)
{
    static const char *const reads[] = {
        "/action/batch-check",
        "/shares/{share}/schemas/{schema}/tables/{table}/query",
        "/shares/{share}/schemas/{schema}/tables/{table}/queries/{query}",
        /* A writer's report of its commit, counted, not kept. */
        "/delta/v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/metrics",
        NULL
    };
    int i;

    for (i = 0; reads[i]; i++)
        if (strcmp(r->pattern, reads[i]) == 0)
            return 1;
    return 0;
}

/* Every route that can change something has the name the audit log gives
 * it, on every API: a new POST, PATCH or DELETE without one fails here. */
static void test_every_change_is_audited(void **state)
{
    const uc_route_t *const *t;
    const uc_route_t *r;
    int n = 0;
    int a;

    (void)state;
    for (a = 0; a < UC_MOUNT_COUNT; a++)
        for (t = uc_mounts[a].routes; *t; t++)
            for (r = *t; r->pattern; r++) {
                if (r->method != UC_GET && !r->audit && !reads_only(r))
                    fail_msg("%s %s changes things but has no audit name",
                             uc_method_name(r->method), r->pattern);
                n += r->audit != NULL;
            }
    assert_true(n >= 60);
}

static void test_route_family(void **state)
{
    static const struct { const char *pattern, *family; } cases[] = {
        { "/catalogs", "catalogs" },
        { "/catalogs/{name}", "catalogs" },
        { "/tables/{full_name}/exists", "tables/exists" },
        { "/models/{full_name}/versions/{version}", "models/versions" },
        { "/models/{full_name}/versions/{version}/finalize",
          "models/finalize" },
        { "/shares/{share}/schemas/{schema}/tables/{table}/query",
          "shares/query" },
        { "/public/data_sharing_activation/{nonce}",
          "public/data_sharing_activation" },
        { "/{x}", "/" },
        { "/", "/" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uc_route_t r = { UC_GET, cases[i].pattern, op_a, 0, &open_rule };
        assert_string_equal(uc_route_family(*state, &r), cases[i].family);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_literal),
        UC_POOL_TEST(test_params),
        UC_POOL_TEST(test_params_do_not_alias_input),
        UC_POOL_TEST(test_trailing_slash),
        UC_POOL_TEST(test_empty_segments),
        UC_POOL_TEST(test_unknown_path),
        UC_POOL_TEST(test_too_many_segments),
        UC_POOL_TEST(test_other_method),
        UC_POOL_TEST(test_several_tables),
        UC_POOL_TEST(test_allow_header),
        UC_POOL_TEST(test_method_names),
        UC_POOL_TEST(test_run_without_transaction),
        UC_POOL_TEST(test_run_without_rule),
        UC_POOL_TEST(test_every_route_is_reachable),
        UC_POOL_TEST(test_no_route_twice),
        UC_POOL_TEST(test_parameter_first_routes_keep_their_order),
        UC_POOL_TEST(test_catalog_api_methods),
        UC_POOL_TEST(test_catalog_api_every_route_has_rule),
        UC_POOL_TEST(test_every_change_is_audited),
        UC_POOL_TEST(test_route_family),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("router", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
