/* SPDX-License-Identifier: Apache-2.0 */
/* The answer cache (core/uc_answer_cache.c): answers by key and catalog
 * version, a newer version emptying it, the budget, threads; and the
 * catalog's version itself (store/uc_catalog_version.c), which the
 * triggers of every catalog table move on each change, whoever makes it.
 * make test runs it plain, under AddressSanitizer and under
 * ThreadSanitizer. */
#include "uc_test.h"

#include <apr_thread_proc.h>

#include "../../src/core/uc_answer_cache.h"
#include "../../src/core/uc_jw.h"
#include "../../src/store/uc_catalog_version.h"
#include "../../src/store/uc_store.h"

#define KEY(s) (s), (sizeof(s) - 1)

static uc_answer_cache_t *cache_of(apr_pool_t *pool, apr_size_t budget)
{
    uc_answer_cache_t *c = NULL;

    assert_int_equal(uc_answer_cache_create(pool, budget, &c), APR_SUCCESS);
    return c;
}

static const char *get(uc_answer_cache_t *c, const char *key,
                       apr_size_t key_len, apr_int64_t version,
                       apr_pool_t *pool)
{
    apr_size_t len = 0;
    const char *answer = uc_answer_cache_get(c, key, key_len, version, pool,
                                             &len);

    return answer ? apr_pstrmemdup(pool, answer, len) : NULL;
}

static void test_kept_at_its_version(void **state)
{
    apr_pool_t *pool = *state;
    uc_answer_cache_t *c = cache_of(pool, 1 << 20);

    assert_null(get(c, KEY("k"), 7, pool));
    uc_answer_cache_put(c, KEY("k"), 7, "{\"a\":1}", 7);
    assert_string_equal(get(c, KEY("k"), 7, pool), "{\"a\":1}");
    /* Keys are bytes: a NUL inside, or one byte more, is another key. */
    assert_null(get(c, "k\0", 2, 7, pool));
    assert_null(get(c, KEY("kk"), 7, pool));
    /* A caller who read an older version is not given it. */
    assert_null(get(c, KEY("k"), 6, pool));
    assert_string_equal(get(c, KEY("k"), 7, pool), "{\"a\":1}");
}

static void test_newer_version_empties(void **state)
{
    apr_pool_t *pool = *state;
    uc_answer_cache_t *c = cache_of(pool, 1 << 20);
    uc_answer_cache_stats_t st;

    uc_answer_cache_put(c, KEY("a"), 3, "1", 1);
    uc_answer_cache_put(c, KEY("b"), 3, "2", 1);
    assert_null(get(c, KEY("a"), 4, pool));
    uc_answer_cache_stats(c, &st);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.bytes, 0);
    /* Back at the old version, the answers are gone for good. */
    assert_null(get(c, KEY("b"), 3, pool));
    /* An answer made at an older version than one seen is not kept. */
    uc_answer_cache_put(c, KEY("a"), 3, "old", 3);
    assert_null(get(c, KEY("a"), 4, pool));
    uc_answer_cache_put(c, KEY("a"), 4, "new", 3);
    assert_string_equal(get(c, KEY("a"), 4, pool), "new");
    /* A later answer for a key replaces the one kept. */
    uc_answer_cache_put(c, KEY("a"), 4, "newer", 5);
    assert_string_equal(get(c, KEY("a"), 4, pool), "newer");
    uc_answer_cache_stats(c, &st);
    assert_int_equal(st.entries, 1);
}

