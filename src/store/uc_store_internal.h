/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the store's own files; not for operations. */
#ifndef UC_STORE_INTERNAL_H
#define UC_STORE_INTERNAL_H

#include "uc_store.h"

typedef struct uc_sqlite uc_sqlite_t;
typedef struct uc_pgsql uc_pgsql_t;

struct uc_store_conn {
    uc_dialect_t dialect;
    uc_sqlite_t *sqlite;     /* SQLite only */
    uc_pgsql_t *pgsql;       /* PostgreSQL only */
    const char *metastore_id;
    int schema_version;
};


/* Logs the driver's message for `rc` and maps it to the error the client
 * sees: duplicate key, busy (503 + Retry-After) or internal. */
uc_error_t *uc_store_db_error(uc_store_t *store, int rc, const char *what);

/* A statement that failed within the call's transaction: PostgreSQL
 * aborted the transaction, so it ends with a rollback and, should the
 * caller go on as if nothing happened, with `err`. */
void uc_store_failed_in_transaction(uc_store_t *store, uc_error_t *err);

/* `sql` with apr_dbd's "%s" markers as the database's own: "$1", "$2"...
 * when `numbered`, else "?"; `*count` (may be NULL) how many. */
const char *uc_store_native_sql(apr_pool_t *pool, const char *sql,
                                int numbered, int *count);

/* Brings the schema up to the last of `migrations` under a lock that
 * serialises every process and server sharing the database. */
uc_error_t *uc_migrate_store(uc_store_t *store, uc_dialect_t dialect,
                             const uc_migration_t *migrations, int *version);

/* SQLite's native statements (uc_store_sqlite.c). `conn_pool` must die
 * with the connection. */
uc_sqlite_t *uc_sqlite_make(const apr_dbd_driver_t *driver,
                            apr_dbd_t *handle, apr_pool_t *conn_pool);
/* With `page`, reading stops where the page ends (uc_store_select_page):
 * after page->limit rows, or before a row once the rows read hold
 * UC_PAGE_BYTES (each row's size is its last column); page->more tells
 * whether a row was left. */
typedef struct uc_sqlite_page {
    int limit;
    int more;
} uc_sqlite_page_t;
uc_error_t *uc_sqlite_select(uc_store_t *store, uc_sqlite_t *sqlite,
                             apr_pool_t *pool, uc_stmt_t id,
                             const char *const *args, uc_sqlite_page_t *page,
                             uc_rows_t *out);
/* Runs a statement that writes, within the driver's transaction when one
 * is open; *nrows (may be NULL) the rows it changed. A taken key is
 * UC_E_DUPLICATE, a database still busy after the bounded retries a 503. */
uc_error_t *uc_sqlite_exec(uc_store_t *store, uc_sqlite_t *sqlite,
                           uc_stmt_t id, const char *const *args, int *nrows);

/* PostgreSQL's native statements (uc_store_pgsql.c), prepared once per
 * session of the connection. */
uc_pgsql_t *uc_pgsql_make(const apr_dbd_driver_t *driver, apr_dbd_t *handle,
                          apr_pool_t *conn_pool);
uc_error_t *uc_pgsql_select(uc_store_t *store, uc_pgsql_t *pg,
                            apr_pool_t *pool, uc_stmt_t id,
                            const char *const *args, uc_rows_t *out);
/* A write; *nrows (may be NULL) the rows it changed. */
uc_error_t *uc_pgsql_exec(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                          const char *const *args, int *nrows);

#endif
