/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_ratify.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_api.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../delta/uc_delta.h"
#include "../store/uc_ratified_commits.h"
#include "../vend/uc_table_store.h"


const uc_commit_fields_t uc_commit_fields_preview = {
    "version", "timestamp", "file_name", "file_size",
    "file_modification_timestamp", "latest_table_version"
};
const uc_commit_fields_t uc_commit_fields_delta = {
    "version", "timestamp", "file-name", "file-size",
    "file-modification-timestamp", "latest-table-version"
};

static uc_error_t *positive_int(uc_call_t *call, json_t *obj,
                                const char *field, apr_int64_t *out)
{
    return uc_json_required_int(call->pool, obj, field, 1, APR_INT64_MAX,
                                out);
}

/* The commit's file: one name in _delta_log/_staged_commits/. */
static uc_error_t *check_file_name(uc_call_t *call, const char *field,
                                   const char *name)
{
    uc_error_t *err = uc_validate_text(call->pool, field, name,
                                       UC_DELTA_FILE_NAME_MAX);

    if (err)
        return err;
    if (!uc_delta_catalog_file_name(name))
        return uc_error_invalid(call->pool, "Field '%s' must name a file of "
                                "_delta_log/_staged_commits/, not '%s'.",
                                field, name);
    return NULL;
}

uc_error_t *uc_ratify_read_commit(uc_call_t *call, json_t *info,
                                  const uc_commit_fields_t *names,
                                  uc_ratified_commit_t *c)
{
    uc_error_t *err;

    memset(c, 0, sizeof(*c));
    if ((err = positive_int(call, info, names->version, &c->version)) ||
        (err = positive_int(call, info, names->timestamp, &c->timestamp)) ||
        (err = uc_json_string_field(call->pool, info, names->file_name, 1,
                                    &c->file_name)) ||
        (err = check_file_name(call, names->file_name, c->file_name)) ||
        (err = positive_int(call, info, names->file_size, &c->file_size)))
        return err;
    return positive_int(call, info, names->file_mtime, &c->file_mtime);
}

static void write_commit(uc_jw_t *out, const uc_commit_fields_t *names,
                         const uc_ratified_commit_t *c)
{
    uc_jw_begin_object(out);
    uc_jw_field_int(out, names->version, c->version);
    uc_jw_field_int(out, names->timestamp, c->timestamp);
    uc_jw_field_string(out, names->file_name, c->file_name);
    uc_jw_field_int(out, names->file_size, c->file_size);
    uc_jw_field_int(out, names->file_mtime, c->file_mtime);
    uc_jw_end_object(out);
}

uc_error_t *uc_ratify_write_commits(uc_call_t *call, uc_jw_t *out,
                                    const uc_commit_fields_t *names,
                                    const uc_securable_t *table,
                                    const apr_array_header_t *rows,
                                    apr_int64_t start, apr_int64_t end)
{
    apr_array_header_t *read, *shown;
    apr_int64_t latest;
    int i;
    uc_error_t *err;

    if (!rows) {
        if ((err = uc_ratified_commits_of(call->store, call->pool, table->id,
                                          &read)))
            return err;
        rows = read;
    }
    uc_commit_plan_listing(call->pool, rows, start, end, &shown, &latest);
    uc_jw_key(out, "commits");
    uc_jw_begin_array(out);
    for (i = 0; i < shown->nelts; i++)
        write_commit(out, names, APR_ARRAY_IDX(shown, i,
                                               const uc_ratified_commit_t *));
    uc_jw_end_array(out);
    uc_jw_field_int(out, names->latest, latest);
    return NULL;
}

uc_error_t *uc_ratify_check_table(uc_call_t *call, const char *id,
                                  const uc_securable_t *table)
{
    const char *type, *format, *name;

    if (!table || strcmp(table->kind, UC_KIND_TABLE) != 0)
        return uc_error_make(call->pool, UC_E_TABLE_NOT_FOUND,
                             "Table not found: %s", id);
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
                            UC_TABLE_FEATURE_PREFIX "catalogManaged="
                            "supported.", name);
}

static uc_error_t *carry_out(uc_call_t *call, const uc_securable_t *table,
                             const uc_commit_request_t *req,
                             const uc_commit_plan_t *plan)
{
    uc_error_t *err;

    if (plan->insert &&
        (err = uc_ratified_commits_insert(call->store, call->pool, table->id,
                                       req->commit))) {
        /* Another writer's row, should the lock not have held it back. */
        if (uc_store_is_duplicate(err))
            return uc_error_make(call->pool, UC_E_COMMIT_VERSION_CONFLICT,
                                 "Commit version %" APR_INT64_T_FMT
                                 " was accepted for another commit.",
                                 req->commit->version);
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
    return NULL;
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

uc_error_t *uc_ratify(uc_call_t *call, const uc_securable_t *table,
                      const uc_commit_request_t *req, int *replay,
                      apr_array_header_t **after)
{
    apr_array_header_t *rows, *ignored;
    uc_commit_plan_t plan;
    uc_error_t *err;

    *replay = 0;
    if (!after)
        after = &ignored;
    if ((err = uc_ratified_commits_of(call->store, call->pool, table->id,
                                      &rows)))
        return err;
    *after = rows;
    err = uc_commit_plan_make(call->pool, rows, req, unbackfilled_limit(call),
                              &plan);
    /* A version forgotten: only its files can tell a replay. */
    if (err && err->kind == UC_E_COMMIT_STATE_UNKNOWN) {
        if ((err = compare_backfilled(call, table, req->commit, err)))
            return err;
        *replay = 1;
        return NULL;
    }
    if (err)
        return err;
    *replay = plan.replay;
    if (plan.replay)
        return NULL;
    *after = uc_commit_plan_after(call->pool, rows, req->commit, &plan);
    return carry_out(call, table, req, &plan);
}
