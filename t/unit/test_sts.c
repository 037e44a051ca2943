/* SPDX-License-Identifier: Apache-2.0 */
/* STS AssumeRole against the stand-in of t/s3/sts.mjs, which verifies the
 * SigV4 of each call with aws4 and registers the credentials it vends with
 * the S3 proxy; the proxy then enforces their session policy, so the tests
 * check what vended keys can and cannot do through the s3:// store. The
 * session policy and the role ARN check need no server. Run under
 * t/s3/with-s3.sh; the tests that call STS skip without
 * UNICAT_STS_ENDPOINT. */
#include "uc_test.h"

#include "uc_test_s3.h"

#include <apr_time.h>
#include <jansson.h>

#include "../../src/cloud/uc_sts.h"

#define TABLE "fixtures/simple_table"
#define COMMIT0 "_delta_log/00000000000000000000.json"

/* The tests that need the stand-in skip without it. */
#define NEED_STS() do {                                                     \
        if (!getenv("UNICAT_STS_ENDPOINT")) {                               \
            skip();                                                         \
            return;                                                         \
        }                                                                   \
    } while (0)

/* A fresh session name each call: "uc-" and 16 hex digits. */
static const char *session_name(apr_pool_t *pool)
{
    static unsigned counter;

    return apr_psprintf(pool, "uc-%08x%08x", (unsigned)getpid(), ++counter);
}

static uc_sts_assume_role_t base_request(apr_pool_t *pool)
{
    uc_sts_assume_role_t r;

    memset(&r, 0, sizeof(r));
    r.endpoint = env("UNICAT_STS_ENDPOINT");
    r.region = env("UNICAT_S3_REGION");
    r.base.access_key_id = env("UNICAT_S3_KEY");
    r.base.secret_access_key = env("UNICAT_S3_SECRET");
    r.role_arn = env("UNICAT_STS_ROLE_ARN");
    r.external_id = env("UNICAT_STS_EXTERNAL_ID");
    r.session_name = session_name(pool);
    r.timeout_ms = 10000;
    return r;
}

/* Credentials limited to `prefix`, for reading or writing. */
static uc_aws_session_t assume_for(apr_pool_t *pool, const char *prefix,
                                   int write)
{
    uc_sts_assume_role_t r = base_request(pool);
    uc_aws_session_t s;

    r.policy = uc_s3_session_policy(pool, env("UNICAT_S3_BUCKET"), prefix,
                                    write);
    assert_ok(uc_sts_assume_role(pool, &r, &s));
    return s;
}

static void assert_absent(const char *text, const char *secret)
{
    if (text && secret && strstr(text, secret))
        fail_msg("\"%s\" reveals a secret", text);
}

/* The error names no secret of the call, in its message or its cause. */
static void assert_no_secret(const uc_error_t *err,
                             const uc_sts_assume_role_t *r)
{
    assert_absent(err->message, r->base.secret_access_key);
    assert_absent(err->message, r->base.session_token);
    assert_absent(err->cause, r->base.secret_access_key);
    assert_absent(err->cause, r->base.session_token);
}

/* --- the session policy ------------------------------------------------ */

static void test_policy_read(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(
        uc_s3_session_policy(pool, "bkt", "tables/t1", 0),
        "{\"Version\":\"2012-10-17\",\"Statement\":["
        "{\"Effect\":\"Allow\",\"Action\":\"s3:GetO*\","
        "\"Resource\":\"arn:aws:s3:::bkt/tables/t1/*\"},"
        "{\"Effect\":\"Allow\",\"Action\":\"s3:ListBucket\","
        "\"Resource\":\"arn:aws:s3:::bkt\",\"Condition\":{\"StringLike\":"
        "{\"s3:prefix\":[\"tables/t1\",\"tables/t1/*\"]}}},"
        "{\"Effect\":\"Allow\",\"Action\":\"s3:GetBucketLocation\","
        "\"Resource\":\"*\"}]}");
}

