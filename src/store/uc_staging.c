#include "uc_staging.h"

#include <apr_strings.h>

uc_error_t *uc_staging_insert(uc_store_t *store, const uc_staging_t *st)
{
    const char *args[] = {
        st->id, st->schema_id, st->name, st->location, st->created_at,
        st->created_by
    };
    return uc_store_exec(store, UC_STMT_STAGING_INSERT, args, NULL);
}

uc_error_t *uc_staging_by_location(uc_store_t *store, apr_pool_t *pool,
                                   const char *location, uc_staging_t **out)
{
    const char *args[] = { location };
    uc_rows_t rows;
    uc_staging_t *st;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_STAGING_BY_LOCATION,
                                      args, &rows);
    if (err)
        return err;
    *out = NULL;
    if (!rows.nrows)
        return NULL;
    st = apr_palloc(pool, sizeof(*st));
    st->id = rows.rows[0][0];
    st->schema_id = rows.rows[0][1];
    st->name = rows.rows[0][2];
    st->location = rows.rows[0][3];
    st->created_at = rows.rows[0][4];
    st->created_by = rows.rows[0][5];
    st->committed_at = rows.rows[0][6];
    *out = st;
    return NULL;
}

uc_error_t *uc_staging_commit(uc_store_t *store, const char *id,
                              const char *at, int *done)
{
    const char *args[] = { at, id };
    return uc_store_exec(store, UC_STMT_STAGING_COMMIT, args, done);
}
