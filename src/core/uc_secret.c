/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_secret.h"
#include "uc_digest.h"

/* For SHA256_Init: see start_pad. */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <string.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "uc_bytes.h"
#include "uc_percent.h"
#include "uc_sha256.h"

#define NONCE_BYTES 12
#define TAG_BYTES 16
#define PREFIX "v1:"
/* A secret larger than this is not a credential: refused, not sealed. */
#define MAX_SECRET (64 * 1024)

void uc_secret_wipe(void *p, apr_size_t len)
{
    if (p && len)
        OPENSSL_cleanse(p, len);
}

int uc_secret_equal(const void *a, apr_size_t alen, const void *b,
                    apr_size_t blen)
{
    return alen == blen && CRYPTO_memcmp(a, b, alen) == 0;
}

uc_error_t *uc_secret_key_parse(apr_pool_t *pool, const char *name,
                                const char *text, apr_size_t len,
                                uc_secret_key_t *out)
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    apr_size_t i = 0, n = 0;

    while (len && strchr(" \t\r\n", text[len - 1]))
        len--;
    while (i < len && strchr(" \t\r\n", text[i]))
        i++;
    for (; i + 1 < len && n < UC_SECRET_KEY_BYTES; i += 2) {
        int hi = uc_hex_digit(text[i]);
        int lo = uc_hex_digit(text[i + 1]);
        if (hi < 0 || lo < 0)
            break;
        out->key[n++] = (unsigned char)(hi << 4 | lo);
    }
    if (n != UC_SECRET_KEY_BYTES || i != len) {
        uc_secret_wipe(out->key, sizeof(out->key));
        return uc_error_invalid(pool, "%s does not hold a key: it must hold "
                                "64 hex digits (openssl rand -hex 32).",
                                name);
    }
    uc_digest_sha256(out->key, sizeof(out->key), digest);
    uc_hex_encode(digest, 4, out->id);
    return NULL;
}

uc_error_t *uc_secret_key_read(apr_pool_t *pool, const char *path,
                               uc_secret_key_t *out)
{
    char text[256];
    apr_file_t *file;
    apr_finfo_t info;
    apr_size_t len = sizeof(text);
    apr_status_t rv;
    uc_error_t *err;

    if ((rv = apr_file_open(&file, path, APR_FOPEN_READ, APR_OS_DEFAULT,
                            pool)) != APR_SUCCESS)
        return uc_error_because(pool, uc_error_invalid(pool, "Cannot read the "
                                "key file %s.", path), "apr_file_open: %d",
                                rv);
    if (apr_file_info_get(&info, APR_FINFO_PROT | APR_FINFO_SIZE, file)
        != APR_SUCCESS || info.size >= (apr_off_t)sizeof(text)) {
        apr_file_close(file);
        return uc_error_invalid(pool, "%s does not hold a key: it must hold "
                                "64 hex digits (openssl rand -hex 32).",
                                path);
    }
    if (info.protection & (APR_GREAD | APR_GWRITE | APR_WREAD | APR_WWRITE)) {
        apr_file_close(file);
        return uc_error_invalid(pool, "The key file %s may be read or written "
                                "by others than its owner; make it 0600 or "
                                "0400.", path);
    }
    rv = apr_file_read_full(file, text, (apr_size_t)info.size, &len);
    apr_file_close(file);
    if (rv != APR_SUCCESS && rv != APR_EOF)
        len = 0;
    err = uc_secret_key_parse(pool, path, text, len, out);
    uc_secret_wipe(text, sizeof(text));
    return err;
}

uc_error_t *uc_secret_keys_add(apr_pool_t *pool, uc_secret_keys_t *keys,
                               const uc_secret_key_t *key)
{
    uc_secret_key_t *grown;
    int i;

    for (i = 0; i < keys->n; i++)
        if (!strcmp(keys->keys[i].id, key->id))
            return uc_error_invalid(pool, "The key %s is given twice.",
                                    key->id);
    grown = apr_palloc(pool, sizeof(*grown) * (apr_size_t)(keys->n + 1));
    if (keys->n)
        memcpy(grown, keys->keys, sizeof(*grown) * (apr_size_t)keys->n);
    grown[keys->n] = *key;
    keys->keys = grown;
    keys->n++;
    return NULL;
}

typedef struct wiped {
    void *p;
    apr_size_t len;
} wiped_t;

static apr_status_t wipe_on_cleanup(void *data)
{
    wiped_t *o = data;

    uc_secret_wipe(o->p, o->len);
    return APR_SUCCESS;
}

