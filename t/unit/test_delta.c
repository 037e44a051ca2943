/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta log reader against the vendored fixture tables and tables the
 * tests write themselves. Expected states are computed here independently
 * of the reader: a forward replay of the JSON commits (oldest first, a
 * hash map of live files), the _last_checkpoint counts, and the commit
 * files' own fields. */
#include "uc_test_reader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <utime.h>
#include <apr_atomic.h>
#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_thread_proc.h>
#include <openssl/evp.h>

#include "../../src/core/uc_digest.h"
#include "../../src/core/uc_json.h"
#include "../../src/delta/uc_delta.h"
#include "../../src/delta/uc_delta_json.h"

static const char *fixtures_root(void)
{
    const char *env = getenv("UNICAT_DELTA_FIXTURES");

    return env ? env : "t/delta/fixtures";
}

static const char *fixtures_root_abs(apr_pool_t *pool)
{
    char *abs;

    assert_int_equal(apr_filepath_merge(&abs, NULL, fixtures_root(),
                                        APR_FILEPATH_TRUENAME, pool),
                     APR_SUCCESS);
    return abs;
}

static const char *fixture_dir(apr_pool_t *pool, const char *name)
{
    return apr_pstrcat(pool, fixtures_root_abs(pool), "/", name, NULL);
}

static const char *file_url(apr_pool_t *pool, const char *dir)
{
    return apr_pstrcat(pool, "file://", dir, NULL);
}

static apr_pool_t *test_pool(void **state)
{
    return *state;
}

/* --- files the tests write ----------------------------------------------- */

static char *read_text(apr_pool_t *pool, const char *path, apr_size_t *len)
{
    apr_file_t *f;
    apr_finfo_t info;
    char *buf;
    apr_size_t got = 0;

    if (apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY, 0, pool)
        != APR_SUCCESS)
        return NULL;
    apr_file_info_get(&info, APR_FINFO_SIZE, f);
    buf = apr_palloc(pool, (apr_size_t)info.size + 1);
    if (info.size > 0)
        apr_file_read_full(f, buf, (apr_size_t)info.size, &got);
    apr_file_close(f);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

static void copy_tree(apr_pool_t *pool, const char *from, const char *to)
{
    apr_dir_t *dir;
    apr_finfo_t info;

    assert_int_equal(apr_dir_make_recursive(to, APR_OS_DEFAULT, pool),
                     APR_SUCCESS);
    assert_int_equal(apr_dir_open(&dir, from, pool), APR_SUCCESS);
    while (apr_dir_read(&info, APR_FINFO_TYPE | APR_FINFO_NAME, dir)
           == APR_SUCCESS) {
        const char *src, *dst;

        if (strcmp(info.name, ".") == 0 || strcmp(info.name, "..") == 0)
            continue;
        src = apr_pstrcat(pool, from, "/", info.name, NULL);
        dst = apr_pstrcat(pool, to, "/", info.name, NULL);
        if (info.filetype == APR_DIR)
            copy_tree(pool, src, dst);
        else
            assert_int_equal(apr_file_copy(src, dst, APR_FPROT_FILE_SOURCE_PERMS,
                                           pool), APR_SUCCESS);
    }
    apr_dir_close(dir);
}

static const char *copy_fixture(apr_pool_t *pool, const char *name)
{
    const char *dir = uc_test_temp_table(pool);

    copy_tree(pool, fixture_dir(pool, name), dir);
    return dir;
}

static const char *commit_path(apr_pool_t *pool, const char *dir,
                               apr_int64_t v)
{
    return apr_psprintf(pool, "%s/_delta_log/%020" APR_INT64_T_FMT ".json",
                        dir, v);
}

static void set_mtime(const char *path, apr_int64_t ms)
{
    struct timeval tv[2];

    tv[0].tv_sec = tv[1].tv_sec = (time_t)(ms / 1000);
    tv[0].tv_usec = tv[1].tv_usec = (suseconds_t)(ms % 1000) * 1000;
    assert_int_equal(utimes(path, tv), 0);
}

/* --- the independent expectation: forward JSON replay -------------------- */

typedef struct expected {
    apr_hash_t *files;       /* path [+ "#" dv id] -> add json */
    json_t *protocol;
    json_t *metadata;
    apr_hash_t *apps;        /* appId -> version json */
    int commits;
} expected_t;

static apr_array_header_t *commit_lines(apr_pool_t *pool, const char *dir,
                                        apr_int64_t v)
{
    apr_size_t len;
    char *text = read_text(pool, commit_path(pool, dir, v), &len);
    apr_array_header_t *lines = apr_array_make(pool, 8, sizeof(json_t *));
    char *line, *last;

    if (!text)
        return NULL;
    for (line = apr_strtok(text, "\n", &last); line;
         line = apr_strtok(NULL, "\n", &last)) {
        json_t *action = json_loads(line, 0, NULL);

        if (action)
            APR_ARRAY_PUSH(lines, json_t *) = uc_json_own(pool, action);
    }
    return lines;
}

static const char *file_key(apr_pool_t *pool, json_t *action)
{
    json_t *dv = json_object_get(action, "deletionVector");
    const char *path = json_string_value(json_object_get(action, "path"));

    if (!json_is_object(dv))
        return path;
    return apr_psprintf(pool, "%s#%s%s@%" JSON_INTEGER_FORMAT, path,
                        json_string_value(json_object_get(dv, "storageType")),
                        json_string_value(json_object_get(dv,
                                                          "pathOrInlineDv")),
                        json_integer_value(json_object_get(dv, "offset")));
}

static expected_t *json_replay(apr_pool_t *pool, const char *dir,
                               apr_int64_t version)
{
    expected_t *e = apr_pcalloc(pool, sizeof(*e));
    apr_int64_t v;
    int i;

    e->files = apr_hash_make(pool);
    e->apps = apr_hash_make(pool);
    for (v = 0; v <= version; v++) {
        apr_array_header_t *lines = commit_lines(pool, dir, v);

        assert_non_null(lines);
        e->commits++;
        for (i = 0; i < lines->nelts; i++) {
            json_t *a = APR_ARRAY_IDX(lines, i, json_t *), *body;

            if ((body = json_object_get(a, "add")))
                apr_hash_set(e->files, file_key(pool, body),
                             APR_HASH_KEY_STRING, body);
            else if ((body = json_object_get(a, "remove")))
                apr_hash_set(e->files, file_key(pool, body),
                             APR_HASH_KEY_STRING, NULL);
            else if ((body = json_object_get(a, "protocol")))
                e->protocol = body;
            else if ((body = json_object_get(a, "metaData")))
                e->metadata = body;
            else if ((body = json_object_get(a, "txn")))
                apr_hash_set(e->apps, json_string_value(json_object_get(
                                 body, "appId")), APR_HASH_KEY_STRING,
                             json_object_get(body, "version"));
        }
    }
    return e;
}

static json_t *parsed(apr_pool_t *pool, const char *text)
{
    return text ? uc_json_own(pool, json_loads(text, 0, NULL)) : NULL;
}

static const char *snapshot_key(apr_pool_t *pool, const uc_delta_file_t *f)
{
    json_t *dv = parsed(pool, f->extras ? f->extras->deletion_vector : NULL);

    if (!dv)
        return f->path;
    return apr_psprintf(pool, "%s#%s%s@%" JSON_INTEGER_FORMAT, f->path,
                        json_string_value(json_object_get(dv, "storageType")),
                        json_string_value(json_object_get(dv,
                                                          "pathOrInlineDv")),
                        json_integer_value(json_object_get(dv, "offset")));
}

/* A checkpoint leaves out the members a commit spells as null. */
static json_t *without_nulls(apr_pool_t *pool, json_t *action)
{
    json_t *copy = uc_json_own(pool, json_deep_copy(action));
    const char *key;
    json_t *value;
    void *tmp;

    json_object_foreach_safe(copy, tmp, key, value)
        if (json_is_null(value))
            json_object_del(copy, key);
    return copy;
}

