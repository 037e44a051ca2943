/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_percent.h"

#include <string.h>
#include <apr_strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

int uc_hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

long uc_hex4(const char *p)
{
    long v = 0;
    int i, d;

    for (i = 0; i < 4; i++) {
        if ((d = uc_hex_digit(p[i])) < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* RFC 3986's unreserved characters, as a table: encoding the paths of
 * every file URL of a long answer tests each byte. */
static const unsigned char unreserved[256] = {
    ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1, ['0' ... '9'] = 1,
    ['-'] = 1, ['.'] = 1, ['_'] = 1, ['~'] = 1,
};

int uc_is_unreserved(unsigned char c)
{
    return unreserved[c];
}

char *uc_percent_decode(apr_pool_t *pool, const char *s)
{
    char *out, *w;

    /* Most paths hold no escape: a copy is all they need. */
    if (!strchr(s, '%'))
        return apr_pstrdup(pool, s);
    out = w = apr_palloc(pool, strlen(s) + 1);

    for (; *s; s++) {
        int hi, lo;

        if (s[0] == '%' && (hi = uc_hex_digit(s[1])) >= 0 &&
            (lo = uc_hex_digit(s[2])) >= 0) {
            if (hi == 0 && lo == 0)
                return NULL;
            *w++ = (char)(hi * 16 + lo);
            s += 2;
        }
        else
            *w++ = *s;
    }
    *w = '\0';
    return out;
}

char *uc_percent_encode(apr_pool_t *pool, const char *s, apr_size_t len,
                        const char *keep)
{
    char *out = apr_palloc(pool, len * 3 + 1);

    *uc_percent_encode_into(out, s, len, keep) = '\0';
    return out;
}

#ifdef __SSE2__
/* Whether the sixteen bytes at `s` are all unreserved, as the names of a
 * table's files are: they are then copied at once. Letters are compared
 * folded to small ones; bytes from 0x80 are negative, so none matches. */
static int unreserved16(const char *s)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i letter = _mm_and_si128(
        _mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
        _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    __m128i mark = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('.'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('~'))));

    return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit),
                                          mark)) == 0xffff;
}
#endif

char *uc_percent_encode_into(char *out, const char *s, apr_size_t len,
                             const char *keep)
{
    static const char hex[] = "0123456789ABCDEF";
    char *o = out;
    apr_size_t i = 0;

    while (i < len) {
        apr_size_t stop = len - i > 16 ? i + 16 : len;

#ifdef __SSE2__
        if (len - i >= 16 && unreserved16(s + i)) {
            memcpy(o, s + i, 16);
            o += 16;
            i += 16;
            continue;
        }
#endif
        /* A block with a byte to encode goes a byte at a time. */
        for (; i < stop; i++) {
            unsigned char c = (unsigned char)s[i];

            if (unreserved[c] || (c && strchr(keep, c)))
                *o++ = (char)c;
            else {
                *o++ = '%';
                *o++ = hex[c >> 4];
                *o++ = hex[c & 15];
            }
        }
    }
    return o;
}
