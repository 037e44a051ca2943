/* SPDX-License-Identifier: Apache-2.0 */
/* Statements on PostgreSQL through the native handle. The apr_dbd driver
 * runs a statement prepared without a name as PQexecParams, which parses
 * and plans it again on every call (the database server's work for a
 * GET was three quarters parsing and planning), and names its prepared
 * statements with typed parameters (varchar for every %s) that compare
 * with no bigint column. The module prepares each statement once per
 * session, on its first use, with the parameters' types left to the
 * server as PQexecParams leaves them; a session the driver reset
 * (another backend) prepares again. Transactions stay with the driver
 * (BEGIN and COMMIT on that connection). */
#include "uc_store_internal.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_tables.h>

/* SQLSTATE of a statement name the session does not know: a pooler or a
 * DISCARD ALL dropped what was prepared. */
#define UNKNOWN_STATEMENT "26000"
#define UNIQUE_VIOLATION "23505"

struct uc_pgsql {
    PGconn *conn;
    int backend;                      /* the session prepared in */
    unsigned char prepared[UC_STMT_COUNT];
    int nparams[UC_STMT_COUNT];       /* of each statement prepared */
};

uc_pgsql_t *uc_pgsql_make(const apr_dbd_driver_t *driver, apr_dbd_t *handle,
                          apr_pool_t *conn_pool)
{
    uc_pgsql_t *pg = apr_pcalloc(conn_pool, sizeof(*pg));

    pg->conn = apr_dbd_native_handle(driver, handle);
    return pg;
}

/* Whether `res` is an error whose SQLSTATE begins with `prefix` (a class,
 * or a whole state). */
static int is_state(const PGresult *res, const char *prefix)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
                            : NULL;

    return state && strncmp(state, prefix, strlen(prefix)) == 0;
}

/* Worth a retry: the connection lost (class 08) or its server shutting
 * down or ending the session (57P), a serialisation failure or deadlock
 * (40001, 40P01), a statement the session forgot. */
static int transient(const PGresult *res, PGconn *conn)
{
    return PQstatus(conn) != CONNECTION_OK || is_state(res, "08") ||
           is_state(res, "57P") || is_state(res, "40001") ||
           is_state(res, "40P01") || is_state(res, UNKNOWN_STATEMENT);
}

/* Unique violation: the client's duplicate; transient failures a 503. A
 * failed statement aborts PostgreSQL's transaction, so
 * the transaction is rolled back, whatever the caller does next. */
static uc_error_t *pg_error(uc_store_t *store, uc_pgsql_t *pg,
                            const PGresult *res, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
                            : NULL;
    const char *msg = res ? PQresultErrorMessage(res) : "";
    uc_error_t *err;

    store->stats.errors++;
    if (!msg || !*msg)
        msg = PQerrorMessage(pg->conn);
    if (is_state(res, UNIQUE_VIOLATION))
        err = uc_error_make(store->pool, UC_E_DUPLICATE, "duplicate key");
    else
        err = uc_error_because(store->pool,
                               transient(res, pg->conn)
                               ? uc_error_unavailable(store->pool)
                               : uc_error_internal(store->pool),
                               "UC0208: PostgreSQL %s failed (SQLSTATE %s): "
                               "%s", what, state ? state : "none", msg);
    uc_store_failed_in_transaction(store, err);
    return err;
}

static void statement_name(char *name, apr_size_t size, uc_stmt_t id)
{
    snprintf(name, size, "uc_%d", (int)id);
}

/* Prepares statement `id` unless this session has: its SQL is only made
 * then, once per session. */
static uc_error_t *prepared(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                            const char *name)
{
    const char *sql, *native;
    PGresult *res;
    uc_error_t *err = NULL;

    if (PQbackendPID(pg->conn) != pg->backend) {
        memset(pg->prepared, 0, sizeof(pg->prepared));
        pg->backend = PQbackendPID(pg->conn);
    }
    if (pg->prepared[id])
        return NULL;
    sql = uc_statements[id].postgres ? uc_statements[id].postgres
                                     : uc_statements[id].sqlite;
    native = uc_store_native_sql(store->pool, sql, 1, &pg->nparams[id]);
    res = PQprepare(pg->conn, name, native, pg->nparams[id], NULL);
    if (PQresultStatus(res) == PGRES_COMMAND_OK)
        pg->prepared[id] = 1;
    else
        err = pg_error(store, pg, res, "prepare");
    PQclear(res);
    return err;
}

