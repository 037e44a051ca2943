/* SPDX-License-Identifier: Apache-2.0 */
/* Catalog-managed tables read as their catalog ratified them
 * (uc_delta_catalog_follow): published commits below the first ratified
 * one, the catalog's staged file for each ratified one (over a published
 * file of its version), nothing above the catalog's latest version
 * (published files, staged files of losers and of versions not yet
 * ratified, checkpoints), a checkpoint at or below it, timestamps from the
 * commits' In-Commit Timestamps; the latest snapshot, a version, history,
 * time travel by timestamp, the change data feed and the cache of latest
 * snapshots all agree; a missing file is a clear error; the catalog's
 * answer as unicat-delta reads it. */
#include "uc_test_reader.h"

#include "../../src/core/uc_json.h"

#define ICT(v) (1700000000000 + 1000 * (v))

static apr_pool_t *test_pool(void **state)
{
    return *state;
}

static void write_log_file(apr_pool_t *pool, const char *dir,
                           const char *name, const char *text)
{
    uc_test_write_file(pool, apr_pstrcat(pool, dir, "/_delta_log/", name,
                                         NULL), text, strlen(text));
}

static const char *published(apr_pool_t *pool, apr_int64_t v)
{
    return apr_psprintf(pool, "%020" APR_INT64_T_FMT ".json", v);
}

static const char *staged(apr_pool_t *pool, apr_int64_t v, const char *who)
{
    return apr_psprintf(pool, "%020" APR_INT64_T_FMT ".%s.json", v, who);
}

/* A commit whose first action is its commitInfo with its ICT, adding the
 * file `path`. */
static const char *commit_adding(apr_pool_t *pool, apr_int64_t v,
                                 const char *path)
{
    return apr_psprintf(pool,
        "{\"commitInfo\":{\"inCommitTimestamp\":%" APR_INT64_T_FMT ","
        "\"txnId\":\"%s\"}}\n"
        "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%"
        APR_INT64_T_FMT ",\"modificationTime\":1,\"dataChange\":true}}\n",
        ICT(v), path, path, v + 1);
}

static void write_staged(apr_pool_t *pool, const char *dir, apr_int64_t v,
                         const char *who, const char *path)
{
    write_log_file(pool, dir, apr_pstrcat(pool, "_staged_commits/",
                                          staged(pool, v, who), NULL),
                   commit_adding(pool, v, path));
}

#define PROTOCOL "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7," \
    "\"readerFeatures\":[\"catalogManaged\"],\"writerFeatures\":" \
    "[\"catalogManaged\",\"inCommitTimestamp\"]}}\n"
#define METADATA "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":" \
    "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":" \
    "\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[]," \
    "\"configuration\":{\"delta.enableInCommitTimestamps\":\"true\"," \
    "\"delta.enableChangeDataFeed\":\"true\"},\"createdTime\":1}}\n"

/* The table of most tests: v0 and v1 published (and a checkpoint at 1);
 * v2 and v3 ratified and staged (v2 also published, with other content);
 * a loser of v3 staged; v4 staged but not ratified, and published (with
 * a checkpoint at 4 that _last_checkpoint names). */
static const char *catalog_table(apr_pool_t *pool)
{
    const char *dir = uc_test_temp_table(pool);
    const char *v0 = apr_pstrcat(pool, commit_adding(pool, 0, "f0"),
                                 PROTOCOL, METADATA, NULL);

    apr_dir_make(apr_pstrcat(pool, dir, "/_delta_log/_staged_commits", NULL),
                 APR_OS_DEFAULT, pool);
    write_log_file(pool, dir, published(pool, 0), v0);
    write_log_file(pool, dir, published(pool, 1), commit_adding(pool, 1, "f1"));
    write_log_file(pool, dir, "00000000000000000001.checkpoint."
                   "0b6f3a52-5d7e-4a4c-9c1e-0d2b8c1f7a10.json",
                   apr_pstrcat(pool, PROTOCOL, METADATA,
                               "{\"add\":{\"path\":\"f0\",\"partitionValues\""
                               ":{},\"size\":1,\"modificationTime\":1,"
                               "\"dataChange\":false}}\n{\"add\":{\"path\":"
                               "\"f1\",\"partitionValues\":{},\"size\":2,"
                               "\"modificationTime\":1,\"dataChange\":false}}"
                               "\n", NULL));
    write_log_file(pool, dir, published(pool, 2),
                   commit_adding(pool, 2, "not-the-ratified-2"));
    write_staged(pool, dir, 2, "a", "f2");
    write_staged(pool, dir, 3, "a", "f3");
    write_staged(pool, dir, 3, "loser", "lost-3");
    write_staged(pool, dir, 4, "c", "staged-4");
    write_log_file(pool, dir, published(pool, 4),
                   commit_adding(pool, 4, "published-4"));
    write_log_file(pool, dir, "00000000000000000004.checkpoint."
                   "1c7a0f3e-2b44-4d2e-9a51-7e3f0c9b8d21.json",
                   apr_pstrcat(pool, PROTOCOL, METADATA, "{\"add\":{\"path\""
                               ":\"published-4\",\"partitionValues\":{},"
                               "\"size\":5,\"modificationTime\":1,"
                               "\"dataChange\":false}}\n", NULL));
    write_log_file(pool, dir, "_last_checkpoint",
                   "{\"version\":4,\"size\":3}");
    return dir;
}

