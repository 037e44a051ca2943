/* SPDX-License-Identifier: Apache-2.0 */
/* The objects of a schema end to end without httpd: tables (staging,
 * managed, external, views, columns, summaries, existence), volumes,
 * functions, registered models and versions, agents and agent skills, and
 * what they do to their schema and catalog (not empty, force, renames).
 * The caller is a metastore admin unless a test says otherwise. */
#include "uc_api_fixture.h"

#define IN_SCH "\"catalog_name\":\"cat\",\"schema_name\":\"sch\""
#define FUNCTION_FIELDS \
    "\"data_type\":\"INT\",\"full_data_type\":\"int\"," \
    "\"parameter_style\":\"S\",\"is_deterministic\":true," \
    "\"sql_data_access\":\"NO_SQL\",\"is_null_call\":false," \
    "\"security_type\":\"DEFINER\",\"routine_body\":\"SQL\""

static json_t *post(afx_t *fx, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static json_t *post(afx_t *fx, const char *path, const char *fmt, ...)
{
    va_list ap;
    const char *body;

    va_start(ap, fmt);
    body = apr_pvsprintf(fx->pool, fmt, ap);
    va_end(ap);
    return api_ok(fx, UC_POST, path, body);
}

/* cat (storage s3://bucket/cat) holding sch. */
static void world(afx_t *fx)
{
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat\",\"storage_root\":"
           "\"s3://bucket/cat\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
           "\"cat\"}");
}

static int sql_count(afx_t *fx, const char *sql)
{
    return uc_test_sql_int(fx->db, fx->conn, fx->pool, sql);
}

static const char *catalog_location(afx_t *fx)
{
    return jstr(api_ok(fx, UC_GET, "/catalogs/cat", NULL),
                "storage_location");
}

static json_t *list_of(json_t *out, const char *key)
{
    json_t *list = json_object_get(out, key);
    if (!json_is_array(list))
        fail_msg("no array '%s'", key);
    return list;
}

static void assert_keys(json_t *obj, const char *const *keys)
{
    size_t n = 0;

    for (; keys[n]; n++)
        if (!json_object_get(obj, keys[n]))
            fail_msg("missing key '%s' in %s", keys[n],
                     json_dumps(obj, JSON_COMPACT));
    if (json_object_size(obj) != n)
        fail_msg("%zu keys, expected %zu: %s", json_object_size(obj), n,
                 json_dumps(obj, JSON_COMPACT));
}

/* --- tables ------------------------------------------------------------ */

static const char *const table_keys[] = {
    "name", "catalog_name", "schema_name", "full_name", "table_type",
    "data_source_format", "columns", "view_definition", "view_dependencies",
    "storage_credential_name", "storage_location", "comment", "properties",
    "owner", "created_at", "created_by", "updated_at", "updated_by",
    "table_id", "metastore_id", "deleted_at", "browse_only", NULL
};

static void test_staging_and_managed_table(void **state)
{
    afx_t *fx = *state;
    json_t *st, *t, *again;
    const char *id, *loc, *body;

    world(fx);
    st = post(fx, "/staging-tables", "{\"name\":\"Events\"," IN_SCH "}");
    id = jstr(st, "id");
    assert_true(uc_test_is_uuid4(id));
    assert_jstr(st, "name", "events");
    assert_jstr(st, "catalog_name", "cat");
    assert_jstr(st, "schema_name", "sch");
    loc = apr_pstrcat(fx->pool, catalog_location(fx), "/tables/", id, NULL);
    assert_jstr(st, "staging_location", loc);
    assert_false(json_is_true(json_object_get(st, "stage_committed")));
    assert_jstr(st, "created_by", "alice");
    /* Another reservation of the same name is fine (a retrying writer). */
    again = post(fx, "/staging-tables", "{\"name\":\"events\"," IN_SCH "}");
    assert_string_not_equal(jstr(again, "id"), id);

    body = apr_psprintf(fx->pool, "{\"name\":\"events\"," IN_SCH ","
                        "\"table_type\":\"MANAGED\",\"data_source_format\":"
                        "\"DELTA\",\"storage_location\":\"%s/\","
                        "\"properties\":{\"io.unitycatalog.tableId\":\"%s\"},"
                        "\"columns\":[{\"name\":\"id\",\"type_text\":\"INT\","
                        "\"type_json\":\"{}\",\"type_name\":\"INT\"}]}",
                        loc, id);
    t = api_ok(fx, UC_POST, "/tables", body);
    assert_keys(t, table_keys);
    assert_jstr(t, "table_id", id);
    assert_jstr(t, "storage_location", loc);
    assert_jstr(t, "table_type", "MANAGED");
    assert_jstr(t, "full_name", "cat.sch.events");
    assert_jstr(t, "owner", "alice");
    assert_jstr(t, "metastore_id", uc_store_metastore_id(attach(fx, fx->pool)));
    assert_int_equal(jint(t, "created_at"), now_ms(fx));
    assert_true(json_equal(t, api_ok(fx, UC_GET, "/tables/cat.sch.events",
                                     NULL)));
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM staging_tables "
                               "WHERE committed_at IS NOT NULL"), 1);

    /* A reservation is used once, whatever name comes with it. */
    api_err(fx, UC_POST, "/tables", body, 400, "FAILED_PRECONDITION");
    api_err(fx, UC_POST, "/tables", apr_psprintf(fx->pool,
            "{\"name\":\"other\"," IN_SCH ",\"table_type\":\"MANAGED\","
            "\"data_source_format\":\"DELTA\",\"storage_location\":\"%s\"}",
            loc), 400, "FAILED_PRECONDITION");
    /* A table of that name now exists: no more reservations for it. */
    api_err(fx, UC_POST, "/staging-tables", "{\"name\":\"events\"," IN_SCH
            "}", 400, "TABLE_ALREADY_EXISTS");
}

static void test_managed_table_errors(void **state)
{
    afx_t *fx = *state;
    json_t *st;
    const char *loc, *id;

    world(fx);
    st = post(fx, "/staging-tables", "{\"name\":\"tb1\"," IN_SCH "}");
    loc = jstr(st, "staging_location");
    id = jstr(st, "id");
#define MANAGED(extra, ...) apr_psprintf(fx->pool, "{\"name\":\"tb1\"," \
        IN_SCH ",\"table_type\":\"MANAGED\",\"data_source_format\":" \
        "\"DELTA\"" extra "}", ##__VA_ARGS__)
    api_err(fx, UC_POST, "/tables", MANAGED(""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", MANAGED(",\"storage_location\":"
            "\"s3://bucket/cat/nowhere\""), 404, "NOT_FOUND");
    api_err(fx, UC_POST, "/tables", MANAGED(",\"storage_location\":\"%s\","
            "\"properties\":{\"io.unitycatalog.tableId\":\"x\"}", loc), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", apr_psprintf(fx->pool,
            "{\"name\":\"tb1\"," IN_SCH ",\"table_type\":\"MANAGED\","
            "\"data_source_format\":\"PARQUET\",\"storage_location\":\"%s\"}",
            loc), 400, "INVALID_PARAMETER_VALUE");
    /* Only the reservation's creator may use it: to anyone else it is as
     * missing. */
    fx->principal = "bob";
    api_err(fx, UC_POST, "/tables", MANAGED(",\"storage_location\":\"%s\"",
            loc), 404, "NOT_FOUND");
    fx->principal = "alice";
    /* Nothing was committed by the failures. */
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM staging_tables "
                               "WHERE committed_at IS NOT NULL"), 0);
    /* Another schema's reservation. */
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch2\",\"catalog_name\":"
           "\"cat\"}");
    api_err(fx, UC_POST, "/tables", apr_psprintf(fx->pool,
            "{\"name\":\"tb1\",\"catalog_name\":\"cat\",\"schema_name\":"
            "\"sch2\",\"table_type\":\"MANAGED\",\"data_source_format\":"
            "\"DELTA\",\"storage_location\":\"%s\"}", loc), 400,
            "INVALID_PARAMETER_VALUE");
    api_ok(fx, UC_POST, "/tables", MANAGED(",\"storage_location\":\"%s\","
           "\"properties\":{\"io.unitycatalog.tableId\":\"%s\"}", loc, id));
    /* No managed storage anywhere: no reservation. */
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"bare\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"stg\",\"catalog_name\":"
           "\"bare\"}");
    api_err(fx, UC_POST, "/staging-tables", "{\"name\":\"tbl\",\"catalog_name\":"
            "\"bare\",\"schema_name\":\"stg\"}", 400, "FAILED_PRECONDITION");
    /* ... unless the metastore has a root. */
    fx->storage_root = "file:///srv/uc";
    st = api_ok(fx, UC_POST, "/staging-tables", "{\"name\":\"tbl\","
                "\"catalog_name\":\"bare\",\"schema_name\":\"stg\"}");
    assert_jstr(st, "staging_location", apr_pstrcat(fx->pool,
                "file:///srv/uc/__unitystorage/tables/", jstr(st, "id"),
                NULL));
