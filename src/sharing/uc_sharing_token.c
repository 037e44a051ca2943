/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_sharing_token.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_bytes.h"
#include "../core/uc_secret.h"

#define TOKEN_PURPOSE "sharing-token"
#define TOKEN_MAX 2048
#define PARTS 4

/* What the HMAC covers: the scope and the token's first three parts as
 * written, each preceded by its length, so that no two scopes or states
 * run into the same text. */
static const char *signed_text(apr_pool_t *pool,
                               const uc_sharing_token_scope_t *scope,
                               const char *state, const char *expires,
                               const char *kid)
{
    const char *field[] = { scope->kind, scope->route, scope->recipient,
                            scope->share, scope->object, scope->params,
                            state, expires, kid };
    const char *text = "";
    size_t i;

    for (i = 0; i < sizeof(field) / sizeof(field[0]); i++)
        text = apr_psprintf(pool, "%s%" APR_SIZE_T_FMT ":%s", text,
                            strlen(field[i] ? field[i] : ""),
                            field[i] ? field[i] : "");
    return text;
}

uc_error_t *uc_sharing_token_ready(apr_pool_t *pool,
                                   const uc_secret_keys_t *keys,
                                   const char *kind)
{
    if (keys && keys->n)
        return NULL;
    return uc_error_make(pool, UC_E_FAILED_PRECONDITION, "The sharing "
                         "server signs its %ss: its administrator must set "
                         "UnicatSecretKeyFile.", kind);
}

uc_error_t *uc_sharing_token_make(apr_pool_t *pool,
                                  const uc_secret_keys_t *keys,
                                  const uc_sharing_token_scope_t *scope,
                                  const char *state, apr_int64_t expires,
                                  const char **token)
{
    const char *encoded, *at, *text, *mac;
    uc_error_t *err;

    *token = NULL;
    if ((err = uc_sharing_token_ready(pool, keys, scope->kind)))
        return err;
    encoded = uc_base64url_encode(pool, (const unsigned char *)state,
                                  strlen(state));
    at = apr_psprintf(pool, "%" APR_INT64_T_FMT, expires);
    text = signed_text(pool, scope, encoded, at, keys->keys[0].id);
    if (!(mac = uc_secret_keyed_hash(pool, &keys->keys[0], TOKEN_PURPOSE,
                                     text, strlen(text))))
        return uc_error_because(pool, uc_error_internal(pool),
                                "HMAC-SHA256 failed");
    *token = apr_pstrcat(pool, encoded, ".", at, ".", keys->keys[0].id, ".",
                         mac, NULL);
    return NULL;
}

/* The token's '.'-separated parts; 0 unless there are exactly PARTS, only
 * the first of which (an empty state) may be empty. */
static int split(apr_pool_t *pool, const char *token, char *part[PARTS])
{
    char *p = apr_pstrdup(pool, token);
    int n;

    for (n = 0; n < PARTS; n++) {
        char *dot = strchr(p, '.');

        part[n] = p;
        if (dot)
            *dot = '\0';
        if ((n && !*p) || (dot == NULL) != (n == PARTS - 1))
            return 0;
        if (dot)
            p = dot + 1;
    }
    return 1;
}

static uc_error_t *not_ours(apr_pool_t *pool,
                            const uc_sharing_token_scope_t *scope)
{
    return uc_error_invalid(pool, "Invalid %s: pass the one the previous "
                            "answer gave, unchanged, with the same request.",
                            scope->kind);
}

uc_error_t *uc_sharing_token_read(apr_pool_t *pool,
                                  const uc_secret_keys_t *keys,
                                  const uc_sharing_token_scope_t *scope,
                                  const char *token, apr_int64_t now,
                                  const char **state)
{
    char *part[PARTS], *end;
    const char *text;
    unsigned char *plain;
    apr_int64_t expires;
    apr_size_t n;

    *state = NULL;
    if (strlen(token) > TOKEN_MAX || !split(pool, token, part))
        return not_ours(pool, scope);
    text = signed_text(pool, scope, part[0], part[1], part[2]);
    /* Only what passes the HMAC was written here: what the parts say is
     * read after it. */
    if (!uc_secret_keyed_hash_matches(pool, keys, part[2], TOKEN_PURPOSE,
                                      text, strlen(text), part[3]) ||
        uc_base64url_decode(pool, part[0], &plain, &n) ||
        n != strlen((const char *)plain))
        return not_ours(pool, scope);
    expires = apr_strtoi64(part[1], &end, 10);
    if (*end || expires <= now)
        return uc_error_invalid(pool, "The %s has expired. Please restart "
                                "the query.", scope->kind);
    *state = (const char *)plain;
    return NULL;
}
