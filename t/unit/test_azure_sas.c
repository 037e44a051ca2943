/* SPDX-License-Identifier: Apache-2.0 */
/* Azure service SAS against azurite, which checks them as Azure does
 * (t/azure/with-azurite.sh): a blob SAS reads its blob and nothing else, a
 * container SAS lists, and a changed signature, a missing permission or a
 * past expiry is refused with 403. */
#include "uc_test.h"

#include <curl/curl.h>

#include "../../src/core/uc_percent.h"
#include "../../src/objstore/uc_azure_sas.h"

static const char *need_env(const char *name)
{
    const char *v = getenv(name);

    if (v == NULL || *v == '\0')
        fail_msg("%s is not set: run this test under t/azure/with-azurite.sh",
                 name);
    return v;
}

typedef struct body {
    apr_pool_t *pool;
    char *text;
} body_t;

static size_t collect(char *data, size_t size, size_t n, void *baton)
{
    body_t *b = baton;

    b->text = apr_pstrcat(b->pool, b->text,
                          apr_pstrndup(b->pool, data, size * n), NULL);
    return size * n;
}

/* The status of METHOD on the blob (or container, with `extra`) under
 * `query`; the body goes to *text. */
static long request(apr_pool_t *pool, const char *method, const char *blob,
                    const char *extra, const char *query, char **text)
{
    CURL *c = curl_easy_init();
    body_t b = { pool, "" };
    struct curl_slist *headers = NULL;
    const char *url = apr_pstrcat(
        pool, need_env("UNICAT_AZURE_ENDPOINT"), "/",
        need_env("UNICAT_AZURE_CONTAINER"), blob ? "/" : "",
        blob ? uc_percent_encode(pool, blob, strlen(blob), "/") : "", "?",
        extra ? extra : "", extra ? "&" : "", query, NULL);
    long status = 0;

    assert_non_null(c);
    headers = curl_slist_append(headers, "x-ms-version: 2022-11-02");
    headers = curl_slist_append(headers, "x-ms-blob-type: BlockBlob");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    if (!strcmp(method, "PUT")) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, "replaced");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 8L);
    }
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    if (text)
        *text = b.text;
    return status;
}

static uc_azure_sas_t blob_sas(const char *permissions, apr_time_t expiry)
{
    uc_azure_sas_t sas = { 0 };

    sas.account = need_env("UNICAT_AZURE_ACCOUNT");
    sas.account_key = need_env("UNICAT_AZURE_KEY");
    sas.container = need_env("UNICAT_AZURE_CONTAINER");
    sas.blob = need_env("UNICAT_AZURE_BLOB");
    sas.permissions = permissions;
    sas.start = apr_time_now() - apr_time_from_sec(300);
    sas.expiry = expiry;
    sas.allow_http = 1;
    return sas;
}

#define IN_AN_HOUR (apr_time_now() + apr_time_from_sec(3600))

static void test_blob_sas_reads_its_blob(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_sas_t sas = blob_sas("r", IN_AN_HOUR);
    const char *blob = need_env("UNICAT_AZURE_BLOB"), *query;
    char *text;

    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(request(pool, "GET", blob, NULL, query, &text), 200);
    assert_string_equal(text, need_env("UNICAT_AZURE_TEXT"));
    /* Nothing else: another blob, a write, the container's list. */
    assert_int_equal(request(pool, "GET", "tables/t1/other.parquet", NULL,
                             query, NULL), 403);
    assert_int_equal(request(pool, "PUT", blob, NULL, query, NULL), 403);
    assert_int_equal(request(pool, "GET", NULL, "restype=container&comp=list",
                             query, NULL), 403);
    /* Without a start it is valid from now on. */
    sas.start = 0;
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_null(strstr(query, "st="));
    assert_int_equal(request(pool, "GET", blob, NULL, query, NULL), 200);
}

static void test_changed_or_expired_sas_is_refused(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_sas_t sas = blob_sas("r", IN_AN_HOUR);
    const char *blob = need_env("UNICAT_AZURE_BLOB"), *query, *sig;
    char *tampered;

    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    tampered = apr_pstrdup(pool, query);
    sig = strstr(tampered, "sig=");
    assert_non_null(sig);
    tampered[sig - tampered + 4] = tampered[sig - tampered + 4] == 'A' ? 'B'
                                                                      : 'A';
    assert_int_equal(request(pool, "GET", blob, NULL, tampered, NULL), 403);
    /* Signed for read, presented as read-write. */
    tampered = apr_pstrdup(pool, query);
    memcpy(strstr(tampered, "sp=r") + 3, "w", 1);
    assert_int_equal(request(pool, "GET", blob, NULL, tampered, NULL), 403);
    /* Another key. */
    sas.account_key = "c2VjcmV0LWtleS1vZi1hbm90aGVyLWFjY291bnQ=";
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(request(pool, "GET", blob, NULL, query, NULL), 403);
    /* Expired a minute ago. */
    sas = blob_sas("r", apr_time_now() - apr_time_from_sec(60));
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(request(pool, "GET", blob, NULL, query, NULL), 403);
}

static void test_write_and_container_sas(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_sas_t sas = blob_sas("rcw", IN_AN_HOUR);
    const char *query;
    char *text;

    sas.blob = "tables/t1/written.parquet";
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(request(pool, "PUT", sas.blob, NULL, query, NULL), 201);
    assert_int_equal(request(pool, "GET", sas.blob, NULL, query, &text), 200);
    assert_string_equal(text, "replaced");
    sas.blob = NULL;
    sas.permissions = "rl";
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_non_null(strstr(query, "sr=c"));
    assert_int_equal(request(pool, "GET", NULL, "restype=container&comp=list",
                             query, &text), 200);
    assert_non_null(strstr(text, "written.parquet"));
    assert_int_equal(request(pool, "GET", need_env("UNICAT_AZURE_BLOB"),
                             NULL, query, NULL), 200);
}

static void test_refusals(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_sas_t sas = blob_sas("r", IN_AN_HOUR);
    const char *query;
    uc_error_t *err;

    sas.permissions = "wr";            /* out of Azure's order */
    assert_err(uc_azure_sas_sign(pool, &sas, &query), 400, NULL);
    sas.permissions = "rq";
    assert_err(uc_azure_sas_sign(pool, &sas, &query), 400, NULL);
    sas.permissions = "";
    assert_err(uc_azure_sas_sign(pool, &sas, &query), 400, NULL);
    sas.permissions = "r";
    sas.expiry = sas.start;
    assert_err(uc_azure_sas_sign(pool, &sas, &query), 400, NULL);
    sas.expiry = IN_AN_HOUR;
    sas.account_key = "not base64!";
    err = uc_azure_sas_sign(pool, &sas, &query);
    assert_err(err, 400, NULL);
    assert_null(strstr(err->message, "not base64!"));
    sas.account_key = need_env("UNICAT_AZURE_KEY");
    sas.container = "";
    assert_err(uc_azure_sas_sign(pool, &sas, &query), 400, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_blob_sas_reads_its_blob),
        UC_POOL_TEST(test_changed_or_expired_sas_is_refused),
        UC_POOL_TEST(test_write_and_container_sas),
        UC_POOL_TEST(test_refusals),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    uc_test_init();
    rc = cmocka_run_group_tests_name("azure_sas", tests, NULL, NULL);
    uc_test_fini();
    curl_global_cleanup();
    return rc;
}