static int same_json(json_t *a, json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

/* The stats as answers take them: the stats text itself, or what the
 * JSON writer makes of it (a checkpoint's, escaped as their page is
 * decoded), without the quotes. */
static void check_stats_text(apr_pool_t *pool, const char *label,
                             uc_delta_stats_reader_t *reader,
                             const uc_delta_file_t *f, const char *text)
{
    const char *raw = text ? apr_pstrdup(pool, text) : NULL;
    uc_delta_stats_text_t got;
    uc_jw_t *want = uc_jw_make(pool, 64);

    assert_ok(uc_delta_file_stats_text(reader, f, &got));
    if (!got.text != !raw)
        fail_msg("%s: stats of %s present in one form only", label, f->path);
    if (!raw)
        return;
    if (got.escaped != (f->stats_source != NULL))
        fail_msg("%s: stats of %s: escaped %d", label, f->path, got.escaped);
    if (!got.escaped) {
        if (got.len != strlen(raw) || strcmp(got.text, raw) != 0)
            fail_msg("%s: stats of %s: %s", label, f->path, got.text);
        return;
    }
    uc_jw_escaped_n(want, raw, strlen(raw));
    if (got.len + 2 != want->len
        || memcmp(got.text, want->buf + 1, got.len) != 0)
        fail_msg("%s: escaped stats of %s: %.*s", label, f->path,
                 (int)got.len, got.text);
}

/* Every field of every live file, the protocol and the metadata. */
static void assert_matches(apr_pool_t *pool, const uc_delta_snapshot_t *s,
                           const expected_t *e, const char *label)
{
    apr_size_t i;
    json_t *pv, *want_pv;
    uc_delta_stats_reader_t *reader = uc_delta_stats_reader_make(pool, NULL);

    if (apr_hash_count(e->files) != s->num_files)
        fail_msg("%s v%" APR_INT64_T_FMT ": %zu files, expected %u", label,
                 s->version, s->num_files, apr_hash_count(e->files));
    for (i = 0; i < s->num_files; i++) {
        const uc_delta_file_t *f = &s->files[i];
        json_t *want = apr_hash_get(e->files, snapshot_key(pool, f),
                                    APR_HASH_KEY_STRING);
        json_t *stats;
        const char *text;

        if (!want)
            fail_msg("%s v%" APR_INT64_T_FMT ": unexpected file %s", label,
                     s->version, f->path);
        assert_int_equal(f->size, json_integer_value(json_object_get(want,
                                                                     "size")));
        assert_int_equal(f->modification_time, json_integer_value(
            json_object_get(want, "modificationTime")));
        pv = parsed(pool, f->partition_values);
        want_pv = json_object_get(want, "partitionValues");
        if (!json_is_object(want_pv) || json_object_size(want_pv) == 0)
            assert_int_equal(json_object_size(pv), 0);
        else if (!json_equal(pv, want_pv))
            fail_msg("%s: partition values of %s: %s", label, f->path,
                     f->partition_values);
        stats = json_object_get(want, "stats");
        assert_ok(uc_delta_file_stats(reader, f, &text));
        check_stats_text(pool, label, reader, f, text);
        if (json_is_string(stats) && text
            && !json_equal(parsed(pool, text),
                           parsed(pool, json_string_value(stats))))
            fail_msg("%s: stats of %s: %s", label, f->path, text);
        else if (json_is_string(stats) && !text)
            fail_msg("%s: %s lost its stats", label, f->path);
        else if (!json_is_string(stats) && text)
            fail_msg("%s: %s has stats it was not given", label, f->path);
        if (!same_json(parsed(pool, f->extras ? f->extras->deletion_vector
                                              : NULL),
                       json_is_object(json_object_get(want, "deletionVector"))
                       ? json_object_get(want, "deletionVector") : NULL))
            fail_msg("%s: deletion vector of %s", label, f->path);
        if (json_is_object(json_object_get(want, "tags"))
            && !same_json(parsed(pool, f->extras ? f->extras->tags : NULL),
                          json_object_get(want, "tags")))
            fail_msg("%s: tags of %s", label, f->path);
    }
    if (!json_equal(without_nulls(pool, parsed(pool, s->protocol)),
                    without_nulls(pool, e->protocol)))
        fail_msg("%s v%" APR_INT64_T_FMT ": protocol %s", label, s->version,
                 s->protocol);
    if (!json_equal(without_nulls(pool, parsed(pool, s->metadata)),
                    without_nulls(pool, e->metadata)))
        fail_msg("%s v%" APR_INT64_T_FMT ": metadata differs", label,
                 s->version);
    assert_int_equal(apr_hash_count(s->app_versions),
                     apr_hash_count(e->apps));
}

static uc_delta_snapshot_t *snapshot_of(apr_pool_t *pool, const char *dir,
                                        apr_int64_t version)
{
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL,
                                     &table));
    assert_ok(uc_delta_snapshot(table, version, &s));
    return s;
}

static uc_error_t *snapshot_error(apr_pool_t *pool, const char *dir,
                                  apr_int64_t version)
{
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s = NULL;
    uc_error_t *err;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL,
                                     &table));
    err = uc_delta_snapshot(table, version, &s);
    if (!err) {
        uc_delta_snapshot_release(s);
        fail_msg("version %" APR_INT64_T_FMT " of %s was readable", version,
                 dir);
    }
    return err;
}

/* Fixtures whose JSON commits go back to version 0. */
static const char *const complete_logs[] = {
    "simple_table", "simple_table_with_checkpoint", "python-0.25.5-checkpoint",
    "delta-0.8.0-partitioned", "delta-0.8.0-null-partition",
    "delta-0.8.0-special-partition", "cdf-table", "cdc_ict_table",
    "table-with-dv-small", "dv-partitioned-with-checkpoint",
    "table_with_column_mapping", "data-reader-timestamp_ntz",
    "v2-checkpoint-parquet", "v2-checkpoint-json", "checkpoint-v2-table",
    "multi-part-checkpoint", "delta-1.2.1-only-struct-stats",
    "with_checkpoint_no_last_checkpoint",
    "table_failed_last_checkpoint_update", NULL
};

static apr_int64_t newest_commit(apr_pool_t *pool, const char *dir)
{
    apr_int64_t v = 0;
    apr_finfo_t info;

    while (apr_stat(&info, commit_path(pool, dir, v + 1), APR_FINFO_TYPE,
                    pool) == APR_SUCCESS)
        v++;
    return v;
}

/* Every version of every complete fixture, checkpoints included, against
 * the JSON replay of the same version. */
static void test_every_fixture_version(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *const *name;
    int checked = 0, from_checkpoint = 0;

    for (name = complete_logs; *name; name++) {
        const char *dir = fixture_dir(pool, *name);
        apr_int64_t latest = newest_commit(pool, dir), v;

        for (v = 0; v <= latest; v++) {
            apr_pool_t *sub;
            uc_delta_snapshot_t *s;

            apr_pool_create(&sub, pool);
            s = snapshot_of(sub, dir, v);
            assert_int_equal(s->version, v);
            assert_matches(sub, s, json_replay(sub, dir, v), *name);
            from_checkpoint += s->checkpoint_version >= 0;
            uc_delta_snapshot_release(s);
            apr_pool_destroy(sub);
            checked++;
        }
    }
    assert_int_equal(checked, 89);
    assert_true(from_checkpoint >= 15);
}

static void test_latest_uses_newest_checkpoint(void **state)
{
    static const struct {
        const char *name;
        apr_int64_t version, checkpoint;
        apr_size_t files;
    } cases[] = {
        { "simple_table", 4, -1, 5 },
        { "simple_table_with_checkpoint", 10, 10, 0 },
        { "multi-part-checkpoint", 1, 1, 10 },
        { "v2-checkpoint-parquet", 2, 2, 4 },
        { "v2-checkpoint-json", 2, 2, 4 },
        { "checkpoint-v2-table", 9, 8, 0 },
        { "table_failed_last_checkpoint_update", 3, 3, 0 },
        { "with_checkpoint_no_last_checkpoint", 3, 2, 0 },
        { "dv-partitioned-with-checkpoint", 15, 10, 0 },
        { "checkpoint-cdf-table", 5, 3, 0 },
        { "table-with-domain-metadata", 108, 108, 0 },
    };
    apr_pool_t *pool = test_pool(state);
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uc_delta_snapshot_t *s = snapshot_of(pool, fixture_dir(pool,
                                             cases[i].name), UC_DELTA_LATEST);

        if (s->version != cases[i].version
            || s->checkpoint_version != cases[i].checkpoint)
            fail_msg("%s: version %" APR_INT64_T_FMT " from checkpoint %"
                     APR_INT64_T_FMT, cases[i].name, s->version,
                     s->checkpoint_version);
        if (cases[i].files)
            assert_int_equal(s->num_files, cases[i].files);
        uc_delta_snapshot_release(s);
    }
}

/* _last_checkpoint's numOfAddFiles is written by the table's writer: the
 * live files at the checkpoint version. */
static void test_checkpoint_counts_match_last_checkpoint(void **state)
{
    static const char *const names[] = {
        "checkpoint-cdf-table", "checkpoint-v2-table", "multi-part-checkpoint",
        "dv-partitioned-with-checkpoint", "v2-checkpoint-json",
        "v2-checkpoint-parquet", NULL
    };
    apr_pool_t *pool = test_pool(state);
    const char *const *name;

    for (name = names; *name; name++) {
        const char *dir = fixture_dir(pool, *name);
        json_t *hint = parsed(pool, read_text(pool, apr_pstrcat(pool, dir,
                              "/_delta_log/_last_checkpoint", NULL), NULL));
        uc_delta_snapshot_t *s = snapshot_of(pool, dir, json_integer_value(
                                             json_object_get(hint, "version")));

        assert_int_equal(s->checkpoint_version, s->version);
        assert_int_equal(s->num_files, json_integer_value(json_object_get(
                                           hint, "numOfAddFiles")));
        uc_delta_snapshot_release(s);
    }
}

/* A log of a checkpoint alone: state from its Parquet rows. */
static void test_checkpoint_only_log(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_snapshot_t *s = snapshot_of(pool, fixture_dir(pool,
                                         "table-with-domain-metadata"),
                                         UC_DELTA_LATEST);
    const char *clustering = apr_hash_get(s->domains, "delta.clustering",
                                          APR_HASH_KEY_STRING);
    apr_size_t i, with_row_ids = 0;

    assert_non_null(clustering);
    assert_non_null(strstr(clustering, "department"));
    assert_non_null(apr_hash_get(s->domains, "com.databricks.liquid",
                                 APR_HASH_KEY_STRING));
    assert_true(s->num_files > 0);
    for (i = 0; i < s->num_files; i++)
        with_row_ids += s->files[i].extras
                        && s->files[i].extras->base_row_id != UC_DELTA_NONE;
    assert_int_equal(with_row_ids, s->num_files);
    assert_string_equal(APR_ARRAY_IDX(s->features.reader_features, 0,
                                      const char *), "deletionVectors");
    uc_delta_snapshot_release(s);
}

/* An error about a table says "the table": where it lies goes to the
 * cause (a Delta Sharing recipient reads the message). */
static void assert_location_in_cause(const uc_error_t *err, const char *dir)
{
    assert_null(strstr(err->message, dir));
    assert_null(strstr(err->message, "file:"));
    assert_non_null(err->cause);
    assert_non_null(strstr(err->cause, dir));
    assert_non_null(strstr(err->cause, err->message));
}

