/* SPDX-License-Identifier: Apache-2.0 */
/* The data objects of shares: rows of their own that tie a share to a
 * table or schema it shares, with how it is shared. */
#ifndef UC_SHARE_OBJECTS_H
#define UC_SHARE_OBJECTS_H

#include <apr_tables.h>

#include "uc_store.h"

typedef struct uc_share_object {
    const char *id;
    const char *share_id;
    const char *object_id;
    const char *data_object_type;  /* TABLE, SCHEMA */
    const char *name;              /* full name when added */
    const char *shared_as;
    const char *comment;
    const char *partitions;        /* JSON array text, or NULL */
    const char *cdf_enabled;       /* "1" or "0" */
    const char *history_data_sharing_status;
    const char *start_version;     /* decimal text, or NULL */
    const char *added_at;          /* epoch ms as text */
    const char *added_by;
    const char *current_name;      /* the object's full name now (reads) */
} uc_share_object_t;

/* An object already in the share, or a shared_as taken in it, comes back
 * as an error for which uc_store_is_duplicate() is true. */
uc_error_t *uc_share_object_insert(uc_store_t *store,
                                   const uc_share_object_t *o);
/* The share's objects in shared_as order (uc_share_object_t *). */
uc_error_t *uc_share_objects_of(uc_store_t *store, apr_pool_t *pool,
                                const char *share_id,
                                apr_array_header_t **out);
/* *out is NULL when the object is not in the share. */
uc_error_t *uc_share_object_get(uc_store_t *store, apr_pool_t *pool,
                                const char *share_id, const char *object_id,
                                uc_share_object_t **out);
/* Writes comment, partitions, cdf_enabled, history_data_sharing_status and
 * start_version. */
uc_error_t *uc_share_object_update(uc_store_t *store,
                                   const uc_share_object_t *o);
uc_error_t *uc_share_object_delete(uc_store_t *store, const char *id);

/* The schema of the share that `o` is shown under: a SCHEMA object's
 * shared_as, the part of another's before its dot (NULL without one). */
const char *uc_share_object_schema(apr_pool_t *pool,
                                   const uc_share_object_t *o);

#endif
