/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_percent.h"

#include <string.h>
#include <apr_strings.h>

int uc_hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
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

char *uc_percent_encode_into(char *out, const char *s, apr_size_t len,
                             const char *keep)
{
    static const char hex[] = "0123456789ABCDEF";
    char *o = out;
    apr_size_t i;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (unreserved[c] || (c && strchr(keep, c)))
            *o++ = (char)c;
        else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    return o;
}
