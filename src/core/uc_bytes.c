/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_bytes.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <apr_lib.h>
#include <openssl/evp.h>

/* The two digits of every byte: ids and signatures of every line of a
 * long answer are encoded a byte at a time. */
#define PAIRS_ROW(h) h "0" h "1" h "2" h "3" h "4" h "5" h "6" h "7" \
                     h "8" h "9" h "a" h "b" h "c" h "d" h "e" h "f"
static const char pairs[] =
    PAIRS_ROW("0") PAIRS_ROW("1") PAIRS_ROW("2") PAIRS_ROW("3")
    PAIRS_ROW("4") PAIRS_ROW("5") PAIRS_ROW("6") PAIRS_ROW("7")
    PAIRS_ROW("8") PAIRS_ROW("9") PAIRS_ROW("a") PAIRS_ROW("b")
    PAIRS_ROW("c") PAIRS_ROW("d") PAIRS_ROW("e") PAIRS_ROW("f");

#ifdef __SSE2__
/* Nibbles 0-15 to their hex digits. */
static __m128i hex_digits(__m128i nibbles)
{
    __m128i letters = _mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9));

    return _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')),
                        _mm_and_si128(letters,
                                      _mm_set1_epi8('a' - '0' - 10)));
}

/* Sixteen bytes to their 32 digits at once: the signature and the id of
 * every file line are 48 bytes. */
static void hex_encode_16(const unsigned char *bytes, char *out)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)bytes);
    __m128i low = _mm_set1_epi8(0x0f);
    __m128i high_nibbles = _mm_and_si128(_mm_srli_epi16(v, 4), low);
    __m128i low_nibbles = _mm_and_si128(v, low);

    _mm_storeu_si128((__m128i *)(void *)out, hex_digits(
        _mm_unpacklo_epi8(high_nibbles, low_nibbles)));
    _mm_storeu_si128((__m128i *)(void *)(out + 16), hex_digits(
        _mm_unpackhi_epi8(high_nibbles, low_nibbles)));
}
#endif

void uc_hex_encode(const unsigned char *bytes, apr_size_t n, char *out)
{
    apr_size_t i = 0;

#ifdef __SSE2__
    for (; i + 16 <= n; i += 16)
        hex_encode_16(bytes + i, out + 2 * i);
#endif
    for (; i < n; i++)
        memcpy(out + 2 * i, pairs + 2 * bytes[i], 2);
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

int uc_base64url_decode(apr_pool_t *pool, const char *text,
                        unsigned char **out, apr_size_t *len)
{
    apr_size_t n = strlen(text), i;
    char *std;

    /* No base64 text is 4k+1 characters long. */
    if (n % 4 == 1)
        return -1;
    std = apr_palloc(pool, n + 3);
    for (i = 0; i < n; i++) {
        char c = text[i];

        if (c == '-')
            c = '+';
        else if (c == '_')
            c = '/';
        else if (!apr_isalnum(c))
            return -1;
        std[i] = c;
    }
    while (i % 4)
        std[i++] = '=';
    std[i] = '\0';
    return uc_base64_decode(pool, std, out, len);
}

int uc_is_hex(const char *s, apr_size_t n)
{
    apr_size_t i;

    for (i = 0; s && i < n; i++)
        if (!apr_isxdigit(s[i]))
            return 0;
    return s && s[n] == '\0';
}
