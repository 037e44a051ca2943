/* SPDX-License-Identifier: Apache-2.0 */
/* The s3:// object store against s3rver behind t/s3/sigv4-proxy.mjs, which
 * recomputes every request's SigV4 signature with an independent
 * implementation (aws4). Run under t/s3/with-s3.sh; without its environment
 * every test fails rather than skips, so a harness that did not come up
 * cannot pass for a green run.
 *
 * Each test notes where the proxy log stood when it began and checks the
 * verdicts of the lines its own requests added, so "all requests were
 * verified" is asserted request by request, not assumed. */
#include "uc_test_reader.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <curl/curl.h>

#include "../../src/objstore/uc_objstore.h"

/* Rejections the tests provoked on purpose, for the final log audit. */
static int expected_rejections;
static long log_start = -1;

static const char *need_env(const char *name)
{
    const char *v = getenv(name);

    if (v == NULL || *v == '\0')
        fail_msg("%s is not set: run this test under t/s3/with-s3.sh", name);
    return v;
}

static uc_objstore_config_t base_config(void)
{
    uc_objstore_config_t c;

    memset(&c, 0, sizeof(c));
    c.endpoint = need_env("UNICAT_S3_ENDPOINT");
    c.region = need_env("UNICAT_S3_REGION");
    c.access_key_id = need_env("UNICAT_S3_KEY");
    c.secret_access_key = need_env("UNICAT_S3_SECRET");
    c.timeout_ms = 20000;
    return c;
}

/* s3://<test bucket><suffix> */
static const char *loc(apr_pool_t *pool, const char *suffix)
{
    return apr_pstrcat(pool, "s3://", need_env("UNICAT_S3_BUCKET"), suffix,
                       NULL);
}

static uc_objstore_t *open_with(apr_pool_t *pool, const char *location,
                                const uc_objstore_config_t *config)
{
    uc_objstore_t *store = NULL;

    assert_ok(uc_objstore_open(pool, location, config, &store));
    assert_non_null(store);
    return store;
}

static uc_objstore_t *open_at(apr_pool_t *pool, const char *suffix)
{
    uc_objstore_config_t c = base_config();

    return open_with(pool, loc(pool, suffix), &c);
}

/* --- local fixture files ------------------------------------------------- */

static const char *fixture_path(apr_pool_t *pool, const char *rel)
{
    return apr_pstrcat(pool, need_env("UNICAT_DELTA_FIXTURES"), "/", rel,
                       NULL);
}

static char *slurp(apr_pool_t *pool, const char *path, apr_size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *buf;

    if (f == NULL || fstat(fileno(f), &st) != 0)
        fail_msg("cannot open %s", path);
    buf = apr_palloc(pool, (apr_size_t)st.st_size + 1);
    if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        fail_msg("cannot read %s", path);
    fclose(f);
    buf[st.st_size] = '\0';
    *len = (apr_size_t)st.st_size;
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The regular files directly in a local directory, sorted by name. */
static apr_array_header_t *local_files(apr_pool_t *pool, const char *dir)
{
    apr_array_header_t *names = apr_array_make(pool, 16, sizeof(char *));
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d == NULL)
        fail_msg("cannot list %s", dir);
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        const char *p = apr_pstrcat(pool, dir, "/", e->d_name, NULL);

        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            APR_ARRAY_PUSH(names, const char *) = apr_pstrdup(pool,
                                                              e->d_name);
    }
    closedir(d);
    qsort(names->elts, names->nelts, sizeof(char *), cmp_str);
    return names;
}

/* --- the proxy log ------------------------------------------------------- */

static long log_size(void)
{
    struct stat st;

    if (stat(need_env("UNICAT_S3_PROXY_LOG"), &st) != 0)
        fail_msg("no proxy log at %s", getenv("UNICAT_S3_PROXY_LOG"));
    return (long)st.st_size;
}

/* The log lines written since byte `from`. */
static apr_array_header_t *log_lines(apr_pool_t *pool, long from)
{
    apr_array_header_t *lines = apr_array_make(pool, 16, sizeof(char *));
    apr_size_t len;
    char *text = slurp(pool, need_env("UNICAT_S3_PROXY_LOG"), &len), *save,
         *line;

    if ((apr_size_t)from > len)
        fail_msg("the proxy log shrank");
    for (line = apr_strtok(text + from, "\n", &save); line;
         line = apr_strtok(NULL, "\n", &save))
        APR_ARRAY_PUSH(lines, char *) = line;
    return lines;
}

/* Field `n` (0-based) of a log line. */
static const char *field(apr_pool_t *pool, const char *line, int n)
{
    char *copy = apr_pstrdup(pool, line), *save, *f;

    for (f = apr_strtok(copy, " ", &save); f && n > 0; n--)
        f = apr_strtok(NULL, " ", &save);
    return f ? f : "";
}

