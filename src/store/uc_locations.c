/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_locations.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_statements.h"

uc_error_t *uc_location_covering(uc_store_t *store, apr_pool_t *pool,
                                 const char *locations,
                                 uc_securable_t **out)
{
    const char *ms = uc_store_metastore_id(store);
    const char *args[] = { locations, ms };
    const char **longest = NULL;
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_LOCATION_COVERING,
                                      args, &rows);

    if (err)
        return err;
    for (i = 0; i < rows.nrows; i++)
        if (!longest ||
            strlen(rows.rows[i][UC_SECURABLE_COL_storage_root]) >
            strlen(longest[UC_SECURABLE_COL_storage_root]))
            longest = rows.rows[i];
    *out = longest ? uc_securable_from_row(pool, UC_KIND_EXTERNAL_LOCATION,
                                           ms, longest)
                   : NULL;
    return NULL;
}

/* The two columns of the first row, NULL when there is none. */
static uc_error_t *first_pair(uc_store_t *store, apr_pool_t *pool,
                              uc_stmt_t stmt, const char *const *args,
                              const char **a, const char **b)
{
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    if (err)
        return err;
    *a = rows.nrows ? rows.rows[0][0] : NULL;
    if (b)
        *b = rows.nrows ? rows.rows[0][1] : NULL;
    return NULL;
}

uc_error_t *uc_location_overlap(uc_store_t *store, apr_pool_t *pool,
                                const char *location, const char *ancestors,
                                const char *except_id, const char **name,
                                const char **url)
{
    /* '0' follows '/': the range holds "<location>/..." */
    const char *args[] = {
        uc_store_metastore_id(store), except_id, ancestors,
        apr_pstrcat(pool, location, "/", NULL),
        apr_pstrcat(pool, location, "0", NULL)
    };

    return first_pair(store, pool, UC_STMT_LOCATION_OVERLAP, args, name, url);
}

uc_error_t *uc_location_managed_above(uc_store_t *store, apr_pool_t *pool,
                                      const char *locations,
                                      const char **kind, const char **found)
{
    const char *args[] = { locations };

    return first_pair(store, pool, UC_STMT_MANAGED_ROOT_ABOVE, args, kind,
                      found);
}

uc_error_t *uc_location_data_at(uc_store_t *store, apr_pool_t *pool,
                                const char *locations, const char **kind,
                                const char **found)
{
    const char *args[] = { locations };

    return first_pair(store, pool, UC_STMT_DATA_ABOVE, args, kind, found);
}

uc_error_t *uc_location_data_holders(uc_store_t *store, apr_pool_t *pool,
                                     const char *locations,
                                     apr_array_header_t **out)
{
    const char *args[] = { locations };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_DATA_HOLDERS,
                                      args, &rows);

    if (err)
        return err;
    *out = apr_array_make(pool, 2, sizeof(uc_securable_t *));
    for (i = 0; i < rows.nrows; i++) {
        const char **r = rows.rows[i];
        APR_ARRAY_PUSH(*out, uc_securable_t *) = uc_securable_from_row(
            pool, r[UC_BY_ID_COL_kind], r[UC_BY_ID_COL_parent_id],
            r + UC_BY_ID_COL_row);
    }
    return NULL;
}

uc_error_t *uc_location_of_credential(uc_store_t *store, apr_pool_t *pool,
                                      const char *credential_id,
                                      const char **name)
{
    const char *args[] = { uc_store_metastore_id(store), credential_id };

    return first_pair(store, pool, UC_STMT_LOCATION_OF_CREDENTIAL, args,
                      name, NULL);
}

uc_error_t *uc_location_forget_credential(uc_store_t *store,
                                          const char *credential_id)
{
    const char *args[] = { credential_id };

    return uc_store_exec(store, UC_STMT_LOCATIONS_FORGET_CREDENTIAL, args,
                         NULL);
}
