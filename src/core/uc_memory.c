/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_memory.h"

#include <stdlib.h>
#include <apr_allocator.h>
#include <apr_thread_mutex.h>

/* Where the C library's own large-block handling starts paying. */
#define LARGE_BLOCK ((apr_size_t)128 << 10)

/* Written by uc_memory_init and its cleanup only, before and after the
 * threads that allocate. */
static apr_allocator_t *allocator;
static apr_pool_t *allocator_owner;
static int users;
static apr_size_t retained;

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
    apr_thread_mutex_t *mutex;

    if (apr_allocator_create(&allocator) != APR_SUCCESS
        || apr_pool_create_unmanaged_ex(&allocator_owner, out_of_memory,
                                        allocator) != APR_SUCCESS
        || apr_thread_mutex_create(&mutex, APR_THREAD_MUTEX_DEFAULT,
                                   allocator_owner) != APR_SUCCESS)
        abort();
    apr_allocator_owner_set(allocator, allocator_owner);
    apr_allocator_mutex_set(allocator, mutex);
}

static apr_status_t end_use(void *data)
{
    use_t *use = data;

    if (--users > 0) {
        set_retained(use->retained_before);
        return APR_SUCCESS;
    }
    /* The owner takes the allocator with it. */
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

static apr_status_t free_block(void *holder)
{
    free(*(void **)holder);
    return APR_SUCCESS;
}

void *uc_memory_alloc(apr_pool_t *pool, apr_size_t size)
{
    void **holder;

    if (size < LARGE_BLOCK)
        return apr_palloc(pool, size);
    holder = apr_palloc(pool, sizeof(*holder));
    if ((*holder = malloc(size)) == NULL)
        abort();
    apr_pool_cleanup_register(pool, holder, free_block,
                              apr_pool_cleanup_null);
    return *holder;
}
