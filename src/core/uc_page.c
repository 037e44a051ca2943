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
