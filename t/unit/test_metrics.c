/* SPDX-License-Identifier: Apache-2.0 */
/* The shared metrics: the block's shape, requests into families, methods,
 * status classes and latency buckets, the process slots (claimed,
 * published, released, taken back from a process that died), the text
 * format, and exact counts under threads that count at once. */
#include "uc_test.h"

#include <pthread.h>
#include <stdlib.h>

#include "../../src/call/uc_call.h"
#include "../../src/core/uc_metrics.h"

static const uc_metrics_family_t names[] = {
    { "catalog", "catalogs" }, { "sharing", "shares/query" },
    { "catalog", "we\"ird\\" }
};
#define FAMILIES 3

static uc_metrics_t *fresh(apr_pool_t *pool, int processes, void **block)
{
    apr_size_t size = uc_metrics_size(FAMILIES, processes);
    uc_metrics_t *m;

    *block = apr_pcalloc(pool, size);
    m = uc_metrics_attach(pool, *block, size, FAMILIES, processes);
    assert_non_null(m);
    return m;
}

static const char *render(apr_pool_t *pool, uc_metrics_t *m,
                          int (*alive)(long))
{
    apr_size_t len;
    const char *text = uc_metrics_render(pool, m, names, alive, &len);

    assert_int_equal(strlen(text), len);
    assert_true(len > 0 && text[len - 1] == '\n');
    return text;
}