/* Every line since `from` has verdict `verdict`; returns how many there
 * were, at least one. */
static int expect_log(apr_pool_t *pool, long from, const char *verdict)
{
    apr_array_header_t *lines = log_lines(pool, from);
    int i;

    if (lines->nelts == 0)
        fail_msg("the proxy logged no request since offset %ld", from);
    for (i = 0; i < lines->nelts; i++) {
        const char *l = APR_ARRAY_IDX(lines, i, const char *);

        if (strcmp(field(pool, l, 0), verdict) != 0)
            fail_msg("proxy log line '%s': expected verdict %s", l, verdict);
    }
    return lines->nelts;
}

static int count_lines_with(apr_pool_t *pool, long from, int n,
                            const char *value)
{
    apr_array_header_t *lines = log_lines(pool, from);
    int i, count = 0;

    for (i = 0; i < lines->nelts; i++)
        if (strcmp(field(pool, APR_ARRAY_IDX(lines, i, const char *), n),
                   value) == 0)
            count++;
    return count;
}

static int count_lines_containing(apr_pool_t *pool, long from,
                                  const char *needle)
{
    apr_array_header_t *lines = log_lines(pool, from);
    int i, count = 0;

    for (i = 0; i < lines->nelts; i++)
        if (strstr(APR_ARRAY_IDX(lines, i, const char *), needle))
            count++;
    return count;
}

/* --- helpers on listings ------------------------------------------------- */

static const uc_object_t *obj_at(apr_array_header_t *objs, int i)
{
    return &APR_ARRAY_IDX(objs, i, uc_object_t);
}

static void assert_sorted_unique(apr_array_header_t *objs)
{
    int i;

    for (i = 1; i < objs->nelts; i++)
        if (strcmp(obj_at(objs, i - 1)->name, obj_at(objs, i)->name) >= 0)
            fail_msg("listing not strictly ascending at '%s', '%s'",
                     obj_at(objs, i - 1)->name, obj_at(objs, i)->name);
}

/* A key as the path of an s3:// location, which is a URI: a literal '%'
 * is spelled %25. */
static const char *uri_path(apr_pool_t *pool, const char *key)
{
    char *out = apr_palloc(pool, 3 * strlen(key) + 1), *w = out;

    for (; *key; key++) {
        if (*key == '%') {
            memcpy(w, "%25", 3);
            w += 3;
        }
        else
            *w++ = *key;
    }
    *w = '\0';
    return out;
}

/* The listing of `dir` in the store at fixtures/<table> equals the local
 * directory: same names in order, same sizes, mtimes of the upload. */
static void check_listing_matches(apr_pool_t *pool, const char *table,
                                  const char *dir)
{
    uc_objstore_t *store = open_at(pool, apr_pstrcat(pool, "/fixtures/",
                                                     uri_path(pool, table),
                                                     NULL));
    const char *local = fixture_path(pool, apr_pstrcat(pool, table, "/", dir,
                                                       NULL));
    apr_array_header_t *want = local_files(pool, local), *objs = NULL;
    apr_int64_t now_ms = (apr_int64_t)time(NULL) * 1000;
    int i;

    assert_ok(uc_objstore_list(store, pool, dir, NULL, &objs));
    assert_int_equal(objs->nelts, want->nelts);
    for (i = 0; i < objs->nelts; i++) {
        const uc_object_t *o = obj_at(objs, i);
        const char *name = APR_ARRAY_IDX(want, i, const char *);
        struct stat st;

        assert_string_equal(o->name, name);
        assert_int_equal(stat(apr_pstrcat(pool, local, name, NULL), &st), 0);
        assert_int_equal(o->size, st.st_size);
        /* Uploaded by the harness moments ago. */
        if (o->mtime_ms < now_ms - 3600 * 1000
            || o->mtime_ms > now_ms + 300 * 1000)
            fail_msg("'%s' has an implausible mtime %" APR_INT64_T_FMT
                     " (now %" APR_INT64_T_FMT ")", o->name, o->mtime_ms,
                     now_ms);
    }
    assert_sorted_unique(objs);
}

/* --- tests --------------------------------------------------------------- */

static void test_environment(void **state)
{
    (void)state;
    need_env("UNICAT_S3_ENDPOINT");
    need_env("UNICAT_S3_BUCKET");
    need_env("UNICAT_S3_KEY");
    need_env("UNICAT_S3_SECRET");
    need_env("UNICAT_S3_REGION");
    need_env("UNICAT_S3_SESSION_TOKEN");
    need_env("UNICAT_DELTA_FIXTURES");
    log_start = log_size();
}

