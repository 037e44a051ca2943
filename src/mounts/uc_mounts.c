/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_mounts.h"

#include <string.h>

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
    uc_delta_api_routes,
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

static const uc_error_dialect_t catalog_errors = {
    uc_render_catalog_error, NULL };
static const uc_error_dialect_t delta_errors = {
    uc_render_delta_error, uc_render_delta_status };
static const uc_error_dialect_t lakekeeper_errors = {
    uc_render_lakekeeper_error, NULL };
static const uc_error_dialect_t sharing_errors = {
    uc_render_sharing_error, NULL };

/* The UC Delta API shares the catalog API's mount, not its errors. */
static const uc_mount_area_t catalog_areas[] = {
    { "/delta/v1", &delta_errors }, { NULL, NULL }
};

const uc_mount_t uc_mounts[UC_MOUNT_COUNT] = {
    [UC_MOUNT_CATALOG] = { "unicat-catalog", "catalog", uc_catalog_api,
                           &catalog_errors, catalog_areas, 0 },
    [UC_MOUNT_AUTHZ] = { "unicat-authz", "authz", uc_authz_api,
                         &lakekeeper_errors, NULL, 0 },
    [UC_MOUNT_SHARING] = { "unicat-sharing", "sharing", uc_sharing_api,
                           &sharing_errors, NULL, 1 },
};

const uc_error_dialect_t *uc_mount_errors(const uc_mount_t *mount,
                                          const char *path)
{
    const uc_mount_area_t *area;

    for (area = mount->areas; path && area && area->prefix; area++) {
        size_t n = strlen(area->prefix);

        if (!strncmp(path, area->prefix, n) && (!path[n] || path[n] == '/'))
            return area->errors;
    }
    return mount->errors;
}
