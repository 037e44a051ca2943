/* SPDX-License-Identifier: Apache-2.0 */
/* The cache of vended credentials (src/cloud/uc_vend_cache.h): a miss
 * fetches and a later get hits with copies of its own; the reuse window
 * before expiry; failed fetches are not kept; eviction at capacity; one
 * fetch for callers of a key at once, a waiter that runs out of time, a
 * waiter whose first fetcher fails; no cache; and that its pool's cleanup
 * frees every entry. */
#include "uc_test.h"

#include <apr_allocator.h>
#include <apr_atomic.h>
#include <apr_thread_proc.h>
#include <apr_time.h>

#include "../../src/cloud/uc_vend_cache.h"

/* Only a sanitizer's allocator counts the bytes in use exactly (glibc's
 * statistics count what its per-thread caches hold as in use). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UC_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UC_TEST_SANITIZED 1
#endif
#endif
#ifdef UC_TEST_SANITIZED
#include <sanitizer/allocator_interface.h>
#endif

/* The callers' clock: fixed, so the windows are exact. */
#define T0 apr_time_from_sec(1700000000)
#define SEC(n) apr_time_from_sec(n)
#define WAIT SEC(10)

/* A stand-in for the cloud: counts its calls, may take its time, fails
 * its first `failures` calls. Each answer names its call, so a caller can
 * tell which fetch it was given. */
typedef struct fetcher {
    volatile apr_uint32_t calls;
    apr_uint32_t failures;
    apr_interval_time_t delay;
    apr_time_t expires;
} fetcher_t;

static uc_error_t *fetch(apr_pool_t *pool, void *baton, uc_vended_t *out)
{
    fetcher_t *f = baton;
    apr_uint32_t call = apr_atomic_inc32(&f->calls) + 1;

    if (f->delay)
        apr_sleep(f->delay);
    if (call <= f->failures)
        return uc_error_make(pool, UC_E_STORAGE, "STS refused call %u.",
                             call);
    out->kind = "aws_temp_credentials";
    out->names[0] = "access_key_id";
    out->names[1] = "secret_access_key";
    out->names[2] = "session_token";
    out->values[0] = apr_psprintf(pool, "ASIA%u", call);
    out->values[1] = apr_psprintf(pool, "secret-%u", call);
    out->values[2] = apr_psprintf(pool, "token-%u", call);
    out->expires = f->expires;
    return NULL;
}

static uc_error_t *get(uc_vend_cache_t *cache, apr_pool_t *pool,
                       const char *key, apr_time_t now, fetcher_t *f,
                       uc_vended_t *out, int *hit)
{
    return uc_vend_cache_get(cache, pool, key, now, WAIT, fetch, f, out,
                             hit);
}

/* `v` is what fetch answered on its call number `call`. */
static void check_from_call(const uc_vended_t *v, unsigned call,
                            apr_time_t expires, int line)
{
    char want[3][32];

    snprintf(want[0], sizeof(want[0]), "ASIA%u", call);
    snprintf(want[1], sizeof(want[1]), "secret-%u", call);
    snprintf(want[2], sizeof(want[2]), "token-%u", call);
    if (!v->kind || strcmp(v->kind, "aws_temp_credentials") != 0 ||
        !v->names[0] || strcmp(v->names[0], "access_key_id") != 0 ||
        !v->names[1] || strcmp(v->names[1], "secret_access_key") != 0 ||
        !v->names[2] || strcmp(v->names[2], "session_token") != 0 ||
        !v->values[0] || strcmp(v->values[0], want[0]) != 0 ||
        !v->values[1] || strcmp(v->values[1], want[1]) != 0 ||
        !v->values[2] || strcmp(v->values[2], want[2]) != 0 ||
        v->expires != expires)
        fail_msg("line %d: not the credential of fetch %u: %s %s %s", line,
                 call, v->values[0] ? v->values[0] : "(null)",
                 v->values[1] ? v->values[1] : "(null)",
                 v->values[2] ? v->values[2] : "(null)");
}
#define assert_from_call(v, call, expires) \
    check_from_call((v), (call), (expires), __LINE__)