#undef MANAGED
}

static void test_external_table_locations(void **state)
{
    afx_t *fx = *state;
    json_t *t;

    world(fx);
#define EXTERNAL(name, loc) apr_psprintf(fx->pool, "{\"name\":\"%s\"," IN_SCH \
        ",\"table_type\":\"EXTERNAL\",\"data_source_format\":\"DELTA\"," \
        "\"storage_location\":\"%s\"}", name, loc)
    t = api_ok(fx, UC_POST, "/tables", EXTERNAL("ext", "s3://data//sales/"));
    assert_jstr(t, "storage_location", "s3://data/sales");
    assert_jstr(t, "table_type", "EXTERNAL");
    t = api_ok(fx, UC_POST, "/tables", EXTERNAL("loc", "/srv/data/t"));
    assert_jstr(t, "storage_location", "file:///srv/data/t");
    api_err(fx, UC_POST, "/tables", apr_psprintf(fx->pool, "{\"name\":\"xxx\","
            IN_SCH ",\"table_type\":\"EXTERNAL\",\"data_source_format\":"
            "\"DELTA\"}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://data"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "file:///"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3a://data/x"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://bucket/cat/"
            "__unitystorage/x"), 400, "INVALID_PARAMETER_VALUE");
    /* No overlap with other tables, in any direction. */
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://data/sales"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://data/sales/2024"),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://data"), 400,
            "INVALID_PARAMETER_VALUE");
    /* A sibling that only shares a prefix of characters is not inside. */
    api_ok(fx, UC_POST, "/tables", EXTERNAL("sib", "s3://data/sales2"));
    api_ok(fx, UC_POST, "/tables", EXTERNAL("sib2", "s3://data/sale"));
    /* Not above the catalog's managed storage. */
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://bucket/cat"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "s3://bucket"), 400,
            "INVALID_PARAMETER_VALUE");
    /* ... nor above an open reservation. */
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat2x\",\"storage_root\":"
           "\"gs://g/root\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch2x\",\"catalog_name\":\"cat2x\","
           "\"storage_root\":\"gs://g/schema\"}");
    post(fx, "/staging-tables", "{\"name\":\"tbl\",\"catalog_name\":\"cat2x\","
         "\"schema_name\":\"sch2x\"}");
    api_err(fx, UC_POST, "/tables", EXTERNAL("xxx", "gs://g/schema"), 400,
            "INVALID_PARAMETER_VALUE");
    api_ok(fx, UC_POST, "/tables", EXTERNAL("okk", "gs://g/other"));
    /* The patterns of paths are data: '%' and '_' match themselves. */
    api_ok(fx, UC_POST, "/tables", EXTERNAL("pct", "s3://p/a%25"));
    api_ok(fx, UC_POST, "/tables", EXTERNAL("und", "s3://p/a_"));
    api_ok(fx, UC_POST, "/tables", EXTERNAL("plain", "s3://p/ab"));
#undef EXTERNAL
}

static void test_views(void **state)
{
    afx_t *fx = *state;
    json_t *t, *deps;

    world(fx);
#define VIEW(name, type, extra) apr_psprintf(fx->pool, "{\"name\":\"%s\"," \
        IN_SCH ",\"table_type\":\"%s\",\"data_source_format\":\"DELTA\"" \
        extra "}", name, type)
    t = api_ok(fx, UC_POST, "/tables", VIEW("vw1", "VIEW",
               ",\"view_definition\":\"SELECT 1\""));
    assert_jstr(t, "view_definition", "SELECT 1");
    assert_jstr(t, "storage_location", NULL);
    assert_true(json_is_null(json_object_get(t, "view_dependencies")));
    /* A metric view as the rs client sends it: YAML, no dependencies. */
    t = api_ok(fx, UC_POST, "/tables", VIEW("mvw", "METRIC_VIEW",
               ",\"view_definition\":\"version: 1.1\\nsource: cat.sch.t\\n\","
               "\"comment\":\"m\""));
    assert_jstr(t, "table_type", "METRIC_VIEW");
    t = api_ok(fx, UC_POST, "/tables", VIEW("mv2", "METRIC_VIEW",
               ",\"view_definition\":\"x\",\"view_dependencies\":{"
               "\"dependencies\":[{\"table\":{\"table_full_name\":"
               "\"Cat.Sch.Orders\"}},{\"function\":{\"function_full_name\":"
               "\"cat.sch.fun\"}}]}"));
    deps = json_object_get(json_object_get(t, "view_dependencies"),
                           "dependencies");
    assert_int_equal(json_array_size(deps), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(
        json_array_get(deps, 0), "table"), "table_full_name")),
        "cat.sch.orders");
    api_ok(fx, UC_POST, "/tables", VIEW("mat", "MATERIALIZED_VIEW", ""));
    api_ok(fx, UC_POST, "/tables", VIEW("stt", "STREAMING_TABLE", ""));
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "VIEW", ""), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "METRIC_VIEW",
            ",\"view_definition\":\"\""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "VIEW",
            ",\"view_definition\":\"s\",\"storage_location\":\"s3://a/b\""),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "EXTERNAL",
            ",\"view_definition\":\"s\",\"storage_location\":\"s3://a/b\""),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "EXTERNAL",
            ",\"view_dependencies\":{\"dependencies\":[]},"
            "\"storage_location\":\"s3://a/b\""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "VIEW", ",\"view_definition\":"
            "\"s\",\"view_dependencies\":{\"dependencies\":[{}]}"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "VIEW", ",\"view_definition\":"
            "\"s\",\"view_dependencies\":{\"dependencies\":[{\"table\":{"
            "\"table_full_name\":\"a.b\"}}]}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "VIEW", ",\"view_definition\":"
            "\"s\",\"view_dependencies\":{\"dependencies\":[{\"table\":{"
            "\"table_full_name\":\"a.b.c\"},\"function\":{"
            "\"function_full_name\":\"a.b.c\"}}]}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("xxx", "TABLE_TYPE_UNSPECIFIED", ""),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", apr_psprintf(fx->pool, "{\"name\":\"xxx\","
            IN_SCH ",\"table_type\":\"VIEW\",\"view_definition\":\"s\"}"),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", VIEW("vw1", "VIEW",
            ",\"view_definition\":\"SELECT 2\""), 400, "TABLE_ALREADY_EXISTS");
#undef VIEW
}

static const char *column_table(afx_t *fx, const char *name,
                                const char *columns)
{
    return apr_psprintf(fx->pool, "{\"name\":\"%s\"," IN_SCH ",\"table_type\":"
                        "\"VIEW\",\"data_source_format\":\"DELTA\","
                        "\"view_definition\":\"s\",\"columns\":[%s]}", name,
                        columns);
}

#define COL(name, pos) "{\"name\":\"" name "\",\"type_text\":\"INT\"," \
    "\"type_json\":\"{\\\"name\\\":\\\"" name "\\\",\\\"type\\\":" \
    "\\\"integer\\\",\\\"nullable\\\":true}\",\"type_name\":\"INT\"" pos "}"

