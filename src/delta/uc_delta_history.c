/* SPDX-License-Identifier: Apache-2.0 */
/* The table through time: commit timestamps (file times made monotonic, or
 * In-Commit Timestamps where the table turned them on), versions by
 * timestamp as Delta Sharing defines them, and the change data feed. */
#include "uc_delta_internal.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"

/* Whether version v's timestamp is its ICT under these features. */
static int uses_ict(const uc_delta_features_t *f, apr_int64_t v)
{
    return f && f->in_commit_timestamps && v >= f->ict_enablement_version;
}

static uc_error_t *timestamp_of(uc_delta_table_t *table, apr_pool_t *pool,
                                const uc_delta_log_t *log,
                                const uc_delta_features_t *f, apr_int64_t v,
                                apr_int64_t *ts)
{
    const uc_log_commit_t *c = uc_delta_log_commit(log, v);
    uc_error_t *err;
    int found;

    if (!c)
        return uc_delta_corrupt(pool, table, "commit %" APR_INT64_T_FMT
                                " is missing", v);
    if (uses_ict(f, v)) {
        if ((err = uc_delta_read_ict(table, pool, v, &found, ts)))
            return err;
        if (found)
            return NULL;
    }
    *ts = c->timestamp;
    return NULL;
}

/* Binary search over commits [lo, hi] (indexes into log->commits) for the
 * boundary of `ts`, reading ICTs only at the probed versions. */
static uc_error_t *search(uc_delta_table_t *table, apr_pool_t *pool,
                          const uc_delta_log_t *log,
                          const uc_delta_features_t *f, int lo, int hi,
                          apr_int64_t ts, uc_delta_time_match_t match,
                          int *found_index)
{
    const uc_log_commit_t *c = (const uc_log_commit_t *)log->commits->elts;
    int answer = -1;
    uc_error_t *err;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        apr_int64_t at;

        if ((err = timestamp_of(table, pool, log, f, c[mid].version, &at)))
            return err;
        if (match == UC_DELTA_AT_OR_BEFORE) {
            if (at <= ts) {
                answer = mid;
                lo = mid + 1;
            }
            else
                hi = mid - 1;
        }
        else if (at >= ts) {
            answer = mid;
            hi = mid - 1;
        }
        else
            lo = mid + 1;
    }
    *found_index = answer;
    return NULL;
}

uc_error_t *uc_delta_version_at(uc_delta_table_t *table,
                                const uc_delta_snapshot_t *latest,
                                apr_int64_t timestamp,
                                uc_delta_time_match_t match,
                                apr_int64_t *version)
{
    apr_pool_t *pool = table->pool;
    uc_delta_log_t *log;
    uc_delta_snapshot_t *own = NULL;
    const uc_delta_features_t *f;
    const uc_log_commit_t *c;
    int n, lo = 0, hi, index = -1, split = -1;
    uc_error_t *err;

    if ((err = uc_delta_list(table, pool, 0, &log)))
        return err;
    if (!latest) {
        if ((err = uc_delta_snapshot(table, UC_DELTA_LATEST, &own)))
            return err;
        latest = own;
    }
    f = &latest->features;
    c = (const uc_log_commit_t *)log->commits->elts;
    n = log->commits->nelts;
    hi = n - 1;
    /* With ICT turned on later, versions before and after the enablement
     * are searched apart: their clocks differ. */
    if (f->in_commit_timestamps && f->ict_enablement_version > 0) {
        for (split = 0; split < n
             && c[split].version < f->ict_enablement_version; split++)
            ;
        if (f->ict_enablement_timestamp != UC_DELTA_NONE
            && timestamp >= f->ict_enablement_timestamp)
            lo = split;
        else
            hi = split - 1;
    }
    err = n == 0 ? NULL : search(table, pool, log, f, lo, hi, timestamp,
                                 match, &index);
    if (own)
        uc_delta_snapshot_release(own);
    if (err)
        return err;
    /* Before the ICT enablement but after every older commit: the first
     * ICT commit is the earliest at or after it. */
    if (index < 0 && match == UC_DELTA_AT_OR_AFTER && split >= 0
        && hi == split - 1 && split < n)
        index = split;
    if (index < 0)
        return match == UC_DELTA_AT_OR_BEFORE
            ? uc_delta_table_error(pool, table, UC_E_INVALID,
                      "The provided timestamp (%" APR_INT64_T_FMT " ms)"
                      " is before the earliest version available of the "
                      "table.", timestamp)
            : uc_delta_table_error(pool, table, UC_E_INVALID,
                      "The provided timestamp (%" APR_INT64_T_FMT " ms)"
                      " is after the latest version available of the "
                      "table.", timestamp);
    *version = c[index].version;
    return NULL;
}

