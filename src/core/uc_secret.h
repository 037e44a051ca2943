/* SPDX-License-Identifier: Apache-2.0 */
/* Secrets at rest: what clients send that must never be read back (cloud
 * keys, recipient tokens) is stored sealed with AES-256-GCM under a key of
 * the administrator's. A sealed secret is text,
 *     v1:<key id>:<base64 of nonce (12) | ciphertext | tag (16)>
 * where the key id (8 hex digits of the key's SHA-256) says which key opens
 * it: keys rotate by adding a new first key and keeping the old ones until
 * every secret has been written again. The associated data (the row and
 * field a secret belongs to) is authenticated too, so a sealed secret
 * cannot be moved to another row. */
#ifndef UC_SECRET_H
#define UC_SECRET_H

#include <apr_pools.h>

#include "uc_error.h"

#define UC_SECRET_KEY_BYTES 32

typedef struct uc_secret_key {
    char id[9];                             /* 8 hex digits */
    unsigned char key[UC_SECRET_KEY_BYTES];
} uc_secret_key_t;

/* The keys, the first of which seals; all of them open. */
typedef struct uc_secret_keys {
    int n;
    uc_secret_key_t *keys;
} uc_secret_keys_t;

/* A key from the text of a key file: 64 hex digits, surrounding white space
 * allowed. `name` labels errors; the key never appears in one. */
uc_error_t *uc_secret_key_parse(apr_pool_t *pool, const char *name,
                                const char *text, apr_size_t len,
                                uc_secret_key_t *out);

/* Reads a key file; refused when others than its owner may read it. */
uc_error_t *uc_secret_key_read(apr_pool_t *pool, const char *path,
                               uc_secret_key_t *out);

/* Adds `key` to `keys` (allocated from `pool`); a second key with the same
 * id is refused. */
uc_error_t *uc_secret_keys_add(apr_pool_t *pool, uc_secret_keys_t *keys,
                               const uc_secret_key_t *key);

/* Seals `len` bytes bound to `aad` under the first key. Without a key it is
 * refused (400: the server never stores a secret in clear). */
uc_error_t *uc_secret_seal(apr_pool_t *pool, const uc_secret_keys_t *keys,
                           const char *aad, const void *secret,
                           apr_size_t len, const char **sealed);

/* Opens a sealed secret bound to `aad`. The plaintext (NUL-terminated) is
 * wiped when `pool` is cleared. A missing key, another key, a changed byte
 * or other associated data is an internal error whose cause says which,
 * never what the secret is. */
uc_error_t *uc_secret_open(apr_pool_t *pool, const uc_secret_keys_t *keys,
                           const char *aad, const char *sealed,
                           char **secret, apr_size_t *len);

/* Keyed hashes of tokens the server hands out (recipient bearer tokens,
 * activation links): what is stored instead of the token, so that a copy
 * of the database opens nothing. The hash is
 *     hex(HMAC-SHA256(HMAC-SHA256(key, purpose), data))
 * under one of the keys: a MAC key of its own per purpose, never the
 * sealing key itself. Stored with the key's id, so that a lookup after a
 * rotation of the key file hashes with the key the row was made under. */
#define UC_SECRET_HASH_HEX 64
const char *uc_secret_keyed_hash(apr_pool_t *pool,
                                 const uc_secret_key_t *key,
                                 const char *purpose, const void *data,
                                 apr_size_t len);

/* The key of `keys` whose id is `id` (NULL: none). */
const uc_secret_key_t *uc_secret_key_named(const uc_secret_keys_t *keys,
                                           const char *id);

/* Whether `hex` is the keyed hash of `data` for `purpose` under the key
 * of `keys` named `key_id`: what a signed token or URL the server handed
 * out carries. Compared in constant time; an unknown key id is a
 * mismatch. */
int uc_secret_keyed_hash_matches(apr_pool_t *pool,
                                 const uc_secret_keys_t *keys,
                                 const char *key_id, const char *purpose,
                                 const void *data, apr_size_t len,
                                 const char *hex);

/* The same hash set up once for many messages (the file URLs of one
 * answer): the key's purpose MAC key derived and its HMAC states kept, so
 * that each message costs its own SHA-256 blocks and one more, and no
 * algorithm lookup. NULL when OpenSSL fails. Wiped and freed with `pool`;
 * one thread at a time. */
typedef struct uc_secret_hasher uc_secret_hasher_t;
uc_secret_hasher_t *uc_secret_hasher_make(apr_pool_t *pool,
                                          const uc_secret_key_t *key,
                                          const char *purpose);
/* The hash of `data` into `hex` (UC_SECRET_HASH_HEX + 1 bytes). */
void uc_secret_hasher_hash(uc_secret_hasher_t *hasher, const void *data,
                           apr_size_t len, char *hex);
/* Two hashes, each as uc_secret_hasher_hash: `data[0]` into `hex[0]`,
 * `data[1]` into `hex[1]`, their SHA-256 blocks run side by side
 * (uc_sha256_blocks2): with the processor's SHA extensions, in about the
 * time of one. */
void uc_secret_hasher_hash2(uc_secret_hasher_t *hasher,
                            const void *const data[2],
                            const apr_size_t len[2], char *const hex[2]);
/* Makes every later message of the hasher start with `data` (what all of
 * them share): uc_secret_hasher_hash(h, m) is then the hash of data || m,
 * at the cost of m alone when `len` is a multiple of 64 (whole SHA-256
 * blocks). */
void uc_secret_hasher_absorb(uc_secret_hasher_t *hasher, const void *data,
                             apr_size_t len);

/* `n` random bytes from OpenSSL's CSPRNG as unpadded base64url (writable,
 * so that the caller can wipe it); NULL when the generator fails. */
char *uc_secret_random_token(apr_pool_t *pool, apr_size_t n);

/* Compares two secrets in time that depends on their lengths only. */
int uc_secret_equal(const void *a, apr_size_t alen, const void *b,
                    apr_size_t blen);

/* Overwrites memory that held a secret. */
void uc_secret_wipe(void *p, apr_size_t len);

/* Overwrites `len` bytes at `p` (pool memory holding a secret handed to
 * the caller) when `pool` is cleared or destroyed. */
void uc_secret_wipe_with_pool(apr_pool_t *pool, void *p, apr_size_t len);

#endif
