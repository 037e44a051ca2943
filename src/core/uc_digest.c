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
