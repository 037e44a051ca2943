/* SPDX-License-Identifier: Apache-2.0 */
/* Cloudflare R2 temporary credentials against the stand-in of t/s3/r2.mjs,
 * which checks the bearer token and the body of each call and registers
 * the keys it vends with the S3 proxy; the proxy then enforces their
 * prefix and permission, so the tests check what vended keys can and
 * cannot do through the s3:// store. Run under t/s3/with-s3.sh; the tests
 * skip without UNICAT_R2_API_BASE. */
#include "uc_test_s3.h"

#include <apr_time.h>

#include "../../src/cloud/uc_r2.h"

#define TABLE "fixtures/simple_table"
#define COMMIT0 "_delta_log/00000000000000000000.json"
/* Outside the Delta fixtures, which other tests list. */
#define SCRATCH "r2/written"

#define NEED_R2() do {                                                      \
        if (!getenv("UNICAT_R2_API_BASE")) {                                \
            skip();                                                         \
            return;                                                         \
        }                                                                   \
    } while (0)

static uc_r2_request_t base_request(const char *prefix, int write)
{
    uc_r2_request_t r;

    memset(&r, 0, sizeof(r));
    r.api_base = env("UNICAT_R2_API_BASE");
    r.account_id = env("UNICAT_R2_ACCOUNT_ID");
    r.api_token = env("UNICAT_R2_API_TOKEN");
    r.parent_access_key_id = env("UNICAT_R2_PARENT_KEY");
    r.bucket = env("UNICAT_S3_BUCKET");
    r.prefix = prefix;
    r.write = write;
    r.timeout_ms = 10000;
    return r;
}

static uc_aws_session_t vend(apr_pool_t *pool, const char *prefix,
                             int write)
{
    uc_r2_request_t r = base_request(prefix, write);
    uc_aws_session_t s;

    assert_ok(uc_r2_temp_credentials(pool, &r, &s));
    return s;
}

static void assert_absent(const char *text, const char *secret)
{
    if (text && secret && strstr(text, secret))
        fail_msg("\"%s\" reveals a secret", text);
}

/* How many calls the stand-in has seen: lines of its log. */
static int calls_seen(void)
{
    FILE *f = fopen(env("UNICAT_R2_LOG"), "r");
    int c, n = 0;

    assert_non_null(f);
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void check_expiry(const uc_aws_session_t *s, apr_time_t before,
                         int ttl_s)
{
    if (s->expires < before + apr_time_from_sec(ttl_s)
        || s->expires > apr_time_now() + apr_time_from_sec(ttl_s))
        fail_msg("expiry %" APR_INT64_T_FMT " is not now + %d s",
                 (apr_int64_t)s->expires, ttl_s);
}

/* --- vending ----------------------------------------------------------- */

static void test_vend(void **state)
{
    apr_pool_t *pool = *state;
    uc_r2_request_t r;
    uc_aws_session_t s, again;
    apr_time_t before = apr_time_now();

    NEED_R2();
    s = vend(pool, TABLE, 0);
    assert_non_null(s.keys.access_key_id);
    assert_non_null(s.keys.secret_access_key);
    assert_non_null(s.keys.session_token);
    assert_string_not_equal(s.keys.access_key_id,
                            env("UNICAT_R2_PARENT_KEY"));
    check_expiry(&s, before, 3600);

    /* Each call vends new keys, for the TTL asked for. */
    r = base_request(TABLE, 0);
    r.ttl_s = 604800;
    before = apr_time_now();
    assert_ok(uc_r2_temp_credentials(pool, &r, &again));
    assert_string_not_equal(again.keys.access_key_id, s.keys.access_key_id);
    assert_string_not_equal(again.keys.secret_access_key,
                            s.keys.secret_access_key);
    check_expiry(&again, before, 604800);
}

static void test_vended_read(void **state)
{
    apr_pool_t *pool = *state;
    uc_aws_session_t s;
    uc_objstore_t *store;
    apr_array_header_t *objs = NULL;
    char *data = NULL;
    apr_size_t len = 0;

    NEED_R2();
    s = vend(pool, TABLE, 0);
    store = open_vended(pool, TABLE, &s.keys);
    assert_ok(uc_objstore_read(store, pool, COMMIT0, 0, -1, &data, &len));
    assert_contains(data, "\"protocol\"");
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 5);

    /* The prefix is a directory: a table whose name starts like this
     * one's is outside it. */
    store = open_vended(pool, "fixtures/simple_table_with_checkpoint",
                        &s.keys);
    assert_refused(uc_objstore_read(store, pool, COMMIT0, 0, -1, &data,
                                    &len), "AccessDenied");
    assert_refused(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs),
                   "AccessDenied");
    store = open_vended(pool, "", &s.keys);
    assert_refused(uc_objstore_list(store, pool, "", NULL, &objs),
                   "AccessDenied");

    /* A trailing '/' changes nothing; no prefix is the whole bucket. */
    s = vend(pool, TABLE "/", 0);
    store = open_vended(pool, TABLE, &s.keys);
    assert_ok(uc_objstore_read(store, pool, COMMIT0, 0, -1, &data, &len));
    s = vend(pool, "", 0);
    store = open_vended(pool, "", &s.keys);
    assert_ok(uc_objstore_list(store, pool, "fixtures/", NULL, &objs));
    assert_ok(uc_objstore_read(store, pool, TABLE "/" COMMIT0, 0, -1, &data,
                               &len));
}

