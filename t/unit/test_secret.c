/* SPDX-License-Identifier: Apache-2.0 */
/* Secrets at rest: sealing round trips, the keys that open what, tampering,
 * rows that do not match, rotation, key files, and the comparisons. */
#include "uc_test.h"

#include <sys/stat.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "../../src/core/uc_bytes.h"
#include "../../src/core/uc_digest.h"
#include "../../src/core/uc_secret.h"

#define KEY_A "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define KEY_B "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

static void test_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, NULL);
    const char secret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const char *sealed, *again;
    char *opened;
    apr_size_t len;

    assert_ok(uc_secret_seal(pool, keys, "cred-1/secret_access_key", secret,
                             sizeof(secret) - 1, &sealed));
    assert_true(strncmp(sealed, "v1:", 3) == 0);
    assert_true(strncmp(sealed + 3, keys->keys[0].id, 8) == 0);
    assert_null(strstr(sealed, "wJalr"));
    assert_ok(uc_secret_open(pool, keys, "cred-1/secret_access_key", sealed,
                             &opened, &len));
    assert_int_equal(len, sizeof(secret) - 1);
    assert_string_equal(opened, secret);
    /* A fresh nonce every time: the same secret never seals the same. */
    assert_ok(uc_secret_seal(pool, keys, "cred-1/secret_access_key", secret,
                             sizeof(secret) - 1, &again));
    assert_string_not_equal(sealed, again);
    /* Empty and binary secrets too. */
    assert_ok(uc_secret_seal(pool, keys, "x", "", 0, &sealed));
    assert_ok(uc_secret_open(pool, keys, "x", sealed, &opened, &len));
    assert_int_equal(len, 0);
    assert_ok(uc_secret_seal(pool, keys, "x", "a\0b", 3, &sealed));
    assert_ok(uc_secret_open(pool, keys, "x", sealed, &opened, &len));
    assert_int_equal(len, 3);
    assert_memory_equal(opened, "a\0b", 3);
}

static void test_refusals(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *a = uc_test_keys(pool, KEY_A, NULL);
    uc_secret_keys_t *b = uc_test_keys(pool, KEY_B, NULL);
    uc_secret_keys_t none = { 0, NULL };
    const char *sealed;
    char *opened, *tampered;
    apr_size_t len, n;
    uc_error_t *err;

    err = uc_secret_seal(pool, &none, "r", "s", 1, &sealed);
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    assert_non_null(strstr(err->message, "UnicatSecretKeyFile"));
    assert_ok(uc_secret_seal(pool, a, "row-1/key", "top secret", 10,
                             &sealed));
    /* Another key set, another row, a changed byte, a cut: all refused,
     * and no error says what the secret is. */
    err = uc_secret_open(pool, b, "row-1/key", sealed, &opened, &len);
    assert_err(err, 500, "INTERNAL_ERROR");
    assert_non_null(strstr(err->cause, "does not name"));
    err = uc_secret_open(pool, a, "row-2/key", sealed, &opened, &len);
    assert_err(err, 500, "INTERNAL_ERROR");
    assert_non_null(strstr(err->cause, "authenticate"));
    tampered = apr_pstrdup(pool, sealed);
    n = strlen(tampered);
    tampered[n - 6] = tampered[n - 6] == 'A' ? 'B' : 'A';
    err = uc_secret_open(pool, a, "row-1/key", tampered, &opened, &len);
    assert_err(err, 500, "INTERNAL_ERROR");
    assert_null(strstr(err->cause, "top secret"));
    assert_null(strstr(err->message, "top secret"));
    err = uc_secret_open(pool, a, "row-1/key",
                         apr_pstrndup(pool, sealed, 20), &opened, &len);
    assert_err(err, 500, "INTERNAL_ERROR");
    err = uc_secret_open(pool, a, "row-1/key", "top secret", &opened, &len);
    assert_err(err, 500, "INTERNAL_ERROR");
}

/* A new first key seals; the old one still opens what it sealed; dropping
 * it leaves those secrets unopenable. */
