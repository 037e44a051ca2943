/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_model_versions.h"

#include <apr_strings.h>

#define READ_COLUMN(c) v->c = r[UC_MODEL_VERSION_COL_##c];
#define WRITE_COLUMN(c) values[UC_MODEL_VERSION_COL_##c] = v->c;

/* A row of UC_MODEL_VERSION_COLUMNS. */
static uc_model_version_t *from_row(apr_pool_t *pool, const char *model_id,
                                    const char **r)
{
    uc_model_version_t *v = apr_palloc(pool, sizeof(*v));

    v->model_id = model_id;
    UC_MODEL_VERSION_COLUMNS(READ_COLUMN, READ_COLUMN, )
    return v;
}

/* model_id, then the columns. */
uc_error_t *uc_model_version_insert(uc_store_t *store,
                                    const uc_model_version_t *v)
{
    const char *args[1 + UC_MODEL_VERSION_NCOLS], **values = args + 1;

    args[0] = v->model_id;
    UC_MODEL_VERSION_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_MODEL_VERSION_INSERT, args, NULL);
}

uc_error_t *uc_model_version_get(uc_store_t *store, apr_pool_t *pool,
                                 const char *model_id, const char *version,
                                 uc_model_version_t **out)
{
    const char *args[] = { model_id, version };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool,
                                      store->txn
                                      ? UC_STMT_MODEL_VERSION_GET_FOR_UPDATE
                                      : UC_STMT_MODEL_VERSION_GET,
                                      args, &rows);
    if (err)
        return err;
    *out = rows.nrows ? from_row(pool, model_id, rows.rows[0]) : NULL;
    return NULL;
}

uc_error_t *uc_model_version_page(uc_store_t *store, apr_pool_t *pool,
                                  const char *model_id, const char *after,
                                  int limit, apr_array_header_t **out,
                                  int *more)
{
    const char *args[] = { model_id, after ? after : "0",
                           apr_itoa(pool, limit + 1) };
    uc_rows_t rows;
    int i, n;
    uc_error_t *err = uc_store_select_page(store, pool,
                                           UC_STMT_MODEL_VERSION_PAGE, args,
                                           limit, &rows, more);
    if (err)
        return err;
    n = rows.nrows;
    *out = apr_array_make(pool, n + 1, sizeof(uc_model_version_t *));
    for (i = 0; i < n; i++)
        APR_ARRAY_PUSH(*out, uc_model_version_t *) =
            from_row(pool, model_id, rows.rows[i]);
    return NULL;
}

uc_error_t *uc_model_version_update(uc_store_t *store,
                                    const uc_model_version_t *v)
{
    const char *args[] = {
        v->status, v->comment, v->updated_at, v->updated_by, v->model_id,
        v->version
    };
    return uc_store_exec(store, UC_STMT_MODEL_VERSION_UPDATE, args, NULL);
}

uc_error_t *uc_model_version_delete(uc_store_t *store, const char *model_id,
                                    const char *version)
{
    const char *args[] = { model_id, version };
    return uc_store_exec(store, UC_STMT_MODEL_VERSION_DELETE, args, NULL);
}

uc_error_t *uc_model_has_versions(uc_store_t *store, const char *model_id,
                                  int *has)
{
    const char *args[] = { model_id };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, store->pool,
                                      UC_STMT_MODEL_VERSION_FIRST, args,
                                      &rows);
    if (!err)
        *has = rows.nrows > 0;
    return err;
}
