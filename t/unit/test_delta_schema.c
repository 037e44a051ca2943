/* SPDX-License-Identifier: Apache-2.0 */
/* What the UC Delta API makes of a table's columns, protocol and domain
 * metadata, and how it answers errors: Delta struct types kept as the
 * catalog's columns and given back unchanged (every nested type, field
 * metadata, partition columns in any case), Spark's type names and
 * texts, the refusals of what the Delta protocol has no type for; the
 * contract of a catalog-managed table; the API's error types and
 * statuses. */
#include "uc_test.h"

#include "../../src/api/uc_delta_contract.h"
#include "../../src/core/uc_json.h"
#include "../../src/api/uc_delta_schema.h"
#include "../../src/http/uc_render.h"

static json_t *parse(apr_pool_t *pool, const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);

    if (!v)
        fail_msg("bad test JSON: %s: %s", e.text, text);
    return uc_json_own(pool, v);
}

#define FIELDS \
    "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false," \
    "\"metadata\":{\"comment\":\"the key\"}}," \
    "{\"name\":\"Price\",\"type\":\"decimal(38,0)\",\"nullable\":true," \
    "\"metadata\":{}}," \
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"key-type\":\"string\"," \
    "\"value-type\":{\"type\":\"array\",\"element-type\":\"timestamp_ntz\"," \
    "\"contains-null\":true},\"value-contains-null\":false}," \
    "\"nullable\":true,\"metadata\":{}}," \
    "{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":" \
    "\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":" \
    "{\"delta.columnMapping.id\":3}}]},\"nullable\":true,\"metadata\":{}}]"

static json_t *struct_of(apr_pool_t *pool, const char *fields)
{
    return parse(pool, apr_pstrcat(pool, "{\"type\":\"struct\",\"fields\":",
                                   fields, "}", NULL));
}

static json_t *column(json_t *columns, size_t i, const char *key)
{
    return json_object_get(json_array_get(columns, i), key);
}

static void test_round_trip(void **state)
{
    apr_pool_t *pool = *state;
    json_t *in = struct_of(pool, FIELDS), *columns, *back, *partitions;

    assert_ok(uc_delta_schema_read(pool, "columns", in,
                                   parse(pool, "[\"PRICE\",\"id\"]"),
                                   &columns));
    assert_int_equal(json_array_size(columns), 4);
    assert_string_equal(json_string_value(column(columns, 0, "type_text")),
                        "bigint");
    assert_string_equal(json_string_value(column(columns, 0, "type_name")),
                        "LONG");
    assert_string_equal(json_string_value(column(columns, 0, "comment")),
                        "the key");
    assert_true(json_is_false(column(columns, 0, "nullable")));
    assert_string_equal(json_string_value(column(columns, 1, "type_name")),
                        "DECIMAL");
    assert_string_equal(json_string_value(column(columns, 2, "type_text")),
                        "map<string,array<timestamp_ntz>>");
    assert_string_equal(json_string_value(column(columns, 3, "type_text")),
                        "struct<a:int>");
    /* The log's spelling, camel case, in type_json. */
    assert_non_null(strstr(json_string_value(column(columns, 2,
                                                    "type_json")),
                           "\"valueContainsNull\":false"));
    assert_int_equal(json_integer_value(column(columns, 1,
                                               "partition_index")), 0);
    assert_int_equal(json_integer_value(column(columns, 0,
                                               "partition_index")), 1);
    assert_true(json_is_null(column(columns, 2, "partition_index")));

    back = uc_delta_schema_write(pool, columns, &partitions);
    assert_true(json_equal(back, in));
    assert_true(json_equal(partitions,
                           parse(pool, "[\"Price\",\"id\"]")));
}

