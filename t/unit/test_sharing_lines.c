/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta Sharing line renderer against the vendored fixture tables:
 * every line written is parsed back and its shape checked against what
 * the official clients read (notes: delta-sharing-wire.md §6–§8, §13);
 * ids and sizes are checked against the log's paths and the files on
 * disk, computed here independently. */
#include "uc_test_reader.h"

#include <apr_file_info.h>
#include <jansson.h>
#include <openssl/evp.h>

#include "../../src/core/uc_json.h"
#include "../../src/core/uc_percent.h"
#include "../../src/sharing/uc_sharing_lines.h"

#define EXPIRES 1700003600000LL

static const char *fixtures_root(apr_pool_t *pool)
{
    const char *env = getenv("UNICAT_DELTA_FIXTURES");
    char *abs;

    assert_int_equal(apr_filepath_merge(&abs, NULL,
                                        env ? env : "t/delta/fixtures",
                                        APR_FILEPATH_TRUENAME, pool),
                     APR_SUCCESS);
    return abs;
}

static const char *fixture_dir(apr_pool_t *pool, const char *name)
{
    return apr_pstrcat(pool, fixtures_root(pool), "/", name, NULL);
}

static uc_delta_table_t *table_of(apr_pool_t *pool, const char *name)
{
    uc_delta_table_t *table;

    assert_ok(uc_delta_table_open(pool, apr_pstrcat(pool, "file://",
                                                    fixture_dir(pool, name),
                                                    NULL), NULL, &table));
    return table;
}

/* The snapshot, released with the test's pool. */
static apr_status_t release_snapshot(void *s)
{
    uc_delta_snapshot_release(s);
    return APR_SUCCESS;
}

static uc_delta_snapshot_t *snapshot_of(apr_pool_t *pool, const char *name,
                                        apr_int64_t version)
{
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_snapshot(table_of(pool, name), version, &s));
    apr_pool_cleanup_register(pool, s, release_snapshot,
                              apr_pool_cleanup_null);
    return s;
}

/* --- a signer, and what it signed ------------------------------------------ */

static uc_error_t *test_sign(void *baton, apr_pool_t *pool,
                             const char *log_path, apr_size_t path_len,
                             const char **url, apr_size_t *url_len)
{
    assert_int_equal(path_len, strlen(log_path));
    (*(int *)baton)++;
    *url = apr_pstrcat(pool, "https://files.test/t/", log_path, "?sig=x",
                       NULL);
    *url_len = strlen(*url);
    return NULL;
}

static int signed_count;
/* Expiring at EXPIRES: set by main. */
static uc_sharing_signer_t signer = { test_sign, &signed_count };

static const char *signed_url(apr_pool_t *pool, const char *log_path)
{
    return apr_pstrcat(pool, "https://files.test/t/", log_path, "?sig=x",
                       NULL);
}

static const char *hex_digest(apr_pool_t *pool, const char *text, int sha256)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n, i;
    char *out;

    assert_true(EVP_Digest(text, strlen(text), d, &n,
                           sha256 ? EVP_sha256() : EVP_md5(), NULL));
    out = apr_palloc(pool, 2 * n + 1);
    for (i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
    return out;
}

/* --- lines -------------------------------------------------------------------- */

/* What `jw` holds as one JSON object, checked compact (it dumps back to
 * the same bytes) and free of newlines; the writer is emptied. */
static json_t *line_of(apr_pool_t *pool, uc_jw_t *jw)
{
    const char *text = apr_pstrmemdup(pool, jw->buf, jw->len);
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);

    if (!json_is_object(v))
        fail_msg("not a JSON object (%s): %s", jerr.text, text);
    uc_json_own(pool, v);
    assert_null(strchr(text, '\n'));
    assert_string_equal(uc_json_dump(pool, v), text);
    assert_int_equal(json_object_size(v), 1);
    uc_jw_reset(jw);
    return v;
}

static json_t *member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    if (!v)
        fail_msg("no member '%s' in %s", key,
                 json_dumps(obj, JSON_COMPACT));
    return v;
}

static const char *string_member(json_t *obj, const char *key)
{
    json_t *v = member(obj, key);

    assert_true(json_is_string(v));
    return json_string_value(v);
}

