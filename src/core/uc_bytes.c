/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_bytes.h"

#include <string.h>
#include <apr_lib.h>
#include <openssl/evp.h>

void uc_hex_encode(const unsigned char *bytes, apr_size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    apr_size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

char *uc_base64_encode(apr_pool_t *pool, const unsigned char *bytes,
                       apr_size_t n)
{
    char *out = apr_palloc(pool, 4 * ((n + 2) / 3) + 1);

    EVP_EncodeBlock((unsigned char *)out, bytes, (int)n);
    return out;
}

char *uc_base64url_encode(apr_pool_t *pool, const unsigned char *bytes,
                          apr_size_t n)
{
    char *out = uc_base64_encode(pool, bytes, n), *c;

    for (c = out; *c && *c != '='; c++) {
        if (*c == '+')
            *c = '-';
        else if (*c == '/')
            *c = '_';
    }
    *c = '\0';
    return out;
}

int uc_base64_decode(apr_pool_t *pool, const char *text,
                     unsigned char **out, apr_size_t *len)
{
    apr_size_t n = strlen(text);
    int decoded;

    if (n % 4)
        return -1;
    *out = apr_palloc(pool, n / 4 * 3 + 1);
    decoded = EVP_DecodeBlock(*out, (const unsigned char *)text, (int)n);
    if (decoded < 0)
        return -1;
    /* EVP counts the padding as bytes. */
    *len = (apr_size_t)decoded - (n && text[n - 1] == '=')
                               - (n > 1 && text[n - 2] == '=');
    (*out)[*len] = '\0';
    return 0;
}

int uc_is_hex(const char *s, apr_size_t n)
{
    apr_size_t i;

    for (i = 0; s && i < n; i++)
        if (!apr_isxdigit(s[i]))
            return 0;
    return s && s[n] == '\0';
}
