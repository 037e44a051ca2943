/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_grants.h"

#include <apr_tables.h>

#define READ_COLUMN(c) g->c = r[UC_GRANT_COL_##c];

/* Rows of UC_GRANT_COLUMNS. */
static apr_array_header_t *to_grants(apr_pool_t *pool, const uc_rows_t *rows)
{
    apr_array_header_t *out = apr_array_make(pool, rows->nrows + 1,
                                             sizeof(uc_grant_t));
    int i;

    for (i = 0; i < rows->nrows; i++) {
        const char **r = rows->rows[i];
        uc_grant_t *g = apr_array_push(out);

        UC_GRANT_COLUMNS(READ_COLUMN, READ_COLUMN, )
    }
    return out;
}

uc_error_t *uc_grants_held(uc_store_t *store, apr_pool_t *pool,
                           const char *ids, const char *principals,
                           apr_array_header_t **out)
{
    const char *args[] = { ids, principals };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_GRANTS_OF_PRINCIPALS, args,
                                      &rows);
    if (!err)
        *out = to_grants(pool, &rows);
    return err;
}

uc_error_t *uc_grants_of_user_on_path(uc_store_t *store, apr_pool_t *pool,
                                      const char *const *ids, int n,
                                      const char *principal,
                                      apr_array_header_t **out)
{
    const char *args[8];
    uc_rows_t rows;
    int i;
    uc_error_t *err;

    for (i = 0; i < 4; i++) {
        args[2 * i] = ids[i < n ? i : n - 1];
        args[2 * i + 1] = principal;
    }
    if ((err = uc_store_select(store, pool, UC_STMT_GRANTS_OF_USER_ON_PATH,
                               args, &rows)))
        return err;
    *out = to_grants(pool, &rows);
    return NULL;
}

uc_error_t *uc_grants_on(uc_store_t *store, apr_pool_t *pool,
                         const char *securable_id, apr_array_header_t **out)
{
    const char *args[] = { securable_id };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_GRANTS_ON, args,
                                      &rows);
    if (!err)
        *out = to_grants(pool, &rows);
    return err;
}

uc_error_t *uc_grants_on_any(uc_store_t *store, apr_pool_t *pool,
                             const char *ids, apr_array_header_t **out)
{
    const char *args[] = { ids };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_GRANTS_ON_CHAIN,
                                      args, &rows);
    if (!err)
        *out = to_grants(pool, &rows);
    return err;
}

uc_error_t *uc_grant_add(uc_store_t *store, const char *securable_id,
                         const char *principal, const char *privilege,
                         const char *by, const char *at, int *changed)
{
    const char *args[] = { securable_id, principal, privilege, by, at };
    return uc_store_exec(store, UC_STMT_GRANT_ADD, args, changed);
}

uc_error_t *uc_grant_remove(uc_store_t *store, const char *securable_id,
                            const char *principal, const char *privilege,
                            int *changed)
{
    const char *args[] = { securable_id, principal, privilege };
    return uc_store_exec(store, UC_STMT_GRANT_REMOVE, args, changed);
}

uc_error_t *uc_audit_add(uc_store_t *store, const uc_audit_t *e)
{
    const char *args[] = {
        e->at, e->actor, e->action, e->securable_type, e->securable_id,
        e->securable_name, e->principal, e->privilege
    };
    return uc_store_exec(store, UC_STMT_AUDIT_ADD, args, NULL);
}