static void test_rotation(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *old = uc_test_keys(pool, KEY_A, NULL);
    uc_secret_keys_t *rotated = uc_test_keys(pool, KEY_B, KEY_A);
    uc_secret_keys_t *only_new = uc_test_keys(pool, KEY_B, NULL);
    const char *before, *after;
    char *opened;
    apr_size_t len;

    assert_ok(uc_secret_seal(pool, old, "r", "one", 3, &before));
    assert_ok(uc_secret_seal(pool, rotated, "r", "two", 3, &after));
    assert_true(strncmp(after + 3, rotated->keys[0].id, 8) == 0);
    assert_ok(uc_secret_open(pool, rotated, "r", before, &opened, &len));
    assert_string_equal(opened, "one");
    assert_ok(uc_secret_open(pool, rotated, "r", after, &opened, &len));
    assert_string_equal(opened, "two");
    assert_ok(uc_secret_open(pool, only_new, "r", after, &opened, &len));
    assert_non_null(uc_secret_open(pool, only_new, "r", before, &opened,
                                   &len));
    assert_non_null(uc_secret_open(pool, old, "r", after, &opened, &len));
}

static void test_key_texts(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_key_t key, same;
    uc_secret_keys_t keys = { 0, NULL };
    uc_error_t *err;

    assert_ok(uc_secret_key_parse(pool, "k", "  " KEY_A "\n", 67, &key));
    assert_ok(uc_secret_key_parse(pool, "k", KEY_A, 64, &same));
    assert_string_equal(key.id, same.id);
    assert_int_equal(strlen(key.id), 8);
    err = uc_secret_key_parse(pool, "short.key", KEY_A, 62, &key);
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    assert_non_null(strstr(err->message, "short.key"));
    assert_null(strstr(err->message, "0011223344"));
    assert_non_null(uc_secret_key_parse(pool, "k", KEY_A "00", 66, &key));
    assert_non_null(uc_secret_key_parse(pool, "k",
                                        apr_pstrcat(pool, "zz", &KEY_A[2],
                                                    NULL), 64, &key));
    assert_ok(uc_secret_key_parse(pool, "k", KEY_A, 64, &key));
    assert_ok(uc_secret_keys_add(pool, &keys, &key));
    assert_non_null(uc_secret_keys_add(pool, &keys, &key));
}