static void test_columns(void **state)
{
    afx_t *fx = *state;
    json_t *t, *cols, *c;
    static const char *const column_keys[] = {
        "name", "type_text", "type_json", "type_name", "type_precision",
        "type_scale", "type_interval_type", "position", "comment", "nullable",
        "partition_index", "column_id", NULL
    };

    world(fx);
    t = api_ok(fx, UC_POST, "/tables", column_table(fx, "tb1",
               COL("b", ",\"position\":1,\"partition_index\":0") ","
               "{\"name\":\"amount\",\"type_text\":\"DECIMAL(10,2)\","
               "\"type_json\":\"{}\",\"type_name\":\"DECIMAL\","
               "\"type_precision\":10,\"type_scale\":\"2\",\"position\":2,"
               "\"nullable\":false,\"comment\":\"money\"}," COL("a",
               ",\"position\":0")));
    cols = json_object_get(t, "columns");
    assert_int_equal(json_array_size(cols), 3);
    c = json_array_get(cols, 0);
    assert_keys(c, column_keys);
    assert_jstr(c, "name", "a");
    assert_jstr(c, "type_text", "int");
    assert_int_equal(jint(c, "position"), 0);
    assert_true(json_is_true(json_object_get(c, "nullable")));
    assert_true(json_is_null(json_object_get(c, "partition_index")));
    assert_true(json_is_null(json_object_get(c, "type_precision")));
    assert_jstr(json_array_get(cols, 1), "name", "b");
    assert_int_equal(jint(json_array_get(cols, 1), "partition_index"), 0);
    c = json_array_get(cols, 2);
    assert_jstr(c, "type_text", "decimal(10,2)");
    assert_int_equal(jint(c, "type_precision"), 10);
    assert_int_equal(jint(c, "type_scale"), 2);
    assert_false(json_is_true(json_object_get(c, "nullable")));
    assert_jstr(c, "comment", "money");
    /* Without positions the order given counts. */
    t = api_ok(fx, UC_POST, "/tables", column_table(fx, "tb2",
               COL("z", "") "," COL("y", "")));
    assert_jstr(json_array_get(json_object_get(t, "columns"), 0), "name",
                "z");
    assert_int_equal(jint(json_array_get(json_object_get(t, "columns"), 1),
                          "position"), 1);

    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx", COL("a", "") ","
            COL("A", "")), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            COL("a", ",\"position\":0") "," COL("b", "")), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            COL("a", ",\"position\":0") "," COL("b", ",\"position\":0")), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            COL("a", ",\"position\":1")), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            COL("a", ",\"position\":-1")), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            COL("a", ",\"partition_index\":1")), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            COL("a", ",\"partition_index\":0") "," COL("b",
            ",\"partition_index\":0")), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"int\",\"type_json\":\"{}\","
            "\"type_name\":\"INTEGER\"}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"int\",\"type_json\":\"{oops\","
            "\"type_name\":\"INT\"}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"int\",\"type_json\":"
            "\"{\\\"name\\\":\\\"b\\\"}\",\"type_name\":\"INT\"}"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"int\",\"type_json\":"
            "\"{\\\"nullable\\\":true}\",\"type_name\":\"INT\","
            "\"nullable\":false}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"int\",\"type_name\":\"INT\"}"),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"decimal\",\"type_json\":\"{}\","
            "\"type_name\":\"DECIMAL\",\"type_precision\":39}"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"agt\",\"type_text\":\"int\",\"type_json\":\"{}\","
            "\"type_name\":\"INT\",\"position\":\"one\"}"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx",
            "{\"name\":\"\",\"type_text\":\"int\",\"type_json\":\"{}\","
            "\"type_name\":\"INT\"}"), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", column_table(fx, "xxx", "7"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/tables", apr_psprintf(fx->pool, "{\"name\":\"xxx\","
            IN_SCH ",\"table_type\":\"VIEW\",\"data_source_format\":"
            "\"DELTA\",\"view_definition\":\"s\",\"columns\":{}}"), 400,
            "INVALID_PARAMETER_VALUE");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM securables WHERE "
                               "kind = 'table'"), 2);
}

static void test_table_get_list_delete(void **state)
{
    afx_t *fx = *state;
    json_t *out, *list, *t;
    const char *token;
    int i;

    world(fx);
    for (i = 0; i < 5; i++)
        api_ok(fx, UC_POST, "/tables", apr_psprintf(fx->pool,
               "{\"name\":\"tab%d\"," IN_SCH ",\"table_type\":\"VIEW\","
               "\"data_source_format\":\"DELTA\",\"view_definition\":\"s\","
               "\"properties\":{\"k\":\"v\"},\"columns\":[" COL("c", "")
               "]}", 4 - i));
    out = api_ok(fx, UC_GET, "/tables?catalog_name=cat&schema_name=sch"
                 "&max_results=2", NULL);
    list = list_of(out, "tables");
    assert_int_equal(json_array_size(list), 2);
    assert_jstr(json_array_get(list, 0), "name", "tab0");
    assert_keys(json_array_get(list, 0), table_keys);
    token = jstr(out, "next_page_token");
    assert_non_null(token);
    out = api_ok(fx, UC_GET, apr_psprintf(fx->pool, "/tables?catalog_name=cat"
                 "&schema_name=sch&max_results=3&page_token=%s", token),
                 NULL);
    assert_int_equal(json_array_size(list_of(out, "tables")), 3);
    assert_jstr(json_array_get(list_of(out, "tables"), 0), "name", "tab2");
    assert_jstr(out, "next_page_token", NULL);

    out = api_ok(fx, UC_GET, "/tables?catalog_name=cat&schema_name=sch"
                 "&omit_columns=true&omit_properties=true&omit_username=true"
                 "&include_delta_metadata=true"
                 "&include_manifest_capabilities=false", NULL);
    t = json_array_get(list_of(out, "tables"), 0);
    assert_null(json_object_get(t, "columns"));
    assert_null(json_object_get(t, "properties"));
    assert_null(json_object_get(t, "owner"));
    assert_null(json_object_get(t, "created_by"));
    assert_null(json_object_get(t, "updated_by"));
    assert_non_null(json_object_get(t, "created_at"));
    assert_non_null(json_object_get(t, "view_definition"));
    t = api_ok(fx, UC_GET, "/tables/cat.sch.tab1?include_delta_metadata=true",
               NULL);
    assert_int_equal(json_array_size(json_object_get(t, "columns")), 1);
    assert_string_equal(json_string_value(json_object_get(
        json_object_get(t, "properties"), "k")), "v");

    api_err(fx, UC_GET, "/tables?catalog_name=cat", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/tables?schema_name=sch", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/tables?catalog_name=cat&schema_name=nope", NULL,
            404, "SCHEMA_NOT_FOUND");
    api_err(fx, UC_GET, "/tables?catalog_name=cat&schema_name=sch"
            "&omit_columns=maybe", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/tables/cat.sch.nope", NULL, 404, "TABLE_NOT_FOUND");
    api_err(fx, UC_GET, "/tables/cat.sch", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/tables/cat.nope.tab1", NULL, 404, "SCHEMA_NOT_FOUND");

    out = api_ok(fx, UC_GET, "/tables/cat.sch.tab1/exists", NULL);
    assert_true(json_is_true(json_object_get(out, "table_exists")));
    out = api_ok(fx, UC_GET, "/tables/cat.sch.zzz/exists", NULL);
    assert_false(json_is_true(json_object_get(out, "table_exists")));
    api_err(fx, UC_GET, "/tables/cat.nope.zzz/exists", NULL, 404,
            "SCHEMA_NOT_FOUND");

    out = api_ok(fx, UC_DELETE, "/tables/cat.sch.tab1", NULL);
    assert_int_equal(json_object_size(out), 0);
    api_err(fx, UC_GET, "/tables/cat.sch.tab1", NULL, 404, "TABLE_NOT_FOUND");
    api_err(fx, UC_DELETE, "/tables/cat.sch.tab1", NULL, 404,
            "TABLE_NOT_FOUND");
    out = api_ok(fx, UC_GET, "/tables/cat.sch.tab1/exists", NULL);
    assert_false(json_is_true(json_object_get(out, "table_exists")));
}

static void test_table_summaries(void **state)
{
    afx_t *fx = *state;
    json_t *out, *list;
    const char *token;
    int s, t, total = 0;

    world(fx);
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sales_eu\",\"catalog_name\":"
           "\"cat\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"salesxeu\",\"catalog_name\":"
           "\"cat\"}");
    for (s = 0; s < 3; s++)
        for (t = 0; t < 3; t++)
            api_ok(fx, UC_POST, "/tables", apr_psprintf(fx->pool,
                   "{\"name\":\"tab%d\",\"catalog_name\":\"cat\","
                   "\"schema_name\":\"%s\",\"table_type\":\"%s\","
                   "\"data_source_format\":\"DELTA\",\"view_definition\":"
                   "\"s\"}", t, s == 0 ? "sch" : s == 1 ? "sales_eu"
                                                        : "salesxeu",
                   t == 2 ? "METRIC_VIEW" : "VIEW"));
    out = api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat", NULL);
    list = list_of(out, "tables");
    assert_int_equal(json_array_size(list), 9);
    assert_jstr(json_array_get(list, 0), "full_name", "cat.sales_eu.tab0");
    assert_jstr(json_array_get(list, 2), "table_type", "METRIC_VIEW");
    assert_int_equal(json_object_size(json_array_get(list, 0)), 2);
    assert_jstr(out, "next_page_token", NULL);
    /* '_' matches one character, '%' any run; upper case folds. */
    list = list_of(api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat"
                          "&schema_name_pattern=SALES_EU", NULL), "tables");
    assert_int_equal(json_array_size(list), 6);
    list = list_of(api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat"
                          "&schema_name_pattern=sales%5C_eu", NULL),
                   "tables");
    assert_int_equal(json_array_size(list), 3);
    list = list_of(api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat"
                          "&schema_name_pattern=s%25&table_name_pattern=%25"
                          "1", NULL), "tables");
    assert_int_equal(json_array_size(list), 3);
    /* A pattern is data, never SQL. */
    list = list_of(api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat"
                          "&table_name_pattern=x%27%20OR%20%271%27%3D%271",
                          NULL), "tables");
    assert_int_equal(json_array_size(list), 0);
    list = list_of(api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat"
                          "&table_name_pattern=", NULL), "tables");
    assert_int_equal(json_array_size(list), 9);
    /* Pages. */
    token = NULL;
    do {
        out = api_ok(fx, UC_GET, apr_psprintf(fx->pool, "/table-summaries?"
                     "catalog_name=cat&max_results=4%s%s", token
                     ? "&page_token=" : "", token ? token : ""), NULL);
        total += (int)json_array_size(list_of(out, "tables"));
        token = jstr(out, "next_page_token");
    } while (token);
    assert_int_equal(total, 9);
    api_err(fx, UC_GET, "/table-summaries", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/table-summaries?catalog_name=nope", NULL, 404,
            "CATALOG_NOT_FOUND");
    api_err(fx, UC_GET, "/table-summaries?catalog_name=cat&page_token=abc",
            NULL, 400, "INVALID_PARAMETER_VALUE");
}

