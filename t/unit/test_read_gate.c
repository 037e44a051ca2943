/* SPDX-License-Identifier: Apache-2.0 */
/* The read gate (core/uc_read_gate.c): threads that want a value at once
 * share one reading of it, but each is given a reading that began after
 * it asked, never one already on its way; a failed reading is its
 * reader's error alone. make test runs it plain, under AddressSanitizer
 * and under ThreadSanitizer. */
#include "uc_test.h"

#include <apr_thread_proc.h>
#include <apr_time.h>

#include "../../src/core/uc_read_gate.h"

/* What the readings read: a counter of commits that a writer thread moves
 * on while they run, as a database does. */
typedef struct world {
    apr_pool_t *pool;
    uc_read_gate_t *gate;
    apr_uint64_t commits;
    apr_uint64_t reads;
    apr_uint64_t failed_reads;
    apr_uint64_t fail_every;    /* 0: none fails */
    apr_uint64_t errors_given;
    apr_uint64_t stale;         /* answers older than their asking */
    apr_uint64_t calls;
    int writing;
} world_t;

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define ADD(p, n) __atomic_add_fetch((p), (n), __ATOMIC_SEQ_CST)

/* Reads the commits as they are when it begins, then takes a while, as a
 * round trip does, so that callers come while it is on its way. */
static uc_error_t *slow_read(void *baton, apr_pool_t *pool, apr_int64_t *out)
{
    world_t *w = baton;
    apr_uint64_t seen = LOAD(&w->commits);
    apr_uint64_t n = ADD(&w->reads, 1);

    apr_sleep(300);
    if (w->fail_every && n % w->fail_every == 0) {
        ADD(&w->failed_reads, 1);
        return uc_error_internal(pool);
    }
    *out = (apr_int64_t)seen;
    return NULL;
}

static void *APR_THREAD_FUNC writer(apr_thread_t *thread, void *data)
{
    world_t *w = data;

    while (LOAD(&w->writing)) {
        ADD(&w->commits, 1);
        apr_sleep(50);
    }
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

static void *APR_THREAD_FUNC caller(apr_thread_t *thread, void *data)
{
    world_t *w = data;
    apr_pool_t *pool;
    int i;

    apr_pool_create(&pool, NULL);
    for (i = 0; i < 150; i++) {
        apr_uint64_t asked = LOAD(&w->commits);
        apr_int64_t value = -1;
        uc_error_t *err = uc_read_gate_read(w->gate, slow_read, w, pool,
                                            &value);

        ADD(&w->calls, 1);
        if (err)
            ADD(&w->errors_given, 1);
        else if ((apr_uint64_t)value < asked)
            ADD(&w->stale, 1);
        apr_pool_clear(pool);
    }
    apr_pool_destroy(pool);
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

#define CALLERS 8

/* CALLERS threads of 150 calls each while the writer commits. */
static void run_world(world_t *w)
{
    apr_thread_t *callers[CALLERS], *write;
    apr_status_t rv;
    int i;

    assert_int_equal(uc_read_gate_create(w->pool, &w->gate), APR_SUCCESS);
    w->writing = 1;
    assert_int_equal(apr_thread_create(&write, NULL, writer, w, w->pool),
                     APR_SUCCESS);
    for (i = 0; i < CALLERS; i++)
        assert_int_equal(apr_thread_create(&callers[i], NULL, caller, w,
                                           w->pool), APR_SUCCESS);
    for (i = 0; i < CALLERS; i++)
        apr_thread_join(&rv, callers[i]);
    __atomic_store_n(&w->writing, 0, __ATOMIC_SEQ_CST);
    apr_thread_join(&rv, write);
}

static void test_alone_reads_each_time(void **state)
{
    world_t w = { *state };
    apr_int64_t value = -1;
    int i;

    assert_int_equal(uc_read_gate_create(w.pool, &w.gate), APR_SUCCESS);
    for (i = 1; i <= 3; i++) {
        w.commits = (apr_uint64_t)i * 10;
        assert_null(uc_read_gate_read(w.gate, slow_read, &w, w.pool,
                                      &value));
        assert_int_equal(value, i * 10);
        assert_int_equal(w.reads, i);
    }
    /* A failure is the caller's; the next call reads again. */
    w.fail_every = 4;
    assert_non_null(uc_read_gate_read(w.gate, slow_read, &w, w.pool,
                                      &value));
    w.commits = 77;
    assert_null(uc_read_gate_read(w.gate, slow_read, &w, w.pool, &value));
    assert_int_equal(value, 77);
    assert_int_equal(w.reads, 5);
}

static void test_shared_never_stale(void **state)
{
    world_t w = { *state };

    run_world(&w);
    assert_int_equal(w.calls, CALLERS * 150);
    assert_int_equal(w.errors_given, 0);
    /* Every caller was given what was committed before it asked... */
    assert_int_equal(w.stale, 0);
    /* ...and most of them did not read for it. */
    assert_true(w.reads * 2 < w.calls);
}

static void test_failed_read_is_its_reader_error(void **state)
{
    world_t w = { *state };

    w.fail_every = 5;
    run_world(&w);
    assert_true(w.failed_reads > 0);
    /* Each failed reading is one caller's error; those who waited for it
     * read again. */
    assert_int_equal(w.errors_given, w.failed_reads);
    assert_int_equal(w.stale, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_alone_reads_each_time),
        UC_POOL_TEST(test_shared_never_stale),
        UC_POOL_TEST(test_failed_read_is_its_reader_error),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("read_gate", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
