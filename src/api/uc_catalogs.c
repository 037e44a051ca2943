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
        json_t *details = uc_json_own(call->pool,
                                      uc_json_stored_object(sec->details));
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

static uc_error_t *already_exists(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, UC_E_CATALOG_ALREADY_EXISTS,
                         "Catalog already exists: %s", name);
}

/* A Delta Sharing catalog names a provider and one of its shares. */
static uc_error_t *read_sharing_source(uc_call_t *call, uc_securable_t *sec)
{
    const char *provider = NULL, *share = NULL;
    json_t *details;
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
    details = uc_json_own(call->pool, json_pack("{ssss}", "provider_name",
                                                provider, "share_name",
                                                share));
    sec->details = uc_json_dump(call->pool, details);
    return NULL;
}

static uc_error_t *create_catalog(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = uc_api_new_container(call, UC_KIND_CATALOG,
                                    uc_store_metastore_id(call->store),
                                    "catalogs", &sec)) ||
        (err = read_sharing_source(call, sec)))
        return err;
    err = uc_api_insert_securable(call, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, sec->name);
    if (err)
        return err;
    render(call, out, sec, NULL);
    return NULL;
}

#define P UC_PRIV
#define USE_CATALOG (P(UC_PRIV_USE_CATALOG) | P(UC_PRIV_ALL_PRIVILEGES))

static uc_error_t *list_catalogs(uc_call_t *call, uc_jw_t *out)
{
    uc_page_t page;
    apr_array_header_t *rows;
    int more, include_browse;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "include_browse", &include_browse)) ||
        (err = uc_api_page(call, &page)) ||
        (err = uc_securable_page(call->store, call->pool,
                                 uc_store_metastore_id(call->store),
                                 UC_KIND_CATALOG,
                                 uc_api_visibility(call, 0, 0,
                                                   include_browse
                                                   ? USE_CATALOG |
                                                     P(UC_PRIV_BROWSE)
                                                   : USE_CATALOG,
                                                   USE_CATALOG),
                                 &page, &rows, &more)))
        return err;
    uc_api_write_page(call, out, "catalogs", rows, more, render, NULL);
    return NULL;
}

static uc_error_t *get_catalog(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);

    sec->browse_only = call->browse_only;
    render(call, out, sec, NULL);
    return NULL;
}

static uc_error_t *update_catalog(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    uc_error_t *err = uc_api_update_securable(call, UC_FIELDS_ALL,
                                              UC_NAME_MAX, 0);

    if (uc_store_is_duplicate(err))
        return already_exists(call, sec->name);
    if (err)
        return err;
    render(call, out, sec, NULL);
    return NULL;
}

static uc_error_t *delete_catalog(uc_call_t *call, uc_jw_t *out)
{
    uc_error_t *err = uc_api_delete_securable(call, UC_E_CATALOG_NOT_EMPTY,
                                              apr_psprintf(call->pool,
                                                  "Catalog '%s'",
                                                  UC_TARGET_OF(call)->name));
    if (err)
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

static const uc_rule_t create_rule = {
    UC_TARGET_METASTORE,
    { { UC_LEVEL_METASTORE, P(UC_PRIV_CREATE_CATALOG) } } };
/* Lists show each caller what it may see. */
static const uc_rule_t list_rule = { UC_TARGET_CALLER, { { 0, 0 } } };
static const uc_rule_t read_rule = {
    UC_TARGET_CATALOG, { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) } },
    .browse = 1 };
static const uc_rule_t manage_rule = {
    UC_TARGET_CATALOG, { { UC_LEVEL_CATALOG, P(UC_PRIV_MANAGE) } } };

const uc_route_t uc_catalog_routes[] = {
    { UC_POST,   "/catalogs",        create_catalog,
      UC_ROUTE_BODY | UC_ROUTE_TXN,
      &create_rule },
    { UC_GET,    "/catalogs",        list_catalogs,  0, &list_rule },
    { UC_GET,    "/catalogs/{name}", get_catalog,    0, &read_rule },
    { UC_PATCH,  "/catalogs/{name}", update_catalog,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule },
    { UC_DELETE, "/catalogs/{name}", delete_catalog, UC_ROUTE_TXN,
      &manage_rule },
    { 0, NULL, NULL, 0, NULL }
};
