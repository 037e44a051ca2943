/* SPDX-License-Identifier: Apache-2.0 */
/* Azure SAS against azurite, which checks them as Azure does
 * (t/azure/with-azurite.sh): a blob SAS reads its blob and nothing else, a
 * container SAS lists, and a changed signature, a missing permission or a
 * past expiry is refused with 403. Service SAS are signed with the account
 * key; user delegation SAS with a key azurite's OAuth instance hands out
 * for a token from the Azure AD stand-in, both fetched by our clients.
 * Directory SAS (sr=d), which azurite does not know (it has no
 * hierarchical namespace), are checked against what Microsoft's own SDK
 * signs for the same grant. */
#include "uc_test.h"

#include <curl/curl.h>

#include "../../src/cloud/uc_azure_ad.h"
#include "../../src/cloud/uc_azure_delegation.h"
#include "../../src/cloud/uc_cloud_http.h"
#include "../../src/core/uc_bytes.h"
#include "../../src/core/uc_percent.h"
#include "../../src/core/uc_time.h"
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
    assert_int_equal(request(pool, "GET", NULL, "restype=container&comp=list"
                             "&prefix=tables%2F", query, &text), 200);
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

/* --- Azure AD tokens, user delegation keys and SAS ------------------- */

#define TIMEOUT_MS 20000L

/* The OAuth half of the harness; older harnesses lack it. */
static int have_oauth(void)
{
    const char *v = getenv("UNICAT_AZURE_OAUTH_ENDPOINT");

    return v && *v;
}

#define NEED_OAUTH() do { if (!have_oauth()) skip(); } while (0)

static uc_azure_ad_request_t ad_request(void)
{
    uc_azure_ad_request_t req = { 0 };

    req.authority = need_env("UNICAT_AZURE_AD_AUTHORITY");
    req.tenant_id = need_env("UNICAT_AZURE_TENANT_ID");
    req.client_id = need_env("UNICAT_AZURE_CLIENT_ID");
    req.client_secret = need_env("UNICAT_AZURE_CLIENT_SECRET");
    req.timeout_ms = TIMEOUT_MS;
    req.ca_file = need_env("UNICAT_AZURE_CA_FILE");
    return req;
}

/* The message and the cause of `err` are free of `secret`. */
static void assert_not_quoted(const uc_error_t *err, const char *secret)
{
    assert_non_null(err);
    assert_null(strstr(err->message, secret));
    if (err->cause)
        assert_null(strstr(err->cause, secret));
}

static void test_ad_token(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_ad_request_t req;
    uc_azure_token_t token;
    apr_time_t before = apr_time_now();
    const char *dot;

    NEED_OAUTH();
    req = ad_request();
    assert_ok(uc_azure_ad_token(pool, &req, &token));
    /* A JWT: header, claims and signature. */
    dot = strchr(token.access_token, '.');
    assert_non_null(dot);
    assert_non_null(strchr(dot + 1, '.'));
    assert_true(token.expires >= before + apr_time_from_sec(3599));
    assert_true(token.expires <= apr_time_now() + apr_time_from_sec(3599));
    /* A trailing slash on the authority is the same authority. */
    req.authority = apr_pstrcat(pool, req.authority, "/", NULL);
    assert_ok(uc_azure_ad_token(pool, &req, &token));
}

static void test_ad_refuses_wrong_secret(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_ad_request_t req;
    uc_azure_token_t token;
    uc_error_t *err;

    NEED_OAUTH();
    req = ad_request();
    req.client_secret = "wrong~Secret+of/another=app";
    err = uc_azure_ad_token(pool, &req, &token);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "invalid_client");
    assert_contains(err->message, "401");
    /* The stand-in quotes the secret in its description. */
    assert_not_quoted(err, req.client_secret);
    assert_not_quoted(err, "AADSTS");
    assert_null(token.access_token);
    /* Another directory: AAD's invalid_request, a 400 of its own. */
    req = ad_request();
    req.tenant_id = "contoso.onmicrosoft.com";
    err = uc_azure_ad_token(pool, &req, &token);
    assert_err(err, 502, NULL);
    assert_contains(err->message, "invalid_request");
    assert_not_quoted(err, req.client_secret);
}

