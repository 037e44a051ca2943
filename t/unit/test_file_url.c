/* SPDX-License-Identifier: Apache-2.0 */
/* The signed URLs of the files route: a URL the server signed opens its
 * file until it expires, under any key of a rotated key file; any change
 * to the table, the file, the expiry, the key id or the signature is
 * refused, and so is every path that could leave the table (dot
 * segments, encoded slashes, NULs, symbolic links out of the root). A
 * grant opens every file and directory of its asset and nothing of
 * another; its signature is no file URL's, nor the other way round. The
 * listing of a directory pages through all of its entries once, leaves
 * out links that lead out of the root, and takes only its own tokens. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <jansson.h>
#include <apr_general.h>
#include <apr_strings.h>

#include "../../src/core/uc_jw.h"
#include "../../src/core/uc_secret.h"
#include "../../src/sharing/uc_file_list.h"
#include "../../src/sharing/uc_file_url.h"

#define TABLE "0a1b2c3d-0000-4000-8000-00000000f11e"
#define BASE "http://127.0.0.1:8080/delta-sharing/files"
#define NOW apr_time_from_sec(1700000000)
#define LATER (1700000000 + 3600)

static apr_pool_t *pool;
static uc_secret_keys_t old_only, rotated;
static char root[64], outside[64];

static void make_key(const char *hex, uc_secret_key_t *k)
{
    assert_null(uc_secret_key_parse(pool, "test", hex, strlen(hex), k));
}

static const char *sign(const uc_secret_keys_t *keys, const char *key,
                        apr_int64_t exp)
{
    const char *url = NULL;
    apr_size_t len = 0;
    uc_file_url_signer_t *signer = NULL;
    uc_error_t *err = uc_file_url_signer_make(pool, keys, BASE, TABLE, exp,
                                              &signer);

    if (!err)
        err = uc_file_url_sign(signer, pool, key, strlen(key), &url, &len);
    if (err)
        fail_msg("signing %s: %s", key, err->message);
    assert_int_equal(len, strlen(url));
    return url;
}

/* The path after the mount and the query of a URL. */
static void split(const char *url, const char **path, const char **args)
{
    const char *p = url + strlen(BASE), *q = strchr(p, '?');

    *path = apr_pstrndup(pool, p, (apr_size_t)(q - p));
    *args = q + 1;
}

static uc_error_t *verify(const uc_secret_keys_t *keys, const char *path,
                          const char *args, const char **key)
{
    uc_file_target_t target;
    uc_error_t *err = uc_file_url_verify(pool, keys, path, args, NOW,
                                         &target);

    if (!err) {
        assert_string_equal(target.id, TABLE);
        assert_false(target.grant);
        *key = target.key;
    }
    return err;
}

static void refused(const uc_secret_keys_t *keys, const char *path,
                    const char *args, int status)
{
    const char *key = NULL;
    uc_error_t *err = verify(keys, path, args, &key);

    if (!err)
        fail_msg("%s?%s was accepted (key %s)", path, args, key);
    assert_int_equal(err->status, status);
}

static void test_round_trip(void **state)
{
    const char *url = sign(&old_only, "date=2021-01-01/part 1%.parquet",
                           LATER), *path, *args, *key;

    (void)state;
    assert_true(strncmp(url, BASE "/" TABLE "/date%3D2021-01-01/part%201"
                        "%25.parquet?exp=", strlen(BASE) + 60) == 0);
    split(url, &path, &args);
    assert_null(verify(&old_only, path, args, &key));
    assert_string_equal(key, "date=2021-01-01/part 1%.parquet");
    /* After a rotation the new key signs, and the old URL still opens. */
    assert_null(verify(&rotated, path, args, &key));
    split(sign(&rotated, "a.parquet", LATER), &path, &args);
    assert_null(verify(&rotated, path, args, &key));
    refused(&old_only, path, args, 403);
}

static void test_tampering(void **state)
{
    const char *path, *args;
    char *bad;

    (void)state;
    split(sign(&old_only, "a.parquet", LATER), &path, &args);
    refused(&old_only, apr_pstrcat(pool, "/0a1b2c3d-0000-4000-8000-"
                                   "00000000f11f/a.parquet", NULL), args,
            403);
    refused(&old_only, "/" TABLE "/b.parquet", args, 403);
    bad = apr_pstrdup(pool, args);
    bad[strlen("exp=") + 9]++;                       /* a later expiry */
    refused(&old_only, path, bad, 403);
    bad = apr_pstrdup(pool, args);
    bad[strlen(bad) - 1] = bad[strlen(bad) - 1] == '0' ? '1' : '0';
    refused(&old_only, path, bad, 403);
    refused(&old_only, path, apr_pstrcat(pool, args, "0", NULL), 403);
    refused(&old_only, path, "exp=9999999999", 403);
    refused(&old_only, path, "", 403);
    refused(NULL, path, args, 403);
    /* Expired: one second after its expiry. */
    split(sign(&old_only, "a.parquet", 1700000000), &path, &args);
    refused(&old_only, path, args, 403);
}

