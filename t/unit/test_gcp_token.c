/* SPDX-License-Identifier: Apache-2.0 */
/* Google access tokens and their downscoping against the stand-in of
 * t/gcp/with-gcp.sh, which verifies the JWTs as Google does and says what
 * a downscoped token may reach: a token is minted from a good key and
 * refused for another key, a stale assertion or the wrong audience; bad
 * keys never reach the wire nor an error message; a dead or silent
 * endpoint is a 503; the boundary lets in its prefix and nothing beside
 * it. And base64url's RFC 4648 cases. */
#include "uc_test.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "../../src/cloud/uc_cloud_http.h"
#include "../../src/cloud/uc_gcp_token.h"
#include "../../src/core/uc_bytes.h"
#include "../../src/core/uc_percent.h"

#define BUCKET "unicat-bucket"
#define READ_WRITE_SCOPE "https://www.googleapis.com/auth/devstorage.read_write"

static const char *need_env(const char *name)
{
    const char *v = getenv(name);

    if (v == NULL || *v == '\0')
        fail_msg("%s is not set: run this test under t/gcp/with-gcp.sh",
                 name);
    return v;
}

/* Every test against the stand-in starts here: skipped without it. */
static void need_stand_in(void)
{
    if (!getenv("UNICAT_GCP_TOKEN_URI"))
        skip();
}

static const char *read_text(apr_pool_t *pool, const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = apr_pcalloc(pool, 16384);

    if (!f)
        fail_msg("cannot open %s", path);
    fread(text, 1, 16383, f);
    fclose(f);
    return text;
}

/* The stand-in's service account, asking for `scope`. */
static uc_gcp_token_request_t account(apr_pool_t *pool, const char *scope)
{
    uc_gcp_token_request_t req = { 0 };

    need_stand_in();
    req.token_uri = need_env("UNICAT_GCP_TOKEN_URI");
    req.client_email = need_env("UNICAT_GCP_CLIENT_EMAIL");
    req.private_key_id = need_env("UNICAT_GCP_PRIVATE_KEY_ID");
    req.private_key = read_text(pool, need_env(
                                    "UNICAT_GCP_PRIVATE_KEY_FILE"));
    req.scope = scope;
    req.timeout_ms = 10000;
    return req;
}

/* A PEM private key of a new key of `type` ("RSA", "EC"). */
static const char *new_key_pem(apr_pool_t *pool, const char *type)
{
    EVP_PKEY *key = !strcmp(type, "RSA") ? EVP_RSA_gen(2048)
                                         : EVP_EC_gen("P-256");
    BIO *bio = BIO_new(BIO_s_mem());
    char *data;
    long len;

    assert_non_null(key);
    assert_int_equal(PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0,
                                              NULL, NULL), 1);
    len = BIO_get_mem_data(bio, &data);
    data = apr_pstrndup(pool, data, (apr_size_t)len);
    BIO_free(bio);
    EVP_PKEY_free(key);
    return data;
}

/* The second line of a PEM: key material no message may quote. */
static const char *key_line(apr_pool_t *pool, const char *pem)
{
    const char *start = strchr(pem, '\n') + 1;

    return apr_pstrndup(pool, start, 40);
}

static void assert_quotes_no_key(const uc_error_t *err, const char *line)
{
    assert_null(strstr(err->message, line));
    assert_true(!err->cause || !strstr(err->cause, line));
}

/* --- base64url --------------------------------------------------------- */

static void test_base64url(void **state)
{
    static const char *const plain[] = { "", "f", "fo", "foo", "foob",
                                         "fooba", "foobar" };
    static const char *const coded[] = { "", "Zg", "Zm8", "Zm9v", "Zm9vYg",
                                         "Zm9vYmE", "Zm9vYmFy" };
    static const unsigned char dash[] = { 0xfb, 0xef, 0xbe };
    static const unsigned char under[] = { 0xff, 0xff, 0xff };
    static const unsigned char both[] = { 0xfb, 0xff };
    apr_pool_t *pool = *state;
    size_t i;

    for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        assert_string_equal(uc_base64url_encode(
                                pool, (const unsigned char *)plain[i],
                                strlen(plain[i])), coded[i]);
    assert_string_equal(uc_base64url_encode(pool, dash, 3), "----");
    assert_string_equal(uc_base64url_encode(pool, under, 3), "____");
    assert_string_equal(uc_base64url_encode(pool, both, 2), "-_8");
    /* The shared encoder still pads standard base64. */
    assert_string_equal(uc_base64_encode(pool, both, 2), "+/8=");
    assert_string_equal(uc_base64_encode(pool, (const unsigned char *)"f",
                                         1), "Zg==");
}

