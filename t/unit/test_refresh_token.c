/* SPDX-License-Identifier: Apache-2.0 */
/* Refresh tokens of the query route: a token names the version it was
 * made for, under any key of a rotated key file, until it expires; one of
 * another table, a changed part, a foreign key or no shape at all is a
 * 400, and so is making one without a key. */
#include "uc_test.h"

#include "../../src/core/uc_secret.h"
#include "../../src/sharing/uc_refresh_token.h"

#define KEY_A "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define KEY_B "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
#define TABLE "0a1b2c3d-0000-4000-8000-00000000f11e"
#define OTHER "0a1b2c3d-0000-4000-8000-00000000f11f"
#define NOW 1700000000

static const char *make(apr_pool_t *pool, const uc_secret_keys_t *keys,
                        const char *table, apr_int64_t version)
{
    const char *token = NULL;

    assert_ok(uc_refresh_token_make(pool, keys, table, version,
                                    NOW + UC_REFRESH_TOKEN_SECONDS, &token));
    return token;
}

static uc_error_t *read_at(apr_pool_t *pool, const uc_secret_keys_t *keys,
                           const char *token, apr_int64_t now,
                           apr_int64_t *version)
{
    return uc_refresh_token_read(pool, keys, token, TABLE, now, version);
}

/* The version comes back, also once the key file has a newer first key;
 * the token is the documented five parts. */
static void test_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *old = uc_test_keys(pool, KEY_A, NULL);
    uc_secret_keys_t *rotated = uc_test_keys(pool, KEY_B, KEY_A);
    const char *token = make(pool, old, TABLE, 42);
    apr_int64_t version = -1;

    assert_ok(read_at(pool, old, token, NOW, &version));
    assert_int_equal(version, 42);
    version = -1;
    assert_ok(read_at(pool, rotated, token, NOW + 3599, &version));
    assert_int_equal(version, 42);
    assert_true(!strncmp(token, apr_psprintf(pool, TABLE ".42.%d.%s.",
                                             NOW + 3600, old->keys[0].id),
                         strlen(TABLE) + 24));
    assert_int_equal(strlen(strrchr(token, '.') + 1), UC_SECRET_HASH_HEX);
    assert_ok(read_at(pool, rotated, make(pool, rotated, TABLE, 0), NOW,
                      &version));
    assert_int_equal(version, 0);
}

/* A token whose character `at` (from the start) is replaced. */
static const char *changed(apr_pool_t *pool, const char *token,
                           apr_size_t at, char c)
{
    char *t = apr_pstrdup(pool, token);

    t[at] = t[at] == c ? (char)(c + 1) : c;
    return t;
}

static void test_refusals(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, NULL);
    uc_secret_keys_t *foreign = uc_test_keys(pool, KEY_B, NULL);
    const char *token = make(pool, keys, TABLE, 42);
    const char *version_at = strchr(token, '.') + 1;
    const char *bad[] = {
        "", "x", "....", "a.b.c.d.e.f", apr_pstrcat(pool, token, ".", NULL),
        apr_pstrcat(pool, ".", token, NULL),
        changed(pool, token, (apr_size_t)(version_at - token), '7'),
        changed(pool, token, strlen(token) - 1, '0'),
        apr_pstrndup(pool, token, strlen(token) - 1),
    };
    apr_int64_t version = -1;
    uc_error_t *err;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err = read_at(pool, keys, bad[i], NOW, &version);
        assert_invalid(err);
        assert_contains(err->message, "Error decoding refresh token");
    }
    assert_invalid(read_at(pool, foreign, token, NOW, &version));
    assert_invalid(read_at(pool, NULL, token, NOW, &version));
    err = read_at(pool, keys, make(pool, keys, OTHER, 42), NOW, &version);
    assert_invalid(err);
    assert_contains(err->message, "does not match the table");
    err = read_at(pool, keys, token, NOW + UC_REFRESH_TOKEN_SECONDS,
                  &version);
    assert_invalid(err);
    assert_contains(err->message, "expired");
    assert_int_equal(version, -1);
}

static void test_no_key(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t none = { 0, NULL };
    const char *token = NULL;

    assert_err(uc_refresh_token_make(pool, &none, TABLE, 1, NOW, &token),
               400, "FAILED_PRECONDITION");
    assert_err(uc_refresh_token_make(pool, NULL, TABLE, 1, NOW, &token),
               400, "FAILED_PRECONDITION");
    assert_null(token);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_round_trip),
        UC_POOL_TEST(test_refusals),
        UC_POOL_TEST(test_no_key),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("refresh_token", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
