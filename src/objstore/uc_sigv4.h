/* SPDX-License-Identifier: Apache-2.0 */
/* AWS Signature Version 4 (docs.aws.amazon.com/IAM/latest/UserGuide/
 * reference_sigv.html): the string to sign of a canonical request and its
 * HMAC-SHA256 signature. Callers build the canonical request, which is
 * where services differ. */
#ifndef UC_SIGV4_H
#define UC_SIGV4_H

#include <apr_pools.h>

#define UC_SIGV4_ALGORITHM "AWS4-HMAC-SHA256"
/* A SHA-256 in lower-case hex, NUL-terminated. */
#define UC_SIGV4_HEX_SIZE 65

/* The SHA-256 of `len` bytes at `data`. */
void uc_sigv4_hash(const void *data, apr_size_t len,
                   char hex[UC_SIGV4_HEX_SIZE]);

/* The string to sign of `canonical_request` made at `amz_date`
 * (YYYYMMDDTHHMMSSZ) for `scope` (date/region/service/aws4_request). */
char *uc_sigv4_string_to_sign(apr_pool_t *pool, const char *amz_date,
                              const char *scope,
                              const char *canonical_request);

/* The signature of `string_to_sign` by `secret`, with the key of the scope
 * `date` (YYYYMMDD), `region` and `service`. What it derives from the
 * secret is wiped after use (`pool` lends it room). */
void uc_sigv4_sign(apr_pool_t *pool, const char *secret, const char *date,
                   const char *region, const char *service,
                   const char *string_to_sign, char hex[UC_SIGV4_HEX_SIZE]);

#endif