/* --- volumes ----------------------------------------------------------- */

static void test_volumes(void **state)
{
    afx_t *fx = *state;
    json_t *v, *list;
    static const char *const keys[] = {
        "name", "catalog_name", "schema_name", "full_name", "volume_type",
        "storage_location", "comment", "owner", "created_at", "created_by",
        "updated_at", "updated_by", "volume_id", "metastore_id",
        "browse_only", NULL
    };

    world(fx);
    v = post(fx, "/volumes", "{\"name\":\"raw\"," IN_SCH ",\"volume_type\":"
             "\"MANAGED\",\"comment\":\"files\"}");
    assert_keys(v, keys);
    assert_jstr(v, "volume_type", "MANAGED");
    assert_jstr(v, "full_name", "cat.sch.raw");
    assert_jstr(v, "storage_location", apr_pstrcat(fx->pool,
                catalog_location(fx), "/volumes/", jstr(v, "volume_id"),
                NULL));
    /* The schema's managed storage comes first. */
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch2x\",\"catalog_name\":"
           "\"cat\",\"storage_root\":\"s3://other/s2\"}");
    v = post(fx, "/volumes", "{\"name\":\"raw\",\"catalog_name\":\"cat\","
             "\"schema_name\":\"sch2x\",\"volume_type\":\"VOLUME_TYPE_MANAGED\"}");
    assert_jstr(v, "volume_type", "MANAGED");
    assert_true(strncmp(jstr(v, "storage_location"),
                        "s3://other/s2/__unitystorage/schemas/", 37) == 0);
    v = post(fx, "/volumes", "{\"name\":\"ext\"," IN_SCH ",\"volume_type\":"
             "\"EXTERNAL\",\"storage_location\":\"abfss://c@acct/dir/\"}");
    assert_jstr(v, "volume_type", "EXTERNAL");
    assert_jstr(v, "storage_location", "abfss://c@acct/dir");

    api_err(fx, UC_POST, "/volumes", "{\"name\":\"xxx\"," IN_SCH ","
            "\"volume_type\":\"MANAGED\",\"storage_location\":\"s3://a/b\"}",
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/volumes", "{\"name\":\"xxx\"," IN_SCH ","
            "\"volume_type\":\"EXTERNAL\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/volumes", "{\"name\":\"xxx\"," IN_SCH ","
            "\"volume_type\":\"EXTERNAL\",\"storage_location\":"
            "\"abfss://c@acct/dir/sub\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/volumes", "{\"name\":\"xxx\"," IN_SCH ","
            "\"volume_type\":\"SHARED\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/volumes", "{\"name\":\"xxx\"," IN_SCH "}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/volumes", "{\"name\":\"raw\"," IN_SCH ","
            "\"volume_type\":\"MANAGED\"}", 400, "RESOURCE_ALREADY_EXISTS");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"bare\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"stg\",\"catalog_name\":"
           "\"bare\"}");
    api_err(fx, UC_POST, "/volumes", "{\"name\":\"xxx\",\"catalog_name\":"
            "\"bare\",\"schema_name\":\"stg\",\"volume_type\":\"MANAGED\"}",
            400, "FAILED_PRECONDITION");

    v = api_ok(fx, UC_PATCH, "/volumes/cat.sch.raw", "{\"new_name\":"
               "\"Landing\",\"comment\":\"renamed\",\"name\":\"ignored\"}");
    assert_jstr(v, "name", "landing");
    assert_jstr(v, "comment", "renamed");
    assert_jstr(v, "full_name", "cat.sch.landing");
    api_err(fx, UC_GET, "/volumes/cat.sch.raw", NULL, 404, "NOT_FOUND");
    api_err(fx, UC_PATCH, "/volumes/cat.sch.landing", "{\"new_name\":"
            "\"ext\"}", 400, "RESOURCE_ALREADY_EXISTS");
    v = api_ok(fx, UC_PATCH, "/volumes/cat.sch.landing", "{}");
    assert_jstr(v, "name", "landing");
    v = api_ok(fx, UC_PATCH, "/volumes/cat.sch.landing", "{\"owner\":"
               "\"bob\"}");
    assert_jstr(v, "owner", "bob");
    list = list_of(api_ok(fx, UC_GET, "/volumes?catalog_name=cat"
                          "&schema_name=sch", NULL), "volumes");
    assert_int_equal(json_array_size(list), 2);
    assert_jstr(json_array_get(list, 0), "name", "ext");
    assert_int_equal(json_object_size(api_ok(fx, UC_DELETE,
                                             "/volumes/cat.sch.ext", NULL)),
                     0);
    api_err(fx, UC_DELETE, "/volumes/cat.sch.ext", NULL, 404, "NOT_FOUND");
}

/* --- functions --------------------------------------------------------- */

