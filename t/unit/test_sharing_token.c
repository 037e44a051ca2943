/* SPDX-License-Identifier: Apache-2.0 */
/* The sharing server's continuation tokens: a token gives its state back
 * in the scope it was made for, under any key of a rotated key file, until
 * it expires; moved to any other scope (recipient, share, object, route,
 * parameters, kind), changed anywhere, cut, made under a foreign key or
 * of no shape at all, it is the same 400, which names nothing of why. */
#include "uc_test.h"

#include "../../src/sharing/uc_sharing_token.h"

#define KEY_A "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define KEY_B "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
#define NOW 1700000000

static const uc_sharing_token_scope_t SCOPE = {
    "page token", "query-files", "recipient-1", "share-1", "table-1",
    "{\"version\":null}"
};

static const char *make(apr_pool_t *pool, const uc_secret_keys_t *keys,
                        const uc_sharing_token_scope_t *scope,
                        const char *state)
{
    const char *token = NULL;

    assert_ok(uc_sharing_token_make(pool, keys, scope, state,
                                    NOW + UC_SHARING_PAGE_TOKEN_SECONDS,
                                    &token));
    return token;
}

static const char *read_back(apr_pool_t *pool, const uc_secret_keys_t *keys,
                             const uc_sharing_token_scope_t *scope,
                             const char *token, apr_int64_t now)
{
    const char *state = NULL;

    assert_ok(uc_sharing_token_read(pool, keys, scope, token, now, &state));
    return state;
}

/* The state comes back, any bytes of it, also once the key file has a
 * newer first key; the token is the documented four parts. */
static void test_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *old = uc_test_keys(pool, KEY_A, NULL);
    uc_secret_keys_t *rotated = uc_test_keys(pool, KEY_B, KEY_A);
    const char *states[] = { "7:300", "", "a.b|c%2F/+?&=\xc3\xa9" };
    size_t i;

    for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
        const char *token = make(pool, old, &SCOPE, states[i]);

        assert_string_equal(read_back(pool, old, &SCOPE, token, NOW),
                            states[i]);
        assert_string_equal(read_back(pool, rotated, &SCOPE, token,
                                      NOW + UC_SHARING_PAGE_TOKEN_SECONDS
                                      - 1), states[i]);
        assert_int_equal(strspn(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
                                       "klmnopqrstuvwxyz0123456789-_."),
                         strlen(token));
    }
    assert_true(strstr(make(pool, old, &SCOPE, "7:300"),
                       apr_psprintf(pool, ".%d.%s.",
                                    NOW + UC_SHARING_PAGE_TOKEN_SECONDS,
                                    old->keys[0].id)) != NULL);
    assert_string_equal(read_back(pool, rotated, &SCOPE,
                                  make(pool, rotated, &SCOPE, "1:2"), NOW),
                        "1:2");
}

static void assert_refused(apr_pool_t *pool, const uc_secret_keys_t *keys,
                           const uc_sharing_token_scope_t *scope,
                           const char *token)
{
    const char *state = "untouched";
    uc_error_t *err = uc_sharing_token_read(pool, keys, scope, token, NOW,
                                            &state);

    assert_invalid(err);
    assert_string_equal(err->message, "Invalid page token: pass the one the "
                        "previous answer gave, unchanged, with the same "
                        "request.");
    assert_null(state);
}

