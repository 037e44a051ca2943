/* SPDX-License-Identifier: Apache-2.0 */
/* The asynchronous queries of the sharing server (sql/…/0013): what a
 * poll on any child or node reads to answer it. Times are milliseconds
 * since the epoch, as decimal text; a query past its expiry is not found. */
#ifndef UC_SHARING_QUERIES_H
#define UC_SHARING_QUERIES_H

#include "uc_store.h"

typedef struct uc_sharing_query_row {
    const char *id, *recipient_id, *table_id, *key_hash, *params_hash;
    const char *params;            /* JSON: the submitted parameters */
    const char *state;             /* "pending" or "ready" */
    const char *preparer;          /* the process reading it, or NULL */
    const char *version;           /* pinned version, or NULL */
    const char *created_at, *expires_at;
} uc_sharing_query_row_t;

/* Inserts the row; a row of the same recipient, table and key is a
 * duplicate (uc_store_is_duplicate). */
uc_error_t *uc_sharing_queries_insert(uc_store_t *store,
                                      const uc_sharing_query_row_t *q);

/* The live query of the recipient's key on the table; *out NULL when
 * there is none. */
uc_error_t *uc_sharing_queries_by_key(uc_store_t *store, apr_pool_t *pool,
                                      const char *recipient_id,
                                      const char *table_id,
                                      const char *key_hash, const char *now,
                                      uc_sharing_query_row_t **out);

/* The live query `id` of the recipient on the table; *out NULL when there
 * is none (another recipient's or table's, expired, or never made). */
uc_error_t *uc_sharing_queries_get(uc_store_t *store, apr_pool_t *pool,
                                   const char *id, const char *recipient_id,
                                   const char *table_id, const char *now,
                                   uc_sharing_query_row_t **out);

/* Marks the query ready, its snapshot read at `version` (NULL: the read
 * failed, and a poll reads it again); a version pinned before stays. */
uc_error_t *uc_sharing_queries_ready(uc_store_t *store, const char *id,
                                     const char *version);

/* The same, then the version the query is pinned to (*pinned). */
uc_error_t *uc_sharing_queries_pin(uc_store_t *store, apr_pool_t *pool,
                                   const uc_sharing_query_row_t *q,
                                   const char *version, const char **pinned);

/* How many live queries the recipient has. */
uc_error_t *uc_sharing_queries_live(uc_store_t *store, apr_pool_t *pool,
                                    const char *recipient_id,
                                    const char *now, int *count);

/* Deletes the queries expired at `now`. */
uc_error_t *uc_sharing_queries_purge(uc_store_t *store, const char *now);

#endif