static json_int_t int_member(json_t *obj, const char *key)
{
    json_t *v = member(obj, key);

    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static uc_sharing_caps_t caps_of(apr_pool_t *pool, const char *header)
{
    uc_sharing_caps_t caps;

    assert_ok(uc_sharing_caps_parse(pool, header, &caps));
    assert_ok(uc_sharing_fileidhash_parse(pool, NULL, &caps));
    return caps;
}

static uc_sharing_format_t format_for(apr_pool_t *pool,
                                      const uc_delta_snapshot_t *s,
                                      const char *header)
{
    uc_sharing_caps_t caps = caps_of(pool, header);
    uc_sharing_format_t format;

    assert_ok(uc_sharing_choose_format(pool, &caps, &s->features,
                                       s->metadata, &format));
    return format;
}

static uc_error_t *format_error(apr_pool_t *pool,
                                const uc_delta_snapshot_t *s,
                                const char *header)
{
    uc_sharing_caps_t caps = caps_of(pool, header);
    uc_sharing_format_t format;

    return uc_sharing_choose_format(pool, &caps, &s->features, s->metadata,
                                    &format);
}

static json_t *file_line(apr_pool_t *pool, uc_sharing_format_t format,
                         const uc_sharing_caps_t *caps,
                         const uc_delta_file_t *f, apr_int64_t version,
                         apr_int64_t timestamp)
{
    uc_jw_t *jw = uc_jw_make(pool, 256);

    assert_ok(uc_sharing_write_file(jw, pool, format, caps, f, f->stats,
                                    &signer, version, timestamp));
    return line_of(pool, jw);
}

static apr_off_t size_on_disk(apr_pool_t *pool, const char *table,
                              const char *log_path)
{
    apr_finfo_t info;
    const char *path = apr_pstrcat(pool, fixture_dir(pool, table), "/",
                                   uc_percent_decode(pool, log_path), NULL);

    assert_int_equal(apr_stat(&info, path, APR_FINFO_SIZE, pool),
                     APR_SUCCESS);
    return info.size;
}

/* --- capabilities --------------------------------------------------------------- */

static const char *feature(const uc_sharing_caps_t *caps, int i)
{
    assert_true(i < caps->reader_features->nelts);
    return APR_ARRAY_IDX(caps->reader_features, i, const char *);
}

static void test_caps_parse(void **state)
{
    apr_pool_t *pool = *state;
    uc_sharing_caps_t caps;

    assert_ok(uc_sharing_caps_parse(pool, NULL, &caps));
    assert_true(caps.wants_parquet);
    assert_false(caps.wants_delta);
    assert_int_equal(caps.reader_features->nelts, 0);
    assert_false(caps.include_end_stream);

    assert_ok(uc_sharing_caps_parse(pool, " ResponseFormat = Delta , "
                                    "PARQUET ;readerFeatures=DeletionVectors"
                                    ",columnMapping , timestampNtz;"
                                    "includeEndStreamAction=TRUE;"
                                    "asyncQuery=true;noequals;x=y", &caps));
    assert_true(caps.wants_parquet && caps.wants_delta);
    assert_int_equal(caps.reader_features->nelts, 3);
    assert_string_equal(feature(&caps, 0), "deletionvectors");
    assert_string_equal(feature(&caps, 1), "columnmapping");
    assert_string_equal(feature(&caps, 2), "timestampntz");
    assert_true(caps.include_end_stream);
    assert_true(caps.async_query);
    /* An answer never echoes asyncquery: only a queryStatus answer does
     * (uc_sharing_async.c). */
    assert_null(strstr(uc_sharing_caps_answer(pool, UC_SHARING_PARQUET,
                                              &caps), "async"));

    assert_ok(uc_sharing_caps_parse(pool, "responseformat=delta,;"
                                    "includeendstreamaction=false;"
                                    "asyncquery=false", &caps));
    assert_false(caps.wants_parquet);
    assert_true(caps.wants_delta);
    assert_false(caps.include_end_stream);
    assert_false(caps.async_query);

    /* Features alone ask for no format: parquet, as without the header. */
    assert_ok(uc_sharing_caps_parse(pool, "readerfeatures=deletionvectors",
                                    &caps));
    assert_true(caps.wants_parquet);
    assert_false(caps.wants_delta);

    assert_invalid(uc_sharing_caps_parse(pool, "responseformat=csv", &caps));
    assert_invalid(uc_sharing_caps_parse(pool, "responseformat=delta,json",
                                         &caps));
}

static void test_caps_answer(void **state)
{
    apr_pool_t *pool = *state;
    uc_sharing_caps_t caps = caps_of(pool, "responseformat=delta");

    assert_string_equal(uc_sharing_caps_answer(pool, UC_SHARING_DELTA, &caps),
                        "responseformat=delta");
    assert_string_equal(uc_sharing_caps_answer(pool, UC_SHARING_PARQUET,
                                               NULL),
                        "responseformat=parquet");
    caps = caps_of(pool, "responseformat=parquet;includeendstreamaction=true");
    assert_string_equal(uc_sharing_caps_answer(pool, UC_SHARING_PARQUET,
                                               &caps),
                        "responseformat=parquet;includeendstreamaction=true");
}

static void test_fileidhash_parse(void **state)
{
    apr_pool_t *pool = *state;
    uc_sharing_caps_t caps = caps_of(pool, "responseformat=delta");

    assert_null(caps.file_id_hash);
    assert_ok(uc_sharing_fileidhash_parse(pool, "PARQUET", &caps));
    assert_string_equal(caps.file_id_hash, "parquet");
    /* The capabilities header, parsed after it, leaves it alone. */
    assert_ok(uc_sharing_caps_parse(pool, "responseformat=delta", &caps));
    assert_string_equal(caps.file_id_hash, "parquet");
    assert_ok(uc_sharing_fileidhash_parse(pool, "Delta", &caps));
    assert_string_equal(caps.file_id_hash, "delta");
    assert_invalid(uc_sharing_fileidhash_parse(pool, "", &caps));
    assert_invalid(uc_sharing_fileidhash_parse(pool, "md5", &caps));
    assert_invalid(uc_sharing_fileidhash_parse(pool, "parquet,delta", &caps));
}

/* --- parquet format ----------------------------------------------------------------- */

static void assert_parquet_metadata(apr_pool_t *pool, json_t *line,
                                    const uc_delta_snapshot_t *s)
{
    json_t *m = member(line, "metaData");
    json_t *action = uc_json_own(pool, json_loads(s->metadata, 0, NULL));
    json_t *schema = uc_json_own(pool, json_loads(string_member(m,
                                                  "schemaString"), 0, NULL));

    assert_string_equal(string_member(m, "id"),
                        json_string_value(json_object_get(action, "id")));
    assert_string_equal(string_member(member(m, "format"), "provider"),
                        "parquet");
    assert_int_equal(json_object_size(member(m, "format")), 1);
    assert_true(json_is_object(schema));
    assert_true(json_equal(member(m, "partitionColumns"),
                           json_object_get(action, "partitionColumns")));
    assert_true(json_is_object(member(m, "configuration")));
}

static void test_simple_table_parquet(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_snapshot_t *s = snapshot_of(pool, "simple_table",
                                         UC_DELTA_LATEST);
    uc_sharing_format_t format = format_for(pool, s, NULL);
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *line, *m;
    apr_size_t i;

    assert_int_equal(format, UC_SHARING_PARQUET);
    assert_int_equal(format_for(pool, s, "responseformat=delta,parquet"),
                     UC_SHARING_PARQUET);
    assert_ok(uc_sharing_write_protocol(jw, pool, format, s->protocol));
    assert_string_equal(uc_jw_text(jw), "{\"protocol\":{\"minReaderVersion\":1}}");
    line_of(pool, jw);

    assert_ok(uc_sharing_write_metadata(jw, pool, format, s->metadata,
                                        UC_DELTA_NONE, 1, UC_DELTA_NONE,
                                        UC_DELTA_NONE));
    line = line_of(pool, jw);
    assert_parquet_metadata(pool, line, s);
    m = member(line, "metaData");
    assert_int_equal(json_object_size(member(m, "configuration")), 0);
    assert_null(json_object_get(m, "version"));
    assert_null(json_object_get(m, "size"));
    assert_null(json_object_get(m, "numFiles"));

    assert_ok(uc_sharing_write_metadata(jw, pool, format, s->metadata, 4, 0,
                                        1234, 5));
    m = member(line_of(pool, jw), "metaData");
    assert_int_equal(int_member(m, "version"), 4);
    assert_int_equal(int_member(m, "size"), 1234);
    assert_int_equal(int_member(m, "numFiles"), 5);

    assert_true(s->num_files > 0);
    for (i = 0; i < s->num_files; i++) {
        const uc_delta_file_t *f = &s->files[i];
        json_t *file = member(file_line(pool, format, NULL, f, UC_DELTA_NONE,
                                        UC_DELTA_NONE), "file");

        assert_string_equal(string_member(file, "url"),
                            signed_url(pool, f->path));
        assert_string_equal(string_member(file, "id"),
                            hex_digest(pool, f->path, 0));
        assert_true(json_is_object(member(file, "partitionValues")));
        assert_int_equal(int_member(file, "size"),
                         size_on_disk(pool, "simple_table", f->path));
        assert_int_equal(int_member(file, "expirationTimestamp"), EXPIRES);
        assert_null(json_object_get(file, "version"));
        assert_null(json_object_get(file, "timestamp"));
        if (f->stats)
            assert_string_equal(string_member(file, "stats"), f->stats);
    }
    /* A signer whose URLs need no escaping: the same text, written as it
     * is. */
    for (i = 0; i < s->num_files; i++) {
        uc_sharing_signer_t plain = signer;
        uc_jw_t *escaped = uc_jw_make(pool, 256);
        uc_jw_t *as_is = uc_jw_make(pool, 256);

        plain.plain_urls = 1;
        assert_ok(uc_sharing_write_file(escaped, pool, format, NULL,
                                        &s->files[i], s->files[i].stats,
                                        &signer, UC_DELTA_NONE, UC_DELTA_NONE));
        assert_ok(uc_sharing_write_file(as_is, pool, format, NULL,
                                        &s->files[i], s->files[i].stats,
                                        &plain, UC_DELTA_NONE, UC_DELTA_NONE));
        assert_string_equal(uc_jw_text(as_is), uc_jw_text(escaped));
    }
}

/* Ids hash the log's path: the same file has the same id in every
 * snapshot it belongs to, and fileidhash picks the hash. */
static void test_ids_stable(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_snapshot_t *a = snapshot_of(pool, "simple_table", 4);
    uc_delta_snapshot_t *b = snapshot_of(pool, "simple_table", 4);
    uc_delta_snapshot_t *old = snapshot_of(pool, "simple_table", 3);
    uc_sharing_caps_t caps = caps_of(pool, NULL);
    apr_size_t i, j, common = 0;

    assert_int_equal(a->num_files, b->num_files);
    for (i = 0; i < a->num_files; i++) {
        json_t *fa = member(file_line(pool, UC_SHARING_PARQUET, NULL,
                                      &a->files[i], 4, a->timestamp), "file");
        json_t *fb = member(file_line(pool, UC_SHARING_PARQUET, NULL,
                                      &b->files[i], 4, b->timestamp), "file");

        assert_true(json_equal(fa, fb));
        assert_int_equal(strlen(string_member(fa, "id")), 32);
        assert_int_equal(int_member(fa, "version"), 4);
        assert_int_equal(int_member(fa, "timestamp"), a->timestamp);
        for (j = 0; j < old->num_files; j++) {
            if (strcmp(old->files[j].path, a->files[i].path) != 0)
                continue;
            common++;
            assert_string_equal(string_member(member(file_line(pool,
                                    UC_SHARING_PARQUET, NULL, &old->files[j],
                                    3, old->timestamp), "file"), "id"),
                                string_member(fa, "id"));
        }
    }
    assert_true(common > 0);

    assert_ok(uc_sharing_fileidhash_parse(pool, "delta", &caps));
    assert_string_equal(string_member(member(file_line(pool,
                            UC_SHARING_PARQUET, &caps, &a->files[0],
                            UC_DELTA_NONE, UC_DELTA_NONE), "file"), "id"),
                        hex_digest(pool, a->files[0].path, 1));
    assert_ok(uc_sharing_fileidhash_parse(pool, "parquet", &caps));
    assert_string_equal(string_member(member(file_line(pool,
                            UC_SHARING_DELTA, &caps, &a->files[0],
                            UC_DELTA_NONE, UC_DELTA_NONE), "file"), "id"),
                        hex_digest(pool, a->files[0].path, 0));
}

/* --- deletion vectors ------------------------------------------------------------- */

#define DV_FILE "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"

static void test_dv_table_refuses_parquet(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_snapshot_t *s = snapshot_of(pool, "table-with-dv-small",
                                         UC_DELTA_LATEST);
    uc_sharing_caps_t caps = caps_of(pool, "responseformat=parquet;"
                                     "readerfeatures=deletionvectors");
    uc_jw_t *jw = uc_jw_make(pool, 256);
    uc_error_t *err;

    err = format_error(pool, s, NULL);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "deletionVectors");
    /* Both formats but no feature listed: delta, which needs the list. */
    err = format_error(pool, s, "responseformat=delta,parquet");
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "deletionVectors");
    assert_int_equal(format_for(pool, s, "responseformat=parquet,delta;"
                                "readerfeatures=deletionvectors"),
                     UC_SHARING_DELTA);
    /* A parquet client that says it copes: the file with a DV still
     * cannot go as a plain URL, and nothing of the line is written. */
    assert_int_equal(format_for(pool, s, "responseformat=parquet;"
                                "readerfeatures=deletionvectors"),
                     UC_SHARING_PARQUET);
    assert_int_equal(s->num_files, 1);
    err = uc_sharing_write_file(jw, pool, UC_SHARING_PARQUET, &caps,
                                &s->files[0], NULL, &signer, UC_DELTA_NONE,
                                UC_DELTA_NONE);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "deletion vector");
    assert_int_equal(jw->len, 0);
}