static void test_open_locations(void **state)
{
    apr_pool_t *pool = *state;
    uc_objstore_config_t c = base_config(), bad;
    uc_objstore_t *store = NULL;

    store = open_with(pool, "s3://bkt/a/table///", &c);
    assert_string_equal(uc_objstore_location(store), "s3://bkt/a/table");
    store = open_with(pool, "s3a://bkt/", &c);
    assert_string_equal(uc_objstore_location(store), "s3a://bkt");
    store = open_with(pool, "s3://bkt", &c);
    assert_string_equal(uc_objstore_location(store), "s3://bkt");

    assert_invalid(uc_objstore_open(pool, "s3://", &c, &store));
    assert_invalid(uc_objstore_open(pool, "s3:///table", &c, &store));
    assert_invalid(uc_objstore_open(pool, "s3://my bucket/t", &c, &store));
    assert_invalid(uc_objstore_open(pool, "s3://b?x/t", &c, &store));
    assert_invalid(uc_objstore_open(pool, "s3://b/a/../t", &c, &store));
    bad = c;
    bad.endpoint = "ftp://127.0.0.1:21";
    assert_invalid(uc_objstore_open(pool, "s3://b/t", &bad, &store));
    bad = c;
    bad.region = "us-east-1:evil";
    assert_invalid(uc_objstore_open(pool, "s3://b/t", &bad, &store));
    bad = c;
    bad.secret_access_key = NULL;
    assert_invalid(uc_objstore_open(pool, "s3://b/t", &bad, &store));
    bad = c;
    bad.session_token = "a\r\nx-injected: 1";
    assert_invalid(uc_objstore_open(pool, "s3://b/t", &bad, &store));
}

static void test_list_delta_log(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table/");
    apr_array_header_t *objs = NULL;
    int i;

    assert_string_equal(uc_objstore_location(store),
                        loc(pool, "/fixtures/simple_table"));
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 5);
    for (i = 0; i < 5; i++)
        assert_string_equal(obj_at(objs, i)->name,
                            apr_psprintf(pool, "%020d.json", i));
    /* _delta_log/.tmp/ holds an object: a common prefix, not an entry. */
    for (i = 0; i < objs->nelts; i++)
        assert_null(strstr(obj_at(objs, i)->name, ".tmp"));
    check_listing_matches(pool, "simple_table", "_delta_log/");
    /* Dot files (.crc) and partition directories with '=' in the name. */
    check_listing_matches(pool, "cdc_ict_table", "_delta_log/");
    check_listing_matches(pool, "cdc_ict_table", "");
    check_listing_matches(pool, "simple_table_with_checkpoint",
                          "_delta_log/");
    /* Without the trailing '/', the directory is the same. */
    assert_ok(uc_objstore_list(store, pool, "_delta_log", NULL, &objs));
    assert_int_equal(objs->nelts, 5);

    expect_log(pool, mark, "verified");
    assert_int_equal(count_lines_with(pool, mark, 2, "path"),
                     count_lines_with(pool, mark, 1, "GET"));
}

static void test_list_start_after(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table");
    apr_array_header_t *objs = NULL;

    assert_ok(uc_objstore_list(store, pool, "_delta_log/",
                               "00000000000000000001.json", &objs));
    assert_int_equal(objs->nelts, 3);
    assert_string_equal(obj_at(objs, 0)->name, "00000000000000000002.json");
    assert_string_equal(obj_at(objs, 2)->name, "00000000000000000004.json");

    /* A name prefix sorts before the name itself. */
    assert_ok(uc_objstore_list(store, pool, "_delta_log/",
                               "00000000000000000001", &objs));
    assert_int_equal(objs->nelts, 4);
    assert_string_equal(obj_at(objs, 0)->name, "00000000000000000001.json");

    assert_ok(uc_objstore_list(store, pool, "_delta_log/",
                               "00000000000000000004.json", &objs));
    assert_int_equal(objs->nelts, 0);
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", "zzz", &objs));
    assert_int_equal(objs->nelts, 0);
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", "", &objs));
    assert_int_equal(objs->nelts, 5);

    expect_log(pool, mark, "verified");
    assert_true(count_lines_containing(pool, mark, "&start-after=") >= 3);
}

static void check_paging(apr_array_header_t *objs, int first, int count)
{
    int i;

    assert_int_equal(objs->nelts, count);
    for (i = 0; i < count; i++) {
        char name[32];

        snprintf(name, sizeof(name), "obj-%04d", first + i);
        assert_string_equal(obj_at(objs, i)->name, name);
        assert_int_equal(obj_at(objs, i)->size, strlen(name) + 1);
    }
}