static void test_versions_outside_the_log(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *truncated = fixture_dir(pool, "checkpoint-cdf-table");
    const char *simple = fixture_dir(pool, "simple_table");
    uc_error_t *err;

    err = snapshot_error(pool, truncated, 2);
    assert_int_equal(err->status, 400);
    assert_non_null(strstr(err->message, "cannot be reconstructed"));
    assert_location_in_cause(err, truncated);
    err = snapshot_error(pool, simple, 5);
    assert_int_equal(err->status, 400);
    assert_non_null(strstr(err->message, "latest version is 4"));
    assert_location_in_cause(err, simple);
    err = snapshot_error(pool, simple, -7);
    assert_int_equal(err->status, 400);
    err = snapshot_error(pool, "/nonexistent/table", UC_DELTA_LATEST);
    assert_int_equal(err->status, 404);
    assert_string_equal(err->code, "RESOURCE_DOES_NOT_EXIST");
    assert_location_in_cause(err, "/nonexistent/table");
}

static void write_commit(apr_pool_t *pool, const char *dir, apr_int64_t v,
                         const char *text)
{
    uc_test_write_file(pool, commit_path(pool, dir, v), text, strlen(text));
}

#define PROTOCOL_1_2 "{\"protocol\":{\"minReaderVersion\":1," \
                     "\"minWriterVersion\":2}}\n"
#define METADATA "{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":" \
    "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":" \
    "\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[]," \
    "\"configuration\":{%s},\"createdTime\":1}}\n"
#define ADD "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%d," \
            "\"modificationTime\":1,\"dataChange\":true}}\n"

static void test_reader_features_are_checked(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = uc_test_temp_table(pool);
    uc_error_t *err;
    uc_delta_snapshot_t *s;

    write_commit(pool, dir, 0, apr_psprintf(pool, "{\"protocol\":{"
        "\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
        "[\"deletionVectors\",\"blahabl\"],\"writerFeatures\":[]}}\n"
        METADATA, ""));
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(err->status, 400);
    assert_string_equal(err->code, "UNSUPPORTED_OPERATION");
    assert_non_null(strstr(err->message, "blahabl"));
    assert_location_in_cause(err, dir);

    write_commit(pool, dir, 0, apr_psprintf(pool, "{\"protocol\":{"
        "\"minReaderVersion\":4,\"minWriterVersion\":7}}\n" METADATA, ""));
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_string_equal(err->code, "UNSUPPORTED_OPERATION");

    write_commit(pool, dir, 0, apr_psprintf(pool, "{\"protocol\":{"
        "\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
        "[\"catalogManaged\"]}}\n" METADATA, ""));
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_non_null(strstr(err->message, "catalogManaged"));

    /* Unknown actions and fields are part of protocol evolution. */
    write_commit(pool, dir, 0, apr_psprintf(pool, PROTOCOL_1_2 METADATA
        "{\"someNewAction\":{\"x\":1}}\n"
        "{\"add\":{\"path\":\"a\",\"partitionValues\":{},\"size\":1,"
        "\"modificationTime\":1,\"dataChange\":true,\"newField\":[1]}}\n",
        "\"delta.columnMapping.mode\":\"name\""));
    s = snapshot_of(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(s->num_files, 1);
    assert_string_equal(s->features.column_mapping, "name");
    uc_delta_snapshot_release(s);

    write_commit(pool, dir, 0, PROTOCOL_1_2);
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_string_equal(err->code, "MALFORMED_DELTA_LOG");
    assert_non_null(strstr(err->message, "metaData"));

    write_commit(pool, dir, 0, "{\"protocol\":\n");
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_string_equal(err->code, "MALFORMED_DELTA_LOG");
    assert_non_null(strstr(err->message, "line 1"));
}

/* A damaged newest checkpoint gives way to an older one or to the JSON
 * commits; with nothing else to fall back on it is an error. */
static void test_unreadable_checkpoint_falls_back(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "table_failed_last_checkpoint_update");
    const char *cp = apr_pstrcat(pool, dir, "/_delta_log/"
                                 "00000000000000000003.checkpoint.parquet",
                                 NULL);
    apr_size_t len;
    char *bytes = read_text(pool, cp, &len);
    uc_delta_snapshot_t *s;
    uc_error_t *err;

    uc_test_write_file(pool, cp, bytes, len / 2);
    s = snapshot_of(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(s->checkpoint_version, 1);
    assert_matches(pool, s, json_replay(pool, dir, 3), "fallback");
    uc_delta_snapshot_release(s);

    dir = copy_fixture(pool, "checkpoint-cdf-table");
    cp = apr_pstrcat(pool, dir, "/_delta_log/"
                     "00000000000000000003.checkpoint.parquet", NULL);
    bytes = read_text(pool, cp, &len);
    uc_test_write_file(pool, cp, bytes, len - 9);
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(err->status, 400);
    assert_string_equal(err->code, "MALFORMED_DELTA_LOG");

    /* A multi-part checkpoint missing a part is not a checkpoint. */
    dir = copy_fixture(pool, "multi-part-checkpoint");
    assert_int_equal(apr_file_remove(apr_pstrcat(pool, dir, "/_delta_log/"
        "00000000000000000001.checkpoint.0000000002.0000000002.parquet",
        NULL), pool), APR_SUCCESS);
    s = snapshot_of(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(s->checkpoint_version, -1);
    assert_matches(pool, s, json_replay(pool, dir, 1), "parts");
    uc_delta_snapshot_release(s);

    /* An empty or garbled _last_checkpoint is only a hint. */
    dir = copy_fixture(pool, "simple_table_with_checkpoint");
    uc_test_write_file(pool, apr_pstrcat(pool, dir, "/_delta_log/_last_checkpoint",
                                 NULL), "", 0);
    s = snapshot_of(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(s->checkpoint_version, 10);
    uc_delta_snapshot_release(s);
    uc_test_write_file(pool, apr_pstrcat(pool, dir, "/_delta_log/_last_checkpoint",
                                 NULL), "{\"version\":99}", 14);
    s = snapshot_of(pool, dir, UC_DELTA_LATEST);
    assert_int_equal(s->version, 10);
    uc_delta_snapshot_release(s);
}

/* File paths keep the log's URI spelling; partition values are decoded. */
static void test_special_partition_paths(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_snapshot_t *s = snapshot_of(pool, fixture_dir(pool,
                                         "delta-0.8.0-special-partition"), 0);
    apr_size_t i;
    int slash = 0, space = 0;

    for (i = 0; i < s->num_files; i++) {
        if (strncmp(s->files[i].path, "x=A%252FA/", 10) == 0) {
            assert_string_equal(s->files[i].partition_values,
                                "{\"x\":\"A/A\"}");
            slash = 1;
        }
        if (strncmp(s->files[i].path, "x=B%2520B/", 10) == 0)
            space = 1;
    }
    assert_true(slash && space);
    uc_delta_snapshot_release(s);
    s = snapshot_of(pool, fixture_dir(pool, "delta-0.8.0-null-partition"), 0);
    for (i = 0, slash = 0; i < s->num_files; i++)
        slash += strcmp(s->files[i].partition_values, "{\"k\":null}") == 0;
    assert_int_equal(slash, 1);
    uc_delta_snapshot_release(s);

    /* A location is a URI: its escapes are decoded once. */
    s = snapshot_of(pool, apr_pstrcat(pool, fixtures_root_abs(pool),
                                      "/simple%5Ftable", NULL), 4);
    assert_int_equal(s->num_files, 5);
    assert_non_null(strstr(s->location, "/simple_table"));
    uc_delta_snapshot_release(s);
}

/* --- time ---------------------------------------------------------------- */

/* Commit times are file times: stamp each commit with its commitInfo. */
static apr_int64_t *stamp_commits(apr_pool_t *pool, const char *dir,
                                  apr_int64_t latest)
{
    apr_int64_t *ts = apr_pcalloc(pool, sizeof(*ts) * (apr_size_t)(latest + 1));
    apr_int64_t v;
    int i;

    for (v = 0; v <= latest; v++) {
        apr_array_header_t *lines = commit_lines(pool, dir, v);

        for (i = 0; i < lines->nelts; i++) {
            json_t *info = json_object_get(APR_ARRAY_IDX(lines, i, json_t *),
                                           "commitInfo");
            if (info)
                ts[v] = json_integer_value(json_object_get(info,
                                                           "timestamp"));
        }
        assert_true(ts[v] > 0);
        set_mtime(commit_path(pool, dir, v), ts[v]);
    }
    return ts;
}

static apr_int64_t version_at(apr_pool_t *pool, const char *dir,
                              apr_int64_t ts, uc_delta_time_match_t match,
                              uc_error_t **err)
{
    uc_delta_table_t *table;
    apr_int64_t version = -1;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL,
                                     &table));
    *err = uc_delta_version_at(table, NULL, ts, match, &version);
    return version;
}

static void test_timestamps_from_file_times(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "simple_table");
    apr_int64_t *ts = stamp_commits(pool, dir, 4), v;
    uc_error_t *err;

    for (v = 0; v <= 4; v++) {
        uc_delta_snapshot_t *s = snapshot_of(pool, dir, v);

        assert_int_equal(s->timestamp, ts[v]);
        uc_delta_snapshot_release(s);
        assert_int_equal(version_at(pool, dir, ts[v], UC_DELTA_AT_OR_BEFORE,
                                    &err), v);
        assert_null(err);
        assert_int_equal(version_at(pool, dir, ts[v], UC_DELTA_AT_OR_AFTER,
                                    &err), v);
        assert_int_equal(version_at(pool, dir, ts[v] + 1,
                                    UC_DELTA_AT_OR_BEFORE, &err), v);
        if (v < 4)
            assert_int_equal(version_at(pool, dir, ts[v] + 1,
                                        UC_DELTA_AT_OR_AFTER, &err), v + 1);
    }
    version_at(pool, dir, ts[0] - 1, UC_DELTA_AT_OR_BEFORE, &err);
    assert_non_null(err);
    assert_int_equal(err->status, 400);
    assert_non_null(strstr(err->message, "before the earliest"));
    assert_int_equal(version_at(pool, dir, ts[0] - 100000,
                                UC_DELTA_AT_OR_AFTER, &err), 0);
    version_at(pool, dir, ts[4] + 1, UC_DELTA_AT_OR_AFTER, &err);
    assert_non_null(err);
    assert_non_null(strstr(err->message, "after the latest"));

    /* Equal or backward file times are made to increase by 1 ms. */
    for (v = 0; v <= 4; v++)
        set_mtime(commit_path(pool, dir, v), 1700000000000 - v * 1000);
    for (v = 0; v <= 4; v++) {
        uc_delta_snapshot_t *s = snapshot_of(pool, dir, v);

        assert_int_equal(s->timestamp, 1700000000000 + v);
        uc_delta_snapshot_release(s);
    }
    assert_int_equal(version_at(pool, dir, 1700000000002,
                                UC_DELTA_AT_OR_BEFORE, &err), 2);
}

