/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of the cmocka unit tests: APR start-up, per-test pools,
 * error assertions and temporary SQLite databases. Header-only: every test
 * binary is one translation unit linked with the core library. */
#ifndef UC_TEST_H
#define UC_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <apr_dbd.h>

#include "../../src/core/uc_error.h"
#include "../../src/core/uc_secret.h"

/* One process-wide pool: apr_dbd_init's lifetime. */
static apr_pool_t *uc_test_global_pool;

static inline void uc_test_init(void)
{
    if (apr_initialize() != APR_SUCCESS) {
        fprintf(stderr, "apr_initialize failed\n");
        exit(2);
    }
    apr_pool_create(&uc_test_global_pool, NULL);
    apr_dbd_init(uc_test_global_pool);
}

static inline void uc_test_fini(void)
{
    apr_pool_destroy(uc_test_global_pool);
    uc_test_global_pool = NULL;
    apr_terminate();
}

/* setup/teardown giving each test a fresh pool in *state. */
static inline int uc_test_pool_setup(void **state)
{
    apr_pool_t *pool;

    if (apr_pool_create(&pool, uc_test_global_pool) != APR_SUCCESS)
        return -1;
    *state = pool;
    return 0;
}

static inline int uc_test_pool_teardown(void **state)
{
    apr_pool_destroy(*state);
    return 0;
}

#define UC_POOL_TEST(f) \
    cmocka_unit_test_setup_teardown(f, uc_test_pool_setup, uc_test_pool_teardown)

/* --- errors ---------------------------------------------------------- */

static inline void uc_test_assert_ok(const uc_error_t *err, const char *what,
                                     const char *file, int line)
{
    if (err)
        fail_msg("%s:%d: %s: unexpected error %d %s: %s", file, line, what,
                 err->status, err->code ? err->code : "(null)",
                 err->message ? err->message : "(null)");
}

static inline void uc_test_assert_err(const uc_error_t *err, int status,
                                      const char *code, const char *what,
                                      const char *file, int line)
{
    if (!err)
        fail_msg("%s:%d: %s: expected error %d %s, got success", file, line,
                 what, status, code ? code : "");
    if (err->status != status || (code && (!err->code ||
                                           strcmp(err->code, code) != 0)))
        fail_msg("%s:%d: %s: expected error %d %s, got %d %s: %s", file,
                 line, what, status, code ? code : "", err->status,
                 err->code ? err->code : "(null)",
                 err->message ? err->message : "(null)");
    if (!err->message || !*err->message)
        fail_msg("%s:%d: %s: error without a message", file, line, what);
}

/* assert_ok(expr): the expression returned no error.
 * assert_err(expr, status, code): it returned that error (code NULL: any). */
#define assert_ok(e) uc_test_assert_ok((e), #e, __FILE__, __LINE__)
#define assert_err(e, status, code) \
    uc_test_assert_err((e), (status), (code), #e, __FILE__, __LINE__)
#define assert_invalid(e) assert_err((e), 400, "INVALID_PARAMETER_VALUE")

/* The message mentions `needle`. */
#define assert_contains(haystack, needle) do {                              \
        const char *h_ = (haystack), *n_ = (needle);                        \
        if (!h_ || !strstr(h_, n_))                                         \
            fail_msg("%s:%d: \"%s\" does not contain \"%s\"", __FILE__,     \
                     __LINE__, h_ ? h_ : "(null)", n_);                     \
    } while (0)

/* --- keys ------------------------------------------------------------ */

/* A key file of one or two keys (`second` NULL: one), each 64 hex digits;
 * the first signs and seals. */
static inline uc_secret_keys_t *uc_test_keys(apr_pool_t *pool,
                                             const char *first,
                                             const char *second)
{
    uc_secret_keys_t *keys = apr_pcalloc(pool, sizeof(*keys));
    const char *texts[] = { first, second };
    int i;

    for (i = 0; i < 2 && texts[i]; i++) {
        uc_secret_key_t key;

        assert_ok(uc_secret_key_parse(pool, "test", texts[i],
                                      strlen(texts[i]), &key));
        assert_ok(uc_secret_keys_add(pool, keys, &key));
    }
    return keys;
}

/* 8-4-4-4-12 lower-case hex with version 4 and an RFC 4122 variant. */
static inline int uc_test_is_uuid4(const char *s)
{
    static const char shape[] = "xxxxxxxx-xxxx-4xxx-vxxx-xxxxxxxxxxxx";
    size_t i;

    if (!s || strlen(s) != sizeof(shape) - 1)
        return 0;
    for (i = 0; shape[i]; i++) {
        char c = s[i];
        int hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        switch (shape[i]) {
        case '-': if (c != '-') return 0; break;
        case '4': if (c != '4') return 0; break;
        case 'v': if (!strchr("89ab", c)) return 0; break;
        default: if (!hex) return 0;
        }
    }
    return 1;
}

/* --- temporary SQLite databases ---------------------------------------- */

