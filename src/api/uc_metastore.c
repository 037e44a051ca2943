/* The metastore itself: one per database. */
#include "uc_api.h"

#include "../core/uc_json.h"

static uc_error_t *metastore_summary(uc_call_t *call, json_t **out)
{
    *out = uc_json_own(call->pool,
                       json_pack("{ss}", "metastore_id",
                                 uc_store_metastore_id(call->store)));
    return NULL;
}

const uc_route_t uc_metastore_routes[] = {
    { UC_GET, "/metastore_summary", metastore_summary, 0 },
    { 0, NULL, NULL, 0 }
};
