/* SPDX-License-Identifier: Apache-2.0 */
/* Staging tables: the id and storage location reserved for a managed table
 * before its data is written, committed once by the table's creation. */
#ifndef UC_STAGING_H
#define UC_STAGING_H

#include "uc_store.h"

typedef struct uc_staging {
    const char *id;
    const char *schema_id;
    const char *name;
    const char *location;
    const char *created_at;        /* epoch ms as text */
    const char *created_by;
    const char *committed_at;      /* NULL while open */
} uc_staging_t;

/* A location already reserved comes back as an error for which
 * uc_store_is_duplicate() is true. */
uc_error_t *uc_staging_insert(uc_store_t *store, const uc_staging_t *st);
/* *out is NULL when nothing was reserved there. Inside a transaction the
 * row stays locked until it ends. */
uc_error_t *uc_staging_by_location(uc_store_t *store, apr_pool_t *pool,
                                   const char *location, uc_staging_t **out);
/* The open reservation with this id; *out is NULL when there is none. */
uc_error_t *uc_staging_open_by_id(uc_store_t *store, apr_pool_t *pool,
                                  const char *id, uc_staging_t **out);
/* Marks an open reservation used; *done is 0 when it was not open. */
uc_error_t *uc_staging_commit(uc_store_t *store, const char *id,
                              const char *at, int *done);

#endif