static void test_ad_unreachable_is_503(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_ad_request_t req;
    uc_azure_token_t token;
    uc_error_t *err;

    NEED_OAUTH();
    req = ad_request();
    /* Port 1 on loopback: nothing listens there. */
    req.authority = "https://127.0.0.1:1";
    err = uc_azure_ad_token(pool, &req, &token);
    assert_err(err, 503, "TEMPORARILY_UNAVAILABLE");
    assert_contains(err->message, "Azure AD");
    assert_not_quoted(err, req.client_secret);
}

static void assert_ad_invalid(apr_pool_t *pool,
                              const uc_azure_ad_request_t *req)
{
    uc_azure_token_t token;
    uc_error_t *err = uc_azure_ad_token(pool, req, &token);

    assert_invalid(err);
    assert_not_quoted(err, req->client_secret);
}

/* Checked before anything is sent: no server needed. */
static void test_ad_request_shape(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_ad_request_t good = { 0 }, req;
    uc_azure_token_t token;

    good.tenant_id = "72F988BF-86f1-41af-91ab-2d7cd011db47";
    good.client_id = "5b3c2a1d-4e6f-4a8b-9c0d-1e2f3a4b5c6d";
    good.client_secret = "s3cr3t~value";
    good.authority = "http://login.example.com";
    assert_ad_invalid(pool, &good);      /* a secret over plain http */
    good.authority = "http://127.0.0.1.example.com:8080";
    assert_ad_invalid(pool, &good);
    good.authority = "ftp://127.0.0.1";
    assert_ad_invalid(pool, &good);
    /* Plain http to the loopback host is let through (to nobody). */
    good.authority = "http://127.0.0.1:1";
    assert_err(uc_azure_ad_token(pool, &good, &token), 503, NULL);
    good.authority = "https://127.0.0.1:1";
    req = good;
    req.tenant_id = "../common";
    assert_ad_invalid(pool, &req);
    req.tenant_id = "contoso";           /* not a domain */
    assert_ad_invalid(pool, &req);
    req.tenant_id = "contoso-.example.com";
    assert_ad_invalid(pool, &req);
    req.tenant_id = "72f988bf-86f1-41af-91ab-2d7cd011db4";
    assert_ad_invalid(pool, &req);
    req.tenant_id = NULL;
    assert_ad_invalid(pool, &req);
    req = good;
    req.client_id = "my-app";
    assert_ad_invalid(pool, &req);
    req = good;
    req.client_secret = "";
    assert_invalid(uc_azure_ad_token(pool, &req, &token));
    req = good;
    req.scope = "";
    assert_ad_invalid(pool, &req);
}

static const char *ad_token(apr_pool_t *pool)
{
    uc_azure_ad_request_t req = ad_request();
    uc_azure_token_t token;

    assert_ok(uc_azure_ad_token(pool, &req, &token));
    return token.access_token;
}

#define FIVE_MINUTES_AGO (apr_time_now() - apr_time_from_sec(300))

static uc_azure_delegation_key_t delegation_key(apr_pool_t *pool)
{
    uc_azure_delegation_key_t key;

    assert_ok(uc_azure_delegation_key(
        pool, need_env("UNICAT_AZURE_OAUTH_ENDPOINT"), ad_token(pool),
        FIVE_MINUTES_AGO, IN_AN_HOUR, TIMEOUT_MS,
        need_env("UNICAT_AZURE_CA_FILE"), &key));
    return key;
}