static void test_dv_table_delta(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_snapshot_t *s = snapshot_of(pool, "table-with-dv-small",
                                         UC_DELTA_LATEST);
    const char *header = "responseformat=delta;readerfeatures=deletionvectors";
    uc_sharing_caps_t caps = caps_of(pool, header);
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *p, *m, *file, *add, *dv;
    const uc_delta_file_t *f = &s->files[0];

    assert_int_equal(format_for(pool, s, header), UC_SHARING_DELTA);
    assert_ok(uc_sharing_write_protocol(jw, pool, UC_SHARING_DELTA,
                                        s->protocol));
    p = member(member(line_of(pool, jw), "protocol"), "deltaProtocol");
    assert_int_equal(int_member(p, "minReaderVersion"), 3);
    assert_int_equal(int_member(p, "minWriterVersion"), 7);
    assert_string_equal(json_string_value(json_array_get(member(p,
                            "readerFeatures"), 0)), "deletionVectors");

    assert_ok(uc_sharing_write_metadata(jw, pool, UC_SHARING_DELTA,
                                        s->metadata, 1, 1, UC_DELTA_NONE,
                                        UC_DELTA_NONE));
    m = member(line_of(pool, jw), "metaData");
    assert_true(json_equal(member(m, "deltaMetadata"),
                           uc_json_own(pool, json_loads(s->metadata, 0,
                                                        NULL))));
    assert_int_equal(int_member(m, "version"), 1);

    file = member(file_line(pool, UC_SHARING_DELTA, &caps, f, UC_DELTA_NONE,
                            UC_DELTA_NONE), "file");
    assert_string_equal(string_member(file, "id"),
                        hex_digest(pool, f->path, 1));
    assert_string_equal(string_member(file, "deletionVectorFileId"),
                        hex_digest(pool, DV_FILE, 1));
    assert_int_equal(int_member(file, "expirationTimestamp"), EXPIRES);
    add = member(member(file, "deltaSingleAction"), "add");
    assert_string_equal(string_member(add, "path"), signed_url(pool, f->path));
    assert_int_equal(int_member(add, "size"),
                     size_on_disk(pool, "table-with-dv-small", f->path));
    assert_int_equal(int_member(add, "modificationTime"), 1677811178336LL);
    assert_true(json_is_true(member(add, "dataChange")));
    assert_true(json_is_object(member(add, "partitionValues")));
    assert_null(json_object_get(add, "tags"));
    dv = member(add, "deletionVector");
    assert_string_equal(string_member(dv, "storageType"), "p");
    assert_string_equal(string_member(dv, "pathOrInlineDv"),
                        signed_url(pool, DV_FILE));
    assert_int_equal(int_member(dv, "offset"), 1);
    assert_int_equal(int_member(dv, "sizeInBytes"), 36);
    assert_int_equal(int_member(dv, "cardinality"), 2);
    assert_int_equal(json_object_size(dv), 5);
    /* The file the descriptor names is the one beside the table. */
    assert_true(size_on_disk(pool, "table-with-dv-small", DV_FILE) >= 37);
}

