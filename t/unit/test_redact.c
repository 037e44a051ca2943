/* SPDX-License-Identifier: Apache-2.0 */
/* What the logs may show of a request (uc_redact.h): the signature of a
 * files URL and the nonce of an activation link become XXXXXXXX however
 * they are spelled, in a request line, a target, a path or a query
 * string; everything else, and every URL without a secret, is left as it
 * was (the same string, not a copy). */
#include "uc_test.h"

#include "../../src/http/uc_redact.h"

#define SIG "5d41402abc4b2a76b9719d911017c592aa4bb2cd3b7e0f3e2b8e3b3e6f0a1c2d"
#define NONCE "q3Zr8N0aJ1xk-Wm_2bYc7Ue9fTg4Hs6Lp5Vd0Ao1Ki2"

static void test_signatures(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(uc_redact_query(pool, "exp=1700000000&kid=0a1b2c3d"
                                        "&sig=" SIG),
                        "exp=1700000000&kid=0a1b2c3d&sig=XXXXXXXX");
    /* Spelled as the query parser would still take it. */
    assert_string_equal(uc_redact_query(pool, "%73ig=" SIG "&SIG=" SIG
                                        "&Sig=" SIG "&x=1"),
                        "%73ig=XXXXXXXX&SIG=XXXXXXXX&Sig=XXXXXXXX&x=1");
    assert_string_equal(uc_redact_query(pool, "&&sig=" SIG "&"),
                        "&&sig=XXXXXXXX&");
    assert_string_equal(uc_redact_query(pool, "sig=a%20b+c"),
                        "sig=XXXXXXXX");
}

static void test_queries_without_a_signature(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const kept[] = {
        "", "sig", "sig=", "signature=" SIG, "xsig=" SIG, "a=sig=" SIG,
        "exp=1&kid=2", "%73i=1&si%67", "maxResults=10&pageToken=abc",
    };
    size_t i;

    for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        assert_ptr_equal(uc_redact_query(pool, kept[i]), kept[i]);
    assert_null(uc_redact_query(pool, NULL));
}

static void test_nonces(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { const char *path, *want; } cases[] = {
        { "/api/2.1/unity-catalog/public/data_sharing_activation/" NONCE,
          "/api/2.1/unity-catalog/public/data_sharing_activation/XXXXXXXX" },
        { "/public/data_sharing_activation_info/" NONCE,
          "/public/data_sharing_activation_info/XXXXXXXX" },
        { "/public/data%5Fsharing%5factivation/" NONCE,
          "/public/data%5Fsharing%5factivation/XXXXXXXX" },
        { "/public/DATA_SHARING_ACTIVATION/" NONCE,
          "/public/DATA_SHARING_ACTIVATION/XXXXXXXX" },
        /* What may come between the segment and the nonce goes too. */
        { "/public/data_sharing_activation//" NONCE,
          "/public/data_sharing_activation/XXXXXXXX" },
        { "/public/data_sharing_activation/x/../" NONCE "/",
          "/public/data_sharing_activation/XXXXXXXX" },
        { "/public/data_sharing_activation%2F" NONCE,
          "/public/data_sharing_activation%2FXXXXXXXX" },
        /* Every letter encoded: the longest segment that spells one. */
        { "/public/%64%61%74%61%5F%73%68%61%72%69%6E%67%5F%61"
          "%63%74%69%76%61%74%69%6F%6E%5F%69%6E%66%6F/" NONCE,
          "/public/%64%61%74%61%5F%73%68%61%72%69%6E%67%5F%61"
          "%63%74%69%76%61%74%69%6F%6E%5F%69%6E%66%6F/XXXXXXXX" },
        /* A file name of the request (DocumentRoot and the path). */
        { "/var/www/html/api/public/data_sharing_activation/" NONCE,
          "/var/www/html/api/public/data_sharing_activation/XXXXXXXX" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(uc_redact_path(pool, cases[i].path),
                            cases[i].want);
}

static void test_paths_without_a_nonce(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const kept[] = {
        "/", "", "/public/data_sharing_activation",
        "/public/data_sharing_activation/",
        "/public/data_sharing_activationx/" NONCE,
        "/public/xdata_sharing_activation/" NONCE,
        "/public/data_sharing_oauth/token",
        "/delta-sharing/files/0b6f/part-0.parquet",
        "/recipients/data_sharing_activatio/x",
    };
    size_t i;

    for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        assert_ptr_equal(uc_redact_path(pool, kept[i]), kept[i]);
    assert_null(uc_redact_path(pool, NULL));
}

static void test_targets(void **state)
{
    apr_pool_t *pool = *state;
    const char *plain = "/delta-sharing/shares?maxResults=1";

    assert_string_equal(
        uc_redact_target(pool, "/delta-sharing/files/0b6f/a%3Db/part-0"
                         ".parquet?exp=1&kid=0a1b2c3d&sig=" SIG),
        "/delta-sharing/files/0b6f/a%3Db/part-0.parquet?exp=1&kid=0a1b2c3d"
        "&sig=XXXXXXXX");
    /* The path before the query, the query after it. */
    assert_string_equal(uc_redact_target(pool, "/p/data_sharing_activation/"
                                         NONCE "?sig=" SIG "&n=1"),
                        "/p/data_sharing_activation/XXXXXXXX?sig=XXXXXXXX"
                        "&n=1");
    assert_ptr_equal(uc_redact_target(pool, plain), plain);
}

static void test_request_lines(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { const char *line, *want; } cases[] = {
        { "GET /delta-sharing/files/t/k?exp=1&kid=2&sig=" SIG " HTTP/1.1",
          "GET /delta-sharing/files/t/k?exp=1&kid=2&sig=XXXXXXXX HTTP/1.1" },
        { "HEAD http://h:80/api/public/data_sharing_activation/" NONCE
          " HTTP/1.0",
          "HEAD http://h:80/api/public/data_sharing_activation/XXXXXXXX"
          " HTTP/1.0" },
        /* HTTP/0.9, and what httpd keeps of lines it refused. */
        { "GET /f/t/k?sig=" SIG, "GET /f/t/k?sig=XXXXXXXX" },
        { "GET /f/t/k?sig=" SIG " HTTP/1.1 extra",
          "GET /f/t/k?sig=XXXXXXXX" },
        { "GET /f/t/k?sig=ab cd HTTP/1.1",
          "GET /f/t/k?sig=XXXXXXXX HTTP/1.1" },
        { "GET  /a/data_sharing_activation/" NONCE " HTTP/1.1",
          "GET  /a/data_sharing_activation/XXXXXXXX HTTP/1.1" },
    };
    static const char *const kept[] = {
        "GET /api/2.1/unity-catalog/catalogs HTTP/1.1", "GET", "", "x y z",
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(uc_redact_request_line(pool, cases[i].line),
                            cases[i].want);
    for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        assert_ptr_equal(uc_redact_request_line(pool, kept[i]), kept[i]);
    assert_null(uc_redact_request_line(pool, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_signatures),
        UC_POOL_TEST(test_queries_without_a_signature),
        UC_POOL_TEST(test_nonces),
        UC_POOL_TEST(test_paths_without_a_nonce),
        UC_POOL_TEST(test_targets),
        UC_POOL_TEST(test_request_lines),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("redact", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