static void test_paths(void **state)
{
    const char *url = NULL;
    static const char *const unsafe[] = {
        "/x.parquet", "../x.parquet", "a/../../x", "a//b", "./a", "a/", ""
    };
    size_t i;
    apr_size_t len;
    const char *args;
    uc_file_url_signer_t *signer = NULL;

    (void)state;
    assert_null(uc_file_url_signer_make(pool, &old_only, BASE, TABLE, LATER,
                                        &signer));
    for (i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++) {
        uc_error_t *err = uc_file_url_sign(signer, pool, unsafe[i],
                                           strlen(unsafe[i]), &url, &len);
        if (!err)
            fail_msg("signed '%s'", unsafe[i]);
        assert_int_equal(err->status, 400);
    }
    assert_int_equal(uc_file_url_signer_make(pool, NULL, BASE, TABLE, LATER,
                                             &signer)->status, 400);
    split(sign(&old_only, "a.parquet", LATER), &url, &args);
    refused(&old_only, "/" TABLE "/%2E%2E/a.parquet", args, 404);
    refused(&old_only, "/" TABLE "/x%2Fa.parquet", args, 404);
    refused(&old_only, "/" TABLE "/a%00.parquet", args, 404);
    refused(&old_only, "/" TABLE "//a.parquet", args, 404);
    refused(&old_only, "/not-a-uuid/a.parquet", args, 404);
    refused(&old_only, "/" TABLE, args, 404);
}

/* Two URLs signed at once are the two signed one by one, and verify;
 * an unsafe key in either place is refused. */
static void test_pairs(void **state)
{
    static const char *const keys[][2] = {
        { "a.parquet", "date=2021-01-01/part 1%.parquet" },
        { "p=1/part-00000-0123456789abcdef-c000.snappy.parquet", "b" },
        { "../x.parquet", "a.parquet" },
        { "a.parquet", "a//b" },
    };
    uc_file_url_signer_t *signer = NULL;
    const char *url[2], *path, *args, *key;
    apr_size_t url_len[2];
    size_t i, k;

    (void)state;
    assert_null(uc_file_url_signer_make(pool, &rotated, BASE, TABLE, LATER,
                                        &signer));
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const apr_size_t len[2] = { strlen(keys[i][0]), strlen(keys[i][1]) };
        uc_error_t *err = uc_file_url_sign2(signer, pool, keys[i], len, url,
                                            url_len);

        if (i >= 2) {
            assert_non_null(err);
            assert_int_equal(err->status, 400);
            continue;
        }
        assert_null(err);
        for (k = 0; k < 2; k++) {
            assert_string_equal(url[k], sign(&rotated, keys[i][k], LATER));
            assert_int_equal(url_len[k], strlen(url[k]));
            split(url[k], &path, &args);
            assert_null(verify(&rotated, path, args, &key));
            assert_string_equal(key, keys[i][k]);
        }
    }
}

/* URLs go into answers without escaping only when their base allows:
 * every key comes out percent-encoded, so the base decides. */
static void test_plain(void **state)
{
    static const char *const not_plain[] = {
        "http://h/files\"", "http://h/fi\\les", "http://h/caf\xc3\xa9",
        "http://h/\tfiles"
    };
    static const char odd[] = "p=\"x\"/\\ caf\xc3\xa9\n.parquet";
    uc_file_url_signer_t *signer = NULL;
    const char *url = NULL;
    apr_size_t i, len;

    (void)state;
    assert_null(uc_file_url_signer_make(pool, &old_only, BASE, TABLE, LATER,
                                        &signer));
    assert_true(uc_file_url_signer_plain(signer));
    assert_null(uc_file_url_sign(signer, pool, odd, strlen(odd), &url,
                                 &len));
    assert_int_equal(len, strlen(url));
    assert_true(uc_jw_is_plain(url, len));
    for (i = 0; i < sizeof(not_plain) / sizeof(not_plain[0]); i++) {
        assert_null(uc_file_url_signer_make(pool, &old_only, not_plain[i],
                                            TABLE, LATER, &signer));
        if (uc_file_url_signer_plain(signer))
            fail_msg("%s taken as plain", not_plain[i]);
    }
}

static void write_file(const char *path)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs("PAR1", f);
    fclose(f);
}

static int resolved(const char *loc, const char *key, int directory,
                    const char **path)
{
    uc_error_t *err = uc_file_url_resolve(pool, loc, key, directory, path,
                                          NULL);

    return err ? err->status : 0;
}

