/* SPDX-License-Identifier: Apache-2.0 */
/* GCS V4 signed URLs against Google's conformance cases
 * (t/objstore/gcs-v4): every signingV4Tests case gives the expected
 * canonical request, string to sign and URL, signed with the cases' dummy
 * service account. */
#include "uc_test.h"

#include <jansson.h>

#include "../../src/objstore/uc_gcs_v4.h"

static const char *suite_dir(void)
{
    const char *env = getenv("UNICAT_GCS_V4_SUITE");

    return env ? env : "t/objstore/gcs-v4";
}

static json_t *load(const char *name)
{
    json_error_t jerr;
    json_t *v = json_load_file(apr_pstrcat(uc_test_global_pool, suite_dir(),
                                           "/", name, NULL), 0, &jerr);
    if (!v)
        fail_msg("%s: %s", name, jerr.text);
    return v;
}

static apr_array_header_t *pairs(apr_pool_t *pool, json_t *object)
{
    apr_array_header_t *out = apr_array_make(pool, 4, sizeof(uc_gcs_pair_t));
    const char *name;
    json_t *value;

    json_object_foreach(object, name, value) {
        uc_gcs_pair_t *p = apr_array_push(out);
        p->name = name;
        p->value = json_string_value(value);
    }
    return out;
}

/* The endpoint a client library would pick: an explicit host name, then
 * its endpoint, then the emulator's, then the universe's storage host. */
static const char *endpoint_of(apr_pool_t *pool, json_t *c)
{
    const char *scheme = json_string_value(json_object_get(c, "scheme"));
    const char *hostname = json_string_value(json_object_get(c, "hostname"));
    const char *client = json_string_value(json_object_get(c,
                                                           "clientEndpoint"));
    const char *emulator = json_string_value(json_object_get(
        c, "emulatorHostname"));
    const char *universe = json_string_value(json_object_get(
        c, "universeDomain"));
    const char *host = hostname ? hostname : client ? client : emulator;

    if (!scheme)
        scheme = "https";
    if (host)
        return strstr(host, "://") ? host
                                   : apr_pstrcat(pool, scheme, "://", host,
                                                 NULL);
    return apr_pstrcat(pool, scheme, "://storage.",
                       universe ? universe : "googleapis.com", NULL);
}

/* "2019-02-01T09:00:00Z" */
static apr_time_t utc(const char *text)
{
    apr_time_exp_t t = { 0 };
    apr_time_t out;

    assert_int_equal(sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2dZ", &t.tm_year,
                            &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min,
                            &t.tm_sec), 6);
    t.tm_year -= 1900;
    t.tm_mon -= 1;
    assert_int_equal(apr_time_exp_gmt_get(&out, &t), APR_SUCCESS);
    return out;
}

/* The one case whose expected canonical request signs a path its URL does
 * not have (/bucket/object under a virtual-hosted URL whose path is
 * /object): a service that checks the URL against its own path could not
 * verify it, so the URL is signed over the path it carries. */
#define SELF_INCONSISTENT "Universe domain with virtual hosted style"

