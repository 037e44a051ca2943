/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_store_internal.h"
#include "../core/uc_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <apr_time.h>

/* Key of the per-connection state in the connection's `prepared` hash. */
static const char conn_key[] = "unicat:store";

static int contains(const char *haystack, const char *needle)
{
    return haystack && strstr(haystack, needle) != NULL;
}

uc_error_t *uc_store_db_error(uc_store_t *store, int rc, const char *what)
{
    const char *msg = apr_dbd_error(store->driver, store->handle, rc);
    int sqlite = !store->conn || store->conn->dialect == UC_DIALECT_SQLITE;
    int locked = (sqlite && (rc == 5 || rc == 6))
                 || contains(msg, "database is locked");
    uc_error_t *err;

    store->stats.errors++;
    if (contains(msg, "UNIQUE constraint failed") ||
        contains(msg, "duplicate key value violates unique constraint"))
        return uc_error_make(store->pool, UC_E_DUPLICATE, "duplicate key");
    /* SQLite: 5 BUSY, 6 LOCKED, after the driver's own bounded retries.
     * PostgreSQL: lost connections and serialisation failures are transient
     * in the same way. */
    if (locked)
        store->locked = 1;
    if (locked || contains(msg, "could not serialize access")
        || contains(msg, "deadlock detected")
        || contains(msg, "server closed the connection")
        || contains(msg, "no connection to the server"))
        err = uc_error_unavailable(store->pool);
    else
        err = uc_error_internal(store->pool);
    return uc_error_because(store->pool, err, "UC0201: database %s failed "
                            "(rc %d): %s", what, rc, msg ? msg : "?");
}

int uc_store_is_duplicate(const uc_error_t *err)
{
    return err && err->kind == UC_E_DUPLICATE;
}

/* journal_mode is stored in the file; switching needs a moment without
 * other writers, so a busy database keeps its mode until a later connection
 * succeeds: `*wal` says whether this one did. */
static uc_error_t *sqlite_connection_settings(uc_store_t *store, int *wal)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rc, nrows;

    rc = apr_dbd_select(store->driver, store->pool, store->handle, &res,
                        "PRAGMA journal_mode = WAL", 1);
    if (rc == 0)
        while (apr_dbd_get_row(store->driver, store->pool, res, &row, -1) != -1)
            ;
    *wal = rc == 0;
    if ((rc = apr_dbd_query(store->driver, store->handle, &nrows,
                            "PRAGMA foreign_keys = ON")) != 0 ||
        (rc = apr_dbd_query(store->driver, store->handle, &nrows,
                            "PRAGMA synchronous = NORMAL")) != 0)
        return uc_store_db_error(store, rc, "connection setup");
    return NULL;
}

static uc_error_t *set_up_schema(uc_store_t *store, uc_store_conn_t *conn,
                                 const uc_migration_t *migrations, int *wal)
{
    uc_error_t *err;

    if (conn->dialect == UC_DIALECT_SQLITE &&
        (err = sqlite_connection_settings(store, wal)))
        return err;
    return uc_migrate_store(store, conn->dialect, migrations,
                            &conn->schema_version);
}

/* On a new SQLite file every child's first request comes at once, and one
 * connection creates the schema while the others find the file locked: the
 * driver waits about 1.6 s for a busy statement and not at all for one it
 * compiles, so they would answer 503 for as long as the first migration
 * takes on a loaded machine. This happens once per connection, so those
 * connections wait for it here, sleeping outside the driver's mutex. */
#define SETUP_BUSY_TRIES 100
#define SETUP_BUSY_SLEEP apr_time_from_msec(100)

static uc_error_t *set_up_schema_patiently(uc_store_t *store,
                                           uc_store_conn_t *conn,
                                           const uc_migration_t *migrations)
{
    uc_error_t *err;
    int tries = 1, wal = 1;

    /* Only a lock is waited for: a database newer than the module is
     * refused at once. */
    while ((err = set_up_schema(store, conn, migrations, &wal)) &&
           store->locked && tries++ < SETUP_BUSY_TRIES) {
        store->locked = 0;
        apr_sleep(SETUP_BUSY_SLEEP);
    }
    if (!err && !wal)
        uc_log(store->log, UC_LOG_WARNING, 0,
               "UC0202: could not switch SQLite to WAL mode yet");
    return err;
}

const char *uc_store_native_sql(apr_pool_t *pool, const char *sql,
                                int numbered, int *count)
{
    /* "$" and up to four digits for each "%s" of two characters. */
    char *out = apr_palloc(pool, strlen(sql) * 3 + 1), *o = out;
    int n = 0;

    while (*sql) {
        if (sql[0] == '%' && sql[1] == 's') {
            n++;
            o += numbered ? sprintf(o, "$%d", n) : sprintf(o, "?");
            sql += 2;
        }
        else if (sql[0] == '%' && sql[1] == '%') {
            *o++ = '%';
            sql += 2;
        }
        else
            *o++ = *sql++;
    }
    *o = '\0';
    if (count)
        *count = n;
    return out;
}