static void test_policy_write(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(
        uc_s3_session_policy(pool, "bkt", "tables/t1", 1),
        "{\"Version\":\"2012-10-17\",\"Statement\":["
        "{\"Effect\":\"Allow\",\"Action\":[\"s3:GetO*\",\"s3:PutO*\","
        "\"s3:DeleteO*\",\"s3:*Multipart*\"],"
        "\"Resource\":\"arn:aws:s3:::bkt/tables/t1/*\"},"
        "{\"Effect\":\"Allow\",\"Action\":\"s3:ListBucket\","
        "\"Resource\":\"arn:aws:s3:::bkt\",\"Condition\":{\"StringLike\":"
        "{\"s3:prefix\":[\"tables/t1\",\"tables/t1/*\"]}}},"
        "{\"Effect\":\"Allow\",\"Action\":\"s3:GetBucketLocation\","
        "\"Resource\":\"*\"}]}");
}

static void test_policy_whole_bucket(void **state)
{
    apr_pool_t *pool = *state;

    /* No prefix: every object, and listing without a condition. */
    assert_string_equal(
        uc_s3_session_policy(pool, "bkt", "", 0),
        "{\"Version\":\"2012-10-17\",\"Statement\":["
        "{\"Effect\":\"Allow\",\"Action\":\"s3:GetO*\","
        "\"Resource\":\"arn:aws:s3:::bkt/*\"},"
        "{\"Effect\":\"Allow\",\"Action\":\"s3:ListBucket\","
        "\"Resource\":\"arn:aws:s3:::bkt\"},"
        "{\"Effect\":\"Allow\",\"Action\":\"s3:GetBucketLocation\","
        "\"Resource\":\"*\"}]}");
}

static void test_policy_escapes(void **state)
{
    apr_pool_t *pool = *state;
    const char *p = uc_s3_session_policy(pool, "bkt", "a\"b\\c", 0);
    json_error_t error;
    json_t *doc = json_loads(p, 0, &error);

    assert_contains(p, "\"arn:aws:s3:::bkt/a\\\"b\\\\c/*\"");
    assert_contains(p, "[\"a\\\"b\\\\c\",\"a\\\"b\\\\c/*\"]");
    assert_non_null(doc);
    json_decref(doc);
    /* IAM wildcards in a key are literal characters, not patterns. */
    p = uc_s3_session_policy(pool, "bkt", "x*y?z$", 1);
    assert_contains(p, "\"arn:aws:s3:::bkt/x${*}y${?}z${$}/*\"");
    assert_contains(p, "[\"x${*}y${?}z${$}\",\"x${*}y${?}z${$}/*\"]");
}

static void test_policy_worst_case_fits(void **state)
{
    apr_pool_t *pool = *state;
    char bucket[64], prefix[513];
    json_error_t error;
    json_t *doc;
    const char *p;

    memset(bucket, 'b', 63);
    bucket[63] = '\0';
    memset(prefix, 'p', 512);
    prefix[512] = '\0';
    prefix[100] = '/';
    p = uc_s3_session_policy(pool, bucket, prefix, 1);
    print_message("worst case: %zu bytes (read %zu)\n", strlen(p),
                  strlen(uc_s3_session_policy(pool, bucket, prefix, 0)));
    assert_true(strlen(p) <= UC_S3_SESSION_POLICY_MAX);
    assert_true(strlen(uc_s3_session_policy(pool, bucket, prefix, 0))
                < strlen(p));
    assert_null(strpbrk(p, " \n\t"));
    doc = json_loads(p, 0, &error);
    assert_non_null(doc);
    assert_int_equal(json_array_size(json_object_get(doc, "Statement")), 3);
    json_decref(doc);
}

/* --- role ARNs --------------------------------------------------------- */

static void test_role_arn_valid(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const valid[] = {
        "arn:aws:iam::123456789012:role/unicat",
        "arn:aws-cn:iam::123456789012:role/unicat",
        "arn:aws-us-gov:iam::000000000000:role/unicat",
        "arn:aws:iam::123456789012:role/path/to/Name_+=,.@-9",
        "arn:aws:iam::123456789012:role/ab",
    };
    size_t i;

    for (i = 0; i < sizeof(valid) / sizeof(*valid); i++)
        if (uc_aws_role_arn_check(pool, "role_arn", valid[i]))
            fail_msg("refused %s", valid[i]);
}