static void test_conformance_cases(void **state)
{
    apr_pool_t *pool = *state;
    json_t *account = load("test_service_account.not-a-test.json");
    json_t *suite = load("v4_signatures.json");
    json_t *cases = json_object_get(suite, "signingV4Tests"), *c;
    size_t i;
    int failures = 0;

    assert_true(json_array_size(cases) >= 29);
    json_array_foreach(cases, i, c) {
        const char *style = json_string_value(json_object_get(c,
                                                              "urlStyle"));
        uc_gcs_v4_t req = { 0 };
        const char *url, *canonical, *to_sign;
        uc_error_t *err;

        req.method = json_string_value(json_object_get(c, "method"));
        req.endpoint = endpoint_of(pool, c);
        req.style = !style ? UC_GCS_PATH_STYLE
                  : !strcmp(style, "VIRTUAL_HOSTED_STYLE")
                  ? UC_GCS_VIRTUAL_HOSTED
                  : !strcmp(style, "BUCKET_BOUND_HOSTNAME")
                  ? UC_GCS_BUCKET_BOUND : UC_GCS_PATH_STYLE;
        req.bucket_host = json_string_value(json_object_get(
            c, "bucketBoundHostname"));
        req.bucket = json_string_value(json_object_get(c, "bucket"));
        req.object = json_string_value(json_object_get(c, "object"));
        req.headers = pairs(pool, json_object_get(c, "headers"));
        req.query = pairs(pool, json_object_get(c, "queryParameters"));
        req.now = utc(json_string_value(json_object_get(c, "timestamp")));
        req.expires = json_integer_value(json_object_get(c, "expiration"));
        req.client_email = json_string_value(json_object_get(account,
                                                             "client_email"));
        req.private_key_pem = json_string_value(json_object_get(
            account, "private_key"));
        err = uc_gcs_v4_sign(pool, &req, &url, &canonical, &to_sign);
        if (err) {
            print_message("%s: %s\n", json_string_value(json_object_get(
                              c, "description")), err->message);
            failures++;
            continue;
        }
        if (!strcmp(json_string_value(json_object_get(c, "description")),
                    SELF_INCONSISTENT)) {
            /* The same URL but for the signature, signed over its own
             * path. */
            const char *want = json_string_value(json_object_get(
                c, "expectedUrl"));
            const char *cut = strstr(want, "&X-Goog-Signature=");

            assert_non_null(cut);
            assert_memory_equal(url, want, (size_t)(cut - want));
            assert_non_null(strstr(canonical, "\n/test-object\n"));
            continue;
        }
        if (strcmp(canonical, json_string_value(json_object_get(
                       c, "expectedCanonicalRequest"))) ||
            strcmp(to_sign, json_string_value(json_object_get(
                       c, "expectedStringToSign"))) ||
            strcmp(url, json_string_value(json_object_get(c,
                                                          "expectedUrl")))) {
            print_message("%s:\n%s\n---\n%s\n---\n%s\n", json_string_value(
                              json_object_get(c, "description")), canonical,
                          to_sign, url);
            failures++;
        }
    }
    json_decref(account);
    json_decref(suite);
    assert_int_equal(failures, 0);
}

static void test_refusals(void **state)
{
    apr_pool_t *pool = *state;
    uc_gcs_v4_t req = { "GET", NULL, UC_GCS_PATH_STYLE, NULL, "b", "o",
                        NULL, NULL, 0, 10, "sa@x.iam.gserviceaccount.com",
                        "-----BEGIN PRIVATE KEY-----\nnot a key\n"
                        "-----END PRIVATE KEY-----\n" };
    const char *url;
    uc_error_t *err;

    err = uc_gcs_v4_sign(pool, &req, &url, NULL, NULL);
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    assert_null(strstr(err->message, "not a key"));
    req.expires = 0;
    assert_err(uc_gcs_v4_sign(pool, &req, &url, NULL, NULL), 400, NULL);
    req.expires = UC_GCS_V4_MAX_EXPIRES + 1;
    assert_err(uc_gcs_v4_sign(pool, &req, &url, NULL, NULL), 400, NULL);
    req.expires = 10;
    req.endpoint = "storage.googleapis.com";
    assert_err(uc_gcs_v4_sign(pool, &req, &url, NULL, NULL), 400, NULL);
    req.endpoint = NULL;
    req.style = UC_GCS_BUCKET_BOUND;
    assert_err(uc_gcs_v4_sign(pool, &req, &url, NULL, NULL), 400, NULL);
    req.style = UC_GCS_PATH_STYLE;
    req.bucket = "";
    assert_err(uc_gcs_v4_sign(pool, &req, &url, NULL, NULL), 400, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_conformance_cases),
        UC_POOL_TEST(test_refusals),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("gcs_v4", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
