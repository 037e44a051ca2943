/* SPDX-License-Identifier: Apache-2.0 */
/* Page sizes and opaque page tokens. */
#include "uc_test.h"

#include <apr_base64.h>

#include "../../src/core/uc_page.h"

static int parse_limit(apr_pool_t *pool, const char *max_results)
{
    uc_page_t page;

    memset(&page, 0x5A, sizeof(page));
    assert_ok(uc_page_parse(pool, max_results, NULL, &page));
    assert_null(page.after);
    return page.limit;
}

static void test_limit(void **state)
{
    apr_pool_t *pool = *state;

    assert_int_equal(parse_limit(pool, NULL), UC_PAGE_DEFAULT);
    assert_int_equal(UC_PAGE_DEFAULT, 100);
    assert_int_equal(UC_PAGE_MAX, 1000);
    assert_int_equal(parse_limit(pool, ""), 100);
    assert_int_equal(parse_limit(pool, "0"), 100);
    assert_int_equal(parse_limit(pool, "1"), 1);
    assert_int_equal(parse_limit(pool, "42"), 42);
    assert_int_equal(parse_limit(pool, "100"), 100);
    assert_int_equal(parse_limit(pool, "999"), 999);
    assert_int_equal(parse_limit(pool, "1000"), 1000);
    assert_int_equal(parse_limit(pool, "1001"), 1000);
    assert_int_equal(parse_limit(pool, "5000"), 1000);
    assert_int_equal(parse_limit(pool, "2147483648"), 1000);
    assert_int_equal(parse_limit(pool, "9223372036854775807"), 1000);
    assert_int_equal(parse_limit(pool, "99999999999999999999999999999"), 1000);
}

static void test_limit_invalid(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "-1", "-100", "-9223372036854775808", "-99999999999999999999999999",
        "abc", "10abc", "1.5", "1e3", "0x10", " ", "ten", "5 ", NULL
    };
    int i;

    for (i = 0; bad[i]; i++) {
        uc_page_t page;
        uc_error_t *err = uc_page_parse(pool, bad[i], NULL, &page);
        if (!err)
            fail_msg("max_results '%s' accepted as %d", bad[i], page.limit);
        assert_invalid(err);
        assert_contains(err->message, "max_results");
    }
}

static void assert_url_safe(const char *token)
{
    const char *c;

    assert_non_null(token);
    assert_true(*token);
    for (c = token; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
              (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
            fail_msg("token '%s' has character '%c'", token, *c);
}

static void round_trip(apr_pool_t *pool, const char *name)
{
    const char *token = uc_page_token(pool, name);
    uc_page_t page;
    uc_error_t *err;

    assert_url_safe(token);
    err = uc_page_parse(pool, "7", token, &page);
    if (err)
        fail_msg("token '%s' of '%s' refused: %s", token, name, err->message);
    assert_int_equal(page.limit, 7);
    assert_non_null(page.after);
    if (strcmp(page.after, name) != 0)
        fail_msg("token of '%s' came back as '%s'", name, page.after);
}

static void test_token_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const names[] = {
        "a", "ab", "abc", "main", "main_catalog", "s001", "zzz_999",
        "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
        "emoji \xf0\x9f\x98\x80", "with space", "a+b", "a/b", "a=b", "a&b",
        "a?b#c", "~~~", "?>?", "???", ">>>", "\xfb\xff\xfe", "%00", "k1:",
        "k1:k1:", "-_-", "\"quoted\"", "line\nbreak", NULL
    };
    char buf[1200];
    int i, j;

    for (i = 0; names[i]; i++)
        round_trip(pool, names[i]);
    /* Every length modulo 3 and every padding case, long names included. */
    for (i = 1; i <= 300; i++) {
        memset(buf, 'a' + i % 26, (size_t)i);
        buf[i] = '\0';
        round_trip(pool, buf);
    }
    memset(buf, 'x', 1000);
    buf[1000] = '\0';
    round_trip(pool, buf);
    /* Every byte value, alone and next to others, so that every base64
     * digit (including the two the URL-safe alphabet replaces) occurs. */
    for (i = 1; i < 256; i++) {
        buf[0] = (char)i;
        buf[1] = '\0';
        round_trip(pool, buf);
        for (j = 1; j < 256; j += 17) {
            buf[0] = (char)i;
            buf[1] = (char)j;
            buf[2] = (char)(255 - i > 0 ? 255 - i : 1);
            buf[3] = '\0';
            round_trip(pool, buf);
        }
    }
}

static void test_token_distinct(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const names[] = {
        "abc", "abd", "abc_", "ab", "abcd", "ABC", NULL
    };
    int i, j;

    for (i = 0; names[i]; i++)
        for (j = i + 1; names[j]; j++)
            assert_string_not_equal(uc_page_token(pool, names[i]),
                                    uc_page_token(pool, names[j]));
}

static void test_token_empty_is_first_page(void **state)
{
    apr_pool_t *pool = *state;
    uc_page_t page;

    memset(&page, 0x5A, sizeof(page));
    assert_ok(uc_page_parse(pool, NULL, "", &page));
    assert_null(page.after);
    assert_int_equal(page.limit, 100);

    memset(&page, 0x5A, sizeof(page));
    assert_ok(uc_page_parse(pool, "5", NULL, &page));
    assert_null(page.after);
    assert_int_equal(page.limit, 5);
}

/* base64url without padding of arbitrary bytes, the way a forger would. */
static const char *b64url(apr_pool_t *pool, const char *data, int len)
{
    char *out = apr_palloc(pool, (apr_size_t)apr_base64_encode_len(len));
    char *c;

    apr_base64_encode(out, data, len);
    for (c = out; *c; c++) {
        if (*c == '+') *c = '-';
        else if (*c == '/') *c = '_';
        else if (*c == '=') { *c = '\0'; break; }
    }
    return out;
}

static void token_bad(apr_pool_t *pool, const char *token)
{
    uc_page_t page;
    uc_error_t *err = uc_page_parse(pool, NULL, token, &page);

    if (!err)
        fail_msg("page_token '%s' accepted as '%s'", token,
                 page.after ? page.after : "(null)");
    assert_invalid(err);
    assert_contains(err->message, "page_token");
}

static void test_token_garbage(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "!", "%%%", "a b", "abc=", "abc==", "k1:abc", "a.b", "a/b+c",
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "\n", "A", "AA", "AAAA",
        "////", "____", NULL
    };
    char *longtok;
    int i;

    for (i = 0; bad[i]; i++)
        token_bad(pool, bad[i]);
    longtok = apr_palloc(pool, 5001);
    memset(longtok, 'A', 5000);
    longtok[5000] = '\0';
    token_bad(pool, longtok);
}