/* --- access tokens ----------------------------------------------------- */

static void test_token_is_minted(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_request_t req = account(pool, NULL);
    apr_time_t before = apr_time_now();
    uc_gcp_token_t token;

    assert_ok(uc_gcp_access_token(pool, &req, &token));
    assert_true(!strncmp(token.access_token, "ya29.", 5));
    assert_true(token.expires >= before + apr_time_from_sec(3599));
    assert_true(token.expires <= apr_time_now() + apr_time_from_sec(3599));
}

static void test_another_key_is_refused(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_request_t req = account(pool, NULL);
    uc_gcp_token_t token;
    uc_error_t *err;

    req.private_key = new_key_pem(pool, "RSA");
    err = uc_gcp_access_token(pool, &req, &token);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "invalid_grant");
    assert_null(strstr(err->message, "Signature"));
    assert_quotes_no_key(err, key_line(pool, req.private_key));
    assert_null(token.access_token);
}

static void test_stale_or_misaddressed_jwt_is_refused(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_request_t req = account(pool, NULL);
    const char *uri = req.token_uri;
    uc_gcp_token_t token;
    uc_error_t *err;

    req.now = apr_time_now() - apr_time_from_sec(600);
    err = uc_gcp_access_token(pool, &req, &token);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "invalid_grant");
    req.now = 0;
    /* The same endpoint by another name is another audience. */
    req.token_uri = apr_pstrcat(pool, "http://localhost",
                                strchr(uri + strlen("http://"), ':'), NULL);
    err = uc_gcp_access_token(pool, &req, &token);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "invalid_grant");
    req.token_uri = uri;
    req.private_key_id = "another-kid";
    assert_err(uc_gcp_access_token(pool, &req, &token), 502, NULL);
}

static void test_bad_keys_are_400(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_request_t req = account(pool, NULL);
    const char *garbage = "-----BEGIN PRIVATE KEY-----\n"
                          "c2VjcmV0IGtleSBtYXRlcmlhbCBub3QgYSBrZXk=\n"
                          "-----END PRIVATE KEY-----\n";
    uc_gcp_token_t token;
    uc_error_t *err;

    req.private_key = garbage;
    err = uc_gcp_access_token(pool, &req, &token);
    assert_invalid(err);
    assert_quotes_no_key(err, key_line(pool, garbage));
    req.private_key = new_key_pem(pool, "EC");
    err = uc_gcp_access_token(pool, &req, &token);
    assert_invalid(err);
    assert_quotes_no_key(err, key_line(pool, req.private_key));
    req.private_key = NULL;
    assert_invalid(uc_gcp_access_token(pool, &req, &token));
    req = account(pool, NULL);
    req.client_email = NULL;
    assert_invalid(uc_gcp_access_token(pool, &req, &token));
}

static void test_dead_endpoint_is_503(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_request_t req = account(pool, NULL);
    uc_gcp_token_t token;

    req.token_uri = "http://127.0.0.1:1/token";
    assert_err(uc_gcp_access_token(pool, &req, &token), 503,
               "TEMPORARILY_UNAVAILABLE");
}

static void test_silent_endpoint_times_out(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_request_t req = account(pool, "hang");
    apr_time_t start = apr_time_now(), took;
    uc_gcp_token_t token;

    req.timeout_ms = 500;
    assert_err(uc_gcp_access_token(pool, &req, &token), 503,
               "TEMPORARILY_UNAVAILABLE");
    took = apr_time_now() - start;
    assert_true(took >= apr_time_from_msec(450));
    assert_true(took < apr_time_from_msec(2000));
}

/* --- downscoping ------------------------------------------------------- */

static uc_gcp_token_t mint(apr_pool_t *pool, const char *scope)
{
    uc_gcp_token_request_t req = account(pool, scope);
    uc_gcp_token_t token;

    assert_ok(uc_gcp_access_token(pool, &req, &token));
    return token;
}