static void test_functions(void **state)
{
    afx_t *fx = *state;
    json_t *f, *params, *list;
    static const char *const keys[] = {
        "name", "catalog_name", "schema_name", "full_name", "input_params",
        "data_type", "full_data_type", "return_params", "routine_body",
        "routine_definition", "routine_dependencies", "parameter_style",
        "is_deterministic", "sql_data_access", "is_null_call",
        "security_type", "specific_name", "routine_body_language",
        "external_language", "comment", "properties", "owner", "created_at",
        "created_by", "updated_at", "updated_by", "function_id",
        "metastore_id", "browse_only", NULL
    };

    world(fx);
    /* The Java client's envelope, properties as JSON text. */
    f = post(fx, "/functions", "{\"function_info\":{\"name\":\"add\","
             IN_SCH "," FUNCTION_FIELDS ",\"routine_definition\":\"a+b\","
             "\"properties\":\"{\\\"k\\\":\\\"v\\\"}\",\"external_language\":"
             "\"python\",\"input_params\":{\"parameters\":[{\"name\":\"b\","
             "\"type_text\":\"int\",\"type_name\":\"INT\",\"position\":1},"
             "{\"name\":\"a\",\"type_text\":\"int\",\"type_name\":\"INT\","
             "\"position\":0,\"parameter_type\":\"PARAM\"}]},"
             "\"return_params\":{\"parameters\":[]},\"comment\":\"sum\"}}");
    assert_keys(f, keys);
    assert_jstr(f, "full_name", "cat.sch.add");
    assert_jstr(f, "routine_definition", "a+b");
    assert_jstr(f, "specific_name", "add");
    assert_jstr(f, "routine_body_language", "python");
    assert_jstr(f, "external_language", "python");
    assert_true(json_is_true(json_object_get(f, "is_deterministic")));
    assert_string_equal(json_string_value(json_object_get(
        json_object_get(f, "properties"), "k")), "v");
    params = json_object_get(json_object_get(f, "input_params"),
                             "parameters");
    assert_int_equal(json_array_size(params), 2);
    assert_jstr(json_array_get(params, 0), "name", "a");
    assert_jstr(json_array_get(params, 0), "parameter_mode", "IN");
    assert_jstr(json_array_get(params, 1), "parameter_type", "PARAM");
    assert_true(json_is_object(json_object_get(f, "return_params")));
    assert_true(json_equal(f, api_ok(fx, UC_GET, "/functions/cat.sch.add",
                                     NULL)));
    /* The flat body of the spec, properties as a map, text return type. */
    f = post(fx, "/functions", "{\"name\":\"two\"," IN_SCH ","
             FUNCTION_FIELDS ",\"properties\":{\"a\":\"b\"},"
             "\"return_params\":\"int\",\"routine_dependencies\":"
             "{\"dependencies\":[{\"table\":{\"table_full_name\":"
             "\"cat.sch.tbl\"}}]}}");
    assert_jstr(f, "return_params", "int");
    assert_jstr(f, "routine_definition", NULL);
    assert_true(json_is_null(json_object_get(f, "input_params")));

    api_err(fx, UC_POST, "/functions", "{\"name\":\"add\"," IN_SCH ","
            FUNCTION_FIELDS "}", 400, "RESOURCE_ALREADY_EXISTS");
    api_err(fx, UC_POST, "/functions", "{\"function_info\":7}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            FUNCTION_FIELDS ",\"properties\":\"[1]\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            FUNCTION_FIELDS ",\"properties\":\"{\\\"k\\\":1}\"}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            FUNCTION_FIELDS ",\"input_params\":{\"parameters\":[{\"name\":"
            "\"a\",\"type_text\":\"int\",\"type_name\":\"INT\","
            "\"parameter_mode\":\"OUT\"}]}}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            FUNCTION_FIELDS ",\"input_params\":[]}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            "\"data_type\":\"INT\",\"full_data_type\":\"int\","
            "\"parameter_style\":\"S\",\"sql_data_access\":\"NO_SQL\","
            "\"is_null_call\":false,\"security_type\":\"DEFINER\","
            "\"routine_body\":\"SQL\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            "\"data_type\":\"NUMBER\",\"full_data_type\":\"int\","
            "\"parameter_style\":\"S\",\"is_deterministic\":true,"
            "\"sql_data_access\":\"NO_SQL\",\"is_null_call\":false,"
            "\"security_type\":\"DEFINER\",\"routine_body\":\"SQL\"}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            "\"data_type\":\"INT\",\"full_data_type\":\"int\","
            "\"parameter_style\":\"S\",\"is_deterministic\":\"yes\","
            "\"sql_data_access\":\"NO_SQL\",\"is_null_call\":false,"
            "\"security_type\":\"DEFINER\",\"routine_body\":\"SQL\"}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/functions", "{\"name\":\"xxx\"," IN_SCH ","
            "\"data_type\":\"INT\",\"full_data_type\":\"int\","
            "\"parameter_style\":\"S\",\"is_deterministic\":true,"
            "\"sql_data_access\":\"NO_SQL\",\"is_null_call\":false,"
            "\"security_type\":\"INVOKER\",\"routine_body\":\"SQL\"}", 400,
            "INVALID_PARAMETER_VALUE");

    /* PATCH changes the owner only. */
    f = api_ok(fx, UC_PATCH, "/functions/cat.sch.add", "{\"owner\":\"bob\","
               "\"new_name\":\"sum\",\"comment\":\"ignored\"}");
    assert_jstr(f, "owner", "bob");
    assert_jstr(f, "name", "add");
    assert_jstr(f, "comment", "sum");
    list = list_of(api_ok(fx, UC_GET, "/functions?catalog_name=cat"
                          "&schema_name=sch", NULL), "functions");
    assert_int_equal(json_array_size(list), 2);
    api_err(fx, UC_DELETE, "/functions/cat.sch.add?force=perhaps", NULL, 400,
            "INVALID_PARAMETER_VALUE");
    api_ok(fx, UC_DELETE, "/functions/cat.sch.add?force=true", NULL);
    api_err(fx, UC_GET, "/functions/cat.sch.add", NULL, 404, "NOT_FOUND");
}

/* --- models ------------------------------------------------------------ */

static json_t *new_version(afx_t *fx, const char *model)
{
    return post(fx, "/models/versions", "{" IN_SCH ",\"model_name\":\"%s\","
                "\"source\":\"s3://runs/1/model\",\"run_id\":\"r1\"}", model);
}