static const char *key_file(apr_pool_t *pool, const char *text, int mode)
{
    char *path = apr_psprintf(pool, "%s/uc_secret_XXXXXX",
                              getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    assert_int_equal(chmod(path, (mode_t)mode), 0);
    return path;
}

static void test_key_files(void **state)
{
    apr_pool_t *pool = *state;
    const char *good = key_file(pool, KEY_A "\n", 0600);
    const char *open_to_group = key_file(pool, KEY_A "\n", 0640);
    const char *empty = key_file(pool, "", 0600);
    uc_secret_key_t key, parsed;
    uc_error_t *err;

    assert_ok(uc_secret_key_read(pool, good, &key));
    assert_ok(uc_secret_key_parse(pool, "k", KEY_A, 64, &parsed));
    assert_string_equal(key.id, parsed.id);
    err = uc_secret_key_read(pool, open_to_group, &key);
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    assert_non_null(strstr(err->message, "0600"));
    assert_non_null(uc_secret_key_read(pool, empty, &key));
    assert_non_null(uc_secret_key_read(pool, "/nonexistent/uc.key", &key));
    unlink(good);
    unlink(open_to_group);
    unlink(empty);
}

static void test_equal(void **state)
{
    (void)state;
    assert_true(uc_secret_equal("abc", 3, "abc", 3));
    assert_false(uc_secret_equal("abc", 3, "abd", 3));
    assert_false(uc_secret_equal("abc", 3, "abcd", 4));
    assert_true(uc_secret_equal("", 0, "", 0));
}

/* hex(HMAC-SHA256(HMAC-SHA256(key, purpose), data)), by OpenSSL's own
 * one-shot HMAC. */
static const char *nested_hmac(apr_pool_t *pool, const uc_secret_key_t *k,
                               const char *purpose, const char *data,
                               size_t len)
{
    unsigned char mac_key[32], mac[32];
    unsigned int n = 0;
    char *hex = apr_palloc(pool, 65);
    int i;

    assert_non_null(HMAC(EVP_sha256(), k->key, UC_SECRET_KEY_BYTES,
                         (const unsigned char *)purpose, strlen(purpose),
                         mac_key, &n));
    assert_non_null(HMAC(EVP_sha256(), mac_key, sizeof(mac_key),
                         (const unsigned char *)data, len, mac, &n));
    for (i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", mac[i]);
    return hex;
}

/* The keyed hash, one-shot and through a hasher used again and again,
 * is HMAC's, for messages shorter and longer than a block. */
static void test_keyed_hash(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, KEY_B);
    char long_text[300], hex[UC_SECRET_HASH_HEX + 1];
    const char *texts[] = { "", "abc", long_text, "abc" };
    uc_secret_hasher_t *h = uc_secret_hasher_make(pool, &keys->keys[1],
                                                  "purpose");
    size_t i;

    memset(long_text, 'x', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    assert_non_null(h);
    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        const char *want = nested_hmac(pool, &keys->keys[1], "purpose",
                                       texts[i], strlen(texts[i]));

        uc_secret_hasher_hash(h, texts[i], strlen(texts[i]), hex);
        assert_string_equal(hex, want);
        assert_string_equal(uc_secret_keyed_hash(pool, &keys->keys[1],
                                                 "purpose", texts[i],
                                                 strlen(texts[i])), want);
    }
    assert_string_not_equal(uc_secret_keyed_hash(pool, &keys->keys[0],
                                                 "purpose", "abc", 3),
                            uc_secret_keyed_hash(pool, &keys->keys[1],
                                                 "purpose", "abc", 3));
    assert_string_not_equal(uc_secret_keyed_hash(pool, &keys->keys[1],
                                                 "other", "abc", 3),
                            nested_hmac(pool, &keys->keys[1], "purpose",
                                        "abc", 3));
}

/* HMAC's hash of `pre` bytes of `text` and `len` from `at` on. */
static const char *prefixed_hmac(apr_pool_t *pool, const uc_secret_key_t *key,
                                 const char *text, size_t pre, size_t at,
                                 size_t len)
{
    char *message = apr_palloc(pool, pre + len);

    memcpy(message, text, pre);
    memcpy(message + pre, text + at, len);
    return nested_hmac(pool, key, "file-url", message, pre + len);
}

/* The hasher pads by hand: every message length from 0 to 200 (one, two
 * and four SHA-256 blocks, the padding on either side of a block's end),
 * after absorbed prefixes that end on a block and inside one, and one
 * absorbed in pieces, is HMAC's hash of prefix || message; and so is each
 * of two hashed at once, whatever their lengths: every pair of lengths
 * that add up to 200 (one ending blocks before the other), and messages
 * too long to be hashed side by side beside short ones. */
static void test_hasher_lengths(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, KEY_B);
    const uc_secret_key_t *key = &keys->keys[0];
    static const size_t prefixes[] = { 0, 1, 55, 56, 63, 64, 65, 128, 130 };
    static const size_t long_ones[][2] = { { 3, 600 }, { 600, 3 },
                                           { 503, 504 }, { 1000, 1000 } };
    char text[1200], a[UC_SECRET_HASH_HEX + 1], b[UC_SECRET_HASH_HEX + 1];
    char *const hex[2] = { a, b };
    size_t i, n, k;

    for (i = 0; i < sizeof(text); i++)
        text[i] = (char)('a' + (i * 7) % 26);
    for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
        size_t pre = prefixes[k];
        uc_secret_hasher_t *h = uc_secret_hasher_make(pool, key, "file-url");

        assert_non_null(h);
        /* In two pieces: a piece may end inside a block. */
        uc_secret_hasher_absorb(h, text, pre / 2);
        uc_secret_hasher_absorb(h, text + pre / 2, pre - pre / 2);
        for (n = 0; n <= 200 + 4; n++) {
            size_t len[2] = { n <= 200 ? n : long_ones[n - 201][0],
                              n <= 200 ? 200 - n : long_ones[n - 201][1] };
            const void *data[2] = { text + pre, text + pre + 7 };

            uc_secret_hasher_hash(h, text + pre, len[0], a);
            assert_string_equal(a, prefixed_hmac(pool, key, text, pre, pre,
                                                 len[0]));
            uc_secret_hasher_hash2(h, data, len, hex);
            assert_string_equal(a, prefixed_hmac(pool, key, text, pre, pre,
                                                 len[0]));
            assert_string_equal(b, prefixed_hmac(pool, key, text, pre,
                                                 pre + 7, len[1]));
        }
    }
}

/* A hash checks under the key its id names, any key of the file, and
 * under no other key, purpose, message or id. */