static void test_vended_write(void **state)
{
    apr_pool_t *pool = *state;
    uc_aws_session_t reader, writer;

    NEED_R2();
    reader = vend(pool, SCRATCH, 0);
    writer = vend(pool, SCRATCH, 1);
    assert_writes_scoped(pool, &reader.keys, &writer.keys, SCRATCH, "r2-test");
}

/* --- refusals ---------------------------------------------------------- */

static void test_wrong_token(void **state)
{
    apr_pool_t *pool = *state;
    uc_r2_request_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_R2();
    r = base_request(TABLE, 0);
    r.api_token = "wrong-token-DO-NOT-ECHO";
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_string_equal(err->message, "Cloudflare R2 refused the request "
                        "(HTTP 403, 10000).");
    assert_absent(err->message, r.api_token);
    assert_absent(err->cause, r.api_token);
    assert_null(s.keys.access_key_id);

    /* A token is valid for its own account only. */
    r = base_request(TABLE, 0);
    r.account_id = "ffffffffffffffffffffffffffffffff";
    assert_contains(uc_r2_temp_credentials(pool, &r, &s)->message,
                    "(HTTP 403, 10000)");
}

static void test_refused_by_cloudflare(void **state)
{
    apr_pool_t *pool = *state;
    uc_r2_request_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_R2();
    r = base_request(TABLE, 0);
    r.bucket = "no-such-bucket";
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "(HTTP 404, 10006)");
    /* Cloudflare's message is not passed on. */
    assert_absent(err->message, "does not exist");

    r = base_request(TABLE, 0);
    r.parent_access_key_id = "another-parent-key";
    assert_contains(uc_r2_temp_credentials(pool, &r, &s)->message,
                    "(HTTP 403, 10003)");
}

