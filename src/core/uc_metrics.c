/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_metrics.h"

#include <string.h>
#include <apr_buckets.h>
#include <apr_strings.h>

#define MAGIC 0x756d6574u            /* "umet" */

/* Upper bounds of the latency buckets, in microseconds, and as their
 * `le` labels say them. */
static const apr_interval_time_t bucket_bounds[] = {
    1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
    1000000, 2500000, 5000000, 10000000
};
static const char *const bucket_labels[] = {
    "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
    "0.5", "1", "2.5", "5", "10", "+Inf"
};
#define BUCKETS (sizeof(bucket_bounds) / sizeof(bucket_bounds[0]) + 1)

typedef struct header {
    apr_uint32_t magic;
    apr_uint32_t families;
    apr_uint32_t processes;
    apr_uint32_t unused;
} header_t;

typedef struct family {
    apr_uint64_t requests[UC_METRICS_METHODS][UC_METRICS_CLASSES];
    apr_uint64_t buckets[BUCKETS];
    apr_uint64_t micros;
} family_t;

/* A process' own figures; `pid` 0 is a free slot. */
typedef struct slot {
    apr_int64_t pid;
    uc_metrics_process_t now;
} slot_t;

struct uc_metrics {
    header_t *header;
    apr_uint64_t *global;            /* UC_M_COUNT */
    uc_metrics_process_t *retired;   /* counters of processes gone */
    family_t *families;
    slot_t *slots;
};

#define ALIGNED(n) (((n) + 63) & ~(apr_size_t)63)

static apr_size_t global_bytes(void)
{
    return ALIGNED(sizeof(header_t) + sizeof(apr_uint64_t) * UC_M_COUNT +
                   sizeof(uc_metrics_process_t));
}

apr_size_t uc_metrics_size(int families, int processes)
{
    return global_bytes() + ALIGNED(sizeof(family_t) * (apr_size_t)families)
           + sizeof(slot_t) * (apr_size_t)processes;
}

uc_metrics_t *uc_metrics_attach(apr_pool_t *pool, void *block,
                                apr_size_t size, int families,
                                int processes)
{
    uc_metrics_t *m;
    char *base = block;

    if (families < 1 || processes < 1 ||
        size < uc_metrics_size(families, processes))
        return NULL;
    m = apr_pcalloc(pool, sizeof(*m));
    m->header = block;
    if (m->header->magic == 0) {
        m->header->families = (apr_uint32_t)families;
        m->header->processes = (apr_uint32_t)processes;
        m->header->magic = MAGIC;
    }
    else if (m->header->magic != MAGIC ||
             m->header->families != (apr_uint32_t)families ||
             m->header->processes != (apr_uint32_t)processes)
        return NULL;
    m->global = (apr_uint64_t *)(base + sizeof(header_t));
    m->retired = (uc_metrics_process_t *)(m->global + UC_M_COUNT);
    m->families = (family_t *)(base + global_bytes());
    m->slots = (slot_t *)(base + global_bytes() +
                          ALIGNED(sizeof(family_t) * (apr_size_t)families));
    return m;
}

