/* Memory of the Delta reader that outlives requests (snapshots, their
 * strings) or is too large for a request pool (a checkpoint's columns).
 * All of it comes from one process-wide allocator, shared by threads, that
 * keeps a bounded amount of freed memory for the next build instead of
 * giving it back: fresh pages cost more than the decoding that fills
 * them. */
#ifndef UC_DELTA_MEMORY_H
#define UC_DELTA_MEMORY_H

#include <apr_pools.h>

/* A pool of its own (no parent), safe to use from the thread that made
 * it; destroy it with apr_pool_destroy. Aborts when memory is exhausted,
 * as APR pools do. */
apr_pool_t *uc_delta_pool_create(void);

#endif
