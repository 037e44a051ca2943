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
 * A grant opens every file under a volume's or an agent skill's root
 * (Open Sharing's assets, whose recipients read all of them): the same
 * parameters, with scope=prefix, signed for the asset and the expiry alone
 * (a purpose of its own keeps the two kinds of signature apart), so that
 * the query of one grant goes after the path of any of the asset's files:
 *
 *     <files base>/<asset id>/<key>?exp=<..>&kid=<..>&scope=prefix&sig=<..>
 *
 * and after a directory's path ending in '/' (the root's: <asset id>/)
 * asks for the JSON listing of that directory (uc_file_list.h).
 *
 * The files route (mod_unicat/uc_files.c) checks the URL, finds the
 * securable's root and hands the bytes to httpd, which serves HEAD and
 * Range as for any static file. */
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

/* The URLs of two keys at once, as two calls of uc_file_url_sign would
 * make them, their signatures computed side by side
 * (uc_secret_hasher_hash2); the first refusal of either key is the
 * error. */
uc_error_t *uc_file_url_sign2(uc_file_url_signer_t *signer, apr_pool_t *pool,
                              const char *const key[2],
                              const apr_size_t key_len[2],
                              const char *url[2], apr_size_t url_len[2]);

/* The grant of the asset `asset_id` until `expires`: the URL of its root
 * (`files_base`/<asset id>/) and the query string that opens it, without
 * its '?'. The errors of uc_file_url_signer_make. */
uc_error_t *uc_file_grant_make(apr_pool_t *pool,
                               const struct uc_secret_keys *keys,
                               const char *files_base, const char *asset_id,
                               apr_int64_t expires, const char **root_url,
                               const char **query);

/* What a request of the files route names once its signature holds. */
typedef struct uc_file_target {
    const char *id;         /* the table's or the asset's securable id */
    const char *key;        /* the decoded key below its root; "" for the
                             * root itself */
    apr_int64_t expires;    /* the URL's expiry, seconds since the epoch */
    int grant;              /* signed by a grant: a volume's or a skill's */
    int listing;            /* a grant's directory ('/' at the end) */
} uc_file_target_t;

/* Checks a request of the files route: `path` is the request's path after
 * the route's mount, as sent (still percent-encoded), `args` its query
 * string. 403 PERMISSION_DENIED for a signature that is not this server's
 * (any key of the file) or an expired URL, 404 for a path that names no
 * file. The signature is compared in constant time. */
uc_error_t *uc_file_url_verify(apr_pool_t *pool,
                               const struct uc_secret_keys *keys,
                               const char *path, const char *args,
                               apr_time_t now, uc_file_target_t *target);

/* The local path of `key` in the table at `location` (file:///dir), with
 * every symbolic link resolved: 404 unless it is a regular file inside
 * the table's root (a link that leads out of it names nothing), or with
 * `directory` a directory inside it or the root itself (key ""). The
 * root's own resolved path in `root` (NULL: not wanted). */
uc_error_t *uc_file_url_resolve(apr_pool_t *pool, const char *location,
                                const char *key, int directory,
                                const char **path, const char **root);

/* The local path of what `target` names as uc_file_url_resolve gives it
 * (a directory for a listing): in a table (a table still) for a file's
 * URL, in a volume or an agent skill for a grant; the same 404 when the
 * id names no such securable. */
uc_error_t *uc_file_url_path(struct uc_store *store, apr_pool_t *pool,
                             const uc_file_target_t *target,
                             const char **path, const char **root);

#endif
