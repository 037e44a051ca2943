/* SPDX-License-Identifier: Apache-2.0 */
/* The request path of the three APIs on fuzzed requests: the catalog
 * API, the authorization API (whose batch-check weighs checks against the
 * same catalog) and the Delta Sharing API as a recipient calls it (query
 * bodies, predicate hints, versions and timestamps), with the router, the
 * query-string parser, JSON bodies and their envelopes, every
 * operation's input checks, its rule, its transaction and its store, and
 * the rendering of its answer or error; and the lookup of recipients'
 * bearer tokens. Calls run against one SQLite catalog that lives as long
 * as the process, so that one input's creates give later inputs something
 * to find (the seeds make a share and grant it to the recipient fz_rcp,
 * the sharing API's caller).
 *
 * Input: a byte choosing the method (low 3 bits), the caller (bit 3: an
 * admin, or alice, who holds nothing) and the API (bit 4: the
 * authorization API; bit 5: the sharing API; else the catalog API; bit 6:
 * no call, the text is a bearer token to look up), then "path?query" up
 * to the first NUL, then the body (none when empty). Whatever is asked,
 * the call must end in one JSON document (NDJSON lines for the sharing
 * API's streamed answers) or an error the glue can render, leaving no
 * output behind an error and no transaction open. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>
#include <apr_dbd.h>
#include <apr_strings.h>

#include "api/uc_api.h"
#include "authz/uc_access.h"
#include "authz/uc_batch_check.h"
#include "http/uc_run.h"
#include "cloud/uc_cloud_settings.h"
#include "core/uc_json.h"
#include "core/uc_secret.h"
#include "http/uc_out.h"
#include "http/uc_query.h"
#include "http/uc_render.h"
#include "http/uc_router.h"
#include "mounts/uc_mounts.h"
#include "sharing/uc_sharing_api.h"
#include "store/uc_recipient_tokens.h"
#include "store/uc_store.h"

static const apr_dbd_driver_t *driver;
static apr_dbd_t *handle;
static apr_pool_t *conn_pool;
static apr_hash_t *prepared;

static const uc_cloud_settings_t cloud = { .timeout_ms = 1, .lifetime_s = 60 };
static uc_secret_key_t key = { "f022", { 1, 2, 3, 4, 5, 6, 7, 8 } };
static const uc_secret_keys_t keys = { 1, &key };

/* At exit the connection closes, so that the leak check sees only what
 * an input left behind. */
static void close_db(void)
{
    apr_dbd_close(driver, handle);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *error = NULL;
    apr_pool_t *root = fuzz_root_pool();

    (void)argc;
    (void)argv;
    if (apr_pool_create(&conn_pool, root) != APR_SUCCESS ||
        apr_dbd_init(root) != APR_SUCCESS ||
        apr_dbd_get_driver(root, "sqlite3", &driver) != APR_SUCCESS ||
        apr_dbd_open_ex(driver, conn_pool,
                        apr_pstrcat(root, fuzz_table_dir("request"),
                                    "/catalog.db", NULL),
                        &handle, &error) != APR_SUCCESS)
        abort();
    atexit(close_db);
    prepared = apr_hash_make(conn_pool);
    return 0;
}

static const uc_principal_t *caller(apr_pool_t *pool, int admin)
{
    apr_array_header_t *admins = apr_array_make(pool, 1, sizeof(char *));

    APR_ARRAY_PUSH(admins, const char *) = "admin";
    return uc_principal_make(pool, admin ? "admin" : "alice",
                             apr_array_make(pool, 1, sizeof(char *)),
                             admins);
}

/* The sharing API's caller: the recipient fz_rcp when the seeds made it,
 * else one that does not exist. */
static void as_recipient(uc_call_t *call)
{
    uc_securable_t *rcp = NULL;

    call->recipient_name = "fz_rcp";
    call->recipient_id = "00000000-0000-4000-8000-00000000f022";
    call->principal = call->recipient_name;
    if (!uc_securable_get(call->store, call->pool,
                          uc_store_metastore_id(call->store),
                          UC_KIND_RECIPIENT, "fz_rcp", UC_LOCK_SHARE, &rcp) &&
        rcp)
        call->recipient_id = rcp->id;
}

/* Each line of an NDJSON answer is one JSON object. */
static void check_lines(const char *buf, apr_size_t len)
{
    const char *p = buf, *end = buf + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        json_t *line = json_loadb(p, (size_t)((nl ? nl : end) - p), 0, NULL);
        if (!json_is_object(line))
            abort();
        json_decref(line);
        p = nl ? nl + 1 : end;
    }
}