static void test_models_and_versions(void **state)
{
    afx_t *fx = *state;
    json_t *m, *v, *out, *list;
    const char *token;
    static const char *const model_keys[] = {
        "name", "catalog_name", "schema_name", "full_name",
        "storage_location", "comment", "owner", "created_at", "created_by",
        "updated_at", "updated_by", "id", "metastore_id", "browse_only", NULL
    };
    static const char *const version_keys[] = {
        "model_name", "catalog_name", "schema_name", "version", "source",
        "run_id", "status", "storage_location", "comment", "created_at",
        "created_by", "updated_at", "updated_by", "id", "metastore_id",
        "browse_only", NULL
    };

    world(fx);
    m = post(fx, "/models", "{\"name\":\"churn\"," IN_SCH ",\"comment\":"
             "\"c\"}");
    assert_keys(m, model_keys);
    assert_jstr(m, "storage_location", apr_pstrcat(fx->pool,
                catalog_location(fx), "/models/", jstr(m, "id"), NULL));
    api_err(fx, UC_POST, "/models", "{\"name\":\"churn\"," IN_SCH "}", 409,
            "ALREADY_EXISTS");

    v = new_version(fx, "churn");
    assert_keys(v, version_keys);
    assert_int_equal(jint(v, "version"), 1);
    assert_jstr(v, "status", "PENDING_REGISTRATION");
    assert_jstr(v, "model_name", "churn");
    assert_jstr(v, "run_id", "r1");
    assert_jstr(v, "storage_location", apr_pstrcat(fx->pool,
                jstr(m, "storage_location"), "/versions/", jstr(v, "id"),
                NULL));
    assert_int_equal(jint(new_version(fx, "churn"), "version"), 2);
    assert_int_equal(jint(new_version(fx, "churn"), "version"), 3);
    /* A deleted number is never given again. */
    api_ok(fx, UC_DELETE, "/models/cat.sch.churn/versions/3", NULL);
    assert_int_equal(jint(new_version(fx, "churn"), "version"), 4);
    api_err(fx, UC_GET, "/models/cat.sch.churn/versions/3", NULL, 404,
            "NOT_FOUND");

    v = api_ok(fx, UC_PATCH, "/models/cat.sch.churn/versions/2/finalize",
               "{}");
    assert_jstr(v, "status", "READY");
    api_err(fx, UC_PATCH, "/models/cat.sch.churn/versions/2/finalize", "{}",
            400, "FAILED_PRECONDITION");
    api_err(fx, UC_PATCH, "/models/cat.sch.churn/versions/9/finalize", "{}",
            404, "NOT_FOUND");
    api_err(fx, UC_PATCH, "/models/cat.sch.churn/versions/1/finalize",
            "{\"full_name\":\"cat.sch.churn\",\"version\":2}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/models/cat.sch.churn/versions/1/finalize",
            "{\"full_name\":\"cat.sch.other\",\"version\":1}", 400,
            "INVALID_PARAMETER_VALUE");
    v = api_ok(fx, UC_PATCH, "/models/cat.sch.churn/versions/1/finalize",
               "{\"full_name\":\"cat.sch.churn\",\"version\":1}");
    assert_jstr(v, "status", "READY");
    api_err(fx, UC_GET, "/models/cat.sch.churn/versions/0", NULL, 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/models/cat.sch.churn/versions/x1", NULL, 400,
            "INVALID_PARAMETER_VALUE");

    v = api_ok(fx, UC_PATCH, "/models/cat.sch.churn/versions/4",
               "{\"comment\":\"latest\"}");
    assert_jstr(v, "comment", "latest");
    assert_jstr(v, "status", "PENDING_REGISTRATION");
    assert_jstr(api_ok(fx, UC_GET, "/models/cat.sch.churn/versions/4", NULL),
                "comment", "latest");

    out = api_ok(fx, UC_GET, "/models/cat.sch.churn/versions?max_results=2",
                 NULL);
    list = list_of(out, "model_versions");
    assert_int_equal(json_array_size(list), 2);
    assert_int_equal(jint(json_array_get(list, 0), "version"), 1);
    token = jstr(out, "next_page_token");
    out = api_ok(fx, UC_GET, apr_psprintf(fx->pool, "/models/cat.sch.churn/"
                 "versions?max_results=2&page_token=%s", token), NULL);
    list = list_of(out, "model_versions");
    assert_int_equal(json_array_size(list), 1);
    assert_int_equal(jint(json_array_get(list, 0), "version"), 4);
    assert_jstr(out, "next_page_token", NULL);

    /* Renaming the model keeps its versions. */
    m = api_ok(fx, UC_PATCH, "/models/cat.sch.churn", "{\"new_name\":"
               "\"churn2\",\"comment\":\"v2\"}");
    assert_jstr(m, "full_name", "cat.sch.churn2");
    assert_int_equal(jint(api_ok(fx, UC_GET, "/models/cat.sch.churn2/"
                                 "versions/4", NULL), "version"), 4);
    assert_int_equal(jint(new_version(fx, "churn2"), "version"), 5);

    post(fx, "/models", "{\"name\":\"other\"," IN_SCH "}");
    api_err(fx, UC_PATCH, "/models/cat.sch.other", "{\"new_name\":"
            "\"churn2\"}", 409, "ALREADY_EXISTS");
    list = list_of(api_ok(fx, UC_GET, "/models?catalog_name=cat"
                          "&schema_name=sch", NULL), "registered_models");
    assert_int_equal(json_array_size(list), 2);
    api_err(fx, UC_GET, "/models?catalog_name=cat", NULL, 400,
            "INVALID_PARAMETER_VALUE");

    api_err(fx, UC_DELETE, "/models/cat.sch.churn2", NULL, 409, "ABORTED");
    api_ok(fx, UC_DELETE, "/models/cat.sch.other", NULL);
    api_ok(fx, UC_DELETE, "/models/cat.sch.churn2?force=true", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM model_versions"), 0);
    api_err(fx, UC_POST, "/models/versions", "{" IN_SCH ",\"model_name\":"
            "\"churn2\",\"source\":\"x\"}", 404, "NOT_FOUND");
    api_err(fx, UC_POST, "/models/versions", "{" IN_SCH ",\"model_name\":"
            "\"nope\"}", 404, "NOT_FOUND");
}

static void test_models_across_the_metastore(void **state)
{
    afx_t *fx = *state;
    json_t *out, *list;
    const char *token = NULL;
    int pages = 0, total = 0;

    world(fx);
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"aaa\",\"storage_root\":"
           "\"s3://b/a\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sc1\",\"catalog_name\":"
           "\"aaa\"}");
    post(fx, "/models", "{\"name\":\"md1\"," IN_SCH "}");
    post(fx, "/models", "{\"name\":\"md2\"," IN_SCH "}");
    post(fx, "/models", "{\"name\":\"md9\",\"catalog_name\":\"aaa\","
         "\"schema_name\":\"sc1\"}");
    list = list_of(api_ok(fx, UC_GET, "/models", NULL), "registered_models");
    assert_int_equal(json_array_size(list), 3);
    assert_jstr(json_array_get(list, 0), "full_name", "aaa.sc1.md9");
    assert_jstr(json_array_get(list, 1), "catalog_name", "cat");
    do {
        out = api_ok(fx, UC_GET, apr_psprintf(fx->pool, "/models?max_results"
                     "=2%s%s", token ? "&page_token=" : "", token ? token
                                                                  : ""),
                     NULL);
        total += (int)json_array_size(list_of(out, "registered_models"));
        token = jstr(out, "next_page_token");
        pages++;
    } while (token);
    assert_int_equal(total, 3);
    assert_int_equal(pages, 2);
    /* A caller sees the models it may use. */
    fx->principal_is_admin = 0;
    fx->principal = "bob";
    assert_int_equal(json_array_size(list_of(api_ok(fx, UC_GET, "/models",
                                                    NULL),
                                             "registered_models")), 0);
}

/* --- agents and skills ------------------------------------------------- */

static void test_agents(void **state)
{
    afx_t *fx = *state;
    json_t *a;
    static const char *const keys[] = {
        "name", "catalog_name", "schema_name", "full_name", "agent_id",
        "invocation_protocol", "endpoint", "capabilities", "description",
        "input_schema", "comment", "owner", "created_at", "created_by",
        "updated_at", "updated_by", "metastore_id", "browse_only", NULL
    };

    world(fx);
    a = post(fx, "/agents", "{\"name\":\"helper\"," IN_SCH ","
             "\"invocation_protocol\":\"MCP\",\"endpoint\":"
             "\"https://agents.example:8443/mcp?x=1\",\"capabilities\":"
             "[\"sql_query\",\"document_search\"],\"description\":\"helps\","
             "\"input_schema\":\"{\\\"type\\\":\\\"object\\\"}\"}");
    assert_keys(a, keys);
    assert_jstr(a, "invocation_protocol", "MCP");
    assert_jstr(a, "endpoint", "https://agents.example:8443/mcp?x=1");
    assert_int_equal(json_array_size(json_object_get(a, "capabilities")), 2);
    assert_jstr(a, "input_schema", "{\"type\":\"object\"}");
    assert_true(uc_test_is_uuid4(jstr(a, "agent_id")));
    a = post(fx, "/agents", "{\"name\":\"local\"," IN_SCH ","
             "\"invocation_protocol\":\"REST\",\"endpoint\":\"/invoke\"}");
    assert_int_equal(json_array_size(json_object_get(a, "capabilities")), 0);
    assert_jstr(a, "input_schema", NULL);

#define AGENT(fields) "{\"name\":\"xxx\"," IN_SCH "," fields "}"
    api_err(fx, UC_POST, "/agents", AGENT("\"endpoint\":\"https://a/b\""),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"SOAP\","
            "\"endpoint\":\"https://a/b\""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":"
            "\"INVOCATION_PROTOCOL_UNSPECIFIED\",\"endpoint\":\"https://a\""),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\""),
            400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"host:8080/x\""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"https://a b/\""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"\""), 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"https://a\",\"input_schema\":\"{oops\""), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"https://a\",\"input_schema\":\"[1]\""), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"https://a\",\"input_schema\":{}"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"https://a\",\"capabilities\":\"sql\""), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", AGENT("\"invocation_protocol\":\"MCP\","
            "\"endpoint\":\"https://a\",\"capabilities\":[1]"), 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agents", "{\"name\":\"helper\"," IN_SCH ","
            "\"invocation_protocol\":\"MCP\",\"endpoint\":\"https://a\"}",
            400, "RESOURCE_ALREADY_EXISTS");
#undef AGENT

    a = api_ok(fx, UC_PATCH, "/agents/cat.sch.helper", "{\"invocation_protocol"
               "\":\"INVOCATION_PROTOCOL_UNSPECIFIED\",\"capabilities\":"
               "[\"code_execution\"],\"endpoint\":\"http://h/a\","
               "\"new_name\":\"assistant\"}");
    assert_jstr(a, "invocation_protocol", "MCP");
    assert_jstr(a, "endpoint", "http://h/a");
    assert_jstr(a, "name", "assistant");
    assert_jstr(a, "description", "helps");
    assert_int_equal(json_array_size(json_object_get(a, "capabilities")), 1);
    assert_true(json_equal(a, api_ok(fx, UC_GET, "/agents/cat.sch.assistant",
                                     NULL)));
    a = api_ok(fx, UC_PATCH, "/agents/cat.sch.assistant", "{\"invocation_"
               "protocol\":\"A2A\"}");
    assert_jstr(a, "invocation_protocol", "A2A");
    assert_int_equal(jint(a, "updated_at"), now_ms(fx));
    api_err(fx, UC_PATCH, "/agents/cat.sch.assistant", "{\"endpoint\":"
            "\"no way\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/agents/cat.sch.assistant", "{\"new_name\":"
            "\"local\"}", 400, "RESOURCE_ALREADY_EXISTS");
    assert_int_equal(json_array_size(list_of(api_ok(fx, UC_GET,
        "/agents?catalog_name=cat&schema_name=sch", NULL), "agents")), 2);
    api_ok(fx, UC_DELETE, "/agents/cat.sch.assistant", NULL);
    api_err(fx, UC_GET, "/agents/cat.sch.assistant", NULL, 404, "NOT_FOUND");
}

