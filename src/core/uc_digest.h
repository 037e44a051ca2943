/* SPDX-License-Identifier: Apache-2.0 */
/* One-shot MD5, SHA-256 and HMAC-SHA256 of a buffer, for digests taken
 * once per line of a long answer (the file ids and signed URLs of Delta
 * Sharing). */
#ifndef UC_DIGEST_H
#define UC_DIGEST_H

#include <apr.h>

#define UC_MD5_BYTES 16
#define UC_SHA256_BYTES 32

void uc_digest_md5(const void *data, apr_size_t len,
                   unsigned char out[UC_MD5_BYTES]);
void uc_digest_sha256(const void *data, apr_size_t len,
                      unsigned char out[UC_SHA256_BYTES]);
/* HMAC-SHA256 (RFC 2104) of `data` under `key`, the signers' primitive
 * (SigV4, Azure SAS), one per URL handed out or more. The copies of the
 * key it makes are wiped. */
void uc_digest_hmac_sha256(const void *key, apr_size_t key_len,
                           const void *data, apr_size_t len,
                           unsigned char out[UC_SHA256_BYTES]);

#endif