static void test_delegation_key(void **state)
{
    apr_pool_t *pool = *state;
    const char *endpoint, *ca;
    apr_time_t start = apr_time_from_sec(apr_time_sec(FIVE_MINUTES_AGO));
    apr_int64_t start_ms;
    uc_azure_delegation_key_t key;
    unsigned char *bytes;
    apr_size_t len;
    uc_error_t *err;

    NEED_OAUTH();
    endpoint = need_env("UNICAT_AZURE_OAUTH_ENDPOINT");
    ca = need_env("UNICAT_AZURE_CA_FILE");
    assert_ok(uc_azure_delegation_key(pool, endpoint, ad_token(pool), start,
                                      IN_AN_HOUR, TIMEOUT_MS, ca, &key));
    /* The token's identity, and the lifetime asked for. */
    assert_string_equal(key.signed_oid, need_env("UNICAT_AZURE_OBJECT_ID"));
    assert_string_equal(key.signed_tid, need_env("UNICAT_AZURE_TENANT_ID"));
    assert_string_equal(key.signed_service, "b");
    assert_true(uc_time_parse_iso8601(key.signed_start, &start_ms));
    assert_true(apr_time_from_msec(start_ms) == start);
    assert_non_null(key.signed_expiry);
    assert_non_null(key.signed_version);
    assert_int_equal(uc_base64_decode(pool, key.value, &bytes, &len), 0);
    assert_int_equal(len, 32);
    /* A token azurite does not accept. */
    err = uc_azure_delegation_key(pool, endpoint, "not.a.token", start,
                                  IN_AN_HOUR, TIMEOUT_MS, ca, &key);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "HTTP 403");
    assert_not_quoted(err, "not.a.token");
    assert_null(key.value);
}

static void test_delegation_key_refusals(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_delegation_key_t key;
    const char *token = "header.claims.signature";
    uc_error_t *err;

    err = uc_azure_delegation_key(pool, "http://account.example.com", token,
                                  FIVE_MINUTES_AGO, IN_AN_HOUR, 0, NULL,
                                  &key);
    assert_invalid(err);
    assert_not_quoted(err, token);
    assert_invalid(uc_azure_delegation_key(
        pool, "https://a.blob.core.windows.net", "", FIVE_MINUTES_AGO,
        IN_AN_HOUR, 0, NULL, &key));
    assert_invalid(uc_azure_delegation_key(
        pool, "https://a.blob.core.windows.net", token, IN_AN_HOUR,
        FIVE_MINUTES_AGO, 0, NULL, &key));
    assert_invalid(uc_azure_delegation_key(
        pool, "https://a.blob.core.windows.net", token, FIVE_MINUTES_AGO,
        apr_time_now() + apr_time_from_sec(8 * 24 * 3600), 0, NULL, &key));
    /* Nothing listens on port 1: the token was sent nowhere. */
    assert_err(uc_azure_delegation_key(
        pool, "https://127.0.0.1:1/devstoreaccount1", token,
        FIVE_MINUTES_AGO, IN_AN_HOUR, 2000, NULL, &key), 503, NULL);
}

/* The status of METHOD on the OAuth instance's blob (or container, with
 * `extra`) under `query`, over HTTPS with the harness's CA; the body goes
 * to *text. */
static long oauth_request(apr_pool_t *pool, const char *method,
                          const char *blob, const char *extra,
                          const char *query, const char **text)
{
    static const char *const headers[] = {
        "x-ms-version: 2022-11-02", "x-ms-blob-type: BlockBlob", NULL
    };
    uc_cloud_request_t req = { 0 };
    uc_cloud_answer_t answer;

    req.service = "azurite";
    req.method = method;
    req.url = apr_pstrcat(
        pool, need_env("UNICAT_AZURE_OAUTH_ENDPOINT"), "/",
        need_env("UNICAT_AZURE_CONTAINER"), blob ? "/" : "",
        blob ? uc_percent_encode(pool, blob, strlen(blob), "/") : "", "?",
        extra ? extra : "", extra ? "&" : "", query, NULL);
    req.headers = headers;
    if (!strcmp(method, "PUT")) {
        req.body = "written with a user delegation SAS";
        req.body_len = strlen(req.body);
    }
    req.timeout_ms = TIMEOUT_MS;
    req.ca_file = need_env("UNICAT_AZURE_CA_FILE");
    assert_ok(uc_cloud_call(pool, &req, &answer));
    if (text)
        *text = answer.body;
    return answer.status;
}