static void test_miss_then_hit(void **state)
{
    apr_pool_t *pool = *state, *first, *second;
    fetcher_t f = { .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    uc_vended_t v, other;
    int hit = -1;

    assert_ok(uc_vend_cache_create(pool, 1, &cache));
    apr_pool_create(&first, pool);
    assert_ok(get(cache, first, "k", T0, &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 1);
    assert_from_call(&v, 1, T0 + SEC(3600));
    assert_int_equal(uc_vend_cache_size(cache), 1);
    /* The cache keeps copies of its own: the fetcher's pool may go. */
    apr_pool_destroy(first);
    apr_pool_create(&second, pool);
    assert_ok(get(cache, second, "k", T0 + SEC(60), &f, &v, &hit));
    assert_true(hit);
    assert_int_equal(f.calls, 1);
    assert_from_call(&v, 1, T0 + SEC(3600));
    /* And a hit is given copies in its caller's pool: they outlive the
     * entry, which another key evicts (and wipes) from this one-entry
     * cache. Pointers into the entry would be wiped, or freed (ASan). */
    assert_ok(get(cache, pool, "other", T0 + SEC(60), &f, &other, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 2);
    assert_int_equal(uc_vend_cache_size(cache), 1);
    assert_from_call(&v, 1, T0 + SEC(3600));
    apr_pool_destroy(second);
}

/* Reused until a quarter of its lifetime, at most five minutes, before it
 * expires; from then on a get fetches a new one, which replaces it. */
static void test_reuse_window(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    uc_vended_t v;
    int hit;

    assert_ok(uc_vend_cache_create(pool, 8, &cache));
    /* An hour: a quarter would be 15 minutes; five is the most. */
    assert_ok(get(cache, pool, "hour", T0, &f, &v, &hit));
    assert_ok(get(cache, pool, "hour", T0 + SEC(3600 - 300) - 1, &f, &v,
                  &hit));
    assert_true(hit);
    assert_int_equal(f.calls, 1);
    f.expires = T0 + SEC(7200);
    assert_ok(get(cache, pool, "hour", T0 + SEC(3600 - 300), &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 2);
    assert_from_call(&v, 2, T0 + SEC(7200));
    assert_int_equal(uc_vend_cache_size(cache), 1);

    /* 16 minutes: the quarter, 4 minutes, is under the cap. */
    f.expires = T0 + SEC(960);
    assert_ok(get(cache, pool, "short", T0, &f, &v, &hit));
    assert_int_equal(f.calls, 3);
    assert_ok(get(cache, pool, "short", T0 + SEC(960 - 240) - 1, &f, &v,
                  &hit));
    assert_true(hit);
    assert_from_call(&v, 3, T0 + SEC(960));
    assert_ok(get(cache, pool, "short", T0 + SEC(960 - 240), &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 4);
    assert_int_equal(uc_vend_cache_size(cache), 2);
}

/* A failed fetch reaches its caller and leaves nothing behind. */
static void test_failed_fetch_not_kept(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .failures = 1, .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    uc_error_t *err;
    uc_vended_t v;
    int hit = -1;

    assert_ok(uc_vend_cache_create(pool, 8, &cache));
    err = get(cache, pool, "k", T0, &f, &v, &hit);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "call 1");
    assert_false(hit);
    assert_int_equal(uc_vend_cache_size(cache), 0);
    assert_ok(get(cache, pool, "k", T0, &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 2);
    assert_from_call(&v, 2, T0 + SEC(3600));
    assert_ok(get(cache, pool, "k", T0, &f, &v, &hit));
    assert_true(hit);
    assert_int_equal(f.calls, 2);
}

/* Full, with every entry still reusable: the one expiring first goes. */
static void test_evicts_soonest(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    uc_vended_t v;
    int hit;

    assert_ok(uc_vend_cache_create(pool, 2, &cache));
    assert_ok(get(cache, pool, "a", T0, &f, &v, &hit));
    f.expires = T0 + SEC(7200);
    assert_ok(get(cache, pool, "b", T0, &f, &v, &hit));
    f.expires = T0 + SEC(10800);
    assert_ok(get(cache, pool, "c", T0, &f, &v, &hit));
    assert_int_equal(f.calls, 3);
    assert_int_equal(uc_vend_cache_size(cache), 2);
    assert_ok(get(cache, pool, "b", T0, &f, &v, &hit));
    assert_true(hit);
    assert_from_call(&v, 2, T0 + SEC(7200));
    assert_ok(get(cache, pool, "c", T0, &f, &v, &hit));
    assert_true(hit);
    assert_int_equal(f.calls, 3);
    f.expires = T0 + SEC(3600);
    assert_ok(get(cache, pool, "a", T0, &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 4);
    assert_from_call(&v, 4, T0 + SEC(3600));
}

/* Full, with an entry past its reuse window: that one goes, though
 * another expires sooner. */
static void test_evicts_unusable_first(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .expires = T0 + SEC(1000) };
    uc_vend_cache_t *cache;
    uc_vended_t v;
    int hit;

    assert_ok(uc_vend_cache_create(pool, 2, &cache));
    /* x: reusable until T0+750 s. y: until T0+785 s, expiring at 800. */
    assert_ok(get(cache, pool, "x", T0, &f, &v, &hit));
    f.expires = T0 + SEC(800);
    assert_ok(get(cache, pool, "y", T0 + SEC(740), &f, &v, &hit));
    f.expires = T0 + SEC(4000);
    assert_ok(get(cache, pool, "z", T0 + SEC(750), &f, &v, &hit));
    assert_int_equal(f.calls, 3);
    assert_int_equal(uc_vend_cache_size(cache), 2);
    assert_ok(get(cache, pool, "y", T0 + SEC(750), &f, &v, &hit));
    assert_true(hit);
    assert_from_call(&v, 2, T0 + SEC(800));
    assert_int_equal(f.calls, 3);
    assert_ok(get(cache, pool, "x", T0 + SEC(750), &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(f.calls, 4);
}

static void test_no_cache(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .expires = T0 + SEC(3600) };
    uc_vended_t v;
    int hit = -1;

    assert_ok(get(NULL, pool, "k", T0, &f, &v, &hit));
    assert_false(hit);
    assert_from_call(&v, 1, T0 + SEC(3600));
    hit = -1;
    assert_ok(get(NULL, pool, "k", T0, &f, &v, &hit));
    assert_false(hit);
    assert_from_call(&v, 2, T0 + SEC(3600));
    assert_int_equal(f.calls, 2);
}

/* --- threads ------------------------------------------------------------ */

/* One caller of key "k" on a thread of its own, with a pool of its own:
 * pools are not shared between threads. */
typedef struct caller {
    uc_vend_cache_t *cache;
    fetcher_t *fetcher;
    apr_interval_time_t wait;
    apr_pool_t *pool;
    apr_thread_t *thread;
    uc_error_t *err;
    uc_vended_t got;
    int hit;
} caller_t;

static void *APR_THREAD_FUNC call_cache(apr_thread_t *thread, void *data)
{
    caller_t *c = data;

    c->err = uc_vend_cache_get(c->cache, c->pool, "k", T0, c->wait, fetch,
                               c->fetcher, &c->got, &c->hit);
    /* Returning, not apr_thread_exit: pthread_exit leaves the stack
     * poisoned for ASan. */
    (void)thread;
    return NULL;
}

static void start_caller(caller_t *c, uc_vend_cache_t *cache, fetcher_t *f,
                         apr_pool_t *pool)
{
    memset(c, 0, sizeof(*c));
    c->cache = cache;
    c->fetcher = f;
    c->wait = WAIT;
    c->hit = -1;
    apr_pool_create_unmanaged_ex(&c->pool, NULL, NULL);
    assert_int_equal(apr_thread_create(&c->thread, NULL, call_cache, c,
                                       pool), APR_SUCCESS);
}

static void join_caller(caller_t *c)
{
    apr_status_t rv;

    assert_int_equal(apr_thread_join(&rv, c->thread), APR_SUCCESS);
}

/* Until the fetcher has been called `n` times: a fetch is under way. */
static void await_calls(fetcher_t *f, apr_uint32_t n)
{
    apr_time_t deadline = apr_time_now() + SEC(10);

    while (apr_atomic_read32(&f->calls) < n) {
        if (apr_time_now() > deadline)
            fail_msg("fetch was not called %u times in 10 s", n);
        apr_sleep(1000);
    }
}

/* Eight callers of one key at once while the fetch takes 200 ms: one
 * fetch, and every caller has its credential as soon as it ends: waiters
 * are woken by its end, not by their `wait` running out. */
static void test_single_flight(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .delay = apr_time_from_msec(200),
                    .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    caller_t callers[8];
    apr_time_t start;
    int i, hits = 0;

    assert_ok(uc_vend_cache_create(pool, 8, &cache));
    start = apr_time_now();
    for (i = 0; i < 8; i++)
        start_caller(&callers[i], cache, &f, pool);
    for (i = 0; i < 8; i++)
        join_caller(&callers[i]);
    assert_true(apr_time_now() - start < WAIT / 2);
    assert_int_equal(apr_atomic_read32(&f.calls), 1);
    for (i = 0; i < 8; i++) {
        assert_ok(callers[i].err);
        assert_from_call(&callers[i].got, 1, T0 + SEC(3600));
        hits += callers[i].hit;
        apr_pool_destroy(callers[i].pool);
    }
    assert_int_equal(hits, 7);
}

/* A waiter whose `wait` runs out before the first fetch ends fetches on
 * its own; what it fetched is not kept, the first one's is. */
static void test_waiter_runs_out(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .delay = apr_time_from_msec(300),
                    .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    caller_t first;
    uc_vended_t v;
    int hit = -1;

    assert_ok(uc_vend_cache_create(pool, 8, &cache));
    start_caller(&first, cache, &f, pool);
    await_calls(&f, 1);
    assert_ok(uc_vend_cache_get(cache, pool, "k", T0, apr_time_from_msec(50),
                                fetch, &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(apr_atomic_read32(&f.calls), 2);
    assert_from_call(&v, 2, T0 + SEC(3600));
    join_caller(&first);
    assert_ok(first.err);
    assert_false(first.hit);
    assert_from_call(&first.got, 1, T0 + SEC(3600));
    apr_pool_destroy(first.pool);
    assert_int_equal(uc_vend_cache_size(cache), 1);
    assert_ok(get(cache, pool, "k", T0, &f, &v, &hit));
    assert_true(hit);
    assert_from_call(&v, 1, T0 + SEC(3600));
}

/* The first fetcher fails: it gets the error, the waiter fetches itself
 * and what it fetched is kept. */
static void test_waiter_after_failure(void **state)
{
    apr_pool_t *pool = *state;
    fetcher_t f = { .failures = 1, .delay = apr_time_from_msec(300),
                    .expires = T0 + SEC(3600) };
    uc_vend_cache_t *cache;
    caller_t first;
    uc_vended_t v;
    int hit = -1;

    assert_ok(uc_vend_cache_create(pool, 8, &cache));
    start_caller(&first, cache, &f, pool);
    await_calls(&f, 1);
    assert_ok(get(cache, pool, "k", T0, &f, &v, &hit));
    assert_false(hit);
    assert_int_equal(apr_atomic_read32(&f.calls), 2);
    assert_from_call(&v, 2, T0 + SEC(3600));
    join_caller(&first);
    assert_err(first.err, 502, "STORAGE_ERROR");
    assert_false(first.hit);
    apr_pool_destroy(first.pool);
    assert_ok(get(cache, pool, "k", T0, &f, &v, &hit));
    assert_true(hit);
    assert_from_call(&v, 2, T0 + SEC(3600));
}

/* --- memory ------------------------------------------------------------- */

#ifdef UC_TEST_SANITIZED
/* Entries are malloc'd, not pool memory: the cleanup of the cache's pool
 * must free them. The pool has an allocator of its own, which goes with
 * it, so that everything it took is given back. */
static void test_cleanup_frees_entries(void **state)
{
    fetcher_t f = { .expires = T0 + SEC(3600) };
    apr_allocator_t *allocator;
    uc_vend_cache_t *cache;
    apr_pool_t *own;
    uc_vended_t v;
    size_t before;
    int hit;

    (void)state;
    before = __sanitizer_get_current_allocated_bytes();
    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    apr_pool_create_unmanaged_ex(&own, NULL, allocator);
    apr_allocator_owner_set(allocator, own);
    assert_ok(uc_vend_cache_create(own, 4, &cache));
    assert_ok(get(cache, own, "a", T0, &f, &v, &hit));
    assert_ok(get(cache, own, "b", T0, &f, &v, &hit));
    assert_ok(get(cache, own, "c", T0, &f, &v, &hit));
    assert_int_equal(uc_vend_cache_size(cache), 3);
    apr_pool_destroy(own);
    assert_int_equal(__sanitizer_get_current_allocated_bytes(), before);
}
#else
/* Checked by the sanitized builds (build/san, build/tsan). */
static void test_cleanup_frees_entries(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_miss_then_hit),
        UC_POOL_TEST(test_reuse_window),
        UC_POOL_TEST(test_failed_fetch_not_kept),
        UC_POOL_TEST(test_evicts_soonest),
        UC_POOL_TEST(test_evicts_unusable_first),
        UC_POOL_TEST(test_no_cache),
        UC_POOL_TEST(test_single_flight),
        UC_POOL_TEST(test_waiter_runs_out),
        UC_POOL_TEST(test_waiter_after_failure),
        cmocka_unit_test(test_cleanup_frees_entries),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("vend_cache", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