static void test_budget(void **state)
{
    apr_pool_t *pool = *state;
    uc_answer_cache_t *c = cache_of(pool, 4096);
    uc_answer_cache_stats_t st;
    char big[1100], answer[600];

    memset(big, 'x', sizeof(big));
    memset(answer, 'y', sizeof(answer));
    /* More than a quarter of the budget is given, never kept. */
    uc_answer_cache_put(c, KEY("big"), 1, big, sizeof(big));
    assert_null(get(c, KEY("big"), 1, pool));
    uc_answer_cache_put(c, KEY("1"), 1, answer, sizeof(answer));
    uc_answer_cache_put(c, KEY("2"), 1, answer, sizeof(answer));
    uc_answer_cache_put(c, KEY("3"), 1, answer, sizeof(answer));
    uc_answer_cache_put(c, KEY("4"), 1, answer, sizeof(answer));
    /* "1" was used last of the first four: "2" goes first. */
    assert_non_null(get(c, KEY("1"), 1, pool));
    uc_answer_cache_put(c, KEY("5"), 1, answer, sizeof(answer));
    uc_answer_cache_put(c, KEY("6"), 1, answer, sizeof(answer));
    uc_answer_cache_put(c, KEY("7"), 1, answer, sizeof(answer));
    uc_answer_cache_stats(c, &st);
    assert_true(st.bytes <= 4096);
    assert_true(st.evictions >= 1);
    assert_null(get(c, KEY("2"), 1, pool));
    assert_non_null(get(c, KEY("1"), 1, pool));
    assert_non_null(get(c, KEY("7"), 1, pool));
}

/* An answer lent stays whole while its reader's pool lives, whatever
 * the cache does meanwhile; a writer that borrows it never writes into
 * it. (AddressSanitizer tells a read of freed memory.) */
static void test_lent_until_pool_ends(void **state)
{
    apr_pool_t *pool = *state, *request;
    uc_answer_cache_t *c = cache_of(pool, 1 << 20);
    const char *lent;
    apr_size_t len = 0;
    uc_jw_t *w;

    uc_answer_cache_put(c, KEY("k"), 1, "[1,2,3]", 7);
    apr_pool_create(&request, pool);
    lent = uc_answer_cache_get(c, KEY("k"), 1, request, &len);
    assert_non_null(lent);
    w = uc_jw_make(request, 64);
    uc_jw_borrow(w, lent, len);
    assert_string_equal(uc_jw_text(w), "[1,2,3]");
    assert_ptr_not_equal(w->buf, lent);
    uc_jw_borrow(w, lent, len);
    uc_jw_reset(w);
    uc_jw_string(w, "other");
    /* A newer version empties the cache: the reader's bytes stay. */
    assert_null(get(c, KEY("k"), 2, pool));
    assert_memory_equal(lent, "[1,2,3]", 7);
    assert_string_equal(uc_jw_text(w), "\"other\"");
    apr_pool_destroy(request);
}

/* Threads put and get answers whose text names their key and version,
 * while the version moves: every answer given is the one kept for that
 * key at that version. */
#define THREADS 4
#define ROUNDS 4000

typedef struct worker {
    uc_answer_cache_t *cache;
    int index;
    int wrong;
    int hits;
} worker_t;

