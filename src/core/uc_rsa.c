/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_rsa.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

/* An encrypted key is refused rather than have OpenSSL ask the terminal
 * for its passphrase. */
static int no_passphrase(char *buf, int size, int rwflag, void *baton)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)baton;
    return -1;
}

static EVP_PKEY *read_rsa_key(const char *pem)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, no_passphrase,
                                                  NULL)
                        : NULL;

    BIO_free(bio);
    if (key && EVP_PKEY_base_id(key) != EVP_PKEY_RSA) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    return key;
}

uc_error_t *uc_rsa_sha256_sign(apr_pool_t *pool, const char *pem,
                               const void *data, apr_size_t len,
                               unsigned char **sig, apr_size_t *sig_len)
{
    EVP_PKEY *key = pem ? read_rsa_key(pem) : NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char *out = NULL;
    size_t n = 0;
    int ok;

    ok = key && md
         && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) == 1
         && EVP_DigestSign(md, NULL, &n, data, len) == 1
         && (out = apr_palloc(pool, n)) != NULL
         && EVP_DigestSign(md, out, &n, data, len) == 1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    if (!ok) {
        /* The queue would otherwise be read by this thread's next
         * OpenSSL caller as its own failure. */
        ERR_clear_error();
        return uc_error_invalid(pool, "The service account's private key is "
                                "not an RSA key in PEM form.");
    }
    *sig = out;
    *sig_len = n;
    return NULL;
}
