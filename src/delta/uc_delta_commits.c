/* SPDX-License-Identifier: Apache-2.0 */
/* The history of a table as its commits tell it: newest first, those the
 * log still holds as JSON commit files, each with its commitInfo and what
 * it added and removed. */
#include "uc_delta_internal.h"

#include <string.h>

#include "../core/uc_json.h"

/* The index in log->commits of the newest commit below `below`
 * (UC_DELTA_LATEST: the newest of all); -1 when there is none. */
static int newest_below(const uc_delta_log_t *log, apr_int64_t below)
{
    const uc_log_commit_t *c = (const uc_log_commit_t *)log->commits->elts;
    int lo = 0, hi = log->commits->nelts - 1, found = -1;

    if (below == UC_DELTA_LATEST)
        return hi;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;

        if (c[mid].version < below) {
            found = mid;
            lo = mid + 1;
        }
        else
            hi = mid - 1;
    }
    return found;
}

static apr_int64_t size_of(json_t *action)
{
    json_t *size = json_object_get(action, "size");

    return json_is_integer(size) ? json_integer_value(size) : 0;
}

/* What one commit's actions say; its strings go to `pool`. */
static void summarize(apr_pool_t *pool, apr_array_header_t *actions,
                      uc_delta_commit_t *out)
{
    json_t *info = NULL, *ict;
    int i;

    for (i = 0; i < actions->nelts; i++) {
        json_t *a = APR_ARRAY_IDX(actions, i, json_t *), *body;

        if (json_is_object(body = json_object_get(a, "add"))) {
            out->num_added_files++;
            out->added_bytes += size_of(body);
        }
        else if (json_is_object(body = json_object_get(a, "remove"))) {
            out->num_removed_files++;
            out->removed_bytes += size_of(body);
        }
        else if (!info && json_is_object(body = json_object_get(a,
                                                                "commitInfo")))
            info = body;
    }
    if (!info)
        return;
    out->commit_info = uc_json_dump(pool, info);
    ict = json_object_get(info, "inCommitTimestamp");
    if (json_is_integer(ict))
        out->timestamp = json_integer_value(ict);
}

uc_error_t *uc_delta_commits_read(uc_delta_table_t *table, apr_pool_t *pool,
                                  apr_int64_t below, int limit,
                                  apr_array_header_t **out, int *more)
{
    const uc_log_commit_t *c;
    uc_delta_log_t *log;
    apr_pool_t *scratch;
    apr_array_header_t *commits;
    int i;
    uc_error_t *err = NULL;

    if ((err = uc_delta_list(table, pool, 0, &log)))
        return err;
    c = (const uc_log_commit_t *)log->commits->elts;
    commits = apr_array_make(pool, limit > 0 ? limit : 1,
                             sizeof(uc_delta_commit_t));
    apr_pool_create(&scratch, pool);
    /* A commit's actions are parsed whole: each goes once its summary is
     * taken, so that a page of large commits holds one at a time. */
    for (i = newest_below(log, below); i >= 0 && commits->nelts < limit;
         i--) {
        uc_delta_commit_t *commit;
        apr_array_header_t *actions;

        if ((err = uc_delta_read_commit(table, scratch, c[i].version,
                                        &actions))) {
            err = uc_error_copy(pool, err);
            break;
        }
        commit = apr_array_push(commits);
        memset(commit, 0, sizeof(*commit));
        commit->version = c[i].version;
        commit->timestamp = c[i].timestamp;
        summarize(pool, actions, commit);
        apr_pool_clear(scratch);
    }
    apr_pool_destroy(scratch);
    if (err)
        return err;
    *out = commits;
    *more = i >= 0;
    return NULL;
}