static void test_role_arn_invalid(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const invalid[] = {
        "",
        "arn:aws:iam:::role/unicat",                  /* no account */
        "arn:aws:iam::12345678901:role/unicat",       /* 11 digits */
        "arn:aws:iam::1234567890123:role/unicat",     /* 13 digits */
        "arn:aws:iam::12345678901a:role/unicat",
        "arn:aws:iam::123456789012:user/unicat",
        "arn:aws:s3::123456789012:role/unicat",       /* other service */
        "arn:aws:sts::123456789012:role/unicat",
        "arn:aws-eu:iam::123456789012:role/unicat",   /* no such partition */
        "arn:aws:iam:us-east-1:123456789012:role/x",  /* IAM has no region */
        "arn:aws:iam::123456789012:role/",
        "arn:aws:iam::123456789012:role/a//b",
        "arn:aws:iam::123456789012:role/a/",
        "arn:aws:iam::123456789012:role//a",
        "arn:aws:iam::123456789012:role/un*cat",
        "arn:aws:iam::123456789012:role/un cat",
        "arn:aws:iam::123456789012:role/a\nb",
        " arn:aws:iam::123456789012:role/unicat",
        "ARN:aws:iam::123456789012:role/unicat",
    };
    char name[80], path[2100];
    uc_error_t *err;
    size_t i;

    for (i = 0; i < sizeof(invalid) / sizeof(*invalid); i++) {
        err = uc_aws_role_arn_check(pool, "credential.role_arn", invalid[i]);
        if (err == NULL)
            fail_msg("accepted \"%s\"", invalid[i]);
        assert_invalid(err);
        assert_contains(err->message, "credential.role_arn");
    }
    assert_invalid(uc_aws_role_arn_check(pool, "role_arn", NULL));
    /* A role name of 64 characters is the longest. */
    memset(name, 'n', 65);
    name[65] = '\0';
    assert_invalid(uc_aws_role_arn_check(
        pool, "role_arn", apr_pstrcat(pool, "arn:aws:iam::123456789012:role/",
                                      name, NULL)));
    name[64] = '\0';
    assert_ok(uc_aws_role_arn_check(
        pool, "role_arn", apr_pstrcat(pool, "arn:aws:iam::123456789012:role/",
                                      name, NULL)));
    /* 2048 characters at most in all. */
    memset(path, 'p', sizeof(path) - 1);
    path[sizeof(path) - 1] = '\0';
    for (i = 50; i < sizeof(path) - 1; i += 50)
        path[i] = '/';
    assert_invalid(uc_aws_role_arn_check(
        pool, "role_arn", apr_pstrcat(pool, "arn:aws:iam::123456789012:role/",
                                      path, "/x", NULL)));
}

/* --- AssumeRole -------------------------------------------------------- */

static void check_expiry(const uc_aws_session_t *s, apr_time_t before,
                         int duration_s)
{
    apr_time_t want = before + apr_time_from_sec(duration_s);

    if (s->expires < want - apr_time_from_sec(5)
        || s->expires > apr_time_now() + apr_time_from_sec(duration_s + 5))
        fail_msg("expiry %" APR_INT64_T_FMT " is not about now + %d s "
                 "(%" APR_INT64_T_FMT ")", (apr_int64_t)s->expires,
                 duration_s, (apr_int64_t)want);
}

static void test_assume_role(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s, again;
    apr_time_t before = apr_time_now();

    NEED_STS();
    r = base_request(pool);
    r.duration_s = 1800;
    assert_ok(uc_sts_assume_role(pool, &r, &s));
    assert_non_null(s.keys.access_key_id);
    assert_non_null(s.keys.secret_access_key);
    assert_non_null(s.keys.session_token);
    assert_int_equal(strncmp(s.keys.access_key_id, "ASIA", 4), 0);
    assert_string_not_equal(s.keys.access_key_id, r.base.access_key_id);
    assert_string_not_equal(s.keys.secret_access_key,
                            r.base.secret_access_key);
    check_expiry(&s, before, 1800);

    /* Each call vends new keys; no duration is an hour. */
    before = apr_time_now();
    r.duration_s = 0;
    r.session_name = session_name(pool);
    assert_ok(uc_sts_assume_role(pool, &r, &again));
    assert_string_not_equal(again.keys.access_key_id, s.keys.access_key_id);
    assert_string_not_equal(again.keys.secret_access_key,
                            s.keys.secret_access_key);
    assert_string_not_equal(again.keys.session_token, s.keys.session_token);
    check_expiry(&again, before, 3600);
}

