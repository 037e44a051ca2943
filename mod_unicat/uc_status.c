/* SPDX-License-Identifier: Apache-2.0 */
/* The server's metrics: a shared-memory block the parent makes before the
 * children fork (kept across restarts, as the scoreboard is), the counts
 * every request adds to it, and the unicat-status handler that answers
 * them in Prometheus' text format. */
#include "uc_glue.h"

#include <http_core.h>
#include <http_protocol.h>
#include <ap_mpm.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "../src/cloud/uc_cloud_settings.h"
#include "../src/cloud/uc_vend_cache.h"
#include "../src/core/uc_answer_cache.h"
#include "../src/core/uc_metrics.h"
#include "../src/http/uc_router.h"
#include "../src/mounts/uc_mounts.h"

#define SHM_KEY "unicat-metrics-shm"

/* Set by the parent in post_config, read-only afterwards: the children
 * inherit them. */
static uc_metrics_t *metrics;
static apr_hash_t *family_of;           /* route pointer → index */
static uc_metrics_family_t *families;   /* index → labels */
static int unmatched_base;              /* api i's unmatched: base + i */

/* The child's own slot. */
static int my_slot = -1;
static volatile apr_uint32_t last_publish;

uc_metrics_t *uc_glue_metrics(void)
{
    return metrics;
}

/* Every route of every API gets a family index (routes of a family share
 * it), then one index per API for requests no route matched. */
static int index_families(apr_pool_t *p)
{
    apr_hash_t *by_name = apr_hash_make(p);
    apr_array_header_t *names = apr_array_make(p, 64,
                                               sizeof(uc_metrics_family_t));
    int a, n = UC_MOUNT_COUNT;

    family_of = apr_hash_make(p);
    for (a = 0; a < n; a++) {
        const uc_route_t *const *t;
        const uc_route_t *r;
        for (t = uc_mounts[a].routes; *t; t++)
            for (r = *t; r->pattern; r++) {
                const char *name = uc_route_family(p, r);
                const char *key = apr_pstrcat(p, uc_mounts[a].name, " ",
                                              name, NULL);
                int *idx = apr_hash_get(by_name, key, APR_HASH_KEY_STRING);
                if (!idx) {
                    uc_metrics_family_t *f = apr_array_push(names);
                    f->api = uc_mounts[a].name;
                    f->name = name;
                    idx = apr_palloc(p, sizeof(*idx));
                    *idx = names->nelts - 1;
                    apr_hash_set(by_name, key, APR_HASH_KEY_STRING, idx);
                }
                {
                    /* Keyed by the route's address (a copy of it that
                     * lasts as long as the table). */
                    const uc_route_t **key = apr_palloc(p, sizeof(*key));
                    *key = r;
                    apr_hash_set(family_of, key, sizeof(*key), idx);
                }
            }
    }
    unmatched_base = names->nelts;
    for (a = 0; a < n; a++) {
        uc_metrics_family_t *f = apr_array_push(names);
        f->api = uc_mounts[a].name;
        f->name = "unmatched";
    }
    families = (uc_metrics_family_t *)names->elts;
    return names->nelts;
}

/* Old and new children overlap during a graceful restart. */
static int process_slots(void)
{
    int limit = 0;

    if (ap_mpm_query(AP_MPMQ_HARD_LIMIT_DAEMONS, &limit) != APR_SUCCESS ||
        limit < 1)
        limit = 256;
    return limit * 2;
}

static int set_up(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                  server_rec *s)
{
    apr_pool_t *keep = s->process->pool;
    int n = index_families(pconf), slots = process_slots();
    apr_size_t size = uc_metrics_size(n, slots);
    apr_shm_t *shm = NULL;
    void *data = NULL;
    apr_status_t rv;

    (void)plog;
    (void)ptemp;
    metrics = NULL;
    apr_pool_userdata_get(&data, SHM_KEY, keep);
    shm = data;
    if (shm && apr_shm_size_get(shm) >= size &&
        (metrics = uc_metrics_attach(keep, apr_shm_baseaddr_get(shm),
                                     apr_shm_size_get(shm), n, slots)))
        return OK;
    if (shm)
        apr_shm_destroy(shm);
    apr_pool_userdata_set(NULL, SHM_KEY, apr_pool_cleanup_null, keep);
    rv = apr_shm_create(&shm, size, NULL, keep);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, "UC0114: no shared "
                     "memory for the metrics (%" APR_SIZE_T_FMT " bytes): "
                     "unicat-status will answer 503", size);
        return OK;
    }
    memset(apr_shm_baseaddr_get(shm), 0, size);
    apr_pool_userdata_set(shm, SHM_KEY, apr_pool_cleanup_null, keep);
    metrics = uc_metrics_attach(keep, apr_shm_baseaddr_get(shm), size, n,
                                slots);
    return OK;
}