static uc_delta_ratified_t ratified(apr_pool_t *pool, apr_int64_t v,
                                    const char *who)
{
    uc_delta_ratified_t r = { v, staged(pool, v, who), 100, 1, ICT(v) };

    return r;
}

/* The table at `dir` following a catalog whose latest version is `latest`
 * and whose commits not yet published are `n` of `commits`. */
static uc_delta_table_t *follows(apr_pool_t *pool, const char *dir,
                                 apr_int64_t latest,
                                 const uc_delta_ratified_t *commits, int n)
{
    uc_delta_table_t *table;
    uc_delta_catalog_t catalog = { latest, commits, n };

    assert_ok(uc_delta_table_open(pool, apr_pstrcat(pool, "file://", dir,
                                                    NULL), NULL, &table));
    assert_ok(uc_delta_catalog_follow(table, &catalog));
    return table;
}

static uc_delta_table_t *ratified_2_and_3(apr_pool_t *pool, const char *dir)
{
    uc_delta_ratified_t *commits = apr_palloc(pool, 2 * sizeof(*commits));

    commits[0] = ratified(pool, 2, "a");
    commits[1] = ratified(pool, 3, "a");
    return follows(pool, dir, 3, commits, 2);
}

/* The snapshot's files by path, in order of path. */
static const char *paths_of(apr_pool_t *pool, const uc_delta_snapshot_t *s)
{
    apr_array_header_t *paths = apr_array_make(pool, 8, sizeof(char *));
    apr_size_t i;
    int j, k;

    for (i = 0; i < s->num_files; i++) {
        const char *p = s->files[i].path;

        for (j = 0; j < paths->nelts
             && strcmp(APR_ARRAY_IDX(paths, j, const char *), p) < 0; j++)
            ;
        apr_array_push(paths);
        for (k = paths->nelts - 1; k > j; k--)
            APR_ARRAY_IDX(paths, k, const char *) =
                APR_ARRAY_IDX(paths, k - 1, const char *);
        APR_ARRAY_IDX(paths, j, const char *) = p;
    }
    return apr_array_pstrcat(pool, paths, ',');
}

static void test_reads_what_the_catalog_ratified(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_table_t *table = ratified_2_and_3(pool, catalog_table(pool));
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_snapshot(table, UC_DELTA_LATEST, &s));
    assert_int_equal(s->version, 3);
    assert_string_equal(paths_of(pool, s), "f0,f1,f2,f3");
    assert_int_equal(s->timestamp, ICT(3));
    /* _last_checkpoint names one above the catalog's latest version: the
     * newest at or below it is the one. */
    assert_int_equal(s->checkpoint_version, 1);
    uc_delta_snapshot_release(s);
    assert_ok(uc_delta_snapshot(table, 2, &s));
    assert_string_equal(paths_of(pool, s), "f0,f1,f2");
    assert_int_equal(s->timestamp, ICT(2));
    uc_delta_snapshot_release(s);
    assert_ok(uc_delta_snapshot(table, 0, &s));
    assert_string_equal(paths_of(pool, s), "f0");
    uc_delta_snapshot_release(s);
}

