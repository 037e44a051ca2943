/* SPDX-License-Identifier: Apache-2.0 */
/* Work shared out to threads: the pages and rows of a large Delta
 * checkpoint. */
#ifndef UC_THREADS_H
#define UC_THREADS_H

#include <apr_pools.h>

typedef void uc_work_fn(void *item);

/* Runs `work` on each of `n` items, `size` bytes apart from `items`: each
 * on a thread of its own but the first, which the calling thread takes,
 * as it takes those whose thread cannot start. So n items start at most
 * n - 1 threads. Returns when all are done. Thread handles come from
 * `pool`, which no other thread may use meanwhile. */
void uc_threads_run(apr_pool_t *pool, void *items, int n, apr_size_t size,
                    uc_work_fn *work);

#endif