static const char *text_of(apr_pool_t *pool, json_t *value)
{
    if (json_is_string(value))
        return apr_pstrdup(pool, json_string_value(value));
    if (json_is_object(value))
        return uc_json_dump(pool, value);
    return NULL;
}

static void add_change(apr_pool_t *pool, uc_delta_changes_t *out,
                       uc_delta_change_kind_t kind, apr_int64_t version,
                       apr_int64_t ts, json_t *action)
{
    uc_delta_change_t *c = apr_array_push(out->changes);
    json_t *size = json_object_get(action, "size");
    json_t *pv = json_object_get(action, "partitionValues");

    c->kind = kind;
    c->version = version;
    c->timestamp = ts;
    c->path = text_of(pool, json_object_get(action, "path"));
    c->partition_values = json_is_object(pv) ? uc_json_dump(pool, pv) : "{}";
    c->size = json_is_integer(size) ? json_integer_value(size)
                                    : UC_DELTA_NONE;
    c->stats = text_of(pool, json_object_get(action, "stats"));
    c->deletion_vector = text_of(pool, json_object_get(action,
                                                       "deletionVector"));
}

static int data_change(json_t *action)
{
    json_t *v = json_object_get(action, "dataChange");

    return !json_is_false(v);
}

/* The newest protocol and metaData a commit carries, if any. */
static void commit_state(apr_array_header_t *actions, json_t **protocol,
                         json_t **metadata)
{
    int i;

    for (i = 0; i < actions->nelts; i++) {
        json_t *a = APR_ARRAY_IDX(actions, i, json_t *);

        if (json_is_object(json_object_get(a, "metaData")))
            *metadata = json_object_get(a, "metaData");
        if (json_is_object(json_object_get(a, "protocol")))
            *protocol = json_object_get(a, "protocol");
    }
}

/* A commit's time from its own actions: the ICT of its first one when
 * the table uses ICT there, else the listing's monotonic file time. */
static apr_int64_t commit_time(const uc_delta_log_t *log,
                               const uc_delta_features_t *f,
                               apr_array_header_t *actions, apr_int64_t v)
{
    if (uses_ict(f, v) && actions->nelts > 0) {
        json_t *ict = json_object_get(json_object_get(
            APR_ARRAY_IDX(actions, 0, json_t *), "commitInfo"),
            "inCommitTimestamp");

        if (json_is_integer(ict))
            return json_integer_value(ict);
    }
    return uc_delta_log_commit(log, v)->timestamp;
}

/* One commit's changes: with `cdf`, its cdc files when it wrote any;
 * else the data files it added and removed. */
static void commit_changes(apr_pool_t *pool, apr_array_header_t *actions,
                           apr_int64_t version, apr_int64_t ts, int cdf,
                           uc_delta_changes_t *out)
{
    int i, has_cdc = 0;

    for (i = 0; cdf && i < actions->nelts && !has_cdc; i++)
        has_cdc = json_is_object(json_object_get(
            APR_ARRAY_IDX(actions, i, json_t *), "cdc"));
    for (i = 0; i < actions->nelts; i++) {
        json_t *a = APR_ARRAY_IDX(actions, i, json_t *), *body;

        if (has_cdc) {
            if (json_is_object(body = json_object_get(a, "cdc")))
                add_change(pool, out, UC_DELTA_CHANGE_CDC, version, ts, body);
        }
        else if (json_is_object(body = json_object_get(a, "add"))) {
            if (data_change(body))
                add_change(pool, out, UC_DELTA_CHANGE_ADD, version, ts, body);
        }
        else if (json_is_object(body = json_object_get(a, "remove"))) {
            if (data_change(body))
                add_change(pool, out, UC_DELTA_CHANGE_REMOVE, version, ts,
                           body);
        }
    }
}

