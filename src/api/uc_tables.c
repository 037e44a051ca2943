/* SPDX-License-Identifier: Apache-2.0 */
/* Tables: managed (through a staging table that reserved the id and the
 * location), external, and the view types; the staging tables themselves;
 * table summaries across the schemas of a catalog; the existence check. */
#include "uc_api.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "uc_columns.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_staging.h"
#include "../vend/uc_storage_url.h"
#include "../vend/uc_storage.h"

#define P UC_PRIV
#define VIEW_DEFINITION_MAX (1024 * 1024)
/* Clients name the staging id in the properties of a managed table. */
#define TABLE_ID_PROPERTY "io.unitycatalog.tableId"

static const char *const table_types[] = {
    "MANAGED", "EXTERNAL", "VIEW", "MATERIALIZED_VIEW", "STREAMING_TABLE",
    "METRIC_VIEW", NULL
};
static const char *const formats[] = {
    "DELTA", "ICEBERG", "HUDI", "PARQUET", "CSV", "JSON", "ORC", "AVRO",
    "TEXT", "UNITY_CATALOG", "DELTASHARING", NULL
};

/* What an answer leaves out on request. */
typedef struct shape {
    const uc_api_parents_t *parents;
    int omit_columns;
    int omit_properties;
    int omit_users;
} shape_t;

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    static const char *const no_columns[] = { "columns", NULL };
    /* Metadata only: no schema, definition or storage. */
    static const char *const browsed[] = {
        "columns", "view_definition", "view_dependencies",
        "storage_credential_name", NULL
    };
    const shape_t *shape = context;
    int browse = sec->browse_only;

    uc_jw_begin_object(out);
    uc_api_write_names(call, out, shape->parents, sec);
    uc_family_write_details(call, out, sec, browse ? browsed
                                            : shape->omit_columns ? no_columns
                                            : NULL);
    if (browse) {
        if (!shape->omit_columns)
            uc_jw_field_string(out, "columns", NULL);
        uc_jw_field_string(out, "view_definition", NULL);
        uc_jw_field_string(out, "view_dependencies", NULL);
        uc_jw_field_string(out, "storage_credential_name", NULL);
    }
    uc_jw_field_string(out, "storage_location",
                       browse ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    if (!shape->omit_properties)
        uc_jw_field_raw(out, "properties",
                        !browse && sec->properties ? sec->properties : "{}");
    uc_jw_field_string(out, "deleted_at", NULL);
    uc_api_write_tail(call, out, sec, "table_id", shape->omit_users);
}

/* The shape of the answer from the query flags every table answer takes;
 * the Delta ones are accepted and do not change the answer yet. */
static uc_error_t *read_shape(uc_call_t *call, int listing,
                              const void **out)
{
    shape_t *shape = apr_pcalloc(call->pool, sizeof(*shape));
    int delta, manifest;
    uc_error_t *err;

    *out = shape;
    shape->parents = uc_api_parents_of(call);
    if ((err = uc_api_query_flag(call, "include_delta_metadata", &delta)) ||
        (err = uc_api_query_flag(call, "include_manifest_capabilities",
                                 &manifest)))
        return err;
    if (!listing)
        return NULL;
    if ((err = uc_api_query_flag(call, "omit_columns",
                                 &shape->omit_columns)) ||
        (err = uc_api_query_flag(call, "omit_properties",
                                 &shape->omit_properties)))
        return err;
    return uc_api_query_flag(call, "omit_username", &shape->omit_users);
}

/* A managed table takes over the reservation its creator made with POST
 * /staging-tables: the table gets the staging id and location. */
static uc_error_t *commit_staging(uc_call_t *call, uc_securable_t *sec,
                                  const char *format, const char *location)
{
    json_t *given = json_object_get(json_object_get(call->body, "properties"),
                                    TABLE_ID_PROPERTY);
    uc_staging_t *st;
    int done;
    uc_error_t *err;

    if (strcmp(format, "DELTA") != 0)
        return uc_error_invalid(call->pool, "Managed table creation is only "
                                "supported for Delta format.");
    if (!location)
        return uc_error_invalid(call->pool, "A managed table needs "
                                "storage_location: the staging_location "
                                "returned by POST /staging-tables.");
    if ((err = uc_storage_url_derived(call->pool, "storage_location",
                                      location, &location)) ||
        (err = uc_staging_by_location(call->store, call->pool, location,
                                      &st)))
        return err;
    /* Another caller's reservation is hidden from this one, as it is
     * from its temporary credentials: as missing. */
    if (!st || !st->created_by || strcmp(st->created_by, call->principal))
        return uc_error_make(call->pool, UC_E_NOT_FOUND,
                             "Staging table not found: %s", location);
    if (st->committed_at)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                             "Staging table already committed: %s", location);
    if (strcmp(st->schema_id, call->chain.sec[UC_LEVEL_SCHEMA]->id) != 0)
        return uc_error_invalid(call->pool, "The staging table at %s belongs "
                                "to another schema.", location);
    if (given && (!json_is_string(given) ||
                  strcmp(json_string_value(given), st->id) != 0))
        return uc_error_invalid(call->pool, "Property " TABLE_ID_PROPERTY
                                " (%s) does not match the table id (%s).",
                                json_is_string(given)
                                ? json_string_value(given) : "not a string",
                                st->id);
    if ((err = uc_staging_commit(call->store, st->id,
                                 uc_epoch_ms_text(call->pool, call->now),
                                 &done)))
        return err;
    if (!done)
        return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION,
                             "Staging table already committed: %s", location);
    sec->id = st->id;
    sec->storage_location = location;
    return NULL;
}