static void *APR_THREAD_FUNC work(apr_thread_t *thread, void *data)
{
    worker_t *w = data;
    apr_pool_t *pool;
    int i;

    apr_pool_create(&pool, NULL);
    for (i = 0; i < ROUNDS; i++) {
        apr_int64_t version = i / 500;
        char key[16], answer[64];
        const char *got;
        apr_size_t len;

        snprintf(key, sizeof(key), "k%d", (i * 7 + w->index) % 23);
        snprintf(answer, sizeof(answer), "%s@%" APR_INT64_T_FMT, key,
                 version);
        got = uc_answer_cache_get(w->cache, key, strlen(key), version, pool,
                                  &len);
        if (got && (len != strlen(answer) || memcmp(got, answer, len)))
            w->wrong++;
        else if (got)
            w->hits++;
        else
            uc_answer_cache_put(w->cache, key, strlen(key), version, answer,
                                strlen(answer));
        apr_pool_clear(pool);
    }
    apr_pool_destroy(pool);
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

static void test_threads(void **state)
{
    apr_pool_t *pool = *state;
    /* Small enough that answers are evicted while others read them. */
    uc_answer_cache_t *c = cache_of(pool, 1024);
    apr_thread_t *threads[THREADS];
    worker_t workers[THREADS];
    apr_status_t rv;
    int i, hits = 0;

    for (i = 0; i < THREADS; i++) {
        workers[i] = (worker_t){ c, i, 0, 0 };
        assert_int_equal(apr_thread_create(&threads[i], NULL, work,
                                           &workers[i], pool), APR_SUCCESS);
    }
    for (i = 0; i < THREADS; i++) {
        apr_thread_join(&rv, threads[i]);
        assert_int_equal(workers[i].wrong, 0);
        hits += workers[i].hits;
    }
    assert_true(hits > 0);
}

/* --- the catalog's version ------------------------------------------------ */

static apr_int64_t version_of(uc_store_t *store, apr_pool_t *pool)
{
    apr_int64_t v = -1;

    assert_ok(uc_catalog_version_read(store, pool, &v));
    return v;
}

/* Tables no answer is made of: written while the catalog is only read. */
static int unversioned(const char *table)
{
    return !strcmp(table, "authz_audit") ||
           !strcmp(table, "sharing_queries") ||
           !strcmp(table, "catalog_version") ||
           !strcmp(table, "unicat_schema_version");
}

static void test_version_moves_with_every_table(void **state)
{
    apr_pool_t *pool = *state;
    uc_test_db_t *db = uc_test_db_create(pool);
    uc_test_conn_t *c = uc_test_db_connect(db), *other;
    uc_store_t *store = NULL;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    apr_int64_t before, after;
    int tables = 0;

    assert_ok(uc_store_attach(pool, db->driver, c->handle, c->pool,
                              c->prepared, NULL, NULL, &store));
    assert_int_equal(apr_dbd_select(db->driver, pool, c->handle, &res,
                                    "SELECT name FROM sqlite_master WHERE "
                                    "type = 'table' AND name NOT LIKE "
                                    "'sqlite_%'", 1), 0);
    while (apr_dbd_get_row(db->driver, pool, res, &row, -1) == 0) {
        const char *table = apr_dbd_get_entry(db->driver, row, 0);
        const char *triggers = apr_psprintf(
            pool, "SELECT COUNT(*) FROM sqlite_master WHERE type = "
            "'trigger' AND tbl_name = '%s' AND sql LIKE '%%UPDATE "
            "catalog_version SET version = MAX(version + 1, %%'", table);

        if (unversioned(table))
            continue;
        tables++;
        if (uc_test_sql_int(db, c, pool, triggers) != 3)
            fail_msg("%s: not every change moves the catalog's version",
                     table);
    }
    assert_true(tables >= 11);
    /* A change made outside the module, on another connection, moves it
     * too: the database keeps it, not the module. */
    before = version_of(store, pool);
    other = uc_test_db_connect(db);
    uc_test_sql_exec(db, other, "UPDATE securables SET comment = 'x' "
                                "WHERE kind = 'metastore'");
    uc_test_db_disconnect(db, other);
    after = version_of(store, pool);
    assert_true(after > before);
    /* It is the time of the change, in microseconds. */
    assert_true(after / 1000000 >= apr_time_sec(apr_time_now()) - 60);
    /* Work that is rolled back leaves it where it was. */
    assert_ok(uc_store_begin(store));
    uc_test_sql_exec(db, c, "UPDATE securables SET comment = 'y' "
                            "WHERE kind = 'metastore'");
    assert_non_null(uc_store_end(store, uc_error_internal(pool)));
    assert_true(version_of(store, pool) == after);
    uc_test_db_disconnect(db, c);
    uc_test_db_remove(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_kept_at_its_version),
        UC_POOL_TEST(test_newer_version_empties),
        UC_POOL_TEST(test_budget),
        UC_POOL_TEST(test_lent_until_pool_ends),
        UC_POOL_TEST(test_threads),
        UC_POOL_TEST(test_version_moves_with_every_table),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("answer_cache", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
