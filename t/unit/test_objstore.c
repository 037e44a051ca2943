/* SPDX-License-Identifier: Apache-2.0 */
/* The object stores without a server: providers looked up by scheme, the
 * locations every provider shares the parsing of, pre-signed URLs checked
 * against AWS's published values (the SigV4 suite in t/objstore/aws-sigv4
 * and the presigned GET of the S3 documentation), and file:// refusing to
 * pre-sign. Pre-signed URLs fetched through a SigV4-checking S3 are in
 * test_objstore_s3.c. */
#include "uc_test_reader.h"

#include <stdlib.h>
#include <apr_file_io.h>

#include "../../src/cloud/uc_azure_delegation.h"
#include "../../src/objstore/uc_objstore_provider.h"
#include "../../src/objstore/uc_sigv4.h"

static const char *suite_root(void)
{
    const char *env = getenv("UNICAT_SIGV4_SUITE");

    return env ? env : "t/objstore/aws-sigv4";
}

static char *slurp(apr_pool_t *pool, const char *path)
{
    char *text;
    apr_file_t *f;
    apr_finfo_t info;
    apr_size_t got = 0;

    if (apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY, 0, pool)
        != APR_SUCCESS
        || apr_file_info_get(&info, APR_FINFO_SIZE, f) != APR_SUCCESS)
        fail_msg("cannot read %s", path);
    text = apr_palloc(pool, (apr_size_t)info.size + 1);
    if (info.size > 0
        && apr_file_read_full(f, text, (apr_size_t)info.size, &got)
           != APR_SUCCESS)
        fail_msg("cannot read %s", path);
    apr_file_close(f);
    text[got] = '\0';
    return text;
}

static const char *location_of(apr_pool_t *pool, const char *url)
{
    uc_objstore_t *store = NULL;

    assert_ok(uc_objstore_open(pool, url, NULL, &store));
    return uc_objstore_location(store);
}

/* --- providers and locations --------------------------------------------- */

static void test_providers_by_scheme(void **state)
{
    static const char *const unsupported[] = {
        "http://host/t", "S3://bucket/t", "/abs/path", "relative/path",
        "://x", "1x://y", "", NULL
    };
    apr_pool_t *pool = *state;
    const char *const *loc;
    uc_objstore_t *store;

    assert_ptr_equal(uc_objstore_lookup_provider("file"),
                     &uc_objstore_file_provider);
    assert_ptr_equal(uc_objstore_lookup_provider("s3"),
                     &uc_objstore_s3_provider);
    assert_ptr_equal(uc_objstore_lookup_provider("s3a"),
                     &uc_objstore_s3_provider);
    assert_ptr_equal(uc_objstore_lookup_provider("abfss"),
                     &uc_objstore_azure_provider);
    assert_ptr_equal(uc_objstore_lookup_provider("wasbs"),
                     &uc_objstore_azure_provider);
    assert_ptr_equal(uc_objstore_lookup_provider("gs"),
                     &uc_objstore_gcs_provider);
    assert_null(uc_objstore_lookup_provider(""));

    for (loc = unsupported; *loc; loc++) {
        uc_error_t *err = uc_objstore_open(pool, *loc, NULL, &store);

        assert_invalid(err);
        assert_contains(err->message, **loc ? "Unsupported table location "
                                              "scheme" : "is required");
    }
    assert_invalid(uc_objstore_open(pool, NULL, NULL, &store));
}

/* Azure locations name a container and an account; the URLs handed out
 * are the blob's own with a SAS that reads it alone, and a delegation
 * key's expiry caps theirs. */
/* A store of pages of two names that hands out its markers as told. */
typedef struct paged {
    const char *const *names;      /* full names, in any order */
    int repeat_at;                 /* the page that hands back its marker */
    int pages;
} paged_t;

static uc_error_t *page_of_two(void *backend, apr_pool_t *pool,
                               apr_pool_t *page_pool, const char *prefix,
                               const char *start_after, const char *marker,
                               apr_array_header_t *out, const char **next)
{
    paged_t *p = backend;
    int from = marker ? atoi(marker) : 0, i;

    (void)page_pool;
    (void)start_after;
    for (i = from; i < from + 2 && p->names[i]; i++) {
        uc_object_t *o = apr_array_push(out);

        o->name = apr_pstrdup(pool, p->names[i] + strlen(prefix));
        o->size = i;
        o->mtime_ms = 0;
    }
    *next = !p->names[i] ? NULL : p->pages == p->repeat_at ? marker
          : apr_itoa(pool, i);
    p->pages++;
    return NULL;
}