/* DVs a checkpoint lists: each descriptor names a file beside the table,
 * and each file its own id. */
static void test_dv_files_from_checkpoint(void **state)
{
    apr_pool_t *pool = *state;
    const char *name = "dv-partitioned-with-checkpoint";
    uc_delta_snapshot_t *s = snapshot_of(pool, name, UC_DELTA_LATEST);
    uc_sharing_caps_t caps = caps_of(pool, "responseformat=delta;"
                                     "readerfeatures=deletionvectors");
    apr_size_t prefix = strlen(signed_url(pool, "")) - strlen("?sig=x");
    apr_hash_t *ids = apr_hash_make(pool);
    apr_size_t i, with_dv = 0;

    assert_true(s->checkpoint_version >= 0);
    for (i = 0; i < s->num_files; i++) {
        json_t *file = member(file_line(pool, UC_SHARING_DELTA, &caps,
                                        &s->files[i], UC_DELTA_NONE,
                                        UC_DELTA_NONE), "file");
        json_t *dv = json_object_get(member(member(file, "deltaSingleAction"),
                                            "add"), "deletionVector");
        const char *url, *path;

        apr_hash_set(ids, string_member(file, "id"), APR_HASH_KEY_STRING,
                     "");
        if (!dv)
            continue;
        with_dv++;
        url = string_member(dv, "pathOrInlineDv");
        path = apr_pstrndup(pool, url + prefix,
                            strlen(url) - prefix - strlen("?sig=x"));
        assert_string_equal(string_member(file, "deletionVectorFileId"),
                            hex_digest(pool, path, 1));
        assert_true(size_on_disk(pool, name, path)
                    >= int_member(dv, "sizeInBytes"));
    }
    assert_true(with_dv > 0);
    assert_int_equal(apr_hash_count(ids), s->num_files);
}

/* Descriptors the fixtures lack: inline, with a prefix, absolute, bad. */
static void test_dv_kinds(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_file_extras_t x = { NULL, NULL, NULL, UC_DELTA_NONE,
                                 UC_DELTA_NONE };
    uc_delta_file_t f = { "a%20b.parquet", "{\"p\":null}", NULL, &x, 10, 20,
                          NULL, 0 };
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *file, *add;
    uc_error_t *err;

    x.deletion_vector = "{\"storageType\":\"i\",\"pathOrInlineDv\":"
                        "\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L\","
                        "\"sizeInBytes\":40,\"cardinality\":6}";
    file = member(file_line(pool, UC_SHARING_DELTA, NULL, &f, 3, 30), "file");
    add = member(member(file, "deltaSingleAction"), "add");
    assert_true(json_equal(member(add, "deletionVector"),
                           uc_json_own(pool, json_loads(x.deletion_vector, 0,
                                                        NULL))));
    assert_null(json_object_get(file, "deletionVectorFileId"));
    assert_int_equal(int_member(file, "version"), 3);
    assert_int_equal(int_member(file, "timestamp"), 30);
    assert_true(json_is_null(member(member(add, "partitionValues"), "p")));
    assert_string_equal(string_member(add, "path"),
                        "https://files.test/t/a%20b.parquet?sig=x");

    x.deletion_vector = "{\"storageType\":\"u\",\"pathOrInlineDv\":"
                        "\"ab vBn[lx{q8@P<9BNH/isA\",\"offset\":1,"
                        "\"sizeInBytes\":36,\"cardinality\":2}";
    add = member(member(member(file_line(pool, UC_SHARING_DELTA, NULL, &f,
                                         UC_DELTA_NONE, UC_DELTA_NONE),
                                "file"), "deltaSingleAction"), "add");
    assert_string_equal(string_member(member(add, "deletionVector"),
                                      "pathOrInlineDv"),
                        signed_url(pool, "ab%20/" DV_FILE));

    x.deletion_vector = "{\"storageType\":\"p\",\"pathOrInlineDv\":"
                        "\"s3://bucket/t/dv.bin\",\"offset\":1,"
                        "\"sizeInBytes\":36,\"cardinality\":2}";
    err = uc_sharing_write_file(jw, pool, UC_SHARING_DELTA, NULL, &f, NULL,
                                &signer, UC_DELTA_NONE, UC_DELTA_NONE);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "absolute paths cannot be shared");

    x.deletion_vector = "{\"storageType\":\"u\",\"pathOrInlineDv\":"
                        "\"short\",\"sizeInBytes\":36,\"cardinality\":2}";
    assert_err(uc_sharing_write_file(jw, pool, UC_SHARING_DELTA, NULL, &f,
                                     NULL, &signer, UC_DELTA_NONE,
                                     UC_DELTA_NONE),
               400, "MALFORMED_DELTA_LOG");
    x.deletion_vector = "{\"storageType\":\"u\",\"pathOrInlineDv\":"
                        "\"~~~~~~~~~~~~~~~~~~~~\",\"cardinality\":2}";
    assert_err(uc_sharing_write_file(jw, pool, UC_SHARING_DELTA, NULL, &f,
                                     NULL, &signer, UC_DELTA_NONE,
                                     UC_DELTA_NONE),
               400, "MALFORMED_DELTA_LOG");
    /* "%%%%%" is above 2^32 - 1. */
    x.deletion_vector = "{\"storageType\":\"u\",\"pathOrInlineDv\":"
                        "\"#####000000000000000\",\"cardinality\":2}";
    assert_err(uc_sharing_write_file(jw, pool, UC_SHARING_DELTA, NULL, &f,
                                     NULL, &signer, UC_DELTA_NONE,
                                     UC_DELTA_NONE),
               400, "MALFORMED_DELTA_LOG");
    assert_int_equal(jw->len, 0);
}

