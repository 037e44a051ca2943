/* SPDX-License-Identifier: Apache-2.0 */
/* Where a route's rule, its transaction and its operation meet: the one
 * place above the router, authorization and the store alike. */
#include "uc_run.h"

#include "../authz/uc_authz.h"
#include "../core/uc_json.h"
#include "../store/uc_store.h"

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

static uc_error_t *authorize_and_run(const uc_route_t *route,
                                     uc_call_t *call, uc_jw_t *out)
{
    uc_error_t *err;

    call->family = route->family;
    if ((err = unwrap_envelope(route, call)) ||
        (err = uc_authz_enforce(call, route->rule)))
        return err;
    return route->operation(call, out);
}

uc_error_t *uc_call_run(const uc_route_t *route, uc_call_t *call,
                        uc_jw_t *out)
{
    uc_error_t *err;

    if (!(route->flags & (UC_ROUTE_TXN | UC_ROUTE_READ_TXN)))
        err = authorize_and_run(route, call, out);
    else if (!(err = route->flags & UC_ROUTE_TXN
                     ? uc_store_begin(call->store)
                     : uc_store_begin_read(call->store)))
        err = uc_store_end(call->store, authorize_and_run(route, call, out));
    if (err)
        uc_jw_reset(out);
    return err;
}