void uc_secret_wipe_with_pool(apr_pool_t *pool, void *p, apr_size_t len)
{
    wiped_t *o = apr_palloc(pool, sizeof(*o));

    o->p = p;
    o->len = len;
    apr_pool_cleanup_register(pool, o, wipe_on_cleanup,
                              apr_pool_cleanup_null);
}

/* One AES-256-GCM pass; returns 1 when the tag verified (or was made). */
static int gcm(int encrypt, const unsigned char *key,
               const unsigned char *nonce, const char *aad,
               const unsigned char *in, int len, unsigned char *out,
               unsigned char *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, ok;

    ok = ctx
         && EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL,
                              encrypt)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, NONCE_BYTES,
                                NULL)
         && EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, encrypt)
         && EVP_CipherUpdate(ctx, NULL, &n, (const unsigned char *)aad,
                             (int)strlen(aad))
         && EVP_CipherUpdate(ctx, out, &n, in, len)
         && (encrypt || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG,
                                            TAG_BYTES, tag))
         && EVP_CipherFinal_ex(ctx, out + n, &n)
         && (!encrypt || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG,
                                             TAG_BYTES, tag));
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

uc_error_t *uc_secret_seal(apr_pool_t *pool, const uc_secret_keys_t *keys,
                           const char *aad, const void *secret,
                           apr_size_t len, const char **sealed)
{
    apr_size_t total = NONCE_BYTES + len + TAG_BYTES;
    unsigned char *box;

    if (!keys || !keys->n)
        return uc_error_invalid(pool, "The server has no key to store "
                                "secrets with: its administrator must set "
                                "UnicatSecretKeyFile.");
    if (len > MAX_SECRET)
        return uc_error_invalid(pool, "A secret may hold at most %d bytes.",
                                MAX_SECRET);
    box = apr_palloc(pool, total);
    if (RAND_bytes(box, NONCE_BYTES) != 1 ||
        !gcm(1, keys->keys[0].key, box, aad, secret, (int)len,
             box + NONCE_BYTES, box + NONCE_BYTES + len))
        return uc_error_because(pool, uc_error_internal(pool),
                                "AES-256-GCM sealing failed");
    *sealed = apr_pstrcat(pool, PREFIX, keys->keys[0].id, ":",
                          uc_base64_encode(pool, box, total), NULL);
    return NULL;
}

static uc_error_t *unopenable(apr_pool_t *pool, const char *why)
{
    return uc_error_because(pool, uc_error_internal(pool),
                            "a stored secret cannot be opened: %s", why);
}

uc_error_t *uc_secret_open(apr_pool_t *pool, const uc_secret_keys_t *keys,
                           const char *aad, const char *sealed,
                           char **secret, apr_size_t *len)
{
    const uc_secret_key_t *key = NULL;
    unsigned char *box;
    apr_size_t total;
    int i;

    if (!sealed || strncmp(sealed, PREFIX, sizeof(PREFIX) - 1) != 0
        || strlen(sealed) < sizeof(PREFIX) + 9
        || sealed[sizeof(PREFIX) - 1 + 8] != ':')
        return unopenable(pool, "it is not in the sealed form");
    for (i = 0; keys && i < keys->n; i++)
        if (!strncmp(keys->keys[i].id, sealed + sizeof(PREFIX) - 1, 8))
            key = &keys->keys[i];
    if (!key)
        return unopenable(pool, apr_psprintf(pool, "it was sealed with key "
                                             "%.8s, which UnicatSecretKeyFile "
                                             "does not name",
                                             sealed + sizeof(PREFIX) - 1));
    if (uc_base64_decode(pool, sealed + sizeof(PREFIX) + 8, &box, &total))
        return unopenable(pool, "it is not base64");
    if (total < NONCE_BYTES + TAG_BYTES)
        return unopenable(pool, "it is cut short");
    *len = total - NONCE_BYTES - TAG_BYTES;
    *secret = apr_palloc(pool, *len + 1);
    if (!gcm(0, key->key, box, aad, box + NONCE_BYTES, (int)*len,
             (unsigned char *)*secret, box + NONCE_BYTES + *len)) {
        uc_secret_wipe(*secret, *len);
        *secret = NULL;
        return unopenable(pool, "it does not authenticate (changed, or "
                          "sealed for another row)");
    }
    (*secret)[*len] = '\0';
    uc_secret_wipe_with_pool(pool, *secret, *len);
    return NULL;
}