static int alive(long pid)
{
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static void publish(void)
{
    uc_metrics_process_t now = { 0 };
    uc_delta_cache_t *cache = uc_glue_snapshots();
    const uc_cloud_settings_t *cloud = uc_glue_cloud();

    if (cache) {
        uc_delta_cache_stats_t st;
        uc_delta_cache_stats(cache, &st);
        now.snapshot_entries = st.entries;
        now.snapshot_bytes = st.bytes;
        now.snapshot_hits = st.hits;
        now.snapshot_advances = st.advances;
        now.snapshot_builds = st.builds;
        now.snapshot_evictions = st.evictions;
    }
    if (cloud->cache)
        now.vend_entries = (apr_uint64_t)uc_vend_cache_size(cloud->cache);
    if (uc_glue_answers()) {
        uc_answer_cache_stats_t st;
        uc_answer_cache_stats(uc_glue_answers(), &st);
        now.answer_entries = st.entries;
        now.answer_bytes = st.bytes;
    }
    uc_metrics_publish(metrics, my_slot, &now);
}

static apr_status_t leave(void *data)
{
    (void)data;
    uc_metrics_release(metrics, my_slot);
    my_slot = -1;
    return APR_SUCCESS;
}

void uc_glue_metrics_child_init(apr_pool_t *pchild)
{
    if (!metrics)
        return;
    my_slot = uc_metrics_claim(metrics, (long)getpid(), alive);
    publish();
    apr_pool_cleanup_register(pchild, NULL, leave, apr_pool_cleanup_null);
}

/* A process' cache figures are its own to read: each one copies them into
 * its slot on the way out of a request that read Delta tables (they are
 * what changes the snapshot cache), of any other at most once a second. */
static void publish_now_and_then(apr_time_t now)
{
    apr_uint32_t second = (apr_uint32_t)apr_time_sec(now);
    apr_uint32_t last = __atomic_load_n(&last_publish, __ATOMIC_RELAXED);

    if (second != last &&
        __atomic_compare_exchange_n(&last_publish, &last, second, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        publish();
}

void uc_glue_metrics_count(request_rec *r, int api,
                           const uc_route_t *route, int status,
                           const uc_store_t *store, int streamed,
                           int read_tables)
{
    const int *idx;
    apr_time_t now;

    if (!metrics)
        return;
    idx = route ? apr_hash_get(family_of, &route, sizeof(route)) : NULL;
    now = apr_time_now();
    uc_metrics_request(metrics, idx ? *idx : unmatched_base + api,
                       route ? (int)route->method : UC_METRICS_METHODS - 1,
                       status, now - r->request_time);
    if (store) {
        uc_metrics_add(metrics, UC_M_DB_QUERIES, store->stats.queries);
        uc_metrics_add(metrics, UC_M_DB_ERRORS, store->stats.errors);
        uc_metrics_add(metrics, UC_M_DB_MICROS,
                       (apr_uint64_t)store->stats.busy);
    }
    if (streamed && r->bytes_sent > 0)
        uc_metrics_add(metrics, UC_M_SHARING_BYTES,
                       (apr_uint64_t)r->bytes_sent);
    if (read_tables)
        publish();
    else
        publish_now_and_then(now);
}

static int status_handler(request_rec *r)
{
    const char *text;
    apr_size_t len;

    if (!r->handler || strcmp(r->handler, "unicat-status") != 0)
        return DECLINED;
    if (r->method_number != M_GET)
        return HTTP_METHOD_NOT_ALLOWED;
    if (!metrics)
        return HTTP_SERVICE_UNAVAILABLE;
    publish();
    text = uc_metrics_render(r->pool, metrics, families, alive, &len);
    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    ap_set_content_length(r, (apr_off_t)len);
    if (!r->header_only)
        ap_rwrite(text, (int)len, r);
    return OK;
}

void uc_status_register_hooks(void)
{
    ap_hook_post_config(set_up, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(status_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
