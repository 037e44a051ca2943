/* SPDX-License-Identifier: Apache-2.0 */
/* The commits the catalog ratified for its catalog-managed Delta tables,
 * as long as they are not backfilled (and the latest one, flagged, once it
 * is): the rows of the Delta commit coordinator. */
#ifndef UC_RATIFIED_COMMITS_H
#define UC_RATIFIED_COMMITS_H

#include <apr_tables.h>

#include "uc_securables.h"
#include "uc_store.h"

typedef struct uc_ratified_commit {
    apr_int64_t version;
    const char *file_name;         /* under _delta_log/_staged_commits/ */
    apr_int64_t file_size;
    apr_int64_t file_mtime;        /* epoch ms */
    apr_int64_t timestamp;         /* the commit's in-commit timestamp, ms */
    /* Backfilled, kept only as the table's latest version. */
    int backfilled;
} uc_ratified_commit_t;

/* A table's protocol features are its properties <prefix><name> =
 * "supported", as Unity Catalog keeps them. */
#define UC_TABLE_FEATURE_PREFIX "delta.feature."

/* Whether the catalog is the commit coordinator of `table`, a table
 * created catalog-managed: its properties say
 * delta.feature.catalogManaged=supported (or the feature's preview name,
 * catalogOwned-preview). Its ratified commits are then its truth, for the
 * coordinator and for every reader. */
int uc_ratified_commits_managed(const uc_securable_t *table);

/* The table's rows, oldest first (uc_ratified_commit_t). */
uc_error_t *uc_ratified_commits_of(uc_store_t *store, apr_pool_t *pool,
                                const char *table_id,
                                apr_array_header_t **out);

/* A version taken already comes back as an error for which
 * uc_store_is_duplicate() is true. */
uc_error_t *uc_ratified_commits_insert(uc_store_t *store, apr_pool_t *pool,
                                    const char *table_id,
                                    const uc_ratified_commit_t *commit);

/* Forgets the rows of versions up to `version`, backfilled. */
uc_error_t *uc_ratified_commits_delete_up_to(uc_store_t *store,
                                          apr_pool_t *pool,
                                          const char *table_id,
                                          apr_int64_t version);

/* Marks the row of `version` backfilled. */
uc_error_t *uc_ratified_commits_flag(uc_store_t *store, apr_pool_t *pool,
                                  const char *table_id, apr_int64_t version);

#endif
