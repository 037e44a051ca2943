/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_ratelimit.h"

#include <string.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>

/* An IPv6 address in text, zone included, fits. */
#define ADDRESS_MAX 64

typedef struct entry {
    char address[ADDRESS_MAX];
    int count;
    apr_time_t start;
} entry_t;

struct uc_ratelimit {
    apr_thread_mutex_t *lock;
    int limit;
    apr_interval_time_t window;
    int n;
    entry_t *entries;
};

apr_status_t uc_ratelimit_create(apr_pool_t *pool, int limit,
                                 apr_interval_time_t window, int entries,
                                 uc_ratelimit_t **out)
{
    uc_ratelimit_t *rl = apr_pcalloc(pool, sizeof(*rl));

    rl->limit = limit;
    rl->window = window;
    rl->n = entries;
    rl->entries = apr_pcalloc(pool, sizeof(entry_t) * (apr_size_t)entries);
    *out = rl;
    return apr_thread_mutex_create(&rl->lock, APR_THREAD_MUTEX_DEFAULT,
                                   pool);
}

/* The address's entry, or the one to reuse for it: a free one, else the
 * one whose window started first. */
static entry_t *entry_for(uc_ratelimit_t *rl, const char *address)
{
    entry_t *oldest = &rl->entries[0];
    int i;

    for (i = 0; i < rl->n; i++) {
        entry_t *e = &rl->entries[i];
        if (!strcmp(e->address, address))
            return e;
        if (!e->address[0] || (oldest->address[0] && e->start < oldest->start))
            oldest = e;
    }
    apr_cpystrn(oldest->address, address, ADDRESS_MAX);
    oldest->count = 0;
    oldest->start = 0;
    return oldest;
}

int uc_ratelimit_hit(uc_ratelimit_t *rl, const char *address,
                     apr_time_t now)
{
    entry_t *e;
    int wait = 0;

    apr_thread_mutex_lock(rl->lock);
    e = entry_for(rl, address);
    if (now - e->start >= rl->window) {
        e->start = now;
        e->count = 0;
    }
    if (++e->count > rl->limit) {
        apr_interval_time_t left = e->start + rl->window - now;
        wait = (int)apr_time_sec(left + APR_USEC_PER_SEC - 1);
        if (wait < 1)
            wait = 1;
    }
    apr_thread_mutex_unlock(rl->lock);
    return wait;
}