static uc_gcp_token_t downscope(apr_pool_t *pool,
                                const uc_gcp_token_t *source,
                                const char *prefix, int write)
{
    uc_gcp_token_t token;

    assert_ok(uc_gcp_downscope(pool, need_env("UNICAT_GCP_STS_URI"),
                               source, BUCKET, prefix, write, 10000, NULL,
                               &token));
    return token;
}

/* The stand-in's verdict on `action` by `token` on `name` of `bucket`. */
static long verdict(apr_pool_t *pool, const uc_gcp_token_t *token,
                    const char *action, const char *bucket,
                    const char *name)
{
    uc_cloud_request_t req = { 0 };
    uc_cloud_answer_t answer;

    req.service = "the stand-in";
    req.method = "GET";
    req.url = apr_pstrcat(
        pool, need_env("UNICAT_GCP_CHECK_URI"), "?token=",
        uc_percent_encode(pool, token->access_token,
                          strlen(token->access_token), ""),
        "&action=", action, "&bucket=", bucket, "&name=",
        uc_percent_encode(pool, name, strlen(name), ""), NULL);
    assert_ok(uc_cloud_call(pool, &req, &answer));
    return answer.status;
}

static void test_read_boundary(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_t source = mint(pool, NULL);
    uc_gcp_token_t token = downscope(pool, &source, "tables/a", 0);

    assert_true(strcmp(token.access_token, source.access_token) != 0);
    assert_true(token.expires == source.expires);
    assert_int_equal(verdict(pool, &token, "read", BUCKET,
                             "tables/a/part-0.parquet"), 200);
    assert_int_equal(verdict(pool, &token, "read", BUCKET,
                             "tables/a/_delta_log/0.json"), 200);
    assert_int_equal(verdict(pool, &token, "list", BUCKET, "tables/a/"),
                     200);
    assert_int_equal(verdict(pool, &token, "read", BUCKET,
                             "tables/ab/part-0.parquet"), 403);
    assert_int_equal(verdict(pool, &token, "read", BUCKET, "tables/a"),
                     403);
    assert_int_equal(verdict(pool, &token, "list", BUCKET, "tables/"), 403);
    assert_int_equal(verdict(pool, &token, "read", "other-bucket",
                             "tables/a/part-0.parquet"), 403);
    assert_int_equal(verdict(pool, &token, "write", BUCKET,
                             "tables/a/part-1.parquet"), 403);
    /* The source itself is no downscoped token. */
    assert_int_equal(verdict(pool, &source, "read", BUCKET,
                             "tables/a/part-0.parquet"), 401);
}

static void test_write_boundary(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_t source = mint(pool, READ_WRITE_SCOPE);
    uc_gcp_token_t writer = downscope(pool, &source, "/tables/a/", 1);
    uc_gcp_token_t reader = downscope(pool, &source, "tables/a", 0);
    uc_gcp_token_t read_only = mint(pool, NULL);
    uc_gcp_token_t capped = downscope(pool, &read_only, "tables/a", 1);

    assert_int_equal(verdict(pool, &writer, "write", BUCKET,
                             "tables/a/part-1.parquet"), 200);
    assert_int_equal(verdict(pool, &writer, "read", BUCKET,
                             "tables/a/part-1.parquet"), 200);
    assert_int_equal(verdict(pool, &writer, "write", BUCKET,
                             "tables/ab/part-1.parquet"), 403);
    assert_int_equal(verdict(pool, &reader, "write", BUCKET,
                             "tables/a/part-1.parquet"), 403);
    /* A boundary takes away: a read-only source stays read-only. */
    assert_int_equal(verdict(pool, &capped, "write", BUCKET,
                             "tables/a/part-1.parquet"), 403);
}

