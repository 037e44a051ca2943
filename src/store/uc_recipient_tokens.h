/* SPDX-License-Identifier: Apache-2.0 */
/* The bearer tokens of Delta Sharing recipients: rows of their own, a
 * keyed hash of each token (core/uc_secret.h), its one-time activation
 * link, and its expiry. The sharing server finds a recipient by its
 * token here (uc_recipient_token_lookup). */
#ifndef UC_RECIPIENT_TOKENS_H
#define UC_RECIPIENT_TOKENS_H

#include <apr_hash.h>
#include <apr_tables.h>

#include "uc_store.h"
#include "../core/uc_secret.h"

/* What the keyed hashes are of: a MAC key of its own for each. */
#define UC_TOKEN_HASH_PURPOSE "token-hash"
#define UC_ACTIVATION_HASH_PURPOSE "activation-hash"

/* What a row holds (its kind): a bearer token handed over by its
 * activation link, the client secret of an OAuth recipient (handed over
 * the same way, good only at the token endpoint), or an access token that
 * endpoint issued. Bearer and access tokens open the sharing server. */
#define UC_TOKEN_KIND_BEARER "bearer"
#define UC_TOKEN_KIND_CLIENT "client"
#define UC_TOKEN_KIND_ACCESS "access"

/* The property of a recipient that holds its IP access list
 * (core/uc_ip_list.h): where the sharing server takes its calls from. */
#define UC_RECIPIENT_IP_ACCESS_LIST "ip_access_list"

/* A row, every column as text (NULL for SQL NULL); times in epoch ms. */
typedef struct uc_recipient_token {
    const char *id;
    const char *recipient_id;
    const char *key_id;            /* the key both hashes were made with */
    const char *token_hash;
    const char *activation_hash;   /* NULL once activated */
    const char *activation_sealed; /* the link's nonce, NULL once used */
    const char *token_sealed;      /* the token, NULL once handed over */
    const char *activated_at;
    const char *expires_at;        /* NULL: never */
    const char *created_at;
    const char *created_by;
    const char *updated_at;
    const char *updated_by;
    const char *kind;              /* UC_TOKEN_KIND_*; NULL inserts bearer */
} uc_recipient_token_t;

uc_error_t *uc_recipient_token_insert(uc_store_t *store,
                                      const uc_recipient_token_t *t);

/* The recipient's bearer tokens and client secrets, oldest first (access
 * tokens are not listed) (uc_recipient_token_t *). */
uc_error_t *uc_recipient_tokens_of(uc_store_t *store, apr_pool_t *pool,
                                   const char *recipient_id,
                                   apr_array_header_t **out);

/* The same for every recipient under `parent_id` whose name lies in
 * [first, last] (a page of a list), in one read: recipient id -> array,
 * recipients without tokens absent. */
uc_error_t *uc_recipient_tokens_in_range(uc_store_t *store, apr_pool_t *pool,
                                         const char *parent_id,
                                         const char *first, const char *last,
                                         apr_hash_t **out);

/* The token whose activation link carries `nonce`, under any of the keys;
 * *out NULL when none (unknown, or used). In a transaction the row stays
 * locked until it ends. */
uc_error_t *uc_recipient_token_by_activation(uc_store_t *store,
                                             apr_pool_t *pool,
                                             const uc_secret_keys_t *keys,
                                             const char *nonce,
                                             uc_recipient_token_t **out);

/* Uses up the activation link of token `id` at `now_ms`, wiping the link
 * and the sealed token; *done is 0 when it was used already. */
uc_error_t *uc_recipient_token_activate(uc_store_t *store, const char *id,
                                        const char *now_ms, int *done);

/* The recipient whose bearer token `token` is, if the token has not
 * expired at `now`: the keyed hash under each key (the key file may have
 * rotated since the token was made), compared in constant time.
 * *recipient_id is NULL for an unknown or expired token. */
uc_error_t *uc_recipient_token_lookup(uc_store_t *store, apr_pool_t *pool,
                                      const uc_secret_keys_t *keys,
                                      const char *token, apr_time_t now,
                                      const char **recipient_id);

/* The client secret row `client_id` if `secret` is its secret (keyed
 * hash compared in constant time) and it has not expired at `now`; *out
 * NULL otherwise, whatever the reason. */
uc_error_t *uc_recipient_client_check(uc_store_t *store, apr_pool_t *pool,
                                      const uc_secret_keys_t *keys,
                                      const char *client_id,
                                      const char *secret, apr_time_t now,
                                      uc_recipient_token_t **out);

/* Removes the recipient's access tokens expired at `now_ms`. */
uc_error_t *uc_recipient_access_purge(uc_store_t *store,
                                      const char *recipient_id,
                                      const char *now_ms);

/* The recipient's tokens that would live past `at_ms` expire then
 * (rotation), stamped as updated at `now_ms` by `by`. */
uc_error_t *uc_recipient_tokens_expire(uc_store_t *store,
                                       const char *recipient_id,
                                       const char *at_ms, const char *now_ms,
                                       const char *by);

/* Token `id` expires at `at_ms` (NULL: never). */
uc_error_t *uc_recipient_token_set_expiry(uc_store_t *store, const char *id,
                                          const char *at_ms,
                                          const char *now_ms, const char *by);

#endif
