/* SPDX-License-Identifier: Apache-2.0 */
/* The continuation tokens the sharing server hands out: the next pages of
 * its lists and of a query, and refresh tokens. A token carries where the
 * next request resumes (its state, which only the route reads) and an
 * expiry, under an HMAC-SHA256 with a key of UnicatSecretKeyFile that
 * also covers what the token continues: the recipient, the share, the
 * table or schema, the route and the request's parameters that must not
 * change from one page to the next. That binding is not written in the
 * token: the request presenting it supplies its own, so a token moved to
 * another recipient, share, table, route or parameters fails its HMAC as
 * a forged, changed or cut one does, and the answer says no more than
 * that. A token reads
 *
 *     <state, base64url>.<expiry, unix seconds>.<key id>.<hex HMAC>
 *
 * and its purpose keeps its HMAC apart from the keyed hashes of file
 * URLs and recipient tokens. */
#ifndef UC_SHARING_TOKEN_H
#define UC_SHARING_TOKEN_H

#include <apr_pools.h>

#include "../core/uc_error.h"

struct uc_secret_keys;

/* How long a token lasts: a page token as long as the reference server's
 * (3 days), a refresh token an hour. */
#define UC_SHARING_PAGE_TOKEN_SECONDS 259200
#define UC_SHARING_REFRESH_TOKEN_SECONDS 3600

/* What a token continues; a member that does not apply is "". */
typedef struct uc_sharing_token_scope {
    const char *kind;       /* "page token" or "refresh token": it names
                             * the token in the errors too */
    const char *route;      /* e.g. "query", "shares", "all-tables" */
    const char *recipient;  /* the caller's recipient id */
    const char *share;      /* the share's id */
    const char *object;     /* a table's id or a schema's name */
    const char *params;     /* the parameters bound, as one text */
} uc_sharing_token_scope_t;

/* Whether tokens can be made: a 400 FAILED_PRECONDITION naming
 * UnicatSecretKeyFile when `keys` holds none. An answer that will end
 * with a token asks before it begins. */
uc_error_t *uc_sharing_token_ready(apr_pool_t *pool,
                                   const struct uc_secret_keys *keys,
                                   const char *kind);

/* The token of `state` in `scope` until `expires` (seconds since the
 * epoch), under the first key; without one the error of
 * uc_sharing_token_ready. */
uc_error_t *uc_sharing_token_make(apr_pool_t *pool,
                                  const struct uc_secret_keys *keys,
                                  const uc_sharing_token_scope_t *scope,
                                  const char *state, apr_int64_t expires,
                                  const char **token);

/* The state of `token` when this server made it for `scope` (under any
 * key of the file) and it has not expired at `now` (seconds). Anything
 * else is a 400 INVALID_PARAMETER_VALUE: one that is not such a token,
 * whatever it fails, or one past its expiry. */
uc_error_t *uc_sharing_token_read(apr_pool_t *pool,
                                  const struct uc_secret_keys *keys,
                                  const uc_sharing_token_scope_t *scope,
                                  const char *token, apr_int64_t now,
                                  const char **state);

#endif
