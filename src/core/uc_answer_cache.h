/* SPDX-License-Identifier: Apache-2.0 */
/* Answers kept for the next caller who asks the same thing of the same
 * catalog: a per-process map from a key (who asks what, uc_run.c builds
 * it) to the bytes of the answer, valid at one version of the catalog.
 * The version is read from the database before anything the answer is
 * made of, and goes up with every change committed (sql/<dialect>/0015_catalog_version.sql),
 * so an answer kept at version v holds what was committed at v or later:
 * a caller who read v may be given it, one who read another may not. The
 * first caller to come with a newer version empties the cache; answers
 * made at an older one are not kept. Shared by the threads of a process
 * and bounded by a byte budget, least recently used first out; answers
 * are lent to their readers, not copied, and the lock is held only to
 * find and to keep them. */
#ifndef UC_ANSWER_CACHE_H
#define UC_ANSWER_CACHE_H

#include <apr_pools.h>

typedef struct uc_answer_cache uc_answer_cache_t;

typedef struct uc_answer_cache_stats {
    apr_uint64_t entries;
    apr_uint64_t bytes;        /* keys and answers */
    apr_uint64_t evictions;    /* dropped for the budget */
} uc_answer_cache_stats_t;

/* A cache of up to `budget` bytes, emptied when `pool` is cleaned up. An
 * answer larger than a quarter of the budget is not kept. */
apr_status_t uc_answer_cache_create(apr_pool_t *pool, apr_size_t budget,
                                    uc_answer_cache_t **out);

/* The answer kept for `key` at `version`, its `*len` bytes lent until
 * `pool` is cleaned up (never to be written: an answer evicted meanwhile
 * stays whole for its readers); NULL when there is none. */
const char *uc_answer_cache_get(uc_answer_cache_t *c, const char *key,
                                apr_size_t key_len, apr_int64_t version,
                                apr_pool_t *pool, apr_size_t *len);

/* Keeps `len` bytes of `answer` for `key`, made from what was committed at
 * `version` or later; nothing when a newer version was seen already. */
void uc_answer_cache_put(uc_answer_cache_t *c, const char *key,
                         apr_size_t key_len, apr_int64_t version,
                         const char *answer, apr_size_t len);

void uc_answer_cache_stats(uc_answer_cache_t *c,
                           uc_answer_cache_stats_t *stats);

#endif
