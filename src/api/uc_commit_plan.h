/* SPDX-License-Identifier: Apache-2.0 */
/* What the Delta commit coordinator does with a request, decided from the
 * table's ratified commits alone (no database, no httpd): ratify the next
 * version, recognise a replay, refuse a conflict, a gap or one commit too
 * many, and forget what was backfilled. Unity Catalog's rules
 * (DeltaCommitRepository), but for the first commit, which must be
 * version 1 (version 0 is the table's creation, written before it). */
#ifndef UC_COMMIT_PLAN_H
#define UC_COMMIT_PLAN_H

#include <apr_tables.h>

#include "../core/uc_error.h"
#include "../store/uc_ratified_commits.h"

/* The most commits a table may have waiting to be backfilled, unless the
 * configuration says otherwise (Unity Catalog's fixed number). */
#define UC_COMMIT_MAX_UNBACKFILLED 10

typedef struct uc_commit_request {
    const uc_ratified_commit_t *commit;  /* NULL: a backfill report alone */
    apr_int64_t backfilled;           /* latest_backfilled_version, -1 none */
} uc_commit_request_t;

typedef struct uc_commit_plan {
    int replay;                 /* ratified already: nothing changes */
    int insert;                 /* ratify the request's commit */
    apr_int64_t forget_up_to;   /* drop the rows up to it; -1 none */
    apr_int64_t flag;           /* mark this version backfilled; -1 none */
} uc_commit_plan_t;

/* `rows` are the table's (uc_ratified_commit_t, oldest first); at most
 * `limit` commits may wait to be backfilled. */
uc_error_t *uc_commit_plan_make(apr_pool_t *pool,
                                const apr_array_header_t *rows,
                                const uc_commit_request_t *req, int limit,
                                uc_commit_plan_t *out);

/* The rows the store keeps once `plan` is carried out on `rows` with
 * `commit` (the request's, NULL for none), oldest first: what a caller
 * that carried it out holds without reading them again. */
apr_array_header_t *uc_commit_plan_after(apr_pool_t *pool,
                                         const apr_array_header_t *rows,
                                         const uc_ratified_commit_t *commit,
                                         const uc_commit_plan_t *plan);

/* The commits a reader is given for [start, end] (end -1: no end), newest
 * first (const uc_ratified_commit_t *): the ratified ones not backfilled;
 * and the table's latest version (0 before its first commit). */
void uc_commit_plan_listing(apr_pool_t *pool, const apr_array_header_t *rows,
                            apr_int64_t start, apr_int64_t end,
                            apr_array_header_t **shown,
                            apr_int64_t *latest);

#endif
