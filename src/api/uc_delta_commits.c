/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog as the commit coordinator of its catalog-managed Delta
 * tables (/delta/preview/commits, Unity Catalog's DeltaCommitsService):
 * writers post each commit they staged under _delta_log/_staged_commits/
 * and the catalog ratifies exactly one per version, in order, in one
 * transaction with the table's row (queued behind its lock); readers ask
 * for the commits not yet backfilled into _delta_log. The rules of a
 * request are uc_commit_plan.h's. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_columns.h"
#include "uc_commit_plan.h"
#include "uc_commit_uniform.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../delta/uc_delta.h"
#include "../store/uc_ratified_commits.h"
#include "../vend/uc_storage_url.h"
#include "../vend/uc_table_store.h"

#define P UC_PRIV
#define TABLE_ID_PROPERTY "io.unitycatalog.tableId"
/* The protocol's features as table properties. */
#define FEATURE_PREFIX "delta.feature."
#define FILE_NAME_MAX 1024

/* What a commit body holds besides the table. */
typedef struct commit_body {
    uc_ratified_commit_t commit;
    uc_commit_request_t request;
    const char *table_uri;
    const char *description;    /* metadata's, NULL when not set */
    json_t *properties;         /* metadata's, NULL when not set */
    json_t *columns;            /* metadata's, NULL when not set */
    uc_commit_uniform_t *uniform;   /* NULL when not set */
} commit_body_t;

/* The commit's file: one name in _delta_log/_staged_commits/. */
static uc_error_t *check_file_name(uc_call_t *call, const char *name)
{
    uc_error_t *err = uc_validate_text(call->pool, "file_name", name,
                                       FILE_NAME_MAX);

    if (err)
        return err;
    if (!uc_delta_catalog_file_name(name))
        return uc_error_invalid(call->pool, "Field 'file_name' must name a "
                                "file of _delta_log/_staged_commits/, not "
                                "'%s'.", name);
    return NULL;
}

static uc_error_t *positive_int(uc_call_t *call, json_t *obj,
                                const char *field, apr_int64_t *out)
{
    return uc_json_required_int(call->pool, obj, field, 1, APR_INT64_MAX,
                                out);
}

static uc_error_t *read_commit_info(uc_call_t *call, json_t *info,
                                    uc_ratified_commit_t *c)
{
    uc_error_t *err;

    if ((err = positive_int(call, info, "version", &c->version)) ||
        (err = positive_int(call, info, "timestamp", &c->timestamp)) ||
        (err = uc_json_string_field(call->pool, info, "file_name", 1,
                                    &c->file_name)) ||
        (err = check_file_name(call, c->file_name)) ||
        (err = positive_int(call, info, "file_size", &c->file_size)))
        return err;
    return positive_int(call, info, "file_modification_timestamp",
                        &c->file_mtime);
}

/* The table's metadata a commit changed: its description, its whole
 * property set (which names the table), its columns. */
static uc_error_t *read_metadata(uc_call_t *call, json_t *meta,
                                 const char *table_id, commit_body_t *b)
{
    json_t *schema, *props, *id;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, meta, "description", 0,
                                    &b->description)) ||
        (err = uc_validate_text(call->pool, "description", b->description,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_object_field(call->pool, meta, "schema", &schema)) ||
        (schema && (err = uc_columns_read(call->pool, "columns",
                                          json_object_get(schema, "columns"),
                                          &b->columns))) ||
        (err = uc_json_object_field(call->pool, meta, "properties",
                                    &props)) ||
        (props && (err = uc_json_string_map_field(call->pool, props,
                                                  "properties",
                                                  &b->properties))))
        return err;
    if (!b->description && !(b->columns && json_array_size(b->columns)) &&
        !(b->properties && json_object_size(b->properties)))
        return uc_error_invalid(call->pool, "At least one of description, "
                                "properties, or schema must be set in "
                                "commit.metadata.");
    id = b->properties ? json_object_get(b->properties, TABLE_ID_PROPERTY)
                       : NULL;
    if (b->properties && (!id || strcmp(json_string_value(id), table_id)))
        return uc_error_invalid(call->pool, "The properties of "
                                "commit.metadata must hold "
                                TABLE_ID_PROPERTY " = %s.", table_id);
    return NULL;
}

