/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and writes of abac_policies (uc_abac_policies.h). */
#include "uc_abac_policies.h"

#include <stdlib.h>
#include <apr_strings.h>

#define READ_COLUMN(c) p->c = r[UC_ABAC_POLICY_COL_##c];
#define WRITE_COLUMN(c) args[UC_ABAC_POLICY_COL_##c] = p->c;

static uc_abac_policy_t *from_row(apr_pool_t *pool, const char **r,
                                  int ncols)
{
    uc_abac_policy_t *p = apr_pcalloc(pool, sizeof(*p));

    UC_ABAC_POLICY_COLUMNS(READ_COLUMN, READ_COLUMN, )
    if (ncols > UC_ABAC_POLICY_COL_depth && r[UC_ABAC_POLICY_COL_depth])
        p->depth = atoi(r[UC_ABAC_POLICY_COL_depth]);
    return p;
}

uc_error_t *uc_abac_policy_insert(uc_store_t *store,
                                  const uc_abac_policy_t *p)
{
    const char *args[UC_ABAC_POLICY_NCOLS];

    UC_ABAC_POLICY_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    return uc_store_exec(store, UC_STMT_ABAC_POLICY_INSERT, args, NULL);
}

uc_error_t *uc_abac_policy_get(uc_store_t *store, apr_pool_t *pool,
                               const char *securable_id, const char *name,
                               uc_abac_policy_t **out)
{
    const char *args[] = { securable_id, name };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_ABAC_POLICY_GET,
                                      args, &rows);

    if (err)
        return err;
    *out = rows.nrows ? from_row(pool, rows.rows[0], rows.ncols) : NULL;
    return NULL;
}

uc_error_t *uc_abac_policy_page(uc_store_t *store, apr_pool_t *pool,
                                const uc_policy_scope_t *scope,
                                int after_depth, const char *after_name,
                                int limit, apr_array_header_t **out,
                                int *more)
{
    /* A level the scope leaves out is an id no row holds. */
    const char *catalog = scope->catalog_id ? scope->catalog_id : "";
    const char *schema = scope->schema_id ? scope->schema_id : "";
    const char *table = scope->table_id ? scope->table_id : "";
    const char *depth = apr_itoa(pool, after_depth);
    const char *args[] = {
        catalog, schema, catalog, schema, table, depth, depth,
        after_name ? after_name : "", apr_itoa(pool, limit + 1)
    };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_ABAC_POLICY_PAGE,
                                      args, &rows);

    if (err)
        return err;
    *more = rows.nrows > limit;
    *out = apr_array_make(pool, limit + 1, sizeof(uc_abac_policy_t *));
    for (i = 0; i < rows.nrows && i < limit; i++)
        APR_ARRAY_PUSH(*out, uc_abac_policy_t *) =
            from_row(pool, rows.rows[i], rows.ncols);
    return NULL;
}

uc_error_t *uc_abac_policy_update(uc_store_t *store,
                                  const uc_abac_policy_t *p)
{
    const char *args[] = { p->name, p->policy_type, p->document, p->comment,
                           p->updated_at, p->updated_by, p->id };
    return uc_store_exec(store, UC_STMT_ABAC_POLICY_UPDATE, args, NULL);
}

uc_error_t *uc_abac_policy_delete(uc_store_t *store, const char *id)
{
    const char *args[] = { id };
    return uc_store_exec(store, UC_STMT_ABAC_POLICY_DELETE, args, NULL);
}

uc_error_t *uc_abac_policy_count(uc_store_t *store, apr_pool_t *pool,
                                 const char *securable_id, int *count)
{
    const char *args[] = { securable_id };
    return uc_store_count(store, pool, UC_STMT_ABAC_POLICY_COUNT, args,
                          count);
}

uc_error_t *uc_abac_policy_over(uc_store_t *store, apr_pool_t *pool,
                                const char *object_id, int is_schema,
                                const char *const ancestors[2],
                                const char **name,
                                const char **securable_id)
{
    const char *args[] = { object_id, ancestors[0] ? ancestors[0] : "",
                           ancestors[1] ? ancestors[1] : "",
                           is_schema ? object_id : "" };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_ABAC_POLICY_OVER_SHARED, args,
                                      &rows);

    *name = *securable_id = NULL;
    if (err || !rows.nrows)
        return err;
    *name = rows.rows[0][0];
    *securable_id = rows.rows[0][1];
    return NULL;
}

uc_error_t *uc_abac_shared_under(uc_store_t *store, apr_pool_t *pool,
                                 const char *securable_id,
                                 const char *parent_id, const char **share)
{
    const char *args[] = { securable_id, securable_id, securable_id,
                           parent_id ? parent_id : "" };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_SHARE_OF_POLICY_SCOPE, args,
                                      &rows);

    *share = NULL;
    if (!err && rows.nrows)
        *share = rows.rows[0][0];
    return err;
}
