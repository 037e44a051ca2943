/* SPDX-License-Identifier: Apache-2.0 */
/* Signed URLs of the files route: how recipients read the files of a table
 * on this server's own file system (file:// tables have no store that
 * could sign for them). A URL names the table by id and the file by its
 * path below the table root, and carries an expiry and an HMAC of the
 * three under a key of UnicatSecretKeyFile, so that any node of a server
 * sharing that key file serves it, and nothing but that file, until then:
 *
 *     <files base>/<table id>/<key, each segment percent-encoded>
 *         ?exp=<unix seconds>&kid=<key id>&sig=<hex HMAC-SHA256>
 *
 * The files route (mod_unicat/uc_files.c) checks the URL, finds the
 * table's root and hands the bytes to httpd, which serves HEAD and Range
 * as for any static file. */
#ifndef UC_FILE_URL_H
#define UC_FILE_URL_H

#include <apr_pools.h>
#include <apr_time.h>

#include "../core/uc_error.h"

struct uc_secret_keys;
struct uc_store;

/* Signs the files of one table until one expiry (the URLs of one answer):
 * made once, with the key, the expiry and the table's prefix ready.
 * `files_base`: the absolute URL of the files route, without a trailing
 * '/'; `table_id`: the table's securable id; `expires`: seconds since the
 * epoch. Signed with the first key; without one a 400 FAILED_PRECONDITION
 * naming UnicatSecretKeyFile. Lives in `pool`; one thread at a time. */
typedef struct uc_file_url_signer uc_file_url_signer_t;
uc_error_t *uc_file_url_signer_make(apr_pool_t *pool,
                                    const struct uc_secret_keys *keys,
                                    const char *files_base,
                                    const char *table_id, apr_int64_t expires,
                                    uc_file_url_signer_t **signer);

/* Whether the URLs the signer makes need no JSON escaping: its base is
 * plain ASCII without quotes or backslashes (keys are percent-encoded,
 * the rest is digits, hex and the query's own characters). */
int uc_file_url_signer_plain(const uc_file_url_signer_t *signer);

/* The signed URL of object `key` (`key_len` bytes, relative to the table
 * root, decoded, as a Delta log names a file:
 * "date=2021-01-01/part-1.parquet") and its length, from `pool`. A key
 * that could leave the root (absolute, "." or ".." or empty segments) is
 * a 400. */
uc_error_t *uc_file_url_sign(uc_file_url_signer_t *signer, apr_pool_t *pool,
                             const char *key, apr_size_t key_len,
                             const char **url, apr_size_t *url_len);

/* Checks a request of the files route: `path` is the request's path after
 * the route's mount, as sent (still percent-encoded), `args` its query
 * string. The table id and the decoded key on success. 403
 * PERMISSION_DENIED for a signature that is not this server's (any key of
 * the file) or an expired URL, 404 for a path that names no file. The
 * signature is compared in constant time. */
uc_error_t *uc_file_url_verify(apr_pool_t *pool,
                               const struct uc_secret_keys *keys,
                               const char *path, const char *args,
                               apr_time_t now, const char **table_id,
                               const char **key);

/* The local path of `key` in the table at `location` (file:///dir), with
 * every symbolic link resolved: 404 unless it is a regular file inside
 * the table's root (a link that leads out of it names nothing). */
uc_error_t *uc_file_url_resolve(apr_pool_t *pool, const char *location,
                                const char *key, const char **path);

/* The local path of `key` in the table `table_id` (a table still) as
 * uc_file_url_resolve gives it; the same 404 when the id names no table. */
uc_error_t *uc_file_url_path(struct uc_store *store, apr_pool_t *pool,
                             const char *table_id, const char *key,
                             const char **path);

#endif
