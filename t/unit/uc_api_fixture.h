/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog API end to end without httpd, shared by test_api.c and
 * test_authz.c: a call is built the way the glue builds it (query table,
 * parsed body, principal with groups and admin flag, store, clock), routed
 * through uc_catalog_api and run against a temporary SQLite file. */
#ifndef UC_API_FIXTURE_H
#define UC_API_FIXTURE_H

#include "uc_test.h"

#include <apr_tables.h>
#include <apr_time.h>

#include "../../src/api/uc_api.h"
#include "../../src/mounts/uc_mounts.h"
#include "../../src/http/uc_run.h"
#include "../../src/cloud/uc_cloud_settings.h"
#include "../../src/core/uc_json.h"
#include "../../src/core/uc_secret.h"
#include "../../src/http/uc_query.h"
#include "../../src/http/uc_render.h"
#include "../../src/http/uc_router.h"
#include "../../src/store/uc_store.h"

typedef struct afx {
    apr_pool_t *pool;
    uc_test_db_t *db;
    uc_test_conn_t *conn;
    apr_time_t now;
    const char *principal;
    /* The caller's groups (NULL: none) and the metastore admins (user and
     * group names, NULL: none). With principal_is_admin set the current
     * principal is an admin too, whatever its name. */
    apr_array_header_t *groups;
    apr_array_header_t *admins;
    int principal_is_admin;
    /* The API the calls go to: NULL for the catalog API. */
    const uc_route_t *const *routes;
    /* UnicatManagedStorageRoot, NULL: none. */
    const char *storage_root;
} afx_t;


static inline int setup(void **state)
{
    afx_t *fx = calloc(1, sizeof(*fx));

    apr_pool_create(&fx->pool, uc_test_global_pool);
    fx->db = uc_test_db_create(fx->pool);
    fx->conn = uc_test_db_connect(fx->db);
    fx->now = apr_time_from_sec(1700000000) + apr_time_from_msec(123);
    fx->principal = "alice";
    fx->principal_is_admin = 1;
    *state = fx;
    return 0;
}

static inline int teardown(void **state)
{
    afx_t *fx = *state;

    uc_test_db_disconnect(fx->db, fx->conn);
    uc_test_db_remove(fx->db);
    apr_pool_destroy(fx->pool);
    free(fx);
    return 0;
}

#define API_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static inline uc_store_t *attach(afx_t *fx, apr_pool_t *pool)
{
    uc_store_t *store = NULL;
    assert_ok(uc_store_attach(pool, fx->db->driver, fx->conn->handle,
                              fx->conn->pool, fx->conn->prepared, NULL,
                              NULL, &store));
    return store;
}

/* The caller as the glue would build it. */
static inline const uc_principal_t *afx_principal(afx_t *fx, apr_pool_t *pool)
{
    apr_array_header_t *admins = apr_array_make(pool, 4, sizeof(const char *));
    apr_array_header_t *groups = apr_array_make(pool, 4, sizeof(const char *));

    if (fx->admins)
        apr_array_cat(admins, fx->admins);
    if (fx->principal_is_admin)
        APR_ARRAY_PUSH(admins, const char *) = fx->principal;
    if (fx->groups)
        apr_array_cat(groups, fx->groups);
    return uc_principal_make(pool, fx->principal, groups, admins);
}

/* Runs "METHOD /path?query" with an optional JSON body. The answer lives in
 * a pool of its own that lasts until the end of the test. Every error is
 * rendered too, as the glue would. */
/* The glue's defaults for cloud calls; no cache, so that every vend is
 * made again. */
static const uc_cloud_settings_t afx_cloud = {
    .timeout_ms = 10000, .lifetime_s = 3600
};

/* A sealing key of the tests' (UnicatSecretKeyFile), the sharing endpoint
 * recipients' profiles name (UnicatSharingEndpoint) and the API's own
 * URL, as the glue gives them. */
static uc_secret_key_t afx_key = { "0badc0de", { 1, 2, 3, 4, 5, 6, 7, 8 } };
static const uc_secret_keys_t afx_keys = { 1, &afx_key };
#define AFX_SHARING_ENDPOINT "https://sharing.test/delta-sharing/"
#define AFX_API_URL "http://unicat.test/api/2.1/unity-catalog"

