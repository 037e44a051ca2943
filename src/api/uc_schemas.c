/* SPDX-License-Identifier: Apache-2.0 */
/* Schemas: namespaces inside a catalog. */
#include "uc_api.h"

#define P UC_PRIV

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    const uc_api_parents_t *parents = context;

    uc_jw_begin_object(out);
    uc_api_write_common(out, sec);
    uc_jw_field_string(out, "catalog_name", parents->catalog);
    uc_jw_field_string(out, "full_name",
                       uc_api_full_name(call, parents, sec->name));
    uc_jw_field_string(out, "schema_id", sec->id);
    uc_jw_end_object(out);
}

/* USE SCHEMA in force on the catalog opens every schema in it; BROWSE on
 * the catalog shows what the include_browse list shows. */
static const uc_api_family_t schemas = {
    .type = UC_TYPE_SCHEMA, .level = UC_LEVEL_SCHEMA,
    .rules = {
        .create = { UC_TARGET_CATALOG_FIELD,
                    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
                      { UC_LEVEL_CATALOG, P(UC_PRIV_CREATE_SCHEMA) } } },
        .list = { UC_TARGET_CATALOG_QUERY,
                  { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) } },
                  .browse = 1 },
        .read = { UC_TARGET_SCHEMA,
                  { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
                    { UC_LEVEL_SCHEMA, P(UC_PRIV_USE_SCHEMA) } },
                  .browse = UC_BROWSE_ON_REQUEST },
        .manage = { UC_TARGET_SCHEMA,
                    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
                      { UC_LEVEL_SCHEMA, P(UC_PRIV_MANAGE) } } } },
    .read = P(UC_PRIV_USE_SCHEMA),
    .label = "Schema", .plural = "schemas",
    .exists = UC_E_SCHEMA_ALREADY_EXISTS,
    .create_fields = UC_FIELDS_ALL, .update_fields = UC_FIELDS_ALL,
    .storage_segment = "schemas", .not_empty = UC_E_SCHEMA_NOT_EMPTY,
    .render = render
};

const uc_route_t uc_schema_routes[] = {
    UC_FAMILY_ROUTES_KEPT(schemas, "/schemas", "/schemas/{full_name}"),
    { 0, NULL, NULL, 0, NULL }
};
