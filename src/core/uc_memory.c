/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_memory.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <apr_allocator.h>
#include <apr_thread_mutex.h>

/* From this size a block is mapped for itself (uc_memory_alloc). */
#define LARGE_BLOCK ((apr_size_t)128 << 10)

/* Written by uc_memory_init and its cleanup only, before and after the
 * threads that allocate. */
static apr_allocator_t *allocator;
static apr_pool_t *allocator_owner;
static apr_thread_mutex_t *lock;      /* the allocator's, and the spare's */
static int users;
static apr_size_t retained;

/* A large block, mapped for itself (uc_memory_alloc). */
typedef struct large_block {
    void *at;
    apr_size_t size;
} large_block_t;

/* Under `lock`: the large block given back last, kept for the next build
 * (the same table's file array, as a rule) when it takes at most a
 * quarter of the retained memory. One for the process: what the C
 * library kept was one per thread. */
static large_block_t spare;

typedef struct use {
    apr_size_t retained_before;
} use_t;

static int out_of_memory(int status)
{
    (void)status;
    abort();
    return 0;
}

static void set_retained(apr_size_t bytes)
{
    retained = bytes;
    /* APR reads 0 as "no limit"; one byte keeps a single page at most. */
    apr_allocator_max_free_set(allocator, bytes ? bytes : 1);
}

static void create_allocator(void)
{
    if (apr_allocator_create(&allocator) != APR_SUCCESS
        || apr_pool_create_unmanaged_ex(&allocator_owner, out_of_memory,
                                        allocator) != APR_SUCCESS
        || apr_thread_mutex_create(&lock, APR_THREAD_MUTEX_DEFAULT,
                                   allocator_owner) != APR_SUCCESS)
        abort();
    apr_allocator_owner_set(allocator, allocator_owner);
    apr_allocator_mutex_set(allocator, lock);
}

static apr_status_t end_use(void *data)
{
    use_t *use = data;

    if (--users > 0) {
        set_retained(use->retained_before);
        return APR_SUCCESS;
    }
    if (spare.at)
        munmap(spare.at, spare.size);
    spare.at = NULL;
    /* The owner takes the allocator and the lock with it. */
    apr_pool_destroy(allocator_owner);
    allocator_owner = NULL;
    allocator = NULL;
    return APR_SUCCESS;
}

void uc_memory_init(apr_pool_t *pool, apr_size_t bytes)
{
    use_t *use = apr_palloc(pool, sizeof(*use));

    if (allocator == NULL)
        create_allocator();
    use->retained_before = retained;
    users++;
    set_retained(bytes);
    apr_pool_cleanup_register(pool, use, end_use, apr_pool_cleanup_null);
}

apr_pool_t *uc_memory_pool_create(void)
{
    apr_pool_t *pool;

    if (allocator == NULL
        || apr_pool_create_unmanaged_ex(&pool, out_of_memory, allocator)
           != APR_SUCCESS)
        abort();
    return pool;
}

static apr_status_t destroy_pool(void *pool)
{
    apr_pool_destroy(pool);
    return APR_SUCCESS;
}

apr_pool_t *uc_memory_pool_owned(apr_pool_t *owner)
{
    apr_pool_t *pool = uc_memory_pool_create();

    apr_pool_cleanup_register(owner, pool, destroy_pool,
                              apr_pool_cleanup_null);
    return pool;
}

/* The spare when it is of about `size` (at most a quarter larger), else a
 * fresh mapping, in huge pages where the system has them: they take as
 * few page faults as a reused block. */
static large_block_t take_block(apr_size_t size)
{
    large_block_t block = { NULL, 0 };

    apr_thread_mutex_lock(lock);
    if (spare.at && spare.size >= size && spare.size - size <= size / 4) {
        block = spare;
        spare.at = NULL;
    }
    apr_thread_mutex_unlock(lock);
    if (block.at)
        return block;
    block.size = size;
    block.at = mmap(NULL, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block.at == MAP_FAILED)
        abort();
#ifdef MADV_HUGEPAGE
    madvise(block.at, size, MADV_HUGEPAGE);
#endif
    return block;
}

/* The block becomes the spare, small enough, and the one before goes back
 * to the system; or it goes back itself. */
static apr_status_t give_back(void *data)
{
    large_block_t block = *(large_block_t *)data;

    if (block.size <= retained / 4) {
        large_block_t before;

        apr_thread_mutex_lock(lock);
        before = spare;
        spare = block;
        apr_thread_mutex_unlock(lock);
        block = before;
    }
    if (block.at)
        munmap(block.at, block.size);
    return APR_SUCCESS;
}

/* Not from malloc: a block that large comes from the arena of the thread
 * that asks for it, and once one has been freed the C library serves
 * blocks up to that size (32 MiB at most) from arenas and trims an
 * arena's free end only beyond twice that, which malloc_trim leaves to a
 * thread's arena too. Under a threaded MPM every worker thread that
 * built a snapshot would keep its file array's worth (6.4 MB for 100,000
 * files) for the child's life once that snapshot went. */
void *uc_memory_alloc(apr_pool_t *pool, apr_size_t size)
{
    large_block_t *block;

    if (size < LARGE_BLOCK)
        return apr_palloc(pool, size);
    block = apr_palloc(pool, sizeof(*block));
    *block = take_block(size);
    apr_pool_cleanup_register(pool, block, give_back,
                              apr_pool_cleanup_null);
    return block->at;
}
