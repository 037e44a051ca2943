/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_mounts.h"

#include "../api/uc_api.h"
#include "../authz/uc_batch_check.h"
#include "../http/uc_render.h"
#include "../sharing/uc_sharing_api.h"

const uc_route_t *const uc_catalog_api[] = {
    uc_catalog_routes,
    uc_schema_routes,
    uc_table_routes,
    uc_object_summary_routes,
    uc_table_delta_routes,
    uc_volume_routes,
    uc_function_routes,
    uc_model_routes,
    uc_agent_routes,
    uc_credential_routes,
    uc_external_location_routes,
    uc_recipient_routes,
    uc_temporary_credential_routes,
    uc_delta_commit_routes,
    uc_share_permission_routes,
    uc_share_routes,
    uc_provider_routes,
    uc_tag_policy_routes,
    uc_entity_tag_routes,
    uc_policy_routes,
    uc_metastore_routes,
    uc_permission_routes,
    NULL
};

/* Beside what recipients read, the share management of the spec's
 * CatalogService, for catalog principals where the API is mounted behind
 * their authentication. */
const uc_route_t *const uc_sharing_api[] = {
    uc_sharing_routes, uc_share_info_routes, uc_share_schema_routes, NULL
};

const uc_route_t *const uc_authz_api[] = { uc_authz_routes, NULL };

const uc_mount_t uc_mounts[UC_MOUNT_COUNT] = {
    [UC_MOUNT_CATALOG] = { "unicat-catalog", "catalog", uc_catalog_api,
                           uc_render_catalog_error, 0 },
    [UC_MOUNT_AUTHZ] = { "unicat-authz", "authz", uc_authz_api,
                         uc_render_lakekeeper_error, 0 },
    [UC_MOUNT_SHARING] = { "unicat-sharing", "sharing", uc_sharing_api,
                           uc_render_sharing_error, 1 },
};
