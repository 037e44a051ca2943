/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_recipient_tokens.h"

#include <string.h>
#include <apr_strings.h>

#define READ_COLUMN(c) t->c = r[UC_RECIPIENT_TOKEN_COL_##c];
#define WRITE_COLUMN(c) args[UC_RECIPIENT_TOKEN_COL_##c] = t->c;

static uc_recipient_token_t *from_row(apr_pool_t *pool, const char **r)
{
    uc_recipient_token_t *t = apr_palloc(pool, sizeof(*t));

    UC_RECIPIENT_TOKEN_COLUMNS(READ_COLUMN, READ_COLUMN, )
    return t;
}

uc_error_t *uc_recipient_token_insert(uc_store_t *store,
                                      const uc_recipient_token_t *t)
{
    const char *args[UC_RECIPIENT_TOKEN_NCOLS];

    UC_RECIPIENT_TOKEN_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    if (!t->kind)
        args[UC_RECIPIENT_TOKEN_COL_kind] = UC_TOKEN_KIND_BEARER;
    return uc_store_exec(store, UC_STMT_RECIPIENT_TOKEN_INSERT, args, NULL);
}

uc_error_t *uc_recipient_tokens_of(uc_store_t *store, apr_pool_t *pool,
                                   const char *recipient_id,
                                   apr_array_header_t **out)
{
    const char *args[] = { recipient_id };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_RECIPIENT_TOKENS_OF, args,
                                      &rows);
    if (err)
        return err;
    *out = apr_array_make(pool, rows.nrows + 1,
                          sizeof(uc_recipient_token_t *));
    for (i = 0; i < rows.nrows; i++)
        APR_ARRAY_PUSH(*out, uc_recipient_token_t *) =
            from_row(pool, rows.rows[i]);
    return NULL;
}

uc_error_t *uc_recipient_tokens_in_range(uc_store_t *store, apr_pool_t *pool,
                                         const char *parent_id,
                                         const char *first, const char *last,
                                         apr_hash_t **out)
{
    const char *args[] = { parent_id, first, last };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_RECIPIENT_TOKENS_IN_RANGE, args,
                                      &rows);
    if (err)
        return err;
    *out = apr_hash_make(pool);
    for (i = 0; i < rows.nrows; i++) {
        uc_recipient_token_t *t = from_row(pool, rows.rows[i]);
        apr_array_header_t *of = apr_hash_get(*out, t->recipient_id,
                                              APR_HASH_KEY_STRING);
        if (!of) {
            of = apr_array_make(pool, 2, sizeof(uc_recipient_token_t *));
            apr_hash_set(*out, t->recipient_id, APR_HASH_KEY_STRING, of);
        }
        APR_ARRAY_PUSH(of, uc_recipient_token_t *) = t;
    }
    return NULL;
}

/* The row of `stmt` (key id, hash) whose hash of `secret` under one of
 * the keys matches; *out NULL when none does. */
static uc_error_t *find_by_hash(uc_store_t *store, apr_pool_t *pool,
                                uc_stmt_t stmt, const uc_secret_keys_t *keys,
                                const char *purpose, const char *secret,
                                uc_recipient_token_t **out)
{
    int i;

    *out = NULL;
    for (i = 0; keys && i < keys->n && !*out; i++) {
        const uc_secret_key_t *key = &keys->keys[i];
        const char *hash = uc_secret_keyed_hash(pool, key, purpose, secret,
                                                strlen(secret));
        const char *args[] = { key->id, hash };
        uc_rows_t rows;
        uc_error_t *err;

        if (!hash)
            return uc_error_because(pool, uc_error_internal(pool),
                                    "HMAC-SHA256 failed");
        if ((err = uc_store_select(store, pool, stmt, args, &rows)))
            return err;
        if (rows.nrows)
            *out = from_row(pool, rows.rows[0]);
    }
    return NULL;
}

uc_error_t *uc_recipient_token_by_activation(uc_store_t *store,
                                             apr_pool_t *pool,
                                             const uc_secret_keys_t *keys,
                                             const char *nonce,
                                             uc_recipient_token_t **out)
{
    return find_by_hash(store, pool, UC_STMT_RECIPIENT_TOKEN_BY_ACTIVATION,
                        keys, UC_ACTIVATION_HASH_PURPOSE, nonce, out);
}