static void test_list_pagination(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "");
    apr_array_header_t *objs = NULL;

    /* 1100 objects, paging/sub/ and the "paging/" marker: more than the
     * 1000 keys of one page. */
    assert_ok(uc_objstore_list(store, pool, "paging/", NULL, &objs));
    check_paging(objs, 0, 1100);
    assert_int_equal(count_lines_containing(pool, mark,
                                            "continuation-token="), 1);
    assert_int_equal(count_lines_containing(pool, mark, "list-type=2"), 2);

    /* Start after the first page's position still crosses a page. */
    assert_ok(uc_objstore_list(store, pool, "paging/", "obj-0049", &objs));
    check_paging(objs, 50, 1050);
    assert_ok(uc_objstore_list(store, pool, "paging/", "obj-1050", &objs));
    check_paging(objs, 1051, 49);

    /* The same objects from a store rooted at the directory. */
    store = open_at(pool, "/paging");
    assert_ok(uc_objstore_list(store, pool, "", NULL, &objs));
    check_paging(objs, 0, 1100);
    assert_ok(uc_objstore_list(store, pool, "sub/", NULL, &objs));
    assert_int_equal(objs->nelts, 1);
    assert_string_equal(obj_at(objs, 0)->name, "nested");

    assert_true(count_lines_containing(pool, mark,
                                       "continuation-token=") >= 3);
    expect_log(pool, mark, "verified");
}

static void test_list_missing(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table");
    apr_array_header_t *objs = NULL;
    uc_objstore_config_t c = base_config();

    assert_ok(uc_objstore_list(store, pool, "no_such_dir/", NULL, &objs));
    assert_non_null(objs);
    assert_int_equal(objs->nelts, 0);
    store = open_at(pool, "/no/such/table");
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 0);
    /* A directory key may not climb out of the table. */
    assert_invalid(uc_objstore_list(store, pool, "../", NULL, &objs));

    store = open_with(pool, "s3://unicat-no-such-bucket/t", &c);
    assert_err(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs),
               404, "NOT_FOUND");
    expect_log(pool, mark, "verified");
}

static void check_read(uc_objstore_t *store, apr_pool_t *pool,
                       const char *key, const char *local, apr_off_t offset,
                       apr_off_t length)
{
    apr_size_t flen, len = 12345, want;
    const char *file = slurp(pool, local, &flen);
    char *data = NULL;

    assert_ok(uc_objstore_read(store, pool, key, offset, length, &data,
                               &len));
    if ((apr_size_t)offset >= flen)
        want = 0;
    else if (length < 0 || (apr_size_t)length > flen - (apr_size_t)offset)
        want = flen - (apr_size_t)offset;
    else
        want = (apr_size_t)length;
    assert_non_null(data);
    assert_int_equal(len, want);
    if (want)
        assert_memory_equal(data, file + offset, want);
    assert_int_equal(data[len], '\0');
}

static void test_read_whole_and_ranges(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table");
    const char *key = "_delta_log/00000000000000000001.json";
    const char *local = fixture_path(pool, "simple_table/" "_delta_log/"
                                     "00000000000000000001.json");
    apr_array_header_t *parts;
    const char *part;
    char *data;
    apr_size_t len;

    check_read(store, pool, key, local, 0, -1);
    check_read(store, pool, key, local, 0, 100);
    check_read(store, pool, key, local, 10, 100);
    check_read(store, pool, key, local, 100, -1);
    check_read(store, pool, key, local, 4000, 100000);   /* past the end */
    check_read(store, pool, key, local, 4448, 1);        /* the last byte */
    check_read(store, pool, key, local, 4449, 10);       /* 416 */
    check_read(store, pool, key, local, 999999, -1);     /* 416 */
    check_read(store, pool, key, local, 5, 0);

    /* Binary data survives, NULs included. */
    parts = local_files(pool, fixture_path(pool, "simple_table"));
    assert_true(parts->nelts > 0);
    part = APR_ARRAY_IDX(parts, 0, const char *);
    check_read(store, pool, part,
               fixture_path(pool, apr_pstrcat(pool, "simple_table/", part,
                                              NULL)), 0, -1);
    check_read(store, pool, part,
               fixture_path(pool, apr_pstrcat(pool, "simple_table/", part,
                                              NULL)), 4, 64);

    /* The text is NUL-terminated so it can be parsed in place. */
    assert_ok(uc_objstore_read(store, pool, "_delta_log/"
                               "00000000000000000000.json", 0, -1, &data,
                               &len));
    assert_int_equal(strlen(data), len);
    assert_non_null(strstr(data, "\"protocol\""));
    expect_log(pool, mark, "verified");
}