static uc_error_t *check_range(apr_pool_t *pool, const uc_delta_table_t *table,
                               const uc_delta_log_t *log, apr_int64_t start,
                               apr_int64_t end)
{
    apr_int64_t v;

    if (start < 0 || end < 0)
        return uc_error_invalid(pool,
                   "Change data versions cannot be negative.");
    if (start > log->latest)
        return uc_error_invalid(pool,
                       "Provided start version (%" APR_INT64_T_FMT ") "
                       "cannot be greater than the latest version of the "
                       "table (%" APR_INT64_T_FMT ").", start, log->latest);
    if (end > log->latest)
        return uc_error_invalid(pool,
                       "Provided end version (%" APR_INT64_T_FMT ") "
                       "cannot be greater than the latest version of the "
                       "table (%" APR_INT64_T_FMT ").", end, log->latest);
    if (start > end)
        return uc_error_invalid(pool,
                       "The start version (%" APR_INT64_T_FMT ") is "
                       "after the end version (%" APR_INT64_T_FMT ").",
                       start, end);
    for (v = start; v <= end; v++)
        if (!uc_delta_log_commit(log, v))
            return uc_delta_table_error(pool, table, UC_E_INVALID,
                           "The changes of version %" APR_INT64_T_FMT
                           " of the table are no longer in its log.", v);
    return NULL;
}

/* The walk of both feeds: `cdf` says which one, and that the change data
 * feed must be on throughout. */
static uc_error_t *walk_changes(uc_delta_table_t *table, apr_pool_t *pool,
                                apr_int64_t start, apr_int64_t end, int cdf,
                                uc_delta_changes_t **out)
{
    uc_delta_log_t *log;
    uc_delta_snapshot_t *at_start;
    uc_delta_changes_t *changes = apr_pcalloc(pool, sizeof(*changes));
    uc_delta_features_t features;
    json_t *protocol, *metadata;
    apr_int64_t v;
    uc_error_t *err;

    if ((err = uc_delta_list(table, pool, 0, &log)))
        return err;
    if (end == UC_DELTA_LATEST)
        end = log->latest;
    if ((err = check_range(pool, table, log, start, end)))
        return err;
    if ((err = uc_delta_snapshot(table, start, &at_start)))
        return err;
    changes->start_version = start;
    changes->end_version = end;
    changes->protocol = apr_pstrdup(pool, at_start->protocol);
    changes->metadata = apr_pstrdup(pool, at_start->metadata);
    uc_delta_snapshot_release(at_start);
    protocol = uc_json_own(pool, json_loads(changes->protocol, 0, NULL));
    metadata = uc_json_own(pool, json_loads(changes->metadata, 0, NULL));
    if ((err = uc_delta_read_features(pool, table, protocol, metadata,
                                      &changes->features)))
        return err;
    features = changes->features;
    changes->changes = apr_array_make(pool, 16, sizeof(uc_delta_change_t));
    changes->metadata_versions = apr_array_make(pool, 2,
                                                sizeof(apr_int64_t));
    changes->protocol_versions = apr_array_make(pool, 1,
                                                sizeof(apr_int64_t));
    for (v = start; v <= end; v++) {
        apr_array_header_t *actions;
        json_t *new_protocol = protocol, *new_metadata = metadata;

        if ((err = uc_delta_read_commit(table, pool, v, &actions)))
            return err;
        commit_state(actions, &new_protocol, &new_metadata);
        if (new_protocol != protocol || new_metadata != metadata) {
            if ((err = uc_delta_read_features(pool, table, new_protocol,
                                              new_metadata, &features)))
                return err;
            if (new_metadata != metadata && v > start)
                APR_ARRAY_PUSH(changes->metadata_versions, apr_int64_t) = v;
            if (new_protocol != protocol && v > start)
                APR_ARRAY_PUSH(changes->protocol_versions, apr_int64_t) = v;
            protocol = new_protocol;
            metadata = new_metadata;
        }
        if (cdf && !features.change_data_feed)
            return uc_error_invalid(pool,
                           "Error getting change data for range [%"
                           APR_INT64_T_FMT ", %" APR_INT64_T_FMT "] as change "
                           "data was not recorded for version [%"
                           APR_INT64_T_FMT "].", start, end, v);
        commit_changes(pool, actions, v,
                       commit_time(log, &features, actions, v), cdf, changes);
    }
    *out = changes;
    return NULL;
}

uc_error_t *uc_delta_changes(uc_delta_table_t *table, apr_pool_t *pool,
                             apr_int64_t start, apr_int64_t end,
                             uc_delta_changes_t **out)
{
    return walk_changes(table, pool, start, end, 1, out);
}

uc_error_t *uc_delta_data_changes(uc_delta_table_t *table, apr_pool_t *pool,
                                  apr_int64_t start, apr_int64_t end,
                                  uc_delta_changes_t **out)
{
    return walk_changes(table, pool, start, end, 0, out);
}