static uc_error_t *read_commit_body(uc_call_t *call, const char *table_id,
                                    commit_body_t *b)
{
    json_t *info, *meta, *uniform;
    int present;
    uc_error_t *err;

    memset(b, 0, sizeof(*b));
    b->request.backfilled = -1;
    if ((err = uc_json_string_field(call->pool, call->body, "table_uri", 1,
                                    &b->table_uri)) ||
        (err = uc_json_object_field(call->pool, call->body, "commit_info",
                                    &info)) ||
        (info && (err = read_commit_info(call, info, &b->commit))) ||
        (err = uc_json_int_field(call->pool, call->body,
                                 "latest_backfilled_version", 0,
                                 APR_INT64_MAX, &b->request.backfilled,
                                 &present)) ||
        (err = uc_json_object_field(call->pool, call->body, "metadata",
                                    &meta)) ||
        (err = uc_json_object_field(call->pool, call->body, "uniform",
                                    &uniform)))
        return err;
    if (!present)
        b->request.backfilled = -1;
    if (!info && !present)
        return uc_error_invalid(call->pool, "Either commit_info or "
                                "latest_backfilled_version must be defined.");
    if (!info && (meta || uniform))
        return uc_error_invalid(call->pool, "A backfill report "
                                "(latest_backfilled_version without "
                                "commit_info) carries no metadata or "
                                "uniform.");
    b->request.commit = info ? &b->commit : NULL;
    if (uniform && (err = uc_commit_uniform_read(call->pool, uniform,
                                                 b->commit.version,
                                                 &b->uniform)))
        return err;
    return meta ? read_metadata(call, meta, table_id, b) : NULL;
}

static uc_error_t *table_not_found(uc_call_t *call, const char *id)
{
    return uc_error_make(call->pool, UC_E_TABLE_NOT_FOUND,
                         "Table not found: %s", id);
}

/* A table the coordinator serves: a MANAGED Delta table created
 * catalog-managed. An open staging reservation is no table yet. */
static uc_error_t *check_coordinated(uc_call_t *call, const char *id,
                                     const uc_securable_t *table)
{
    const char *type, *format, *name;

    if (!table || strcmp(table->kind, UC_KIND_TABLE) != 0)
        return table_not_found(call, id);
    type = uc_json_stored_string(call->pool, table->details, "table_type");
    format = uc_json_stored_string(call->pool, table->details,
                                   "data_source_format");
    name = uc_api_chain_name(call, &call->chain, UC_LEVEL_OBJECT);
    if (!type || strcmp(type, "MANAGED") || !format || strcmp(format, "DELTA"))
        return uc_error_invalid(call->pool, "Only managed tables are "
                                "supported for Delta commits: '%s' is not a "
                                "MANAGED DELTA table.", name);
    if (uc_ratified_commits_managed(table))
        return NULL;
    return uc_error_invalid(call->pool, "Table '%s' is not catalog-managed: "
                            "it was not created with the table property "
                            FEATURE_PREFIX "catalogManaged=supported.", name);
}

/* The table's storage, however the client spells it (file:/t, file:///t/,
 * "t/./"). */
static uc_error_t *check_table_uri(uc_call_t *call,
                                   const uc_securable_t *table,
                                   const char *uri)
{
    const char *normal;

    if (!*uri || uc_storage_url_derived(call->pool, "table_uri", uri,
                                        &normal) ||
        !table->storage_location || strcmp(normal, table->storage_location))
        return uc_error_invalid(call->pool, "Table URI in commit (%s) does "
                                "not match the table path.", uri);
    return NULL;
}

/* The table's properties once the commit is ratified: the preview API's
 * properties replace the whole set, but the table's features are its
 * protocol's, which this API never carries, so they stay (a table stays
 * catalog-managed). */
static json_t *properties_after(uc_call_t *call, const uc_securable_t *table,
                                const commit_body_t *b)
{
    json_t *stored = uc_json_own(call->pool,
                                 uc_json_stored_object(table->properties));
    json_t *merged;
    const char *key;
    json_t *value;

    if (!b->properties)
        return stored;
    merged = uc_json_own(call->pool, json_copy(b->properties));
    json_object_foreach(stored, key, value)
        if (!strncmp(key, FEATURE_PREFIX, strlen(FEATURE_PREFIX)))
            json_object_set(merged, key, value);
    return merged;
}

/* The metadata a commit carries, written to the table's row with the
 * commit: comment, properties, columns, and UniForm's metadata (kept in
 * the details, never answered). */
static uc_error_t *apply_metadata(uc_call_t *call, uc_securable_t *table,
                                  const commit_body_t *b)
{
    if (!b->description && !b->properties && !b->columns && !b->uniform)
        return NULL;
    if (b->description)
        table->comment = b->description;
    if (b->properties)
        table->properties = uc_json_dump(call->pool,
                                         properties_after(call, table, b));
    if (b->columns || b->uniform) {
        json_t *details = uc_api_details(call, table);

        if (b->columns)
            json_object_set(details, "columns", b->columns);
        if (b->uniform)
            json_object_set_new(details, UC_TABLE_UNIFORM_DETAIL,
                                uc_commit_uniform_json(b->uniform));
        uc_api_set_details(call, table, details);
    }
    table->updated_at = uc_epoch_ms_text(call->pool, call->now);
    table->updated_by = call->principal;
    return uc_securable_update(call->store, table);
}

