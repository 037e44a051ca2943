/* SPDX-License-Identifier: Apache-2.0 */
/* Statements on SQLite through the native handle. The apr_dbd driver copies
 * every row through its process-wide mutex and prepares with the legacy
 * sqlite3_prepare, whose statements break for good on any schema change
 * another connection makes (VACUUM, ANALYZE, an index, a migration); the
 * module prepares its statements with sqlite3_prepare_v2 on the same
 * connection, which re-prepares them after schema changes, and runs reads
 * and writes with them. Transactions stay with the driver (BEGIN and
 * COMMIT on that connection), so its transaction handling keeps working. */
#include "uc_store_internal.h"
#include "../core/uc_page.h"

#include <sqlite3.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <apr_time.h>

/* Busy reads are rare in WAL mode (checkpoints, recovery); they are retried
 * for a bounded time, like the driver does for writes. */
#define BUSY_RETRIES 40
#define BUSY_SLEEP apr_time_from_msec(25)

int uc_store_sqlite_setup(void)
{
    /* Each call is refused (SQLITE_MISUSE) once SQLite is initialised. */
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD) == SQLITE_OK &&
           sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
}

/* SQLITE_CONFIG_MULTITHREAD: a connection is never used by two threads at
 * once. ThreadSanitizer cannot see inside SQLite, and a connection's
 * statements, once prepared, are only read; so in a TSan build (make
 * tsan-test) every statement run writes to the connection's `uses`, and
 * two threads using one connection without handing it over are a race it
 * reports. */
#if defined(__SANITIZE_THREAD__)
#define UC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UC_TSAN 1
#endif
#endif
#ifdef UC_TSAN
#define CLAIM(sqlite) ((sqlite)->uses++)
#else
#define CLAIM(sqlite) ((void)0)
#endif

struct uc_sqlite {
    sqlite3 *db;
    sqlite3_stmt *statements[UC_STMT_COUNT];
    unsigned long uses;         /* written in TSan builds only (CLAIM) */
};

static apr_status_t finalize_all(void *data)
{
    uc_sqlite_t *sqlite = data;
    int i;

    for (i = 0; i < UC_STMT_COUNT; i++)
        if (sqlite->statements[i]) {
            sqlite3_finalize(sqlite->statements[i]);
            sqlite->statements[i] = NULL;
        }
    return APR_SUCCESS;
}

uc_sqlite_t *uc_sqlite_make(const apr_dbd_driver_t *driver,
                            apr_dbd_t *handle, apr_pool_t *conn_pool)
{
    uc_sqlite_t *sqlite = apr_pcalloc(conn_pool, sizeof(*sqlite));

    sqlite->db = apr_dbd_native_handle(driver, handle);
    /* Registered after the connection was opened, so it runs before the
     * connection closes (sqlite3_close refuses while statements live). */
    apr_pool_cleanup_register(conn_pool, sqlite, finalize_all,
                              apr_pool_cleanup_null);
    return sqlite;
}

static uc_error_t *sqlite_error(uc_store_t *store, uc_sqlite_t *sqlite,
                                int rc, const char *what)
{
    int locked = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
    uc_error_t *err = locked ? uc_error_unavailable(store->pool)
                             : uc_error_internal(store->pool);

    if (locked)
        store->locked = 1;

    return uc_error_because(store->pool, err, "UC0207: SQLite %s failed "
                            "(rc %d): %s", what, rc,
                            sqlite3_errmsg(sqlite->db));
}

static uc_error_t *statement(uc_store_t *store, uc_sqlite_t *sqlite,
                             uc_stmt_t id, sqlite3_stmt **out)
{
    CLAIM(sqlite);
    if (!sqlite->statements[id]) {
        const char *sql = uc_store_native_sql(store->pool,
                                              uc_statements[id].sqlite, 0,
                                              NULL);
        int rc = sqlite3_prepare_v2(sqlite->db, sql, -1,
                                    &sqlite->statements[id], NULL);
        if (rc != SQLITE_OK)
            return sqlite_error(store, sqlite, rc, "prepare");
    }
    *out = sqlite->statements[id];
    return NULL;
}

/* The statement `id` with `args` bound (as many as it has markers). On an
 * error *out may be set (then it needs its reset) or NULL. */