/* The page loop of the cloud stores: every page, in name order, after the
 * name asked for; a marker handed back unchanged ends it with a 502. */
static void test_list_pages(void **state)
{
    static const char *const names[] = {
        "t/d/e", "t/d/a", "t/d/c", "t/d/b", "t/d/f", NULL
    };
    apr_pool_t *pool = *state;
    paged_t p = { names, -1, 0 };
    apr_array_header_t *objects;
    uc_error_t *err;

    assert_ok(uc_objstore_list_pages(pool, "t", "d", "b", page_of_two, &p,
                                     &objects));
    assert_int_equal(p.pages, 3);
    assert_int_equal(objects->nelts, 3);
    assert_string_equal(APR_ARRAY_IDX(objects, 0, uc_object_t).name, "c");
    assert_string_equal(APR_ARRAY_IDX(objects, 1, uc_object_t).name, "e");
    assert_string_equal(APR_ARRAY_IDX(objects, 2, uc_object_t).name, "f");
    p = (paged_t){ names, 1, 0 };
    err = uc_objstore_list_pages(pool, "t", "d/", NULL, page_of_two, &p,
                                 &objects);
    assert_non_null(err);
    assert_int_equal(err->status, 502);
    assert_contains(err->message, "repeated the page token");
}

/* gs://: the bucket named by Google's rules, the path made safe, and no
 * URL without the service account's key to sign it. */
static void test_gcs_locations(void **state)
{
    static const char *const bad[] = {
        "gs:///t", "gs://ab/t", "gs://-bucket/t", "gs://Bucket/t",
        "gs://buck et/t", "gs://bucket/../t", "gs:t", NULL
    };
    apr_pool_t *pool = *state;
    uc_objstore_config_t config;
    const char *const *loc;
    uc_objstore_t *store;
    const char *url;
    uc_error_t *err;

    memset(&config, 0, sizeof(config));
    for (loc = bad; *loc; loc++)
        assert_invalid(uc_objstore_open(pool, *loc, &config, &store));
    assert_ok(uc_objstore_open(pool, "gs://my_bucket.example/a%20b/t/",
                               &config, &store));
    assert_string_equal(uc_objstore_location(store),
                        "gs://my_bucket.example/a b/t");
    err = uc_objstore_presign(store, pool, "p.parquet", 60, apr_time_now(),
                              &url);
    assert_non_null(err);
    assert_int_equal(err->status, 400);
    assert_string_equal(err->code, "FAILED_PRECONDITION");
    config.gcs_endpoint = "ftp://127.0.0.1:1";
    assert_invalid(uc_objstore_open(pool, "gs://bucket/t", &config, &store));
}

static void test_azure_locations_and_urls(void **state)
{
    static const char *const bad[] = {
        "abfss://acct.dfs.core.windows.net/t", "abfss://c@/t",
        "abfss://C@acct.dfs.core.windows.net/t", "abfss://c@acct/t",
        "wasbs://c@a.blob.core.windows.net/t", "abfss://ctr@acct.x/../t", NULL
    };
    apr_pool_t *pool = *state;
    uc_objstore_config_t config;
    uc_azure_delegation_key_t key = {
        "oid", "tid", "2026-01-01T00:00:00Z", "2099-01-01T00:00:00Z", "b",
        "2022-11-02", "c2VjcmV0"
    };
    const char *const *loc;
    apr_time_t now = apr_time_from_sec(1767225600);   /* 2026-01-01 */
    uc_objstore_t *store;
    const char *url;

    memset(&config, 0, sizeof(config));
    for (loc = bad; *loc; loc++)
        assert_invalid(uc_objstore_open(pool, *loc, &config, &store));
    assert_ok(uc_objstore_open(pool, "wasbs://ctr@acct.blob.core.windows.net"
                               "/t/", &config, &store));
    assert_string_equal(uc_objstore_location(store),
                        "wasbs://ctr@acct.blob.core.windows.net/t");
    assert_ok(uc_objstore_presign(store, pool, "a b/p.parquet", 60, now,
                                  &url));
    assert_string_equal(url, "https://acct.blob.core.windows.net/ctr/t/"
                             "a%20b/p.parquet");

    config.azure_account_key = "c2VjcmV0";
    config.azure_blob_endpoint = "http://127.0.0.1:1/{account}";
    assert_ok(uc_objstore_open(pool, "abfss://ctr@acct.dfs.core.windows.net"
                               "/t", &config, &store));
    assert_ok(uc_objstore_presign(store, pool, "p.parquet", 60, now, &url));
    assert_true(!strncmp(url, "http://127.0.0.1:1/acct/ctr/t/p.parquet?sv=",
                         42));
    assert_contains(url, "&se=2026-01-01T00%3A01%3A00Z&sr=b&sp=r&");
    assert_contains(url, "&spr=https%2Chttp&sig=");

    config.azure_delegation = &key;
    assert_ok(uc_objstore_open(pool, "abfss://ctr@acct.dfs.core.windows.net"
                               "/t", &config, &store));
    assert_ok(uc_objstore_presign(store, pool, "p.parquet", 86400,
                                  apr_time_from_sec(4070905200), &url));
    assert_contains(url, "&se=2099-01-01T00%3A00%3A00Z&sr=b&sp=r&skoid=oid");
    assert_err(uc_objstore_presign(store, pool, "p.parquet", 60,
                                   apr_time_from_sec(4070908800), &url),
               502, "STORAGE_ERROR");
}