uc_error_t *uc_recipient_token_activate(uc_store_t *store, const char *id,
                                        const char *now_ms, int *done)
{
    const char *args[] = { now_ms, id };
    int n = 0;
    uc_error_t *err = uc_store_exec(store, UC_STMT_RECIPIENT_TOKEN_ACTIVATE,
                                    args, &n);

    *done = n == 1;
    return err;
}

/* Whether `secret` is the one row `t` keeps the keyed hash of, and `t`
 * lives at `now`. The index found the row; the hash itself is compared in
 * constant time, so that nothing about a near miss shows in the timing. */
static int holds_secret(apr_pool_t *pool, const uc_secret_keys_t *keys,
                        const uc_recipient_token_t *t, const char *secret,
                        apr_time_t now)
{
    const uc_secret_key_t *key = NULL;
    const char *hash;
    int i;

    for (i = 0; i < keys->n; i++)
        if (!strcmp(keys->keys[i].id, t->key_id))
            key = &keys->keys[i];
    if (!key)
        return 0;
    hash = uc_secret_keyed_hash(pool, key, UC_TOKEN_HASH_PURPOSE, secret,
                                strlen(secret));
    if (!hash || !uc_secret_equal(hash, strlen(hash), t->token_hash,
                                  strlen(t->token_hash)))
        return 0;
    return !t->expires_at ||
           apr_atoi64(t->expires_at) > (apr_int64_t)apr_time_as_msec(now);
}

uc_error_t *uc_recipient_token_lookup(uc_store_t *store, apr_pool_t *pool,
                                      const uc_secret_keys_t *keys,
                                      const char *token, apr_time_t now,
                                      const char **recipient_id)
{
    uc_recipient_token_t *t;
    uc_error_t *err = find_by_hash(store, pool,
                                   UC_STMT_RECIPIENT_TOKEN_BY_HASH, keys,
                                   UC_TOKEN_HASH_PURPOSE, token, &t);

    *recipient_id = NULL;
    if (!err && t && holds_secret(pool, keys, t, token, now))
        *recipient_id = t->recipient_id;
    return err;
}

uc_error_t *uc_recipient_client_check(uc_store_t *store, apr_pool_t *pool,
                                      const uc_secret_keys_t *keys,
                                      const char *client_id,
                                      const char *secret, apr_time_t now,
                                      uc_recipient_token_t **out)
{
    const char *args[] = { client_id };
    uc_rows_t rows;
    uc_recipient_token_t *t;
    uc_error_t *err;

    *out = NULL;
    if (!keys || !keys->n)
        return NULL;
    if ((err = uc_store_select(store, pool, UC_STMT_RECIPIENT_CLIENT_BY_ID,
                               args, &rows)) || !rows.nrows)
        return err;
    t = from_row(pool, rows.rows[0]);
    if (holds_secret(pool, keys, t, secret, now))
        *out = t;
    return NULL;
}

uc_error_t *uc_recipient_access_purge(uc_store_t *store,
                                      const char *recipient_id,
                                      const char *now_ms)
{
    const char *args[] = { recipient_id, now_ms };

    return uc_store_exec(store, UC_STMT_RECIPIENT_ACCESS_PURGE, args, NULL);
}

uc_error_t *uc_recipient_tokens_expire(uc_store_t *store,
                                       const char *recipient_id,
                                       const char *at_ms, const char *now_ms,
                                       const char *by)
{
    const char *args[] = { at_ms, now_ms, by, recipient_id, at_ms };

    return uc_store_exec(store, UC_STMT_RECIPIENT_TOKENS_EXPIRE, args, NULL);
}

uc_error_t *uc_recipient_token_set_expiry(uc_store_t *store, const char *id,
                                          const char *at_ms,
                                          const char *now_ms, const char *by)
{
    const char *args[] = { at_ms, now_ms, by, id };

    return uc_store_exec(store, UC_STMT_RECIPIENT_TOKEN_SET_EXPIRY, args,
                         NULL);
}
