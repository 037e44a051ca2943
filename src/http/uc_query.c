/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_query.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
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

uc_error_t *uc_query_object(apr_pool_t *pool, const apr_table_t *query,
                            json_t **out)
{
    const apr_array_header_t *all = apr_table_elts(query);
    const apr_table_entry_t *e = (const apr_table_entry_t *)all->elts;
    int i;

    *out = uc_json_own(pool, json_object());
    for (i = 0; i < all->nelts; i++) {
        json_t *value = json_string(e[i].val);

        if (!value)
            return uc_error_invalid(pool, "Query parameter '%s' is not "
                                    "UTF-8 text.", e[i].key);
        json_object_set_new(*out, e[i].key, value);
    }
    return NULL;
}