#define IN_HALF_AN_HOUR (apr_time_now() + apr_time_from_sec(1800))

static uc_azure_sas_t delegation_sas(const uc_azure_delegation_key_t *key,
                                     const char *blob,
                                     const char *permissions)
{
    uc_azure_sas_t sas = { 0 };

    sas.account = need_env("UNICAT_AZURE_ACCOUNT");
    sas.delegation = key;
    sas.container = need_env("UNICAT_AZURE_CONTAINER");
    sas.blob = blob;
    sas.permissions = permissions;
    sas.start = FIVE_MINUTES_AGO;
    sas.expiry = IN_HALF_AN_HOUR;
    return sas;
}

/* `query` with the value of `name` (which must be there) replaced. */
static const char *with_param(apr_pool_t *pool, const char *query,
                              const char *name, const char *value)
{
    const char *at = strstr(query, apr_pstrcat(pool, "&", name, "=", NULL));
    const char *end;

    assert_non_null(at);
    at += strlen(name) + 2;
    end = strchr(at, '&');
    return apr_pstrcat(pool, apr_pstrndup(pool, query, at - query), value,
                       end ? end : "", NULL);
}

static const char *sig_changed(apr_pool_t *pool, const char *query)
{
    char *q = apr_pstrdup(pool, query);
    char *sig = strstr(q, "&sig=") + 5;

    *sig = *sig == 'A' ? 'B' : 'A';
    return q;
}

static void test_delegation_sas_on_container(void **state)
{
    apr_pool_t *pool = *state;
    const char *blob = need_env("UNICAT_AZURE_BLOB"), *query, *text;
    /* The fixtures' blobs are in the container too: beyond the bound of
     * an answer. */
    const char *list = "restype=container&comp=list&prefix=tables%2F";
    uc_azure_delegation_key_t key, other;
    uc_azure_sas_t sas;

    NEED_OAUTH();
    key = delegation_key(pool);
    sas = delegation_sas(&key, NULL, "rl");
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_non_null(strstr(query, "&sr=c&"));
    assert_non_null(strstr(query, apr_pstrcat(pool, "&skoid=",
                                              key.signed_oid, "&", NULL)));
    assert_null(strstr(query, key.value));
    assert_int_equal(oauth_request(pool, "GET", blob, NULL, query, &text),
                     200);
    assert_string_equal(text, need_env("UNICAT_AZURE_TEXT"));
    assert_int_equal(oauth_request(pool, "GET", NULL, list, query, &text),
                     200);
    assert_contains(text, "part-00000 x.parquet");
    /* Read and list only. */
    assert_int_equal(oauth_request(pool, "PUT", blob, NULL, query, NULL),
                     403);
    assert_int_equal(oauth_request(pool, "GET", blob, NULL,
                                   sig_changed(pool, query), NULL), 403);
    assert_int_equal(oauth_request(pool, "GET", blob, NULL,
                                   with_param(pool, query, "sp", "rwl"),
                                   NULL), 403);
    assert_int_equal(oauth_request(pool, "GET", blob, NULL,
                                   with_param(pool, query, "skoid",
                                              "11111111-2222-4333-8444-"
                                              "555555555555"), NULL), 403);
    /* Signed for another identity than the key's. */
    other = key;
    other.signed_oid = "11111111-2222-4333-8444-555555555555";
    sas.delegation = &other;
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(oauth_request(pool, "GET", blob, NULL, query, NULL),
                     403);
    /* Expired a minute ago. */
    sas = delegation_sas(&key, NULL, "rl");
    sas.expiry = apr_time_now() - apr_time_from_sec(60);
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(oauth_request(pool, "GET", blob, NULL, query, NULL),
                     403);
}