void uc_store_failed_in_transaction(uc_store_t *store, uc_error_t *err)
{
    if (!store->txn || store->txn_error)
        return;
    store->txn_error = err;
    apr_dbd_transaction_mode_set(store->driver, store->txn,
                                 APR_DBD_TRANSACTION_ROLLBACK);
}

static uc_error_t *load_metastore_id(uc_store_t *store)
{
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, store->pool,
                                      UC_STMT_METASTORE_GET, NULL, &rows);
    if (err)
        return err;
    if (rows.nrows != 1) {
        return uc_error_because(store->pool, uc_error_internal(store->pool),
                                "UC0203: the database has no metastore row");
    }
    store->conn->metastore_id = rows.rows[0][UC_SECURABLE_COL_id];
    return NULL;
}

uc_error_t *uc_store_attach(apr_pool_t *pool, const apr_dbd_driver_t *driver,
                            apr_dbd_t *handle, apr_pool_t *conn_pool,
                            apr_hash_t *prepared,
                            const uc_migration_t *migrations,
                            const uc_log_t *log, uc_store_t **out)
{
    uc_store_t *store = apr_pcalloc(pool, sizeof(*store));
    uc_store_conn_t *conn;
    const char *name = apr_dbd_name(driver);
    uc_error_t *err;

    store->pool = pool;
    store->driver = driver;
    store->handle = handle;
    store->log = log;
    *out = store;

    store->conn = apr_hash_get(prepared, conn_key, APR_HASH_KEY_STRING);
    if (store->conn)
        return NULL;

    conn = apr_pcalloc(pool, sizeof(*conn));
    if (strcmp(name, "sqlite3") == 0)
        conn->dialect = UC_DIALECT_SQLITE;
    else if (strcmp(name, "pgsql") == 0)
        conn->dialect = UC_DIALECT_POSTGRES;
    else {
        return uc_error_because(pool, uc_error_internal(pool),
                                "UC0204: unsupported DBDriver %s; use sqlite3 "
                                "or pgsql", name);
    }
    if (!migrations)
        migrations = conn->dialect == UC_DIALECT_SQLITE
                     ? uc_sqlite_migrations : uc_postgres_migrations;

    /* Until every step succeeded the connection stays unregistered, so the
     * next call on it starts over. */
    store->conn = conn;
    if ((err = set_up_schema_patiently(store, conn, migrations)))
        goto fail;
    if (conn->dialect == UC_DIALECT_SQLITE)
        conn->sqlite = uc_sqlite_make(driver, handle, conn_pool);
    else
        conn->pgsql = uc_pgsql_make(driver, handle, conn_pool);
    if ((err = load_metastore_id(store)))
        goto fail;

    {
        uc_store_conn_t *kept = apr_pmemdup(conn_pool, conn, sizeof(*conn));
        kept->metastore_id = apr_pstrdup(conn_pool, conn->metastore_id);
        apr_hash_set(prepared, conn_key, APR_HASH_KEY_STRING, kept);
        store->conn = kept;
    }
    return NULL;

fail:
    store->conn = NULL;
    return err;
}

const char *uc_store_metastore_id(const uc_store_t *store)
{
    return store->conn->metastore_id;
}

/* One statement's worth in the call's stats. */
static uc_error_t *counted(uc_store_t *store, apr_time_t since,
                           uc_error_t *err)
{
    store->stats.queries++;
    store->stats.busy += apr_time_now() - since;
    return err;
}

static uc_error_t *select_rows(uc_store_t *store, apr_pool_t *pool,
                               uc_stmt_t stmt, const char *const *args,
                               uc_rows_t *out);

uc_error_t *uc_store_select_page(uc_store_t *store, apr_pool_t *pool,
                                 uc_stmt_t stmt, const char *const *args,
                                 int limit, uc_rows_t *out, int *more)
{
    apr_time_t since = apr_time_now();
    uc_error_t *err;
    int n = 0, last;

    if (store->conn->sqlite) {
        uc_sqlite_page_t page = { limit, 0 };
        err = uc_sqlite_select(store, store->conn->sqlite, pool, stmt,
                               args, &page, out);
        *more = page.more;
        return counted(store, since, err);
    }
    if ((err = counted(store, since,
                       select_rows(store, pool, stmt, args, out))))
        return err;
    /* PostgreSQL's last column is the size of the rows before each. */
    last = out->ncols - 1;
    while (n < out->nrows && n < limit &&
           (n == 0 || apr_atoi64(out->rows[n][last]) < UC_PAGE_BYTES))
        n++;
    *more = out->nrows > n;
    out->nrows = n;
    return NULL;
}

uc_error_t *uc_store_select(uc_store_t *store, apr_pool_t *pool,
                            uc_stmt_t stmt, const char *const *args,
                            uc_rows_t *out)
{
    apr_time_t since = apr_time_now();

    return counted(store, since, select_rows(store, pool, stmt, args, out));
}

static uc_error_t *select_rows(uc_store_t *store, apr_pool_t *pool,
                               uc_stmt_t stmt, const char *const *args,
                               uc_rows_t *out)
{
    static const char *const no_args[1] = { NULL };

    if (store->conn->sqlite)
        return uc_sqlite_select(store, store->conn->sqlite, pool, stmt,
                                args ? args : no_args, NULL, out);
    return uc_pgsql_select(store, store->conn->pgsql, pool, stmt,
                           args ? args : no_args, out);
}