/* The path of a location is decoded once, whichever provider reads it. */
static void test_locations_decoded_once(void **state)
{
    apr_pool_t *pool = *state;
    uc_objstore_t *store;

    assert_string_equal(location_of(pool, "file:///tmp/t//"), "file:///tmp/t");
    assert_string_equal(location_of(pool, "file:/tmp/t"), "file:///tmp/t");
    assert_string_equal(location_of(pool, "file://localhost/tmp/t"),
                        "file:///tmp/t");
    assert_string_equal(location_of(pool, "file:///"), "file:///");
    assert_string_equal(location_of(pool, "file:///a%20b/c%2541"),
                        "file:///a b/c%41");
    assert_string_equal(location_of(pool, "s3://bkt/a%20b/c%2541/"),
                        "s3://bkt/a b/c%41");
    assert_string_equal(location_of(pool, "s3a://bkt"), "s3a://bkt");

    assert_invalid(uc_objstore_open(pool, "file://host/tmp/t", NULL, &store));
    assert_invalid(uc_objstore_open(pool, "file:relative", NULL, &store));
    assert_invalid(uc_objstore_open(pool, "file://localhost", NULL, &store));
    assert_invalid(uc_objstore_open(pool, "file:///a%00b", NULL, &store));
    assert_invalid(uc_objstore_open(pool, "s3://b/a%00b", NULL, &store));
    assert_invalid(uc_objstore_open(pool, "s3:/b/t", NULL, &store));
    assert_invalid(uc_objstore_open(pool, "s3://b/a/%2E%2E/t", NULL,
                                    &store));
}

/* --- pre-signing ----------------------------------------------------------- */

static void test_file_presign_refused(void **state)
{
    apr_pool_t *pool = *state;
    uc_objstore_t *store;
    const char *url = NULL;
    uc_error_t *err;

    assert_ok(uc_objstore_open(pool, "file:///tmp/table", NULL, &store));
    err = uc_objstore_presign(store, pool, "part-0.parquet", 3600,
                              apr_time_now(), &url);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "file://");
    assert_null(url);
}

static void test_presign_arguments(void **state)
{
    apr_pool_t *pool = *state;
    uc_objstore_config_t c = { 0 };
    uc_objstore_t *store;
    const char *url;

    c.access_key_id = "AKID";
    c.secret_access_key = "secret";
    assert_ok(uc_objstore_open(pool, "s3://bkt/t", &c, &store));
    assert_invalid(uc_objstore_presign(store, pool, "k", 0, 0, &url));
    assert_invalid(uc_objstore_presign(store, pool, "k",
                                       UC_OBJSTORE_MAX_PRESIGN_SECONDS + 1,
                                       0, &url));
    assert_invalid(uc_objstore_presign(store, pool, "", 60, 0, &url));
    assert_invalid(uc_objstore_presign(store, pool, "../k", 60, 0, &url));
    assert_invalid(uc_objstore_presign(store, pool, "/k", 60, 0, &url));
    assert_ok(uc_objstore_presign(store, pool, "k",
                                  UC_OBJSTORE_MAX_PRESIGN_SECONDS, 0, &url));
}

/* One case of the suite: its string to sign from its canonical request,
 * and the signature of its Authorization header. */
