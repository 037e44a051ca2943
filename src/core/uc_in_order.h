/* SPDX-License-Identifier: Apache-2.0 */
/* Text made in numbered segments by several threads at once and delivered
 * in order by the calling thread, which renders too while the next segment
 * to deliver is not ready or the client is slow to take it: a long answer
 * is rendered on every thread it may use while it streams. No more than a
 * window of segments is rendered ahead of delivery, so memory stays
 * bounded however many there are. */
#ifndef UC_IN_ORDER_H
#define UC_IN_ORDER_H

#include <apr_pools.h>

#include "uc_error.h"
#include "uc_jw.h"

typedef struct uc_in_order_job {
    apr_size_t segments;
    int threads;                  /* the calling thread included */
    apr_size_t segment_bytes;     /* about what a segment's text takes */
    void *baton;
    /* A thread's rendering state, made in `pool`, which is that thread's
     * alone (the calling thread's too). */
    uc_error_t *(*start)(void *baton, apr_pool_t *pool, void **state);
    /* Renders segment `k` into `jw` (empty), counting its lines in
     * `lines`. An error is made in `pool`, which outlives it; what `jw`
     * holds then is delivered before the error is returned. */
    uc_error_t *(*render)(void *state, apr_size_t k, uc_jw_t *jw,
                          apr_pool_t *pool, apr_size_t *lines);
    /* Takes each segment's text in order, in the calling thread; an error
     * stops the job. */
    uc_error_t *(*deliver)(void *baton, const char *text, apr_size_t len,
                           apr_size_t lines);
    /* Whether `deliver` would take a segment now without waiting (for a
     * slow client); NULL: always. While it would wait, the calling thread
     * renders a segment ahead instead, if the window has room. */
    int (*ready)(void *baton);
} uc_in_order_job_t;

/* Runs the job: threads - 1 helpers are started (fewer if threads cannot
 * start: the calling thread then does their share). Returns the first
 * error in segment order (a delivery's, a rendering's or a start's),
 * copied into `pool`, once every helper has stopped. The threads' and
 * the segments' memory comes from the process's allocator: uc_memory_init
 * must have been called. */
uc_error_t *uc_in_order_run(apr_pool_t *pool, const uc_in_order_job_t *job);

#endif