typedef struct uc_test_db {
    apr_pool_t *pool;
    char dir[64];
    const char *path;                 /* dir/catalog.db */
    const apr_dbd_driver_t *driver;
} uc_test_db_t;

/* A connection as mod_dbd would lend it: handle, its pool and its
 * `prepared` hash. */
typedef struct uc_test_conn {
    apr_pool_t *pool;
    apr_dbd_t *handle;
    apr_hash_t *prepared;
} uc_test_conn_t;

static inline uc_test_db_t *uc_test_db_create(apr_pool_t *pool)
{
    uc_test_db_t *db = apr_pcalloc(pool, sizeof(*db));
    apr_status_t rv;

    db->pool = pool;
    strcpy(db->dir, "/tmp/uc_unit_XXXXXX");
    if (!mkdtemp(db->dir))
        fail_msg("mkdtemp failed");
    db->path = apr_pstrcat(pool, db->dir, "/catalog.db", NULL);
    rv = apr_dbd_get_driver(uc_test_global_pool, "sqlite3", &db->driver);
    if (rv != APR_SUCCESS)
        fail_msg("apr_dbd_get_driver(sqlite3) failed: %d", rv);
    return db;
}

struct uc_test_close_baton {
    const apr_dbd_driver_t *driver;
    uc_test_conn_t *conn;
};

/* Like mod_dbd: the connection closes in a cleanup of its own pool, after
 * the cleanups registered later (statements) have run. */
static inline apr_status_t uc_test_close_cleanup(void *data)
{
    struct uc_test_close_baton *b = data;

    if (b->conn->handle)
        apr_dbd_close(b->driver, b->conn->handle);
    b->conn->handle = NULL;
    return APR_SUCCESS;
}

static inline uc_test_conn_t *uc_test_db_connect(uc_test_db_t *db)
{
    uc_test_conn_t *c = apr_pcalloc(db->pool, sizeof(*c));
    struct uc_test_close_baton *b;
    const char *error = NULL;
    apr_status_t rv;

    apr_pool_create(&c->pool, db->pool);
    rv = apr_dbd_open_ex(db->driver, c->pool, db->path, &c->handle, &error);
    if (rv != APR_SUCCESS)
        fail_msg("apr_dbd_open(%s) failed: %d %s", db->path, rv,
                 error ? error : "");
    b = apr_palloc(c->pool, sizeof(*b));
    b->driver = db->driver;
    b->conn = c;
    apr_pool_cleanup_register(c->pool, b, uc_test_close_cleanup,
                              apr_pool_cleanup_null);
    c->prepared = apr_hash_make(c->pool);
    return c;
}

static inline void uc_test_db_disconnect(uc_test_db_t *db, uc_test_conn_t *c)
{
    (void)db;
    if (c && c->pool) {
        apr_pool_destroy(c->pool);
        c->pool = NULL;
        c->handle = NULL;
    }
}

/* Removes the database, its -wal/-shm files and the directory. Close the
 * connections first. */
static inline void uc_test_db_remove(uc_test_db_t *db)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal",
                                            NULL };
    int i;

    if (!db || !db->dir[0])
        return;
    for (i = 0; suffixes[i]; i++) {
        char path[128];
        snprintf(path, sizeof(path), "%s/catalog.db%s", db->dir, suffixes[i]);
        unlink(path);
    }
    rmdir(db->dir);
    db->dir[0] = '\0';
}

/* The first column of the first row of `sql` run directly on a connection,
 * or NULL (no row, SQL NULL). Fails the test when the query fails. */
static inline const char *uc_test_sql_value(uc_test_db_t *db,
                                            uc_test_conn_t *c,
                                            apr_pool_t *pool, const char *sql)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *value = NULL;
    int rc, first = 1;

    rc = apr_dbd_select(db->driver, pool, c->handle, &res, sql, 1);
    if (rc != 0)
        fail_msg("%s: rc %d %s", sql, rc,
                 apr_dbd_error(db->driver, c->handle, rc));
    while (apr_dbd_get_row(db->driver, pool, res, &row, -1) == 0) {
        if (first) {
            const char *v = apr_dbd_get_entry(db->driver, row, 0);
            value = v ? apr_pstrdup(pool, v) : NULL;
            first = 0;
        }
    }
    return value;
}

static inline int uc_test_sql_int(uc_test_db_t *db, uc_test_conn_t *c,
                                  apr_pool_t *pool, const char *sql)
{
    const char *v = uc_test_sql_value(db, c, pool, sql);
    if (!v)
        fail_msg("%s: no value", sql);
    return atoi(v);
}

static inline void uc_test_sql_exec(uc_test_db_t *db, uc_test_conn_t *c,
                                    const char *sql)
{
    int nrows = 0, rc = apr_dbd_query(db->driver, c->handle, &nrows, sql);
    if (rc != 0)
        fail_msg("%s: rc %d %s", sql, rc,
                 apr_dbd_error(db->driver, c->handle, rc));
}

#endif