static inline uc_error_t *
api(afx_t *fx, uc_method_t method, const char *target,
                       const char *body, json_t **out)
{
    apr_pool_t *cp;
    uc_call_t *call;
    uc_route_match_t *match;
    const char *q = strchr(target, '?');
    uc_error_t *err;

    apr_pool_create(&cp, fx->pool);
    call = apr_pcalloc(cp, sizeof(*call));
    match = apr_pcalloc(cp, sizeof(*match));
    *out = NULL;
    call->pool = cp;
    call->method = method;
    call->path = q ? apr_pstrndup(cp, target, (apr_size_t)(q - target))
                   : target;
    call->principal = fx->principal;
    call->who = afx_principal(fx, cp);
    call->now = fx->now;
    call->storage_root = fx->storage_root;
    call->cloud = &afx_cloud;
    call->secrets = &afx_keys;
    call->sharing_endpoint = AFX_SHARING_ENDPOINT;
    call->api_url = AFX_API_URL;
    /* Providers may be on this host (UnicatProviderPrivateAddresses On),
     * as on the HTTP tests' main mount: their sharing servers are local
     * stand-ins or ports nothing listens on. */
    call->provider_private_addresses = 1;
    err = uc_query_parse(cp, q ? q + 1 : NULL, &call->query);
    if (!err)
        call->store = attach(fx, cp);
    if (!err) {
        uc_router_match(cp, uc_router_make(cp, fx->routes ? fx->routes
                                                          : uc_catalog_api),
                        method, call->path, match);
        if (!match->route)
            err = uc_render_httpd_error(cp, match->allowed ? 405 : 404);
    }
    if (!err && body)
        err = uc_call_read_body(match->route, call, body, strlen(body));
    if (!err) {
        uc_jw_t *w = uc_jw_make(cp, 256);
        call->params = match->params;
        err = uc_call_run(match->route, call, w);
        /* What goes on the wire must be one JSON document, or nothing
         * (204). */
        if (!err && call->status == 204 && w->len)
            fail_msg("%s %s: a 204 with a body", uc_method_name(method),
                     target);
        if (!err && call->status == 204)
            *out = uc_json_own(cp, json_object());
        else if (!err) {
            json_error_t jerr;
            *out = uc_json_own(cp, json_loadb(w->buf, w->len, 0, &jerr));
            if (!*out)
                fail_msg("%s %s: the answer is not JSON (%s): %.*s",
                         uc_method_name(method), target, jerr.text,
                         (int)w->len, w->buf);
        }
        else if (w->len)
            fail_msg("%s %s: an error left output behind",
                     uc_method_name(method), target);
    }
    if (err) {
        json_t *rendered = uc_render_catalog_error(cp, err);
        if (!rendered)
            fail_msg("%s %s: error %s could not be rendered",
                     uc_method_name(method), target, err->code);
        *out = NULL;
        return err;
    }
    if (!*out || !json_is_object(*out))
        fail_msg("%s %s: no JSON object", uc_method_name(method), target);
    return NULL;
}

static inline json_t *api_ok(afx_t *fx, uc_method_t method, const char *target,
                      const char *body)
{
    json_t *out = NULL;
    uc_error_t *err = api(fx, method, target, body, &out);
    if (err)
        fail_msg("%s %s %s: %d %s: %s", uc_method_name(method), target,
                 body ? body : "", err->status, err->code, err->message);
    return out;
}

static inline uc_error_t *
api_err(afx_t *fx, uc_method_t method, const char *target,
                           const char *body, int status, const char *code)
{
    json_t *out = NULL;
    uc_error_t *err = api(fx, method, target, body, &out);
    if (!err)
        fail_msg("%s %s %s: expected %d %s, got %s", uc_method_name(method),
                 target, body ? body : "", status, code,
                 uc_json_dump(fx->pool, out));
    if (err->status != status || strcmp(err->code, code) != 0)
        fail_msg("%s %s %s: expected %d %s, got %d %s: %s",
                 uc_method_name(method), target, body ? body : "", status,
                 code, err->status, err->code, err->message);
    return err;
}

static inline const char *jstr(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("no field '%s'", key);
    if (json_is_null(v))
        return NULL;
    if (!json_is_string(v))
        fail_msg("field '%s' is not a string", key);
    return json_string_value(v);
}

static inline json_int_t jint(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        fail_msg("field '%s' is not an integer", key);
    return json_integer_value(v);
}

#define assert_jstr(obj, key, want) do {                                    \
        const char *got_ = jstr((obj), (key)), *want_ = (want);             \
        if (!want_ ? got_ != NULL : !got_ || strcmp(got_, want_) != 0)      \
            fail_msg("%s:%d: %s is %s%s%s, expected %s", __FILE__, __LINE__, \
                     key, got_ ? "'" : "", got_ ? got_ : "null",            \
                     got_ ? "'" : "", want_ ? want_ : "null");              \
    } while (0)

static inline json_int_t now_ms(afx_t *fx)
{
    return (json_int_t)apr_time_as_msec(fx->now);
}

#endif