static void test_absolute_paths_refused(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const paths[] = {
        "s3://bucket/t/part-0.parquet", "file:///t/part-0.parquet",
        "/t/part-0.parquet", "abfss://c@a.dfs.core.windows.net/p.parquet",
        NULL
    };
    const char *const *p;
    uc_jw_t *jw = uc_jw_make(pool, 256);
    int before = signed_count;

    for (p = paths; *p; p++) {
        uc_delta_file_t f = { *p, "{}", NULL, NULL, 10, 20, NULL, 0 };
        uc_error_t *err = uc_sharing_write_file(jw, pool, UC_SHARING_PARQUET,
                                                NULL, &f, NULL, &signer,
                                                UC_DELTA_NONE, UC_DELTA_NONE);

        assert_err(err, 400, "UNSUPPORTED_OPERATION");
        assert_contains(err->message, "absolute paths cannot be shared");
    }
    assert_int_equal(signed_count, before);
    assert_int_equal(jw->len, 0);
    /* A colon further on is part of a relative name. */
    {
        uc_delta_file_t f = { "ts=2021-01-01 00%3A00/x:y.parquet", "{}",
                              NULL, NULL, 10, 20, NULL, 0 };

        file_line(pool, UC_SHARING_PARQUET, NULL, &f, UC_DELTA_NONE,
                  UC_DELTA_NONE);
    }
}

/* --- URLs signed ahead --------------------------------------------------------------- */

static uc_error_t *test_sign2(void *baton, apr_pool_t *pool,
                              const char *const log_path[2],
                              const apr_size_t path_len[2], const char *url[2],
                              apr_size_t url_len[2])
{
    int k;

    for (k = 0; k < 2; k++)
        assert_ok(test_sign(baton, pool, log_path[k], path_len[k], &url[k],
                            &url_len[k]));
    return NULL;
}

/* The text of file `i`'s line of `s`, its URL signed by the writer
 * (`url` NULL) or ahead. */
static const char *snapshot_line(apr_pool_t *pool, uc_sharing_format_t format,
                                 const uc_sharing_caps_t *caps,
                                 const uc_delta_snapshot_t *s, apr_size_t i,
                                 const uc_sharing_url_t *url)
{
    uc_jw_t *jw = uc_jw_make(pool, 256);
    uc_delta_stats_text_t stats = uc_delta_stats_text_of(s->files[i].stats);

    assert_ok(uc_sharing_write_snapshot_file(jw, pool, format, caps, s, i,
                                             &stats, url, &signer,
                                             s->version, UC_DELTA_NONE));
    return apr_pstrmemdup(pool, jw->buf, jw->len);
}

/* URLs signed ahead, two at once or one by one, give the lines the
 * writer signs itself, each URL counted once; a pair with a path no line
 * could name is refused as that line is. */
static void test_signed_ahead(void **state)
{
    apr_pool_t *pool = *state;
    static const struct {
        const char *table, *header;
    } cases[] = {
        { "simple_table", NULL },
        { "dv-partitioned-with-checkpoint", "responseformat=delta;"
                                            "readerfeatures=deletionvectors" },
    };
    uc_sharing_signer_t signers[2];
    apr_uint64_t tally = 0, pairs = 0;
    uc_sharing_url_t url[2];
    size_t c, i, k, n;

    signers[0] = signers[1] = signer;
    signers[1].sign2 = test_sign2;
    signers[0].tally = signers[1].tally = &tally;
    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        uc_delta_snapshot_t *s = snapshot_of(pool, cases[c].table,
                                             UC_DELTA_LATEST);
        uc_sharing_caps_t caps = caps_of(pool, cases[c].header);
        uc_sharing_format_t format;

        assert_ok(uc_sharing_choose_format(pool, &caps, &s->features,
                                           s->metadata, &format));
        assert_true(s->num_files >= 2);
        for (i = 0; i + 1 < s->num_files; i++, pairs++)
            for (n = 0; n < 2; n++) {
                const apr_size_t pair[2] = { i + 1, i };

                assert_ok(uc_sharing_lines_sign_files(pool, &signers[n], s,
                                                      pair, url));
                for (k = 0; k < 2; k++)
                    assert_string_equal(
                        snapshot_line(pool, format, &caps, s, pair[k],
                                      &url[k]),
                        snapshot_line(pool, format, &caps, s, pair[k], NULL));
            }
    }
    assert_int_equal(tally, 4 * pairs);
    {
        uc_delta_file_t files[] = {
            { "a.parquet", "{}", NULL, NULL, 10, 20, NULL, 0 },
            { "s3://bucket/t/b.parquet", "{}", NULL, NULL, 10, 20, NULL, 0 },
            { "", "{}", NULL, NULL, 10, 20, NULL, 0 },
        };
        uc_delta_snapshot_t s = { 0 };
        const apr_size_t absolute[2] = { 0, 1 }, empty[2] = { 2, 0 };

        s.files = files;
        s.num_files = 3;
        for (n = 0; n < 2; n++) {
            uc_error_t *err = uc_sharing_lines_sign_files(
                pool, &signers[n], &s, absolute, url);

            assert_err(err, 400, "UNSUPPORTED_OPERATION");
            assert_contains(err->message, "absolute paths cannot be shared");
            assert_err(uc_sharing_lines_sign_files(pool, &signers[n], &s,
                                                   empty, url),
                       400, "MALFORMED_DELTA_LOG");
        }
    }
}

/* --- column mapping, v2 checkpoints ------------------------------------------------ */

