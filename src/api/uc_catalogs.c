/* SPDX-License-Identifier: Apache-2.0 */
/* Catalogs: the root namespaces of the metastore. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    const char *provider = NULL, *share = NULL;

    (void)context;
    if (sec->details && strcmp(sec->details, "{}") != 0) {
        json_t *details = uc_api_details(call, sec);
        provider = json_string_value(json_object_get(details,
                                                     "provider_name"));
        share = json_string_value(json_object_get(details, "share_name"));
    }
    uc_jw_begin_object(out);
    uc_api_write_common(out, sec);
    uc_jw_field_string(out, "id", sec->id);
    uc_jw_field_string(out, "catalog_type", provider ? "DELTASHARING_CATALOG"
                                                     : "MANAGED_CATALOG");
    uc_jw_field_string(out, "provider_name", provider);
    uc_jw_field_string(out, "share_name", share);
    uc_jw_end_object(out);
}

/* A Delta Sharing catalog names a provider and one of its shares. */
static uc_error_t *read_sharing_source(uc_call_t *call, uc_securable_t *sec)
{
    const char *provider = NULL, *share = NULL;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "provider_name",
                                    0, &provider)) ||
        (err = uc_json_string_field(call->pool, call->body, "share_name", 0,
                                    &share)))
        return err;
    if (!provider && !share)
        return NULL;
    if (!provider || !share)
        return uc_error_invalid(call->pool, "Fields 'provider_name' and "
                                "'share_name' go together.");
    if ((err = uc_validate_name_with(call->pool, "provider_name", provider,
                                     "_-", &provider)) ||
        (err = uc_validate_name(call->pool, "share_name", share, &share)))
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{ssss}", "provider_name", provider, "share_name", share)));
    return NULL;
}

#define P UC_PRIV
#define USE_CATALOG (P(UC_PRIV_USE_CATALOG) | P(UC_PRIV_ALL_PRIVILEGES))

/* Catalogs the caller owns or may use; on request, those it may browse
 * too, as metadata only. */
static uc_visibility_t *visible_catalogs(uc_call_t *call, int include_browse)
{
    return uc_api_visibility(call, 0, 0,
                             include_browse ? USE_CATALOG | P(UC_PRIV_BROWSE)
                                            : USE_CATALOG,
                             USE_CATALOG);
}

static const uc_api_family_t catalogs = {
    .type = UC_TYPE_CATALOG, .level = UC_LEVEL_CATALOG,
    .rules = {
        .create = { UC_TARGET_METASTORE,
                    { { UC_LEVEL_METASTORE, P(UC_PRIV_CREATE_CATALOG) } } },
        /* Lists show each caller what it may see. */
        .list = { UC_TARGET_CALLER, { { 0, 0 } } },
        .read = { UC_TARGET_CATALOG,
                  { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) } },
                  .browse = 1 },
        .manage = { UC_TARGET_CATALOG,
                    { { UC_LEVEL_CATALOG, P(UC_PRIV_MANAGE) } } } },
    .label = "Catalog", .plural = "catalogs",
    .exists = UC_E_CATALOG_ALREADY_EXISTS,
    .create_fields = UC_FIELDS_ALL, .update_fields = UC_FIELDS_ALL,
    .storage_segment = "catalogs", .not_empty = UC_E_CATALOG_NOT_EMPTY,
    .render = render, .prepare_create = read_sharing_source,
    .visibility = visible_catalogs
};

const uc_route_t uc_catalog_routes[] = {
    UC_FAMILY_ROUTES_KEPT(catalogs, "/catalogs", "/catalogs/{name}"),
    { 0, NULL, NULL, 0, NULL }
};
