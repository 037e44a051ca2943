/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_query.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_percent.h"

/* Decodes %XX and '+' in place; fails on bad escapes and on %00. */
static int decode(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '+')
            *o++ = ' ';
        else if (*s == '%') {
            int hi = uc_hex_digit(s[1]), lo = hi < 0 ? -1 : uc_hex_digit(s[2]);
            if (lo < 0 || (hi == 0 && lo == 0))
                return 0;
            *o++ = (char)(hi * 16 + lo);
            s += 2;
        }
        else
            *o++ = *s;
    }
    *o = '\0';
    return 1;
}

uc_error_t *uc_query_parse(apr_pool_t *pool, const char *raw,
                           apr_table_t **out)
{
    apr_table_t *t = apr_table_make(pool, 8);
    char *copy, *pair, *state;
    int n = 0;

    *out = t;
    if (!raw || !*raw)
        return NULL;
    copy = apr_pstrdup(pool, raw);
    for (pair = apr_strtok(copy, "&", &state); pair;
         pair = apr_strtok(NULL, "&", &state)) {
        char *eq = strchr(pair, '=');
        char *value = "";

        if (++n > UC_QUERY_MAX_PARAMS)
            return uc_error_invalid(pool, "Too many query parameters.");
        if (eq) {
            *eq = '\0';
            value = eq + 1;
        }
        if (!decode(pair) || (*value && !decode(value)))
            return uc_error_invalid(pool, "Malformed percent-encoding in the "
                                    "query string.");
        apr_table_set(t, pair, value);
    }
    return NULL;
}
