/* SPDX-License-Identifier: Apache-2.0 */
/* Text rendered by several threads and delivered in order
 * (uc_in_order.h): every segment once, in order, whatever the threads;
 * never more than the window rendered ahead of delivery; a rendering's
 * error after the text it made, a delivery's error, and a start's; a slow
 * client's segments rendered ahead; the memory of one job kept for the
 * next. Built with ThreadSanitizer too
 * (make test). */
#include "uc_test.h"

#include <sched.h>
#include <sys/resource.h>

#include "../../src/core/uc_in_order.h"
#include "../../src/core/uc_memory.h"

typedef struct job {
    apr_pool_t *pool;
    int threads;
    apr_size_t fail_render_at;     /* (apr_size_t)-1: never */
    apr_size_t fail_deliver_at;
    int fail_start;
    /* what the client got */
    char *received;
    apr_size_t len, cap;
    apr_size_t delivered, lines;
    apr_size_t max_ahead;          /* read by the renderers: atomics */
    int starts;
    apr_size_t fill;               /* bytes of one line per segment
                                    * instead (not kept) */
    int slow;                      /* the client never ready */
    apr_size_t rendered;           /* segments rendered: atomic */
    apr_size_t rendered_at_first;  /* when the first was delivered */
} job_t;

typedef struct renderer {
    job_t *job;
    apr_pool_t *pool;
    apr_size_t rendered;
} renderer_t;

static uc_error_t *start(void *baton, apr_pool_t *pool, void **state)
{
    job_t *job = baton;
    renderer_t *r;

    if (job->fail_start && job->starts++ == 1)
        return uc_error_make(pool, UC_E_INTERNAL, "no renderer");
    r = apr_pcalloc(pool, sizeof(*r));
    r->job = job;
    r->pool = pool;
    *state = r;
    return NULL;
}

/* Segment k: k % 5 lines {"segment":k,"line":j} (some segments have
 * none), each made from the thread's pool; the odd ones take longer. */
static uc_error_t *render(void *state, apr_size_t k, uc_jw_t *jw,
                          apr_pool_t *pool, apr_size_t *lines)
{
    renderer_t *r = state;
    job_t *job = r->job;
    apr_size_t j, ahead = k - __atomic_load_n(&job->delivered,
                                              __ATOMIC_ACQUIRE);

    if (ahead > __atomic_load_n(&job->max_ahead, __ATOMIC_RELAXED))
        __atomic_store_n(&job->max_ahead, ahead, __ATOMIC_RELAXED);
    __atomic_add_fetch(&job->rendered, 1, __ATOMIC_RELAXED);
    if (job->fill) {
        if (jw->cap < job->fill)
            return uc_error_make(pool, UC_E_INTERNAL, "short buffer");
        memset(jw->buf, 'x', job->fill);
        jw->len = job->fill;
        return NULL;
    }
    for (j = 0; j < k % 5; j++) {
        const char *pad = apr_psprintf(r->pool, "%0*d", (int)(k % 97), 0);

        if (k == job->fail_render_at && j == 2)
            return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG,
                                 "segment %lu is broken", (unsigned long)k);
        uc_jw_begin_object(jw);
        uc_jw_key(jw, "segment");
        uc_jw_int(jw, (apr_int64_t)k);
        uc_jw_key(jw, "line");
        uc_jw_int(jw, (apr_int64_t)j);
        uc_jw_field_string(jw, "pad", pad);
        uc_jw_end_object(jw);
        uc_jw_newline(jw);
        ++*lines;
    }
    if (k % 2)
        sched_yield();
    r->rendered++;
    return NULL;
}

static uc_error_t *deliver(void *baton, const char *text, apr_size_t len,
                           apr_size_t lines)
{
    job_t *job = baton;

    if (job->delivered == job->fail_deliver_at)
        return uc_error_make(job->pool, UC_E_CLIENT_GONE, "gone");
    if (!job->delivered)
        job->rendered_at_first = __atomic_load_n(&job->rendered,
                                                 __ATOMIC_RELAXED);
    if (job->fill) {
        assert_int_equal(len, job->fill);
        __atomic_store_n(&job->delivered, job->delivered + 1,
                         __ATOMIC_RELEASE);
        return NULL;
    }
    if (job->len + len + 1 > job->cap) {
        char *grown;

        job->cap = (job->len + len + 1) * 2;
        grown = apr_palloc(job->pool, job->cap);
        memcpy(grown, job->received, job->len);
        job->received = grown;
    }
    memcpy(job->received + job->len, text, len);
    job->len += len;
    job->received[job->len] = '\0';
    job->lines += lines;
    __atomic_store_n(&job->delivered, job->delivered + 1, __ATOMIC_RELEASE);
    return NULL;
}

static int ready(void *baton)
{
    return !((job_t *)baton)->slow;
}

static job_t *job_make(apr_pool_t *pool, int threads)
{
    job_t *job = apr_pcalloc(pool, sizeof(*job));

    job->pool = pool;
    job->threads = threads;
    job->fail_render_at = job->fail_deliver_at = (apr_size_t)-1;
    job->received = "";
    return job;
}

static uc_error_t *run(job_t *job, apr_size_t segments)
{
    uc_in_order_job_t j;

    j.segments = segments;
    j.threads = job->threads;
    j.segment_bytes = job->fill ? job->fill : 256;
    j.baton = job;
    j.start = start;
    j.render = render;
    j.deliver = deliver;
    j.ready = ready;
    return uc_in_order_run(job->pool, &j);
}

