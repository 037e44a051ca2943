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

/* Runs statement `id` with `args`; the caller clears the result. A write
 * may return rows (RETURNING). */
static uc_error_t *run(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                       const char *const *args, int select, PGresult **out)
{
    char name[16];
    ExecStatusType status;
    uc_error_t *err;

    statement_name(name, sizeof(name), id);
    if ((err = prepared(store, pg, id, name)))
        return err;
    *out = PQexecPrepared(pg->conn, name, pg->nparams[id], args, NULL, NULL,
                          0);
    status = PQresultStatus(*out);
    if (status == PGRES_TUPLES_OK || (!select && status == PGRES_COMMAND_OK))
        return NULL;
    if (is_state(*out, UNKNOWN_STATEMENT))
        pg->prepared[id] = 0;
    err = pg_error(store, pg, *out, select ? "select" : "update");
    PQclear(*out);
    *out = NULL;
    return err;
}

uc_error_t *uc_pgsql_select(uc_store_t *store, uc_pgsql_t *pg,
                            apr_pool_t *pool, uc_stmt_t id,
                            const char *const *args, uc_rows_t *out)
{
    PGresult *res;
    const char ***rows;
    int r, c;
    uc_error_t *err = run(store, pg, id, args, 1, &res);

    if (err)
        return err;
    out->nrows = PQntuples(res);
    out->ncols = PQnfields(res);
    rows = apr_palloc(pool, sizeof(*rows) *
                      (apr_size_t)(out->nrows ? out->nrows : 1));
    for (r = 0; r < out->nrows; r++) {
        rows[r] = apr_palloc(pool, sizeof(**rows) *
                             (apr_size_t)(out->ncols ? out->ncols : 1));
        for (c = 0; c < out->ncols; c++)
            rows[r][c] = PQgetisnull(res, r, c)
                         ? NULL
                         : apr_pstrmemdup(pool, PQgetvalue(res, r, c),
                                          (apr_size_t)PQgetlength(res, r, c));
    }
    out->rows = rows;
    PQclear(res);
    return NULL;
}

uc_error_t *uc_pgsql_exec(uc_store_t *store, uc_pgsql_t *pg, uc_stmt_t id,
                          const char *const *args, int *nrows)
{
    PGresult *res;
    uc_error_t *err = run(store, pg, id, args, 0, &res);

    if (err)
        return err;
    if (nrows)
        *nrows = atoi(PQcmdTuples(res));
    PQclear(res);
    return NULL;
}
