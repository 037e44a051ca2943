/* SPDX-License-Identifier: Apache-2.0 */
/* Keyset pagination shared by every list: page size rules and opaque
 * tokens that carry the last key returned. */
#ifndef UC_PAGE_H
#define UC_PAGE_H

#include <apr_pools.h>
#include "uc_error.h"

#define UC_PAGE_DEFAULT 100
#define UC_PAGE_MAX 1000
/* A page also ends once the rows it holds reach this many bytes of stored
 * text (comments, properties, the resource's fields), so that its cost
 * does not grow with the size of the objects; it always holds one row. */
#define UC_PAGE_BYTES 4194304   /* 4 MiB; a literal, as SQL text takes it */

typedef struct uc_page {
    int limit;            /* rows to return */
    const char *after;    /* last key of the previous page, NULL for page 1 */
} uc_page_t;

/* Reads max_results and page_token as they came in the query string (either
 * may be NULL): absent or 0 → default, negative or non-numeric → 400, above
 * the maximum → clamped; an empty token means the first page. */
uc_error_t *uc_page_parse(apr_pool_t *pool, const char *max_results,
                          const char *page_token, uc_page_t *page);

/* The same for a list of its own sizes: `fallback` rows by default, at
 * most `max`. */
uc_error_t *uc_page_parse_sized(apr_pool_t *pool, const char *max_results,
                                const char *page_token, int fallback, int max,
                                uc_page_t *page);

/* A count of rows asked for by the query parameter `name` (`text` NULL
 * when absent), read as max_results is: absent or 0 → `fallback`,
 * negative or not an integer → 400 naming `name`, above `max` → `max`. */
uc_error_t *uc_page_limit(apr_pool_t *pool, const char *name,
                          const char *text, int fallback, int max, int *out);

/* The key a page token carries, for lists keyed by a non-negative number
 * (versions): *out is -1 on the first page; a key that is no such number
 * is the 400 of an invalid token. */
uc_error_t *uc_page_after_number(apr_pool_t *pool, const uc_page_t *page,
                                 apr_int64_t *out);

/* The opaque token that resumes after `last_key`. */
const char *uc_page_token(apr_pool_t *pool, const char *last_key);

#endif
