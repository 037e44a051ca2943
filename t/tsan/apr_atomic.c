/* SPDX-License-Identifier: Apache-2.0 */
/* APR's atomics, built with ThreadSanitizer and preloaded into the httpd
 * of `make tsan-test` (t/tsan/run.sh) ahead of libapr's. httpd's event MPM
 * hands memory and sockets between threads through them (the transaction
 * pools it recycles go through a list changed by apr_atomic_casptr alone;
 * a connection's state passes between the listener and the workers);
 * libapr is not instrumented, so TSan would not see those hand-overs and
 * would take the next thread's first use of a recycled pool's memory, or
 * a worker's close of a socket the listener polled, for a race with the
 * thread before. Here each operation is a compiler atomic, which
 * TSan sees (sequentially consistent, as APR's are), with APR's meaning:
 * add, inc and the exchanges return the value before; dec returns whether
 * the value is not zero after. */
#include <apr_atomic.h>

#define SEQ __ATOMIC_SEQ_CST

apr_status_t apr_atomic_init(apr_pool_t *pool)
{
    (void)pool;
    return APR_SUCCESS;
}

apr_uint32_t apr_atomic_read32(volatile apr_uint32_t *mem)
{
    return __atomic_load_n(mem, SEQ);
}

void apr_atomic_set32(volatile apr_uint32_t *mem, apr_uint32_t val)
{
    __atomic_store_n(mem, val, SEQ);
}

apr_uint32_t apr_atomic_add32(volatile apr_uint32_t *mem, apr_uint32_t val)
{
    return __atomic_fetch_add(mem, val, SEQ);
}

void apr_atomic_sub32(volatile apr_uint32_t *mem, apr_uint32_t val)
{
    __atomic_fetch_sub(mem, val, SEQ);
}

apr_uint32_t apr_atomic_inc32(volatile apr_uint32_t *mem)
{
    return __atomic_fetch_add(mem, 1, SEQ);
}

int apr_atomic_dec32(volatile apr_uint32_t *mem)
{
    return __atomic_sub_fetch(mem, 1, SEQ) != 0;
}

apr_uint32_t apr_atomic_cas32(volatile apr_uint32_t *mem, apr_uint32_t with,
                              apr_uint32_t cmp)
{
    __atomic_compare_exchange_n(mem, &cmp, with, 0, SEQ, SEQ);
    return cmp;
}

apr_uint32_t apr_atomic_xchg32(volatile apr_uint32_t *mem, apr_uint32_t val)
{
    return __atomic_exchange_n(mem, val, SEQ);
}

apr_uint64_t apr_atomic_read64(volatile apr_uint64_t *mem)
{
    return __atomic_load_n(mem, SEQ);
}

void apr_atomic_set64(volatile apr_uint64_t *mem, apr_uint64_t val)
{
    __atomic_store_n(mem, val, SEQ);
}

apr_uint64_t apr_atomic_add64(volatile apr_uint64_t *mem, apr_uint64_t val)
{
    return __atomic_fetch_add(mem, val, SEQ);
}

void apr_atomic_sub64(volatile apr_uint64_t *mem, apr_uint64_t val)
{
    __atomic_fetch_sub(mem, val, SEQ);
}

apr_uint64_t apr_atomic_inc64(volatile apr_uint64_t *mem)
{
    return __atomic_fetch_add(mem, 1, SEQ);
}

int apr_atomic_dec64(volatile apr_uint64_t *mem)
{
    return __atomic_sub_fetch(mem, 1, SEQ) != 0;
}

apr_uint64_t apr_atomic_cas64(volatile apr_uint64_t *mem, apr_uint64_t with,
                              apr_uint64_t cmp)
{
    __atomic_compare_exchange_n(mem, &cmp, with, 0, SEQ, SEQ);
    return cmp;
}

apr_uint64_t apr_atomic_xchg64(volatile apr_uint64_t *mem, apr_uint64_t val)
{
    return __atomic_exchange_n(mem, val, SEQ);
}

void *apr_atomic_casptr(volatile void **mem, void *with, const void *cmp)
{
    void *expected = (void *)cmp;

    __atomic_compare_exchange_n((void *volatile *)mem, &expected, with, 0,
                                SEQ, SEQ);
    return expected;
}

void *apr_atomic_xchgptr(volatile void **mem, void *with)
{
    return __atomic_exchange_n((void *volatile *)mem, with, SEQ);
}