/* The fields of the view types: a definition (required for views and
 * metric views) and the objects it depends on. */
static uc_error_t *read_view(uc_call_t *call, const char *type,
                             const char **definition, json_t **dependencies)
{
    int view = !strcmp(type, "VIEW") || !strcmp(type, "METRIC_VIEW");
    int derived = view || !strcmp(type, "MATERIALIZED_VIEW") ||
                  !strcmp(type, "STREAMING_TABLE");
    json_t *deps = json_object_get(call->body, "view_dependencies");
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "view_definition",
                                    0, definition)) ||
        (err = uc_validate_text(call->pool, "view_definition", *definition,
                                VIEW_DEFINITION_MAX)))
        return err;
    if (deps && !json_is_null(deps)) {
        if (!derived)
            return uc_error_invalid(call->pool, "Field 'view_dependencies' "
                                    "applies to the view types only.");
        if ((err = uc_dependencies_read(call->pool, "view_dependencies", deps,
                                        dependencies)))
            return err;
    }
    if (*definition && !derived)
        return uc_error_invalid(call->pool, "Field 'view_definition' applies "
                                "to the view types only.");
    if (view && (!*definition || !**definition))
        return uc_error_invalid(call->pool, "view_definition is required for "
                                "a %s.", type);
    return NULL;
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    const char *type = NULL, *format = NULL, *location = NULL;
    const char *definition = NULL;
    json_t *columns, *dependencies = NULL;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, call->body, "table_type",
                                  table_types, 1, &type)) ||
        (err = uc_json_enum_field(call->pool, call->body,
                                  "data_source_format", formats, 1,
                                  &format)) ||
        (err = uc_columns_read(call->pool, "columns",
                               json_object_get(call->body, "columns"),
                               &columns)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "storage_location", 0, &location)) ||
        (err = read_view(call, type, &definition, &dependencies)))
        return err;
    if (!strcmp(type, "MANAGED")) {
        if ((err = commit_staging(call, sec, format, location)))
            return err;
    }
    else if (!strcmp(type, "EXTERNAL")) {
        if (!location)
            return uc_error_invalid(call->pool, "Field 'storage_location' is "
                                    "required for an EXTERNAL table.");
        if ((err = uc_storage_external_location(call, "storage_location",
                                                location, "table",
                                                &sec->storage_location)))
            return err;
    }
    else if (location)
        return uc_error_invalid(call->pool, "A %s has no storage_location.",
                                type);
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{sssssOsOsOsn}", "table_type", type, "data_source_format", format,
        "columns", columns,
        "view_definition", uc_json_own(call->pool,
                                       uc_json_string_or_null(definition)),
        "view_dependencies",
        dependencies ? dependencies : uc_json_own(call->pool, json_null()),
        "storage_credential_name")));
    return NULL;
}

/* Tables have no update: Unity Catalog changes them through Delta. */
static const uc_api_family_t tables;
const uc_api_family_t *const uc_table_family = &tables;

/* What the commit coordinator keeps for Iceberg readers, not the table's
 * answer. */
static const char *const kept_details[] = { UC_TABLE_UNIFORM_DETAIL, NULL };

static const uc_api_family_t tables = {
    UC_FAMILY_IN_SCHEMA(UC_TYPE_TABLE, UC_PRIV_CREATE_TABLE,
                        P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY)),
    .secret_details = kept_details,
    .label = "Table", .plural = "tables",
    .exists = UC_E_TABLE_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_PROPERTIES | UC_FIELD_OWNER,
    .render = render, .context = read_shape, .prepare_create = prepare_create
};

/* True only for a table the caller could see: a missing table and one it
 * may not know of answer alike. */
