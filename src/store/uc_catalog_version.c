/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_catalog_version.h"

#include <apr_strings.h>

#include "uc_store_internal.h"

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

static uc_error_t *read_of_store(void *store, apr_pool_t *pool,
                                 apr_int64_t *out)
{
    return uc_catalog_version_read(store, pool, out);
}

uc_error_t *uc_catalog_version_read_shared(uc_read_gate_t *gate,
                                           uc_store_t *store,
                                           apr_pool_t *pool,
                                           apr_int64_t *out)
{
    /* Inside a transaction a reading may see the transaction's older
     * snapshot: only one of its own is sure to be taken when it is run. */
    if (!gate || store->txn || store->reading || !store->conn ||
        store->conn->dialect != UC_DIALECT_POSTGRES)
        return uc_catalog_version_read(store, pool, out);
    return uc_read_gate_read(gate, read_of_store, store, pool, out);
}
