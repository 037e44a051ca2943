/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_staging.h"

#include <apr_strings.h>

#define READ_COLUMN(c) st->c = r[UC_STAGING_COL_##c];
#define WRITE_COLUMN(c) args[UC_STAGING_COL_##c] = st->c;

uc_error_t *uc_staging_insert(uc_store_t *store, const uc_staging_t *st)
{
    const char *args[UC_STAGING_NCOLS];

    UC_STAGING_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_STAGING_INSERT, args, NULL);
}

/* The first row of a staging statement, NULL when there is none. */
static uc_error_t *one(uc_store_t *store, apr_pool_t *pool, uc_stmt_t stmt,
                       const char *arg, uc_staging_t **out)
{
    const char *args[] = { arg };
    const char **r;
    uc_rows_t rows;
    uc_staging_t *st;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    if (err)
        return err;
    *out = NULL;
    if (!rows.nrows)
        return NULL;
    r = rows.rows[0];
    st = apr_palloc(pool, sizeof(*st));
    UC_STAGING_COLUMNS(READ_COLUMN, READ_COLUMN, )
    *out = st;
    return NULL;
}

uc_error_t *uc_staging_by_location(uc_store_t *store, apr_pool_t *pool,
                                   const char *location, uc_staging_t **out)
{
    return one(store, pool, UC_STMT_STAGING_BY_LOCATION, location, out);
}

uc_error_t *uc_staging_open_by_id(uc_store_t *store, apr_pool_t *pool,
                                  const char *id, uc_staging_t **out)
{
    return one(store, pool, UC_STMT_STAGING_OPEN_BY_ID, id, out);
}

uc_error_t *uc_staging_commit(uc_store_t *store, const char *id,
                              const char *at, int *done)
{
    const char *args[] = { at, id };
    return uc_store_exec(store, UC_STMT_STAGING_COMMIT, args, done);
}
