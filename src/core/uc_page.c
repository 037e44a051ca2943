/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_page.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "uc_bytes.h"

/* A version tag inside the token lets the format change without old tokens
 * being misread. */
#define TOKEN_TAG "k1:"
#define TOKEN_MAX 2048

/* URL-safe alphabet without padding, so tokens survive query strings. */
const char *uc_page_token(apr_pool_t *pool, const char *last_key)
{
    const char *plain = apr_pstrcat(pool, TOKEN_TAG, last_key, NULL);

    return uc_base64url_encode(pool, (const unsigned char *)plain,
                               strlen(plain));
}

static uc_error_t *bad_token(apr_pool_t *pool)
{
    return uc_error_invalid(pool, "Invalid page_token: pass the "
                            "next_page_token of the previous page unchanged.");
}

static uc_error_t *decode_token(apr_pool_t *pool, const char *token,
                                const char **after)
{
    unsigned char *plain;
    apr_size_t n;

    if (strlen(token) > TOKEN_MAX ||
        uc_base64url_decode(pool, token, &plain, &n) ||
        n != strlen((const char *)plain) ||
        strncmp((const char *)plain, TOKEN_TAG, strlen(TOKEN_TAG)) != 0)
        return bad_token(pool);
    *after = (const char *)plain + strlen(TOKEN_TAG);
    return NULL;
}

uc_error_t *uc_page_limit(apr_pool_t *pool, const char *name,
                          const char *text, int fallback, int max, int *out)
{
    char *end;
    long long v;

    *out = fallback;
    if (!text || !*text)
        return NULL;
    /* strtoll alone would also take blanks and a '+' sign. */
    if (!(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
        return uc_error_invalid(pool, "%s must be an integer.", name);
    errno = 0;
    v = strtoll(text, &end, 10);
    if (*end || end == text)
        return uc_error_invalid(pool, "%s must be an integer.", name);
    if (errno == ERANGE)
        v = v < 0 ? -1 : max;
    if (v < 0)
        return uc_error_invalid(pool, "%s must be greater than or equal "
                                "to 0.", name);
    if (v > max)
        v = max;
    if (v > 0)
        *out = (int)v;
    return NULL;
}

uc_error_t *uc_page_parse_sized(apr_pool_t *pool, const char *max_results,
                                const char *page_token, int fallback, int max,
                                uc_page_t *page)
{
    uc_error_t *err;

    page->after = NULL;
    if ((err = uc_page_limit(pool, "max_results", max_results, fallback, max,
                             &page->limit)))
        return err;
    if (page_token && *page_token)
        return decode_token(pool, page_token, &page->after);
    return NULL;
}

uc_error_t *uc_page_after_number(apr_pool_t *pool, const uc_page_t *page,
                                 apr_int64_t *out)
{
    const char *p = page->after;

    *out = -1;
    if (!p)
        return NULL;
    /* Eighteen digits at most: no overflow. */
    if (!*p || strlen(p) > 18 || strspn(p, "0123456789") != strlen(p))
        return bad_token(pool);
    *out = apr_atoi64(p);
    return NULL;
}

uc_error_t *uc_page_parse(apr_pool_t *pool, const char *max_results,
                          const char *page_token, uc_page_t *page)
{
    return uc_page_parse_sized(pool, max_results, page_token,
                               UC_PAGE_DEFAULT, UC_PAGE_MAX, page);
}