static void test_resolve(void **state)
{
    const char *loc = apr_pstrcat(pool, "file://", root, NULL), *path;
    char real[4096];

    (void)state;
    assert_non_null(realpath(root, real));
    assert_int_equal(resolved(loc, "p=1/a.parquet", 0, &path), 0);
    assert_string_equal(path, apr_pstrcat(pool, real, "/p=1/a.parquet",
                                          NULL));
    assert_int_equal(resolved(loc, "inside", 0, &path), 0);
    assert_int_equal(resolved(loc, "out", 0, &path), 404);
    assert_int_equal(resolved(loc, "outdir/secret", 0, &path), 404);
    assert_int_equal(resolved(loc, "../x/secret", 0, &path), 404);
    assert_int_equal(resolved(loc, "p=1", 0, &path), 404);
    assert_int_equal(resolved(loc, "missing", 0, &path), 404);
    assert_int_equal(resolved("s3://b/t", "a", 0, &path), 404);
    /* Directories: only a listing's, and only inside. */
    assert_int_equal(resolved(loc, "", 0, &path), 404);
    assert_int_equal(resolved(loc, "", 1, &path), 0);
    assert_string_equal(path, real);
    assert_int_equal(resolved(loc, "p=1", 1, &path), 0);
    assert_int_equal(resolved(loc, "p=1/a.parquet", 1, &path), 404);
    assert_int_equal(resolved(loc, "outdir", 1, &path), 404);
}

/* The path after the mount and the query of a grant's root URL plus
 * `key`. */
static void grant(const uc_secret_keys_t *keys, const char *id,
                  apr_int64_t exp, const char *key, const char **path,
                  const char **args)
{
    const char *url = NULL;

    assert_null(uc_file_grant_make(pool, keys, BASE, id, exp, &url, args));
    assert_string_equal(url, apr_pstrcat(pool, BASE "/", id, "/", NULL));
    *path = apr_pstrcat(pool, url + strlen(BASE), key, NULL);
}

static int granted(const char *path, const char *args,
                   uc_file_target_t *target)
{
    uc_error_t *err = uc_file_url_verify(pool, &rotated, path, args, NOW,
                                         target);

    return err ? err->status : 0;
}

static void test_grant(void **state)
{
    uc_file_target_t t;
    const char *path, *args, *file_args;
    char *bad;

    (void)state;
    grant(&old_only, TABLE, LATER, "p=1/a.parquet", &path, &args);
    assert_int_equal(granted(path, args, &t), 0);
    assert_true(t.grant && !t.listing);
    assert_string_equal(t.key, "p=1/a.parquet");
    assert_int_equal(t.expires, LATER);
    /* Its directories are listings; the root's path is the id's. */
    assert_int_equal(granted("/" TABLE "/p%3D1/", args, &t), 0);
    assert_true(t.listing);
    assert_string_equal(t.key, "p=1");
    assert_int_equal(granted("/" TABLE "/", args, &t), 0);
    assert_true(t.listing && !*t.key);
    assert_int_equal(granted("/" TABLE "//", args, &t), 404);
    assert_int_equal(granted("/" TABLE "/../", args, &t), 404);
    assert_int_equal(granted("/" TABLE "/p%2F1/", args, &t), 404);
    /* Another asset, a changed expiry or scope, a file URL's query. */
    assert_int_equal(granted("/0a1b2c3d-0000-4000-8000-00000000f11f/a",
                             args, &t), 403);
    bad = apr_pstrdup(pool, args);
    bad[strlen("exp=") + 9]++;
    assert_int_equal(granted(path, bad, &t), 403);
    bad = apr_pstrdup(pool, args);
    memcpy(strstr(bad, "scope=prefix"), "scope=prefiy", 12);
    assert_int_equal(granted(path, bad, &t), 403);
    split(sign(&old_only, "p=1/a.parquet", LATER), &path, &file_args);
    assert_int_equal(granted(path, apr_pstrcat(pool, file_args,
                                               "&scope=prefix", NULL), &t),
                     403);
    /* A grant's query is no file URL's without its scope. */
    bad = apr_pstrdup(pool, args);
    memcpy(strstr(bad, "scope=prefix"), "scopa=prefix", 12);
    assert_int_equal(granted(path, bad, &t), 403);
    /* Expired, and no key to sign with. */
    grant(&old_only, TABLE, 1700000000, "a", &path, &args);
    assert_int_equal(granted(path, args, &t), 403);
    assert_int_equal(uc_file_grant_make(pool, NULL, BASE, TABLE, LATER,
                                        &path, &args)->status, 400);
}