static void test_keyed_hash_matches(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, KEY_B);
    const uc_secret_key_t *b = &keys->keys[1];
    const char *hex = uc_secret_keyed_hash(pool, b, "purpose", "abc", 3);

    assert_ptr_equal(uc_secret_key_named(keys, b->id), b);
    assert_null(uc_secret_key_named(keys, "00000000"));
    assert_null(uc_secret_key_named(keys, NULL));
    assert_true(uc_secret_keyed_hash_matches(pool, keys, b->id, "purpose",
                                             "abc", 3, hex));
    assert_false(uc_secret_keyed_hash_matches(pool, keys, keys->keys[0].id,
                                              "purpose", "abc", 3, hex));
    assert_false(uc_secret_keyed_hash_matches(pool, keys, b->id, "other",
                                              "abc", 3, hex));
    assert_false(uc_secret_keyed_hash_matches(pool, keys, b->id, "purpose",
                                              "abd", 3, hex));
    assert_false(uc_secret_keyed_hash_matches(pool, keys, "00000000",
                                              "purpose", "abc", 3, hex));
    assert_false(uc_secret_keyed_hash_matches(pool, keys, b->id, "purpose",
                                              "abc", 3, NULL));
    assert_false(uc_secret_keyed_hash_matches(pool, keys, b->id, "purpose",
                                              "abc", 3,
                                              apr_pstrndup(pool, hex, 63)));
}

/* What was opened is wiped with the pool that holds it. */
static void test_opened_secret_is_wiped(void **state)
{
    apr_pool_t *pool = *state, *sub;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, NULL);
    const char *sealed;
    char *opened;
    apr_size_t len;

    assert_ok(uc_secret_seal(pool, keys, "r", "hunter2hunter2", 14,
                             &sealed));
    apr_pool_create(&sub, pool);
    assert_ok(uc_secret_open(sub, keys, "r", sealed, &opened, &len));
    assert_string_equal(opened, "hunter2hunter2");
    /* Cleared, not destroyed: the memory stays the pool's to look at. */
    apr_pool_clear(sub);
    assert_false(memcmp(opened, "hunter2hunter2", 14) == 0);
    apr_pool_destroy(sub);
}

/* HMAC-SHA256 against RFC 4231's test cases 1, 2 (a key shorter than
 * the digest), 6 (a key longer than a block) and a key of exactly one
 * block, which OpenSSL's own HMAC() computes too. */
static void test_hmac_sha256(void **state)
{
    static const struct {
        const char *key, *data, *mac;
        apr_size_t key_len;
    } cases[] = {
        { "\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b"
          "\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b", "Hi There",
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
          20 },
        { "Jefe", "what do ya want for nothing?",
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
          4 },
        { NULL, "Test Using Larger Than Block-Size Key - Hash Key First",
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
          131 },
    };
    unsigned char big[131], mac[UC_SHA256_BYTES], want[EVP_MAX_MD_SIZE];
    char hex[2 * UC_SHA256_BYTES + 1];
    unsigned int want_len = 0;
    size_t i;

    (void)state;
    memset(big, 0xaa, sizeof(big));
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const void *key = cases[i].key ? (const void *)cases[i].key : big;

        uc_digest_hmac_sha256(key, cases[i].key_len, cases[i].data,
                              strlen(cases[i].data), mac);
        uc_hex_encode(mac, sizeof(mac), hex);
        assert_string_equal(hex, cases[i].mac);
    }
    uc_digest_hmac_sha256(big, 64, "one block", 9, mac);
    HMAC(EVP_sha256(), big, 64, (const unsigned char *)"one block", 9, want,
         &want_len);
    assert_int_equal(want_len, UC_SHA256_BYTES);
    assert_memory_equal(mac, want, UC_SHA256_BYTES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_round_trip),
        UC_POOL_TEST(test_refusals),
        UC_POOL_TEST(test_rotation),
        UC_POOL_TEST(test_key_texts),
        UC_POOL_TEST(test_key_files),
        UC_POOL_TEST(test_equal),
        UC_POOL_TEST(test_keyed_hash),
        UC_POOL_TEST(test_hasher_lengths),
        UC_POOL_TEST(test_keyed_hash_matches),
        UC_POOL_TEST(test_opened_secret_is_wiped),
        UC_POOL_TEST(test_hmac_sha256),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("secret", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