static void add(apr_uint64_t *counter, apr_uint64_t n)
{
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static apr_uint64_t get(const apr_uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

void uc_metrics_request(uc_metrics_t *m, int family, int method,
                        int status, apr_interval_time_t took)
{
    family_t *f;
    int class = status / 100 - 1;
    apr_size_t b = 0;

    if (!m || family < 0 || (apr_uint32_t)family >= m->header->families)
        return;
    f = &m->families[family];
    if (method < 0 || method >= UC_METRICS_METHODS)
        method = UC_METRICS_METHODS - 1;
    if (class < 0 || class >= UC_METRICS_CLASSES)
        class = UC_METRICS_CLASSES - 1;
    if (took < 0)
        took = 0;
    while (b < BUCKETS - 1 && took > bucket_bounds[b])
        b++;
    add(&f->requests[method][class], 1);
    add(&f->buckets[b], 1);
    add(&f->micros, (apr_uint64_t)took);
}

void uc_metrics_add(uc_metrics_t *m, uc_metric_t which, apr_uint64_t n)
{
    if (m && which < UC_M_COUNT && n)
        add(&m->global[which], n);
}

/* What a process counted outlives it; what it holds does not. */
static void retire(uc_metrics_t *m, uc_metrics_process_t *s)
{
    add(&m->retired->snapshot_hits, get(&s->snapshot_hits));
    add(&m->retired->snapshot_advances, get(&s->snapshot_advances));
    add(&m->retired->snapshot_builds, get(&s->snapshot_builds));
    add(&m->retired->snapshot_evictions, get(&s->snapshot_evictions));
    memset(s, 0, sizeof(*s));
}

/* The slot of a process that died without leaving (kill -9): retired by
 * whoever sees it first (its pid negated meanwhile), then free. */
static void reclaim_if_dead(uc_metrics_t *m, slot_t *s,
                            int (*alive)(long pid))
{
    apr_int64_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);

    if (pid <= 0 || !alive || alive((long)pid))
        return;
    if (__atomic_compare_exchange_n(&s->pid, &pid, -pid, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        retire(m, &s->now);
        __atomic_store_n(&s->pid, 0, __ATOMIC_RELEASE);
    }
}

int uc_metrics_claim(uc_metrics_t *m, long pid, int (*alive)(long pid))
{
    apr_uint32_t i;

    for (i = 0; i < m->header->processes; i++) {
        apr_int64_t free_pid = 0;

        reclaim_if_dead(m, &m->slots[i], alive);
        if (__atomic_compare_exchange_n(&m->slots[i].pid, &free_pid,
                                        (apr_int64_t)pid, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return (int)i;
    }
    return -1;
}

/* Fields are written one by one: a scrape may read a slot half way
 * through an update, off by one request's worth at most. */
#define EACH_FIELD(X) \
    X(snapshot_entries) X(snapshot_bytes) X(snapshot_hits) \
    X(snapshot_advances) X(snapshot_builds) X(snapshot_evictions) \
    X(vend_entries) X(answer_entries) X(answer_bytes)

void uc_metrics_publish(uc_metrics_t *m, int slot,
                        const uc_metrics_process_t *now)
{
    uc_metrics_process_t *s;

    if (!m || slot < 0 || (apr_uint32_t)slot >= m->header->processes)
        return;
    s = &m->slots[slot].now;
#define STORE(f) __atomic_store_n(&s->f, now->f, __ATOMIC_RELAXED);
    EACH_FIELD(STORE)
#undef STORE
}

void uc_metrics_release(uc_metrics_t *m, int slot)
{
    if (!m || slot < 0 || (apr_uint32_t)slot >= m->header->processes)
        return;
    retire(m, &m->slots[slot].now);
    __atomic_store_n(&m->slots[slot].pid, 0, __ATOMIC_RELEASE);
}

/* --- rendering ----------------------------------------------------------- */

typedef apr_bucket_brigade text_t;

static void puts_(text_t *t, const char *s)
{
    apr_brigade_puts(t, NULL, NULL, s);
}

/* A label value: backslash, double quote and newline escaped. */
static void label(text_t *t, const char *s)
{
    for (; *s; s++)
        if (*s == '\\' || *s == '"')
            apr_brigade_printf(t, NULL, NULL, "\\%c", *s);
        else if (*s == '\n')
            puts_(t, "\\n");
        else
            apr_brigade_putc(t, NULL, NULL, *s);
}

static void seconds(text_t *t, apr_uint64_t micros)
{
    apr_brigade_printf(t, NULL, NULL, "%" APR_UINT64_T_FMT ".%06u",
                       micros / 1000000, (unsigned)(micros % 1000000));
}

static void header(text_t *t, const char *name, const char *type,
                   const char *help)
{
    apr_brigade_printf(t, NULL, NULL, "# HELP %s %s\n# TYPE %s %s\n", name,
                       help, name, type);
}

static void family_labels(text_t *t, const uc_metrics_family_t *f)
{
    puts_(t, "api=\"");
    label(t, f->api);
    puts_(t, "\",family=\"");
    label(t, f->name);
    puts_(t, "\"");
}

static apr_uint64_t family_count(const family_t *f)
{
    apr_uint64_t n = 0;
    apr_size_t b;

    for (b = 0; b < BUCKETS; b++)
        n += get(&f->buckets[b]);
    return n;
}

static void render_requests(text_t *t, uc_metrics_t *m,
                            const uc_metrics_family_t *names)
{
    static const char *const methods[UC_METRICS_METHODS] = {
        "GET", "POST", "PUT", "PATCH", "DELETE", "OTHER"
    };
    apr_uint32_t i;
    int me, c;

    header(t, "unicat_requests_total", "counter", "Requests answered, by "
           "API, route family, method and status class.");
    for (i = 0; i < m->header->families; i++)
        for (me = 0; me < UC_METRICS_METHODS; me++)
            for (c = 0; c < UC_METRICS_CLASSES; c++) {
                apr_uint64_t v = get(&m->families[i].requests[me][c]);
                if (!v)
                    continue;
                puts_(t, "unicat_requests_total{");
                family_labels(t, &names[i]);
                apr_brigade_printf(t, NULL, NULL, ",method=\"%s\",code="
                                   "\"%dxx\"} %" APR_UINT64_T_FMT "\n",
                                   methods[me], c + 1, v);
            }
}

static void render_latency(text_t *t, uc_metrics_t *m,
                           const uc_metrics_family_t *names)
{
    apr_uint32_t i;
    apr_size_t b;

    header(t, "unicat_request_duration_seconds", "histogram", "Time from "
           "the request's arrival to its answer, by API and route family.");
    for (i = 0; i < m->header->families; i++) {
        const family_t *f = &m->families[i];
        apr_uint64_t total = family_count(f), cumulative = 0;

        if (!total)
            continue;
        for (b = 0; b < BUCKETS; b++) {
            cumulative += get(&f->buckets[b]);
            puts_(t, "unicat_request_duration_seconds_bucket{");
            family_labels(t, &names[i]);
            /* The last bucket is the count, whatever was added meanwhile. */
            apr_brigade_printf(t, NULL, NULL, ",le=\"%s\"} %" APR_UINT64_T_FMT
                               "\n", bucket_labels[b],
                               b < BUCKETS - 1 ? cumulative : total);
        }
        puts_(t, "unicat_request_duration_seconds_sum{");
        family_labels(t, &names[i]);
        puts_(t, "} ");
        seconds(t, get(&f->micros));
        puts_(t, "\nunicat_request_duration_seconds_count{");
        family_labels(t, &names[i]);
        apr_brigade_printf(t, NULL, NULL, "} %" APR_UINT64_T_FMT "\n", total);
    }
}

/* The processes' figures: the gauges of those alive, the counters of
 * those alive and of those gone. */
static void sum_processes(uc_metrics_t *m, int (*alive)(long pid),
                          uc_metrics_process_t *sum, apr_uint64_t *procs)
{
    apr_uint32_t i;

    memset(sum, 0, sizeof(*sum));
    *procs = 0;
    for (i = 0; i < m->header->processes; i++) {
        slot_t *s = &m->slots[i];

        reclaim_if_dead(m, s, alive);
        if (__atomic_load_n(&s->pid, __ATOMIC_ACQUIRE) <= 0)
            continue;
        (*procs)++;
#define SUM(f) sum->f += get(&s->now.f);
        EACH_FIELD(SUM)
#undef SUM
    }
    sum->snapshot_hits += get(&m->retired->snapshot_hits);
    sum->snapshot_advances += get(&m->retired->snapshot_advances);
    sum->snapshot_builds += get(&m->retired->snapshot_builds);
    sum->snapshot_evictions += get(&m->retired->snapshot_evictions);
}

/* A metric of one sample, without labels; `micros` ones are said in
 * seconds. */
typedef struct scalar {
    const char *name;
    const char *type;
    const char *help;
    apr_uint64_t value;
    int micros;
} scalar_t;

static void render_server(text_t *t, uc_metrics_t *m, int (*alive)(long))
{
    uc_metrics_process_t p;
    apr_uint64_t procs;
    const apr_uint64_t *g = m->global;
    size_t i;

    sum_processes(m, alive, &p, &procs);
    {
        const scalar_t scalars[] = {
            { "unicat_database_queries_total", "counter", "Statements run "
              "on the catalog database, transactions included.",
              get(&g[UC_M_DB_QUERIES]), 0 },
            { "unicat_database_seconds_total", "counter", "Time spent in "
              "the catalog database.", get(&g[UC_M_DB_MICROS]), 1 },
            { "unicat_database_errors_total", "counter", "Statements the "
              "catalog database failed.", get(&g[UC_M_DB_ERRORS]), 0 },
            { "unicat_processes", "gauge", "Server processes that report "
              "their caches.", procs, 0 },
            { "unicat_delta_snapshot_cache_entries", "gauge", "Latest Delta "
              "snapshots cached, over every process.", p.snapshot_entries,
              0 },
            { "unicat_delta_snapshot_cache_bytes", "gauge", "Memory the "
              "cached snapshots hold, over every process.", p.snapshot_bytes,
              0 },
            { "unicat_delta_snapshot_cache_hits_total", "counter", "Snapshots "
              "served from the cache without reading a commit.",
              p.snapshot_hits, 0 },
            { "unicat_delta_snapshot_cache_advances_total", "counter",
              "Cached snapshots brought up to date by reading new commits.",
              p.snapshot_advances, 0 },
            { "unicat_delta_snapshot_cache_misses_total", "counter",
              "Snapshots built from the checkpoint: nothing usable was "
              "cached.", p.snapshot_builds, 0 },
            { "unicat_delta_snapshot_cache_evictions_total", "counter",
              "Snapshots evicted to keep the cache within its budget.",
              p.snapshot_evictions, 0 },
            { "unicat_vended_credential_cache_entries", "gauge", "Vended "
              "credentials cached, over every process.", p.vend_entries, 0 },
            { "unicat_vended_credential_cache_hits_total", "counter",
              "Temporary credentials answered from the cache.",
              get(&g[UC_M_VEND_HITS]), 0 },
            { "unicat_vended_credential_cache_misses_total", "counter",
              "Temporary credentials a cloud was asked for.",
              get(&g[UC_M_VEND_MISSES]), 0 },
            { "unicat_answer_cache_entries", "gauge", "List answers kept "
              "for their next caller, over every process.", p.answer_entries,
              0 },
            { "unicat_answer_cache_bytes", "gauge", "Memory the kept "
              "answers hold, over every process.", p.answer_bytes, 0 },
            { "unicat_answer_cache_hits_total", "counter", "List answers "
              "given from the answer cache.", get(&g[UC_M_ANSWER_HITS]), 0 },
            { "unicat_answer_cache_misses_total", "counter", "List answers "
              "made because none was kept for the catalog's version.",
              get(&g[UC_M_ANSWER_MISSES]), 0 },
            { "unicat_signed_urls_total", "counter", "Data-file URLs the "
              "sharing server signed.", get(&g[UC_M_SIGNED_URLS]), 0 },
            { "unicat_sharing_bytes_total", "counter", "Bytes of Delta "
              "Sharing answers streamed to recipients.",
              get(&g[UC_M_SHARING_BYTES]), 0 },
            { "unicat_delta_commit_reports_total", "counter", "Commit "
              "reports Delta writers sent.", get(&g[UC_M_COMMIT_REPORTS]),
              0 },
            { "unicat_delta_commit_files_added_total", "counter", "Files "
              "the reported commits added.",
              get(&g[UC_M_COMMIT_FILES_ADDED]), 0 },
            { "unicat_delta_commit_bytes_added_total", "counter", "Bytes "
              "the reported commits added.",
              get(&g[UC_M_COMMIT_BYTES_ADDED]), 0 },
            { "unicat_delta_commit_files_removed_total", "counter", "Files "
              "the reported commits removed.",
              get(&g[UC_M_COMMIT_FILES_REMOVED]), 0 },
            { "unicat_delta_commit_bytes_removed_total", "counter", "Bytes "
              "the reported commits removed.",
              get(&g[UC_M_COMMIT_BYTES_REMOVED]), 0 },
            { "unicat_delta_commit_rows_inserted_total", "counter", "Rows "
              "the reported commits inserted.",
              get(&g[UC_M_COMMIT_ROWS_INSERTED]), 0 },
            { "unicat_delta_commit_rows_removed_total", "counter", "Rows "
              "the reported commits removed.",
              get(&g[UC_M_COMMIT_ROWS_REMOVED]), 0 },
            { "unicat_delta_commit_rows_updated_total", "counter", "Rows "
              "the reported commits updated.",
              get(&g[UC_M_COMMIT_ROWS_UPDATED]), 0 },
        };

        for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
            header(t, scalars[i].name, scalars[i].type, scalars[i].help);
            puts_(t, scalars[i].name);
            puts_(t, " ");
            if (scalars[i].micros)
                seconds(t, scalars[i].value);
            else
                apr_brigade_printf(t, NULL, NULL, "%" APR_UINT64_T_FMT,
                                   scalars[i].value);
            puts_(t, "\n");
        }
    }
}

const char *uc_metrics_render(apr_pool_t *pool, uc_metrics_t *m,
                              const uc_metrics_family_t *names,
                              int (*alive)(long pid), apr_size_t *len)
{
    apr_bucket_alloc_t *ba = apr_bucket_alloc_create(pool);
    text_t *t = apr_brigade_create(pool, ba);
    char *text = NULL;

    render_requests(t, m, names);
    render_latency(t, m, names);
    render_server(t, m, alive);
    if (apr_brigade_pflatten(t, &text, len, pool) != APR_SUCCESS)
        *len = 0;
    apr_brigade_destroy(t);
    return text ? apr_pstrmemdup(pool, text, *len) : "";
}
