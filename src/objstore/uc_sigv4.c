/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_sigv4.h"

#include <string.h>
#include <apr_strings.h>
#include <openssl/crypto.h>

#include "../core/uc_bytes.h"
#include "../core/uc_digest.h"

void uc_sigv4_hash(const void *data, apr_size_t len,
                   char hex[UC_SIGV4_HEX_SIZE])
{
    unsigned char digest[UC_SHA256_BYTES];

    uc_digest_sha256(data, len, digest);
    uc_hex_encode(digest, sizeof(digest), hex);
}

char *uc_sigv4_string_to_sign(apr_pool_t *pool, const char *amz_date,
                              const char *scope,
                              const char *canonical_request)
{
    char hash[UC_SIGV4_HEX_SIZE];

    uc_sigv4_hash(canonical_request, strlen(canonical_request), hash);
    return apr_pstrcat(pool, UC_SIGV4_ALGORITHM "\n", amz_date, "\n", scope,
                       "\n", hash, NULL);
}

/* key = HMAC-SHA256(key, text). */
static void chain(unsigned char key[UC_SHA256_BYTES], const char *text)
{
    unsigned char next[UC_SHA256_BYTES];

    uc_digest_hmac_sha256(key, UC_SHA256_BYTES, text, strlen(text), next);
    memcpy(key, next, sizeof(next));
    OPENSSL_cleanse(next, sizeof(next));
}

void uc_sigv4_sign(apr_pool_t *pool, const char *secret, const char *date,
                   const char *region, const char *service,
                   const char *string_to_sign, char hex[UC_SIGV4_HEX_SIZE])
{
    apr_size_t n = strlen(secret) + 4;
    char *first = apr_pstrcat(pool, "AWS4", secret, NULL);
    unsigned char key[UC_SHA256_BYTES];

    uc_digest_hmac_sha256(first, n, date, strlen(date), key);
    OPENSSL_cleanse(first, n);
    chain(key, region);
    chain(key, service);
    chain(key, "aws4_request");
    chain(key, string_to_sign);
    uc_hex_encode(key, sizeof(key), hex);
    OPENSSL_cleanse(key, sizeof(key));
}
