/* SPDX-License-Identifier: Apache-2.0 */
/* Where a route's rule, its transaction and its operation meet: the one
 * place above the router, authorization and the store alike. */
#include "uc_run.h"

#include <string.h>

#include "../authz/uc_authz.h"
#include "../core/uc_answer_cache.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"
#include "../store/uc_catalog_version.h"
#include "../store/uc_store.h"

uc_error_t *uc_call_read_body(const uc_route_t *route, uc_call_t *call,
                              const char *data, size_t len)
{
    if (route->flags & UC_ROUTE_BODY_TREE)
        return uc_json_parse_tree(call->pool, data, len, &call->tree);
    return uc_json_parse_object(call->pool, data, len, &call->body);
}

static uc_error_t *unwrap_envelope(const uc_route_t *route, uc_call_t *call)
{
    json_t *inner;
    uc_error_t *err;

    if (!route->envelope || !call->body)
        return NULL;
    if ((err = uc_json_object_field(call->pool, call->body, route->envelope,
                                    &inner)))
        return err;
    if (inner)
        call->body = inner;
    return NULL;
}

static uc_error_t *authorize(const uc_route_t *route, uc_call_t *call)
{
    uc_error_t *err;

    call->family = route->family;
    if ((err = unwrap_envelope(route, call)))
        return err;
    return uc_authz_enforce(call, route->rule);
}

static uc_error_t *authorize_and_run(const uc_route_t *route,
                                     uc_call_t *call, uc_jw_t *out)
{
    uc_error_t *err = authorize(route, call);

    return err ? err : route->operation(call, out);
}

/* One piece of a key, its length first: no two different calls make the
 * same key, whatever bytes their pieces hold. */
static void key_piece(uc_jw_t *key, const char *s, apr_size_t len)
{
    uc_jw_digits(key, (apr_int64_t)len);
    uc_jw_text_n(key, ":", 1);
    uc_jw_text_n(key, s, len);
}

static void key_string(uc_jw_t *key, const char *s)
{
    key_piece(key, s ? s : "", s ? strlen(s) : 0);
}

/* Everything a kept answer is made of besides the database: where it is
 * answered from, the route, the path and the query, and the caller. The
 * key opens with a length: what else the cache keeps (uc_vend.c) opens
 * with a letter. */
static uc_jw_t *answer_key(const uc_route_t *route, const uc_call_t *call)
{
    uc_jw_t *key = uc_jw_make(call->pool, 256);
    const apr_array_header_t *q = apr_table_elts(call->query);
    const apr_table_entry_t *e = (const apr_table_entry_t *)q->elts;
    int i;

    key_piece(key, (const char *)&call->answers_scope,
              sizeof(call->answers_scope));
    key_string(key, route->pattern);
    key_string(key, call->path);
    for (i = 0; i < q->nelts; i++) {
        key_string(key, e[i].key);
        key_string(key, e[i].val);
    }
    uc_jw_text_n(key, call->who->admin ? "A" : "-", 1);
    key_string(key, call->who->json);
    return key;
}

/* A route whose answer may be kept: the catalog's version is read before
 * anything the answer is made of (the rule's lookups included), so an
 * answer made now holds what was committed at that version or later. An
 * answer is kept only for a caller the rule allowed, and the rule reads
 * nothing but the database and what the key holds (the route, the path,
 * the query, the caller's principals and admin standing): at the same
 * version it allows the same caller again, so a kept answer is given
 * without asking it. A refusal or a hidden object is never kept: those
 * calls run the rule every time. Kept routes are reads, which write no
 * audit line. */
static uc_error_t *run_kept(const uc_route_t *route, uc_call_t *call,
                            uc_jw_t *out)
{
    apr_int64_t version;
    const char *answer;
    apr_size_t len;
    uc_jw_t *key;
    uc_error_t *err;

    if ((err = uc_catalog_version_read_shared(call->version_gate, call->store,
                                              call->pool, &version)))
        return err;
    key = answer_key(route, call);
    answer = uc_answer_cache_get(call->answers, key->buf, key->len, version,
                                 call->pool, &len);
    uc_metrics_add(call->metrics,
                   answer ? UC_M_ANSWER_HITS : UC_M_ANSWER_MISSES, 1);
    if (answer) {
        uc_jw_borrow(out, answer, len);
        return NULL;
    }
    if ((err = authorize_and_run(route, call, out)))
        return err;
    uc_answer_cache_put(call->answers, key->buf, key->len, version,
                        out->buf, out->len);
    return NULL;
}

/* The rule, then the operation, or the answer kept for the call. */
static uc_error_t *run(const uc_route_t *route, uc_call_t *call,
                       uc_jw_t *out)
{
    if ((route->flags & UC_ROUTE_KEPT) && call->answers && call->who)
        return run_kept(route, call, out);
    return authorize_and_run(route, call, out);
}

/* The transaction the route asks for. */
static uc_error_t *begin(const uc_route_t *route, uc_store_t *store)
{
    if (route->flags & UC_ROUTE_TXN)
        return uc_store_begin(store);
    if (route->flags & UC_ROUTE_READ_TXN)
        return uc_store_begin_read(store);
    return uc_store_begin_reads(store);
}

uc_error_t *uc_call_run(const uc_route_t *route, uc_call_t *call,
                        uc_jw_t *out)
{
    uc_error_t *err;

    if (!(route->flags &
          (UC_ROUTE_TXN | UC_ROUTE_READ_TXN | UC_ROUTE_READS)))
        err = run(route, call, out);
    else if (!(err = begin(route, call->store)))
        err = uc_store_end(call->store, run(route, call, out));
    if (err)
        uc_jw_reset(out);
    return err;
}
