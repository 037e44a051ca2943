/* SPDX-License-Identifier: Apache-2.0 */
/* The routes of the UC Delta API, its configuration, and what it does to
 * a table by name: load it (and HEAD: does it exist), drop it, rename it,
 * take a writer's commit report. Tables are the catalog's own rows: what
 * this API creates the catalog API reads, and the other way round. */
#include "uc_delta_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_delta_schema.h"
#include "uc_ratify.h"
#include "../store/uc_ratified_commits.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"
#include "../core/uc_validate.h"

#define P UC_PRIV
#define NO_CONTENT 204
#define PROTOCOL_VERSIONS_MAX 256

/* What this server serves of the API, as /config names it. */
static const char *const endpoints[] = {
    "POST /v1/catalogs/{catalog}/schemas/{schema}/staging-tables",
    "POST /v1/catalogs/{catalog}/schemas/{schema}/tables",
    "GET /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
    "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
    "DELETE /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
    "HEAD /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
    "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/rename",
    "GET /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/credentials",
    "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/metrics",
    "GET /v1/staging-tables/{table_id}/credentials",
    "GET /v1/temporary-path-credentials",
    NULL
};

/* protocol-versions lists the newest minor version the client speaks of
 * each major one ("1.1,2.3"); this server speaks 1.0, which any 1.x
 * client speaks too. */
