/* SPDX-License-Identifier: Apache-2.0 */
/* The database behind the catalog, over apr_dbd: one uc_store_t per call,
 * wrapping a connection that mod_dbd (or a test) lends us. Per connection,
 * on first use, the schema is migrated and every statement is prepared. */
#ifndef UC_STORE_H
#define UC_STORE_H

#include <apr_dbd.h>
#include <apr_hash.h>
#include <apr_pools.h>

#include "../core/uc_error.h"
#include "../core/uc_log.h"
#include "uc_statements.h"

typedef enum uc_dialect { UC_DIALECT_SQLITE, UC_DIALECT_POSTGRES } uc_dialect_t;

typedef struct uc_migration {
    int version;
    const char *name;
    const char *sql;
} uc_migration_t;

/* Embedded from sql/sqlite/ and sql/postgres/ at build time; each list ends
 * with a zero version. */
extern const uc_migration_t uc_sqlite_migrations[];
extern const uc_migration_t uc_postgres_migrations[];


/* SQLite for this process, before any connection is opened (httpd's
 * parent, at each reading of the configuration): multi-thread mode, as a
 * connection is only ever used by the thread that mod_dbd lent it to, and
 * no memory statistics, which took a process-wide mutex on every
 * allocation. 0 when SQLite was already initialised by someone else: its
 * connections then stay serialised, which is correct, only slower. */
int uc_store_sqlite_setup(void);

typedef struct uc_store_conn uc_store_conn_t;

typedef struct uc_store {
    apr_pool_t *pool;                  /* the call's pool */
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    uc_store_conn_t *conn;             /* per-connection state */
    apr_dbd_transaction_t *txn;
    int reading;                       /* a read transaction is open */
    int grouping;                      /* ...that only groups reads */
    const uc_log_t *log;               /* where diagnostics go, may be NULL */
    int locked;                        /* a statement found SQLite busy */
    uc_error_t *txn_error;             /* a statement of txn that failed */
    /* What the call asked of the database, for the server's metrics:
     * statements (and transaction ends) run, the time they took, and the
     * ones that failed. */
    struct {
        unsigned queries;
        unsigned errors;
        apr_interval_time_t busy;
    } stats;
} uc_store_t;

typedef struct uc_rows {
    int ncols;
    int nrows;
    const char ***rows;                /* rows[i][j]; NULL for SQL NULL */
} uc_rows_t;

/* A page: a statement that selects `limit` plus one rows whose last column
 * is the stored size of the row (SQLite, which stops reading where the
 * page ends) or of the rows before it (PostgreSQL, whose server sends
 * the whole result: the statement itself leaves out the large columns of
 * rows past the budget). The page holds at most `limit` rows and ends before
 * the row that starts once UC_PAGE_BYTES are reached; *more tells whether
 * rows follow it. */
uc_error_t *uc_store_select_page(uc_store_t *store, apr_pool_t *pool,
                                 uc_stmt_t stmt, const char *const *args,
                                 int limit, uc_rows_t *out, int *more);

/* Attaches to a connection. `prepared` and `conn_pool` belong to the
 * connection (mod_dbd's ap_dbd_t has both): the first attach migrates the
 * schema with `migrations` (NULL: the embedded list of the dialect) and
 * prepares every statement into them. */
uc_error_t *uc_store_attach(apr_pool_t *pool, const apr_dbd_driver_t *driver,
                            apr_dbd_t *handle, apr_pool_t *conn_pool,
                            apr_hash_t *prepared,
                            const uc_migration_t *migrations,
                            const uc_log_t *log, uc_store_t **out);

/* The id of the metastore securable, read once per connection. */
const char *uc_store_metastore_id(const uc_store_t *store);

/* Runs a prepared statement; `args` has as many strings as the statement
 * has markers (NULL binds SQL NULL). Rows are allocated from `pool`. */
uc_error_t *uc_store_select(uc_store_t *store, apr_pool_t *pool,
                            uc_stmt_t stmt, const char *const *args,
                            uc_rows_t *out);
/* The one number a statement selects (a COUNT). */
uc_error_t *uc_store_count(uc_store_t *store, apr_pool_t *pool,
                           uc_stmt_t stmt, const char *const *args,
                           int *count);
uc_error_t *uc_store_exec(uc_store_t *store, uc_stmt_t stmt,
                          const char *const *args, int *nrows);

/* A transaction around several statements: begin, then uc_store_end with
 * the error of the work (NULL commits). uc_store_end returns the work's error
 * or, when the commit itself failed, the commit's error. A transaction left
 * open when the call's pool goes away is rolled back. */
uc_error_t *uc_store_begin(uc_store_t *store);
uc_error_t *uc_store_end(uc_store_t *store, uc_error_t *work_error);

/* A transaction that only reads, ended by uc_store_end: one view of the
 * database for all its statements, taking no write lock (SQLite: a
 * deferred BEGIN, a snapshot of the WAL; PostgreSQL: REPEATABLE READ, READ
 * ONLY), so that readers of one table do not queue behind each other as
 * a write transaction would make them. Its lookups lock nothing. */
uc_error_t *uc_store_begin_read(uc_store_t *store);

/* The reads that follow, until uc_store_end, grouped where that costs
 * less than running each alone: on SQLite one read transaction, so that
 * they take and drop the database's read lock once instead of once each
 * (a statement alone does both, in system calls and under a mutex every
 * thread of the process contends for); on PostgreSQL nothing, where a
 * BEGIN and a COMMIT would be two more round trips. It promises no one
 * view of the database. */
uc_error_t *uc_store_begin_reads(uc_store_t *store);

/* Ends such a group early, before a slow call (a cloud's) that should not
 * hold the read lock; nothing when no group is open (a transaction begun
 * otherwise stays open). */
uc_error_t *uc_store_end_reads(uc_store_t *store);

/* True when `err` came from a unique constraint: callers turn it into their
 * resource's ALREADY_EXISTS error. */
int uc_store_is_duplicate(const uc_error_t *err);

#endif
