/* SPDX-License-Identifier: Apache-2.0 */
/* The schemas shares declare: names for groups of a share's data objects
 * that exist before (and without) any object shared under them. */
#ifndef UC_SHARE_SCHEMAS_H
#define UC_SHARE_SCHEMAS_H

#include <apr_tables.h>

#include "uc_store.h"

typedef struct uc_share_schema {
    const char *id;
    const char *share_id;
    const char *name;              /* lower case */
    const char *comment;
    const char *properties;        /* JSON object text, or NULL */
    const char *created_at;        /* epoch ms as text */
    const char *created_by;
} uc_share_schema_t;

/* A name the share declares already comes back as an error for which
 * uc_store_is_duplicate() is true. */
uc_error_t *uc_share_schema_insert(uc_store_t *store,
                                   const uc_share_schema_t *s);

/* The share's declared schemas by name (uc_share_schema_t *). */
uc_error_t *uc_share_schemas_of(uc_store_t *store, apr_pool_t *pool,
                                const char *share_id,
                                apr_array_header_t **out);

uc_error_t *uc_share_schema_delete(uc_store_t *store, const char *id);

#endif
