/* SPDX-License-Identifier: Apache-2.0 */
/* The files route without httpd, on fuzzed paths and query strings:
 * uc_file_url_verify (file URLs and grants), uc_file_url_resolve on a
 * scratch asset whose root holds files, a directory, a link inside and
 * links out of it, and uc_file_list (maxResults, page tokens). What must
 * hold whatever the input:
 *   - a key the signer takes comes back from verify, the same, for its
 *     URL; a grant's query opens that key too;
 *   - verify answers a URL it did not sign 403 or 404, nothing else;
 *   - resolve never gives a path outside the root's real path;
 *   - a listing succeeds or is a 400.
 *
 * Input: "path\0query" (the path as sent, after the route's mount; the
 * query without its '?'). */
#include "fuzz_common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <apr_strings.h>

#include "core/uc_jw.h"
#include "core/uc_percent.h"
#include "core/uc_secret.h"
#include "sharing/uc_file_list.h"
#include "sharing/uc_file_url.h"

#define ASSET "0a1b2c3d-0000-4000-8000-00000000f11e"
#define BASE "http://h/files"
#define NOW_S 1700000000

static uc_secret_key_t key = { "f0", { 1, 2, 3, 4, 5, 6, 7, 8 } };
static const uc_secret_keys_t keys = { 1, &key };
static const char *root, *location;
static char real_root[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *outside;

    (void)argc;
    (void)argv;
    root = fuzz_table_dir("files");
    outside = fuzz_table_dir("files-out");
    if (mkdir(apr_pstrcat(fuzz_root_pool(), root, "/dir", NULL), 0755) ||
        mkdir(apr_pstrcat(fuzz_root_pool(), root, "/dir/sub", NULL), 0755))
        abort();
    fuzz_put_file(root, "a.txt", "a", 1);
    fuzz_put_file(root, "dir/b.bin", "b", 1);
    fuzz_put_file(root, "dir/sub/c", "c", 1);
    fuzz_put_file(outside, "secret", "s", 1);
    if (symlink(apr_pstrcat(fuzz_root_pool(), root, "/a.txt", NULL),
                apr_pstrcat(fuzz_root_pool(), root, "/dir/in", NULL)) ||
        symlink(outside, apr_pstrcat(fuzz_root_pool(), root, "/dir/out",
                                     NULL)) ||
        !realpath(root, real_root))
        abort();
    location = apr_pstrcat(fuzz_root_pool(), "file://", root, NULL);
    return 0;
}

static int inside(const char *path)
{
    size_t n = strlen(real_root);

    return !strncmp(path, real_root, n) && (!path[n] || path[n] == '/');
}

/* Signing `k` and verifying its URL gives `k` back; so does its grant. */
static void round_trip(apr_pool_t *pool, const char *k)
{
    uc_file_url_signer_t *signer;
    uc_file_target_t t;
    const char *url, *grant_url, *query;
    apr_size_t len;
    char *q;

    if (uc_file_url_signer_make(pool, &keys, BASE, ASSET, NOW_S + 60,
                                &signer))
        abort();
    if (uc_file_url_sign(signer, pool, k, strlen(k), &url, &len))
        return;
    fuzz_report("signed", NULL);
    q = strchr(url, '?');
    if (!q || uc_file_url_verify(pool, &keys, apr_pstrndup(
                                     pool, url + strlen(BASE),
                                     (apr_size_t)(q - url) - strlen(BASE)),
                                 q + 1, apr_time_from_sec(NOW_S), &t) ||
        strcmp(t.key, k) != 0 || t.grant)
        abort();
    if (uc_file_grant_make(pool, &keys, BASE, ASSET, NOW_S + 60, &grant_url,
                           &query) ||
        uc_file_url_verify(pool, &keys, apr_pstrndup(
                               pool, url + strlen(BASE),
                               (apr_size_t)(q - url) - strlen(BASE)),
                           query, apr_time_from_sec(NOW_S), &t) ||
        strcmp(t.key, k) != 0 || !t.grant)
        abort();
}

static void resolve(apr_pool_t *pool, const char *k)
{
    const char *path, *real;
    int directory;

    for (directory = 0; directory < 2; directory++)
        if (!uc_file_url_resolve(pool, location, k, directory, &path, &real)
            && (!inside(path) || strcmp(real, real_root) != 0))
            abort();
}

static void list(apr_pool_t *pool, const char *args)
{
    uc_file_target_t t = { ASSET, "", NOW_S + 60, 1, 1 };
    uc_jw_t *out = uc_jw_make(pool, 256);
    uc_error_t *err = uc_file_list(pool, &keys, &t, real_root, real_root,
                                   args, apr_time_from_sec(NOW_S), out);

    if (err && err->status != 400)
        abort();
    fuzz_report(err ? "list refused" : "listed", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool;
    uc_file_target_t t;
    uc_error_t *err;
    const char *path, *args, *decoded;

    apr_pool_create(&pool, fuzz_root_pool());
    path = apr_pstrmemdup(pool, (const char *)data, size);
    args = strlen(path) < size ? path + strlen(path) + 1 : "";
    err = uc_file_url_verify(pool, &keys, path, args,
                             apr_time_from_sec(NOW_S), &t);
    if (err && err->status != 403 && err->status != 404)
        abort();
    fuzz_report(err ? "refused" : "verified", err);
    /* The path, and its decoding, taken as keys below the root. */
    decoded = uc_percent_decode(pool, path);
    round_trip(pool, path + (*path == '/'));
    resolve(pool, path + (*path == '/'));
    if (decoded) {
        round_trip(pool, decoded + (*decoded == '/'));
        resolve(pool, decoded + (*decoded == '/'));
    }
    list(pool, args);
    apr_pool_destroy(pool);
    return 0;
}
