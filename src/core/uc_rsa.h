/* SPDX-License-Identifier: Apache-2.0 */
/* RSA-SHA256 signatures (RSASSA-PKCS1-v1_5, RFC 8017 §8.2) with a service
 * account's private key: what Google's V4 signed URLs and the JWTs of its
 * token endpoint are signed with. */
#ifndef UC_RSA_H
#define UC_RSA_H

#include <apr_pools.h>

#include "uc_error.h"

/* Signs `len` bytes of `data` with the RSA key in `pem` (PKCS#8 "BEGIN
 * PRIVATE KEY" or PKCS#1 "BEGIN RSA PRIVATE KEY", unencrypted): the
 * signature in *sig (from `pool`), *sig_len bytes. A key that is not an
 * RSA key in PEM form is a 400 that never quotes the key. */
uc_error_t *uc_rsa_sha256_sign(apr_pool_t *pool, const char *pem,
                               const void *data, apr_size_t len,
                               unsigned char **sig, apr_size_t *sig_len);

#endif
