/* SPDX-License-Identifier: Apache-2.0 */
/* Query strings: "a=1&b=x%20y" into a table of decoded values. */
#ifndef UC_QUERY_H
#define UC_QUERY_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <jansson.h>
#include "../core/uc_error.h"

#define UC_QUERY_MAX_PARAMS 64

/* `raw` may be NULL. Malformed percent-escapes, NUL bytes and more than
 * UC_QUERY_MAX_PARAMS parameters are a 400. */
uc_error_t *uc_query_parse(apr_pool_t *pool, const char *raw,
                           apr_table_t **out);

/* The parameters as a JSON object of strings (of a name given twice, the
 * last), owned by `pool`: what a body would have said. A value that is
 * not UTF-8 is a 400. */
uc_error_t *uc_query_object(apr_pool_t *pool, const apr_table_t *query,
                            json_t **out);

#endif