static void test_nothing_above_the_latest(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_table_t *table = ratified_2_and_3(pool, catalog_table(pool));
    uc_delta_snapshot_t *s = NULL;
    apr_int64_t v;
    uc_delta_changes_t *changes;
    int i;

    assert_err(uc_delta_snapshot(table, 4, &s), 400,
               "INVALID_PARAMETER_VALUE");
    assert_ok(uc_delta_version_at(table, NULL, ICT(4) + 5,
                                  UC_DELTA_AT_OR_BEFORE, &v));
    assert_int_equal(v, 3);
    assert_err(uc_delta_version_at(table, NULL, ICT(3) + 1,
                                   UC_DELTA_AT_OR_AFTER, &v), 400,
               "INVALID_PARAMETER_VALUE");
    assert_ok(uc_delta_version_at(table, NULL, ICT(2), UC_DELTA_AT_OR_AFTER,
                                  &v));
    assert_int_equal(v, 2);
    assert_ok(uc_delta_changes(table, pool, 0, UC_DELTA_LATEST, &changes));
    assert_int_equal(changes->end_version, 3);
    assert_int_equal(changes->changes->nelts, 4);
    for (i = 0; i < 4; i++) {
        const uc_delta_change_t *c = &APR_ARRAY_IDX(changes->changes, i,
                                                    uc_delta_change_t);

        assert_int_equal(c->version, i);
        assert_int_equal(c->timestamp, ICT(i));
        assert_string_equal(c->path, apr_psprintf(pool, "f%d", i));
    }
    assert_err(uc_delta_changes(table, pool, 0, 4, &changes), 400,
               "INVALID_PARAMETER_VALUE");
}

static void test_history_of_the_catalog(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_table_t *table = ratified_2_and_3(pool, catalog_table(pool));
    apr_array_header_t *commits;
    int more, i;

    assert_ok(uc_delta_commits_read(table, pool, UC_DELTA_LATEST, 10,
                                    &commits, &more));
    assert_int_equal(commits->nelts, 4);
    assert_false(more);
    for (i = 0; i < 4; i++) {
        const uc_delta_commit_t *c = &APR_ARRAY_IDX(commits, i,
                                                    uc_delta_commit_t);
        json_t *info = uc_json_own(pool, json_loads(c->commit_info, 0, NULL));

        assert_int_equal(c->version, 3 - i);
        assert_int_equal(c->timestamp, ICT(3 - i));
        assert_int_equal(c->added_bytes, 4 - i);
        assert_string_equal(json_string_value(json_object_get(info, "txnId")),
                            apr_psprintf(pool, "f%d", 3 - i));
    }
}

static void test_catalog_managed_needs_the_catalog(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s = NULL;
    uc_error_t *err;

    assert_ok(uc_delta_table_open(pool, apr_pstrcat(pool, "file://",
                                                    catalog_table(pool),
                                                    NULL), NULL, &table));
    err = uc_delta_snapshot(table, UC_DELTA_LATEST, &s);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_non_null(strstr(err->message, "catalog-managed"));
}

/* A catalog that ratified everything up to v1 and published it all:
 * whatever lies above is no version, published or not. */
static void test_all_published(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = catalog_table(pool);
    uc_delta_table_t *table = follows(pool, dir, 1, NULL, 0);
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_snapshot(table, UC_DELTA_LATEST, &s));
    assert_int_equal(s->version, 1);
    assert_string_equal(paths_of(pool, s), "f0,f1");
    uc_delta_snapshot_release(s);
}

/* A staged file gone once its commit is published: the published file
 * is its copy. Both gone: an error naming the ratified file. */
static void test_missing_files(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = catalog_table(pool);
    uc_delta_ratified_t gone[2];
    uc_delta_snapshot_t *s = NULL;
    uc_error_t *err;

    gone[0] = ratified(pool, 1, "janitor-took-it");
    assert_ok(uc_delta_snapshot(follows(pool, dir, 1, gone, 1),
                                UC_DELTA_LATEST, &s));
    assert_string_equal(paths_of(pool, s), "f0,f1");
    uc_delta_snapshot_release(s);

    gone[0] = ratified(pool, 2, "a");
    gone[1] = ratified(pool, 3, "never-written");
    s = NULL;
    err = uc_delta_snapshot(follows(pool, dir, 3, gone, 2), UC_DELTA_LATEST,
                            &s);
    assert_err(err, 400, "MALFORMED_DELTA_LOG");
    assert_non_null(strstr(err->cause, "commit 3, which its catalog ratified "
                           "as _delta_log/_staged_commits/"
                           "00000000000000000003.never-written.json, is "
                           "missing"));
    assert_null(strstr(err->message, dir));
}

/* The cache never serves another latest version than the catalog's: a
 * ratified commit advances the cached snapshot, and a version above the
 * catalog's is not served. */