static void test_assume_role_with_session_token(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_STS();
    r = base_request(pool);
    r.base.session_token = env("UNICAT_S3_SESSION_TOKEN");
    r.duration_s = 900;
    assert_ok(uc_sts_assume_role(pool, &r, &s));
    assert_int_equal(strncmp(s.keys.access_key_id, "ASIA", 4), 0);

    r.base.session_token = "another-session-token-DO-NOT-ECHO";
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "InvalidClientTokenId");
    assert_no_secret(err, &r);
    assert_null(s.keys.access_key_id);

    r.base.session_token = "token\r\nX-Injected: 1";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
}

/* The stand-in verifies with the region of the request's scope. */
static void test_assume_role_other_region(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;

    NEED_STS();
    r = base_request(pool);
    r.region = "eu-west-3";
    assert_ok(uc_sts_assume_role(pool, &r, &s));
    r.region = "us-east-1:sts";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.region = "";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
}

static void test_vended_read(void **state)
{
    apr_pool_t *pool = *state;
    uc_aws_session_t s;
    uc_aws_keys_t no_token;
    uc_objstore_t *store;
    apr_array_header_t *objs = NULL;
    char *data = NULL;
    apr_size_t len = 0;

    NEED_STS();
    s = assume_for(pool, TABLE, 0);
    store = open_vended(pool, TABLE, &s.keys);
    assert_ok(uc_objstore_read(store, pool, COMMIT0, 0, -1, &data, &len));
    assert_contains(data, "\"protocol\"");
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 5);

    /* A table whose name starts like this one's is outside the prefix. */
    store = open_vended(pool, "fixtures/simple_table_with_checkpoint",
                        &s.keys);
    assert_refused(uc_objstore_read(store, pool, COMMIT0, 0, -1, &data,
                                    &len), "AccessDenied");
    assert_refused(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs),
                   "AccessDenied");
    store = open_vended(pool, "paging", &s.keys);
    assert_refused(uc_objstore_read(store, pool, "obj-0000", 0, -1, &data,
                                    &len), "AccessDenied");
    /* Listing the bucket's root is not listing the prefix. */
    store = open_vended(pool, "", &s.keys);
    assert_refused(uc_objstore_list(store, pool, "", NULL, &objs),
                   "AccessDenied");

    /* The vended keys are nothing without their session token. */
    no_token = s.keys;
    no_token.session_token = NULL;
    store = open_vended(pool, TABLE, &no_token);
    assert_refused(uc_objstore_read(store, pool, COMMIT0, 0, -1, &data,
                                    &len), "InvalidToken");
}

/* Outside the Delta fixtures, which other tests list. */
#define SCRATCH "sts/written"

static void test_vended_write(void **state)
{
    apr_pool_t *pool = *state;
    uc_aws_session_t reader, writer;

    NEED_STS();
    reader = assume_for(pool, SCRATCH, 0);
    writer = assume_for(pool, SCRATCH, 1);
    assert_writes_scoped(pool, &reader.keys, &writer.keys, SCRATCH, "sts-test");
}

static void test_wrong_secret(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_STS();
    r = base_request(pool);
    r.base.secret_access_key = "wrong-secret-DO-NOT-ECHO";
    r.base.session_token = env("UNICAT_S3_SESSION_TOKEN");
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "AWS STS");
    assert_contains(err->message, "SignatureDoesNotMatch");
    assert_contains(err->message, "403");
    assert_no_secret(err, &r);
    assert_absent(err->message, env("UNICAT_S3_SECRET"));

    r.base.access_key_id = "AKIDUNKNOWN";
    assert_contains(uc_sts_assume_role(pool, &r, &s)->message,
                    "InvalidClientTokenId");
}

static void test_access_denied(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_STS();
    r = base_request(pool);
    r.external_id = "not-the-external-id";
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "AccessDenied");
    /* STS's message echoes the role: it is not passed on. */
    assert_absent(err->message, r.role_arn);

    r.external_id = NULL;
    assert_contains(uc_sts_assume_role(pool, &r, &s)->message,
                    "AccessDenied");
    r = base_request(pool);
    r.role_arn = "arn:aws:iam::123456789012:role/other";
    assert_contains(uc_sts_assume_role(pool, &r, &s)->message,
                    "AccessDenied");
}