static uc_error_t *carry_out(uc_call_t *call, uc_securable_t *table,
                             const commit_body_t *b,
                             const uc_commit_plan_t *plan)
{
    uc_error_t *err;

    if (plan->insert &&
        (err = uc_ratified_commits_insert(call->store, call->pool, table->id,
                                       &b->commit))) {
        /* Another writer's row, should the lock not have held it back. */
        if (uc_store_is_duplicate(err))
            return uc_error_make(call->pool, UC_E_COMMIT_VERSION_CONFLICT,
                                 "Commit version %" APR_INT64_T_FMT
                                 " was accepted for another commit.",
                                 b->commit.version);
        return err;
    }
    if ((plan->forget_up_to >= 0 &&
         (err = uc_ratified_commits_delete_up_to(call->store, call->pool,
                                              table->id,
                                              plan->forget_up_to))) ||
        (plan->flag >= 0 &&
         (err = uc_ratified_commits_flag(call->store, call->pool, table->id,
                                      plan->flag))))
        return err;
    return plan->insert ? apply_metadata(call, table, b) : NULL;
}

/* The chunks two commit files are compared in: never the whole of a
 * file the client chose. */
#define COMPARE_CHUNK 8192

/* Whether two objects hold the same bytes (*same), read a chunk of each at
 * a time. */
static uc_error_t *same_bytes(apr_pool_t *pool, uc_objstore_t *os,
                              const char *a, const char *b, int *same)
{
    apr_pool_t *scratch;
    apr_off_t at;
    uc_error_t *err = NULL;

    apr_pool_create(&scratch, pool);
    *same = 0;
    for (at = 0; !err; at += COMPARE_CHUNK) {
        char *da, *db;
        apr_size_t la, lb;

        apr_pool_clear(scratch);
        if ((err = uc_objstore_read(os, scratch, a, at, COMPARE_CHUNK, &da,
                                    &la)) ||
            (err = uc_objstore_read(os, scratch, b, at, COMPARE_CHUNK, &db,
                                    &lb)))
            break;
        if (la != lb || memcmp(da, db, la) != 0)
            break;
        if (la < COMPARE_CHUNK) {
            *same = 1;
            break;
        }
    }
    if (err)
        err = uc_error_copy(pool, err);
    apr_pool_destroy(scratch);
    return err;
}

/* A version backfilled and forgotten: the request replays it when its
 * staged file holds what _delta_log/<version>.json holds, and conflicts
 * with it otherwise. Compared where the server reads the storage without
 * a call to a cloud (file://: the table's lock is held meanwhile); else,
 * or when either file cannot be read, the state stays `unknown` (never a
 * conflict that may be false: the writer would commit its data twice). */
static uc_error_t *compare_backfilled(uc_call_t *call,
                                      const uc_securable_t *table,
                                      const uc_ratified_commit_t *c,
                                      uc_error_t *unknown)
{
    const uc_objstore_config_t *config;
    uc_objstore_t *os;
    const char *published = apr_psprintf(call->pool, "_delta_log/%020"
                                         APR_INT64_T_FMT ".json", c->version);
    const char *staged = apr_pstrcat(call->pool, "_delta_log/_staged_commits/",
                                     c->file_name, NULL);
    int same;
    uc_error_t *err;

    if (strncmp(table->storage_location, "file:", 5) != 0 ||
        !uc_objstore_key_is_safe(staged))
        return unknown;
    if ((err = uc_table_store_config(call, table->storage_location, &config,
                                     NULL)) ||
        (err = uc_objstore_open(call->pool, table->storage_location, config,
                                &os)) ||
        (err = same_bytes(call->pool, os, published, staged, &same)))
        return uc_error_because(call->pool, unknown, "comparing %s with %s: "
                                "%s", published, staged, err->message);
    if (same)
        return NULL;
    return uc_error_make(call->pool, UC_E_COMMIT_VERSION_CONFLICT, "Commit "
                         "version already accepted: version %" APR_INT64_T_FMT
                         " was backfilled from another commit file than %s.",
                         c->version, c->file_name);
}

/* The most commits a table may have waiting to be backfilled
 * (UnicatDeltaMaxUnbackfilledCommits; calls the glue did not make get the
 * default). */
