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
#include "uc_commit_uniform.h"
#include "uc_delta_contract.h"
#include "uc_ratify.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_ratified_commits.h"
#include "../vend/uc_storage_url.h"

#define P UC_PRIV
#define TABLE_ID_PROPERTY "io.unitycatalog.tableId"
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
        (info && (err = uc_ratify_read_commit(call, info,
                                              &uc_commit_fields_preview,
                                              &b->commit))) ||
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
                                                 UC_UNIFORM_PREVIEW,
                                                 &b->uniform)))
        return err;
    return meta ? read_metadata(call, meta, table_id, b) : NULL;
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
        if (uc_delta_protocol_is_feature(key))
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

/* POST: ratifies a commit, reports a backfill, or both. Answers {} (a
 * replay too). */
static uc_error_t *post_commit(uc_call_t *call, uc_jw_t *out)
{
    const char *id = UC_TARGET_OF(call)->id;
    uc_securable_t *table;
    commit_body_t b;
    int replay;
    uc_error_t *err;

    if ((err = read_commit_body(call, id, &b)) ||
        (err = uc_securable_by_id_for_update(call->store, call->pool, id,
                                             &table)) ||
        (err = uc_ratify_check_table(call, id, table)) ||
        (err = check_table_uri(call, table, b.table_uri)) ||
        (b.request.commit &&
         (err = uc_commit_uniform_check(call->pool, b.uniform,
                                        properties_after(call, table, &b),
                                        table->storage_location))) ||
        (err = uc_ratify(call, table, &b.request, &replay, NULL)) ||
        (!replay && b.request.commit &&
         (err = apply_metadata(call, table, &b))))
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

/* GET: the ratified commits in [start_version, end_version] not yet
 * backfilled, newest first, and the table's latest version. The request
 * is a JSON body (the UC client's), or the query string. */
static uc_error_t *get_commits(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *table = UC_TARGET_OF(call);
    apr_int64_t start, end = -1;
    int present;
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
    if ((err = uc_ratify_check_table(call, table->id, table)))
        return err;
    uc_jw_begin_object(out);
    if ((err = uc_ratify_write_commits(call, out, &uc_commit_fields_preview,
                                       table, NULL, start, end)))
        return err;
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
