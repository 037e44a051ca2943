/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary Cloudflare R2 credentials for vending: Cloudflare's
 * temp-access-credentials call, which derives S3 keys from a parent R2
 * access key, limited to one bucket, a key prefix and reading or writing
 * objects (how Unity Catalog scopes what it hands to clients). */
#ifndef UC_R2_H
#define UC_R2_H

#include <apr_pools.h>

#include "uc_sts.h"
#include "../core/uc_error.h"

typedef struct uc_r2_request {
    /* NULL: https://api.cloudflare.com/client/v4, or a stand-in's */
    const char *api_base;
    const char *account_id;      /* 32 hex digits */
    const char *api_token;       /* a secret */
    const char *parent_access_key_id;
    const char *bucket;
    const char *prefix;          /* "" for the whole bucket, else without
                                    leading '/' */
    int write;
    int ttl_s;                   /* 900..604800; 0: 3600 */
    long timeout_ms;             /* 0: uc_cloud_http's default */
    const char *ca_file;         /* NULL: system CAs */
} uc_r2_request_t;

/* POSTs {api_base}/accounts/{account_id}/r2/temp-access-credentials with
 * the API token as a bearer token, asking for "object-read-only" (or
 * "object-read-write" with `write`) on `bucket`, scoped to the prefix
 * "<prefix>/" (one trailing '/' whatever `prefix` ends with) unless it is
 * "". The secret and the session token in `out` are wiped when `pool` is
 * cleared; out->expires is now + the TTL asked for, as Cloudflare answers
 * with no expiry.
 * Errors: 400 (UC_E_INVALID) before any call for what Cloudflare would
 * refuse or what could change the call (an account id that is not 32 hex
 * digits, a bucket that is not 3-63 of a-z, 0-9 and '-' starting and
 * ending with a letter or digit, a prefix with control characters, not
 * UTF-8 or over 1024 bytes, a TTL out of range, a missing token or parent
 * key, an api_base that may not carry secrets); Cloudflare's refusals
 * through uc_cloud_refused with the code of its first error (never its
 * message); 502 for a success answer without the three credentials; 503
 * when Cloudflare cannot be reached or does not answer in time. */
uc_error_t *uc_r2_temp_credentials(apr_pool_t *pool,
                                   const uc_r2_request_t *req,
                                   uc_aws_session_t *out);

#endif
