/* SPDX-License-Identifier: Apache-2.0 */
/* The recipients a share is granted to: what Delta Sharing lets each
 * recipient read. */
#ifndef UC_SHARE_RECIPIENTS_H
#define UC_SHARE_RECIPIENTS_H

#include <apr_tables.h>

#include "uc_store.h"
#include "uc_securables.h"

/* Up to `limit` names of the share's recipients after `after` ("" for the
 * first), in name order; *more tells whether others follow. */
uc_error_t *uc_share_recipients_page(uc_store_t *store, apr_pool_t *pool,
                                     const char *share_id, const char *after,
                                     int limit, apr_array_header_t **names,
                                     int *more);

/* *changed is 0 when the recipient already had (or still lacked) it. */
uc_error_t *uc_share_recipient_add(uc_store_t *store, const char *share_id,
                                   const char *recipient_id, const char *at,
                                   const char *by, int *changed);
uc_error_t *uc_share_recipient_remove(uc_store_t *store, const char *share_id,
                                      const char *recipient_id, int *changed);

/* Up to `limit` shares granted to the recipient after the name `after`
 * ("" for the first), in name order, as uc_securable_t * holding only id
 * and name; *more tells whether others follow. */
uc_error_t *uc_share_recipient_shares_page(uc_store_t *store,
                                           apr_pool_t *pool,
                                           const char *recipient_id,
                                           const char *after, int limit,
                                           apr_array_header_t **shares,
                                           int *more);

/* The share named `name` (lower case) if it is granted to the recipient;
 * *out is NULL when it is not, or does not exist. */
uc_error_t *uc_share_recipient_share(uc_store_t *store, apr_pool_t *pool,
                                     const char *recipient_id,
                                     const char *name, uc_securable_t **out);

#endif
