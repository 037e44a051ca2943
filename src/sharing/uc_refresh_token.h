/* SPDX-License-Identifier: Apache-2.0 */
/* Refresh tokens of the Delta Sharing query route: a client that read the
 * latest snapshot of a table (Spark, for a long read) asks again with the
 * token and gets the same version with freshly signed URLs. The token
 * names the table, the version and an expiry, and carries an HMAC of the
 * three under a key of UnicatSecretKeyFile, so that a recipient can
 * neither move it to another table nor make it last longer:
 *
 *     <table id>.<version>.<expiry, unix seconds>.<key id>.<hex HMAC-SHA256>
 *
 * Its purpose keeps it apart from the keyed hashes of file URLs. */
#ifndef UC_REFRESH_TOKEN_H
#define UC_REFRESH_TOKEN_H

#include <apr_pools.h>

#include "../core/uc_error.h"

struct uc_secret_keys;

/* As long as the reference server's. */
#define UC_REFRESH_TOKEN_SECONDS 3600

/* The token of version `version` of table `table_id` (a securable id)
 * until `expires` (seconds since the epoch), signed with the first key;
 * without one a 400 FAILED_PRECONDITION naming UnicatSecretKeyFile. */
uc_error_t *uc_refresh_token_make(apr_pool_t *pool,
                                  const struct uc_secret_keys *keys,
                                  const char *table_id, apr_int64_t version,
                                  apr_int64_t expires, const char **token);

/* The version a token names, when this server signed it for `table_id`
 * (under any key of the file) and it has not expired at `now` (seconds).
 * Anything else, a token that does not parse included, is a 400
 * INVALID_PARAMETER_VALUE saying which. */
uc_error_t *uc_refresh_token_read(apr_pool_t *pool,
                                  const struct uc_secret_keys *keys,
                                  const char *token, const char *table_id,
                                  apr_int64_t now, apr_int64_t *version);

#endif