/* HMAC's inner and outer SHA-256 states, each already past its padded
 * key, run a block at a time (uc_sha256.h) and padded here. A state is
 * plain words copied by assignment, where copying an EVP digest context
 * takes a lock and an allocation; and finishing by hand spares
 * SHA256_Update's buffering and SHA256_Final's wipe of each state, which
 * together cost a file URL a third as much as its three compressions.
 * The copies a hash makes on the stack end as its digests, which are
 * what it hands out: nothing of the key is left there to wipe. */
struct uc_secret_hasher {
    uc_sha256_t inner, outer;
    unsigned char tail[UC_SHA256_BLOCK];  /* absorbed, short of a block */
    apr_size_t tail_len;
    apr_uint64_t taken;                   /* bytes of the inner message */
};

static apr_status_t wipe_hasher(void *data)
{
    uc_secret_wipe(data, sizeof(uc_secret_hasher_t));
    return APR_SUCCESS;
}

/* Runs `len` bytes of `p` through `s`, after the `*have` bytes already
 * in `block`; what is short of a block is left in `block`. */
static void take(uc_sha256_t *s, unsigned char block[UC_SHA256_BLOCK],
                 apr_size_t *have, const unsigned char *p, apr_size_t len)
{
    apr_size_t n;

    if (*have && *have + len >= UC_SHA256_BLOCK) {
        n = UC_SHA256_BLOCK - *have;
        memcpy(block + *have, p, n);
        uc_sha256_blocks(s, block, 1);
        *have = 0;
        p += n;
        len -= n;
    }
    if (!*have && len >= UC_SHA256_BLOCK) {
        n = len / UC_SHA256_BLOCK;
        uc_sha256_blocks(s, p, n);
        p += n * UC_SHA256_BLOCK;
        len -= n * UC_SHA256_BLOCK;
    }
    memcpy(block + *have, p, len);
    *have += len;
}

/* A state that has taken in `mac_key` XOR `pad`, from OpenSSL's initial
 * one. */
static int start_pad(uc_sha256_t *s, const unsigned char *mac_key,
                     unsigned char pad)
{
    unsigned char block[UC_SHA256_BLOCK];
    SHA256_CTX ctx;
    int i;

    if (!SHA256_Init(&ctx))
        return 0;
    memcpy(s->h, ctx.h, sizeof(s->h));
    memset(block, pad, sizeof(block));
    for (i = 0; i < SHA256_DIGEST_LENGTH; i++)
        block[i] ^= mac_key[i];
    uc_sha256_blocks(s, block, 1);
    uc_secret_wipe(block, sizeof(block));
    return 1;
}

uc_secret_hasher_t *uc_secret_hasher_make(apr_pool_t *pool,
                                          const uc_secret_key_t *key,
                                          const char *purpose)
{
    uc_secret_hasher_t *h = apr_pcalloc(pool, sizeof(*h));
    unsigned char mac_key[SHA256_DIGEST_LENGTH];
    int ok;

    apr_pool_cleanup_register(pool, h, wipe_hasher, apr_pool_cleanup_null);
    uc_digest_hmac_sha256(key->key, UC_SECRET_KEY_BYTES, purpose,
                          strlen(purpose), mac_key);
    ok = start_pad(&h->inner, mac_key, 0x36) &&
         start_pad(&h->outer, mac_key, 0x5c);
    uc_secret_wipe(mac_key, sizeof(mac_key));
    h->taken = UC_SHA256_BLOCK;
    return ok ? h : NULL;
}

/* The outer message of a MAC whose inner state `inner` has ended: its
 * digest and the padding of a message of a block and a digest, which is
 * always the same (0x80, then the 768 bits big-endian at the end), in
 * `block` (one block). */
static void outer_block(const uc_sha256_t *inner,
                        unsigned char block[UC_SHA256_BLOCK])
{
    static const unsigned char padding[UC_SHA256_BLOCK
                                       - SHA256_DIGEST_LENGTH] = {
        0x80, [UC_SHA256_BLOCK - SHA256_DIGEST_LENGTH - 2] = 0x03
    };

    uc_sha256_digest(inner, block);
    memcpy(block + SHA256_DIGEST_LENGTH, padding, sizeof(padding));
}

static void hex_of(const uc_sha256_t *s, char *hex)
{
    unsigned char mac[SHA256_DIGEST_LENGTH];

    uc_sha256_digest(s, mac);
    uc_hex_encode(mac, sizeof(mac), hex);
}