static void test_read_escaped_keys(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "");
    static const char *const special[] = {
        "special/plus+sign \xc3\xa9 ~x.txt", "special/quote's (1)*!.txt"
    };
    const char *dir = "data-reader-timestamp_ntz/"
                      "tsNtzPartition=2021-11-18 02%3A30%3A00.123456";
    apr_array_header_t *objs = NULL, *files;
    const char *name;
    char *data;
    apr_size_t len;
    int i;

    for (i = 0; i < 2; i++) {
        assert_ok(uc_objstore_read(store, pool, special[i], 0, -1, &data,
                                   &len));
        assert_int_equal(len, strlen(special[i]) + 1);
        assert_memory_equal(data, special[i], strlen(special[i]));
    }
    assert_ok(uc_objstore_list(store, pool, "special/", NULL, &objs));
    assert_int_equal(objs->nelts, 2);
    assert_string_equal(obj_at(objs, 0)->name, special[0] + 8);
    assert_string_equal(obj_at(objs, 1)->name, special[1] + 8);

    /* A space and a literal "%3A" in a directory name. */
    files = local_files(pool, fixture_path(pool, dir));
    assert_true(files->nelts > 0);
    name = APR_ARRAY_IDX(files, 0, const char *);
    store = open_at(pool, "/fixtures/data-reader-timestamp_ntz");
    check_read(store, pool,
               apr_pstrcat(pool, strchr(dir, '/') + 1, "/", name, NULL),
               fixture_path(pool, apr_pstrcat(pool, dir, "/", name, NULL)),
               0, -1);
    check_listing_matches(pool, dir, "");
    expect_log(pool, mark, "verified");
}

static void test_read_missing(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table");
    uc_objstore_config_t c = base_config();
    uc_error_t *err;
    char *data = NULL;
    apr_size_t len = 0;

    err = uc_objstore_read(store, pool, "_delta_log/00000000000000000099.json",
                           0, -1, &data, &len);
    assert_err(err, 404, "NOT_FOUND");
    assert_contains(err->message, "00000000000000000099.json");
    assert_err(uc_objstore_read(store, pool, "_delta_log/x.json", 10, 5,
                                &data, &len), 404, "NOT_FOUND");
    assert_invalid(uc_objstore_read(store, pool, "../other/x.json", 0, -1,
                                    &data, &len));
    assert_invalid(uc_objstore_read(store, pool, "a/./b", 0, -1, &data,
                                    &len));
    assert_invalid(uc_objstore_read(store, pool, "", 0, -1, &data, &len));
    store = open_with(pool, "s3://unicat-no-such-bucket/t", &c);
    assert_err(uc_objstore_read(store, pool, "_delta_log/x.json", 0, -1,
                                &data, &len), 404, "NOT_FOUND");
    expect_log(pool, mark, "verified");
}

static void test_wrong_secret(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_config_t c = base_config();
    uc_objstore_t *store;
    apr_array_header_t *objs = NULL;
    uc_error_t *err;
    char *data = NULL;
    apr_size_t len = 0;

    c.secret_access_key = "wrong-secret-DO-NOT-ECHO";
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    err = uc_objstore_list(store, pool, "_delta_log/", NULL, &objs);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "SignatureDoesNotMatch");
    assert_null(strstr(err->message, c.secret_access_key));
    assert_null(strstr(err->message, "Signature="));
    err = uc_objstore_read(store, pool, "_delta_log/00000000000000000000.json",
                           0, -1, &data, &len);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "SignatureDoesNotMatch");
    assert_contains(err->message, "403");
    assert_null(strstr(err->message, c.secret_access_key));
    expected_rejections += expect_log(pool, mark,
                                      "rejected:SignatureDoesNotMatch");
}

static void test_anonymous(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_config_t c = base_config();
    uc_objstore_t *store;
    uc_error_t *err;
    char *data = NULL;
    apr_size_t len = 0;

    c.access_key_id = NULL;
    c.secret_access_key = NULL;
    c.session_token = need_env("UNICAT_S3_SESSION_TOKEN");
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    err = uc_objstore_read(store, pool, "_delta_log/00000000000000000000.json",
                           0, -1, &data, &len);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "AccessDenied");
    /* The proxy answers AccessDenied only to a request without
     * Authorization; a token that cannot be signed is not sent. */
    expected_rejections += expect_log(pool, mark, "rejected:AccessDenied");
    assert_int_equal(count_lines_with(pool, mark, 5, "token:none"), 1);
}

static void test_session_token(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_config_t c = base_config();
    uc_objstore_t *store;
    apr_array_header_t *objs = NULL;
    uc_error_t *err;
    char *data = NULL;
    apr_size_t len = 0;
    int n;

    c.session_token = need_env("UNICAT_S3_SESSION_TOKEN");
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 5);
    check_read(store, pool, "_delta_log/00000000000000000002.json",
               fixture_path(pool, "simple_table/_delta_log/"
                            "00000000000000000002.json"), 7, 50);
    n = expect_log(pool, mark, "verified");
    assert_int_equal(count_lines_with(pool, mark, 5, "token:signed"), n);

    /* The proxy knows one token: another is refused, so it was sent. */
    mark = log_size();
    c.session_token = "some-other-token";
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    err = uc_objstore_read(store, pool, "_delta_log/00000000000000000000.json",
                           0, -1, &data, &len);
    assert_err(err, 502, "STORAGE_ERROR");
    assert_contains(err->message, "InvalidToken");
    expected_rejections += expect_log(pool, mark, "rejected:InvalidToken");
}

