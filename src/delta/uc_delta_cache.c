/* SPDX-License-Identifier: Apache-2.0 */
/* Latest snapshots per table location, shared by the threads of a process
 * and bounded by a memory budget (least recently used go first). A lookup
 * always lists the log after the cached version (for a catalog-managed
 * table, with the catalog's latest version as the caller read it), so
 * nothing stale is served; new commits advance the cached snapshot without
 * re-reading its checkpoint. The lock is held only to look up and to
 * store, never while the log is read. */
#include "uc_delta_internal.h"
#include "../core/uc_lru.h"
#include "../parquet/uc_parquet.h"

#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>

typedef struct entry {
    uc_lru_node_t node;             /* first: a node is its entry */
    char *location;
    uc_delta_snapshot_t *snapshot;
} entry_t;

struct uc_delta_cache {
    apr_thread_mutex_t *lock;
    apr_hash_t *entries;
    uc_lru_t lru;
    apr_size_t budget;
    apr_size_t bytes;
    uc_delta_cache_stats_t stats;
    uc_pq_page_budget_t *pages;
};

static void drop(uc_delta_cache_t *c, entry_t *e)
{
    uc_lru_unlink(&c->lru, &e->node);
    apr_hash_set(c->entries, e->location, APR_HASH_KEY_STRING, NULL);
    c->bytes -= e->snapshot->bytes;
    uc_delta_snapshot_release(e->snapshot);
    free(e->location);
    free(e);
    c->stats.evictions++;
}

static apr_status_t cache_cleanup(void *data)
{
    uc_delta_cache_t *c = data;

    while (c->lru.oldest)
        drop(c, (entry_t *)c->lru.oldest);
    return APR_SUCCESS;
}

uc_error_t *uc_delta_cache_create(apr_pool_t *pool, apr_size_t budget,
                                  uc_delta_cache_t **out)
{
    uc_delta_cache_t *c = apr_pcalloc(pool, sizeof(*c));

    if (apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, pool)
        != APR_SUCCESS)
        return uc_error_internal(pool);
    c->entries = apr_hash_make(pool);
    c->budget = budget;
    c->pages = uc_pq_page_budget_make(pool, budget / 4);
    apr_pool_cleanup_register(pool, c, cache_cleanup, apr_pool_cleanup_null);
    *out = c;
    return NULL;
}

static uc_delta_snapshot_t *lookup(uc_delta_cache_t *c, const char *location)
{
    entry_t *e;
    uc_delta_snapshot_t *s = NULL;

    apr_thread_mutex_lock(c->lock);
    if ((e = apr_hash_get(c->entries, location, APR_HASH_KEY_STRING))) {
        s = e->snapshot;
        uc_delta_snapshot_retain(s);
        uc_lru_touch(&c->lru, &e->node);
    }
    apr_thread_mutex_unlock(c->lock);
    return s;
}

static void insert(uc_delta_cache_t *c, uc_delta_snapshot_t *s)
{
    entry_t *e = calloc(1, sizeof(*e));

    if (!e || !(e->location = strdup(s->location))) {
        free(e);
        return;
    }
    e->snapshot = s;
    uc_delta_snapshot_retain(s);
    c->bytes += s->bytes;
    apr_hash_set(c->entries, e->location, APR_HASH_KEY_STRING, e);
    uc_lru_push_newest(&c->lru, &e->node);
}

/* Keeps `s` unless a newer snapshot of the table got there first. A
 * snapshot larger than the whole budget is served but not kept. */
static void store(uc_delta_cache_t *c, uc_delta_snapshot_t *s)
{
    entry_t *e;

    apr_thread_mutex_lock(c->lock);
    e = apr_hash_get(c->entries, s->location, APR_HASH_KEY_STRING);
    if (e && e->snapshot->version < s->version) {
        c->bytes -= e->snapshot->bytes;
        uc_delta_snapshot_release(e->snapshot);
        e->snapshot = s;
        uc_delta_snapshot_retain(s);
        c->bytes += s->bytes;
    }
    else if (!e && s->bytes <= c->budget)
        insert(c, s);
    while (c->bytes > c->budget && c->lru.oldest)
        drop(c, (entry_t *)c->lru.oldest);
    apr_thread_mutex_unlock(c->lock);
}

static void count(uc_delta_cache_t *c, apr_uint64_t *counter)
{
    apr_thread_mutex_lock(c->lock);
    (*counter)++;
    apr_thread_mutex_unlock(c->lock);
}

/* The newest version reachable from `from` through commits without gaps. */
static apr_int64_t contiguous_end(const uc_delta_log_t *log,
                                  apr_int64_t from)
{
    const uc_log_commit_t *commits = (const uc_log_commit_t *)
                                     log->commits->elts;
    apr_int64_t v = from;
    int i;

    for (i = 0; i < log->commits->nelts && commits[i].version == v + 1; i++)
        v++;
    return v;
}

/* File times of the new commits continue the cached snapshot's clock. */
static void continue_clock(uc_delta_log_t *log, apr_int64_t floor)
{
    uc_log_commit_t *commits = (uc_log_commit_t *)log->commits->elts;
    int i;

    for (i = 0; i < log->commits->nelts; i++) {
        if (commits[i].timestamp <= floor)
            commits[i].timestamp = floor + 1;
        floor = commits[i].timestamp;
    }
}

uc_error_t *uc_delta_cache_latest(uc_delta_cache_t *c,
                                  uc_delta_table_t *table,
                                  uc_delta_snapshot_t **out)
{
    uc_delta_snapshot_t *cached = lookup(c, table->location), *s;
    uc_delta_log_t *newer;
    apr_int64_t latest, end;
    uc_error_t *err;

    if (cached) {
        if ((err = uc_delta_list_after(table, table->pool, cached->version,
                                       &newer))) {
            uc_delta_snapshot_release(cached);
            return err;
        }
        latest = newer->latest < 0 ? cached->version : newer->latest;
        if (latest == cached->version) {
            count(c, &c->stats.hits);
            *out = cached;
            return NULL;
        }
        /* A version of the table is the same whenever it is read (a
         * catalog's commits too: ratified once, published as they are), so
         * the cached one advances to the latest; one above a catalog's
         * latest is no version of its table. */
        end = contiguous_end(newer, cached->version);
        if (end > cached->version &&
            (end == latest || !uc_delta_catalog_governs(table))) {
            continue_clock(newer, cached->timestamp);
            err = uc_delta_snapshot_advance(table, cached, newer, end, &s);
            uc_delta_snapshot_release(cached);
            if (err)
                return err;
            count(c, &c->stats.advances);
            store(c, s);
            *out = s;
            return NULL;
        }
        /* The commits after the cached version are gone (a log cleaned
         * up behind a newer checkpoint), or the catalog's latest version
         * cannot be reached from it: start again from the log. */
        uc_delta_snapshot_release(cached);
    }
    if ((err = uc_delta_snapshot(table, UC_DELTA_LATEST, &s)))
        return err;
    count(c, &c->stats.builds);
    store(c, s);
    *out = s;
    return NULL;
}

void uc_delta_cache_stats(uc_delta_cache_t *c, uc_delta_cache_stats_t *stats)
{
    apr_thread_mutex_lock(c->lock);
    *stats = c->stats;
    stats->entries = apr_hash_count(c->entries);
    stats->bytes = c->bytes;
    apr_thread_mutex_unlock(c->lock);
    stats->decoded_bytes = uc_pq_page_budget_used(c->pages);
}

uc_pq_page_budget_t *uc_delta_cache_pages(uc_delta_cache_t *cache)
{
    return cache->pages;
}