static void test_agent_skills(void **state)
{
    afx_t *fx = *state;
    json_t *s;
    static const char *const keys[] = {
        "name", "catalog_name", "schema_name", "full_name", "agent_skill_id",
        "agent_skill_type", "description", "allowed_tools", "metadata",
        "license", "storage_location", "comment", "owner", "created_at",
        "created_by", "updated_at", "updated_by", "metastore_id",
        "browse_only", NULL
    };

    world(fx);
    s = post(fx, "/agent-skills", "{\"name\":\"pdf_reader\"," IN_SCH ","
             "\"agent_skill_type\":\"MANAGED\",\"storage_location\":"
             "\"s3://ignored/x\",\"allowed_tools\":[\"Read\"],\"metadata\":"
             "{\"version\":\"1\"},\"license\":\"Apache-2.0\","
             "\"description\":\"reads\"}");
    assert_keys(s, keys);
    assert_jstr(s, "storage_location", apr_pstrcat(fx->pool,
                catalog_location(fx), "/agent_skills/",
                jstr(s, "agent_skill_id"), NULL));
    assert_jstr(s, "license", "Apache-2.0");
    s = post(fx, "/agent-skills", "{\"name\":\"ext\"," IN_SCH ","
             "\"agent_skill_type\":\"EXTERNAL\",\"storage_location\":"
             "\"s3://skills/ext/\"}");
    assert_jstr(s, "storage_location", "s3://skills/ext");
    assert_int_equal(json_object_size(json_object_get(s, "metadata")), 0);

    api_err(fx, UC_POST, "/agent-skills", "{\"name\":\"xxx\"," IN_SCH ","
            "\"agent_skill_type\":\"EXTERNAL\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agent-skills", "{\"name\":\"xxx\"," IN_SCH "}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agent-skills", "{\"name\":\"xxx\"," IN_SCH ","
            "\"agent_skill_type\":\"EXTERNAL\",\"storage_location\":"
            "\"s3://skills/ext/inner\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agent-skills", "{\"name\":\"a23456789012345678901"
            "23456789012345678901234567890123456789012345\"," IN_SCH ","
            "\"agent_skill_type\":\"MANAGED\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agent-skills", "{\"name\":\"xxx\"," IN_SCH ","
            "\"agent_skill_type\":\"MANAGED\",\"metadata\":{\"k\":1}}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/agent-skills", apr_psprintf(fx->pool,
            "{\"name\":\"xxx\"," IN_SCH ",\"agent_skill_type\":\"MANAGED\","
            "\"description\":\"%01025d\"}", 0), 400, "INVALID_PARAMETER_VALUE");

    s = api_ok(fx, UC_PATCH, "/agent-skills/cat.sch.pdf_reader",
               "{\"allowed_tools\":[\"Read\",\"Bash\"],\"description\":"
               "\"reads pdfs\",\"new_name\":\"pdf\"}");
    assert_jstr(s, "name", "pdf");
    assert_jstr(s, "description", "reads pdfs");
    assert_int_equal(json_array_size(json_object_get(s, "allowed_tools")), 2);
    assert_jstr(s, "license", "Apache-2.0");
    api_err(fx, UC_PATCH, "/agent-skills/cat.sch.pdf", apr_psprintf(
            fx->pool, "{\"new_name\":\"a%070d\"}", 0), 400, "INVALID_PARAMETER_VALUE");
    assert_int_equal(json_array_size(list_of(api_ok(fx, UC_GET,
        "/agent-skills?catalog_name=cat&schema_name=sch", NULL),
        "agent_skills")), 2);
    api_ok(fx, UC_DELETE, "/agent-skills/cat.sch.pdf", NULL);
    api_err(fx, UC_GET, "/agent-skills/cat.sch.pdf", NULL, 404, "NOT_FOUND");
}

/* --- the schema and catalog around them --------------------------------- */

static void fill_schema(afx_t *fx)
{
    post(fx, "/tables", "{\"name\":\"tbl\"," IN_SCH ",\"table_type\":\"VIEW\","
         "\"data_source_format\":\"DELTA\",\"view_definition\":\"s\"}");
    post(fx, "/volumes", "{\"name\":\"vol\"," IN_SCH ",\"volume_type\":"
         "\"MANAGED\"}");
    post(fx, "/functions", "{\"name\":\"fun\"," IN_SCH "," FUNCTION_FIELDS "}");
    post(fx, "/models", "{\"name\":\"mdl\"," IN_SCH "}");
    new_version(fx, "mdl");
    post(fx, "/agents", "{\"name\":\"agt\"," IN_SCH ",\"invocation_protocol\":"
         "\"REST\",\"endpoint\":\"https://x\"}");
    post(fx, "/agent-skills", "{\"name\":\"skl\"," IN_SCH ",\"agent_skill_type\":"
         "\"MANAGED\"}");
    post(fx, "/staging-tables", "{\"name\":\"stg\"," IN_SCH "}");
    api_ok(fx, UC_PATCH, "/permissions/table/cat.sch.tbl", "{\"changes\":[{"
           "\"principal\":\"bob\",\"add\":[\"SELECT\"]}]}");
}

static void test_not_empty_and_force(void **state)
{
    afx_t *fx = *state;
    static const char *const kinds[] = {
        "tables", "volumes", "functions", "models", "agents", "agent-skills",
        "staging-tables", NULL
    };
    int i;

    /* Each kind alone keeps its schema from being empty. */
    for (i = 0; kinds[i]; i++) {
        world(fx);
        if (!strcmp(kinds[i], "tables"))
            post(fx, "/tables", "{\"name\":\"tbl\"," IN_SCH ",\"table_type\":"
                 "\"VIEW\",\"data_source_format\":\"DELTA\","
                 "\"view_definition\":\"s\"}");
        else if (!strcmp(kinds[i], "volumes"))
            post(fx, "/volumes", "{\"name\":\"vol\"," IN_SCH ",\"volume_type\":"
                 "\"MANAGED\"}");
        else if (!strcmp(kinds[i], "functions"))
            post(fx, "/functions", "{\"name\":\"fun\"," IN_SCH ","
                 FUNCTION_FIELDS "}");
        else if (!strcmp(kinds[i], "models"))
            post(fx, "/models", "{\"name\":\"mdl\"," IN_SCH "}");
        else if (!strcmp(kinds[i], "agents"))
            post(fx, "/agents", "{\"name\":\"agt\"," IN_SCH ","
                 "\"invocation_protocol\":\"REST\",\"endpoint\":"
                 "\"https://x\"}");
        else if (!strcmp(kinds[i], "agent-skills"))
            post(fx, "/agent-skills", "{\"name\":\"skl\"," IN_SCH ","
                 "\"agent_skill_type\":\"MANAGED\"}");
        else
            post(fx, "/staging-tables", "{\"name\":\"stg\"," IN_SCH "}");
        api_err(fx, UC_DELETE, "/schemas/cat.sch", NULL, 400,
                "SCHEMA_NOT_EMPTY");
        api_ok(fx, UC_DELETE, "/catalogs/cat?force=true", NULL);
    }
    /* A committed reservation does not count: its table does. */
    world(fx);
    {
        json_t *st = post(fx, "/staging-tables", "{\"name\":\"tbl\"," IN_SCH
                          "}");
        post(fx, "/tables", "{\"name\":\"tbl\"," IN_SCH ",\"table_type\":"
             "\"MANAGED\",\"data_source_format\":\"DELTA\","
             "\"storage_location\":\"%s\"}", jstr(st, "staging_location"));
        api_ok(fx, UC_DELETE, "/tables/cat.sch.tbl", NULL);
        api_ok(fx, UC_DELETE, "/schemas/cat.sch", NULL);
        api_ok(fx, UC_DELETE, "/catalogs/cat", NULL);
    }

    /* force takes everything below, in one transaction. */
    world(fx);
    fill_schema(fx);
    api_ok(fx, UC_DELETE, "/schemas/cat.sch?force=true", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM securables WHERE "
                               "kind NOT IN ('metastore', 'catalog')"), 0);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM model_versions"), 0);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM staging_tables"), 0);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants"), 0);
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
           "\"cat\"}");
    fill_schema(fx);
    api_err(fx, UC_DELETE, "/catalogs/cat", NULL, 400, "CATALOG_NOT_EMPTY");
    api_ok(fx, UC_DELETE, "/catalogs/cat?force=true", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM securables"), 1);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM model_versions"), 0);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM staging_tables"), 0);
}

