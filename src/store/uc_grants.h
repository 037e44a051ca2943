/* SPDX-License-Identifier: Apache-2.0 */
/* Grants (securable, principal, privilege) and the audit of every change
 * to grants and ownership. Privileges are stored by their key
 * ("USE_CATALOG"). */
#ifndef UC_GRANTS_H
#define UC_GRANTS_H

#include <apr_tables.h>

#include "uc_store.h"

typedef struct uc_grant {
    const char *securable_id;
    const char *principal;
    const char *privilege;
} uc_grant_t;

/* Grants held by any of `principals` (JSON array) on any of `ids` (JSON
 * array). */
uc_error_t *uc_grants_held(uc_store_t *store, apr_pool_t *pool,
                           const char *ids, const char *principals,
                           apr_array_header_t **out);
/* One principal's grants on the securables of one path (1 to 4 ids). */
uc_error_t *uc_grants_of_user_on_path(uc_store_t *store, apr_pool_t *pool,
                                      const char *const *ids, int n,
                                      const char *principal,
                                      apr_array_header_t **out);
/* Every grant on one securable, by principal. */
uc_error_t *uc_grants_on(uc_store_t *store, apr_pool_t *pool,
                         const char *securable_id, apr_array_header_t **out);
/* Every grant on any of `ids` (JSON array), by principal. */
uc_error_t *uc_grants_on_any(uc_store_t *store, apr_pool_t *pool,
                             const char *ids, apr_array_header_t **out);

/* *changed tells whether the grant was new / existed. */
uc_error_t *uc_grant_add(uc_store_t *store, const char *securable_id,
                         const char *principal, const char *privilege,
                         const char *by, const char *at, int *changed);
uc_error_t *uc_grant_remove(uc_store_t *store, const char *securable_id,
                            const char *principal, const char *privilege,
                            int *changed);

typedef struct uc_audit {
    const char *at;
    const char *actor;
    const char *action;            /* GRANT, REVOKE, SET_OWNER */
    const char *securable_type;
    const char *securable_id;
    const char *securable_name;
    const char *principal;         /* grantee, or the new owner */
    const char *privilege;         /* NULL for ownership */
} uc_audit_t;

uc_error_t *uc_audit_add(uc_store_t *store, const uc_audit_t *entry);

#endif
