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

/* The ten operations on one width of integer. */
#define APR_ATOMICS(BITS)                                                   \
apr_uint##BITS##_t apr_atomic_read##BITS(volatile apr_uint##BITS##_t *mem)  \
{                                                                           \
    return __atomic_load_n(mem, SEQ);                                       \
}                                                                           \
void apr_atomic_set##BITS(volatile apr_uint##BITS##_t *mem,                 \
                          apr_uint##BITS##_t val)                           \
{                                                                           \
    __atomic_store_n(mem, val, SEQ);                                        \
}                                                                           \
apr_uint##BITS##_t apr_atomic_add##BITS(volatile apr_uint##BITS##_t *mem,   \
                                        apr_uint##BITS##_t val)             \
{                                                                           \
    return __atomic_fetch_add(mem, val, SEQ);                               \
}                                                                           \
void apr_atomic_sub##BITS(volatile apr_uint##BITS##_t *mem,                 \
                          apr_uint##BITS##_t val)                           \
{                                                                           \
    __atomic_fetch_sub(mem, val, SEQ);                                      \
}                                                                           \
apr_uint##BITS##_t apr_atomic_inc##BITS(volatile apr_uint##BITS##_t *mem)   \
{                                                                           \
    return __atomic_fetch_add(mem, 1, SEQ);                                 \
}                                                                           \
int apr_atomic_dec##BITS(volatile apr_uint##BITS##_t *mem)                  \
{                                                                           \
    return __atomic_sub_fetch(mem, 1, SEQ) != 0;                            \
}                                                                           \
apr_uint##BITS##_t apr_atomic_cas##BITS(volatile apr_uint##BITS##_t *mem,   \
                                        apr_uint##BITS##_t with,            \
                                        apr_uint##BITS##_t cmp)             \
{                                                                           \
    __atomic_compare_exchange_n(mem, &cmp, with, 0, SEQ, SEQ);              \
    return cmp;                                                             \
}                                                                           \
apr_uint##BITS##_t apr_atomic_xchg##BITS(volatile apr_uint##BITS##_t *mem,  \
                                         apr_uint##BITS##_t val)            \
{                                                                           \
    return __atomic_exchange_n(mem, val, SEQ);                              \
}

APR_ATOMICS(32)
APR_ATOMICS(64)

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