static int speaks_version_1(const char *versions)
{
    const char *p = versions;

    while (*p) {
        size_t n = strcspn(p, ",");
        if (n > 2 && p[0] == '1' && p[1] == '.' &&
            strspn(p + 2, "0123456789") == n - 2)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static uc_error_t *get_config(uc_call_t *call, uc_jw_t *out)
{
    const char *versions = apr_table_get(call->query, "protocol-versions");
    const char *const *e;

    if (!versions || !*versions || strlen(versions) > PROTOCOL_VERSIONS_MAX)
        return uc_error_invalid(call->pool, "Query parameter "
                                "'protocol-versions' is required: the "
                                "versions the client speaks, as \"1.0\".");
    if (!speaks_version_1(versions))
        return uc_error_invalid(call->pool, "No protocol version in common: "
                                "this server speaks 1.0, the client %s.",
                                versions);
    uc_jw_begin_object(out);
    uc_jw_key(out, "endpoints");
    uc_jw_begin_array(out);
    for (e = endpoints; *e; e++)
        uc_jw_string(out, *e);
    uc_jw_end_array(out);
    uc_jw_field_string(out, "protocol-version", "1.0");
    uc_jw_end_object(out);
    return NULL;
}

uc_error_t *uc_delta_api_check_format(uc_call_t *call,
                                      const uc_securable_t *table)
{
    const char *format = uc_json_stored_string(call->pool, table->details,
                                               "data_source_format");

    if (format && !strcmp(format, "DELTA"))
        return NULL;
    return uc_error_make(call->pool, UC_E_UNSUPPORTED_TABLE_FORMAT,
                         "Table is not a Delta table: %s", table->name);
}

/* A property that holds a number, as one; nothing when it does not. */
static void write_number_property(uc_jw_t *out, const char *key,
                                  json_t *properties, const char *name)
{
    const char *text = json_string_value(json_object_get(properties, name));
    char *end;
    apr_int64_t n;

    if (!text || !*text)
        return;
    n = apr_strtoi64(text, &end, 10);
    if (!*end)
        uc_jw_field_int(out, key, n);
}

/* `details` and `props`: the table's, parsed. */
static void write_metadata(uc_call_t *call, uc_jw_t *out,
                           const uc_securable_t *table, json_t *details,
                           json_t *props)
{
    json_t *partitions, *columns = uc_delta_schema_write(
        call->pool, json_object_get(details, "columns"), &partitions);

    uc_jw_key(out, "metadata");
    uc_jw_begin_object(out);
    /* The etag moves with what the catalog shows of the table, which
     * updated_at dates; data-only commits leave both. */
    uc_jw_field_string(out, "etag", apr_pstrcat(call->pool, "etag-",
                                                table->updated_at, NULL));
    uc_jw_field_string(out, "table-type", json_string_value(
        json_object_get(details, "table_type")));
    uc_jw_field_string(out, "table-uuid", table->id);
    uc_jw_field_string(out, "location", table->storage_location);
    uc_jw_field_int_text(out, "created-time", table->created_at);
    uc_jw_field_int_text(out, "updated-time", table->updated_at);
    uc_jw_key(out, "columns");
    uc_jw_json(out, columns);
    uc_jw_key(out, "partition-columns");
    uc_jw_json(out, partitions);
    uc_jw_key(out, "properties");
    uc_jw_json(out, props);
    write_number_property(out, "last-commit-version", props,
                          UC_DELTA_LAST_UPDATE_VERSION);
    write_number_property(out, "last-commit-timestamp-ms", props,
                          UC_DELTA_LAST_COMMIT_TIMESTAMP);
    uc_jw_end_object(out);
}

/* The Iceberg metadata of the table's last UniForm commit. */
static void write_uniform(uc_jw_t *out, json_t *details)
{
    json_t *u = json_object_get(details, UC_TABLE_UNIFORM_DETAIL);
    json_t *base = json_object_get(u, "base_converted_delta_version");

    if (!json_is_object(u))
        return;
    uc_jw_key(out, "uniform");
    uc_jw_begin_object(out);
    uc_jw_key(out, "iceberg");
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "metadata-location", json_string_value(
        json_object_get(u, "metadata_location")));
    uc_jw_field_int(out, "converted-delta-version", json_integer_value(
        json_object_get(u, "converted_delta_version")));
    uc_jw_field_int(out, "converted-delta-timestamp", json_integer_value(
        json_object_get(u, "converted_delta_timestamp")));
    if (json_is_integer(base))
        uc_jw_field_int(out, "base-converted-delta-version",
                        json_integer_value(base));
    uc_jw_end_object(out);
    uc_jw_end_object(out);
}

uc_error_t *uc_delta_api_write_table(uc_call_t *call, uc_jw_t *out,
                                     const uc_securable_t *table,
                                     const apr_array_header_t *commits)
{
    json_t *details = uc_api_details(call, table);
    json_t *props = uc_json_own(call->pool,
                                uc_json_stored_object(table->properties));
    uc_error_t *err;

    uc_jw_begin_object(out);
    write_metadata(call, out, table, details, props);
    /* Only the catalog's own tables have commits it ratified: for the
     * others the Delta log is the table's truth. */
    if (uc_ratified_commits_managed(table) &&
        (err = uc_ratify_write_commits(call, out, &uc_commit_fields_delta,
                                       table, commits, 0, -1)))
        return err;
    write_uniform(out, details);
    uc_jw_end_object(out);
    return NULL;
}

/* GET: the table; HEAD: 204 when it exists. Read in one read
 * transaction, so that its commits and its row agree. */
static uc_error_t *load_table(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *table = UC_TARGET_OF(call);
    uc_error_t *err = uc_delta_api_check_format(call, table);

    if (err)
        return err;
    if (call->head_only) {
        call->status = NO_CONTENT;
        return NULL;
    }
    return uc_delta_api_write_table(call, out, table, NULL);
}

/* As the catalog API drops a table (its commits go with it). */
static uc_error_t *delete_table(uc_call_t *call, uc_jw_t *out)
{
    uc_jw_t *ignored = uc_jw_make(call->pool, 64);
    uc_error_t *err;

    (void)out;
    call->family = uc_table_family;
    if ((err = uc_family_delete(call, ignored)))
        return err;
    call->status = NO_CONTENT;
    return NULL;
}

/* Within its schema. */
static uc_error_t *rename_table(uc_call_t *call, uc_jw_t *out)
{
    const char *name = NULL;
    uc_securable_t *table = UC_TARGET_OF(call), *taken;   /* held */
    uc_error_t *err;

    (void)out;
    if ((err = uc_json_string_field(call->pool, call->body, "new-name", 1,
                                    &name)) ||
        (err = uc_validate_name(call->pool, "new-name", name, &name)) ||
        (err = uc_securable_get(call->store, call->pool, table->parent_id,
                                UC_KIND_TABLE, name, UC_LOCK_SHARE, &taken)))
        return err;
    call->status = NO_CONTENT;
    if (taken && !strcmp(taken->id, table->id))
        return NULL;
    if (taken)
        return uc_family_name_taken(call, uc_table_family, name);
    table->name = name;
    table->updated_at = uc_epoch_ms_text(call->pool, call->now);
    table->updated_by = call->principal;
    err = uc_securable_update(call->store, table);
    if (err && uc_store_is_duplicate(err))
        return uc_family_name_taken(call, uc_table_family, name);
    return err;
}

/* The counts of a commit report, summed into the server's metrics. */
static const struct {
    const char *field;
    uc_metric_t metric;
} report_counts[] = {
    { "num-files-added", UC_M_COMMIT_FILES_ADDED },
    { "num-bytes-added", UC_M_COMMIT_BYTES_ADDED },
    { "num-files-removed", UC_M_COMMIT_FILES_REMOVED },
    { "num-bytes-removed", UC_M_COMMIT_BYTES_REMOVED },
    { "num-rows-inserted", UC_M_COMMIT_ROWS_INSERTED },
    { "num-rows-removed", UC_M_COMMIT_ROWS_REMOVED },
    { "num-rows-updated", UC_M_COMMIT_ROWS_UPDATED },
};
#define REPORT_COUNTS (sizeof(report_counts) / sizeof(report_counts[0]))

/* A writer's report of a commit: checked, counted, not kept. */
static uc_error_t *report_metrics(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *table = UC_TARGET_OF(call);
    apr_int64_t counts[REPORT_COUNTS];
    const char *id = NULL;
    json_t *report, *commit = NULL;
    size_t i;
    int present;
    uc_error_t *err;

    (void)out;
    if ((err = uc_json_string_field(call->pool, call->body, "table-id", 1,
                                    &id)) ||
        (err = uc_json_object_field(call->pool, call->body, "report",
                                    &report)) ||
        (report && (err = uc_json_object_field(call->pool, report,
                                               "commit-report", &commit))))
        return err;
    if (strcmp(id, table->id) != 0)
        return uc_error_invalid(call->pool, "table-id %s does not match "
                                "table %s.", id, uc_api_chain_name(
                                    call, &call->chain, UC_LEVEL_OBJECT));
    for (i = 0; i < REPORT_COUNTS; i++)
        if ((err = uc_json_int_field(call->pool, commit,
                                     report_counts[i].field, 0,
                                     APR_INT64_MAX, &counts[i], &present)))
            return err;
        else if (!present)
            counts[i] = 0;
    uc_metrics_add(call->metrics, UC_M_COMMIT_REPORTS, 1);
    for (i = 0; i < REPORT_COUNTS; i++)
        uc_metrics_add(call->metrics, report_counts[i].metric,
                       (apr_uint64_t)counts[i]);
    call->status = NO_CONTENT;
    return NULL;
}

/* Who may do what, as Unity Catalog's Delta API has it: use of the
 * catalog and schema, and on the table SELECT or MODIFY to read it,
 * MODIFY to commit to it (as the preview commits), MANAGE (or ownership)
 * to drop or rename it; CREATE TABLE on the schema to create one. */
#define ON_TABLE(privs) \
    { UC_TARGET_OBJECT_PATH, { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, \
      { UC_LEVEL_OBJECT, (privs) } }, UC_TYPE_TABLE }
static const uc_rule_t config_rule = {
    UC_TARGET_CATALOG_QUERY, { UC_NEED_USE_CATALOG }, .field = "catalog" };
static const uc_rule_t create_rule = {
    UC_TARGET_SCHEMA_PATH, { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA,
                             { UC_LEVEL_SCHEMA, P(UC_PRIV_CREATE_TABLE) } } };
static const uc_rule_t read_rule =
    ON_TABLE(P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY));
