/* SPDX-License-Identifier: Apache-2.0 */
/* Object stores holding Delta tables: a store is rooted at a table's
 * location (file:///dir or s3://bucket/prefix) and names objects by keys
 * relative to that root ("_delta_log/00000000000000000000.json"). The
 * location's URL scheme picks the provider that serves it
 * (uc_objstore_provider.h).
 *
 * A store is created per use from a pool; it keeps no global state, so it is
 * safe to use from several threads as long as each thread has its own store. */
#ifndef UC_OBJSTORE_H
#define UC_OBJSTORE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>

#include "../core/uc_error.h"

struct uc_azure_delegation_key;

/* Credentials and addressing for cloud locations. Every member may be
 * NULL or 0; file:// ignores them all. */
typedef struct uc_objstore_config {
    const char *region;             /* default us-east-1 */
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;      /* temporary credentials */
    const char *endpoint;           /* http(s)://host:port of an S3-compatible
                                       server; NULL = AWS */
    int path_style;                 /* bucket in the path, not the host */
    long timeout_ms;                /* per request; 0 = 30 s */
    const char *ca_file;            /* authorities of https stores; NULL:
                                       the system's */
    /* abfss:// and wasbs://: the storage account's blob endpoint,
     * "{account}" standing for its name (NULL: Azure's, https://{account}
     * .blob.core.windows.net), and what signs the SAS the store reads
     * with and hands out: the account key (base64), or a user delegation
     * key. With neither, the container is read anonymously. */
    const char *azure_blob_endpoint;
    const char *azure_account_key;
    const struct uc_azure_delegation_key *azure_delegation;
    /* gs://: Cloud Storage's endpoint (NULL: https://storage.googleapis
     * .com), the OAuth token the store reads with (NULL: anonymously),
     * and the service account whose key signs the V4 URLs it hands out
     * (without one it hands out none). */
    const char *gcs_endpoint;
    const char *gcs_token;
    const char *gcs_client_email;
    const char *gcs_private_key;
} uc_objstore_config_t;

/* One listed object. */
typedef struct uc_object {
    const char *name;               /* key relative to the listed directory */
    apr_int64_t size;
    apr_int64_t mtime_ms;           /* last modification, ms since the epoch */
} uc_object_t;

typedef struct uc_objstore uc_objstore_t;

/* Errors of every operation: UC_E_NOT_FOUND (no such object or table
 * location), UC_E_INVALID for a malformed location, UC_E_STORAGE when the
 * store answered something unusable, UC_E_UNAVAILABLE when it could not be
 * reached; UC_E_UNSUPPORTED_OPERATION when the location's store cannot do
 * what was asked (pre-sign a file:// object: the request is fine and so is
 * the server, retrying changes nothing). */

/* The longest a pre-signed URL may stay valid: SigV4's limit, 7 days. */
#define UC_OBJSTORE_MAX_PRESIGN_SECONDS 604800

/* Sets up what the providers need process-wide (libcurl for s3://). Call
 * it before any thread opens a store (the reader's set-up, uc_delta_init,
 * does); it is undone when `pool` is cleaned up. */
uc_error_t *uc_objstore_init(apr_pool_t *pool);

/* A copy of `config` that lives as long as `pool`, for work that outlives
 * the call that read it (a background read of a Delta log); its secrets
 * are wiped when `pool` goes. */
uc_objstore_config_t *uc_objstore_config_copy(apr_pool_t *pool,
                                              const uc_objstore_config_t *c);

/* Opens the store for `location`; the store lives as long as `pool`. A
 * scheme no provider serves is a 400 naming the schemes that are. */
uc_error_t *uc_objstore_open(apr_pool_t *pool, const char *location,
                             const uc_objstore_config_t *config,
                             uc_objstore_t **out);

/* The objects directly inside directory `dir` (a key prefix ending in '/',
 * "" for the root), whose names sort after `start_after` (NULL = all), in
 * ascending byte order of name. Subdirectories are not listed. Fills an
 * array of uc_object_t allocated from `pool`. A missing directory is an empty
 * listing, not an error. */
uc_error_t *uc_objstore_list(uc_objstore_t *store, apr_pool_t *pool,
                             const char *dir, const char *start_after,
                             apr_array_header_t **objects);

/* Reads `length` bytes of object `key` from `offset` (length < 0 = to the
 * end) into memory from `pool`; the buffer is NUL-terminated beyond *len so
 * text can be parsed in place. A read past the end returns what there is. */
uc_error_t *uc_objstore_read(uc_objstore_t *store, apr_pool_t *pool,
                             const char *key, apr_off_t offset,
                             apr_off_t length, char **data, apr_size_t *len);

/* The whole of object `key`, read-only, for binary formats: a mapping of
 * the file where the store has files (no copy, no NUL after it), else what
 * uc_objstore_read returns. It stays valid as long as `pool`. Delta never
 * rewrites a file in place, so a mapped object does not change under it. */
uc_error_t *uc_objstore_map(uc_objstore_t *store, apr_pool_t *pool,
                            const char *key, const char **data,
                            apr_size_t *len);

/* A URL that lets whoever holds it GET object `key`, without credentials of
 * their own, for `expires` seconds (1 to UC_OBJSTORE_MAX_PRESIGN_SECONDS)
 * from `now`: what a Delta Sharing server hands its recipients.
 * - s3://: the object's URL with a SigV4 query-string signature of a GET by
 *   the store's credentials (X-Amz-Algorithm, -Credential, -Date, -Expires,
 *   -SignedHeaders=host, -Security-Token with a session token,
 *   -Signature). A store without credentials reads a public bucket: its
 *   URL is the object's plain URL, as the store itself reads it.
 * - abfss:// and wasbs://: the blob's URL with a SAS (sr=b, sp=r) of
 *   the store's key, that reads this one blob and lists nothing; capped
 *   at the expiry of a user delegation key. Without a key, the plain URL.
 * - gs://: a V4 signed URL (GOOG4-RSA-SHA256, path style) of a GET of the
 *   object by the service account whose key the store holds, for at most
 *   7 days; without a key, 400 FAILED_PRECONDITION.
 * - file://: 400 UNSUPPORTED_OPERATION. Local files have no URL
 *   anyone else can fetch; such tables need a route of the server's own
 *   that checks a signature it made.
 * The URL is allocated from `pool`. Nothing is sent to the store. */
uc_error_t *uc_objstore_presign(uc_objstore_t *store, apr_pool_t *pool,
                                const char *key, apr_int64_t expires,
                                apr_time_t now, const char **url);

/* Whether a key stays below the store's root: not absolute, no "." or
 * ".." segment (keys come from the log: sidecar and checkpoint names). An
 * empty key is the root itself. */
int uc_objstore_key_is_safe(const char *key);

/* The location the store was opened at, normalised (no trailing '/'). */
const char *uc_objstore_location(const uc_objstore_t *store);

#endif