static apr_int64_t commit_ict(apr_pool_t *pool, const char *dir,
                              apr_int64_t v)
{
    apr_array_header_t *lines = commit_lines(pool, dir, v);
    json_t *info = json_object_get(APR_ARRAY_IDX(lines, 0, json_t *),
                                   "commitInfo");

    return json_integer_value(json_object_get(info, "inCommitTimestamp"));
}

static void test_in_commit_timestamps(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "cdc_ict_table");
    apr_int64_t v;
    uc_error_t *err;

    /* File times must not matter. */
    for (v = 0; v <= 3; v++)
        set_mtime(commit_path(pool, dir, v), 1000 + v);
    for (v = 0; v <= 3; v++) {
        uc_delta_snapshot_t *s = snapshot_of(pool, dir, v);

        assert_true(s->features.in_commit_timestamps);
        assert_int_equal(s->timestamp, commit_ict(pool, dir, v));
        uc_delta_snapshot_release(s);
    }
    assert_int_equal(version_at(pool, dir, commit_ict(pool, dir, 3),
                                UC_DELTA_AT_OR_BEFORE, &err), 3);
    assert_null(err);
    assert_int_equal(version_at(pool, dir, commit_ict(pool, dir, 3),
                                UC_DELTA_AT_OR_AFTER, &err), 3);
}

/* --- history --------------------------------------------------------------- */

static apr_array_header_t *commits_of(apr_pool_t *pool, const char *dir,
                                      apr_int64_t below, int limit,
                                      int *more)
{
    uc_delta_table_t *table;
    apr_array_header_t *commits;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL, &table));
    assert_ok(uc_delta_commits_read(table, pool, below, limit, &commits,
                                    more));
    return commits;
}

static const uc_delta_commit_t *commit_at(const apr_array_header_t *commits,
                                          int i)
{
    return &APR_ARRAY_IDX(commits, i, uc_delta_commit_t);
}

/* The versions of a page, newest first, as "4,3,2". */
static const char *versions_of(apr_pool_t *pool,
                               const apr_array_header_t *commits)
{
    const char *text = "";
    int i;

    for (i = 0; i < commits->nelts; i++)
        text = apr_psprintf(pool, "%s%s%" APR_INT64_T_FMT, text,
                            i ? "," : "", commit_at(commits, i)->version);
    return text;
}

/* A commit against its file's actions, counted here. */
static void assert_commit(apr_pool_t *pool, const char *dir,
                          const uc_delta_commit_t *c)
{
    apr_array_header_t *lines = commit_lines(pool, dir, c->version);
    apr_int64_t adds = 0, removes = 0, added = 0, removed = 0;
    json_t *info = NULL, *body;
    int i;

    assert_non_null(lines);
    for (i = 0; i < lines->nelts; i++) {
        json_t *a = APR_ARRAY_IDX(lines, i, json_t *);

        if ((body = json_object_get(a, "add"))) {
            adds++;
            added += json_integer_value(json_object_get(body, "size"));
        }
        else if ((body = json_object_get(a, "remove"))) {
            removes++;
            removed += json_integer_value(json_object_get(body, "size"));
        }
        else if (!info)
            info = json_object_get(a, "commitInfo");
    }
    assert_int_equal(c->num_added_files, adds);
    assert_int_equal(c->num_removed_files, removes);
    assert_int_equal(c->added_bytes, added);
    assert_int_equal(c->removed_bytes, removed);
    if (!same_json(parsed(pool, c->commit_info), info))
        fail_msg("%s v%" APR_INT64_T_FMT ": commitInfo %s", dir, c->version,
                 c->commit_info ? c->commit_info : "(none)");
}

static void test_history_newest_first(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "simple_table");
    apr_int64_t *ts = stamp_commits(pool, dir, 4);
    apr_array_header_t *commits;
    int i, more;

    commits = commits_of(pool, dir, UC_DELTA_LATEST, 100, &more);
    assert_string_equal(versions_of(pool, commits), "4,3,2,1,0");
    assert_false(more);
    for (i = 0; i < commits->nelts; i++) {
        const uc_delta_commit_t *c = commit_at(commits, i);

        assert_commit(pool, dir, c);
        assert_non_null(c->commit_info);
        assert_int_equal(c->timestamp, ts[c->version]);
    }
    /* In-Commit Timestamps, not file times, where commits carry them. */
    dir = copy_fixture(pool, "cdc_ict_table");
    for (i = 0; i <= 3; i++)
        set_mtime(commit_path(pool, dir, i), 1000 + i);
    commits = commits_of(pool, dir, UC_DELTA_LATEST, 100, &more);
    assert_string_equal(versions_of(pool, commits), "3,2,1,0");
    for (i = 0; i < commits->nelts; i++) {
        assert_commit(pool, dir, commit_at(commits, i));
        assert_int_equal(commit_at(commits, i)->timestamp,
                         commit_ict(pool, dir, commit_at(commits, i)->version));
    }
}

static void test_history_pages(void **state)
{
    /* Pages of `limit` below `below` and whether more follow. Only the
     * commits the log still holds: versions 0-2 of checkpoint-cdf-table
     * live in its checkpoint alone, and table-with-domain-metadata has no
     * commit file at all. */
    static const struct {
        const char *fixture;
        apr_int64_t below;
        int limit;
        const char *versions;
        int more;
    } pages[] = {
        { "simple_table", UC_DELTA_LATEST, 2, "4,3", 1 },
        { "simple_table", 3, 2, "2,1", 1 },
        { "simple_table", 1, 2, "0", 0 },
        { "simple_table", 0, 2, "", 0 },
        { "simple_table", 99, 3, "4,3,2", 1 },
        { "checkpoint-cdf-table", UC_DELTA_LATEST, 10, "5,4,3", 0 },
        { "table-with-domain-metadata", UC_DELTA_LATEST, 10, "", 0 },
    };
    apr_pool_t *pool = test_pool(state);
    size_t i;
    int more;

    for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
        const char *dir = fixture_dir(pool, pages[i].fixture);

        assert_string_equal(versions_of(pool, commits_of(pool, dir,
            pages[i].below, pages[i].limit, &more)), pages[i].versions);
        assert_int_equal(more, pages[i].more);
    }
}

static void test_history_without_commit_info(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = uc_test_temp_table(pool);
    apr_array_header_t *commits;
    int more;

    write_commit(pool, dir, 0, apr_pstrcat(pool, PROTOCOL_1_2,
        apr_psprintf(pool, METADATA, ""), apr_psprintf(pool, ADD, "a", 10),
        apr_psprintf(pool, ADD, "b", 20), NULL));
    write_commit(pool, dir, 1, apr_pstrcat(pool, "{\"commitInfo\":{"
        "\"inCommitTimestamp\":1234,\"operation\":\"DELETE\"}}\n"
        "{\"remove\":{\"path\":\"a\",\"size\":10,\"dataChange\":true}}\n",
        apr_psprintf(pool, ADD, "c", 30), NULL));
    set_mtime(commit_path(pool, dir, 0), 5000);
    set_mtime(commit_path(pool, dir, 1), 6000);
    commits = commits_of(pool, dir, UC_DELTA_LATEST, 20, &more);
    assert_string_equal(versions_of(pool, commits), "1,0");
    assert_commit(pool, dir, commit_at(commits, 0));
    assert_commit(pool, dir, commit_at(commits, 1));
    assert_int_equal(commit_at(commits, 0)->timestamp, 1234);
    assert_string_equal(commit_at(commits, 0)->commit_info,
                        "{\"inCommitTimestamp\":1234,\"operation\":"
                        "\"DELETE\"}");
    assert_int_equal(commit_at(commits, 0)->removed_bytes, 10);
    assert_int_equal(commit_at(commits, 0)->added_bytes, 30);
    assert_null(commit_at(commits, 1)->commit_info);
    assert_int_equal(commit_at(commits, 1)->timestamp, 5000);
    assert_int_equal(commit_at(commits, 1)->num_added_files, 2);
    assert_int_equal(commit_at(commits, 1)->added_bytes, 30);
}

