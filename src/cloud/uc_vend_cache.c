/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_vend_cache.h"

#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

#include "../core/uc_secret.h"

#define REUSE_WINDOW_MAX apr_time_from_sec(300)

typedef struct entry {
    char *key;
    int ready;                   /* 0: its first caller is fetching it */
    char *kind;
    char *names[UC_VENDED_VALUES];
    char *values[UC_VENDED_VALUES];
    apr_time_t made, expires;
} entry_t;

struct uc_vend_cache {
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *changed;  /* a fetch ended */
    apr_hash_t *entries;         /* key → entry_t, both malloc'd */
    int max;
};

static char *copy_out(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void forget(uc_vend_cache_t *c, entry_t *e)
{
    int i;

    apr_hash_set(c->entries, e->key, APR_HASH_KEY_STRING, NULL);
    for (i = 0; i < UC_VENDED_VALUES; i++) {
        if (e->values[i]) {
            uc_secret_wipe(e->values[i], strlen(e->values[i]));
            free(e->values[i]);
        }
        free(e->names[i]);
    }
    free(e->kind);
    free(e->key);
    free(e);
}

static apr_status_t cache_cleanup(void *data)
{
    uc_vend_cache_t *c = data;
    apr_hash_index_t *hi;

    while ((hi = apr_hash_first(NULL, c->entries)) != NULL)
        forget(c, apr_hash_this_val(hi));
    return APR_SUCCESS;
}

uc_error_t *uc_vend_cache_create(apr_pool_t *pool, int max_entries,
                                 uc_vend_cache_t **out)
{
    uc_vend_cache_t *c = apr_pcalloc(pool, sizeof(*c));

    if (apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, pool)
        != APR_SUCCESS ||
        apr_thread_cond_create(&c->changed, pool) != APR_SUCCESS)
        return uc_error_make(pool, UC_E_INTERNAL, "The cache of vended "
                             "credentials cannot be made.");
    c->entries = apr_hash_make(pool);
    c->max = max_entries > 0 ? max_entries : 1;
    apr_pool_cleanup_register(pool, c, cache_cleanup, apr_pool_cleanup_null);
    *out = c;
    return NULL;
}

/* Good for another caller: not within the reuse window of its expiry. */
static int still_good(const entry_t *e, apr_time_t now)
{
    apr_interval_time_t window = (e->expires - e->made) / 4;

    if (window > REUSE_WINDOW_MAX)
        window = REUSE_WINDOW_MAX;
    return now < e->expires - window;
}

static void copy_into(apr_pool_t *pool, const entry_t *e, uc_vended_t *out)
{
    int i;

    out->kind = e->kind ? apr_pstrdup(pool, e->kind) : NULL;
    for (i = 0; i < UC_VENDED_VALUES; i++) {
        out->names[i] = e->names[i] ? apr_pstrdup(pool, e->names[i]) : NULL;
        out->values[i] = e->values[i] ? apr_pstrdup(pool, e->values[i])
                                      : NULL;
    }
    out->expires = e->expires;
}

static void fill(entry_t *e, const uc_vended_t *v, apr_time_t now)
{
    int i;

    e->kind = copy_out(v->kind);
    for (i = 0; i < UC_VENDED_VALUES; i++) {
        e->names[i] = copy_out(v->names[i]);
        e->values[i] = copy_out(v->values[i]);
    }
    e->made = now;
    e->expires = v->expires;
    e->ready = 1;
}

/* Room for one more: the expired go first, then the one expiring first.
 * 0 when every entry is being fetched. */
static int make_room(uc_vend_cache_t *c, apr_time_t now)
{
    apr_hash_index_t *hi;
    entry_t *soonest = NULL;

    if ((int)apr_hash_count(c->entries) < c->max)
        return 1;
    for (hi = apr_hash_first(NULL, c->entries); hi; ) {
        entry_t *e = apr_hash_this_val(hi);
        hi = apr_hash_next(hi);
        if (e->ready && !still_good(e, now))
            forget(c, e);
        else if (e->ready && (!soonest || e->expires < soonest->expires))
            soonest = e;
    }
    if ((int)apr_hash_count(c->entries) < c->max)
        return 1;
    if (!soonest)
        return 0;
    forget(c, soonest);
    return 1;
}

/* Under the lock: a good entry (1), or this caller fetches, as the key's
 * first (*mine set) or on its own after waiting in vain (0). */
static int find_or_claim(uc_vend_cache_t *c, apr_pool_t *pool,
                         const char *key, apr_time_t now,
                         apr_interval_time_t wait, uc_vended_t *out,
                         int *mine)
{
    apr_time_t deadline = apr_time_now() + wait;
    entry_t *e;

    *mine = 0;
    for (;;) {
        e = apr_hash_get(c->entries, key, APR_HASH_KEY_STRING);
        if (e && e->ready && still_good(e, now)) {
            copy_into(pool, e, out);
            return 1;
        }
        if (e && !e->ready) {
            apr_interval_time_t left = deadline - apr_time_now();
            if (left <= 0)
                return 0;
            apr_thread_cond_timedwait(c->changed, c->lock, left);
            continue;
        }
        if (e)
            forget(c, e);
        if (!make_room(c, now))
            return 0;
        e = calloc(1, sizeof(*e));
        if (!e || !(e->key = strdup(key))) {
            free(e);
            return 0;
        }
        apr_hash_set(c->entries, e->key, APR_HASH_KEY_STRING, e);
        *mine = 1;
        return 0;
    }
}

uc_error_t *uc_vend_cache_get(uc_vend_cache_t *cache, apr_pool_t *pool,
                              const char *key, apr_time_t now,
                              apr_interval_time_t wait,
                              uc_vend_fetch_fn fetch, void *baton,
                              uc_vended_t *out, int *hit)
{
    entry_t *e;
    int mine;
    uc_error_t *err;

    memset(out, 0, sizeof(*out));
    *hit = 0;
    if (!cache)
        return fetch(pool, baton, out);
    apr_thread_mutex_lock(cache->lock);
    *hit = find_or_claim(cache, pool, key, now, wait, out, &mine);
    apr_thread_mutex_unlock(cache->lock);
    if (*hit)
        return NULL;
    err = fetch(pool, baton, out);
    if (!mine)
        return err;
    apr_thread_mutex_lock(cache->lock);
    e = apr_hash_get(cache->entries, key, APR_HASH_KEY_STRING);
    if (err)
        forget(cache, e);
    else
        fill(e, out, now);
    apr_thread_cond_broadcast(cache->changed);
    apr_thread_mutex_unlock(cache->lock);
    return err;
}

int uc_vend_cache_size(uc_vend_cache_t *cache)
{
    int n;

    apr_thread_mutex_lock(cache->lock);
    n = (int)apr_hash_count(cache->entries);
    apr_thread_mutex_unlock(cache->lock);
    return n;
}