static void test_refusals(void **state)
{
    static const char *const bad[] = {
        "[]",
        "[{\"name\":\"x\",\"type\":\"varchar(3)\",\"nullable\":true,"
        "\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":\"decimal(39,1)\",\"nullable\":true,"
        "\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":\"decimal(3,4)\",\"nullable\":true,"
        "\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":\"long\",\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true}]",
        "[{\"name\":\"\",\"type\":\"long\",\"nullable\":true,"
        "\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":{\"type\":\"array\",\"element-type\":"
        "\"long\"},\"nullable\":true,\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":{\"type\":\"array\",\"elementType\":"
        "\"long\",\"containsNull\":true},\"nullable\":true,"
        "\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":{\"type\":\"struct\",\"fields\":[]},"
        "\"nullable\":true,\"metadata\":{}}]",
        "[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":"
        "{}},{\"name\":\"X\",\"type\":\"long\",\"nullable\":true,"
        "\"metadata\":{}}]",
    };
    apr_pool_t *pool = *state;
    json_t *columns, *deep = uc_json_own(pool, json_string("long"));
    size_t i;
    int d;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_invalid(uc_delta_schema_read(pool, "columns",
                                            struct_of(pool, bad[i]), NULL,
                                            &columns));
    assert_invalid(uc_delta_schema_read(pool, "columns", NULL, NULL,
                                        &columns));
    assert_invalid(uc_delta_schema_read(pool, "columns",
                                        struct_of(pool, FIELDS),
                                        parse(pool, "[\"nope\"]"),
                                        &columns));
    assert_invalid(uc_delta_schema_read(pool, "columns",
                                        struct_of(pool, FIELDS),
                                        parse(pool, "[\"id\",\"ID\"]"),
                                        &columns));
    /* Nested past the bound. */
    for (d = 0; d < 40; d++)
        deep = uc_json_own(pool, json_pack(
            "{sssOsb}", "type", "array", "element-type", deep,
            "contains-null", 1));
    assert_invalid(uc_delta_schema_read(
        pool, "columns", uc_json_own(pool, json_pack(
            "{ss s[{sssOsbs{}}]}", "type", "struct", "fields", "name", "x",
            "type", deep, "nullable", 1, "metadata")), NULL, &columns));
}

/* A column of the catalog API without type_json is described from its
 * type_name; one that cannot be leaves the struct empty. */
static void test_catalog_columns(void **state)
{
    apr_pool_t *pool = *state;
    json_t *partitions, *out = uc_delta_schema_write(pool, parse(pool,
        "[{\"name\":\"a\",\"type_name\":\"INT\",\"nullable\":true,"
        "\"comment\":\"c\",\"partition_index\":0},"
        "{\"name\":\"d\",\"type_name\":\"DECIMAL\",\"type_precision\":9,"
        "\"type_scale\":2,\"nullable\":false}]"), &partitions);

    if (!json_equal(out, parse(pool,
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":"
        "\"integer\",\"nullable\":true,\"metadata\":{\"comment\":\"c\"}},"
        "{\"name\":\"d\",\"type\":\"decimal(9,2)\",\"nullable\":false,"
        "\"metadata\":{}}]}")))
        fail_msg("%s", uc_json_dump(pool, out));
    assert_true(json_equal(partitions, parse(pool, "[\"a\"]")));
    out = uc_delta_schema_write(pool, parse(pool,
        "[{\"name\":\"a\",\"type_name\":\"INT\",\"nullable\":true},"
        "{\"name\":\"u\",\"type_name\":\"USER_DEFINED_TYPE\","
        "\"nullable\":true,\"partition_index\":0}]"), &partitions);
    assert_int_equal(json_array_size(json_object_get(out, "fields")), 0);
    assert_int_equal(json_array_size(partitions), 0);
}

#define MANAGED_PROTOCOL \
    "{\"min-reader-version\":3,\"min-writer-version\":7,\"reader-features\":" \
    "[\"catalogManaged\",\"deletionVectors\",\"v2Checkpoint\"," \
    "\"vacuumProtocolCheck\"],\"writer-features\":[\"catalogManaged\"," \
    "\"deletionVectors\",\"v2Checkpoint\",\"vacuumProtocolCheck\"," \
    "\"inCommitTimestamp\"]}"
#define MANAGED_PROPERTIES \
    "{\"delta.enableDeletionVectors\":\"true\",\"delta.checkpointPolicy\":" \
    "\"v2\",\"delta.enableInCommitTimestamps\":\"true\"," \
    "\"delta.checkpoint.writeStatsAsStruct\":\"true\"," \
    "\"delta.checkpoint.writeStatsAsJson\":\"true\"," \
    "\"io.unitycatalog.tableId\":\"t1\",\"delta.feature.old\":\"supported\"}"

static void test_contract(void **state)
{
    apr_pool_t *pool = *state;
    uc_delta_protocol_t p;
    json_t *props = parse(pool, MANAGED_PROPERTIES);

    assert_ok(uc_delta_protocol_read(pool, "protocol",
                                     parse(pool, MANAGED_PROTOCOL), &p));
    uc_delta_protocol_apply(props, &p);
    assert_null(json_object_get(props, "delta.feature.old"));
    assert_string_equal(json_string_value(json_object_get(
        props, "delta.feature.inCommitTimestamp")), "supported");
    assert_string_equal(json_string_value(json_object_get(
        props, "delta.minWriterVersion")), "7");
    assert_ok(uc_delta_contract_check(pool, &p, props));

    json_object_set_new(props, "delta.checkpointPolicy",
                        json_string("classic"));
    assert_invalid(uc_delta_contract_check(pool, &p, props));
    json_object_set_new(props, "delta.checkpointPolicy", json_string("v2"));
    assert_ok(uc_delta_domains_set(pool, parse(pool,
        "{\"delta.clustering\":{\"clusteringColumns\":[[\"a\",\"b\"]]}}"),
        props));
    assert_string_equal(json_string_value(json_object_get(
        props, "clusteringColumns")), "[[\"a\",\"b\"]]");
    assert_invalid(uc_delta_contract_check(pool, &p, props));
    assert_ok(uc_delta_domains_remove(pool, parse(pool,
                                                  "[\"delta.clustering\"]"),
                                      props));
    assert_ok(uc_delta_contract_check(pool, &p, props));
    assert_invalid(uc_delta_domains_set(pool, parse(pool,
        "{\"delta.other\":{}}"), props));
    assert_invalid(uc_delta_domains_set(pool, parse(pool,
        "{\"delta.rowTracking\":{\"rowIdHighWaterMark\":-1}}"), props));
    assert_true(uc_delta_domains_only(parse(pool,
        "{\"delta.rowTracking\":{\"rowIdHighWaterMark\":5}}"),
        "delta.rowTracking"));

    assert_ok(uc_delta_protocol_read(pool, "protocol", parse(pool,
        "{\"min-reader-version\":3,\"min-writer-version\":7,"
        "\"reader-features\":[\"catalogManaged\"],\"writer-features\":[]}"),
        &p));
    assert_invalid(uc_delta_contract_check(pool, &p, props));
    assert_invalid(uc_delta_protocol_read(pool, "protocol",
                                          parse(pool, "{}"), &p));
}

/* The API's errors: its type names, and 409 for a name taken. */
static void test_error_dialect(void **state)
{
    static const struct {
        uc_error_kind_t kind;
        const char *type;
        int status;
    } cases[] = {
        { UC_E_INVALID, "InvalidParameterValueException", 400 },
        { UC_E_MALFORMED_REQUEST, "BadRequestException", 400 },
        { UC_E_TABLE_NOT_FOUND, "NoSuchTableException", 404 },
        { UC_E_SCHEMA_NOT_FOUND, "NoSuchSchemaException", 404 },
        { UC_E_ENDPOINT_NOT_FOUND, "NotFoundException", 404 },
        { UC_E_TABLE_ALREADY_EXISTS, "AlreadyExistsException", 409 },
        { UC_E_RESOURCE_EXHAUSTED, "ResourceExhaustedException", 429 },
        { UC_E_UPDATE_REQUIREMENT_CONFLICT,
          "UpdateRequirementConflictException", 409 },
        { UC_E_UNSUPPORTED_TABLE_FORMAT, "UnsupportedTableFormatException",
          400 },
        { UC_E_COMMIT_STATE_UNKNOWN, "CommitStateUnknownException", 500 },
        { UC_E_STORAGE, "InternalServerErrorException", 502 },
    };
    apr_pool_t *pool = *state;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uc_error_t *err = uc_error_make(pool, cases[i].kind, "m");
        json_t *body = json_object_get(uc_render_delta_error(pool, err),
                                       "error");
        assert_string_equal(json_string_value(json_object_get(body, "type")),
                            cases[i].type);
        assert_int_equal(json_integer_value(json_object_get(body, "code")),
                         cases[i].status);
        assert_int_equal(uc_render_delta_status(err), cases[i].status);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_round_trip),
        UC_POOL_TEST(test_refusals),
        UC_POOL_TEST(test_catalog_columns),
        UC_POOL_TEST(test_contract),
        UC_POOL_TEST(test_error_dialect),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("delta_schema", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