static void test_column_mapping(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_snapshot_t *s = snapshot_of(pool, "table_with_column_mapping",
                                         UC_DELTA_LATEST);
    const char *header = "responseformat=delta;readerfeatures=columnmapping";
    uc_sharing_caps_t caps = caps_of(pool, header);
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *p, *schema, *field;
    uc_error_t *err;
    apr_size_t i;
    size_t k;

    err = format_error(pool, s, NULL);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "columnMapping");
    err = format_error(pool, s, "responseformat=delta");
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "columnMapping");
    assert_int_equal(format_for(pool, s, header), UC_SHARING_DELTA);
    assert_int_equal(format_for(pool, s, "responseformat=delta,parquet;"
                                "readerfeatures=columnmapping"),
                     UC_SHARING_DELTA);

    assert_ok(uc_sharing_write_protocol(jw, pool, UC_SHARING_DELTA,
                                        s->protocol));
    p = member(member(line_of(pool, jw), "protocol"), "deltaProtocol");
    assert_int_equal(int_member(p, "minReaderVersion"), 2);
    assert_null(json_object_get(p, "readerFeatures"));
    for (i = 0; i < s->num_files; i++) {
        json_t *add = member(member(member(file_line(pool, UC_SHARING_DELTA,
                                &caps, &s->files[i], UC_DELTA_NONE,
                                UC_DELTA_NONE), "file"), "deltaSingleAction"),
                             "add");

        assert_true(json_is_string(member(member(add, "partitionValues"),
                    "col-173b4db9-b5ad-427f-9e75-516aae37fbbb")));
        assert_int_equal(int_member(add, "size"),
                         size_on_disk(pool, "table_with_column_mapping",
                                      s->files[i].path));
    }

    /* A parquet client that copes with physical names: the shared schema
     * keeps no column-mapping metadata at the top level. */
    assert_int_equal(format_for(pool, s, "readerfeatures=columnmapping"),
                     UC_SHARING_PARQUET);
    assert_ok(uc_sharing_write_metadata(jw, pool, UC_SHARING_PARQUET,
                                        s->metadata, UC_DELTA_NONE, 0,
                                        UC_DELTA_NONE, UC_DELTA_NONE));
    schema = uc_json_own(pool, json_loads(string_member(member(line_of(pool,
                             jw), "metaData"), "schemaString"), 0, NULL));
    assert_int_equal(json_array_size(member(schema, "fields")), 2);
    json_array_foreach(member(schema, "fields"), k, field)
        assert_int_equal(json_object_size(member(field, "metadata")), 0);
}

static void test_schema_keeps_comments(void **state)
{
    apr_pool_t *pool = *state;
    const char *metadata =
        "{\"id\":\"m1\",\"name\":\"t\",\"description\":\"d\","
        "\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
        "{\\\"name\\\":\\\"a\\\",\\\"type\\\":{\\\"type\\\":\\\"struct\\\","
        "\\\"fields\\\":[{\\\"name\\\":\\\"b\\\",\\\"type\\\":\\\"long\\\","
        "\\\"nullable\\\":true,\\\"metadata\\\":{\\\"x\\\":1}}]},"
        "\\\"nullable\\\":true,\\\"metadata\\\":{\\\"comment\\\":\\\"c\\\","
        "\\\"delta.identity.start\\\":1}}]}\","
        "\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}";
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *m, *schema, *field;

    assert_ok(uc_sharing_write_metadata(jw, pool, UC_SHARING_PARQUET,
                                        metadata, UC_DELTA_NONE, 1,
                                        UC_DELTA_NONE, UC_DELTA_NONE));
    m = member(line_of(pool, jw), "metaData");
    assert_string_equal(string_member(m, "name"), "t");
    assert_string_equal(string_member(m, "description"), "d");
    assert_null(json_object_get(m, "createdTime"));
    schema = uc_json_own(pool, json_loads(string_member(m, "schemaString"), 0,
                                          NULL));
    field = json_array_get(member(schema, "fields"), 0);
    assert_int_equal(json_object_size(member(field, "metadata")), 1);
    assert_string_equal(string_member(member(field, "metadata"), "comment"),
                        "c");
    /* Nested fields keep theirs. */
    assert_int_equal(int_member(member(json_array_get(member(member(field,
                         "type"), "fields"), 0), "metadata"), "x"), 1);
    assert_err(uc_sharing_write_metadata(jw, pool, UC_SHARING_PARQUET,
                                         "{\"id\":\"m\",\"schemaString\":"
                                         "\"nope\"}", UC_DELTA_NONE, 0,
                                         UC_DELTA_NONE, UC_DELTA_NONE),
               400, "MALFORMED_DELTA_LOG");
    assert_int_equal(jw->len, 0);
}

static void test_v2_checkpoint_delta(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_snapshot_t *s = snapshot_of(pool, "v2-checkpoint-json",
                                         UC_DELTA_LATEST);
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *p;

    assert_int_equal(s->features.min_reader_version, 3);
    assert_int_equal(format_for(pool, s, "responseformat=delta"),
                     UC_SHARING_DELTA);
    assert_int_equal(format_for(pool, s, "responseformat=delta,parquet"),
                     UC_SHARING_DELTA);
    assert_int_equal(format_for(pool, s, NULL), UC_SHARING_PARQUET);
    assert_ok(uc_sharing_write_protocol(jw, pool, UC_SHARING_DELTA,
                                        s->protocol));
    p = member(member(line_of(pool, jw), "protocol"), "deltaProtocol");
    assert_string_equal(json_string_value(json_array_get(member(p,
                            "readerFeatures"), 0)), "v2Checkpoint");
    assert_ok(uc_sharing_write_protocol(jw, pool, UC_SHARING_PARQUET,
                                        s->protocol));
    assert_int_equal(int_member(member(line_of(pool, jw), "protocol"),
                                "minReaderVersion"), 1);
    assert_ok(uc_sharing_write_protocol_at(jw, pool, UC_SHARING_DELTA,
                                           s->protocol, 2));
    assert_int_equal(int_member(member(line_of(pool, jw), "protocol"),
                                "version"), 2);
}

