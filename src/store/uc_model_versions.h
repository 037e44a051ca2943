/* SPDX-License-Identifier: Apache-2.0 */
/* Versions of registered models: rows of their own, numbered per model. */
#ifndef UC_MODEL_VERSIONS_H
#define UC_MODEL_VERSIONS_H

#include <apr_tables.h>

#include "uc_store.h"

typedef struct uc_model_version {
    const char *model_id;
    const char *version;           /* decimal text */
    const char *id;
    const char *source;
    const char *run_id;
    const char *status;
    const char *storage_location;
    const char *comment;
    const char *created_at;        /* epoch ms as text */
    const char *created_by;
    const char *updated_at;
    const char *updated_by;
} uc_model_version_t;

uc_error_t *uc_model_version_insert(uc_store_t *store,
                                    const uc_model_version_t *v);
/* *out is NULL when the model has no such version. Inside a transaction
 * the row stays locked until it ends. */
uc_error_t *uc_model_version_get(uc_store_t *store, apr_pool_t *pool,
                                 const char *model_id, const char *version,
                                 uc_model_version_t **out);
/* Versions after `after` (a version number, NULL for the first page) in
 * ascending order; *more tells whether more follow. */
uc_error_t *uc_model_version_page(uc_store_t *store, apr_pool_t *pool,
                                  const char *model_id, const char *after,
                                  int limit, apr_array_header_t **out,
                                  int *more);
/* Writes status, comment and the update stamp. */
uc_error_t *uc_model_version_update(uc_store_t *store,
                                    const uc_model_version_t *v);
uc_error_t *uc_model_version_delete(uc_store_t *store, const char *model_id,
                                    const char *version);
uc_error_t *uc_model_has_versions(uc_store_t *store, const char *model_id,
                                  int *has);

#endif