static void test_data_keys(void **state)
{
    apr_pool_t *pool = test_pool(state);
    static const char *const outside[] = {
        "s3://bucket/t/part-0.parquet", "file:///t/part-0.parquet",
        "/t/part-0.parquet", "../t/part-0.parquet", "x/../../part-0.parquet",
        "./part-0.parquet", "%2Ft%2Fpart-0.parquet", "", NULL
    };
    const char *key;
    int i;

    assert_ok(uc_delta_log_data_key(pool, "x=A%252FA/part-0.parquet", &key));
    assert_string_equal(key, "x=A%2FA/part-0.parquet");
    assert_ok(uc_delta_log_data_key(pool, "x=B%20B/p:1.parquet", &key));
    assert_string_equal(key, "x=B B/p:1.parquet");
    for (i = 0; outside[i]; i++)
        assert_err(uc_delta_log_data_key(pool, outside[i], &key), 400,
                   "MALFORMED_DELTA_LOG");
}

/* --- change data feed ---------------------------------------------------- */

typedef uc_error_t *feed_fn(uc_delta_table_t *table, apr_pool_t *pool,
                            apr_int64_t start, apr_int64_t end,
                            uc_delta_changes_t **out);

static uc_delta_changes_t *feed_of(apr_pool_t *pool, const char *dir,
                                   feed_fn *feed, apr_int64_t start,
                                   apr_int64_t end, uc_error_t **err)
{
    uc_delta_table_t *table;
    uc_delta_changes_t *changes = NULL;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL,
                                     &table));
    *err = feed(table, pool, start, end, &changes);
    return changes;
}

static uc_delta_changes_t *changes_of(apr_pool_t *pool, const char *dir,
                                      apr_int64_t start, apr_int64_t end,
                                      uc_error_t **err)
{
    return feed_of(pool, dir, uc_delta_changes, start, end, err);
}

/* What the commits say, counted here: cdc actions where a commit has any,
 * else its data-changing adds and removes. */
static void test_change_data_feed(void **state)
{
    static const char *const names[] = { "cdf-table", "cdc_ict_table", NULL };
    apr_pool_t *pool = test_pool(state);
    const char *const *name;

    for (name = names; *name; name++) {
        const char *dir = fixture_dir(pool, *name);
        apr_int64_t latest = newest_commit(pool, dir), v;
        uc_error_t *err;
        uc_delta_changes_t *c = changes_of(pool, dir, 0, UC_DELTA_LATEST,
                                           &err);
        int at = 0, i, kinds = 0;

        assert_null(err);
        assert_int_equal(c->end_version, latest);
        for (v = 0; v <= latest; v++) {
            apr_array_header_t *lines = commit_lines(pool, dir, v);
            int cdc = 0, adds = 0, removes = 0, n;
            uc_delta_snapshot_t *s = snapshot_of(pool, dir, v);

            for (i = 0; i < lines->nelts; i++) {
                json_t *a = APR_ARRAY_IDX(lines, i, json_t *);
                json_t *add = json_object_get(a, "add");
                json_t *remove = json_object_get(a, "remove");

                cdc += json_object_get(a, "cdc") != NULL;
                adds += add && !json_is_false(json_object_get(add,
                                                              "dataChange"));
                removes += remove && !json_is_false(json_object_get(
                                                        remove, "dataChange"));
            }
            n = cdc ? cdc : adds + removes;
            for (i = 0; i < n; i++, at++) {
                const uc_delta_change_t *ch = &APR_ARRAY_IDX(
                    c->changes, at, uc_delta_change_t);

                assert_int_equal(ch->version, v);
                assert_int_equal(ch->timestamp, s->timestamp);
                if (cdc)
                    assert_int_equal(ch->kind, UC_DELTA_CHANGE_CDC);
                else
                    assert_int_not_equal(ch->kind, UC_DELTA_CHANGE_CDC);
                kinds |= 1 << ch->kind;
            }
            uc_delta_snapshot_release(s);
        }
        assert_int_equal(at, c->changes->nelts);
        assert_int_equal(kinds & 3, 3);
    }
}

static void test_change_data_feed_bounds(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *cdf = fixture_dir(pool, "cdf-table");
    uc_error_t *err;
    uc_delta_changes_t *c;

    c = changes_of(pool, cdf, 1, 2, &err);
    assert_null(err);
    assert_int_equal(c->start_version, 1);
    assert_int_equal(APR_ARRAY_IDX(c->changes, c->changes->nelts - 1,
                                   uc_delta_change_t).version, 2);
    changes_of(pool, cdf, 4, UC_DELTA_LATEST, &err);
    assert_int_equal(err->status, 400);
    assert_non_null(strstr(err->message, "greater than the latest"));
    changes_of(pool, cdf, 0, 9, &err);
    assert_non_null(strstr(err->message, "end version"));
    changes_of(pool, cdf, 2, 1, &err);
    assert_non_null(strstr(err->message, "after the end version"));
    changes_of(pool, fixture_dir(pool, "simple_table"), 0, 2, &err);
    assert_int_equal(err->status, 400);
    assert_non_null(strstr(err->message, "change data was not recorded"));
    changes_of(pool, fixture_dir(pool, "checkpoint-cdf-table"), 0, 5, &err);
    assert_non_null(strstr(err->message, "no longer in its log"));
    assert_location_in_cause(err, fixture_dir(pool, "checkpoint-cdf-table"));
    c = changes_of(pool, fixture_dir(pool, "checkpoint-cdf-table"), 4, 5,
                   &err);
    assert_null(err);
    assert_true(c->changes->nelts > 0);
}

/* CDF turned off half way through a range. */
static void test_change_data_feed_turned_off(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = uc_test_temp_table(pool);
    uc_error_t *err;
    uc_delta_changes_t *c;

    write_commit(pool, dir, 0, apr_psprintf(pool, PROTOCOL_1_2 METADATA ADD,
        "\"delta.enableChangeDataFeed\":\"true\"", "a", 1));
    write_commit(pool, dir, 1, apr_psprintf(pool, ADD "{\"remove\":{"
        "\"path\":\"a\",\"size\":1,\"dataChange\":true}}\n"
        "{\"remove\":{\"path\":\"x\",\"dataChange\":false}}\n", "b", 2));
    write_commit(pool, dir, 2, apr_psprintf(pool, METADATA ADD,
        "\"delta.enableChangeDataFeed\":\"false\"", "c", 3));
    c = changes_of(pool, dir, 0, 1, &err);
    assert_null(err);
    assert_int_equal(c->changes->nelts, 3);
    assert_int_equal(APR_ARRAY_IDX(c->changes, 2, uc_delta_change_t).kind,
                     UC_DELTA_CHANGE_REMOVE);
    assert_string_equal(APR_ARRAY_IDX(c->changes, 2, uc_delta_change_t).path,
                        "a");
    changes_of(pool, dir, 0, 2, &err);
    assert_non_null(err);
    assert_non_null(strstr(err->message, "version [2]"));
}

static int data_changes_in(apr_pool_t *pool, const char *dir, apr_int64_t v)
{
    apr_array_header_t *lines = commit_lines(pool, dir, v);
    int i, n = 0;

    for (i = 0; i < lines->nelts; i++) {
        json_t *a = APR_ARRAY_IDX(lines, i, json_t *);
        json_t *file = json_object_get(a, "add");

        if (!file)
            file = json_object_get(a, "remove");
        n += file && !json_is_false(json_object_get(file, "dataChange"));
    }
    return n;
}

/* The streaming feed: every data-changing add and remove, never a cdc
 * file, with or without CDF, and the metaData versions after the start;
 * a protocol it cannot read is refused where it appears. */
static void test_data_changes(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *cdf = fixture_dir(pool, "cdf-table");
    const char *dir = uc_test_temp_table(pool);
    uc_error_t *err;
    uc_delta_changes_t *c = feed_of(pool, cdf, uc_delta_data_changes, 1,
                                    UC_DELTA_LATEST, &err);
    int i, n = 0;
    apr_int64_t v;

    assert_null(err);
    for (v = 1; v <= c->end_version; v++)
        n += data_changes_in(pool, cdf, v);
    assert_int_equal(c->changes->nelts, n);
    for (i = 0; i < c->changes->nelts; i++)
        assert_int_not_equal(APR_ARRAY_IDX(c->changes, i,
                                           uc_delta_change_t).kind,
                             UC_DELTA_CHANGE_CDC);
    assert_true(c->features.change_data_feed);
    assert_int_equal(c->features.min_reader_version, 1);

    write_commit(pool, dir, 0, apr_psprintf(pool, PROTOCOL_1_2 METADATA ADD,
                                            "", "a", 1));
    write_commit(pool, dir, 1, apr_psprintf(pool, ADD, "b", 2));
    write_commit(pool, dir, 2, apr_psprintf(pool, METADATA ADD,
        "\"delta.appendOnly\":\"true\"", "c", 3));
    c = feed_of(pool, dir, uc_delta_data_changes, 0, 2, &err);
    assert_null(err);
    assert_int_equal(c->changes->nelts, 3);
    assert_string_equal(APR_ARRAY_IDX(c->changes, 2, uc_delta_change_t).path,
                        "c");
    assert_int_equal(c->metadata_versions->nelts, 1);
    assert_int_equal(APR_ARRAY_IDX(c->metadata_versions, 0, apr_int64_t), 2);
    assert_false(c->features.change_data_feed);
    changes_of(pool, dir, 0, 2, &err);
    assert_non_null(err);

    write_commit(pool, dir, 3, "{\"protocol\":{\"minReaderVersion\":3,"
        "\"minWriterVersion\":7,\"readerFeatures\":[\"blahabl\"],"
        "\"writerFeatures\":[]}}\n");
    feed_of(pool, dir, uc_delta_data_changes, 0, 2, &err);
    assert_null(err);
    feed_of(pool, dir, uc_delta_data_changes, 1, 3, &err);
    assert_non_null(err);
    assert_string_equal(err->code, "UNSUPPORTED_OPERATION");
}

