/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_commit_plan.h"

#include <string.h>

#define ROW(rows, i) (&APR_ARRAY_IDX((rows), (i), uc_ratified_commit_t))
#define V APR_INT64_T_FMT

/* The backfill a request reports: rows up to `b` go, but the highest
 * version the table will have (`highest`) stays, flagged, so that its
 * latest version is kept. Versions before the oldest row are gone
 * already. */
static void backfill(const apr_array_header_t *rows, apr_int64_t b,
                     apr_int64_t highest, uc_commit_plan_t *out)
{
    if (b < 0 || !rows->nelts || b < ROW(rows, 0)->version)
        return;
    if (b >= highest) {
        out->flag = highest;
        out->forget_up_to = highest - 1;
    }
    else
        out->forget_up_to = b;
}

/* The last version known backfilled, below which commits do not count
 * toward the limit: the flagged latest, the version the request reports,
 * the flagged oldest row, or the one before the oldest row. */
static apr_int64_t backfilled_before(const apr_array_header_t *rows,
                                     apr_int64_t b)
{
    const uc_ratified_commit_t *first, *last;

    if (!rows->nelts)
        return 0;
    first = ROW(rows, 0);
    last = ROW(rows, rows->nelts - 1);
    if (last->backfilled)
        return last->version;
    if (b >= first->version)
        return b;
    return first->backfilled ? first->version : first->version - 1;
}

/* A version ratified already: the same file again is a replay (a client
 * that did not hear the answer), another file a conflict. A version
 * backfilled and forgotten cannot be told apart here. */
static uc_error_t *taken(apr_pool_t *pool, const apr_array_header_t *rows,
                         const uc_ratified_commit_t *c, uc_commit_plan_t *out)
{
    const uc_ratified_commit_t *first = ROW(rows, 0), *row = NULL;
    apr_int64_t at = c->version - first->version;

    if (c->version < first->version)
        return uc_error_make(pool, UC_E_COMMIT_STATE_UNKNOWN, "Version %"
                             V " was ratified and backfilled: compare "
                             "_delta_log/%020" V ".json with the commit "
                             "file %s to know whether it is this commit.",
                             c->version, c->version, c->file_name);
    if (at < rows->nelts)
        row = ROW(rows, (int)at);
    if (!row || row->version != c->version)
        return uc_error_because(pool, uc_error_internal(pool), "the "
                                "ratified commits of a table are not "
                                "contiguous at version %" V, c->version);
    if (strcmp(row->file_name, c->file_name) == 0) {
        out->replay = 1;
        return NULL;
    }
    return uc_error_make(pool, UC_E_COMMIT_VERSION_CONFLICT, "Commit version "
                         "already accepted. Version %" V " was accepted "
                         "with commit file %s, but the request carried %s.",
                         c->version, row->file_name, c->file_name);
}

static uc_error_t *report_alone(apr_pool_t *pool,
                                const apr_array_header_t *rows,
                                apr_int64_t b, uc_commit_plan_t *out)
{
    apr_int64_t latest;

    if (!rows->nelts)
        return uc_error_invalid(pool, "Backfill request requires a prior "
                                "commit to the table: it has none.");
    latest = ROW(rows, rows->nelts - 1)->version;
    if (b > latest)
        return uc_error_invalid(pool, "Should not backfill version %" V
                                " while the last version committed is %" V
                                ".", b, latest);
    backfill(rows, b, latest, out);
    return NULL;
}

uc_error_t *uc_commit_plan_make(apr_pool_t *pool,
                                const apr_array_header_t *rows,
                                const uc_commit_request_t *req, int limit,
                                uc_commit_plan_t *out)
{
    const uc_ratified_commit_t *c = req->commit;
    apr_int64_t latest = rows->nelts ? ROW(rows, rows->nelts - 1)->version
                                     : 0, waiting;

    out->replay = out->insert = 0;
    out->forget_up_to = out->flag = -1;
    if (!c)
        return report_alone(pool, rows, req->backfilled, out);
    if (rows->nelts && c->version <= latest)
        return taken(pool, rows, c, out);
    if (c->version != latest + 1)
        return uc_error_invalid(pool, "Commit version must be the next "
                                "version after the latest commit %" V
                                ", but got %" V ".", latest, c->version);
    if (req->backfilled > latest)
        return uc_error_invalid(pool, "Latest backfilled version %" V
                                " cannot be greater than the last commit "
                                "version = %" V ".", req->backfilled,
                                latest);
    waiting = c->version - backfilled_before(rows, req->backfilled);
    if (waiting > limit)
        return uc_error_make(pool, UC_E_RESOURCE_EXHAUSTED, "Max number of "
                             "commits per table reached: version %" V
                             " would leave %" V " commits not backfilled "
                             "(at most %d). Backfill, report it with "
                             "latest_backfilled_version, and commit again.",
                             c->version, waiting, limit);
    out->insert = 1;
    backfill(rows, req->backfilled, c->version, out);
    return NULL;
}

void uc_commit_plan_listing(apr_pool_t *pool, const apr_array_header_t *rows,
                            apr_int64_t start, apr_int64_t end,
                            apr_array_header_t **shown, apr_int64_t *latest)
{
    int i;

    *latest = rows->nelts ? ROW(rows, rows->nelts - 1)->version : 0;
    *shown = apr_array_make(pool, rows->nelts ? rows->nelts : 1,
                            sizeof(const uc_ratified_commit_t *));
    for (i = rows->nelts - 1; i >= 0; i--) {
        const uc_ratified_commit_t *c = ROW(rows, i);

        if (!c->backfilled && c->version >= start &&
            (end < 0 || c->version <= end))
            APR_ARRAY_PUSH(*shown, const uc_ratified_commit_t *) = c;
    }
}

apr_array_header_t *uc_commit_plan_after(apr_pool_t *pool,
                                         const apr_array_header_t *rows,
                                         const uc_ratified_commit_t *commit,
                                         const uc_commit_plan_t *plan)
{
    apr_array_header_t *kept = apr_array_make(pool, rows->nelts + 1,
                                              sizeof(uc_ratified_commit_t));
    int i;

    for (i = 0; i <= rows->nelts; i++) {
        uc_ratified_commit_t r;

        if (i < rows->nelts)
            r = *ROW(rows, i);
        else if (plan->insert && commit)
            r = *commit;
        else
            break;
        if (r.version <= plan->forget_up_to)
            continue;
        if (r.version == plan->flag)
            r.backfilled = 1;
        *(uc_ratified_commit_t *)apr_array_push(kept) = r;
    }
    return kept;
}
