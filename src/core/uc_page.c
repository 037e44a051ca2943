/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_page.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <apr_base64.h>
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
    apr_size_t len = strlen(token), i;
    char *std, *plain;
    int n;

    /* No base64 text is 4k+1 characters long: such a token was cut. */
    if (len > TOKEN_MAX || len % 4 == 1)
        return bad_token(pool);
    std = apr_palloc(pool, len + 4);
    for (i = 0; i < len; i++) {
        char c = token[i];
        if (c == '-') c = '+';
        else if (c == '_') c = '/';
        else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                   (c >= '0' && c <= '9')))
            return bad_token(pool);
        std[i] = c;
    }
    while (i % 4)
        std[i++] = '=';
    std[i] = '\0';
    plain = apr_palloc(pool, (apr_size_t)apr_base64_decode_len(std) + 1);
    n = apr_base64_decode(plain, std);
    if (n < 0)
        return bad_token(pool);
    plain[n] = '\0';
    if ((apr_size_t)n != strlen(plain) || strncmp(plain, TOKEN_TAG,
                                                  strlen(TOKEN_TAG)) != 0)
        return bad_token(pool);
    *after = plain + strlen(TOKEN_TAG);
    return NULL;
}

uc_error_t *uc_page_parse(apr_pool_t *pool, const char *max_results,
                          const char *page_token, uc_page_t *page)
{
    page->limit = UC_PAGE_DEFAULT;
    page->after = NULL;
    if (max_results && *max_results) {
        char *end;
        long long v;

        /* strtoll alone would also take blanks and a '+' sign. */
        if (!(max_results[0] == '-' || (max_results[0] >= '0' &&
                                        max_results[0] <= '9')))
            return uc_error_invalid(pool, "max_results must be an integer.");
        errno = 0;
        v = strtoll(max_results, &end, 10);
        if (*end || end == max_results)
            return uc_error_invalid(pool, "max_results must be an integer.");
        if (errno == ERANGE)
            v = v < 0 ? -1 : UC_PAGE_MAX;
        if (v < 0)
            return uc_error_invalid(pool, "max_results must be greater than "
                                    "or equal to 0.");
        if (v > UC_PAGE_MAX)
            v = UC_PAGE_MAX;
        if (v > 0)
            page->limit = (int)v;
    }
    if (page_token && *page_token)
        return decode_token(pool, page_token, &page->after);
    return NULL;
}