static void test_renames_keep_objects_reachable(void **state)
{
    afx_t *fx = *state;
    json_t *t;

    world(fx);
    fill_schema(fx);
    api_ok(fx, UC_PATCH, "/catalogs/cat", "{\"new_name\":\"cat2\"}");
    api_ok(fx, UC_PATCH, "/schemas/cat2.sch", "{\"new_name\":\"sch2\"}");
    t = api_ok(fx, UC_GET, "/tables/cat2.sch2.tbl", NULL);
    assert_jstr(t, "full_name", "cat2.sch2.tbl");
    assert_jstr(t, "catalog_name", "cat2");
    assert_jstr(api_ok(fx, UC_GET, "/volumes/cat2.sch2.vol", NULL),
                "full_name", "cat2.sch2.vol");
    assert_jstr(api_ok(fx, UC_GET, "/functions/cat2.sch2.fun", NULL),
                "full_name", "cat2.sch2.fun");
    assert_jstr(api_ok(fx, UC_GET, "/models/cat2.sch2.mdl/versions/1", NULL),
                "schema_name", "sch2");
    assert_jstr(api_ok(fx, UC_GET, "/agents/cat2.sch2.agt", NULL),
                "full_name", "cat2.sch2.agt");
    assert_jstr(api_ok(fx, UC_GET, "/agent-skills/cat2.sch2.skl", NULL),
                "full_name", "cat2.sch2.skl");
    assert_non_null(json_object_get(api_ok(fx, UC_GET,
        "/permissions/table/cat2.sch2.tbl", NULL), "privilege_assignments"));
    api_err(fx, UC_GET, "/tables/cat.sch.tbl", NULL, 404, "CATALOG_NOT_FOUND");
}

/* --- what callers without full rights see ------------------------------ */

static void as_user(afx_t *fx, const char *name)
{
    fx->principal = name;
    fx->principal_is_admin = 0;
}

static void as_admin(afx_t *fx)
{
    fx->principal = "alice";
    fx->principal_is_admin = 1;
}

static void grant(afx_t *fx, const char *type, const char *name,
                  const char *principal, const char *privilege)
{
    as_admin(fx);
    api_ok(fx, UC_PATCH, apr_psprintf(fx->pool, "/permissions/%s/%s", type,
                                      name),
           apr_psprintf(fx->pool, "{\"changes\":[{\"principal\":\"%s\","
                        "\"add\":[\"%s\"]}]}", principal, privilege));
}

static void test_browse_and_visibility(void **state)
{
    afx_t *fx = *state;
    json_t *t, *list;

    world(fx);
    post(fx, "/tables", "{\"name\":\"tb1\"," IN_SCH ",\"table_type\":"
         "\"EXTERNAL\",\"data_source_format\":\"DELTA\",\"storage_location\":"
         "\"s3://x/t1\",\"columns\":[" COL("c", "") "],\"properties\":"
         "{\"secret\":\"s\"}}");
    post(fx, "/tables", "{\"name\":\"tb2\"," IN_SCH ",\"table_type\":"
         "\"VIEW\",\"data_source_format\":\"DELTA\",\"view_definition\":"
         "\"select secret\"}");
    grant(fx, "catalog", "cat", "bob", "BROWSE");

    as_user(fx, "bob");
    api_err(fx, UC_GET, "/tables/cat.sch.tb1", NULL, 403, "PERMISSION_DENIED");
    t = api_ok(fx, UC_GET, "/tables/cat.sch.tb1?include_browse=true", NULL);
    assert_true(json_is_true(json_object_get(t, "browse_only")));
    assert_true(json_is_null(json_object_get(t, "columns")));
    assert_jstr(t, "storage_location", NULL);
    assert_int_equal(json_object_size(json_object_get(t, "properties")), 0);
    assert_jstr(t, "table_type", "EXTERNAL");
    t = api_ok(fx, UC_GET, "/tables/cat.sch.tb2?include_browse=true", NULL);
    assert_jstr(t, "view_definition", NULL);
    list = list_of(api_ok(fx, UC_GET, "/tables?catalog_name=cat&schema_name="
                          "sch&include_browse=true", NULL), "tables");
    assert_int_equal(json_array_size(list), 2);
    assert_true(json_is_true(json_object_get(json_array_get(list, 0),
                                             "browse_only")));
    assert_true(json_is_true(json_object_get(api_ok(fx, UC_GET,
        "/tables/cat.sch.tb1/exists", NULL), "table_exists")));
    api_err(fx, UC_GET, "/tables?catalog_name=cat&schema_name=sch", NULL,
            403, "PERMISSION_DENIED");

    /* USE CATALOG and USE SCHEMA, SELECT on one table. */
    grant(fx, "catalog", "cat", "carol", "USE CATALOG");
    grant(fx, "schema", "cat.sch", "carol", "USE SCHEMA");
    grant(fx, "table", "cat.sch.tb1", "carol", "SELECT");
    as_user(fx, "carol");
    list = list_of(api_ok(fx, UC_GET, "/tables?catalog_name=cat&schema_name="
                          "sch", NULL), "tables");
    assert_int_equal(json_array_size(list), 1);
    assert_jstr(json_array_get(list, 0), "name", "tb1");
    assert_false(json_is_true(json_object_get(json_array_get(list, 0),
                                              "browse_only")));
    assert_int_equal(json_array_size(json_object_get(json_array_get(list, 0),
                                                     "columns")), 1);
    api_err(fx, UC_GET, "/tables/cat.sch.tb2", NULL, 404, "TABLE_NOT_FOUND");
    assert_true(json_is_true(json_object_get(api_ok(fx, UC_GET,
        "/tables/cat.sch.tb1/exists", NULL), "table_exists")));
    /* A table it may not know of does not exist for it. */
    assert_false(json_is_true(json_object_get(api_ok(fx, UC_GET,
        "/tables/cat.sch.tb2/exists", NULL), "table_exists")));
    list = list_of(api_ok(fx, UC_GET, "/table-summaries?catalog_name=cat",
                          NULL), "tables");
    assert_int_equal(json_array_size(list), 1);
    assert_jstr(json_array_get(list, 0), "full_name", "cat.sch.tb1");
    /* SELECT on the schema opens every table in it. */
    grant(fx, "schema", "cat.sch", "carol", "SELECT");
    as_user(fx, "carol");
    assert_int_equal(json_array_size(list_of(api_ok(fx, UC_GET,
        "/tables?catalog_name=cat&schema_name=sch", NULL), "tables")), 2);
    assert_int_equal(json_array_size(list_of(api_ok(fx, UC_GET,
        "/table-summaries?catalog_name=cat", NULL), "tables")), 2);
    /* Someone without anything on the catalog learns nothing. */
    as_user(fx, "eve");
    api_err(fx, UC_GET, "/tables/cat.sch.tb1", NULL, 404, "CATALOG_NOT_FOUND");
    api_err(fx, UC_GET, "/tables/cat.sch.tb1/exists", NULL, 404,
            "CATALOG_NOT_FOUND");
    api_err(fx, UC_GET, "/table-summaries?catalog_name=cat", NULL, 404,
            "CATALOG_NOT_FOUND");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        API_TEST(test_staging_and_managed_table),
        API_TEST(test_managed_table_errors),
        API_TEST(test_external_table_locations),
        API_TEST(test_views),
        API_TEST(test_columns),
        API_TEST(test_table_get_list_delete),
        API_TEST(test_table_summaries),
        API_TEST(test_volumes),
        API_TEST(test_functions),
        API_TEST(test_models_and_versions),
        API_TEST(test_models_across_the_metastore),
        API_TEST(test_agents),
        API_TEST(test_agent_skills),
        API_TEST(test_not_empty_and_force),
        API_TEST(test_renames_keep_objects_reachable),
        API_TEST(test_browse_and_visibility),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("objects", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
