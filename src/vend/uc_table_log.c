/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_table_log.h"
#include "uc_table_store.h"

#include <string.h>

#include "../store/uc_ratified_commits.h"

/* What the catalog ratified of `table`, read once for the call: the
 * commits its rows hold that are not yet backfilled, and the latest
 * version of all (the flagged row's when every one is). */
static uc_error_t *catalog_of(uc_call_t *call, const uc_securable_t *table,
                              uc_delta_catalog_t *out)
{
    apr_array_header_t *rows;
    uc_delta_ratified_t *commits;
    uc_error_t *err;
    int i;

    if ((err = uc_ratified_commits_of(call->store, call->pool, table->id,
                                      &rows)))
        return err;
    commits = apr_pcalloc(call->pool, sizeof(*commits)
                                      * (apr_size_t)(rows->nelts + 1));
    out->latest = UC_DELTA_LATEST;
    out->commits = commits;
    out->num_commits = 0;
    for (i = 0; i < rows->nelts; i++) {
        const uc_ratified_commit_t *r = &APR_ARRAY_IDX(rows, i,
                                                       uc_ratified_commit_t);
        out->latest = r->version;
        if (r->backfilled)
            continue;
        commits[out->num_commits].version = r->version;
        commits[out->num_commits].file_name = r->file_name;
        commits[out->num_commits].size = r->file_size;
        commits[out->num_commits].mtime = r->file_mtime;
        commits[out->num_commits++].timestamp = r->timestamp;
    }
    return NULL;
}

uc_error_t *uc_table_log_open(uc_call_t *call, const uc_securable_t *table,
                              uc_table_log_t *log)
{
    uc_delta_table_t *delta;
    uc_delta_catalog_t catalog;
    uc_error_t *err;

    memset(log, 0, sizeof(*log));
    log->call = call;
    log->location = table->storage_location;
    if ((err = uc_table_store_config(call, log->location, &log->config,
                                     &log->valid_until)) ||
        (err = uc_delta_table_open(call->pool, log->location, log->config,
                                   &delta)))
        return err;
    if (uc_ratified_commits_managed(table) &&
        ((err = catalog_of(call, table, &catalog)) ||
         (err = uc_delta_catalog_follow(delta, &catalog))))
        return err;
    log->delta = delta;
    return NULL;
}

uc_error_t *uc_table_log_reopen(const uc_table_log_t *log, apr_pool_t *pool,
                                uc_delta_table_t **out)
{
    const uc_delta_catalog_t *catalog = uc_delta_catalog_of(log->delta);
    uc_error_t *err;

    if ((err = uc_delta_table_open(pool, log->location,
                                   uc_objstore_config_copy(pool, log->config),
                                   out)))
        return err;
    return catalog ? uc_delta_catalog_follow(*out, catalog) : NULL;
}

static apr_status_t release_snapshot(void *snapshot)
{
    uc_delta_snapshot_release(snapshot);
    return APR_SUCCESS;
}

/* The call holds the snapshot until its pool goes. */
static uc_delta_snapshot_t *held(uc_table_log_t *log,
                                 uc_delta_snapshot_t *snap)
{
    apr_pool_cleanup_register(log->call->pool, snap, release_snapshot,
                              apr_pool_cleanup_null);
    return snap;
}

uc_error_t *uc_table_log_latest(uc_table_log_t *log,
                                uc_delta_snapshot_t **out)
{
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    if (!log->latest) {
        err = log->call->snapshots
              ? uc_delta_cache_latest(log->call->snapshots, log->delta,
                                      &snap)
              : uc_delta_snapshot(log->delta, UC_DELTA_LATEST, &snap);
        if (err)
            return err;
        log->latest = held(log, snap);
    }
    *out = log->latest;
    return NULL;
}

uc_error_t *uc_table_log_at(uc_table_log_t *log, apr_int64_t version,
                            uc_delta_snapshot_t **out)
{
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    if (log->latest && log->latest->version == version) {
        *out = log->latest;
        return NULL;
    }
    if ((err = uc_delta_snapshot(log->delta, version, &snap)))
        return err;
    *out = held(log, snap);
    return NULL;
}
