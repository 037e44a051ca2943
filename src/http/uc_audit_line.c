/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_audit_line.h"

#include <apr_strings.h>

#include "../core/uc_time.h"
#include "uc_router.h"

/* The securable the rule resolved, dotted from its catalog (or other top
 * securable) down; a column of a tagged table after it. */
static void chain_subject(apr_pool_t *pool, const uc_call_t *call,
                          const char **type, const char **name)
{
    const uc_chain_t *chain = &call->chain;
    const char *full = chain->sec[chain->n > 1]->name;
    int i;

    for (i = 2; i < chain->n; i++)
        full = apr_pstrcat(pool, full, ".", chain->sec[i]->name, NULL);
    *type = uc_securable_type_name(chain->type[chain->n - 1]);
    if (call->column) {
        full = apr_pstrcat(pool, full, ".", call->column, NULL);
        *type = "column";
    }
    *name = full;
}

void uc_audit_event_of(apr_pool_t *pool, const uc_call_t *call,
                       const uc_route_t *route, const uc_error_t *err,
                       uc_audit_event_t *ev)
{
    ev->principal = call->principal;
    ev->recipient = call->recipient_name != NULL;
    ev->client_address = call->client_ip;
    ev->operation = route->audit;
    ev->route = apr_pstrcat(pool, uc_method_name(route->method), " ",
                            route->pattern, NULL);
    ev->securable_type = call->audit_type;
    ev->full_name = call->audit_name;
    if (!ev->full_name && call->chain.n > 0)
        chain_subject(pool, call, &ev->securable_type, &ev->full_name);
    ev->error_code = err ? err->code : NULL;
}

static void write_time(uc_jw_t *w, apr_time_t t)
{
    char text[UC_TIME_TEXT];

    if (uc_time_format_iso8601(apr_time_as_msec(t), text))
        uc_jw_field_string(w, "time", text);
    else
        uc_jw_field_raw(w, "time", "null");
}

const char *uc_audit_line(apr_pool_t *pool, const uc_audit_event_t *ev,
                          const uc_audit_context_t *ctx, apr_size_t *len)
{
    uc_jw_t *w = uc_jw_make(pool, 512);
    int failed = ev->error_code || ctx->status >= 400;

    uc_jw_begin_object(w);
    write_time(w, ctx->time);
    uc_jw_field_string(w, "request_id", ctx->request_id);
    uc_jw_field_string(w, "principal", ev->principal);
    if (ev->recipient)
        uc_jw_field_raw(w, "recipient", "true");
    uc_jw_field_string(w, "client_address", ev->client_address);
    uc_jw_field_string(w, "api", ctx->api);
    uc_jw_field_string(w, "operation", ev->operation);
    uc_jw_field_string(w, "route", ev->route);
    uc_jw_field_string(w, "securable_type", ev->securable_type);
    uc_jw_field_string(w, "full_name", ev->full_name);
    uc_jw_field_string(w, "outcome", failed ? "failure" : "success");
    uc_jw_key(w, "status");
    uc_jw_int(w, ctx->status);
    if (failed && ev->error_code)
        uc_jw_field_string(w, "error_code", ev->error_code);
    uc_jw_end_object(w);
    uc_jw_newline(w);
    *len = w->len;
    return w->buf;
}