/* The error of a statement that failed: a statement the session forgot
 * is prepared again on its next call. */
static uc_error_t *failed(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                          const PGresult *res, const char *what)
{
    if (is_state(res, UNKNOWN_STATEMENT))
        pg->prepared[id] = 0;
    return pg_error(store, pg, res, what);
}

/* Runs statement `id` with `args`; the caller clears the result. A write
 * may return rows (RETURNING). */
static uc_error_t *run(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                       const char *const *args, PGresult **out)
{
    char name[16];
    uc_error_t *err;

    statement_name(name, sizeof(name), id);
    if ((err = prepared(store, pg, id, name)))
        return err;
    *out = PQexecPrepared(pg->conn, name, pg->nparams[id], args, NULL, NULL,
                          0);
    if (PQresultStatus(*out) == PGRES_TUPLES_OK ||
        PQresultStatus(*out) == PGRES_COMMAND_OK)
        return NULL;
    err = failed(store, pg, id, *out, "update");
    PQclear(*out);
    *out = NULL;
    return err;
}

/* Row 0 of `res` into `rows`, its cells copied into `pool`. */
static void keep_row(apr_pool_t *pool, const PGresult *res,
                     apr_array_header_t *rows, int ncols)
{
    const char **row = apr_palloc(pool, sizeof(*row) *
                                  (apr_size_t)(ncols ? ncols : 1));
    int c;

    for (c = 0; c < ncols; c++)
        row[c] = PQgetisnull(res, 0, c)
                 ? NULL
                 : apr_pstrmemdup(pool, PQgetvalue(res, 0, c),
                                  (apr_size_t)PQgetlength(res, 0, c));
    APR_ARRAY_PUSH(rows, const char **) = row;
}

/* Rows come one at a time (libpq's single-row mode), each freed before
 * the next: a page of large rows never grows the thread's heap by its
 * whole size, which glibc gave back to the kernel when the result was
 * freed (madvise and a flush of every core's TLB on every request: half
 * of the child's time for a page of 100 tables). */
uc_error_t *uc_pgsql_select(uc_store_t *store, uc_pgsql_t *pg,
                            apr_pool_t *pool, uc_stmt_t id,
                            const char *const *args, uc_rows_t *out)
{
    apr_array_header_t *rows = apr_array_make(pool, 8, sizeof(const char **));
    char name[16];
    PGresult *res;
    uc_error_t *err;

    statement_name(name, sizeof(name), id);
    if ((err = prepared(store, pg, id, name)))
        return err;
    out->ncols = 0;
    if (!PQsendQueryPrepared(pg->conn, name, pg->nparams[id], args, NULL,
                             NULL, 0))
        return failed(store, pg, id, NULL, "select");
    PQsetSingleRowMode(pg->conn);
    /* Every result is read, up to the end, even after an error: the
     * connection is then ready for the next statement. */
    while ((res = PQgetResult(pg->conn))) {
        ExecStatusType status = PQresultStatus(res);

        if (status == PGRES_SINGLE_TUPLE || status == PGRES_TUPLES_OK)
            out->ncols = PQnfields(res);
        if (status == PGRES_SINGLE_TUPLE && !err)
            keep_row(pool, res, rows, out->ncols);
        else if (status != PGRES_TUPLES_OK && !err)
            err = failed(store, pg, id, res, "select");
        PQclear(res);
    }
    out->nrows = rows->nelts;
    out->rows = (const char ***)rows->elts;
    return err;
}

uc_error_t *uc_pgsql_exec(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                          const char *const *args, int *nrows)
{
    PGresult *res;
    uc_error_t *err = run(store, pg, id, args, &res);

    if (err)
        return err;
    if (nrows)
        *nrows = atoi(PQcmdTuples(res));
    PQclear(res);
    return NULL;
}
