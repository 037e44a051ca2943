/* SPDX-License-Identifier: Apache-2.0 */
/* Recipients' bearer tokens as the sharing server will find them: a token
 * handed over by its activation link leads to its recipient through
 * uc_recipient_token_lookup until it expires (a rotation's grace, an
 * expiration_time), under every key of a rotated key file, and never for
 * a wrong or altered token; and what is stored of a token is its keyed
 * hash, never the token. The open routes' rate limit too. */
#include "uc_api_fixture.h"

#include "../../src/core/uc_ratelimit.h"
#include "../../src/store/uc_recipient_tokens.h"

/* The activation link of the recipient's token number `i`. */
static const char *nonce_of(afx_t *fx, const char *name, size_t i)
{
    json_t *r = api_ok(fx, UC_GET, apr_pstrcat(fx->pool, "/recipients/",
                                               name, NULL), NULL);
    json_t *t = json_array_get(json_object_get(r, "tokens"), i);
    const char *url = jstr(t, "activation_url");
    const char *slash = url ? strrchr(url, '/') : NULL;

    assert_non_null(slash);
    return apr_pstrdup(fx->pool, slash + 1);
}

/* The token the link hands over. */
static const char *activate(afx_t *fx, const char *nonce)
{
    json_t *profile = api_ok(fx, UC_GET, apr_pstrcat(
        fx->pool, "/public/data_sharing_activation/", nonce, NULL), NULL);

    assert_int_equal(json_integer_value(json_object_get(
        profile, "shareCredentialsVersion")), 1);
    assert_string_equal(jstr(profile, "endpoint"), AFX_SHARING_ENDPOINT);
    return apr_pstrdup(fx->pool, jstr(profile, "bearerToken"));
}

/* The recipient the token leads to at `when`, NULL for none. */
static const char *lookup(afx_t *fx, const uc_secret_keys_t *keys,
                          const char *token, apr_time_t when)
{
    const char *id = NULL;

    assert_ok(uc_recipient_token_lookup(attach(fx, fx->pool), fx->pool, keys,
                                        token, when, &id));
    return id;
}

static const char *create(afx_t *fx, const char *name, const char **token)
{
    json_t *r = api_ok(fx, UC_POST, "/recipients", apr_pstrcat(
        fx->pool, "{\"name\":\"", name, "\",\"authentication_type\":"
        "\"TOKEN\"}", NULL));

    *token = activate(fx, nonce_of(fx, name, 0));
    return apr_pstrdup(fx->pool, jstr(r, "id"));
}

static void test_lookup(void **state)
{
    afx_t *fx = *state;
    const char *token, *id = create(fx, "rcp", &token);
    char *altered = apr_pstrdup(fx->pool, token);

    assert_true(strlen(token) >= 43);
    assert_string_equal(lookup(fx, &afx_keys, token, fx->now), id);
    altered[0] = altered[0] == 'A' ? 'B' : 'A';
    assert_null(lookup(fx, &afx_keys, altered, fx->now));
    assert_null(lookup(fx, &afx_keys, "", fx->now));
    /* What is stored: the keyed hash under the key, never the token. */
    assert_int_equal(uc_test_sql_int(fx->db, fx->conn, fx->pool, apr_psprintf(
        fx->pool, "SELECT COUNT(*) FROM recipient_tokens WHERE key_id = "
        "'%s' AND token_hash = '%s' AND token_sealed IS NULL AND "
        "activation_hash IS NULL AND activation_sealed IS NULL",
        afx_key.id, uc_secret_keyed_hash(fx->pool, &afx_key,
                                         UC_TOKEN_HASH_PURPOSE, token,
                                         strlen(token)))), 1);
}

static void test_rotation_grace(void **state)
{
    afx_t *fx = *state;
    const char *old, *id = create(fx, "rcp", &old), *new;
    apr_time_t hour = apr_time_from_sec(3600);

    api_ok(fx, UC_POST, "/recipients/rcp/rotate-token",
           "{\"existing_token_expire_in_seconds\":3600}");
    new = activate(fx, nonce_of(fx, "rcp", 1));
    assert_string_not_equal(new, old);
    /* The old token lives until its new expiry, the new one after. */
    assert_string_equal(lookup(fx, &afx_keys, old, fx->now + hour - 1000),
                        id);
    assert_null(lookup(fx, &afx_keys, old, fx->now + hour));
    assert_string_equal(lookup(fx, &afx_keys, new, fx->now + 2 * hour), id);
    /* Rotating at once ends the one before. */
    api_ok(fx, UC_POST, "/recipients/rcp/rotate-token",
           "{\"existing_token_expire_in_seconds\":0}");
    assert_null(lookup(fx, &afx_keys, new, fx->now));
}

static void test_expiration_time(void **state)
{
    afx_t *fx = *state;
    const char *token, *id = create(fx, "rcp", &token);
    apr_int64_t at = apr_time_as_msec(fx->now) + 60000;

    api_ok(fx, UC_PATCH, "/recipients/rcp", apr_psprintf(
        fx->pool, "{\"expiration_time\":%" APR_INT64_T_FMT "}", at));
    assert_string_equal(lookup(fx, &afx_keys, token, fx->now), id);
    assert_null(lookup(fx, &afx_keys, token,
                       fx->now + apr_time_from_sec(60)));
}