/* The text segments [0, segments) make, and the first `partial` lines of
 * segment `segments` after them. */
static const char *expected(apr_pool_t *pool, apr_size_t segments,
                            apr_size_t partial, apr_size_t *lines)
{
    uc_jw_t *jw = uc_jw_make(pool, 4096);
    apr_size_t k, j;

    *lines = 0;
    for (k = 0; k <= segments; k++)
        for (j = 0; j < k % 5 && (k < segments || j < partial); j++) {
            const char *line = apr_psprintf(pool, "{\"segment\":%lu,"
                                            "\"line\":%lu,\"pad\":\"%0*d\"}\n",
                                            (unsigned long)k,
                                            (unsigned long)j,
                                            (int)(k % 97), 0);

            uc_jw_lines(jw, line, strlen(line));
            ++*lines;
        }
    return uc_jw_text(jw);
}

static void test_every_segment_in_order(void **state)
{
    apr_pool_t *pool = *state;
    static const int threads[] = { 1, 2, 3, 8 };
    apr_size_t n = 600, lines, i;
    const char *want = expected(pool, n, 0, &lines);

    for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
        job_t *job = job_make(pool, threads[i]);

        assert_null(run(job, n));
        assert_int_equal(job->delivered, n);
        assert_int_equal(job->lines, lines);
        assert_string_equal(job->received, want);
        /* Two segments a thread at most are ahead of delivery. */
        assert_true(job->max_ahead < (apr_size_t)(2 * threads[i]));
    }
}

static void test_few_segments_and_none(void **state)
{
    apr_pool_t *pool = *state;
    job_t *job = job_make(pool, 8);
    apr_size_t lines;

    assert_null(run(job, 3));
    assert_string_equal(job->received, expected(pool, 3, 0, &lines));
    job = job_make(pool, 4);
    assert_null(run(job, 0));
    assert_int_equal(job->delivered, 0);
}

/* The segments before the broken one, then the lines it made before its
 * error, then the error; nothing after it. */
static void test_render_error_after_its_text(void **state)
{
    apr_pool_t *pool = *state;
    int threads;

    for (threads = 1; threads <= 4; threads++) {
        job_t *job = job_make(pool, threads);
        apr_size_t lines;
        uc_error_t *err;

        job->fail_render_at = 304;     /* 304 % 5 = 4 lines; fails at 2 */
        err = run(job, 600);
        assert_non_null(err);
        assert_string_equal(err->message, "segment 304 is broken");
        assert_string_equal(err->code, "MALFORMED_DELTA_LOG");
        assert_int_equal(job->delivered, 305);
        assert_string_equal(job->received, expected(pool, 304, 2, &lines));
    }
}

static void test_deliver_error_stops(void **state)
{
    apr_pool_t *pool = *state;
    job_t *job = job_make(pool, 3);
    apr_size_t lines;
    uc_error_t *err;

    job->fail_deliver_at = 100;
    err = run(job, 600);
    assert_non_null(err);
    assert_string_equal(err->code, "CLIENT_GONE");
    assert_int_equal(job->delivered, 100);
    assert_string_equal(job->received, expected(pool, 100, 0, &lines));
}

static void test_start_error(void **state)
{
    apr_pool_t *pool = *state;
    job_t *job = job_make(pool, 3);
    uc_error_t *err;

    job->fail_start = 1;
    err = run(job, 600);
    assert_non_null(err);
    assert_string_equal(err->message, "no renderer");
    assert_int_equal(job->delivered, 0);
}

/* While the client is slow to read, the calling thread renders ahead,
 * as far as the window goes, before it delivers: alone, two segments
 * before the first leaves; the text is the same. */
static void test_slow_client(void **state)
{
    apr_pool_t *pool = *state;
    static const int threads[] = { 1, 2, 3 };
    apr_size_t n = 200, lines, i;
    const char *want = expected(pool, n, 0, &lines);

    for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
        job_t *job = job_make(pool, threads[i]);

        job->slow = 1;
        assert_null(run(job, n));
        assert_string_equal(job->received, want);
        assert_true(job->max_ahead < (apr_size_t)(2 * threads[i]));
        if (threads[i] == 1)
            assert_int_equal(job->rendered_at_first, 2);
    }
}

/* The memory of a job's segments and threads stays with the process for
 * the next job (uc_memory.h): a second job of megabytes of text takes
 * hardly a page fault, where fresh memory takes one every page. */
static void test_memory_kept(void **state)
{
    apr_pool_t *pool = *state;
    job_t *job = job_make(pool, 2);
    struct rusage before, after;

    job->fill = (apr_size_t)1 << 20;
    assert_null(run(job, 16));
    job->delivered = 0;
    getrusage(RUSAGE_SELF, &before);
    assert_null(run(job, 16));
    getrusage(RUSAGE_SELF, &after);
    assert_int_equal(job->delivered, 16);
    if (after.ru_minflt - before.ru_minflt > 64)
        fail_msg("%ld page faults", after.ru_minflt - before.ru_minflt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_every_segment_in_order),
        UC_POOL_TEST(test_few_segments_and_none),
        UC_POOL_TEST(test_render_error_after_its_text),
        UC_POOL_TEST(test_deliver_error_stops),
        UC_POOL_TEST(test_start_error),
        UC_POOL_TEST(test_slow_client),
        UC_POOL_TEST(test_memory_kept),
    };
    int rc;

    uc_test_init();
    uc_memory_init(uc_test_global_pool, (apr_size_t)64 << 20);
    rc = cmocka_run_group_tests_name("in_order", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