static void test_virtual_hosted(void **state)
{
    apr_pool_t *pool = *state;
    uc_objstore_config_t c = base_config();
    const char *ep = c.endpoint, *port = strrchr(ep, ':'), *host;
    uc_objstore_t *store;
    apr_array_header_t *objs = NULL;
    long mark;
    int n;

    assert_non_null(port);
    /* The IP-literal endpoint of the harness is always path-style. */
    mark = log_size();
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    n = expect_log(pool, mark, "verified");
    assert_int_equal(count_lines_with(pool, mark, 2, "path"), n);

    /* By name, the bucket moves into the host; *.localhost is loopback. */
    c.endpoint = apr_pstrcat(pool, "http://localhost", port, "/", NULL);
    host = apr_pstrcat(pool, need_env("UNICAT_S3_BUCKET"), ".localhost",
                       port, NULL);
    mark = log_size();
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 5);
    check_read(store, pool, "_delta_log/00000000000000000003.json",
               fixture_path(pool, "simple_table/_delta_log/"
                            "00000000000000000003.json"), 0, -1);
    n = expect_log(pool, mark, "verified");
    assert_int_equal(n, 2);
    assert_int_equal(count_lines_with(pool, mark, 2, "vhost"), n);
    assert_int_equal(count_lines_with(pool, mark, 3, host), n);
    assert_int_equal(count_lines_containing(pool, mark, " /?delimiter="), 1);
    assert_int_equal(count_lines_containing(pool, mark,
                                            " /fixtures/simple_table/"
                                            "_delta_log/"
                                            "00000000000000000003.json "), 1);

    /* path_style keeps the host and puts the bucket in the path. */
    c.path_style = 1;
    mark = log_size();
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    assert_ok(uc_objstore_list(store, pool, "_delta_log/", NULL, &objs));
    assert_int_equal(objs->nelts, 5);
    n = expect_log(pool, mark, "verified");
    assert_int_equal(count_lines_with(pool, mark, 2, "path"), n);
    assert_int_equal(count_lines_with(pool, mark, 3,
                                      apr_pstrcat(pool, "localhost", port,
                                                  NULL)), n);
    assert_int_equal(count_lines_containing(pool, mark,
                                            apr_pstrcat(pool, " /",
                                            need_env("UNICAT_S3_BUCKET"),
                                            "?delimiter=", NULL)), 1);
}

/* Without an endpoint, the store talks to AWS over https. No AWS here: the
 * proxy stands in as an https_proxy and logs the host each CONNECT asks
 * for, then refuses it, which the store reports as unreachable. */
static void aws_host_case(apr_pool_t *pool, const char *region,
                          int path_style, const char *want_host)
{
    uc_objstore_config_t c = base_config();
    uc_objstore_t *store;
    char *data = NULL;
    apr_size_t len = 0;
    long mark = log_size();

    c.endpoint = NULL;
    c.region = region;
    c.path_style = path_style;
    c.timeout_ms = 5000;
    store = open_with(pool, "s3://unicat-test-bucket/t", &c);
    assert_err(uc_objstore_read(store, pool, "k", 0, -1, &data, &len), 503,
               NULL);
    assert_int_equal(count_lines_with(pool, mark, 3, want_host), 1);
    expect_log(pool, mark, "tunnel");
}

static void test_aws_urls(void **state)
{
    apr_pool_t *pool = *state;
    const char *ep = need_env("UNICAT_S3_ENDPOINT");
    char *old_https = getenv("https_proxy"), *old_no = getenv("no_proxy"),
         *old_NO = getenv("NO_PROXY");

    old_https = old_https ? apr_pstrdup(pool, old_https) : NULL;
    old_no = old_no ? apr_pstrdup(pool, old_no) : NULL;
    old_NO = old_NO ? apr_pstrdup(pool, old_NO) : NULL;
    setenv("https_proxy", ep, 1);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");

    aws_host_case(pool, "eu-west-3", 0,
                  "unicat-test-bucket.s3.eu-west-3.amazonaws.com:443");
    aws_host_case(pool, "eu-west-3", 1, "s3.eu-west-3.amazonaws.com:443");
    aws_host_case(pool, NULL, 0,
                  "unicat-test-bucket.s3.us-east-1.amazonaws.com:443");

    if (old_https)
        setenv("https_proxy", old_https, 1);
    else
        unsetenv("https_proxy");
    if (old_no)
        setenv("no_proxy", old_no, 1);
    if (old_NO)
        setenv("NO_PROXY", old_NO, 1);
}

