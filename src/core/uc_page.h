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

/* The opaque token that resumes after `last_key`. */
const char *uc_page_token(apr_pool_t *pool, const char *last_key);

#endif
