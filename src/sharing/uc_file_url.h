/* SPDX-License-Identifier: Apache-2.0 */
/* Signed URLs of the data files of local (file://) tables, which the
 * module itself serves under the sharing mount (<mount>/files): the URL
 * names the table and the file's key under its root, and carries its
 * expiry and a keyed hash of the three, so that nothing but the sharing
 * server can make one and none outlives its expiry. */
#ifndef UC_FILE_URL_H
#define UC_FILE_URL_H

#include <apr_pools.h>

#include "../core/uc_error.h"

struct uc_secret_keys;

/* <files_base>/<table_id>/<key, percent-encoded>?exp=<expires>&kid=<key
 * id>&sig=<hash>, the hash made with the first of `keys` (UnicatSecretKeyFile:
 * without one, a 400 naming the directive). `key` is relative to the
 * table root and percent-decoded; `expires` is in unix seconds. */
uc_error_t *uc_file_url_sign(apr_pool_t *pool,
                             const struct uc_secret_keys *keys,
                             const char *files_base, const char *table_id,
                             const char *key, apr_int64_t expires,
                             const char **url);

#endif
