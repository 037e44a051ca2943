/* Work shared out to threads by the Delta reader: the pages and rows of a
 * large checkpoint. */
#ifndef UC_DELTA_THREADS_H
#define UC_DELTA_THREADS_H

#include <apr_pools.h>

typedef void uc_delta_work_fn(void *item);

/* Runs `work` on each of `n` items, `size` bytes apart from `items`: each
 * on a thread of its own but the first, which the calling thread takes,
 * as it takes those whose thread cannot start. Returns when all are done.
 * Thread handles come from `pool`, which no other thread may use
 * meanwhile. */
void uc_delta_run_threads(apr_pool_t *pool, void *items, int n,
                          apr_size_t size, uc_delta_work_fn *work);

#endif
