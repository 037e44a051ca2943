/* SPDX-License-Identifier: Apache-2.0 */
/* Reference counts shared between threads. The compiler's atomics rather
 * than apr_atomic_*: the same instructions, but inside our code, where
 * ThreadSanitizer sees them (libapr is not instrumented, so it could not
 * tell that the last release comes after every other holder's reads). */
#ifndef UC_REFCOUNT_H
#define UC_REFCOUNT_H

#include <apr.h>

static inline void uc_ref_retain(volatile apr_uint32_t *refs)
{
    __atomic_add_fetch(refs, 1, __ATOMIC_RELAXED);
}

/* True for the release that dropped the last reference. */
static inline int uc_ref_release(volatile apr_uint32_t *refs)
{
    return __atomic_sub_fetch(refs, 1, __ATOMIC_ACQ_REL) == 0;
}

#endif
