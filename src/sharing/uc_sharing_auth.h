/* SPDX-License-Identifier: Apache-2.0 */
/* Who calls the sharing server: the recipient a bearer token names, and
 * whether its IP access list lets the call in. What the glue's
 * AuthType UnicatBearer asks before any handler runs. */
#ifndef UC_SHARING_AUTH_H
#define UC_SHARING_AUTH_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"
#include "../store/uc_securables.h"

struct uc_store;
struct uc_secret_keys;

/* The recipient whose bearer or access token `token` is, when the token
 * lives at `now` (*recipient NULL for one that is unknown or expired),
 * and whether a call from `ip` is admitted: always without an IP access
 * list, never when the stored list no longer parses. */
uc_error_t *uc_sharing_authenticate(struct uc_store *store, apr_pool_t *pool,
                                    const struct uc_secret_keys *keys,
                                    const char *token, apr_time_t now,
                                    const char *ip,
                                    const uc_securable_t **recipient,
                                    int *admitted);

#endif