static void test_unreachable(void **state)
{
    apr_pool_t *pool = *state;
    uc_objstore_config_t c = base_config();
    uc_objstore_t *store;
    apr_array_header_t *objs = NULL;
    uc_error_t *err;

    /* Port 1 on loopback: nothing listens, the connection is refused. */
    c.endpoint = "http://127.0.0.1:1";
    c.timeout_ms = 3000;
    store = open_with(pool, loc(pool, "/t"), &c);
    err = uc_objstore_list(store, pool, "_delta_log/", NULL, &objs);
    assert_err(err, 503, NULL);
    assert_true(err->retry_after > 0);
    assert_null(strstr(err->message, c.secret_access_key));
}

/* --- pre-signed URLs ------------------------------------------------------ */

typedef struct fetched {
    apr_pool_t *pool;
    char *data;
    apr_size_t len;
} fetched_t;

static size_t on_fetched(char *ptr, size_t size, size_t nmemb, void *baton)
{
    fetched_t *f = baton;
    apr_size_t n = size * nmemb;
    char *grown = apr_palloc(f->pool, f->len + n + 1);

    memcpy(grown, f->data, f->len);
    memcpy(grown + f->len, ptr, n);
    f->len += n;
    grown[f->len] = '\0';
    f->data = grown;
    return n;
}

/* A GET of `url` as a recipient makes it: no credentials, nothing but the
 * URL. Returns the status; *body gets what came back. */
static long fetch(apr_pool_t *pool, const char *url, fetched_t *body)
{
    CURL *c = curl_easy_init();
    long status = 0;

    body->pool = pool;
    body->data = apr_pstrdup(pool, "");
    body->len = 0;
    assert_non_null(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_fetched);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
    if (curl_easy_perform(c) != CURLE_OK)
        fail_msg("cannot fetch %s", url);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    return status;
}

static const char *presigned(apr_pool_t *pool, uc_objstore_t *store,
                             const char *key, apr_int64_t expires,
                             apr_time_t now)
{
    const char *url = NULL;

    assert_ok(uc_objstore_presign(store, pool, key, expires, now, &url));
    assert_non_null(strstr(url, "X-Amz-Signature="));
    return url;
}

/* The URL fetches `len` bytes `want`. */
static void expect_fetches(apr_pool_t *pool, const char *url,
                           const char *want, apr_size_t len)
{
    fetched_t got;
    long status = fetch(pool, url, &got);

    if (status != 200)
        fail_msg("GET %s: %ld %s", url, status, got.data);
    assert_int_equal(got.len, len);
    assert_memory_equal(got.data, want, len);
}

/* The URL is refused with `code`. */
static void expect_refused(apr_pool_t *pool, const char *url, long status,
                           const char *code)
{
    fetched_t got;

    assert_int_equal(fetch(pool, url, &got), status);
    assert_contains(got.data, apr_pstrcat(pool, "<Code>", code, "</Code>",
                                          NULL));
    expected_rejections++;
}

/* `url` with the first occurrence of `from` replaced by `to`. */
static const char *tampered(apr_pool_t *pool, const char *url,
                            const char *from, const char *to)
{
    const char *at = strstr(url, from);

    assert_non_null(at);
    return apr_pstrcat(pool, apr_pstrmemdup(pool, url, at - url), to,
                       at + strlen(from), NULL);
}

static void test_presigned_get(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    uc_objstore_config_t c = base_config();
    const char *key = "_delta_log/00000000000000000000.json";
    const char *special = "special/plus+sign \xc3\xa9 ~x.txt";
    const char *ep = c.endpoint, *port = strrchr(ep, ':');
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table");
    apr_size_t len;
    const char *want = slurp(pool, fixture_path(pool, "simple_table/"
                                                "_delta_log/"
                                                "00000000000000000000.json"),
                             &len);
    int n;

    /* Path-style, as the harness's IP-literal endpoint is addressed. */
    expect_fetches(pool, presigned(pool, store, key, 300, apr_time_now()),
                   want, len);
    /* A key in S3's URI encoding, as the store reads it; the object holds
     * its own name and a newline. */
    store = open_at(pool, "");
    expect_fetches(pool, presigned(pool, store, special, 300,
                                   apr_time_now()),
                   apr_pstrcat(pool, special, "\n", NULL),
                   strlen(special) + 1);
    n = expect_log(pool, mark, "verified");
    assert_int_equal(count_lines_with(pool, mark, 2, "path"), n);
    assert_int_equal(count_lines_with(pool, mark, 5, "token:none"), n);

    /* Virtual-hosted: the bucket in the signed host name. */
    mark = log_size();
    c.endpoint = apr_pstrcat(pool, "http://localhost", port, NULL);
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    expect_fetches(pool, presigned(pool, store, key, 300, apr_time_now()),
                   want, len);
    assert_int_equal(count_lines_with(pool, mark, 2, "vhost"), 1);

    /* A session token travels in the signed query. */
    mark = log_size();
    c = base_config();
    c.session_token = need_env("UNICAT_S3_SESSION_TOKEN");
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    expect_fetches(pool, presigned(pool, store, key, 300, apr_time_now()),
                   want, len);
    n = expect_log(pool, mark, "verified");
    assert_int_equal(count_lines_with(pool, mark, 5, "token:query"), n);
}

