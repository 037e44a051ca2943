/* SPDX-License-Identifier: Apache-2.0 */
/* Row-filter and column-mask policies of catalogs, schemas and tables,
 * each named uniquely on its securable and gone with it. */
#ifndef UC_ABAC_POLICIES_H
#define UC_ABAC_POLICIES_H

#include <apr_tables.h>

#include "uc_store.h"

typedef struct uc_abac_policy {
    const char *id;
    const char *securable_id;
    const char *name;              /* lower case */
    const char *policy_type;       /* POLICY_TYPE_ROW_FILTER, ... */
    /* The rest of the policy as one JSON object: to_principals,
     * except_principals, when_condition, match_columns, row_filter,
     * column_mask. */
    const char *document;
    const char *comment;
    const char *created_at;        /* epoch ms as text */
    const char *created_by;
    const char *updated_at;
    const char *updated_by;
    int depth;                     /* of a page: 0 catalog, 1 schema,
                                    * 2 table */
} uc_abac_policy_t;

/* A name the securable already has comes back as an error for which
 * uc_store_is_duplicate() is true. */
uc_error_t *uc_abac_policy_insert(uc_store_t *store,
                                  const uc_abac_policy_t *p);

/* The securable's policy `name`; *out NULL when it has none. */
uc_error_t *uc_abac_policy_get(uc_store_t *store, apr_pool_t *pool,
                               const char *securable_id, const char *name,
                               uc_abac_policy_t **out);

/* The securables whose policies a page shows: some of a catalog, a
 * schema of it and a table of that (NULL for those left out). */
typedef struct uc_policy_scope {
    const char *catalog_id;
    const char *schema_id;
    const char *table_id;
} uc_policy_scope_t;

/* Up to `limit` policies of the scope, ancestors first and by name in
 * each, after the row (after_depth, after_name) (-1 and NULL from the
 * first); *more when others follow. */
uc_error_t *uc_abac_policy_page(uc_store_t *store, apr_pool_t *pool,
                                const uc_policy_scope_t *scope,
                                int after_depth, const char *after_name,
                                int limit, apr_array_header_t **out,
                                int *more);

/* Stores name, type, document, comment and update stamp (by id). */
uc_error_t *uc_abac_policy_update(uc_store_t *store,
                                  const uc_abac_policy_t *p);

uc_error_t *uc_abac_policy_delete(uc_store_t *store, const char *id);

/* How many policies are defined on the securable. */
uc_error_t *uc_abac_policy_count(uc_store_t *store, apr_pool_t *pool,
                                 const char *securable_id, int *count);

/* A policy that holds over a table or schema a share would expose (on
 * it, above it, or on a table of a schema): its name and securable id in
 * *name and *securable_id, NULL when none. `ancestors` are the object's
 * parent and grandparent ids. */
uc_error_t *uc_abac_policy_over(uc_store_t *store, apr_pool_t *pool,
                                const char *object_id, int is_schema,
                                const char *const ancestors[2],
                                const char **name,
                                const char **securable_id);

/* The first share (by name) exposing data that a policy on the securable
 * (whose parent is `parent_id`) would govern; NULL when none. */
uc_error_t *uc_abac_shared_under(uc_store_t *store, apr_pool_t *pool,
                                 const char *securable_id,
                                 const char *parent_id, const char **share);

#endif