static uc_error_t *run(apr_pool_t *pool, const uc_route_t *const *api,
                       uc_method_t method, int admin, const char *target,
                       const char *body, size_t len)
{
    uc_call_t *call = apr_pcalloc(pool, sizeof(*call));
    uc_route_match_t *match = apr_pcalloc(pool, sizeof(*match));
    const char *q = strchr(target, '?');
    uc_jw_t *out = uc_jw_make(pool, 256);
    int sharing = api == uc_sharing_api;
    json_t *answer;
    uc_error_t *err;

    call->pool = pool;
    call->method = method;
    call->path = q ? apr_pstrndup(pool, target, (apr_size_t)(q - target))
                   : target;
    call->who = caller(pool, admin);
    call->principal = call->who->name;
    call->now = apr_time_now();
    call->cloud = &cloud;
    call->secrets = &keys;
    call->sharing_endpoint = "https://sharing.test/delta-sharing/";
    call->api_url = "http://unicat.test/api/2.1/unity-catalog";
    call->headers_in = apr_table_make(pool, 1);
    call->headers_out = apr_table_make(pool, 1);
    call->url_lifetime = 60;
    if ((err = uc_query_parse(pool, q ? q + 1 : NULL, &call->query)) ||
        (err = uc_store_attach(pool, driver, handle, conn_pool, prepared,
                               NULL, NULL, &call->store)))
        return err;
    if (sharing)
        as_recipient(call);
    uc_router_match(pool, uc_router_make(pool, api), method, call->path,
                    match);
    if (!match->route)
        return uc_render_httpd_error(pool, match->allowed ? 405 : 404);
    if (len && (err = uc_call_read_body(match->route, call, body, len)))
        return err;
    call->params = match->params;
    call->out = uc_out_buffered(pool, 256);
    out = call->out->jw;
    err = uc_out_finish(call->out, uc_call_run(match->route, call, out));
    if (err && out->len)
        abort();
    if (err)
        return err;
    if (match->route->flags & UC_ROUTE_STREAM) {
        check_lines(out->buf, out->len);
        return NULL;
    }
    /* A 204 has no body at all. */
    if (call->status == 204) {
        if (out->len)
            abort();
        return NULL;
    }
    answer = json_loadb(out->buf, out->len, 0, NULL);
    if (!json_is_object(answer))
        abort();
    json_decref(answer);
    return NULL;
}

/* A bearer token as the sharing server's authentication gets it: found
 * or not, never an error but the database's. */
static uc_error_t *lookup_token(apr_pool_t *pool, const char *token)
{
    uc_store_t *store;
    const char *id = NULL;
    uc_error_t *err = uc_store_attach(pool, driver, handle, conn_pool,
                                      prepared, NULL, NULL, &store);

    if (!err)
        err = uc_recipient_token_lookup(store, pool, &keys, token,
                                        apr_time_now(), &id);
    if (err && err->status < 500)
        abort();
    return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uc_method_t methods[] = { UC_GET, UC_POST, UC_PATCH,
                                           UC_DELETE, UC_PUT };
    apr_pool_t *pool;
    const char *text, *nul;
    int authz, sharing;
    uc_error_t *err;

    if (size < 2)
        return 0;
    apr_pool_create(&pool, fuzz_root_pool());
    text = apr_pstrmemdup(pool, (const char *)data + 1, size - 1);
    nul = memchr(text, '\0', size - 1);
    if (data[0] & 64) {
        fuzz_report("request", lookup_token(pool, text));
        apr_pool_destroy(pool);
        return 0;
    }
    authz = data[0] & 16;
    sharing = !authz && (data[0] & 32);
    err = run(pool, authz ? uc_authz_api : sharing ? uc_sharing_api
                                                   : uc_catalog_api,
              methods[(data[0] & 7) % 5], !(data[0] & 8), text,
              nul ? nul + 1 : "", nul ? size - 1 - (size_t)(nul + 1 - text)
                                      : 0);
    fuzz_report("request", err);
    if (err && !(authz ? uc_render_lakekeeper_error(pool, err)
                 : sharing ? uc_render_sharing_error(pool, err)
                           : uc_render_catalog_error(pool, err)))
        abort();
    if (err && err->status >= 500 && err->status != 502 &&
        err->status != 503)
        abort();
    apr_pool_destroy(pool);
    return 0;
}
