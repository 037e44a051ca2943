/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and writes of entity_tags (uc_entity_tags.h). */
#include "uc_entity_tags.h"

#include <apr_strings.h>

#define READ_COLUMN(c) t->c = r[UC_ENTITY_TAG_COL_##c];
#define WRITE_COLUMN(c) args[UC_ENTITY_TAG_COL_##c] = t->c;

static uc_entity_tag_t *from_row(apr_pool_t *pool, const char **r)
{
    uc_entity_tag_t *t = apr_palloc(pool, sizeof(*t));

    UC_ENTITY_TAG_COLUMNS(READ_COLUMN, READ_COLUMN, )
    return t;
}

uc_error_t *uc_entity_tag_insert(uc_store_t *store, const uc_entity_tag_t *t)
{
    const char *args[UC_ENTITY_TAG_NCOLS];

    UC_ENTITY_TAG_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_ENTITY_TAG_INSERT, args, NULL);
}

uc_error_t *uc_entity_tag_get(uc_store_t *store, apr_pool_t *pool,
                              const char *entity_id, const char *column,
                              const char *key, uc_entity_tag_t **out)
{
    const char *args[] = { entity_id, column, key };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_ENTITY_TAG_GET,
                                      args, &rows);

    if (err)
        return err;
    *out = rows.nrows ? from_row(pool, rows.rows[0]) : NULL;
    return NULL;
}

uc_error_t *uc_entity_tag_page(uc_store_t *store, apr_pool_t *pool,
                               const char *entity_id, const char *column,
                               const char *after, int limit,
                               apr_array_header_t **out, int *more)
{
    const char *args[] = { entity_id, column, after ? after : "",
                           apr_itoa(pool, limit + 1) };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_ENTITY_TAG_PAGE,
                                      args, &rows);

    if (err)
        return err;
    *more = rows.nrows > limit;
    *out = apr_array_make(pool, limit + 1, sizeof(uc_entity_tag_t *));
    for (i = 0; i < rows.nrows && i < limit; i++)
        APR_ARRAY_PUSH(*out, uc_entity_tag_t *) = from_row(pool,
                                                           rows.rows[i]);
    return NULL;
}

uc_error_t *uc_entity_tag_update(uc_store_t *store, const uc_entity_tag_t *t)
{
    const char *args[] = { t->tag_value, t->updated_at, t->updated_by,
                           t->entity_id, t->column_name, t->tag_key };
    return uc_store_exec(store, UC_STMT_ENTITY_TAG_UPDATE, args, NULL);
}

uc_error_t *uc_entity_tag_delete(uc_store_t *store, const char *entity_id,
                                 const char *column, const char *key)
{
    const char *args[] = { entity_id, column, key };
    return uc_store_exec(store, UC_STMT_ENTITY_TAG_DELETE, args, NULL);
}

uc_error_t *uc_entity_tag_count(uc_store_t *store, apr_pool_t *pool,
                                const char *entity_id, const char *column,
                                int *count)
{
    const char *args[] = { entity_id, column };
    return uc_store_count(store, pool, UC_STMT_ENTITY_TAG_COUNT, args, count);
}

uc_error_t *uc_entity_tags_outside(uc_store_t *store, apr_pool_t *pool,
                                   const char *key, const char *values,
                                   int *count)
{
    const char *args[] = { key, values };
    return uc_store_count(store, pool, UC_STMT_ENTITY_TAGS_OUTSIDE_VALUES,
                          args, count);
}
