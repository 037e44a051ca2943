/* SPDX-License-Identifier: Apache-2.0 */
/* Memory that outlives requests (Delta snapshots, their strings) or is too
 * large for a request pool (a checkpoint's columns, the segments of a long
 * answer). All of it comes from one process-wide allocator, shared by
 * threads, that keeps a bounded amount of freed memory for the next build
 * or answer instead of giving it back: fresh pages cost more than the
 * decoding or rendering that fills them. */
#ifndef UC_MEMORY_H
#define UC_MEMORY_H

#include <apr_pools.h>

/* Creates the process-wide allocator, keeping up to `retained` bytes of
 * freed memory (0 = none), and one freed large block (uc_memory_alloc) of
 * up to a quarter of that. Call it before any thread allocates here (the
 * reader's set-up, uc_delta_init, does); it is undone when `pool` is
 * cleaned up. A call while an earlier one is in force only changes the
 * retained amount, until its own pool is cleaned up. */
void uc_memory_init(apr_pool_t *pool, apr_size_t retained);

/* A pool of its own (no parent), for one thread at a time (the thread
 * that made it, or another that takes it over in turn); destroy it with
 * apr_pool_destroy. Aborts when memory is exhausted, as APR pools do, and
 * when uc_memory_init was not called. */
apr_pool_t *uc_memory_pool_create(void);

/* The same, destroyed with `owner`: a pool for one thread's share of
 * work whose results live as long as `owner` (pools are not shared
 * between threads). */
apr_pool_t *uc_memory_pool_owned(apr_pool_t *owner);

/* A block of `size` bytes freed with `pool`, like apr_palloc, except
 * that a large block (a checkpoint's file array) is mapped for itself:
 * when `pool` goes it goes back to the system, or becomes the one block
 * kept for the next of about its size. APR's allocator would hand it, once
 * free, to the first request it fits (a large block rarely finds one
 * again), and the C library would keep one in the arena of every thread
 * that made one. What it holds at first is undefined, as with
 * apr_palloc. */
void *uc_memory_alloc(apr_pool_t *pool, apr_size_t size);

#endif