static void test_token_wrong_tag(void **state)
{
    apr_pool_t *pool = *state;

    assert_non_null(b64url(pool, "k1:abc", 6));
    token_bad(pool, b64url(pool, "abc", 3));
    token_bad(pool, b64url(pool, "k2:abc", 6));
    token_bad(pool, b64url(pool, "K1:abc", 6));
    token_bad(pool, b64url(pool, "k1abc", 5));
    token_bad(pool, b64url(pool, "k1", 2));
    /* A NUL inside the decoded key. */
    token_bad(pool, b64url(pool, "k1:a\0b", 6));
    token_bad(pool, b64url(pool, "\0k1:abc", 7));
}

static void test_token_truncated(void **state)
{
    apr_pool_t *pool = *state;
    const char *token = uc_page_token(pool, "some_catalog_name");
    size_t len = strlen(token), i;

    /* Cut inside the tag. */
    for (i = 1; i < 4 && i < len; i++)
        token_bad(pool, apr_pstrndup(pool, token, i));
}

/* No base64 encoding is 4k+1 characters long: such a token was cut or
 * padded by hand and cannot have come from a previous page. */
static void test_token_impossible_length(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const names[] = {
        "abcdefgh", "some_catalog_name", "s1", "main", "x_12345", "abcde",
        NULL
    };
    static const char *const pad[4] = { "A", "", "AAA", "AA" };
    static const size_t cut[4] = { 3, 0, 1, 2 };
    int i;

    for (i = 0; names[i]; i++) {
        const char *token = uc_page_token(pool, names[i]);
        size_t len = strlen(token);

        assert_true(len % 4 != 1);
        token_bad(pool, apr_pstrndup(pool, token, len - cut[len % 4]));
        token_bad(pool, apr_pstrcat(pool, token, pad[len % 4], NULL));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_limit),
        UC_POOL_TEST(test_limit_invalid),
        UC_POOL_TEST(test_token_round_trip),
        UC_POOL_TEST(test_token_distinct),
        UC_POOL_TEST(test_token_empty_is_first_page),
        UC_POOL_TEST(test_token_garbage),
        UC_POOL_TEST(test_token_wrong_tag),
        UC_POOL_TEST(test_token_truncated),
        UC_POOL_TEST(test_token_impossible_length),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("page", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
