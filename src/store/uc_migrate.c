/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_store_internal.h"

#include <stdlib.h>
#include <apr_strings.h>

/* Any constant will do: it names the lock every server takes while it looks
 * at (and maybe upgrades) the schema of a shared PostgreSQL database. */
#define PG_MIGRATION_LOCK "734231"

static uc_error_t *run(uc_store_t *store, const char *sql, const char *what)
{
    int nrows, rc = apr_dbd_query(store->driver, store->handle, &nrows, sql);
    return rc ? uc_store_db_error(store, rc, what) : NULL;
}

/* True when `sql` holds nothing but blanks and -- comments. */
static int is_blank(const char *sql)
{
    while (*sql) {
        if (sql[0] == '-' && sql[1] == '-') {
            while (*sql && *sql != '\n')
                sql++;
        }
        else if (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r')
            sql++;
        else
            return 0;
    }
    return 1;
}

/* Runs a migration file statement by statement: the drivers' multi-statement
 * handling differs (SQLite's stumbles on a trailing comment), so files end
 * each statement with ';' at the end of a line, and that is where they are
 * cut. */
static uc_error_t *run_script(uc_store_t *store, const char *sql,
                              const char *what)
{
    char *copy = apr_pstrdup(store->pool, sql), *start = copy, *p;
    uc_error_t *err;

    for (p = copy; *p; p++) {
        if (*p != ';' || (p[1] != '\n' && p[1] != '\r'))
            continue;
        *++p = '\0';
        if (!is_blank(start) && (err = run(store, start, what)))
            return err;
        start = p + 1;
    }
    if (!is_blank(start))
        return run(store, start, what);
    return NULL;
}

static uc_error_t *select_int(uc_store_t *store, const char *sql, int *out)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rc = apr_dbd_select(store->driver, store->pool, store->handle, &res,
                            sql, 1);

    if (rc)
        return uc_store_db_error(store, rc, "schema version lookup");
    *out = 0;
    while (apr_dbd_get_row(store->driver, store->pool, res, &row, -1) == 0) {
        const char *v = apr_dbd_get_entry(store->driver, row, 0);
        if (v)
            *out = atoi(v);
    }
    return NULL;
}

/* apr_dbd's SQLite driver compiles statements with the legacy
 * sqlite3_prepare(), which does not recompile on its own: a connection that
 * read the schema before another one migrated the database fails its first
 * statement with "database schema has changed", and SQLite reloads the
 * schema for the next. That first statement is this idempotent one, so on
 * SQLite it is tried a second time, with the transaction told not to latch
 * the first failure (which would fail every later statement). */
static uc_error_t *create_bookkeeping(uc_store_t *store, uc_dialect_t dialect)
{
    static const char sql[] =
        "CREATE TABLE IF NOT EXISTS unicat_schema_version ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at BIGINT NOT NULL)";
    int mode;
    uc_error_t *err;

    if (dialect != UC_DIALECT_SQLITE)
        return run(store, sql, "migration bookkeeping");
    mode = apr_dbd_transaction_mode_get(store->driver, store->txn);
    apr_dbd_transaction_mode_set(store->driver, store->txn,
                                 mode | APR_DBD_TRANSACTION_IGNORE_ERRORS);
    if ((err = run(store, sql, "migration bookkeeping")))
        err = run(store, sql, "migration bookkeeping");
    apr_dbd_transaction_mode_set(store->driver, store->txn, mode);
    return err;
}

static int latest_of(const uc_migration_t *migrations)
{
    const uc_migration_t *m;
    int latest = 0;

    for (m = migrations; m->version; m++)
        latest = m->version;
    return latest;
}

static uc_error_t *newer_than_module(uc_store_t *store, int current,
                                     int latest)
{
    return uc_error_because(store->pool, uc_error_unavailable(store->pool),
                            "UC0205: the database schema is at version %d, "
                            "newer than this module's %d; upgrade "
                            "mod_unicat", current, latest);
}

static uc_error_t *apply_missing(uc_store_t *store, uc_dialect_t dialect,
                                 const uc_migration_t *migrations,
                                 int *version)
{
    const uc_migration_t *m;
    int current = 0, latest = latest_of(migrations);
    uc_error_t *err;

    if (dialect == UC_DIALECT_POSTGRES &&
        (err = run(store, "SELECT pg_advisory_xact_lock(" PG_MIGRATION_LOCK
                   ")", "migration lock")))
        return err;
    if ((err = create_bookkeeping(store, dialect)))
        return err;
    if ((err = select_int(store, "SELECT MAX(version) FROM "
                          "unicat_schema_version", &current)))
        return err;
    if (current > latest)
        return newer_than_module(store, current, latest);
    for (m = migrations; m->version; m++) {
        if (m->version <= current)
            continue;
        if ((err = run_script(store, m->sql, apr_psprintf(store->pool,
                       "migration %s", m->name))))
            return err;
        if ((err = run(store, apr_psprintf(store->pool,
                       "INSERT INTO unicat_schema_version (version, name, "
                       "applied_at) VALUES (%d, '%s', %" APR_INT64_T_FMT ")",
                       m->version, m->name,
                       (apr_int64_t)apr_time_as_msec(apr_time_now())),
                       "migration bookkeeping")))
            return err;
        uc_log(store->log, UC_LOG_INFO, 0,
               "UC0206: applied schema migration %s", m->name);
    }
    *version = latest;
    return NULL;
}

/* The schema's version as a plain read, without a lock: 0 when the
 * database has no bookkeeping yet. It is a connection's first statement,
 * which on SQLite fails once when another connection migrated the file
 * since this one read its schema (see create_bookkeeping). */
static uc_error_t *current_version(uc_store_t *store, uc_dialect_t dialect,
                                   int *current)
{
    const char *sql = dialect == UC_DIALECT_SQLITE
        ? "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
          "name = 'unicat_schema_version'"
        : "SELECT COUNT(*) FROM pg_catalog.pg_class WHERE oid = "
          "to_regclass('unicat_schema_version')";
    int exists = 0;
    uc_error_t *err = select_int(store, sql, &exists);

    if (err && dialect == UC_DIALECT_SQLITE)
        err = select_int(store, sql, &exists);
    *current = 0;
    if (err || !exists)
        return err;
    return select_int(store, "SELECT MAX(version) FROM unicat_schema_version",
                      current);
}

uc_error_t *uc_migrate_store(uc_store_t *store, uc_dialect_t dialect,
                             const uc_migration_t *migrations, int *version)
{
    int current, latest = latest_of(migrations);
    uc_error_t *err;

    /* A database already at this module's version needs nothing, so the
     * connections that find it so (all of them but the first, and a whole
     * generation of children at once after a graceful restart) take no
     * write lock and wait for no writer. */
    if ((err = current_version(store, dialect, &current)))
        return err;
    if (current == latest) {
        *version = latest;
        return NULL;
    }
    if (current > latest)
        return newer_than_module(store, current, latest);
    /* On SQLite the transaction begins IMMEDIATE, which already serialises
     * every process on the file. */
    if ((err = uc_store_begin(store)))
        return err;
    return uc_store_end(store, apply_missing(store, dialect, migrations,
                                             version));
}