static void check_suite_case(apr_pool_t *pool, const char *dir,
                             const char *name)
{
    const char *base = apr_pstrcat(pool, dir, "/", name, "/", name, NULL);
    char *sts = slurp(pool, apr_pstrcat(pool, base, ".sts", NULL));
    const char *creq = slurp(pool, apr_pstrcat(pool, base, ".creq", NULL));
    const char *authz = slurp(pool, apr_pstrcat(pool, base, ".authz", NULL));
    const char *want = strstr(authz, "Signature=");
    char *amz_date, *scope, *save, signature[UC_SIGV4_HEX_SIZE];
    const char *mine;

    if (!want)
        fail_msg("%s: no Signature= in the .authz", name);
    want += strlen("Signature=");
    amz_date = apr_strtok(apr_pstrdup(pool, sts), "\n", &save);
    amz_date = apr_strtok(NULL, "\n", &save);
    scope = apr_strtok(NULL, "\n", &save);
    if (!amz_date || !scope)
        fail_msg("%s: a .sts of another shape", name);
    mine = uc_sigv4_string_to_sign(pool, amz_date, scope, creq);
    if (strcmp(mine, sts) != 0)
        fail_msg("%s: string to sign\n%s\ninstead of\n%s", name, mine, sts);
    uc_sigv4_sign(pool, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                  apr_pstrndup(pool, amz_date, 8), "us-east-1", "service",
                  mine, signature);
    if (strncmp(signature, want, 64) != 0 || strlen(want) != 64)
        fail_msg("%s: signature %s instead of %s", name, signature, want);
}

/* Every case below `dir`: a folder holding <name>.creq is a case, any
 * other folder groups cases. Returns how many. */
static int check_suite_dir(apr_pool_t *pool, const char *dir)
{
    apr_dir_t *d;
    apr_finfo_t info;
    int cases = 0;

    if (apr_dir_open(&d, dir, pool) != APR_SUCCESS)
        fail_msg("no SigV4 suite at %s (set UNICAT_SIGV4_SUITE)", dir);
    while (apr_dir_read(&info, APR_FINFO_NAME | APR_FINFO_TYPE, d)
           == APR_SUCCESS) {
        const char *sub;
        apr_finfo_t creq;

        if (info.filetype != APR_DIR || info.name[0] == '.')
            continue;
        sub = apr_pstrcat(pool, dir, "/", info.name, NULL);
        if (apr_stat(&creq, apr_pstrcat(pool, sub, "/", info.name, ".creq",
                                        NULL), APR_FINFO_TYPE, pool)
            == APR_SUCCESS) {
            check_suite_case(pool, dir, info.name);
            cases++;
        }
        else
            cases += check_suite_dir(pool, sub);
    }
    apr_dir_close(d);
    return cases;
}

static void test_sigv4_suite(void **state)
{
    assert_int_equal(check_suite_dir(*state, suite_root()), 31);
}

/* 2013-05-24T00:00:00Z */
static apr_time_t may_24_2013(void)
{
    apr_time_exp_t t = { 0 };
    apr_time_t when;

    t.tm_year = 113;
    t.tm_mon = 4;
    t.tm_mday = 24;
    assert_int_equal(apr_time_exp_gmt_get(&when, &t), APR_SUCCESS);
    return when;
}

/* The presigned GET of the S3 documentation ("Authenticating Requests:
 * Using Query Parameters"), signed by the store. */
static void test_s3_presign_vector(void **state)
{
    static const char want[] =
        "https://examplebucket.s3.amazonaws.com/test.txt"
        "?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3"
        "%2Faws4_request"
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400"
        "&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature="
        "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";
    apr_pool_t *pool = *state;
    uc_objstore_config_t c = { 0 };
    uc_objstore_t *store;
    const char *url, *other, *sig;

    c.endpoint = "https://s3.amazonaws.com";
    c.access_key_id = "AKIAIOSFODNN7EXAMPLE";
    c.secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    assert_ok(uc_objstore_open(pool, "s3://examplebucket", &c, &store));
    assert_ok(uc_objstore_presign(store, pool, "test.txt", 86400,
                                  may_24_2013(), &url));
    assert_string_equal(url, want);

    /* A default port is not part of the Host a client sends, nor of the
     * signature. */
    c.endpoint = "https://s3.amazonaws.com:443/";
    assert_ok(uc_objstore_open(pool, "s3://examplebucket", &c, &store));
    assert_ok(uc_objstore_presign(store, pool, "test.txt", 86400,
                                  may_24_2013(), &other));
    sig = strstr(url, "X-Amz-Signature=");
    assert_non_null(strstr(other, sig));

    /* A session token is a signed parameter, in byte order. */
    c.session_token = "tok/en+=";
    assert_ok(uc_objstore_open(pool, "s3://examplebucket", &c, &store));
    assert_ok(uc_objstore_presign(store, pool, "test.txt", 86400,
                                  may_24_2013(), &other));
    assert_non_null(strstr(other, "&X-Amz-Expires=86400"
                                  "&X-Amz-Security-Token=tok%2Fen%2B%3D"
                                  "&X-Amz-SignedHeaders=host&"));
    assert_null(strstr(other, sig));
}

