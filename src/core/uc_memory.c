#include "uc_memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <apr_allocator.h>
#include <apr_thread_mutex.h>

/* Enough for the scratch of a checkpoint of about 100,000 files. */
#define DEFAULT_RETAINED ((apr_size_t)64 << 20)

/* Where the C library's own large-block handling starts paying. */
#define LARGE_BLOCK ((apr_size_t)128 << 10)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static apr_allocator_t *allocator;
static apr_size_t retained = DEFAULT_RETAINED;

static int out_of_memory(int status)
{
    (void)status;
    abort();
    return 0;
}

static void create_allocator(void)
{
    apr_pool_t *owner;
    apr_thread_mutex_t *mutex;

    if (apr_allocator_create(&allocator) != APR_SUCCESS
        || apr_pool_create_unmanaged_ex(&owner, out_of_memory, allocator)
           != APR_SUCCESS
        || apr_thread_mutex_create(&mutex, APR_THREAD_MUTEX_DEFAULT, owner)
           != APR_SUCCESS)
        abort();
    apr_allocator_owner_set(allocator, owner);
    apr_allocator_mutex_set(allocator, mutex);
    apr_allocator_max_free_set(allocator, retained);
}

void uc_memory_set_retained(apr_size_t bytes)
{
    /* APR reads 0 as "no limit"; one byte keeps a single page at most. */
    retained = bytes ? bytes : 1;
    if (allocator)
        apr_allocator_max_free_set(allocator, retained);
}

apr_pool_t *uc_memory_pool_create(void)
{
    apr_pool_t *pool;

    pthread_once(&once, create_allocator);
    if (apr_pool_create_unmanaged_ex(&pool, out_of_memory, allocator)
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