static void test_delegation_sas_on_blob(void **state)
{
    apr_pool_t *pool = *state;
    const char *blob = need_env("UNICAT_AZURE_BLOB"), *query, *text;
    const char *other = "tables/t1/other.parquet";
    uc_azure_delegation_key_t key;
    uc_azure_sas_t sas;

    NEED_OAUTH();
    key = delegation_key(pool);
    /* Another blob, written with a container SAS that may. */
    sas = delegation_sas(&key, NULL, "rcw");
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_int_equal(oauth_request(pool, "PUT", other, NULL, query, NULL),
                     201);
    assert_int_equal(oauth_request(pool, "GET", other, NULL, query, &text),
                     200);
    assert_string_equal(text, "written with a user delegation SAS");
    sas = delegation_sas(&key, blob, "r");
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_non_null(strstr(query, "&sr=b&"));
    assert_int_equal(oauth_request(pool, "GET", blob, NULL, query, &text),
                     200);
    assert_string_equal(text, need_env("UNICAT_AZURE_TEXT"));
    /* That blob only, and only read. */
    assert_int_equal(oauth_request(pool, "GET", other, NULL, query, NULL),
                     403);
    assert_int_equal(oauth_request(pool, "PUT", blob, NULL, query, NULL),
                     403);
    assert_int_equal(oauth_request(pool, "GET", blob, NULL,
                                   sig_changed(pool, query), NULL), 403);
    /* Without a start it is valid from now on. */
    sas.start = 0;
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_null(strstr(query, "st="));
    assert_int_equal(oauth_request(pool, "GET", blob, NULL, query, NULL),
                     200);
}

static uc_azure_delegation_key_t made_up_key(void)
{
    uc_azure_delegation_key_t key = {
        "0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
        "72f988bf-86f1-41af-91ab-2d7cd011db47",
        "2020-01-01T00:00:00Z", "2999-01-01T00:00:00Z", "b", "2022-11-02",
        "ZGVsZWdhdGlvbi1rZXktdmFsdWUtb2YtMzItYnl0ZXM="
    };

    return key;
}

/* Refused before signing, and the key's value is in no message. */
static void assert_sas_invalid(apr_pool_t *pool, const uc_azure_sas_t *sas)
{
    const char *query;
    uc_error_t *err = uc_azure_sas_sign(pool, sas, &query);

    assert_invalid(err);
    assert_not_quoted(err, sas->delegation->value);
}

static void test_delegation_sas_refusals(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_delegation_key_t key = made_up_key(), bad;
    uc_azure_sas_t sas = { 0 };
    const char *query;

    sas.account = "devstoreaccount1";
    sas.container = "unicat";
    sas.delegation = &key;
    sas.permissions = "r";
    sas.expiry = IN_AN_HOUR;
    /* No account key is needed. */
    assert_ok(uc_azure_sas_sign(pool, &sas, &query));
    assert_null(strstr(query, key.value));
    sas.permissions = "wr";
    assert_sas_invalid(pool, &sas);
    sas.permissions = "r";
    sas.container = "";
    assert_sas_invalid(pool, &sas);
    sas.container = "unicat";
    bad = key;
    bad.value = "not base64, a secret!";
    sas.delegation = &bad;
    assert_sas_invalid(pool, &sas);
    bad = key;
    bad.signed_oid = "";
    assert_sas_invalid(pool, &sas);
    bad = key;
    bad.signed_version = NULL;
    assert_sas_invalid(pool, &sas);
    /* A SAS outliving its key. */
    bad = key;
    bad.signed_expiry = "2020-01-02T00:00:00Z";
    assert_sas_invalid(pool, &sas);
    bad.signed_expiry = "tomorrow";
    assert_sas_invalid(pool, &sas);
}

