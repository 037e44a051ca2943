/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_sharing_queries.h"

#define READ_COLUMN(c) q->c = r[UC_SHARING_QUERY_COL_##c];
#define WRITE_COLUMN(c) args[UC_SHARING_QUERY_COL_##c] = q->c;

uc_error_t *uc_sharing_queries_insert(uc_store_t *store,
                                      const uc_sharing_query_row_t *q)
{
    const char *args[UC_SHARING_QUERY_NCOLS];

    UC_SHARING_QUERY_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_SHARING_QUERY_INSERT, args, NULL);
}

/* The one row `stmt` selects, or NULL. */
static uc_error_t *one(uc_store_t *store, apr_pool_t *pool, uc_stmt_t stmt,
                       const char *const *args, uc_sharing_query_row_t **out)
{
    uc_sharing_query_row_t *q;
    const char **r;
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    *out = NULL;
    if (err || !rows.nrows)
        return err;
    r = rows.rows[0];
    q = apr_palloc(pool, sizeof(*q));
    UC_SHARING_QUERY_COLUMNS(READ_COLUMN, READ_COLUMN, )
    *out = q;
    return NULL;
}

uc_error_t *uc_sharing_queries_by_key(uc_store_t *store, apr_pool_t *pool,
                                      const char *recipient_id,
                                      const char *table_id,
                                      const char *key_hash, const char *now,
                                      uc_sharing_query_row_t **out)
{
    const char *args[] = { recipient_id, table_id, key_hash, now };

    return one(store, pool, UC_STMT_SHARING_QUERY_BY_KEY, args, out);
}

uc_error_t *uc_sharing_queries_get(uc_store_t *store, apr_pool_t *pool,
                                   const char *id, const char *recipient_id,
                                   const char *table_id, const char *now,
                                   uc_sharing_query_row_t **out)
{
    const char *args[] = { id, recipient_id, table_id, now };

    return one(store, pool, UC_STMT_SHARING_QUERY_GET, args, out);
}

uc_error_t *uc_sharing_queries_ready(uc_store_t *store, const char *id,
                                     const char *version)
{
    const char *args[] = { version, id };

    return uc_store_exec(store, UC_STMT_SHARING_QUERY_PIN, args, NULL);
}

uc_error_t *uc_sharing_queries_pin(uc_store_t *store, apr_pool_t *pool,
                                   const uc_sharing_query_row_t *q,
                                   const char *version, const char **pinned)
{
    const char *get[] = { q->id, q->recipient_id, q->table_id, "0" };
    uc_sharing_query_row_t *now;
    uc_error_t *err;

    *pinned = version;
    if ((err = uc_sharing_queries_ready(store, q->id, version)) ||
        (err = one(store, pool, UC_STMT_SHARING_QUERY_GET, get, &now)))
        return err;
    if (now && now->version)
        *pinned = now->version;
    return NULL;
}

uc_error_t *uc_sharing_queries_live(uc_store_t *store, apr_pool_t *pool,
                                    const char *recipient_id,
                                    const char *now, int *count)
{
    const char *args[] = { recipient_id, now };

    return uc_store_count(store, pool, UC_STMT_SHARING_QUERIES_LIVE, args,
                          count);
}

uc_error_t *uc_sharing_queries_purge(uc_store_t *store, const char *now)
{
    const char *args[] = { now };

    return uc_store_exec(store, UC_STMT_SHARING_QUERIES_PURGE, args, NULL);
}