static void test_refused_parameters(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    char *long_policy;
    uc_error_t *err;

    NEED_STS();
    r = base_request(pool);
    /* What STS would refuse is refused before calling it. */
    r.duration_s = 899;
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.duration_s = 43201;
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.duration_s = 43200;
    assert_ok(uc_sts_assume_role(pool, &r, &s));
    r.session_name = "u";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.session_name = "uc-with space";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.session_name = session_name(pool);
    r.role_arn = "arn:aws:iam::123456789012:user/unicat-test";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.role_arn = env("UNICAT_STS_ROLE_ARN");
    r.base.secret_access_key = NULL;
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.base.secret_access_key = env("UNICAT_S3_SECRET");
    r.base.access_key_id = "AKID:more";
    assert_invalid(uc_sts_assume_role(pool, &r, &s));
    r.base.access_key_id = env("UNICAT_S3_KEY");

    /* Policies are STS's to judge. */
    r.policy = "{\"Version\":\"2012-10-17\",\"Statement\":[";
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "ValidationError");
    long_policy = apr_palloc(pool, 2100);
    memset(long_policy, ' ', 2099);
    long_policy[2099] = '\0';
    memcpy(long_policy, "{\"Statement\":[]}", 16);
    r.policy = long_policy;
    assert_contains(uc_sts_assume_role(pool, &r, &s)->message,
                    "ValidationError");
    /* Characters the form must encode reach STS intact. */
    r.policy = "{\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:Get"
               "Object\",\"Resource\":\"arn:aws:s3:::b/a+b&c=d %/*\"}]}";
    assert_ok(uc_sts_assume_role(pool, &r, &s));
}

static void test_unreachable(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_STS();
    r = base_request(pool);
    r.endpoint = apr_psprintf(pool, "http://127.0.0.1:%d", closed_port());
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 503, "TEMPORARILY_UNAVAILABLE");
    assert_contains(err->message, "AWS STS");
    assert_true(err->retry_after > 0);
    assert_no_secret(err, &r);
}

static void test_timeout(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    uc_error_t *err;
    apr_time_t start;

    NEED_STS();
    r = base_request(pool);
    r.session_name = "uc-hang";
    r.timeout_ms = 500;
    start = apr_time_now();
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 503, "TEMPORARILY_UNAVAILABLE");
    assert_contains(err->message, "500 ms");
    if (apr_time_now() - start > apr_time_from_msec(1200))
        fail_msg("the call took %" APR_INT64_T_FMT " ms",
                 (apr_int64_t)apr_time_as_msec(apr_time_now() - start));
}

static void test_malformed_answers(void **state)
{
    apr_pool_t *pool = *state;
    uc_sts_assume_role_t r;
    uc_aws_session_t s;
    uc_error_t *err;

    NEED_STS();
    r = base_request(pool);
    r.session_name = "uc-no-credentials";
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_string_equal(err->message,
                        "AWS STS answered without credentials.");
    assert_null(s.keys.access_key_id);

    r.session_name = "uc-not-xml";
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "not XML");

    /* S3 is no STS: its XML error is not STS's, and it names no code. */
    r = base_request(pool);
    r.endpoint = env("UNICAT_S3_ENDPOINT");
    err = uc_sts_assume_role(pool, &r, &s);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_string_equal(err->message,
                        "AWS STS refused the request (HTTP 400).");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_policy_read),
        UC_POOL_TEST(test_policy_write),
        UC_POOL_TEST(test_policy_whole_bucket),
        UC_POOL_TEST(test_policy_escapes),
        UC_POOL_TEST(test_policy_worst_case_fits),
        UC_POOL_TEST(test_role_arn_valid),
        UC_POOL_TEST(test_role_arn_invalid),
        UC_POOL_TEST(test_assume_role),
        UC_POOL_TEST(test_assume_role_with_session_token),
        UC_POOL_TEST(test_assume_role_other_region),
        UC_POOL_TEST(test_vended_read),
        UC_POOL_TEST(test_vended_write),
        UC_POOL_TEST(test_wrong_secret),
        UC_POOL_TEST(test_access_denied),
        UC_POOL_TEST(test_refused_parameters),
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
    rc = cmocka_run_group_tests_name("sts", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