/* An unknown reader feature the client did not list is named. */
static void test_delta_names_missing_features(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_features_t f;
    uc_sharing_caps_t caps = caps_of(pool, "responseformat=delta;"
                                     "readerfeatures=timestampntz");
    uc_sharing_format_t format;
    uc_error_t *err;

    memset(&f, 0, sizeof(f));
    f.min_reader_version = 3;
    f.min_writer_version = 7;
    f.column_mapping = "none";
    f.reader_features = apr_array_make(pool, 4, sizeof(const char *));
    APR_ARRAY_PUSH(f.reader_features, const char *) = "timestampNtz";
    APR_ARRAY_PUSH(f.reader_features, const char *) = "vacuumProtocolCheck";
    APR_ARRAY_PUSH(f.reader_features, const char *) = "typeWidening";
    APR_ARRAY_PUSH(f.reader_features, const char *) = "variantType";
    err = uc_sharing_choose_format(pool, &caps, &f, "{\"configuration\":{}}",
                                   &format);
    assert_err(err, 400, "UNSUPPORTED_OPERATION");
    assert_contains(err->message, "typeWidening,variantType");
    assert_null(strstr(err->message, "timestampNtz"));
    assert_null(strstr(err->message, "vacuumProtocolCheck"));
    /* DVs off by the property: parquet is fine. */
    caps = caps_of(pool, "responseformat=parquet");
    assert_ok(uc_sharing_choose_format(pool, &caps, &f, "{\"configuration\":"
                                       "{\"delta.enableDeletionVectors\":"
                                       "\"FALSE\"}}", &format));
    assert_int_equal(format, UC_SHARING_PARQUET);
}

/* --- changes -------------------------------------------------------------------------- */

static uc_delta_changes_t *cdf_changes(apr_pool_t *pool)
{
    uc_delta_changes_t *changes;

    assert_ok(uc_delta_changes(table_of(pool, "cdf-table"), pool, 0,
                               UC_DELTA_LATEST, &changes));
    assert_true(changes->changes->nelts > 0);
    return changes;
}

static void test_cdf_parquet(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_changes_t *changes = cdf_changes(pool);
    uc_jw_t *jw = uc_jw_make(pool, 256);
    int i, adds = 0, cdfs = 0;
    json_t *m;

    assert_ok(uc_sharing_write_metadata(jw, pool, UC_SHARING_PARQUET,
                                        changes->metadata, 0, 1,
                                        UC_DELTA_NONE, UC_DELTA_NONE));
    m = member(line_of(pool, jw), "metaData");
    assert_string_equal(string_member(member(m, "configuration"),
                                      "enableChangeDataFeed"), "true");
    assert_int_equal(json_object_size(member(m, "configuration")), 1);
    assert_int_equal(int_member(m, "version"), 0);

    for (i = 0; i < changes->changes->nelts; i++) {
        const uc_delta_change_t *c = &APR_ARRAY_IDX(changes->changes, i,
                                                    uc_delta_change_t);
        const char *key = c->kind == UC_DELTA_CHANGE_ADD ? "add"
            : c->kind == UC_DELTA_CHANGE_CDC ? "cdf" : "remove";
        json_t *line, *v;

        assert_ok(uc_sharing_write_change(jw, pool, UC_SHARING_PARQUET, NULL,
                                          c, &signer));
        line = line_of(pool, jw);
        v = member(line, key);
        assert_string_equal(string_member(v, "url"), signed_url(pool, c->path));
        assert_string_equal(string_member(v, "id"),
                            hex_digest(pool, c->path, 0));
        assert_true(json_is_object(member(v, "partitionValues")));
        assert_int_equal(int_member(v, "size"),
                         size_on_disk(pool, "cdf-table", c->path));
        assert_int_equal(int_member(v, "version"), c->version);
        assert_int_equal(int_member(v, "timestamp"), c->timestamp);
        assert_int_equal(int_member(v, "expirationTimestamp"), EXPIRES);
        if (c->kind == UC_DELTA_CHANGE_ADD) {
            adds++;
            assert_int_equal(c->version, 0);
            assert_true(json_is_string(member(v, "stats")));
        }
        else {
            cdfs += c->kind == UC_DELTA_CHANGE_CDC;
            assert_null(json_object_get(v, "stats"));
        }
    }
    assert_int_equal(adds, 10);
    assert_int_equal(cdfs, 13);
}

static void test_cdf_delta(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_changes_t *changes = cdf_changes(pool);
    uc_jw_t *jw = uc_jw_make(pool, 256);
    int i;

    for (i = 0; i < changes->changes->nelts; i++) {
        const uc_delta_change_t *c = &APR_ARRAY_IDX(changes->changes, i,
                                                    uc_delta_change_t);
        json_t *file, *action;

        assert_ok(uc_sharing_write_change(jw, pool, UC_SHARING_DELTA, NULL,
                                          c, &signer));
        file = member(line_of(pool, jw), "file");
        assert_string_equal(string_member(file, "id"),
                            hex_digest(pool, c->path, 1));
        assert_int_equal(int_member(file, "version"), c->version);
        assert_int_equal(int_member(file, "timestamp"), c->timestamp);
        assert_int_equal(int_member(file, "expirationTimestamp"), EXPIRES);
        assert_int_equal(json_object_size(member(file, "deltaSingleAction")),
                         1);
        action = json_object_get(member(file, "deltaSingleAction"),
                                 c->kind == UC_DELTA_CHANGE_ADD ? "add"
                                 : c->kind == UC_DELTA_CHANGE_CDC ? "cdc"
                                 : "remove");
        assert_non_null(action);
        assert_string_equal(string_member(action, "path"),
                            signed_url(pool, c->path));
        assert_int_equal(int_member(action, "size"), c->size);
        assert_true(json_is_object(member(action, "partitionValues")));
        assert_true(json_is_boolean(member(action, "dataChange")));
        assert_int_equal(json_is_true(member(action, "dataChange")),
                         c->kind != UC_DELTA_CHANGE_CDC);
        if (c->kind == UC_DELTA_CHANGE_ADD)
            assert_int_equal(int_member(action, "modificationTime"),
                             c->timestamp);
    }
}