/* Keys are in S3's URI encoding, below the location's prefix; a store
 * without credentials hands out the plain URL it reads itself. */
static void test_s3_presign_urls(void **state)
{
    static const char signed_prefix[] =
        "http://127.0.0.1:9000/bkt/t/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=AKID%2F20130524%2Feu-west-3%2Fs3%2Faws4_request"
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=60"
        "&X-Amz-SignedHeaders=host&X-Amz-Signature=";
    apr_pool_t *pool = *state;
    uc_objstore_config_t c = { 0 };
    uc_objstore_t *store;
    const char *url;

    c.region = "eu-west-3";
    assert_ok(uc_objstore_open(pool, "s3a://bkt/warehouse/a%20table", &c,
                               &store));
    assert_ok(uc_objstore_presign(store, pool, "p=1/part 0+x.parquet", 60,
                                  0, &url));
    assert_string_equal(url, "https://bkt.s3.eu-west-3.amazonaws.com/"
                        "warehouse/a%20table/p%3D1/part%200%2Bx.parquet");

    c.access_key_id = "AKID";
    c.secret_access_key = "secret";
    c.endpoint = "http://127.0.0.1:9000/";
    assert_ok(uc_objstore_open(pool, "s3://bkt/t", &c, &store));
    assert_ok(uc_objstore_presign(store, pool, "k", 60, may_24_2013(),
                                  &url));
    assert_int_equal(strncmp(url, signed_prefix, strlen(signed_prefix)), 0);
    assert_int_equal(strlen(url), strlen(signed_prefix) + 64);
}

/* A config copied for background work outlives the one it was copied
 * from, the delegation key's strings included. */
static void test_config_copy(void **state)
{
    apr_pool_t *pool = *state, *call;
    uc_objstore_config_t *c, *copy;
    uc_azure_delegation_key_t *key;

    assert_null(uc_objstore_config_copy(pool, NULL));
    apr_pool_create(&call, pool);
    c = apr_pcalloc(call, sizeof(*c));
    key = apr_pcalloc(call, sizeof(*key));
    c->region = apr_pstrdup(call, "eu-west-1");
    c->access_key_id = apr_pstrdup(call, "AKID");
    c->secret_access_key = apr_pstrdup(call, "secret");
    c->path_style = 1;
    c->timeout_ms = 1234;
    key->signed_oid = apr_pstrdup(call, "oid");
    key->value = apr_pstrdup(call, "a2V5");
    c->azure_delegation = key;
    c->gcs_private_key = apr_pstrdup(call, "-----BEGIN");
    copy = uc_objstore_config_copy(pool, c);
    apr_pool_destroy(call);
    assert_string_equal(copy->region, "eu-west-1");
    assert_string_equal(copy->access_key_id, "AKID");
    assert_string_equal(copy->secret_access_key, "secret");
    assert_null(copy->session_token);
    assert_int_equal(copy->path_style, 1);
    assert_int_equal(copy->timeout_ms, 1234);
    assert_string_equal(copy->azure_delegation->signed_oid, "oid");
    assert_null(copy->azure_delegation->signed_tid);
    assert_string_equal(copy->azure_delegation->value, "a2V5");
    assert_string_equal(copy->gcs_private_key, "-----BEGIN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_config_copy),
        UC_POOL_TEST(test_providers_by_scheme),
        UC_POOL_TEST(test_azure_locations_and_urls),
        UC_POOL_TEST(test_gcs_locations),
        UC_POOL_TEST(test_list_pages),
        UC_POOL_TEST(test_locations_decoded_once),
        UC_POOL_TEST(test_file_presign_refused),
        UC_POOL_TEST(test_presign_arguments),
        UC_POOL_TEST(test_sigv4_suite),
        UC_POOL_TEST(test_s3_presign_vector),
        UC_POOL_TEST(test_s3_presign_urls),
    };
    int rc;

    uc_test_init();
    uc_test_init_reader();
    rc = cmocka_run_group_tests_name("objstore", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