/* What Cloudflare would refuse is refused before any call. */
static void test_invalid(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const accounts[] = {
        "", "0123456789abcdef0123456789abcde", "../../../../../../../x",
        "0123456789abcdef0123456789abcdef0",
        "0123456789abcdef0123456789abcdeg",
    };
    static const char *const buckets[] = {
        "", "ab", "Unicat-test", "-unicat", "unicat-", "uni_cat", "uni.cat",
        "unicat/x", "unicat\n",
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    };
    static const char *const prefixes[] = {
        "/tables", "a\nb", "a\tb", "a\x7f", "\xc3\x28",
    };
    char *long_prefix = apr_palloc(pool, 1026);
    uc_r2_request_t r;
    uc_aws_session_t s;
    int seen, i;

    NEED_R2();
    seen = calls_seen();
    for (i = 0; i < (int)(sizeof(accounts) / sizeof(*accounts)); i++) {
        r = base_request(TABLE, 0);
        r.account_id = accounts[i];
        assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    }
    for (i = 0; i < (int)(sizeof(buckets) / sizeof(*buckets)); i++) {
        r = base_request(TABLE, 0);
        r.bucket = buckets[i];
        assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    }
    for (i = 0; i < (int)(sizeof(prefixes) / sizeof(*prefixes)); i++) {
        r = base_request(prefixes[i], 0);
        assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    }
    memset(long_prefix, 'p', 1025);
    long_prefix[1025] = '\0';
    r = base_request(long_prefix, 0);
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));

    r = base_request(TABLE, 0);
    r.account_id = NULL;
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r = base_request(TABLE, 0);
    r.bucket = NULL;
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r = base_request(TABLE, 0);
    r.ttl_s = 899;
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r.ttl_s = 604801;
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r = base_request(TABLE, 0);
    r.api_token = NULL;
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r.api_token = "";
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r.api_token = "token\r\nX-Injected: 1";
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    r = base_request(TABLE, 0);
    r.parent_access_key_id = "";
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    /* The token goes over https, or to the loopback host. */
    r = base_request(TABLE, 0);
    r.api_base = "http://api.cloudflare.com/client/v4";
    assert_invalid(uc_r2_temp_credentials(pool, &r, &s));
    assert_int_equal(calls_seen(), seen);

    /* The longest prefix is fine. */
    long_prefix[1024] = '\0';
    r = base_request(long_prefix, 0);
    assert_ok(uc_r2_temp_credentials(pool, &r, &s));
}

/* --- failures ---------------------------------------------------------- */

static void test_unreachable(void **state)
{
    apr_pool_t *pool = *state;
    uc_r2_request_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_R2();
    r = base_request(TABLE, 0);
    r.api_base = apr_psprintf(pool, "http://127.0.0.1:%d/client/v4",
                              closed_port());
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 503, "TEMPORARILY_UNAVAILABLE");
    assert_contains(err->message, "Cloudflare R2");
    assert_true(err->retry_after > 0);
    assert_absent(err->message, r.api_token);
    assert_absent(err->cause, r.api_token);
}

static void test_timeout(void **state)
{
    apr_pool_t *pool = *state;
    uc_r2_request_t r;
    uc_aws_session_t s;
    uc_error_t *err;
    apr_time_t start;

    NEED_R2();
    r = base_request(TABLE, 0);
    r.bucket = "hang-bucket";
    r.timeout_ms = 500;
    start = apr_time_now();
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 503, "TEMPORARILY_UNAVAILABLE");
    assert_contains(err->message, "500 ms");
    if (apr_time_now() - start > apr_time_from_msec(1200))
        fail_msg("the call took %" APR_INT64_T_FMT " ms",
                 (apr_int64_t)apr_time_as_msec(apr_time_now() - start));
}

static void test_malformed_answers(void **state)
{
    apr_pool_t *pool = *state;
    uc_r2_request_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_R2();
    r = base_request(TABLE, 0);
    r.bucket = "no-credentials-bucket";
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_string_equal(err->message,
                        "Cloudflare R2 answered without credentials.");
    assert_null(s.keys.access_key_id);

    r.bucket = "not-json-bucket";
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "not JSON");

    /* S3 is no Cloudflare API: its XML error names no code. */
    r = base_request(TABLE, 0);
    r.api_base = env("UNICAT_S3_ENDPOINT");
    err = uc_r2_temp_credentials(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_string_equal(err->message,
                        "Cloudflare R2 refused the request (HTTP 400).");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_vend),
        UC_POOL_TEST(test_vended_read),
        UC_POOL_TEST(test_vended_write),
        UC_POOL_TEST(test_wrong_token),
        UC_POOL_TEST(test_refused_by_cloudflare),
        UC_POOL_TEST(test_invalid),
        UC_POOL_TEST(test_unreachable),
        UC_POOL_TEST(test_timeout),
        UC_POOL_TEST(test_malformed_answers),
    };
    int rc;

    uc_test_init();
    if (uc_cloud_init(uc_test_global_pool) != NULL
        || uc_objstore_init(uc_test_global_pool) != NULL) {
        fprintf(stderr, "libcurl could not be set up\n");
        return 2;
    }
    rc = cmocka_run_group_tests_name("r2", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
