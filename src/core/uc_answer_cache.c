/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_answer_cache.h"
#include "uc_lru.h"
#include "uc_refcount.h"

#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_thread_mutex.h>

/* Key and answer in one block: the key's bytes, then the answer's. A
 * reader holds a reference while it copies; the cache holds one while the
 * entry is in it. */
typedef struct entry {
    uc_lru_node_t node;             /* first: a node is its entry */
    volatile apr_uint32_t refs;
    apr_size_t key_len;
    apr_size_t len;
    char bytes[];
} entry_t;

struct uc_answer_cache {
    apr_thread_mutex_t *lock;
    apr_hash_t *entries;
    uc_lru_t lru;
    apr_int64_t version;            /* of every entry */
    apr_size_t budget;
    apr_size_t bytes;
    uc_answer_cache_stats_t stats;
};

static apr_size_t size_of(const entry_t *e)
{
    return sizeof(*e) + e->key_len + e->len;
}

static void release(entry_t *e)
{
    if (uc_ref_release(&e->refs))
        free(e);
}

static apr_status_t release_lent(void *data)
{
    release(data);
    return APR_SUCCESS;
}

static void drop(uc_answer_cache_t *c, entry_t *e)
{
    uc_lru_unlink(&c->lru, &e->node);
    apr_hash_set(c->entries, e->bytes, (apr_ssize_t)e->key_len, NULL);
    c->bytes -= size_of(e);
    release(e);
}

static void empty(uc_answer_cache_t *c)
{
    while (c->lru.oldest)
        drop(c, (entry_t *)c->lru.oldest);
}

/* A newer version makes every entry stale: none could be given again. */
static void see_version(uc_answer_cache_t *c, apr_int64_t version)
{
    if (version > c->version) {
        empty(c);
        c->version = version;
    }
}

static apr_status_t cache_cleanup(void *data)
{
    empty(data);
    return APR_SUCCESS;
}

apr_status_t uc_answer_cache_create(apr_pool_t *pool, apr_size_t budget,
                                    uc_answer_cache_t **out)
{
    uc_answer_cache_t *c = apr_pcalloc(pool, sizeof(*c));
    apr_status_t rv = apr_thread_mutex_create(&c->lock,
                                              APR_THREAD_MUTEX_DEFAULT, pool);

    if (rv != APR_SUCCESS)
        return rv;
    c->entries = apr_hash_make(pool);
    c->budget = budget;
    c->version = -1;
    apr_pool_cleanup_register(pool, c, cache_cleanup, apr_pool_cleanup_null);
    *out = c;
    return APR_SUCCESS;
}

static entry_t *find(uc_answer_cache_t *c, const char *key,
                     apr_size_t key_len, apr_int64_t version)
{
    entry_t *e = NULL;

    apr_thread_mutex_lock(c->lock);
    see_version(c, version);
    if (version == c->version &&
        (e = apr_hash_get(c->entries, key, (apr_ssize_t)key_len))) {
        uc_ref_retain(&e->refs);
        uc_lru_touch(&c->lru, &e->node);
    }
    apr_thread_mutex_unlock(c->lock);
    return e;
}

const char *uc_answer_cache_get(uc_answer_cache_t *c, const char *key,
                                apr_size_t key_len, apr_int64_t version,
                                apr_pool_t *pool, apr_size_t *len)
{
    entry_t *e = find(c, key, key_len, version);

    if (!e)
        return NULL;
    apr_pool_cleanup_register(pool, e, release_lent, apr_pool_cleanup_null);
    *len = e->len;
    return e->bytes + e->key_len;
}

static entry_t *entry_make(const char *key, apr_size_t key_len,
                           const char *answer, apr_size_t len)
{
    entry_t *e = malloc(sizeof(*e) + key_len + len);

    if (!e)
        return NULL;
    memset(&e->node, 0, sizeof(e->node));
    e->refs = 1;
    e->key_len = key_len;
    e->len = len;
    memcpy(e->bytes, key, key_len);
    memcpy(e->bytes + key_len, answer, len);
    return e;
}

void uc_answer_cache_put(uc_answer_cache_t *c, const char *key,
                         apr_size_t key_len, apr_int64_t version,
                         const char *answer, apr_size_t len)
{
    entry_t *e, *old;

    if (sizeof(*e) + key_len + len > c->budget / 4 ||
        !(e = entry_make(key, key_len, answer, len)))
        return;
    apr_thread_mutex_lock(c->lock);
    see_version(c, version);
    if (version < c->version) {
        apr_thread_mutex_unlock(c->lock);
        free(e);
        return;
    }
    if ((old = apr_hash_get(c->entries, key, (apr_ssize_t)key_len)))
        drop(c, old);
    apr_hash_set(c->entries, e->bytes, (apr_ssize_t)key_len, e);
    uc_lru_push_newest(&c->lru, &e->node);
    c->bytes += size_of(e);
    while (c->bytes > c->budget) {
        drop(c, (entry_t *)c->lru.oldest);
        c->stats.evictions++;
    }
    apr_thread_mutex_unlock(c->lock);
}

void uc_answer_cache_stats(uc_answer_cache_t *c,
                           uc_answer_cache_stats_t *stats)
{
    apr_thread_mutex_lock(c->lock);
    *stats = c->stats;
    stats->entries = apr_hash_count(c->entries);
    stats->bytes = c->bytes;
    apr_thread_mutex_unlock(c->lock);
}
