/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_read_gate.h"

#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

/* Reads are numbered in the order they begin; at most one is on its way,
 * so they also end in that order. */
struct uc_read_gate {
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *ended;     /* signalled when a read ends */
    apr_uint64_t begun;           /* the number of the last read begun */
    apr_uint64_t last;            /* the number of the last read ended */
    int reading;                  /* read `begun` is on its way */
    int failed;                   /* read `last` failed */
    apr_int64_t value;            /* what read `last` read */
};

apr_status_t uc_read_gate_create(apr_pool_t *pool, uc_read_gate_t **out)
{
    uc_read_gate_t *gate = apr_pcalloc(pool, sizeof(*gate));
    apr_status_t rv = apr_thread_mutex_create(&gate->lock,
                                              APR_THREAD_MUTEX_DEFAULT, pool);

    if (rv == APR_SUCCESS)
        rv = apr_thread_cond_create(&gate->ended, pool);
    *out = rv == APR_SUCCESS ? gate : NULL;
    return rv;
}

/* Called with the lock held, which it gives up while it reads. */
static uc_error_t *lead(uc_read_gate_t *gate, uc_read_fn read, void *baton,
                        apr_pool_t *pool, apr_int64_t *out)
{
    apr_uint64_t mine = ++gate->begun;
    apr_int64_t value = 0;
    uc_error_t *err;

    gate->reading = 1;
    apr_thread_mutex_unlock(gate->lock);
    err = read(baton, pool, &value);
    apr_thread_mutex_lock(gate->lock);
    gate->reading = 0;
    gate->last = mine;
    gate->failed = err != NULL;
    gate->value = value;
    apr_thread_cond_broadcast(gate->ended);
    apr_thread_mutex_unlock(gate->lock);
    if (!err)
        *out = value;
    return err;
}

uc_error_t *uc_read_gate_read(uc_read_gate_t *gate, uc_read_fn read,
                              void *baton, apr_pool_t *pool,
                              apr_int64_t *out)
{
    apr_uint64_t first;

    apr_thread_mutex_lock(gate->lock);
    /* Every read numbered `first` or later begins after this point. */
    first = gate->begun + 1;
    for (;;) {
        if (gate->last >= first && !gate->failed) {
            *out = gate->value;
            apr_thread_mutex_unlock(gate->lock);
            return NULL;
        }
        if (!gate->reading)
            return lead(gate, read, baton, pool, out);
        apr_thread_cond_wait(gate->ended, gate->lock);
    }
}