/* A sidecar the checkpoint names but the store does not have is the log's
 * fault (400 MALFORMED_DELTA_LOG), not a missing table. */
static void test_missing_sidecar(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "v2-checkpoint-parquet");
    uc_error_t *err;

    assert_int_equal(apr_file_remove(apr_pstrcat(pool, dir, "/_delta_log/"
        "_sidecars/00000000000000000002.checkpoint.0000000001.0000000002."
        "055454d8-329c-4e0e-864d-7f867075af33.parquet", NULL), pool),
        APR_SUCCESS);
    err = snapshot_error(pool, dir, UC_DELTA_LATEST);
    assert_string_equal(err->code, "MALFORMED_DELTA_LOG");
    assert_non_null(strstr(err->message, "is missing"));
}

/* --- cache ----------------------------------------------------------------- */

static void append_file(apr_pool_t *pool, const char *dir, apr_int64_t v,
                        const char *removed)
{
    const char *text = apr_psprintf(pool, ADD, apr_psprintf(pool,
                                    "new-%" APR_INT64_T_FMT ".parquet", v),
                                    (int)v);

    if (removed)
        text = apr_pstrcat(pool, text, "{\"remove\":{\"path\":\"", removed,
                           "\",\"dataChange\":true}}\n", NULL);
    write_commit(pool, dir, v, text);
}

static uc_delta_snapshot_t *cached(apr_pool_t *pool, uc_delta_cache_t *cache,
                                   const char *dir)
{
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL,
                                     &table));
    assert_ok(uc_delta_cache_latest(cache, table, &s));
    return s;
}

static void test_cache_advances_by_new_commits(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "simple_table_with_checkpoint");
    uc_delta_cache_t *cache;
    uc_delta_cache_stats_t st;
    uc_delta_snapshot_t *s, *again;
    apr_int64_t v;

    assert_ok(uc_delta_cache_create(pool, 64 << 20, &cache));
    s = cached(pool, cache, dir);
    assert_int_equal(s->version, 10);
    again = cached(pool, cache, dir);
    assert_ptr_equal(again, s);
    uc_delta_snapshot_release(again);
    uc_delta_snapshot_release(s);
    uc_delta_cache_stats(cache, &st);
    assert_int_equal(st.builds, 1);
    assert_int_equal(st.hits, 1);

    /* More commits than arenas a snapshot keeps, so it compacts too. The
     * checkpoint is moved away: advancing must not read it again. */
    assert_int_equal(apr_file_rename(apr_pstrcat(pool, dir, "/_delta_log/"
        "00000000000000000010.checkpoint.parquet", NULL),
        apr_pstrcat(pool, dir, "/moved.parquet", NULL), pool), APR_SUCCESS);
    for (v = 11; v <= 23; v++) {
        append_file(pool, dir, v, v % 2 ? apr_psprintf(pool,
                    "new-%" APR_INT64_T_FMT ".parquet", v - 1) : NULL);
        s = cached(pool, cache, dir);
        assert_int_equal(s->version, v);
        assert_int_equal(s->checkpoint_version, 10);
        uc_delta_snapshot_release(s);
    }
    uc_delta_cache_stats(cache, &st);
    assert_int_equal(st.advances, 13);
    assert_int_equal(st.builds, 1);
    apr_file_rename(apr_pstrcat(pool, dir, "/moved.parquet", NULL),
                    apr_pstrcat(pool, dir, "/_delta_log/"
                                "00000000000000000010.checkpoint.parquet",
                                NULL), pool);
    s = cached(pool, cache, dir);
    assert_matches(pool, s, json_replay(pool, dir, 23), "advanced");
    uc_delta_snapshot_release(s);
}

static void test_cache_budget(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *a = fixture_dir(pool, "simple_table");
    const char *b = fixture_dir(pool, "cdf-table");
    uc_delta_cache_t *cache;
    uc_delta_cache_stats_t st;
    uc_delta_snapshot_t *s;
    apr_size_t size_a, size_b, budget;

    assert_ok(uc_delta_cache_create(pool, 1, &cache));
    uc_delta_snapshot_release(cached(pool, cache, a));
    uc_delta_snapshot_release(cached(pool, cache, a));
    uc_delta_cache_stats(cache, &st);
    assert_int_equal(st.builds, 2);
    assert_int_equal(st.entries, 0);

    s = cached(pool, cache, a);
    size_a = s->bytes;
    uc_delta_snapshot_release(s);
    s = cached(pool, cache, b);
    size_b = s->bytes;
    uc_delta_snapshot_release(s);
    /* Room for either table, not for both. */
    budget = (size_a > size_b ? size_a : size_b)
             + (size_a < size_b ? size_a : size_b) / 2;
    assert_ok(uc_delta_cache_create(pool, budget, &cache));
    uc_delta_snapshot_release(cached(pool, cache, a));
    uc_delta_snapshot_release(cached(pool, cache, b));
    uc_delta_cache_stats(cache, &st);
    assert_int_equal(st.entries, 1);
    assert_true(st.bytes <= budget);
    assert_int_equal(st.evictions, 1);
    /* An evicted snapshot still held by a reader stays valid. */
    s = cached(pool, cache, a);
    uc_delta_snapshot_release(cached(pool, cache, b));
    assert_int_equal(s->num_files, 5);
    assert_non_null(s->files[4].path);
    uc_delta_snapshot_release(s);
}

typedef struct reader_args {
    uc_delta_cache_t *cache;
    const char *dir;
    apr_size_t base_files;
    apr_int64_t base_version;
    volatile apr_uint32_t *stop;
    int reads;
    int failures;
} reader_args_t;

static void *APR_THREAD_FUNC reader(apr_thread_t *thread, void *data)
{
    reader_args_t *args = data;
    apr_pool_t *pool;
    apr_int64_t last = -1;

    apr_pool_create_unmanaged_ex(&pool, NULL, NULL);
    while (!apr_atomic_read32(args->stop) || args->reads < 50) {
        uc_delta_table_t *table;
        uc_delta_snapshot_t *s;

        apr_pool_clear(pool);
        if (uc_delta_table_open(pool, file_url(pool, args->dir), NULL, &table)
            || uc_delta_cache_latest(args->cache, table, &s)) {
            args->failures++;
            continue;
        }
        /* Every appended commit adds one file; versions never go back. */
        if (s->version < last
            || s->num_files != args->base_files
                               + (apr_size_t)(s->version - args->base_version))
            args->failures++;
        last = s->version;
        uc_delta_snapshot_release(s);
        args->reads++;
    }
    apr_pool_destroy(pool);
    /* Returning, not apr_thread_exit: pthread_exit leaves the stack
     * poisoned for ASan. */
    (void)thread;
    return NULL;
}

/* Commits land while threads read through the cache. A commit is written
 * under a temporary name and renamed, as Delta writers publish them. */
static void test_cache_under_threads(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = copy_fixture(pool, "simple_table");
    uc_delta_cache_t *cache;
    apr_thread_t *threads[4];
    reader_args_t args[4];
    volatile apr_uint32_t stop = 0;
    apr_int64_t v;
    int i;

    assert_ok(uc_delta_cache_create(pool, 64 << 20, &cache));
    for (i = 0; i < 4; i++) {
        args[i] = (reader_args_t){ cache, dir, 5, 4, &stop, 0, 0 };
        assert_int_equal(apr_thread_create(&threads[i], NULL, reader,
                                           &args[i], pool), APR_SUCCESS);
    }
    for (v = 5; v < 25; v++) {
        const char *tmp = apr_pstrcat(pool, dir, "/_delta_log/.tmp-commit",
                                      NULL);
        const char *text = apr_psprintf(pool, ADD, apr_psprintf(pool,
                                        "t-%" APR_INT64_T_FMT, v), 1);

        uc_test_write_file(pool, tmp, text, strlen(text));
        assert_int_equal(apr_file_rename(tmp, commit_path(pool, dir, v),
                                         pool), APR_SUCCESS);
        apr_sleep(2000);
    }
    apr_atomic_set32(&stop, 1);
    for (i = 0; i < 4; i++) {
        apr_status_t rv;

        apr_thread_join(&rv, threads[i]);
        assert_int_equal(args[i].failures, 0);
        assert_true(args[i].reads >= 50);
    }
}

/* Threads read every file's stats of one cached snapshot through readers
 * that keep the pages they decode: each sees the stats a reader of its
 * own decodes, whoever kept a page first. */
typedef struct stats_args {
    uc_delta_cache_t *cache;
    const char *dir;
    apr_array_header_t *want;      /* stats text by file, NULL for none */
    int failures;
} stats_args_t;

static void *APR_THREAD_FUNC stats_reader(apr_thread_t *thread, void *data)
{
    stats_args_t *args = data;
    apr_pool_t *pool;
    int round;

    apr_pool_create_unmanaged_ex(&pool, NULL, NULL);
    for (round = 0; round < 20; round++) {
        uc_delta_stats_reader_t *reader;
        uc_delta_table_t *table;
        uc_delta_snapshot_t *s;
        apr_size_t i;

        apr_pool_clear(pool);
        reader = uc_delta_stats_reader_make(pool, args->cache);
        if (uc_delta_table_open(pool, file_url(pool, args->dir), NULL, &table)
            || uc_delta_cache_latest(args->cache, table, &s)) {
            args->failures++;
            continue;
        }
        for (i = 0; i < s->num_files; i++) {
            const char *got = NULL;
            const char *want = APR_ARRAY_IDX(args->want, i, const char *);

            if (uc_delta_file_stats(reader, &s->files[i], &got) ||
                (!got != !want) || (got && strcmp(got, want) != 0))
                args->failures++;
        }
        uc_delta_snapshot_release(s);
    }
    apr_pool_destroy(pool);
    (void)thread;
    return NULL;
}