uc_error_t *uc_store_count(uc_store_t *store, apr_pool_t *pool,
                           uc_stmt_t stmt, const char *const *args,
                           int *count)
{
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    if (err)
        return err;
    *count = rows.nrows && rows.rows[0][0] ? atoi(rows.rows[0][0]) : 0;
    return NULL;
}

uc_error_t *uc_store_exec(uc_store_t *store, uc_stmt_t stmt,
                          const char *const *args, int *nrows)
{
    apr_time_t since = apr_time_now();
    uc_error_t *err = store->conn->sqlite
        ? uc_sqlite_exec(store, store->conn->sqlite, stmt, args, nrows)
        : uc_pgsql_exec(store, store->conn->pgsql, stmt, args, nrows);

    counted(store, since, NULL);
    return err;
}

/* Statements of a read transaction, by dialect. */
static const char *const read_begin[] = {
    [UC_DIALECT_SQLITE] = "BEGIN",
    [UC_DIALECT_POSTGRES] = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
};

static int end_read(uc_store_t *store, const char *how)
{
    int nrows;

    store->reading = 0;
    store->grouping = 0;
    return apr_dbd_query(store->driver, store->handle, &nrows, how);
}

static apr_status_t rollback_abandoned(void *data)
{
    uc_store_t *store = data;

    if (store->reading)
        end_read(store, "ROLLBACK");
    if (store->txn) {
        apr_dbd_transaction_mode_set(store->driver, store->txn,
                                     APR_DBD_TRANSACTION_ROLLBACK);
        apr_dbd_transaction_end(store->driver, store->pool, store->txn);
        store->txn = NULL;
    }
    return APR_SUCCESS;
}

uc_error_t *uc_store_begin(uc_store_t *store)
{
    apr_time_t since = apr_time_now();
    int rc = apr_dbd_transaction_start(store->driver, store->pool,
                                       store->handle, &store->txn);

    counted(store, since, NULL);
    if (rc != 0) {
        uc_error_t *err = uc_store_db_error(store, rc, "begin");
        /* A half-started transaction would latch its error onto the
         * connection's next statements. */
        if (store->txn) {
            apr_dbd_transaction_mode_set(store->driver, store->txn,
                                         APR_DBD_TRANSACTION_ROLLBACK);
            apr_dbd_transaction_end(store->driver, store->pool, store->txn);
            store->txn = NULL;
        }
        return err;
    }
    apr_pool_cleanup_register(store->pool, store, rollback_abandoned,
                              apr_pool_cleanup_null);
    return NULL;
}

uc_error_t *uc_store_begin_read(uc_store_t *store)
{
    apr_time_t since = apr_time_now();
    int nrows, rc = apr_dbd_query(store->driver, store->handle, &nrows,
                                  read_begin[store->conn->dialect]);

    counted(store, since, NULL);
    if (rc != 0)
        return uc_store_db_error(store, rc, "begin");
    store->reading = 1;
    apr_pool_cleanup_register(store->pool, store, rollback_abandoned,
                              apr_pool_cleanup_null);
    return NULL;
}

/* Ends a read transaction: what it read stays read whatever the work's
 * error. */
static uc_error_t *end_reading(uc_store_t *store, uc_error_t *work_error)
{
    apr_time_t since = apr_time_now();
    int rc;

    apr_pool_cleanup_kill(store->pool, store, rollback_abandoned);
    rc = end_read(store, work_error ? "ROLLBACK" : "COMMIT");
    counted(store, since, NULL);
    if (work_error)
        return work_error;
    return rc != 0 ? uc_store_db_error(store, rc, "commit") : NULL;
}

uc_error_t *uc_store_begin_reads(uc_store_t *store)
{
    uc_error_t *err;

    if (!store->conn->sqlite)
        return NULL;
    if ((err = uc_store_begin_read(store)))
        return err;
    store->grouping = 1;
    return NULL;
}

uc_error_t *uc_store_end_reads(uc_store_t *store)
{
    return store->grouping ? end_reading(store, NULL) : NULL;
}

uc_error_t *uc_store_end(uc_store_t *store, uc_error_t *work_error)
{
    apr_dbd_transaction_t *txn = store->txn;
    apr_time_t since;
    int rc;

    if (store->reading)
        return end_reading(store, work_error);
    if (!txn)
        return work_error;
    apr_pool_cleanup_kill(store->pool, store, rollback_abandoned);
    store->txn = NULL;
    if (!work_error)
        work_error = store->txn_error;
    store->txn_error = NULL;
    if (work_error)
        apr_dbd_transaction_mode_set(store->driver, txn,
                                     APR_DBD_TRANSACTION_ROLLBACK);
    since = apr_time_now();
    rc = apr_dbd_transaction_end(store->driver, store->pool, txn);
    counted(store, since, NULL);
    if (work_error)
        return work_error;
    if (rc != 0)
        return uc_store_db_error(store, rc, "commit");
    return NULL;
}