static void test_remove_changes(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_change_t c = { UC_DELTA_CHANGE_REMOVE, 3, 1704559499570LL,
                            "birthday=2023-12-29/part-00000-1ca113cd.parquet",
                            "{\"birthday\":\"2023-12-29\"}", 917,
                            "{\"numRecords\":1}", NULL };
    uc_jw_t *jw = uc_jw_make(pool, 256);
    json_t *v;
    uc_error_t *err;

    assert_ok(uc_sharing_write_change(jw, pool, UC_SHARING_PARQUET, NULL, &c,
                                      &signer));
    v = member(line_of(pool, jw), "remove");
    assert_int_equal(int_member(v, "size"), 917);
    assert_int_equal(int_member(v, "version"), 3);
    assert_int_equal(int_member(v, "timestamp"), 1704559499570LL);
    assert_string_equal(string_member(member(v, "partitionValues"),
                                      "birthday"), "2023-12-29");
    assert_null(json_object_get(v, "stats"));

    assert_ok(uc_sharing_write_change(jw, pool, UC_SHARING_DELTA, NULL, &c,
                                      &signer));
    v = member(member(member(line_of(pool, jw), "file"), "deltaSingleAction"),
               "remove");
    assert_int_equal(int_member(v, "deletionTimestamp"), 1704559499570LL);
    assert_true(json_is_true(member(v, "dataChange")));
    assert_true(json_is_true(member(v, "extendedFileMetadata")));
    assert_int_equal(int_member(v, "size"), 917);

    c.size = UC_DELTA_NONE;
    err = uc_sharing_write_change(jw, pool, UC_SHARING_PARQUET, NULL, &c,
                                  &signer);
    assert_err(err, 400, NULL);
    assert_contains(err->message, "no size");
    assert_int_equal(jw->len, 0);

    c.size = 917;
    c.deletion_vector = "{\"storageType\":\"u\",\"pathOrInlineDv\":"
                        "\"vBn[lx{q8@P<9BNH/isA\",\"offset\":1,"
                        "\"sizeInBytes\":36,\"cardinality\":2}";
    assert_err(uc_sharing_write_change(jw, pool, UC_SHARING_PARQUET, NULL, &c,
                                       &signer), 400, "UNSUPPORTED_OPERATION");
    assert_ok(uc_sharing_write_change(jw, pool, UC_SHARING_DELTA, NULL, &c,
                                      &signer));
    v = member(line_of(pool, jw), "file");
    assert_string_equal(string_member(v, "deletionVectorFileId"),
                        hex_digest(pool, DV_FILE, 1));
    assert_string_equal(string_member(member(member(member(v,
                            "deltaSingleAction"), "remove"), "deletionVector"),
                            "storageType"), "p");
}

/* --- the end, and determinism -------------------------------------------------------- */

static void test_end_stream(void **state)
{
    apr_pool_t *pool = *state;
    uc_jw_t *jw = uc_jw_make(pool, 64);
    json_t *e;

    assert_ok(uc_sharing_write_end_stream(jw, "next\"1", "refresh", EXPIRES));
    e = member(line_of(pool, jw), "endStreamAction");
    assert_string_equal(string_member(e, "nextPageToken"), "next\"1");
    assert_string_equal(string_member(e, "refreshToken"), "refresh");
    assert_int_equal(int_member(e, "minUrlExpirationTimestamp"), EXPIRES);
    assert_int_equal(json_object_size(e), 3);

    assert_ok(uc_sharing_write_end_stream(jw, NULL, NULL, UC_DELTA_NONE));
    assert_string_equal(uc_jw_text(jw), "{\"endStreamAction\":{}}");
    uc_jw_reset(jw);
    assert_ok(uc_sharing_write_end_stream(jw, NULL, NULL, 5));
    assert_string_equal(uc_jw_text(jw),
                        "{\"endStreamAction\":{\"minUrlExpirationTimestamp\":5}}");
}

/* A whole answer as the route writes it: protocol, metaData, files. */
static const char *answer(apr_pool_t *pool, const char *name,
                          const char *header)
{
    uc_delta_snapshot_t *s = snapshot_of(pool, name, UC_DELTA_LATEST);
    uc_sharing_caps_t caps = caps_of(pool, header);
    uc_sharing_format_t format;
    uc_jw_t *jw = uc_jw_make(pool, 1024);
    apr_size_t i;

    assert_ok(uc_sharing_choose_format(pool, &caps, &s->features, s->metadata,
                                       &format));
    assert_ok(uc_sharing_write_protocol(jw, pool, format, s->protocol));
    uc_jw_newline(jw);
    assert_ok(uc_sharing_write_metadata(jw, pool, format, s->metadata,
                                        s->version, 1, UC_DELTA_NONE,
                                        UC_DELTA_NONE));
    uc_jw_newline(jw);
    for (i = 0; i < s->num_files; i++) {
        assert_ok(uc_sharing_write_file(jw, pool, format, &caps, &s->files[i],
                                        s->files[i].stats, &signer,
                                        s->version, s->timestamp));
        uc_jw_newline(jw);
    }
    return apr_pstrmemdup(pool, jw->buf, jw->len);
}

static void test_deterministic(void **state)
{
    apr_pool_t *pool = *state;
    static const struct {
        const char *table, *header;
    } cases[] = {
        { "simple_table", NULL },
        { "cdf-table", "responseformat=delta" },
        { "table-with-dv-small", "responseformat=delta,parquet;"
                                 "readerfeatures=deletionvectors" },
        { "table_with_column_mapping", "responseformat=delta;"
                                       "readerfeatures=columnmapping" },
        { "v2-checkpoint-parquet", "responseformat=delta" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        apr_pool_t *a, *b;
        const char *first, *second;

        apr_pool_create(&a, pool);
        apr_pool_create(&b, pool);
        first = answer(a, cases[i].table, cases[i].header);
        second = answer(b, cases[i].table, cases[i].header);
        assert_true(strlen(first) > 100);
        assert_string_equal(first, second);
        apr_pool_destroy(a);
        apr_pool_destroy(b);
    }
}

static const struct CMUnitTest tests[] = {
    UC_POOL_TEST(test_caps_parse),
    UC_POOL_TEST(test_caps_answer),
    UC_POOL_TEST(test_fileidhash_parse),
    UC_POOL_TEST(test_simple_table_parquet),
    UC_POOL_TEST(test_ids_stable),
    UC_POOL_TEST(test_dv_table_refuses_parquet),
    UC_POOL_TEST(test_dv_table_delta),
    UC_POOL_TEST(test_dv_files_from_checkpoint),
    UC_POOL_TEST(test_dv_kinds),
    UC_POOL_TEST(test_absolute_paths_refused),
    UC_POOL_TEST(test_signed_ahead),
    UC_POOL_TEST(test_column_mapping),
    UC_POOL_TEST(test_schema_keeps_comments),
    UC_POOL_TEST(test_v2_checkpoint_delta),
    UC_POOL_TEST(test_delta_names_missing_features),
    UC_POOL_TEST(test_cdf_parquet),
    UC_POOL_TEST(test_cdf_delta),
    UC_POOL_TEST(test_remove_changes),
    UC_POOL_TEST(test_end_stream),
    UC_POOL_TEST(test_deterministic),
};

int main(void)
{
    int rc;

    uc_test_init();
    uc_test_init_reader();
    uc_sharing_signer_expire(&signer, EXPIRES);
    rc = cmocka_run_group_tests_name("sharing_lines", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