static uc_error_t *bound(uc_store_t *store, uc_sqlite_t *sqlite, uc_stmt_t id,
                         const char *const *args, sqlite3_stmt **out)
{
    uc_error_t *err = statement(store, sqlite, id, out);
    int nargs, i;

    if (err)
        return err;
    nargs = sqlite3_bind_parameter_count(*out);
    for (i = 0; i < nargs; i++)
        if (sqlite3_bind_text(*out, i + 1, args[i], -1, SQLITE_STATIC)
            != SQLITE_OK)
            return sqlite_error(store, sqlite, sqlite3_errcode(sqlite->db),
                                "bind");
    return NULL;
}

/* Whether the page is full before the row `st` stands on: rows of a page
 * are only read while they fit. */
static int page_full(uc_sqlite_page_t *page, sqlite3_stmt *st, int ncols,
                     int nrows, apr_int64_t *bytes)
{
    if (nrows == page->limit || (nrows > 0 && *bytes >= UC_PAGE_BYTES)) {
        page->more = 1;
        return 1;
    }
    *bytes += sqlite3_column_int64(st, ncols - 1);
    return 0;
}

/* A column of the row `st` stands on as text, NULL for SQL NULL. SQLite
 * would turn an integer into text in memory of its own, from malloc; the
 * digits written here are the same. Text holds no NUL: every value is
 * bound as a C string. */
static const char *cell(apr_pool_t *pool, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        return NULL;
    case SQLITE_INTEGER:
        return apr_off_t_toa(pool, (apr_off_t)sqlite3_column_int64(st, i));
    default:
        return apr_pstrdup(pool, (const char *)sqlite3_column_text(st, i));
    }
}

uc_error_t *uc_sqlite_select(uc_store_t *store, uc_sqlite_t *sqlite,
                             apr_pool_t *pool, uc_stmt_t id,
                             const char *const *args, uc_sqlite_page_t *page,
                             uc_rows_t *out)
{
    apr_array_header_t *rows;
    sqlite3_stmt *st = NULL;
    apr_int64_t bytes = 0;
    int i, rc, tries = 0;
    uc_error_t *err = bound(store, sqlite, id, args, &st);

    if (err)
        goto done;
    out->ncols = sqlite3_column_count(st);
    rows = apr_array_make(pool, 16, sizeof(const char **));
    if (page)
        page->more = 0;
    while ((rc = sqlite3_step(st)) != SQLITE_DONE) {
        const char **cells;

        if (rc == SQLITE_BUSY && rows->nelts == 0 && ++tries < BUSY_RETRIES) {
            sqlite3_reset(st);
            apr_sleep(BUSY_SLEEP);
            continue;
        }
        if (rc != SQLITE_ROW) {
            err = sqlite_error(store, sqlite, rc, "select");
            goto done;
        }
        if (page && page_full(page, st, out->ncols, rows->nelts, &bytes))
            break;
        cells = apr_palloc(pool, sizeof(*cells) *
                           (apr_size_t)(out->ncols ? out->ncols : 1));
        for (i = 0; i < out->ncols; i++)
            cells[i] = cell(pool, st, i);
        APR_ARRAY_PUSH(rows, const char **) = cells;
    }
    out->nrows = rows->nelts;
    out->rows = (const char ***)rows->elts;
done:
    /* A statement left mid-step would block the driver's COMMIT. */
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    return err;
}

/* A write outside a transaction waits for another writer as long as the
 * driver's writes did (16 tries 100 ms apart); in one, the transaction
 * holds the write lock from its BEGIN. */
#define WRITE_BUSY_RETRIES 16
#define WRITE_BUSY_SLEEP apr_time_from_msec(100)

static uc_error_t *write_error(uc_store_t *store, uc_sqlite_t *sqlite, int rc)
{
    int extended = sqlite3_extended_errcode(sqlite->db);

    store->stats.errors++;
    if (extended == SQLITE_CONSTRAINT_UNIQUE ||
        extended == SQLITE_CONSTRAINT_PRIMARYKEY)
        return uc_error_make(store->pool, UC_E_DUPLICATE, "duplicate key");
    return sqlite_error(store, sqlite, rc, "update");
}

uc_error_t *uc_sqlite_exec(uc_store_t *store, uc_sqlite_t *sqlite,
                           uc_stmt_t id, const char *const *args, int *nrows)
{
    sqlite3_stmt *st = NULL;
    int rc, tries = 0;
    uc_error_t *err = bound(store, sqlite, id, args, &st);

    if (err)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_BUSY &&
           ++tries < WRITE_BUSY_RETRIES) {
        sqlite3_reset(st);
        apr_sleep(WRITE_BUSY_SLEEP);
    }
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
        if (nrows)
            *nrows = sqlite3_changes(sqlite->db);
    }
    else
        err = write_error(store, sqlite, rc);
done:
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    return err;
}
