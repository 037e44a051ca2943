/* Schemas: namespaces inside a catalog. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    const uc_securable_t *catalog = context;

    uc_jw_begin_object(out);
    uc_api_write_common(out, sec);
    uc_jw_field_string(out, "catalog_name", catalog->name);
    uc_jw_field_string(out, "full_name",
                       apr_pstrcat(call->pool, catalog->name, ".", sec->name,
                                   NULL));
    uc_jw_field_string(out, "schema_id", sec->id);
    uc_jw_end_object(out);
}

static uc_error_t *already_exists(uc_call_t *call, const char *catalog,
                                  const char *name)
{
    return uc_error_make(call->pool, 400, "SCHEMA_ALREADY_EXISTS",
                         "Schema already exists: %s.%s", catalog, name);
}

static uc_error_t *create_schema(uc_call_t *call, uc_jw_t *out)
{
    const char *name = NULL, *catalog_name = NULL, *root = NULL;
    uc_securable_t *catalog, *sec;
    int changed;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &name)) ||
        (err = uc_validate_name(call->pool, "name", name, &name)) ||
        (err = uc_json_string_field(call->pool, call->body, "catalog_name", 1,
                                    &catalog_name)) ||
        (err = uc_json_string_field(call->pool, call->body, "storage_root", 0,
                                    &root)) ||
        (root && (err = uc_validate_storage_url(call->pool, "storage_root",
                                                root, &root))) ||
        (err = uc_api_find_catalog(call, catalog_name, &catalog)) ||
        (err = uc_api_new_securable(call, UC_KIND_SCHEMA, catalog->id, name,
                                    &sec)) ||
        (err = uc_api_read_common_fields(call, sec, &changed)))
        return err;
    sec->storage_root = root;
    sec->storage_location = uc_api_managed_location(call, root, "schemas",
                                                    sec->id);
    err = uc_securable_insert(call->store, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, catalog->name, name);
    if (err)
        return err;
    render(call, out, sec, catalog);
    return NULL;
}

static uc_error_t *list_schemas(uc_call_t *call, uc_jw_t *out)
{
    const char *catalog_name = apr_table_get(call->query, "catalog_name");
    uc_securable_t *catalog;
    uc_page_t page;
    apr_array_header_t *rows;
    int more, include_browse;
    uc_error_t *err;

    if (!catalog_name || !*catalog_name)
        return uc_error_invalid(call->pool, "Missing required query "
                                "parameter 'catalog_name'.");
    if ((err = uc_api_query_flag(call, "include_browse", &include_browse)) ||
        (err = uc_api_page(call, &page)) ||
        (err = uc_api_find_catalog(call, catalog_name, &catalog)) ||
        (err = uc_securable_page(call->store, call->pool, catalog->id,
                                 UC_KIND_SCHEMA, &page, &rows, &more)))
        return err;
    uc_api_write_page(call, out, "schemas", rows, more, render, catalog);
    return NULL;
}

static uc_error_t *get_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *catalog, *sec;
    int include_browse;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "include_browse", &include_browse)) ||
        (err = uc_api_find_schema(call, call->params[0], &catalog, &sec)))
        return err;
    render(call, out, sec, catalog);
    return NULL;
}

static uc_error_t *update_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *catalog, *sec;
    uc_error_t *err = uc_api_find_schema(call, call->params[0], &catalog,
                                         &sec);
    if (err)
        return err;
    err = uc_api_update_securable(call, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, catalog->name, sec->name);
    if (err)
        return err;
    render(call, out, sec, catalog);
    return NULL;
}

static uc_error_t *delete_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *catalog, *sec;
    uc_error_t *err = uc_api_find_schema(call, call->params[0], &catalog,
                                         &sec);

    if (err || (err = uc_api_delete_securable(call, sec, "SCHEMA_NOT_EMPTY",
                                              apr_psprintf(call->pool,
                                                           "Schema '%s.%s'",
                                                           catalog->name,
                                                           sec->name))))
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

const uc_route_t uc_schema_routes[] = {
    /* In a transaction so the parent catalog cannot vanish underneath. */
    { UC_POST,   "/schemas",             create_schema, UC_ROUTE_BODY | UC_ROUTE_TXN },
    { UC_GET,    "/schemas",             list_schemas,  0 },
    { UC_GET,    "/schemas/{full_name}", get_schema,    0 },
    { UC_PATCH,  "/schemas/{full_name}", update_schema, UC_ROUTE_BODY | UC_ROUTE_TXN },
    { UC_DELETE, "/schemas/{full_name}", delete_schema, UC_ROUTE_TXN },
    { 0, NULL, NULL, 0 }
};