static void test_kept_stats_under_threads(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = fixture_dir(pool, "simple_table_with_checkpoint");
    uc_delta_stats_reader_t *own = uc_delta_stats_reader_make(pool, NULL);
    uc_delta_cache_stats_t stats;
    uc_delta_cache_t *cache;
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;
    apr_thread_t *threads[4];
    stats_args_t args[4];
    apr_array_header_t *want;
    apr_size_t i, kept = 0;
    int t;

    assert_ok(uc_delta_cache_create(pool, 64 << 20, &cache));
    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL, &table));
    assert_ok(uc_delta_cache_latest(cache, table, &s));
    want = apr_array_make(pool, (int)s->num_files, sizeof(const char *));
    for (i = 0; i < s->num_files; i++) {
        const char *text;

        assert_ok(uc_delta_file_stats(own, &s->files[i], &text));
        APR_ARRAY_PUSH(want, const char *) = text ? apr_pstrdup(pool, text)
                                                  : NULL;
        kept += s->files[i].stats_source != NULL;
    }
    assert_true(kept > 0);
    uc_delta_cache_stats(cache, &stats);
    assert_int_equal(stats.decoded_bytes, 0);
    for (t = 0; t < 4; t++) {
        args[t] = (stats_args_t){ cache, dir, want, 0 };
        assert_int_equal(apr_thread_create(&threads[t], NULL, stats_reader,
                                           &args[t], pool), APR_SUCCESS);
    }
    for (t = 0; t < 4; t++) {
        apr_status_t rv;

        apr_thread_join(&rv, threads[t]);
        assert_int_equal(args[t].failures, 0);
    }
    uc_delta_cache_stats(cache, &stats);
    assert_true(stats.decoded_bytes > 0);
    /* Prefetching reads the entries and the kept pages' slots (ASan sees
     * those reads), past the last file too, and changes nothing. */
    for (i = 0; i <= s->num_files; i++)
        for (t = 0; t < 3; t++)
            uc_delta_prefetch_file(s, i, t);
    for (i = 0; i < s->num_files; i++) {
        const char *text;
        const char *w = APR_ARRAY_IDX(want, (int)i, const char *);

        assert_ok(uc_delta_file_stats(own, &s->files[i], &text));
        assert_true(!text == !w && (!w || strcmp(text, w) == 0));
    }
    uc_delta_snapshot_release(s);
}

/* The path digests a snapshot keeps are each file's, computed once. */
static void test_path_md5_kept(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = fixture_dir(pool, "simple_table_with_checkpoint");
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;
    apr_size_t i;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL, &table));
    assert_ok(uc_delta_snapshot(table, UC_DELTA_LATEST, &s));
    assert_true(s->num_files > 1);
    for (i = s->num_files; i-- > 0;) {
        unsigned char want[UC_MD5_BYTES];
        const unsigned char *got = uc_delta_file_path_md5(s, i);

        uc_digest_md5(s->files[i].path, strlen(s->files[i].path), want);
        assert_non_null(got);
        assert_memory_equal(got, want, UC_MD5_BYTES);
        assert_ptr_equal(uc_delta_file_path_md5(s, i), got);
    }
    uc_delta_snapshot_release(s);
}

/* The files by partition: every file once, in snapshot order within its
 * group, under the text of its own partition values. */
static void test_partition_groups(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *dir = fixture_dir(pool, "dv-partitioned-with-checkpoint");
    const uc_delta_partitions_t *parts;
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;
    unsigned char *seen;
    apr_size_t g, k, total = 0;

    assert_ok(uc_delta_table_open(pool, file_url(pool, dir), NULL, &table));
    assert_ok(uc_delta_snapshot(table, UC_DELTA_LATEST, &s));
    parts = uc_delta_snapshot_partitions(s);
    assert_non_null(parts);
    assert_ptr_equal(uc_delta_snapshot_partitions(s), parts);
    assert_true(parts->num_groups > 1 && parts->num_groups < s->num_files);
    seen = apr_pcalloc(pool, s->num_files);
    for (g = 0; g < parts->num_groups; g++) {
        const uc_delta_partition_group_t *grp = &parts->groups[g];

        assert_true(grp->count > 0);
        for (k = 0; k < grp->count; k++) {
            apr_uint32_t i = grp->files[k];

            assert_true(i < s->num_files && !seen[i]);
            assert_true(k == 0 || grp->files[k - 1] < i);
            assert_string_equal(s->files[i].partition_values, grp->values);
            seen[i] = 1;
            total++;
        }
    }
    assert_int_equal(total, s->num_files);
    uc_delta_snapshot_release(s);
}

/* --- synthetic tables ------------------------------------------------------ */

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* SHA-256 of the sorted live paths, each followed by a newline: how the
 * generator summarises a version's live set. */
static const char *live_paths_sha256(apr_pool_t *pool,
                                     const uc_delta_snapshot_t *s)
{
    const char **paths = apr_palloc(pool, sizeof(char *) * (s->num_files + 1));
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len, i;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    char *hex;
    apr_size_t k;

    for (k = 0; k < s->num_files; k++)
        paths[k] = s->files[k].path;
    qsort(paths, s->num_files, sizeof(char *), by_string);
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    for (k = 0; k < s->num_files; k++) {
        EVP_DigestUpdate(ctx, paths[k], strlen(paths[k]));
        EVP_DigestUpdate(ctx, "\n", 1);
    }
    EVP_DigestFinal_ex(ctx, md, &md_len);
    EVP_MD_CTX_free(ctx);
    hex = apr_palloc(pool, 2 * md_len + 1);
    for (i = 0; i < md_len; i++)
        apr_snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return hex;
}

/* Tables written by an independent Parquet writer with every codec, page
 * version and checkpoint kind; the generator records each version's live
 * set, protocol, metadata and commit time. */
static void test_synthetic_tables(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *root = getenv("UNICAT_DELTA_SYNTHETIC");
    apr_dir_t *dir;
    apr_finfo_t info;
    int tables = 0, versions = 0;

    if (!root)
        fail_msg("UNICAT_DELTA_SYNTHETIC is not set: run through make "
                 "unit-test, which generates the tables");
    assert_int_equal(apr_dir_open(&dir, root, pool), APR_SUCCESS);
    while (apr_dir_read(&info, APR_FINFO_TYPE | APR_FINFO_NAME, dir)
           == APR_SUCCESS) {
        const char *table;
        json_t *expected, *v;
        size_t i;

        if (info.filetype != APR_DIR || info.name[0] == '.')
            continue;
        table = apr_pstrcat(pool, root, "/", info.name, NULL);
        expected = parsed(pool, read_text(pool, apr_pstrcat(pool, table,
                                          "/expected.json", NULL), NULL));
        assert_non_null(expected);
        json_array_foreach(json_object_get(expected, "versions"), i, v) {
            apr_pool_t *sub;
            uc_delta_snapshot_t *s;
            apr_int64_t version = json_integer_value(json_object_get(
                                                     v, "version"));

            apr_pool_create(&sub, pool);
            s = snapshot_of(sub, table, version);
            if (s->num_files != (apr_size_t)json_integer_value(
                                    json_object_get(v, "numFiles"))
                || strcmp(live_paths_sha256(sub, s), json_string_value(
                              json_object_get(v, "livePathsSha256"))) != 0)
                fail_msg("%s v%" APR_INT64_T_FMT ": %zu files, not the "
                         "expected set", info.name, version, s->num_files);
            if (!json_equal(parsed(sub, s->metadata),
                            json_object_get(v, "metaData"))
                || !json_equal(parsed(sub, s->protocol),
                               json_object_get(v, "protocol")))
                fail_msg("%s v%" APR_INT64_T_FMT ": protocol or metadata",
                         info.name, version);
            assert_int_equal(s->timestamp, json_integer_value(
                                               json_object_get(v,
                                                               "timestamp")));
            uc_delta_snapshot_release(s);
            apr_pool_destroy(sub);
            versions++;
        }
        tables++;
    }
    apr_dir_close(dir);
    assert_true(tables >= 8);
    assert_true(versions >= 40);
}

/* The reader set up again with other thread settings, in force until the
 * returned pool is destroyed. */
static apr_pool_t *threads_setup(apr_pool_t *pool, int decode, int request)
{
    uc_delta_settings_t settings;
    apr_pool_t *setup;

    apr_pool_create(&setup, pool);
    uc_delta_settings_default(&settings);
    settings.decode_threads = decode;
    settings.request_threads = request;
    assert_ok(uc_delta_init(setup, &settings));
    return setup;
}

static const char *large_table(apr_pool_t *pool)
{
    const char *root = getenv("UNICAT_DELTA_SYNTHETIC");

    if (!root)
        fail_msg("UNICAT_DELTA_SYNTHETIC is not set: run through make "
                 "unit-test, which generates the tables");
    return apr_pstrcat(pool, root, "/large-snappy-v1", NULL);
}

/* The largest synthetic checkpoint read by one thread, then by three
 * (pages decoded in parallel, rows read in shares): the same snapshots,
 * every file and field of them, at every version. */