static int unbackfilled_limit(const uc_call_t *call)
{
    return call->max_unbackfilled_commits > 0
           ? call->max_unbackfilled_commits : UC_COMMIT_MAX_UNBACKFILLED;
}

/* POST: ratifies a commit, reports a backfill, or both. Answers {} (a
 * replay too). */
static uc_error_t *post_commit(uc_call_t *call, uc_jw_t *out)
{
    const char *id = UC_TARGET_OF(call)->id;
    uc_securable_t *table;
    apr_array_header_t *rows;
    commit_body_t b;
    uc_commit_plan_t plan;
    uc_error_t *err;

    if ((err = read_commit_body(call, id, &b)) ||
        (err = uc_securable_by_id_for_update(call->store, call->pool, id,
                                             &table)) ||
        (err = check_coordinated(call, id, table)) ||
        (err = check_table_uri(call, table, b.table_uri)) ||
        (b.request.commit &&
         (err = uc_commit_uniform_check(call->pool, b.uniform,
                                        properties_after(call, table, &b),
                                        table->storage_location))) ||
        (err = uc_ratified_commits_of(call->store, call->pool, id, &rows)) ||
        ((err = uc_commit_plan_make(call->pool, rows, &b.request,
                                    unbackfilled_limit(call), &plan)) &&
         (err->kind != UC_E_COMMIT_STATE_UNKNOWN ||
          (err = compare_backfilled(call, table, &b.commit, err)))) ||
        (!plan.replay && (err = carry_out(call, table, &b, &plan))))
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

static void write_commit(uc_jw_t *out, const uc_ratified_commit_t *c)
{
    uc_jw_begin_object(out);
    uc_jw_field_int(out, "version", c->version);
    uc_jw_field_int(out, "timestamp", c->timestamp);
    uc_jw_field_string(out, "file_name", c->file_name);
    uc_jw_field_int(out, "file_size", c->file_size);
    uc_jw_field_int(out, "file_modification_timestamp", c->file_mtime);
    uc_jw_end_object(out);
}

/* GET: the ratified commits in [start_version, end_version] not yet
 * backfilled, newest first, and the table's latest version. The request
 * is a JSON body (the UC client's), or the query string. */
static uc_error_t *get_commits(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *table = UC_TARGET_OF(call);
    apr_int64_t start, end = -1, latest;
    apr_array_header_t *rows, *shown;
    int present, i;
    uc_error_t *err;

    if ((err = uc_json_required_int(call->pool, call->body, "start_version",
                                    0, APR_INT64_MAX, &start)) ||
        (err = uc_json_int_field(call->pool, call->body, "end_version", 0,
                                 APR_INT64_MAX, &end, &present)))
        return err;
    if (!present)
        end = -1;
    else if (end < start)
        return uc_error_invalid(call->pool, "end_version (%" APR_INT64_T_FMT
                                ") must not be less than start_version (%"
                                APR_INT64_T_FMT ").", end, start);
    if ((err = check_coordinated(call, table->id, table)) ||
        (err = uc_ratified_commits_of(call->store, call->pool, table->id,
                                   &rows)))
        return err;
    uc_commit_plan_listing(call->pool, rows, start, end, &shown, &latest);
    uc_jw_begin_object(out);
    uc_jw_key(out, "commits");
    uc_jw_begin_array(out);
    for (i = 0; i < shown->nelts; i++)
        write_commit(out, APR_ARRAY_IDX(shown, i,
                                        const uc_ratified_commit_t *));
    uc_jw_end_array(out);
    uc_jw_field_int(out, "latest_table_version", latest);
    uc_jw_end_object(out);
    return NULL;
}

/* Unity Catalog's UPDATE_TABLE and its reading of commits. */
#define ON_TABLE(privs) \
    { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, { UC_LEVEL_OBJECT, (privs) } }
static const uc_rule_t commit_rule = {
    UC_TARGET_OBJECT_ID, ON_TABLE(P(UC_PRIV_MODIFY)), UC_TYPE_TABLE,
    "table_id" };
static const uc_rule_t read_rule = {
    UC_TARGET_OBJECT_ID, ON_TABLE(P(UC_PRIV_SELECT)), UC_TYPE_TABLE,
    "table_id" };

const uc_route_t uc_delta_commit_routes[] = {
    { UC_POST, "/delta/preview/commits", post_commit,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &commit_rule, .audit = "DELTA_COMMIT" },
    { UC_GET, "/delta/preview/commits", get_commits,
      UC_ROUTE_BODY | UC_ROUTE_BODY_OR_QUERY, &read_rule },
    { 0, NULL, NULL, 0, NULL }
};
