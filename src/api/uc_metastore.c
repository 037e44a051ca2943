/* SPDX-License-Identifier: Apache-2.0 */
/* The metastore itself: one per database. */
#include "uc_api.h"


static uc_error_t *metastore_summary(uc_call_t *call, uc_jw_t *out)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "metastore_id",
                       uc_store_metastore_id(call->store));
    uc_jw_end_object(out);
    return NULL;
}

static const uc_rule_t any_caller = { UC_TARGET_CALLER, { { 0, 0 } } };

const uc_route_t uc_metastore_routes[] = {
    { UC_GET, "/metastore_summary", metastore_summary, 0, &any_caller },
    { 0, NULL, NULL, 0, NULL }
};