static const uc_rule_t select_rule = ON_TABLE(P(UC_PRIV_SELECT));
static const uc_rule_t modify_rule = ON_TABLE(P(UC_PRIV_MODIFY));
static const uc_rule_t manage_rule = ON_TABLE(P(UC_PRIV_MANAGE));
/* A staging table is its creator's until it becomes a table. */
static const uc_rule_t staging_rule = {
    UC_TARGET_OBJECT_ID_PATH, { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA,
                                { UC_LEVEL_OBJECT, P(UC_PRIV_MODIFY) } },
    UC_TYPE_TABLE };
/* Paths are authorized by what they lie in. */
static const uc_rule_t path_rule = { UC_TARGET_CALLER, { { 0, 0 } } };

#define SCHEMA_PATH "/delta/v1/catalogs/{catalog}/schemas/{schema}"
#define TABLE_PATH SCHEMA_PATH "/tables/{table}"
#define BODY_TXN (UC_ROUTE_BODY | UC_ROUTE_TXN)

const uc_route_t uc_delta_api_routes[] = {
    { UC_GET, "/delta/v1/config", get_config, 0, &config_rule },
    { UC_POST, SCHEMA_PATH "/staging-tables", uc_delta_create_staging,
      BODY_TXN, &create_rule, .audit = "CREATE_STAGING_TABLE" },
    { UC_POST, SCHEMA_PATH "/tables", uc_delta_create_table, BODY_TXN,
      &create_rule, .audit = "CREATE" },
    { UC_GET, TABLE_PATH, load_table, UC_ROUTE_READ_TXN, &read_rule },
    { UC_POST, TABLE_PATH, uc_delta_update_table, BODY_TXN, &modify_rule,
      .audit = "UPDATE" },
    { UC_DELETE, TABLE_PATH, delete_table, UC_ROUTE_TXN, &manage_rule,
      .audit = "DELETE" },
    { UC_POST, TABLE_PATH "/rename", rename_table, BODY_TXN, &manage_rule,
      .audit = "RENAME" },
    { UC_GET, TABLE_PATH "/credentials", uc_delta_table_credentials, 0,
      &select_rule, .audit = "GENERATE_TEMPORARY_TABLE_CREDENTIAL" },
    { UC_POST, TABLE_PATH "/metrics", report_metrics, UC_ROUTE_BODY,
      &modify_rule },
    { UC_GET, "/delta/v1/staging-tables/{table_id}/credentials",
      uc_delta_staging_credentials, 0, &staging_rule,
      .audit = "GENERATE_TEMPORARY_TABLE_CREDENTIAL" },
    { UC_GET, "/delta/v1/temporary-path-credentials",
      uc_delta_path_credentials, 0, &path_rule,
      .audit = "GENERATE_TEMPORARY_PATH_CREDENTIAL" },
    { 0, NULL, NULL, 0, NULL }
};
