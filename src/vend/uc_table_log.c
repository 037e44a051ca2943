/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_table_log.h"
#include "uc_table_store.h"

#include <string.h>

uc_error_t *uc_table_log_open(uc_call_t *call, const char *location,
                              uc_table_log_t *log)
{
    uc_error_t *err;

    memset(log, 0, sizeof(*log));
    log->call = call;
    if ((err = uc_table_store_config(call, location, &log->config,
                                     &log->valid_until)))
        return err;
    return uc_delta_table_open(call->pool, location, log->config,
                               &log->delta);
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