static void test_cache_follows_the_catalog(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = catalog_table(pool);
    uc_delta_ratified_t commits[2];
    uc_delta_cache_t *cache;
    uc_delta_cache_stats_t st;
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_cache_create(pool, 64 << 20, &cache));
    commits[0] = ratified(pool, 2, "a");
    commits[1] = ratified(pool, 3, "a");
    assert_ok(uc_delta_cache_latest(cache, follows(pool, dir, 2, commits, 1),
                                    &s));
    assert_int_equal(s->version, 2);
    uc_delta_snapshot_release(s);
    assert_ok(uc_delta_cache_latest(cache, follows(pool, dir, 2, commits, 1),
                                    &s));
    assert_int_equal(s->version, 2);
    uc_delta_snapshot_release(s);
    assert_ok(uc_delta_cache_latest(cache, follows(pool, dir, 3, commits, 2),
                                    &s));
    assert_int_equal(s->version, 3);
    assert_string_equal(paths_of(pool, s), "f0,f1,f2,f3");
    assert_int_equal(s->timestamp, ICT(3));
    uc_delta_snapshot_release(s);
    uc_delta_cache_stats(cache, &st);
    assert_int_equal(st.builds, 1);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.advances, 1);
    assert_ok(uc_delta_cache_latest(cache, follows(pool, dir, 1, NULL, 0),
                                    &s));
    assert_int_equal(s->version, 1);
    uc_delta_snapshot_release(s);
}

static void check_refused(apr_pool_t *pool, apr_int64_t latest,
                          const uc_delta_ratified_t *commits, int n)
{
    uc_delta_table_t *table;
    uc_delta_catalog_t catalog = { latest, commits, n };

    assert_ok(uc_delta_table_open(pool, "file:///nowhere", NULL, &table));
    assert_err(uc_delta_catalog_follow(table, &catalog), 400,
               "INVALID_PARAMETER_VALUE");
}

static void test_catalog_is_checked(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_ratified_t c[2];

    c[0] = ratified(pool, 2, "a");
    c[1] = ratified(pool, 4, "a");
    check_refused(pool, 4, c, 2);
    check_refused(pool, 5, c + 1, 1);
    check_refused(pool, UC_DELTA_LATEST, c, 1);
    c[0].file_name = "../00000000000000000002.json";
    check_refused(pool, 2, c, 1);
    c[0].file_name = "";
    check_refused(pool, 2, c, 1);
}

static void test_parse_the_catalogs_answer(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *answer = "{\"commits\":["
        "{\"version\":3,\"timestamp\":30,\"file_name\":\"3.a.json\","
        "\"file_size\":300,\"file_modification_timestamp\":31},"
        "{\"version\":2,\"timestamp\":20,\"file_name\":\"2.a.json\","
        "\"file_size\":200,\"file_modification_timestamp\":21}],"
        "\"latest_table_version\":3}";
    uc_delta_catalog_t *c;

    assert_ok(uc_delta_catalog_parse(pool, answer, strlen(answer), &c));
    assert_int_equal(c->latest, 3);
    assert_int_equal(c->num_commits, 2);
    assert_int_equal(c->commits[0].version, 2);
    assert_string_equal(c->commits[0].file_name, "2.a.json");
    assert_int_equal(c->commits[0].size, 200);
    assert_int_equal(c->commits[0].mtime, 21);
    assert_int_equal(c->commits[0].timestamp, 20);
    assert_int_equal(c->commits[1].version, 3);
    answer = "{\"commits\":[],\"latest_table_version\":5}";
    assert_ok(uc_delta_catalog_parse(pool, answer, strlen(answer), &c));
    assert_int_equal(c->latest, 5);
    assert_int_equal(c->num_commits, 0);
    answer = "{\"commits\":[],\"latest_table_version\":0}";
    assert_ok(uc_delta_catalog_parse(pool, answer, strlen(answer), &c));
    assert_int_equal(c->latest, UC_DELTA_LATEST);
    answer = "{\"commits\":[{\"version\":2}],\"latest_table_version\":2}";
    assert_err(uc_delta_catalog_parse(pool, answer, strlen(answer), &c), 400,
               "INVALID_PARAMETER_VALUE");
    assert_err(uc_delta_catalog_parse(pool, "[]", 2, &c), 400,
               "INVALID_PARAMETER_VALUE");
}

static const struct CMUnitTest tests[] = {
    UC_POOL_TEST(test_reads_what_the_catalog_ratified),
    UC_POOL_TEST(test_nothing_above_the_latest),
    UC_POOL_TEST(test_history_of_the_catalog),
    UC_POOL_TEST(test_catalog_managed_needs_the_catalog),
    UC_POOL_TEST(test_all_published),
    UC_POOL_TEST(test_missing_files),
    UC_POOL_TEST(test_cache_follows_the_catalog),
    UC_POOL_TEST(test_catalog_is_checked),
    UC_POOL_TEST(test_parse_the_catalogs_answer),
};

int main(void)
{
    int rc;

    uc_test_init();
    uc_test_init_reader();
    rc = cmocka_run_group_tests_name("delta_catalog", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
