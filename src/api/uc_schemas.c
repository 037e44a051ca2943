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
    return uc_error_make(call->pool, UC_E_SCHEMA_ALREADY_EXISTS,
                         "Schema already exists: %s.%s", catalog, name);
}

static uc_error_t *create_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *catalog = call->chain.sec[UC_LEVEL_CATALOG], *sec;
    uc_error_t *err = uc_api_new_container(call, UC_KIND_SCHEMA, catalog->id,
                                           "schemas", &sec);
    if (err)
        return err;
    err = uc_api_insert_securable(call, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, catalog->name, sec->name);
    if (err)
        return err;
    render(call, out, sec, catalog);
    return NULL;
}

#define P UC_PRIV
#define USE_SCHEMA (P(UC_PRIV_USE_SCHEMA) | P(UC_PRIV_ALL_PRIVILEGES))

static uc_error_t *list_schemas(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *catalog = call->chain.sec[UC_LEVEL_CATALOG];
    const uc_access_t *a = &call->access;
    uc_page_t page;
    apr_array_header_t *rows;
    int more, include_browse, use, all, i;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "include_browse", &include_browse)) ||
        (err = uc_api_page(call, &page)))
        return err;
    use = !call->browse_only;
    /* USE SCHEMA in force on the catalog opens every schema in it; BROWSE
     * shows every schema's metadata on request. */
    all = uc_access_has(a, UC_LEVEL_CATALOG, P(UC_PRIV_USE_SCHEMA));
    if ((err = uc_securable_page(
             call->store, call->pool, catalog->id, UC_KIND_SCHEMA,
             uc_api_visibility(call,
                               all || (include_browse &&
                                       uc_access_has(a, UC_LEVEL_CATALOG,
                                                     P(UC_PRIV_BROWSE))),
                               all, USE_SCHEMA, USE_SCHEMA),
             &page, &rows, &more)))
        return err;
    /* Without USE CATALOG nothing inside can be used: metadata only. */
    for (i = 0; !use && i < rows->nelts; i++)
        APR_ARRAY_IDX(rows, i, uc_securable_t *)->browse_only = 1;
    uc_api_write_page(call, out, "schemas", rows, more, render, catalog);
    return NULL;
}

static uc_error_t *get_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = call->chain.sec[UC_LEVEL_SCHEMA];

    sec->browse_only = call->browse_only;
    render(call, out, sec, call->chain.sec[UC_LEVEL_CATALOG]);
    return NULL;
}

static uc_error_t *update_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *catalog = call->chain.sec[UC_LEVEL_CATALOG];
    uc_securable_t *sec = call->chain.sec[UC_LEVEL_SCHEMA];
    uc_error_t *err = uc_api_update_securable(call, UC_FIELDS_ALL,
                                              UC_NAME_MAX, 0);

    if (uc_store_is_duplicate(err))
        return already_exists(call, catalog->name, sec->name);
    if (err)
        return err;
    render(call, out, sec, catalog);
    return NULL;
}

static uc_error_t *delete_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_error_t *err = uc_api_delete_securable(
        call, UC_E_SCHEMA_NOT_EMPTY,
        apr_psprintf(call->pool, "Schema '%s.%s'",
                     call->chain.sec[UC_LEVEL_CATALOG]->name,
                     call->chain.sec[UC_LEVEL_SCHEMA]->name));
    if (err)
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

static const uc_rule_t create_rule = {
    UC_TARGET_CATALOG_FIELD,
    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
      { UC_LEVEL_CATALOG, P(UC_PRIV_CREATE_SCHEMA) } } };
/* The list shows the schemas the caller may see. */
static const uc_rule_t list_rule = {
    UC_TARGET_CATALOG_QUERY, { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) } },
    .browse = 1 };
/* BROWSE on the catalog shows what the include_browse list shows. */
static const uc_rule_t read_rule = {
    UC_TARGET_SCHEMA,
    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
      { UC_LEVEL_SCHEMA, P(UC_PRIV_USE_SCHEMA) } },
    .browse = UC_BROWSE_ON_REQUEST };
static const uc_rule_t manage_rule = {
    UC_TARGET_SCHEMA,
    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
      { UC_LEVEL_SCHEMA, P(UC_PRIV_MANAGE) } } };

const uc_route_t uc_schema_routes[] = {
    /* In a transaction so the parent catalog cannot vanish underneath. */
    { UC_POST,   "/schemas",             create_schema,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &create_rule },
    { UC_GET,    "/schemas",             list_schemas,  0, &list_rule },
    { UC_GET,    "/schemas/{full_name}", get_schema,    0, &read_rule },
    { UC_PATCH,  "/schemas/{full_name}", update_schema,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule },
    { UC_DELETE, "/schemas/{full_name}", delete_schema, UC_ROUTE_TXN,
      &manage_rule },
    { 0, NULL, NULL, 0, NULL }
};
