/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_ratified_commits.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"

static const char *const catalog_managed[] = {
    UC_TABLE_FEATURE_PREFIX "catalogManaged",
    UC_TABLE_FEATURE_PREFIX "catalogOwned-preview", NULL
};

static const char *text_of(apr_pool_t *pool, apr_int64_t n)
{
    return apr_psprintf(pool, "%" APR_INT64_T_FMT, n);
}

int uc_ratified_commits_managed(const uc_securable_t *table)
{
    json_t *props = uc_json_stored_object(table->properties);
    int i, managed = 0;

    for (i = 0; catalog_managed[i] && !managed; i++) {
        json_t *v = json_object_get(props, catalog_managed[i]);

        managed = json_is_string(v) &&
                  !strcmp(json_string_value(v), "supported");
    }
    json_decref(props);
    return managed;
}

uc_error_t *uc_ratified_commits_of(uc_store_t *store, apr_pool_t *pool,
                                const char *table_id,
                                apr_array_header_t **out)
{
    const char *args[] = { table_id };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_DELTA_COMMITS_OF,
                                      args, &rows);

    if (err)
        return err;
    *out = apr_array_make(pool, rows.nrows ? rows.nrows : 1,
                          sizeof(uc_ratified_commit_t));
    for (i = 0; i < rows.nrows; i++) {
        const char **r = rows.rows[i];
        uc_ratified_commit_t *c = apr_array_push(*out);

        c->version = apr_atoi64(r[UC_DELTA_COMMIT_COL_commit_version]);
        c->file_name = r[UC_DELTA_COMMIT_COL_commit_filename];
        c->file_size = apr_atoi64(r[UC_DELTA_COMMIT_COL_commit_filesize]);
        c->file_mtime = apr_atoi64(
            r[UC_DELTA_COMMIT_COL_commit_file_mtime_ms]);
        c->timestamp = apr_atoi64(r[UC_DELTA_COMMIT_COL_commit_timestamp_ms]);
        c->backfilled =
            apr_atoi64(r[UC_DELTA_COMMIT_COL_is_backfilled_latest]) != 0;
    }
    return NULL;
}

uc_error_t *uc_ratified_commits_insert(uc_store_t *store, apr_pool_t *pool,
                                    const char *table_id,
                                    const uc_ratified_commit_t *commit)
{
    const char *args[1 + UC_DELTA_COMMIT_NCOLS];

    args[0] = table_id;
    args[1 + UC_DELTA_COMMIT_COL_commit_version] =
        text_of(pool, commit->version);
    args[1 + UC_DELTA_COMMIT_COL_commit_filename] = commit->file_name;
    args[1 + UC_DELTA_COMMIT_COL_commit_filesize] =
        text_of(pool, commit->file_size);
    args[1 + UC_DELTA_COMMIT_COL_commit_file_mtime_ms] =
        text_of(pool, commit->file_mtime);
    args[1 + UC_DELTA_COMMIT_COL_commit_timestamp_ms] =
        text_of(pool, commit->timestamp);
    args[1 + UC_DELTA_COMMIT_COL_is_backfilled_latest] =
        commit->backfilled ? "1" : "0";
    return uc_store_exec(store, UC_STMT_DELTA_COMMIT_INSERT, args, NULL);
}

uc_error_t *uc_ratified_commits_delete_up_to(uc_store_t *store,
                                          apr_pool_t *pool,
                                          const char *table_id,
                                          apr_int64_t version)
{
    const char *args[] = { table_id, text_of(pool, version) };

    return uc_store_exec(store, UC_STMT_DELTA_COMMITS_DELETE_UP_TO, args,
                         NULL);
}

uc_error_t *uc_ratified_commits_flag(uc_store_t *store, apr_pool_t *pool,
                                  const char *table_id, apr_int64_t version)
{
    const char *args[] = { table_id, text_of(pool, version) };

    return uc_store_exec(store, UC_STMT_DELTA_COMMIT_FLAG, args, NULL);
}
