/* SPDX-License-Identifier: Apache-2.0 */
/* The reader's memory (uc_memory.h): large blocks go back to the system
 * with their pools, whichever threads made them, but one the process
 * keeps for the next build when its retained memory allows (the C
 * library, once it had freed one such block, kept the next in the arena
 * of each thread that made one). */
#include "uc_test.h"

#include <errno.h>
#include <sys/mman.h>
#include <apr_thread_proc.h>

#include "../../src/core/uc_memory.h"

/* A checkpoint's file array for 100,000 files, about. */
#define BLOCK ((apr_size_t)7 << 20)
#define ROUNDS 3
#define THREADS 3

/* The blocks a test made, by address, each once, and the pages of them
 * still resident as each pool went (read at once: an address given back
 * may hold something else later, a thread's stack say). */
typedef struct seen {
    char *blocks[ROUNDS * THREADS];
    int n;
    apr_size_t kept_pages;
} seen_t;

static void remember(seen_t *seen, char *block)
{
    int i;

    for (i = 0; i < seen->n; i++)
        if (seen->blocks[i] == block)
            return;
    seen->blocks[seen->n++] = block;
}

/* Pages of [at, at + len) the process holds in memory; 0 once unmapped. */
static apr_size_t resident_pages(const void *at, apr_size_t len)
{
    apr_size_t page = (apr_size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)at & ~(uintptr_t)(page - 1);
    apr_size_t n = ((uintptr_t)at + len - start + page - 1) / page;
    apr_size_t i, held = 0;
    unsigned char *vec = malloc(n);

    assert_non_null(vec);
    if (mincore((void *)start, n * page, vec) == 0)
        for (i = 0; i < n; i++)
            held += vec[i] & 1;
    else
        assert_int_equal(errno, ENOMEM);
    free(vec);
    return held;
}

/* Blocks made, filled and freed one after the other, as builds do. */
static void *APR_THREAD_FUNC build_and_free(apr_thread_t *thread, void *data)
{
    seen_t *seen = data;
    int round;

    (void)thread;
    for (round = 0; round < ROUNDS; round++) {
        apr_pool_t *pool = uc_memory_pool_create();
        char *block = uc_memory_alloc(pool, BLOCK);

        memset(block, round + 1, BLOCK);
        apr_pool_destroy(pool);
        seen->kept_pages += resident_pages(block, BLOCK);
        remember(seen, block);
    }
    return NULL;
}

/* The calling thread's rounds, then those of threads started one after
 * the other, as a threaded MPM's workers would build. */
static void build_in_threads(apr_pool_t *pool, seen_t *seen)
{
    apr_thread_t *thread;
    apr_status_t rv;
    int i;

    build_and_free(NULL, seen);
    for (i = 1; i < THREADS; i++) {
        assert_int_equal(apr_thread_create(&thread, NULL, build_and_free,
                                           seen, pool), APR_SUCCESS);
        apr_thread_join(&rv, thread);
    }
}

/* Retaining nothing, the reader keeps no large block. */
static void test_large_blocks_go_back(void **state)
{
    apr_pool_t *pool = *state, *none;
    seen_t seen = { .n = 0 };

    apr_pool_create(&none, pool);
    uc_memory_init(none, 0);
    build_in_threads(pool, &seen);
    apr_pool_destroy(none);
    assert_int_equal(seen.kept_pages, 0);
}

/* Retaining memory, the reader keeps one block for the whole process:
 * each build, in whichever thread, gets the one the build before gave
 * back, and so does a build a little smaller. */
static void test_one_block_kept_for_the_next_build(void **state)
{
    apr_pool_t *pool = *state;
    seen_t seen = { .n = 0 };

    build_in_threads(pool, &seen);
    assert_int_equal(seen.n, 1);
    assert_true(uc_memory_alloc(uc_memory_pool_owned(pool), BLOCK - 4096)
                == seen.blocks[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_large_blocks_go_back,
                                        uc_test_pool_setup,
                                        uc_test_pool_teardown),
        cmocka_unit_test_setup_teardown(
            test_one_block_kept_for_the_next_build, uc_test_pool_setup,
            uc_test_pool_teardown),
    };
    int rc;

    uc_test_init();
    uc_memory_init(uc_test_global_pool, (apr_size_t)64 << 20);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
