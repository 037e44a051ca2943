/* SPDX-License-Identifier: Apache-2.0 */
/* Query strings: "a=1&b=x%20y" into a table of decoded values. */
#ifndef UC_QUERY_H
#define UC_QUERY_H

#include <apr_pools.h>
#include <apr_tables.h>
#include "../core/uc_error.h"

#define UC_QUERY_MAX_PARAMS 64

/* `raw` may be NULL. Malformed percent-escapes, NUL bytes and more than
 * UC_QUERY_MAX_PARAMS parameters are a 400. */
uc_error_t *uc_query_parse(apr_pool_t *pool, const char *raw,
                           apr_table_t **out);

#endif
