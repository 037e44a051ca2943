/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_digest.h"

/* The low-level calls, deprecated in OpenSSL 3, compute in place.
 * EVP_Digest fetches the algorithm from the provider store under a read
 * lock and allocates a context on every call: on 100,000 lines that cost
 * more than the digests themselves, and the lock is shared by every thread
 * of the process. OpenSSL 3's one-shot SHA256() goes through that path
 * too (four times the cost of the context calls on a path), so SHA-256 is
 * computed with a context of its own. */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <string.h>
#include <openssl/crypto.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

void uc_digest_md5(const void *data, apr_size_t len,
                   unsigned char out[UC_MD5_BYTES])
{
    MD5(data, len, out);
}

void uc_digest_sha256(const void *data, apr_size_t len,
                      unsigned char out[UC_SHA256_BYTES])
{
    SHA256_CTX ctx;

    SHA256_Init(&ctx);
    SHA256_Update(&ctx, data, len);
    SHA256_Final(out, &ctx);
}

#define BLOCK 64

/* OpenSSL 3's HMAC() fetches its algorithm and allocates on each call
 * (about 1.9 us, ten times the hashing itself): the construction is
 * written out over the context calls instead. */
void uc_digest_hmac_sha256(const void *key, apr_size_t key_len,
                           const void *data, apr_size_t len,
                           unsigned char out[UC_SHA256_BYTES])
{
    unsigned char block[BLOCK], inner[UC_SHA256_BYTES];
    SHA256_CTX ctx;
    int i;

    memset(block, 0, sizeof(block));
    if (key_len > BLOCK)
        uc_digest_sha256(key, key_len, block);
    else
        memcpy(block, key, key_len);
    for (i = 0; i < BLOCK; i++)
        block[i] ^= 0x36;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, block, sizeof(block));
    SHA256_Update(&ctx, data, len);
    SHA256_Final(inner, &ctx);
    for (i = 0; i < BLOCK; i++)
        block[i] ^= 0x36 ^ 0x5c;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, block, sizeof(block));
    SHA256_Update(&ctx, inner, sizeof(inner));
    SHA256_Final(out, &ctx);
    OPENSSL_cleanse(block, sizeof(block));
    OPENSSL_cleanse(inner, sizeof(inner));
    OPENSSL_cleanse(&ctx, sizeof(ctx));
}