static void test_decode_threads_agree(void **state)
{
    apr_pool_t *pool = test_pool(state);
    const char *table = large_table(pool);
    apr_int64_t version;

    for (version = 8; version <= 17; version++) {
        const char *text[2];
        int k;

        for (k = 0; k < 2; k++) {
            uc_jw_t *w = uc_jw_make(pool, 1 << 20);
            apr_pool_t *setup = threads_setup(pool, k ? 3 : 1,
                                              UC_DELTA_MAX_REQUEST_THREADS);
            uc_delta_snapshot_t *s;

            s = snapshot_of(pool, table, version);
            assert_true(s->num_files > 30000);
            assert_ok(uc_delta_write_snapshot(w, s, 1));
            text[k] = apr_pstrdup(pool, uc_jw_text(w));
            uc_delta_snapshot_release(s);
            apr_pool_destroy(setup);
        }
        if (strcmp(text[0], text[1]) != 0)
            fail_msg("v%" APR_INT64_T_FMT ": three threads read another "
                     "snapshot than one", version);
    }
}

/* Threads started by this process, counted where they start: the reader's
 * calls of apr_thread_create resolve to this definition, which passes
 * them on to APR's. */
typedef apr_status_t create_fn(apr_thread_t **, apr_threadattr_t *,
                               apr_thread_start_t, void *, apr_pool_t *);

static create_fn *apr_create;
static pthread_once_t apr_create_once = PTHREAD_ONCE_INIT;
static volatile apr_uint32_t threads_started, threads_running, threads_peak;

typedef struct counted {
    apr_thread_start_t start;
    void *data;
} counted_t;

static void find_apr_create(void)
{
    apr_create = (create_fn *)dlsym(RTLD_NEXT, "apr_thread_create");
}

static void *APR_THREAD_FUNC counted_start(apr_thread_t *thread, void *data)
{
    counted_t *c = data;
    apr_uint32_t now = apr_atomic_inc32(&threads_running) + 1, peak;
    void *result;

    while ((peak = apr_atomic_read32(&threads_peak)) < now
           && apr_atomic_cas32(&threads_peak, now, peak) != peak)
        ;
    apr_atomic_inc32(&threads_started);
    result = c->start(thread, c->data);
    apr_atomic_dec32(&threads_running);
    return result;
}

apr_status_t apr_thread_create(apr_thread_t **thread, apr_threadattr_t *attr,
                               apr_thread_start_t start, void *data,
                               apr_pool_t *pool)
{
    counted_t *c = apr_palloc(pool, sizeof(*c));

    pthread_once(&apr_create_once, find_apr_create);
    if (!apr_create)
        fail_msg("APR's apr_thread_create is not found");
    c->start = start;
    c->data = data;
    return apr_create(thread, attr, counted_start, c, pool);
}

/* A build of the large checkpoint under `decode` and `request` threads:
 * it never has more than the smaller of them at work at once, its own
 * thread included, and starts none when that is 1. */
static void check_thread_bound(apr_pool_t *pool, int decode, int request)
{
    apr_pool_t *setup = threads_setup(pool, decode, request);
    int bound = decode < request ? decode : request;
    uc_delta_snapshot_t *s;

    apr_atomic_set32(&threads_started, 0);
    apr_atomic_set32(&threads_peak, 0);
    s = snapshot_of(pool, large_table(pool), 17);
    uc_delta_snapshot_release(s);
    apr_pool_destroy(setup);
    if (apr_atomic_read32(&threads_peak) > (apr_uint32_t)bound - 1)
        fail_msg("%d decode and %d request threads: %u threads started "
                 "at once beside the request's", decode, request,
                 apr_atomic_read32(&threads_peak));
    if (bound == 1)
        assert_int_equal(apr_atomic_read32(&threads_started), 0);
    else
        assert_true(apr_atomic_read32(&threads_started) > 0);
}

static void test_request_threads_bound(void **state)
{
    apr_pool_t *pool = test_pool(state);
    uc_delta_settings_t settings;
    apr_pool_t *setup;

    check_thread_bound(pool, 4, 1);
    check_thread_bound(pool, 1, 8);
    check_thread_bound(pool, 4, 2);
    check_thread_bound(pool, 2, 8);
    check_thread_bound(pool, 8, 3);
    check_thread_bound(pool, 8, 64);

    apr_pool_create(&setup, pool);
    uc_delta_settings_default(&settings);
    settings.request_threads = 0;
    assert_invalid(uc_delta_init(setup, &settings));
    settings.request_threads = UC_DELTA_MAX_REQUEST_THREADS + 1;
    assert_invalid(uc_delta_init(setup, &settings));
    uc_delta_settings_default(&settings);
    settings.decode_threads = UC_DELTA_MAX_DECODE_THREADS + 1;
    assert_invalid(uc_delta_init(setup, &settings));
    uc_delta_settings_default(&settings);
    settings.answer_threads = 0;
    assert_invalid(uc_delta_init(setup, &settings));
    settings.answer_threads = UC_DELTA_MAX_ANSWER_THREADS + 1;
    assert_invalid(uc_delta_init(setup, &settings));
    apr_pool_destroy(setup);

    /* A sharing answer's threads are bounded by a request's too. */
    apr_pool_create(&setup, pool);
    uc_delta_settings_default(&settings);
    settings.answer_threads = 4;
    settings.request_threads = 3;
    assert_null(uc_delta_init(setup, &settings));
    assert_int_equal(uc_delta_answer_threads(), 3);
    settings.request_threads = 8;
    assert_null(uc_delta_init(setup, &settings));
    assert_int_equal(uc_delta_answer_threads(), 4);
    apr_pool_destroy(setup);
}

/* --- s3:// ------------------------------------------------------------------ */

/* The same snapshot through the local S3 as from the files themselves. */
static void test_snapshots_over_s3(void **state)
{
    static const char *const names[] = {
        "simple_table", "simple_table_with_checkpoint", "multi-part-checkpoint",
        "v2-checkpoint-parquet", "v2-checkpoint-json", "checkpoint-v2-table",
        "dv-partitioned-with-checkpoint", "delta-0.8.0-special-partition",
        "table-with-domain-metadata", "checkpoint-cdf-table", NULL
    };
    apr_pool_t *pool = test_pool(state);
    uc_objstore_config_t config = { 0 };
    const char *const *name;

    config.endpoint = getenv("UNICAT_S3_ENDPOINT");
    config.region = getenv("UNICAT_S3_REGION");
    config.access_key_id = getenv("UNICAT_S3_KEY");
    config.secret_access_key = getenv("UNICAT_S3_SECRET");
    config.path_style = 1;
    if (!config.endpoint || !getenv("UNICAT_S3_BUCKET"))
        fail_msg("UNICAT_S3_ENDPOINT and UNICAT_S3_BUCKET are not set: run "
                 "under t/s3/with-s3.sh");
    for (name = names; *name; name++) {
        uc_delta_table_t *table;
        uc_delta_snapshot_t *remote, *local;
        uc_jw_t *a = uc_jw_make(pool, 4096), *b = uc_jw_make(pool, 4096);
        const char *location = apr_psprintf(pool, "s3://%s/fixtures/%s",
                                            getenv("UNICAT_S3_BUCKET"), *name);

        assert_ok(uc_delta_table_open(pool, location, &config, &table));
        assert_ok(uc_delta_snapshot(table, UC_DELTA_LATEST, &remote));
        local = snapshot_of(pool, fixture_dir(pool, *name), UC_DELTA_LATEST);
        assert_int_equal(remote->version, local->version);
        assert_int_equal(remote->checkpoint_version,
                         local->checkpoint_version);
        remote->location = local->location;
        remote->timestamp = local->timestamp;
        assert_ok(uc_delta_write_snapshot(a, remote, 1));
        assert_ok(uc_delta_write_snapshot(b, local, 1));
        assert_string_equal(uc_jw_text(a), uc_jw_text(b));
        uc_delta_snapshot_release(remote);
        uc_delta_snapshot_release(local);
    }
}

static const struct CMUnitTest tests[] = {
    UC_POOL_TEST(test_every_fixture_version),
    UC_POOL_TEST(test_latest_uses_newest_checkpoint),
    UC_POOL_TEST(test_checkpoint_counts_match_last_checkpoint),
    UC_POOL_TEST(test_checkpoint_only_log),
    UC_POOL_TEST(test_versions_outside_the_log),
    UC_POOL_TEST(test_reader_features_are_checked),
    UC_POOL_TEST(test_unreadable_checkpoint_falls_back),
    UC_POOL_TEST(test_special_partition_paths),
    UC_POOL_TEST(test_timestamps_from_file_times),
    UC_POOL_TEST(test_in_commit_timestamps),
    UC_POOL_TEST(test_history_newest_first),
    UC_POOL_TEST(test_history_pages),
    UC_POOL_TEST(test_history_without_commit_info),
    UC_POOL_TEST(test_data_keys),
    UC_POOL_TEST(test_change_data_feed),
    UC_POOL_TEST(test_change_data_feed_bounds),
    UC_POOL_TEST(test_change_data_feed_turned_off),
    UC_POOL_TEST(test_data_changes),
    UC_POOL_TEST(test_missing_sidecar),
    UC_POOL_TEST(test_cache_advances_by_new_commits),
    UC_POOL_TEST(test_cache_budget),
    UC_POOL_TEST(test_cache_under_threads),
    UC_POOL_TEST(test_kept_stats_under_threads),
    UC_POOL_TEST(test_path_md5_kept),
    UC_POOL_TEST(test_partition_groups),
    UC_POOL_TEST(test_synthetic_tables),
    UC_POOL_TEST(test_decode_threads_agree),
    UC_POOL_TEST(test_request_threads_bound),
    UC_POOL_TEST(test_snapshots_over_s3),
};

int main(void)
{
    int rc;

    uc_test_init();
    uc_test_init_reader();
    rc = cmocka_run_group_tests_name("delta", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