static uc_error_t *table_exists(uc_call_t *call, uc_jw_t *out)
{
    const char *names[3];
    uc_securable_t *table;
    uc_chain_t chain = call->chain;
    uc_access_t access;
    int exists = 0;
    uc_error_t *err;

    if ((err = uc_validate_full_name(call->pool, "full name", call->params[0],
                                     3, names)) ||
        (err = uc_securable_get(call->store, call->pool,
                                chain.sec[UC_LEVEL_SCHEMA]->id, UC_KIND_TABLE,
                                names[2], UC_LOCK_SHARE, &table)))
        return err;
    if (table && call->browse_only)
        exists = 1;
    else if (table) {
        chain.n = UC_LEVEL_OBJECT + 1;
        chain.sec[UC_LEVEL_OBJECT] = table;
        chain.type[UC_LEVEL_OBJECT] = UC_TYPE_TABLE;
        if ((err = uc_authz_evaluate(call, &chain, &access)))
            return err;
        exists = uc_access_has(&access, UC_LEVEL_OBJECT, UC_ANY_PRIVILEGE);
    }
    uc_jw_begin_object(out);
    uc_jw_key(out, "table_exists");
    uc_jw_bool(out, exists);
    uc_jw_end_object(out);
    return NULL;
}

static void render_staging(uc_call_t *call, uc_jw_t *out,
                           const uc_staging_t *st)
{
    const uc_api_parents_t *parents = uc_api_parents_of(call);

    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", st->name);
    uc_jw_field_string(out, "catalog_name", parents->catalog);
    uc_jw_field_string(out, "schema_name", parents->schema);
    uc_jw_field_string(out, "id", st->id);
    uc_jw_field_string(out, "staging_location", st->location);
    uc_jw_field_int_text(out, "created_at", st->created_at);
    uc_jw_field_string(out, "created_by", st->created_by);
    uc_jw_key(out, "stage_committed");
    uc_jw_bool(out, st->committed_at != NULL);
    uc_jw_end_object(out);
}

uc_error_t *uc_table_reserve(uc_call_t *call, const char *name,
                             uc_staging_t **out)
{
    uc_staging_t *st = apr_pcalloc(call->pool, sizeof(*st));
    uc_securable_t *existing;
    uc_error_t *err;

    if ((err = uc_validate_name(call->pool, "name", name, &st->name)))
        return err;
    call->audit_type = UC_KIND_TABLE;
    call->audit_name = uc_api_full_name(call, uc_api_parents_of(call),
                                        st->name);
    if ((err = uc_securable_get(call->store, call->pool,
                                call->chain.sec[UC_LEVEL_SCHEMA]->id,
                                UC_KIND_TABLE, st->name, UC_LOCK_SHARE,
                                &existing)))
        return err;
    if (existing)
        return uc_family_name_taken(call, &tables, st->name);
    if (!(st->id = uc_uuid4(call->pool)))
        return uc_error_internal(call->pool);
    if ((err = uc_storage_managed_location(call, "tables", st->id,
                                           "managed table", &st->location)))
        return err;
    st->schema_id = call->chain.sec[UC_LEVEL_SCHEMA]->id;
    st->created_at = uc_epoch_ms_text(call->pool, call->now);
    st->created_by = call->principal;
    *out = st;
    return uc_staging_insert(call->store, st);
}

static uc_error_t *create_staging_table(uc_call_t *call, uc_jw_t *out)
{
    const char *name = NULL;
    uc_staging_t *st;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &name)) ||
        (err = uc_table_reserve(call, name, &st)))
        return err;
    render_staging(call, out, st);
    return NULL;
}

static void render_summary(uc_call_t *call, uc_jw_t *out,
                           const uc_nested_row_t *row)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "full_name", uc_api_nested_full_name(call, row));
    uc_jw_field_string(out, "table_type", row->table_type);
    uc_jw_end_object(out);
}

static uc_error_t *table_summaries(uc_call_t *call, uc_jw_t *out)
{
    const char *schemas, *names;
    int manifest;
    uc_error_t *err;

    if ((err = uc_api_like_pattern(call, "schema_name_pattern", &schemas)) ||
        (err = uc_api_like_pattern(call, "table_name_pattern", &names)) ||
        (err = uc_api_query_flag(call, "include_manifest_capabilities",
                                 &manifest)))
        return err;
    return uc_api_list_across(call, out, &tables,
                              call->chain.sec[UC_LEVEL_CATALOG]->id, schemas,
                              names, render_summary);
}

/* BROWSE answers existence without include_browse. */
static const uc_rule_t exists_rule = {
    UC_TARGET_OBJECT_SCHEMA, { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA },
    .browse = UC_BROWSE_ALWAYS };
static const uc_rule_t summaries_rule = {
    UC_TARGET_CATALOG_QUERY, { UC_NEED_USE_CATALOG } };

const uc_route_t uc_table_routes[] = {
    { UC_POST,   "/staging-tables", create_staging_table,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &tables.rules.create,
      .audit = "CREATE_STAGING_TABLE" },
    UC_ROUTE_CREATE(tables, "/tables"),
    UC_ROUTE_LIST_KEPT(tables, "/tables"),
    UC_ROUTE_GET(tables, "/tables/{full_name}"),
    UC_ROUTE_DELETE(tables, "/tables/{full_name}"),
    { UC_GET,    "/tables/{full_name}/exists", table_exists, 0,
      &exists_rule },
    { UC_GET,    "/table-summaries", table_summaries, 0, &summaries_rule },
    { 0, NULL, NULL, 0, NULL }
};
