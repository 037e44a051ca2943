/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_hash.h"

#include <string.h>
#include <apr_time.h>
#include <openssl/rand.h>

#define MIX 0x9e3779b97f4a7c15ULL

static apr_uint64_t seed;

void uc_hash_seed(void)
{
    if (RAND_bytes((unsigned char *)&seed, sizeof(seed)) != 1)
        seed = (apr_uint64_t)apr_time_now() ^
               (apr_uint64_t)(apr_uintptr_t)&seed;
}

/* Eight bytes a step, each multiplied in and its high bits folded down,
 * so that the low bits APR picks a bucket with depend on every byte. */
static unsigned int hash_words(const char *key, apr_ssize_t *klen)
{
    apr_size_t n = *klen == APR_HASH_KEY_STRING ? strlen(key)
                                                : (apr_size_t)*klen;
    apr_uint64_t h = seed ^ n, w;

    *klen = (apr_ssize_t)n;
    for (; n >= sizeof(w); n -= sizeof(w), key += sizeof(w)) {
        memcpy(&w, key, sizeof(w));
        h = (h ^ w) * MIX;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, key, n);
    h = (h ^ w) * MIX;
    return (unsigned int)(h ^ (h >> 32));
}

apr_hash_t *uc_hash_make(apr_pool_t *pool)
{
    return apr_hash_make_custom(pool, hash_words);
}