static void has_line(const char *text, const char *line)
{
    const char *p = text;
    size_t n = strlen(line);

    while ((p = strstr(p, line)))
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return;
        else
            p++;
    fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_shape(void **state)
{
    apr_pool_t *pool = *state;
    void *block;
    uc_metrics_t *m = fresh(pool, 4, &block);
    apr_size_t size = uc_metrics_size(FAMILIES, 4);

    uc_metrics_add(m, UC_M_DB_QUERIES, 7);
    /* A restart finds the same block: it goes on counting. */
    m = uc_metrics_attach(pool, block, size, FAMILIES, 4);
    assert_non_null(m);
    has_line(render(pool, m, NULL), "unicat_database_queries_total 7");
    /* Another shape is refused, and so is a block too small. */
    assert_null(uc_metrics_attach(pool, block, size, FAMILIES - 1, 4));
    assert_null(uc_metrics_attach(pool, block, size - 1, FAMILIES, 4));
    assert_null(uc_metrics_attach(pool, block, size, 0, 4));
}

static void test_requests(void **state)
{
    apr_pool_t *pool = *state;
    void *block;
    uc_metrics_t *m = fresh(pool, 1, &block);
    const char *text;

    uc_metrics_request(m, 0, UC_GET, 200, 1000);      /* le 0.001 */
    uc_metrics_request(m, 0, UC_GET, 204, 1001);      /* le 0.0025 */
    uc_metrics_request(m, 0, UC_POST, 409, 3000000);  /* le 5 */
    uc_metrics_request(m, 0, UC_DELETE, 503, 20000000);  /* +Inf */
    uc_metrics_request(m, 0, 99, 700, -5);            /* OTHER, 5xx */
    uc_metrics_request(m, 2, UC_PATCH, 100, 1);
    uc_metrics_request(m, 3, UC_GET, 200, 1);         /* no such family */
    uc_metrics_request(NULL, 0, UC_GET, 200, 1);
    text = render(pool, m, NULL);
    has_line(text, "unicat_requests_total{api=\"catalog\",family="
             "\"catalogs\",method=\"GET\",code=\"2xx\"} 2");
    has_line(text, "unicat_requests_total{api=\"catalog\",family="
             "\"catalogs\",method=\"POST\",code=\"4xx\"} 1");
    has_line(text, "unicat_requests_total{api=\"catalog\",family="
             "\"catalogs\",method=\"DELETE\",code=\"5xx\"} 1");
    has_line(text, "unicat_requests_total{api=\"catalog\",family="
             "\"catalogs\",method=\"OTHER\",code=\"5xx\"} 1");
    has_line(text, "unicat_requests_total{api=\"catalog\",family="
             "\"we\\\"ird\\\\\",method=\"PATCH\",code=\"1xx\"} 1");
    has_line(text, "unicat_request_duration_seconds_bucket{api=\"catalog\","
             "family=\"catalogs\",le=\"0.001\"} 2");
    has_line(text, "unicat_request_duration_seconds_bucket{api=\"catalog\","
             "family=\"catalogs\",le=\"0.0025\"} 3");
    has_line(text, "unicat_request_duration_seconds_bucket{api=\"catalog\","
             "family=\"catalogs\",le=\"2.5\"} 3");
    has_line(text, "unicat_request_duration_seconds_bucket{api=\"catalog\","
             "family=\"catalogs\",le=\"5\"} 4");
    has_line(text, "unicat_request_duration_seconds_bucket{api=\"catalog\","
             "family=\"catalogs\",le=\"10\"} 4");
    has_line(text, "unicat_request_duration_seconds_bucket{api=\"catalog\","
             "family=\"catalogs\",le=\"+Inf\"} 5");
    has_line(text, "unicat_request_duration_seconds_count{api=\"catalog\","
             "family=\"catalogs\"} 5");
    has_line(text, "unicat_request_duration_seconds_sum{api=\"catalog\","
             "family=\"catalogs\"} 23.002001");
    /* A family that answered nothing is not shown. */
    assert_null(strstr(text, "shares/query"));
    has_line(text, "# TYPE unicat_request_duration_seconds histogram");
}

static long dead_pid;

static int all_alive_but_one(long pid)
{
    return pid != dead_pid;
}

static void test_processes(void **state)
{
    apr_pool_t *pool = *state;
    void *block;
    uc_metrics_t *m = fresh(pool, 2, &block);
    uc_metrics_process_t a = { 3, 300, 10, 1, 2, 0, 4 };
    uc_metrics_process_t b = { 1, 100, 5, 0, 1, 1, 0 };
    const char *text;
    int sa, sb;

    sa = uc_metrics_claim(m, 1001, all_alive_but_one);
    sb = uc_metrics_claim(m, 1002, all_alive_but_one);
    assert_true(sa >= 0 && sb >= 0 && sa != sb);
    assert_int_equal(uc_metrics_claim(m, 1003, all_alive_but_one), -1);
    uc_metrics_publish(m, sa, &a);
    uc_metrics_publish(m, sb, &b);
    text = render(pool, m, all_alive_but_one);
    has_line(text, "unicat_processes 2");
    has_line(text, "unicat_delta_snapshot_cache_entries 4");
    has_line(text, "unicat_delta_snapshot_cache_bytes 400");
    has_line(text, "unicat_delta_snapshot_cache_hits_total 15");
    has_line(text, "unicat_delta_snapshot_cache_misses_total 3");
    has_line(text, "unicat_vended_credential_cache_entries 4");

    /* A process that leaves keeps its counts, not its entries. */
    uc_metrics_release(m, sa);
    text = render(pool, m, all_alive_but_one);
    has_line(text, "unicat_processes 1");
    has_line(text, "unicat_delta_snapshot_cache_entries 1");
    has_line(text, "unicat_delta_snapshot_cache_hits_total 15");

    /* One that died (kill -9) is found out: by a scrape, or by a process
     * that wants its slot. */
    dead_pid = 1002;
    text = render(pool, m, all_alive_but_one);
    has_line(text, "unicat_processes 0");
    has_line(text, "unicat_delta_snapshot_cache_entries 0");
    has_line(text, "unicat_delta_snapshot_cache_hits_total 15");
    has_line(text, "unicat_delta_snapshot_cache_evictions_total 1");
    sa = uc_metrics_claim(m, 1004, all_alive_but_one);
    sb = uc_metrics_claim(m, 1005, all_alive_but_one);
    assert_true(sa >= 0 && sb >= 0);
    dead_pid = 1004;
    assert_true(uc_metrics_claim(m, 1006, all_alive_but_one) >= 0);
    uc_metrics_publish(m, 7, &a);       /* no such slot: ignored */
}

typedef struct worker {
    uc_metrics_t *m;
    int n;
} worker_t;

static void *count_many(void *data)
{
    worker_t *w = data;
    int i;

    for (i = 0; i < w->n; i++) {
        uc_metrics_request(w->m, i % 2, UC_GET, 200, i % 3000);
        uc_metrics_add(w->m, UC_M_SIGNED_URLS, 2);
    }
    return NULL;
}

static void test_threads_count_exactly(void **state)
{
    apr_pool_t *pool = *state;
    void *block;
    uc_metrics_t *m = fresh(pool, 1, &block);
    worker_t w = { m, 20000 };
    pthread_t t[8];
    const char *text;
    int i;

    for (i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&t[i], NULL, count_many, &w), 0);
    for (i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    text = render(pool, m, NULL);
    has_line(text, "unicat_requests_total{api=\"catalog\",family="
             "\"catalogs\",method=\"GET\",code=\"2xx\"} 80000");
    has_line(text, "unicat_requests_total{api=\"sharing\",family="
             "\"shares/query\",method=\"GET\",code=\"2xx\"} 80000");
    has_line(text, "unicat_signed_urls_total 320000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_shape),
        UC_POOL_TEST(test_requests),
        UC_POOL_TEST(test_processes),
        UC_POOL_TEST(test_threads_count_exactly),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