/* STS's expires_in counts, but never beyond the source's expiry. */
static void test_downscoped_lifetime(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_t source = mint(pool, NULL), token;
    const char *sts = need_env("UNICAT_GCP_STS_URI");
    apr_time_t before = apr_time_now();

    assert_ok(uc_gcp_downscope(pool, apr_pstrcat(pool, sts,
                                                 "?expires_in=60", NULL),
                               &source, BUCKET, "p", 0, 0, NULL, &token));
    assert_true(token.expires >= before + apr_time_from_sec(60));
    assert_true(token.expires <= apr_time_now() + apr_time_from_sec(60));
    assert_ok(uc_gcp_downscope(pool, apr_pstrcat(pool, sts,
                                                 "?expires_in=7200", NULL),
                               &source, BUCKET, "p", 0, 0, NULL, &token));
    assert_true(token.expires == source.expires);
    assert_err(uc_gcp_downscope(pool, apr_pstrcat(pool, sts,
                                                  "?expires_in=-5", NULL),
                                &source, BUCKET, "p", 0, 0, NULL, &token),
               502, "STORAGE_ERROR");
    assert_null(token.access_token);
}

static void test_quotes_stay_in_the_prefix(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_t source = mint(pool, NULL);
    uc_gcp_token_t token = downscope(pool, &source, "it's a \\ 'dir'", 0);

    assert_int_equal(verdict(pool, &token, "read", BUCKET,
                             "it's a \\ 'dir'/f"), 200);
    assert_int_equal(verdict(pool, &token, "list", BUCKET,
                             "it's a \\ 'dir'/"), 200);
    assert_int_equal(verdict(pool, &token, "read", BUCKET, "it/f"), 403);
    assert_int_equal(verdict(pool, &token, "read", BUCKET,
                             "it's a \\ 'dir'x/f"), 403);
}

static void test_whole_bucket(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcp_token_t source = mint(pool, NULL);
    uc_gcp_token_t token = downscope(pool, &source, "/", 0);

    assert_int_equal(verdict(pool, &token, "read", BUCKET, "any/thing"),
                     200);
    assert_int_equal(verdict(pool, &token, "read", "other-bucket",
                             "any/thing"), 403);
}

static void test_downscope_refusals(void **state)
{
    static const char *const bad_buckets[] = { "ab", "Upper", "a/b", "-ab",
                                               "ab.", "a'b", "" };
    apr_pool_t *pool = *state;
    uc_gcp_token_t source = mint(pool, NULL), unknown = source, token;
    const char *sts = need_env("UNICAT_GCP_STS_URI");
    uc_error_t *err;
    size_t i;

    for (i = 0; i < sizeof(bad_buckets) / sizeof(bad_buckets[0]); i++)
        assert_invalid(uc_gcp_downscope(pool, sts, &source, bad_buckets[i],
                                        "p", 0, 0, NULL, &token));
    assert_invalid(uc_gcp_downscope(pool, sts, &source, BUCKET, "a\nb", 0,
                                    0, NULL, &token));
    assert_invalid(uc_gcp_downscope(pool, sts, &source, BUCKET, "\xff", 0,
                                    0, NULL, &token));
    unknown.access_token = "ya29.not-one-it-made";
    err = uc_gcp_downscope(pool, sts, &unknown, BUCKET, "p", 0, 0, NULL,
                           &token);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "invalid_grant");
    assert_null(strstr(err->message, "not-one-it-made"));
    assert_err(uc_gcp_downscope(pool, "http://127.0.0.1:1/v1/token",
                                &source, BUCKET, "p", 0, 0, NULL, &token),
               503, "TEMPORARILY_UNAVAILABLE");
    unknown.access_token = "";
    assert_invalid(uc_gcp_downscope(pool, sts, &unknown, BUCKET, "p", 0, 0,
                                    NULL, &token));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_base64url),
        UC_POOL_TEST(test_token_is_minted),
        UC_POOL_TEST(test_another_key_is_refused),
        UC_POOL_TEST(test_stale_or_misaddressed_jwt_is_refused),
        UC_POOL_TEST(test_bad_keys_are_400),
        UC_POOL_TEST(test_dead_endpoint_is_503),
        UC_POOL_TEST(test_silent_endpoint_times_out),
        UC_POOL_TEST(test_read_boundary),
        UC_POOL_TEST(test_write_boundary),
        UC_POOL_TEST(test_downscoped_lifetime),
        UC_POOL_TEST(test_quotes_stay_in_the_prefix),
        UC_POOL_TEST(test_whole_bucket),
        UC_POOL_TEST(test_downscope_refusals),
    };
    int rc;

    uc_test_init();
    if (uc_cloud_init(uc_test_global_pool))
        return 2;
    rc = cmocka_run_group_tests_name("gcp_token", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