/* Each member of the scope in turn made another. */
static void test_other_scopes(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, NULL);
    const char *token = make(pool, keys, &SCOPE, "7:300");
    size_t i;

    for (i = 0; i < 5; i++) {
        uc_sharing_token_scope_t other = SCOPE;
        const char **member[] = { &other.route, &other.recipient,
                                  &other.share, &other.object,
                                  &other.params };

        *member[i] = apr_pstrcat(pool, *member[i], "x", NULL);
        assert_refused(pool, keys, &other, token);
        *member[i] = "";
        assert_refused(pool, keys, &other, token);
    }
    /* Members that would run into each other without their lengths. */
    {
        uc_sharing_token_scope_t a = SCOPE, b = SCOPE;

        a.share = "share-1t";
        a.object = "able-1";
        b.share = "share-1";
        b.object = "table-1";
        assert_refused(pool, keys, &a, make(pool, keys, &b, "1:1"));
    }
    {
        uc_sharing_token_scope_t refresh = SCOPE;
        uc_error_t *err;
        const char *got;

        refresh.kind = "refresh token";
        err = uc_sharing_token_read(pool, keys, &refresh, token, NOW, &got);
        assert_invalid(err);
        assert_contains(err->message, "Invalid refresh token");
    }
}

/* A token whose character `at` is replaced by `c` (or the next one when
 * it is `c` already). */
static const char *changed(apr_pool_t *pool, const char *token,
                           apr_size_t at, char c)
{
    char *t = apr_pstrdup(pool, token);

    t[at] = t[at] == c ? (char)(c + 1) : c;
    return t;
}

static void test_changed_tokens(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, NULL);
    uc_secret_keys_t *foreign = uc_test_keys(pool, KEY_B, NULL);
    const char *token = make(pool, keys, &SCOPE, "7:300");
    const char *expiry = strchr(token, '.') + 1;
    const char *bad[] = {
        "", "x", "...", "a.b.c.d.e", apr_pstrcat(pool, token, ".", NULL),
        apr_pstrcat(pool, ".", token, NULL),
        apr_pstrcat(pool, "A", token, NULL),
        changed(pool, token, 0, 'Q'),
        changed(pool, token, (apr_size_t)(expiry - token), '9'),
        changed(pool, token, strlen(token) - 1, '0'),
        changed(pool, token, strlen(token) - 1, 'F'),
        apr_pstrndup(pool, token, strlen(token) - 1),
        apr_pstrndup(pool, token, (apr_size_t)(expiry - token)),
        apr_psprintf(pool, "%s%0*d", token, 2048, 0),
        /* The state of another token under this one's HMAC. */
        apr_pstrcat(pool, "MTo5", strchr(token, '.'), NULL),
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_refused(pool, keys, &SCOPE, bad[i]);
    assert_refused(pool, foreign, &SCOPE, token);
    assert_refused(pool, NULL, &SCOPE, token);
}

/* An expired token says so: only one the server made gets that far. */
static void test_expiry(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t *keys = uc_test_keys(pool, KEY_A, NULL);
    const char *token = make(pool, keys, &SCOPE, "7:300"), *got = NULL;
    uc_error_t *err = uc_sharing_token_read(
        pool, keys, &SCOPE, token, NOW + UC_SHARING_PAGE_TOKEN_SECONDS, &got);

    assert_invalid(err);
    assert_string_equal(err->message, "The page token has expired. Please "
                        "restart the query.");
    assert_null(got);
}

static void test_no_key(void **state)
{
    apr_pool_t *pool = *state;
    uc_secret_keys_t none = { 0, NULL };
    const char *token = "untouched";

    assert_err(uc_sharing_token_make(pool, &none, &SCOPE, "1", NOW, &token),
               400, "FAILED_PRECONDITION");
    assert_null(token);
    assert_err(uc_sharing_token_make(pool, NULL, &SCOPE, "1", NOW, &token),
               400, "FAILED_PRECONDITION");
    assert_err(uc_sharing_token_ready(pool, NULL, "page token"), 400,
               "FAILED_PRECONDITION");
    assert_ok(uc_sharing_token_ready(pool, uc_test_keys(pool, KEY_A, NULL),
                                     "page token"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_round_trip),
        UC_POOL_TEST(test_other_scopes),
        UC_POOL_TEST(test_changed_tokens),
        UC_POOL_TEST(test_expiry),
        UC_POOL_TEST(test_no_key),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("sharing_token", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