/* The proxy recomputes the signature: whatever was changed after signing
 * is refused, and so is a URL past its lifetime. */
static void test_presigned_tampering(void **state)
{
    apr_pool_t *pool = *state;
    long mark = log_size();
    int before = expected_rejections;
    uc_objstore_config_t c = base_config();
    uc_objstore_t *store = open_at(pool, "/fixtures/simple_table");
    const char *url = presigned(pool, store, "_delta_log/"
                                "00000000000000000000.json", 300,
                                apr_time_now());
    const char *sig = strstr(url, "X-Amz-Signature=") + 16;
    char flipped[2] = { sig[0] == '0' ? '1' : '0', '\0' };

    expect_refused(pool, tampered(pool, url, "00000000000000000000.json",
                                  "00000000000000000001.json"),
                   403, "SignatureDoesNotMatch");
    expect_refused(pool, tampered(pool, url, "X-Amz-Expires=300",
                                  "X-Amz-Expires=3000"),
                   403, "SignatureDoesNotMatch");
    expect_refused(pool, tampered(pool, url, sig,
                                  apr_pstrcat(pool, flipped, sig + 1, NULL)),
                   403, "SignatureDoesNotMatch");
    expect_refused(pool, tampered(pool, url, "&X-Amz-SignedHeaders=host",
                                  "&X-Amz-SignedHeaders=host&x-id=GetObject"),
                   403, "SignatureDoesNotMatch");

    /* Signed an hour ago for a minute. */
    expect_refused(pool, presigned(pool, store, "_delta_log/"
                                   "00000000000000000000.json", 60,
                                   apr_time_now() - apr_time_from_sec(3600)),
                   403, "AccessDenied");

    c.secret_access_key = "wrong-secret";
    store = open_with(pool, loc(pool, "/fixtures/simple_table"), &c);
    expect_refused(pool, presigned(pool, store, "_delta_log/"
                                   "00000000000000000000.json", 300,
                                   apr_time_now()),
                   403, "SignatureDoesNotMatch");
    assert_int_equal(count_lines_containing(pool, mark, "rejected:"),
                     expected_rejections - before);
    assert_int_equal(count_lines_with(pool, mark, 0,
                                      "rejected:SignatureDoesNotMatch"), 5);
}

/* Last: every request since the first test is accounted for, either
 * verified or one of the rejections the tests asked for. */
static void test_log_audit(void **state)
{
    apr_pool_t *pool = *state;
    apr_array_header_t *lines;
    int i, verified = 0, rejected = 0, tunnels = 0;

    assert_true(log_start >= 0);
    lines = log_lines(pool, log_start);
    for (i = 0; i < lines->nelts; i++) {
        const char *v = field(pool, APR_ARRAY_IDX(lines, i, const char *), 0);

        if (strcmp(v, "verified") == 0)
            verified++;
        else if (strncmp(v, "rejected:", 9) == 0)
            rejected++;
        else if (strcmp(v, "tunnel") == 0)
            tunnels++;
        else
            fail_msg("unexpected proxy log line '%s'",
                     APR_ARRAY_IDX(lines, i, const char *));
    }
    assert_true(verified > 20);
    assert_int_equal(rejected, expected_rejections);
    assert_int_equal(tunnels, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_environment),
        UC_POOL_TEST(test_open_locations),
        UC_POOL_TEST(test_list_delta_log),
        UC_POOL_TEST(test_list_start_after),
        UC_POOL_TEST(test_list_pagination),
        UC_POOL_TEST(test_list_missing),
        UC_POOL_TEST(test_read_whole_and_ranges),
        UC_POOL_TEST(test_read_escaped_keys),
        UC_POOL_TEST(test_read_missing),
        UC_POOL_TEST(test_wrong_secret),
        UC_POOL_TEST(test_anonymous),
        UC_POOL_TEST(test_session_token),
        UC_POOL_TEST(test_virtual_hosted),
        UC_POOL_TEST(test_aws_urls),
        UC_POOL_TEST(test_unreachable),
        UC_POOL_TEST(test_presigned_get),
        UC_POOL_TEST(test_presigned_tampering),
        UC_POOL_TEST(test_log_audit),
    };
    int rc;

    uc_test_init();
    uc_test_init_reader();
    rc = cmocka_run_group_tests_name("objstore_s3", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