/* A new first key in the key file: tokens made under the old one still
 * lead to their recipient, and a file without it opens none. */
static void test_key_rotation(void **state)
{
    afx_t *fx = *state;
    const char *token, *id = create(fx, "rcp", &token);
    uc_secret_key_t keys[2] = { { "feedf00d", { 9, 9, 9 } }, afx_key };
    uc_secret_keys_t rotated = { 2, keys }, other = { 1, keys };

    assert_string_equal(lookup(fx, &rotated, token, fx->now), id);
    assert_null(lookup(fx, &other, token, fx->now));
}

/* Deleting the recipient deletes its tokens. */
static void test_delete(void **state)
{
    afx_t *fx = *state;
    const char *token;

    create(fx, "rcp", &token);
    api_ok(fx, UC_DELETE, "/recipients/rcp", NULL);
    assert_null(lookup(fx, &afx_keys, token, fx->now));
    assert_int_equal(uc_test_sql_int(fx->db, fx->conn, fx->pool,
                                     "SELECT COUNT(*) FROM recipient_tokens"),
                     0);
}

/* Two requests a minute per address, in a table of two addresses. */
static void test_rate_limit(void **state)
{
    afx_t *fx = *state;
    uc_ratelimit_t *rl;
    apr_time_t t0 = fx->now, minute = apr_time_from_sec(60);

    assert_int_equal(uc_ratelimit_create(fx->pool, 2, minute, 2, &rl),
                     APR_SUCCESS);
    assert_int_equal(uc_ratelimit_hit(rl, "192.0.2.1", t0), 0);
    assert_int_equal(uc_ratelimit_hit(rl, "192.0.2.1", t0), 0);
    /* The third waits for the window's end, 50 s later. */
    assert_int_equal(uc_ratelimit_hit(rl, "192.0.2.1",
                                      t0 + apr_time_from_sec(10)), 50);
    assert_int_equal(uc_ratelimit_hit(rl, "2001:db8::1", t0), 0);
    assert_int_equal(uc_ratelimit_hit(rl, "2001:db8::1", t0 + 1), 0);
    assert_int_equal(uc_ratelimit_hit(rl, "2001:db8::1", t0 + 2), 60);
    /* A new window after a minute. */
    assert_int_equal(uc_ratelimit_hit(rl, "192.0.2.1", t0 + minute), 0);
    /* A third address takes the place of the oldest window's; the address
     * it pushed out starts afresh, the other keeps its count. */
    assert_int_equal(uc_ratelimit_hit(rl, "198.51.100.7", t0 + minute), 0);
    assert_int_equal(uc_ratelimit_hit(rl, "192.0.2.1", t0 + minute), 0);
    assert_int_equal(uc_ratelimit_hit(rl, "192.0.2.1", t0 + minute), 60);
}

/* A list shows each recipient's tokens as its get does, a page of them
 * read at once: recipients with several tokens, one with none (an OAuth
 * one's secrets are its tokens; a deleted one's are gone) across pages. */
static void test_list_tokens(void **state)
{
    afx_t *fx = *state;
    static const char *const names[] = { "rca", "rcb", "rcc", "rcd", "rce" };
    const char *token, *page = NULL;
    json_t *list, *r;
    size_t i, seen = 0;

    for (i = 0; i < 5; i++)
        create(fx, names[i], &token);
    api_ok(fx, UC_POST, "/recipients/rcb/rotate-token",
           "{\"existing_token_expire_in_seconds\":3600}");
    api_ok(fx, UC_POST, "/recipients/rcb/rotate-token",
           "{\"existing_token_expire_in_seconds\":60}");
    api_ok(fx, UC_POST, "/recipients/rcd/rotate-token",
           "{\"existing_token_expire_in_seconds\":0}");
    api_ok(fx, UC_DELETE, "/recipients/rce", NULL);
    do {
        list = api_ok(fx, UC_GET, page ? apr_pstrcat(
            fx->pool, "/recipients?max_results=2&page_token=", page, NULL)
            : "/recipients?max_results=2", NULL);
        json_array_foreach(json_object_get(list, "recipients"), i, r) {
            json_t *one = api_ok(fx, UC_GET, apr_pstrcat(
                fx->pool, "/recipients/", jstr(r, "name"), NULL), NULL);
            assert_true(json_equal(json_object_get(r, "tokens"),
                                   json_object_get(one, "tokens")));
            assert_int_equal(json_array_size(json_object_get(r, "tokens")),
                             !strcmp(jstr(r, "name"), "rcb") ? 3
                             : !strcmp(jstr(r, "name"), "rcd") ? 2 : 1);
            seen++;
        }
        page = jstr(list, "next_page_token");
        page = page ? apr_pstrdup(fx->pool, page) : NULL;
    } while (page);
    assert_int_equal(seen, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        API_TEST(test_lookup),
        API_TEST(test_rotation_grace),
        API_TEST(test_expiration_time),
        API_TEST(test_key_rotation),
        API_TEST(test_delete),
        API_TEST(test_rate_limit),
        API_TEST(test_list_tokens),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("recipients", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