/* A listing of `dir` (a path) of the grant `t` with query `args`: its
 * entries' paths joined by ',', the next page's token in `next`. */
static const char *listed(const uc_file_target_t *t, const char *dir,
                          const char *args, const char **next, int *status)
{
    uc_jw_t *out = uc_jw_make(pool, 256);
    char real[4096];
    uc_error_t *err;
    json_t *doc, *e;
    const char *paths = "";
    size_t i;

    assert_non_null(realpath(root, real));
    err = uc_file_list(pool, &old_only, t, dir, real, args, NOW, out);
    *status = err ? err->status : 0;
    *next = NULL;
    if (err)
        return NULL;
    doc = json_loadb(out->buf, out->len, 0, NULL);
    assert_non_null(doc);
    json_array_foreach(json_object_get(doc, "contents"), i, e)
        paths = apr_pstrcat(pool, paths, *paths ? "," : "",
                            json_string_value(json_object_get(e, "path")),
                            json_is_true(json_object_get(e, "isDirectory"))
                            ? "/" : "", NULL);
    if (json_object_get(doc, "nextPageToken"))
        *next = apr_pstrdup(pool, json_string_value(
                                      json_object_get(doc, "nextPageToken")));
    json_decref(doc);
    return paths;
}

static void test_listing(void **state)
{
    uc_file_target_t t = { TABLE, "", LATER, 1, 1 }, other = t;
    const char *next, *all = "", *page;
    char real[4096];
    int status, pages = 0;

    (void)state;
    assert_non_null(realpath(root, real));
    /* Links out of the root are left out; the one inside is listed. */
    assert_string_equal(listed(&t, real, NULL, &next, &status),
                        "inside,p=1/");
    assert_null(next);
    do {
        page = listed(&t, real, next ? apr_pstrcat(pool, "maxResults=1&"
                                                   "pageToken=", next, NULL)
                                     : "maxResults=1", &next, &status);
        assert_int_equal(status, 0);
        all = apr_pstrcat(pool, all, *all && *page ? "," : "", page, NULL);
    } while (next && ++pages < 10);
    assert_string_equal(all, "inside,p=1/");
    t.key = "p=1";
    assert_string_equal(listed(&t, apr_pstrcat(pool, real, "/p=1", NULL),
                               NULL, &next, &status), "p=1/a.parquet");
    /* A token is its directory's and its asset's. */
    t.key = "";
    listed(&t, real, "maxResults=1", &next, &status);
    assert_non_null(next);
    other.key = "p=1";
    listed(&other, real, apr_pstrcat(pool, "pageToken=", next, NULL), &next,
           &status);
    assert_int_equal(status, 400);
    listed(&t, real, "maxResults=0", &next, &status);
    assert_int_equal(status, 400);
    listed(&t, real, "maxResults=1001", &next, &status);
    assert_int_equal(status, 400);
    listed(&t, real, "pageToken=forged", &next, &status);
    assert_int_equal(status, 400);
}

static int setup(void **state)
{
    uc_secret_key_t old_key, new_key;

    (void)state;
    make_key("00112233445566778899aabbccddeeff"
             "00112233445566778899aabbccddeeff", &old_key);
    make_key("ffeeddccbbaa99887766554433221100"
             "ffeeddccbbaa99887766554433221100", &new_key);
    assert_null(uc_secret_keys_add(pool, &old_only, &old_key));
    assert_null(uc_secret_keys_add(pool, &rotated, &new_key));
    assert_null(uc_secret_keys_add(pool, &rotated, &old_key));
    strcpy(root, "/tmp/uc-file-url-XXXXXX");
    strcpy(outside, "/tmp/uc-file-url-out-XXXXXX");
    assert_non_null(mkdtemp(root));
    assert_non_null(mkdtemp(outside));
    mkdir(apr_pstrcat(pool, root, "/p=1", NULL), 0755);
    write_file(apr_pstrcat(pool, root, "/p=1/a.parquet", NULL));
    write_file(apr_pstrcat(pool, outside, "/secret", NULL));
    assert_int_equal(symlink(apr_pstrcat(pool, root, "/p=1/a.parquet",
                                         NULL),
                             apr_pstrcat(pool, root, "/inside", NULL)), 0);
    assert_int_equal(symlink(apr_pstrcat(pool, outside, "/secret", NULL),
                             apr_pstrcat(pool, root, "/out", NULL)), 0);
    assert_int_equal(symlink(outside, apr_pstrcat(pool, root, "/outdir",
                                                  NULL)), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return system(apr_pstrcat(pool, "rm -rf ", root, " ", outside, NULL))
           != 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_tampering),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_grant),
        cmocka_unit_test(test_listing),
    };
    int rc;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    rc = cmocka_run_group_tests(tests, setup, teardown);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
