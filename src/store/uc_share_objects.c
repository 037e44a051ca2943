/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and writes of share_objects (uc_share_objects.h). */
#include "uc_share_objects.h"

#include <string.h>
#include <apr_strings.h>

#define READ_COLUMN(c) o->c = r[UC_SHARE_OBJECT_COL_##c];
#define WRITE_COLUMN(c) args[UC_SHARE_OBJECT_COL_##c] = o->c;

/* A row of UC_SHARE_OBJECT_COLUMNS and the current name after it. */
static uc_share_object_t *from_row(apr_pool_t *pool, const char **r)
{
    uc_share_object_t *o = apr_palloc(pool, sizeof(*o));

    UC_SHARE_OBJECT_COLUMNS(READ_COLUMN, READ_COLUMN, )
    o->current_name = r[UC_SHARE_OBJECT_COL_current_name];
    return o;
}

uc_error_t *uc_share_object_insert(uc_store_t *store,
                                   const uc_share_object_t *o)
{
    const char *args[UC_SHARE_OBJECT_NCOLS];

    UC_SHARE_OBJECT_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_SHARE_OBJECT_INSERT, args, NULL);
}

uc_error_t *uc_share_objects_of(uc_store_t *store, apr_pool_t *pool,
                                const char *share_id,
                                apr_array_header_t **out)
{
    const char *args[] = { share_id };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_SHARE_OBJECTS_OF,
                                      args, &rows);

    if (err)
        return err;
    *out = apr_array_make(pool, rows.nrows + 1, sizeof(uc_share_object_t *));
    for (i = 0; i < rows.nrows; i++)
        APR_ARRAY_PUSH(*out, uc_share_object_t *) =
            from_row(pool, rows.rows[i]);
    return NULL;
}

uc_error_t *uc_share_object_get(uc_store_t *store, apr_pool_t *pool,
                                const char *share_id, const char *object_id,
                                uc_share_object_t **out)
{
    const char *args[] = { share_id, object_id };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_SHARE_OBJECT_OF,
                                      args, &rows);

    if (err)
        return err;
    *out = rows.nrows ? from_row(pool, rows.rows[0]) : NULL;
    return NULL;
}

uc_error_t *uc_share_object_update(uc_store_t *store,
                                   const uc_share_object_t *o)
{
    const char *args[] = {
        o->comment, o->partitions, o->cdf_enabled,
        o->history_data_sharing_status, o->start_version, o->id
    };
    return uc_store_exec(store, UC_STMT_SHARE_OBJECT_UPDATE, args, NULL);
}

uc_error_t *uc_share_object_delete(uc_store_t *store, const char *id)
{
    const char *args[] = { id };
    return uc_store_exec(store, UC_STMT_SHARE_OBJECT_DELETE, args, NULL);
}

const char *uc_share_object_schema(apr_pool_t *pool,
                                   const uc_share_object_t *o)
{
    const char *dot = strchr(o->shared_as, '.');

    if (!strcmp(o->data_object_type, "SCHEMA"))
        return o->shared_as;
    return dot ? apr_pstrndup(pool, o->shared_as,
                              (apr_size_t)(dot - o->shared_as)) : NULL;
}
