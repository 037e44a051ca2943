/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_catalog_version.h"

#include <apr_strings.h>

uc_error_t *uc_catalog_version_read(uc_store_t *store, apr_pool_t *pool,
                                    apr_int64_t *out)
{
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_CATALOG_VERSION,
                                      NULL, &rows);

    if (err)
        return err;
    if (rows.nrows != 1 || !rows.rows[0][0])
        return uc_error_because(pool, uc_error_internal(pool),
                                "the catalog_version table is empty");
    *out = apr_atoi64(rows.rows[0][0]);
    return NULL;
}
