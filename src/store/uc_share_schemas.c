/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and writes of share_schemas (uc_share_schemas.h). */
#include "uc_share_schemas.h"

#define READ_COLUMN(c) s->c = r[UC_SHARE_SCHEMA_COL_##c];
#define WRITE_COLUMN(c) args[UC_SHARE_SCHEMA_COL_##c] = s->c;

uc_error_t *uc_share_schema_insert(uc_store_t *store,
                                   const uc_share_schema_t *s)
{
    const char *args[UC_SHARE_SCHEMA_NCOLS];

    UC_SHARE_SCHEMA_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_SHARE_SCHEMA_INSERT, args, NULL);
}

uc_error_t *uc_share_schemas_of(uc_store_t *store, apr_pool_t *pool,
                                const char *share_id,
                                apr_array_header_t **out)
{
    const char *args[] = { share_id };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_SHARE_SCHEMAS_OF,
                                      args, &rows);

    if (err)
        return err;
    *out = apr_array_make(pool, rows.nrows + 1, sizeof(uc_share_schema_t *));
    for (i = 0; i < rows.nrows; i++) {
        const char **r = rows.rows[i];
        uc_share_schema_t *s = apr_palloc(pool, sizeof(*s));

        UC_SHARE_SCHEMA_COLUMNS(READ_COLUMN, READ_COLUMN, )
        APR_ARRAY_PUSH(*out, uc_share_schema_t *) = s;
    }
    return NULL;
}

uc_error_t *uc_share_schema_delete(uc_store_t *store, const char *id)
{
    const char *args[] = { id };
    return uc_store_exec(store, UC_STMT_SHARE_SCHEMA_DELETE, args, NULL);
}