void uc_secret_hasher_hash(uc_secret_hasher_t *h, const void *data,
                           apr_size_t len, char *hex)
{
    unsigned char block[2 * UC_SHA256_BLOCK];
    uc_sha256_t s = h->inner;
    apr_size_t have = h->tail_len;

    memcpy(block, h->tail, have);
    take(&s, block, &have, data, len);
    uc_sha256_blocks(&s, block, uc_sha256_pad(block, have, h->taken + len));
    outer_block(&s, block);
    s = h->outer;
    uc_sha256_blocks(&s, block, 1);
    hex_of(&s, hex);
}

/* The inner message of a pair's, from what was absorbed short of a block
 * to its padding, when it fits `PAIR_BLOCKS` blocks at `out`: how many
 * blocks it takes, 0 when it does not fit. */
#define PAIR_BLOCKS 8

static apr_size_t inner_rest(const uc_secret_hasher_t *h, const void *data,
                             apr_size_t len, unsigned char *out)
{
    apr_size_t have = h->tail_len + len;

    if (have + 9 > PAIR_BLOCKS * UC_SHA256_BLOCK)
        return 0;
    memcpy(out, h->tail, h->tail_len);
    memcpy(out + h->tail_len, data, len);
    return have / UC_SHA256_BLOCK + uc_sha256_pad(
        out + have / UC_SHA256_BLOCK * UC_SHA256_BLOCK,
        have % UC_SHA256_BLOCK, h->taken + len);
}

void uc_secret_hasher_hash2(uc_secret_hasher_t *h, const void *const data[2],
                            const apr_size_t len[2], char *const hex[2])
{
    unsigned char a[PAIR_BLOCKS * UC_SHA256_BLOCK];
    unsigned char b[PAIR_BLOCKS * UC_SHA256_BLOCK];
    apr_size_t na = inner_rest(h, data[0], len[0], a);
    apr_size_t nb = na ? inner_rest(h, data[1], len[1], b) : 0;
    uc_sha256_t sa = h->inner, sb = h->inner;

    if (!nb) {
        uc_secret_hasher_hash(h, data[0], len[0], hex[0]);
        uc_secret_hasher_hash(h, data[1], len[1], hex[1]);
        return;
    }
    uc_sha256_blocks2(&sa, a, na, &sb, b, nb);
    outer_block(&sa, a);
    outer_block(&sb, b);
    sa = sb = h->outer;
    uc_sha256_blocks2(&sa, a, 1, &sb, b, 1);
    hex_of(&sa, hex[0]);
    hex_of(&sb, hex[1]);
}

void uc_secret_hasher_absorb(uc_secret_hasher_t *h, const void *data,
                             apr_size_t len)
{
    take(&h->inner, h->tail, &h->tail_len, data, len);
    h->taken += len;
}

const char *uc_secret_keyed_hash(apr_pool_t *pool,
                                 const uc_secret_key_t *key,
                                 const char *purpose, const void *data,
                                 apr_size_t len)
{
    uc_secret_hasher_t *h = uc_secret_hasher_make(pool, key, purpose);
    char *hex = apr_palloc(pool, UC_SECRET_HASH_HEX + 1);

    if (!h)
        return NULL;
    uc_secret_hasher_hash(h, data, len, hex);
    apr_pool_cleanup_run(pool, h, wipe_hasher);
    return hex;
}

const uc_secret_key_t *uc_secret_key_named(const uc_secret_keys_t *keys,
                                           const char *id)
{
    int i;

    for (i = 0; keys && id && i < keys->n; i++)
        if (!strcmp(keys->keys[i].id, id))
            return &keys->keys[i];
    return NULL;
}

int uc_secret_keyed_hash_matches(apr_pool_t *pool,
                                 const uc_secret_keys_t *keys,
                                 const char *key_id, const char *purpose,
                                 const void *data, apr_size_t len,
                                 const char *hex)
{
    const uc_secret_key_t *key = uc_secret_key_named(keys, key_id);
    const char *expected = key ? uc_secret_keyed_hash(pool, key, purpose,
                                                      data, len) : NULL;

    return expected && hex && uc_secret_equal(expected, strlen(expected),
                                              hex, strlen(hex));
}

char *uc_secret_random_token(apr_pool_t *pool, apr_size_t n)
{
    unsigned char *bytes = apr_palloc(pool, n);
    char *token = NULL;

    if (RAND_bytes(bytes, (int)n) == 1)
        token = uc_base64url_encode(pool, bytes, n);
    uc_secret_wipe(bytes, n);
    return token;
}
