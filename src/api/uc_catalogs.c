/* Catalogs: the root namespaces of the metastore. */
#include "uc_api.h"

#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"

static json_t *render(uc_call_t *call, const uc_securable_t *sec)
{
    json_t *obj = uc_json_own(call->pool, json_object());
    json_t *details = uc_json_own(call->pool,
                                  uc_json_stored_object(sec->details));
    json_t *provider = json_object_get(details, "provider_name");

    uc_api_render_common(obj, sec);
    json_object_set_new(obj, "id", json_string(sec->id));
    json_object_set_new(obj, "catalog_type",
                        json_string(provider ? "DELTASHARING_CATALOG"
                                             : "MANAGED_CATALOG"));
    json_object_set(obj, "provider_name",
                    provider ? provider : json_null());
    json_object_set(obj, "share_name",
                    provider ? json_object_get(details, "share_name")
                             : json_null());
    return obj;
}

static uc_error_t *already_exists(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, 400, "CATALOG_ALREADY_EXISTS",
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

static uc_error_t *create_catalog(uc_call_t *call, json_t **out)
{
    const char *name = NULL, *root = NULL;
    uc_securable_t *sec;
    int changed;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &name)) ||
        (err = uc_validate_name(call->pool, "name", name, &name)) ||
        (err = uc_json_string_field(call->pool, call->body, "storage_root", 0,
                                    &root)) ||
        (root && (err = uc_validate_storage_url(call->pool, "storage_root",
                                                root, &root))) ||
        (err = uc_api_new_securable(call, UC_KIND_CATALOG,
                                    uc_store_metastore_id(call->store), name,
                                    &sec)) ||
        (err = uc_api_read_common_fields(call, sec, &changed)) ||
        (err = read_sharing_source(call, sec)))
        return err;
    sec->storage_root = root;
    sec->storage_location = uc_api_managed_location(call, root, "catalogs",
                                                    sec->id);
    err = uc_securable_insert(call->store, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, name);
    if (err)
        return err;
    *out = render(call, sec);
    return NULL;
}

static uc_error_t *list_catalogs(uc_call_t *call, json_t **out)
{
    uc_page_t page;
    apr_array_header_t *rows;
    json_t *items;
    int more, i;
    uc_error_t *err;

    if ((err = uc_api_page(call, &page)) ||
        (err = uc_securable_page(call->store, call->pool,
                                 uc_store_metastore_id(call->store),
                                 UC_KIND_CATALOG, &page, &rows, &more)))
        return err;
    items = json_array();
    for (i = 0; i < rows->nelts; i++)
        json_array_append(items, render(call, APR_ARRAY_IDX(rows, i,
                                                            uc_securable_t *)));
    *out = uc_api_list(call, "catalogs", items, more,
                       rows->nelts ? APR_ARRAY_IDX(rows, rows->nelts - 1,
                                                   uc_securable_t *)->name
                                   : NULL);
    return NULL;
}

static uc_error_t *get_catalog(uc_call_t *call, json_t **out)
{
    uc_securable_t *sec;
    int include_browse;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "include_browse", &include_browse)) ||
        (err = uc_api_find_catalog(call, call->params[0], &sec)))
        return err;
    *out = render(call, sec);
    return NULL;
}

static uc_error_t *update_catalog(uc_call_t *call, json_t **out)
{
    uc_securable_t *sec;
    uc_error_t *err = uc_api_find_catalog(call, call->params[0], &sec);

    if (err)
        return err;
    err = uc_api_update_securable(call, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, sec->name);
    if (err)
        return err;
    *out = render(call, sec);
    return NULL;
}

static uc_error_t *delete_catalog(uc_call_t *call, json_t **out)
{
    uc_securable_t *sec;
    uc_error_t *err = uc_api_find_catalog(call, call->params[0], &sec);

    if (err)
        return err;
    *out = uc_json_own(call->pool, json_object());
    return uc_api_delete_securable(call, sec, "CATALOG_NOT_EMPTY",
                                               apr_psprintf(call->pool,
                                                            "Catalog '%s'",
                                                            sec->name));
}

const uc_route_t uc_catalog_routes[] = {
    { UC_POST,   "/catalogs",        create_catalog, UC_ROUTE_BODY },
    { UC_GET,    "/catalogs",        list_catalogs,  0 },
    { UC_GET,    "/catalogs/{name}", get_catalog,    0 },
    { UC_PATCH,  "/catalogs/{name}", update_catalog, UC_ROUTE_BODY | UC_ROUTE_TXN },
    { UC_DELETE, "/catalogs/{name}", delete_catalog, UC_ROUTE_TXN },
    { 0, NULL, NULL, 0 }
};