/* --- directory SAS ---------------------------------------------------- */

/* Vectors of @azure/storage-file-datalake 12.26.0 (npm),
 * generateDataLakeSASQueryParameters with fileSystemName "lake", pathName
 * "vols/v 1/data", isDirectory true, permissions "rl", expiresOn
 * 2026-12-07T12:00:00Z, protocol "https", version 2022-11-02: under
 * azurite's published account key, and under the delegation key below. */
#define DIR_SERVICE_SIG "wUiLINdUlKrQNJHOKZKOxr0W6eTnz8L%2Fto8PFUoPkw8%3D"
#define DIR_DELEGATION_SIG "KQkjgI35fzWPZWgC251Pz%2BKZ%2F8hhsDc1pZw%2BYxDR874%3D"

static uc_azure_sas_t directory_sas(void)
{
    uc_azure_sas_t sas;

    memset(&sas, 0, sizeof(sas));
    sas.account = "devstoreaccount1";
    sas.account_key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2U"
                      "VErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    sas.container = "lake";
    sas.directory = "vols/v 1/data";
    sas.permissions = "rl";
    sas.expiry = apr_time_from_sec(1796644800);   /* 2026-12-07T12:00:00Z */
    return sas;
}

static void assert_signed_as(apr_pool_t *pool, const uc_azure_sas_t *sas,
                             const char *sig)
{
    const char *query = NULL;

    assert_null(uc_azure_sas_sign(pool, sas, &query));
    assert_non_null(strstr(query, "&sr=d&sdd=3&sp=rl&"));
    assert_non_null(strstr(query, "&spr=https&"));
    assert_string_equal(strstr(query, "&sig=") + 5, sig);
}

static void test_directory_sas_as_the_sdk_signs(void **state)
{
    apr_pool_t *pool = *state;
    uc_azure_sas_t sas = directory_sas();
    uc_azure_delegation_key_t key = {
        "11111111-2222-3333-4444-555555555555",
        "66666666-7777-8888-9999-000000000000", "2026-12-07T10:00:00Z",
        "2026-12-08T10:00:00Z", "b", "2022-11-02",
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    };

    assert_signed_as(pool, &sas, DIR_SERVICE_SIG);
    sas.delegation = &key;
    assert_signed_as(pool, &sas, DIR_DELEGATION_SIG);
    /* A directory and a blob at once, or an empty or absolute one. */
    sas.blob = "x";
    assert_sas_invalid(pool, &sas);
    sas.blob = NULL;
    sas.directory = "";
    assert_sas_invalid(pool, &sas);
    sas.directory = "/vols";
    assert_sas_invalid(pool, &sas);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_blob_sas_reads_its_blob),
        UC_POOL_TEST(test_changed_or_expired_sas_is_refused),
        UC_POOL_TEST(test_write_and_container_sas),
        UC_POOL_TEST(test_refusals),
        UC_POOL_TEST(test_ad_token),
        UC_POOL_TEST(test_ad_refuses_wrong_secret),
        UC_POOL_TEST(test_ad_unreachable_is_503),
        UC_POOL_TEST(test_ad_request_shape),
        UC_POOL_TEST(test_delegation_key),
        UC_POOL_TEST(test_delegation_key_refusals),
        UC_POOL_TEST(test_delegation_sas_on_container),
        UC_POOL_TEST(test_delegation_sas_on_blob),
        UC_POOL_TEST(test_delegation_sas_refusals),
        UC_POOL_TEST(test_directory_sas_as_the_sdk_signs),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    uc_test_init();
    if (uc_cloud_init(uc_test_global_pool))
        return 2;
    rc = cmocka_run_group_tests_name("azure_sas", tests, NULL, NULL);
    uc_test_fini();
    curl_global_cleanup();
    return rc;
}
