/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_refresh_token.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_secret.h"

#define REFRESH_TOKEN_PURPOSE "refresh-token"
#define PARTS 5

/* What the HMAC covers: the first four parts of the token as written. */
static const char *signed_text(apr_pool_t *pool, const char *table_id,
                               const char *version, const char *expires,
                               const char *kid)
{
    return apr_pstrcat(pool, table_id, ".", version, ".", expires, ".", kid,
                       NULL);
}

uc_error_t *uc_refresh_token_make(apr_pool_t *pool,
                                  const struct uc_secret_keys *keys,
                                  const char *table_id, apr_int64_t version,
                                  apr_int64_t expires, const char **token)
{
    const char *text, *sig;

    if (!keys || !keys->n)
        return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "Refresh "
                             "tokens are signed by this server: its "
                             "administrator must set UnicatSecretKeyFile.");
    text = signed_text(pool, table_id,
                       apr_psprintf(pool, "%" APR_INT64_T_FMT, version),
                       apr_psprintf(pool, "%" APR_INT64_T_FMT, expires),
                       keys->keys[0].id);
    if (!(sig = uc_secret_keyed_hash(pool, &keys->keys[0],
                                     REFRESH_TOKEN_PURPOSE, text,
                                     strlen(text))))
        return uc_error_because(pool, uc_error_internal(pool),
                                "HMAC-SHA256 failed");
    *token = apr_pstrcat(pool, text, ".", sig, NULL);
    return NULL;
}

/* The token's '.'-separated parts; 0 unless there are exactly PARTS,
 * none of them empty. */
static int split(apr_pool_t *pool, const char *token, char *part[PARTS])
{
    char *p = apr_pstrdup(pool, token);
    int n;

    for (n = 0; n < PARTS; n++) {
        char *dot = strchr(p, '.');

        part[n] = p;
        if (dot)
            *dot = '\0';
        if (!*p || (dot == NULL) != (n == PARTS - 1))
            return 0;
        if (dot)
            p = dot + 1;
    }
    return 1;
}

uc_error_t *uc_refresh_token_read(apr_pool_t *pool,
                                  const struct uc_secret_keys *keys,
                                  const char *token, const char *table_id,
                                  apr_int64_t now, apr_int64_t *version)
{
    char *part[PARTS];
    const char *text;

    if (!split(pool, token, part))
        return uc_error_invalid(pool, "Error decoding refresh token.");
    text = signed_text(pool, part[0], part[1], part[2], part[3]);
    /* Only what passes the HMAC was written here, numbers included. */
    if (!uc_secret_keyed_hash_matches(pool, keys, part[3],
                                      REFRESH_TOKEN_PURPOSE, text,
                                      strlen(text), part[4]))
        return uc_error_invalid(pool, "Error decoding refresh token: it is "
                                "not one this server issued.");
    if (strcmp(part[0], table_id) != 0)
        return uc_error_invalid(pool, "The table specified in the refresh "
                                "token does not match the table being "
                                "queried.");
    if (apr_atoi64(part[2]) <= now)
        return uc_error_invalid(pool, "The refresh token has expired. "
                                "Please restart the query.");
    *version = apr_atoi64(part[1]);
    return NULL;
}
