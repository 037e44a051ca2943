/* SPDX-License-Identifier: Apache-2.0 */
/* Partition pruning by jsonPredicateHints: the PROTOCOL's examples, every
 * op and valueType, nulls and three-valued logic, hints that are ignored,
 * the limits, and the files of partitioned fixture tables. */
#include "uc_test_reader.h"

#include <apr_file_info.h>

#include "../../src/sharing/uc_sharing_predicate.h"

/* Every partition column type, and one data column (v). */
#define F(name, type) "{\\\"name\\\":\\\"" name "\\\",\\\"type\\\":\\\"" type \
    "\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}"
static const char META[] =
    "{\"id\":\"m\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
    "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
    F("b", "boolean") "," F("i", "integer") "," F("sh", "short") ","
    F("l", "long") "," F("s", "string") "," F("hireDate", "date") ","
    F("f", "float") "," F("x", "double") "," F("t", "timestamp") ","
    F("dec", "decimal(10,2)") "," F("ntz", "timestamp_ntz") ","
    F("id", "integer") "," F("v", "string") "]}\","
    "\"partitionColumns\":[\"b\",\"i\",\"sh\",\"l\",\"s\",\"hireDate\","
    "\"f\",\"x\",\"t\",\"dec\",\"ntz\",\"id\"],"
    "\"configuration\":{},\"createdTime\":0}";

static const uc_sharing_predicate_t *parsed(apr_pool_t *pool,
                                            const char *hint)
{
    uc_sharing_predicate_t *pred = (void *)1;

    assert_ok(uc_sharing_predicate_parse(pool, hint, META, &pred));
    return pred;
}

static int keeps(apr_pool_t *pool, const char *hint, const char *values)
{
    const uc_sharing_predicate_t *pred = parsed(pool, hint);

    if (!pred)
        fail_msg("hint ignored: %s", hint);
    return uc_sharing_predicate_keeps(pred, pool, values);
}

static void assert_ignored(apr_pool_t *pool, const char *hint)
{
    if (parsed(pool, hint))
        fail_msg("hint not ignored: %s", hint);
}

/* A comparison of column `col` with a literal, both of `type`. */
static const char *cmp(apr_pool_t *pool, const char *op, const char *col,
                       const char *type, const char *lit)
{
    return apr_psprintf(pool, "{\"op\":\"%s\",\"children\":["
                        "{\"op\":\"column\",\"name\":\"%s\",\"valueType\":"
                        "\"%s\"},{\"op\":\"literal\",\"value\":\"%s\","
                        "\"valueType\":\"%s\"}]}", op, col, type, lit, type);
}

static const char *wrap(apr_pool_t *pool, const char *op, const char *a,
                        const char *b)
{
    return b ? apr_psprintf(pool, "{\"op\":\"%s\",\"children\":[%s,%s]}",
                            op, a, b)
             : apr_psprintf(pool, "{\"op\":\"%s\",\"children\":[%s]}", op, a);
}

static const char *is_null(apr_pool_t *pool, const char *col,
                           const char *type)
{
    return apr_psprintf(pool, "{\"op\":\"isNull\",\"children\":[{\"op\":"
                        "\"column\",\"name\":\"%s\",\"valueType\":\"%s\"}]}",
                        col, type);
}

/* --- the PROTOCOL's examples --------------------------------------------- */

static void test_protocol_examples(void **state)
{
    apr_pool_t *pool = *state;
    const char *ex1 =
        "{\"op\": \"equal\", \"children\": ["
        "{\"op\": \"column\", \"name\":\"hireDate\", \"valueType\":\"date\"},"
        "{\"op\":\"literal\",\"value\":\"2021-04-29\",\"valueType\":\"date\"}"
        "]}";
    const char *ex2 =
        "{\"op\":\"and\",\"children\":[{\"op\":\"equal\",\"children\":["
        "{\"op\":\"column\",\"name\":\"hireDate\",\"valueType\":\"date\"},"
        "{\"op\":\"literal\",\"value\":\"2021-04-29\",\"valueType\":\"date\"}"
        "]},{\"op\":\"lessThan\",\"children\":["
        "{\"op\":\"column\",\"name\":\"id\",\"valueType\":\"int\"},"
        "{\"op\":\"literal\",\"value\":\"25\",\"valueType\":\"int\"}]}]}";
    /* As printed, with a trailing comma: not JSON, so ignored. */
    const char *ex3_printed =
        "{\"op\": \"not\", \"children\": [{\"op\": \"isNull\", \"children\":["
        "{\"op\":\"column\",\"name\":\"id\",\"valueType\":\"int\"},]}]}";
    const char *ex3 =
        "{\"op\": \"not\", \"children\": [{\"op\": \"isNull\", \"children\":["
        "{\"op\":\"column\",\"name\":\"id\",\"valueType\":\"int\"}]}]}";

    assert_true(keeps(pool, ex1, "{\"hireDate\":\"2021-04-29\"}"));
    assert_false(keeps(pool, ex1, "{\"hireDate\":\"2021-04-30\"}"));
    assert_true(keeps(pool, ex1, "{\"hireDate\":null}"));
    assert_true(keeps(pool, ex2, "{\"hireDate\":\"2021-04-29\",\"id\":\"24\"}"));
    assert_false(keeps(pool, ex2,
                       "{\"hireDate\":\"2021-04-29\",\"id\":\"25\"}"));
    assert_false(keeps(pool, ex2, "{\"hireDate\":\"2021-04-28\",\"id\":null}"));
    assert_true(keeps(pool, ex2, "{\"hireDate\":\"2021-04-29\",\"id\":null}"));
    assert_ignored(pool, ex3_printed);
    assert_false(keeps(pool, ex3, "{\"id\":null}"));
    assert_false(keeps(pool, ex3, "{\"id\":\"\"}"));
    assert_true(keeps(pool, ex3, "{\"id\":\"7\"}"));
}

/* --- ops and types -------------------------------------------------------------- */

/* The five comparisons of a value below, at and above the literal: which
 * keep (bits: lt le eq ge gt). */
static void check_ops(apr_pool_t *pool, const char *col, const char *type,
                      const char *lit, const char *below, const char *at,
                      const char *above)
{
    static const char *const names[5] = { "lessThan", "lessThanOrEqual",
                                          "equal", "greaterThanOrEqual",
                                          "greaterThan" };
    /* For each op, whether below, at, above keep. */
    static const int want[5][3] = { { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 },
                                    { 0, 1, 1 }, { 0, 0, 1 } };
    const char *vals[3] = { below, at, above };
    int o, v;

    for (o = 0; o < 5; o++)
        for (v = 0; v < 3; v++) {
            const char *pv = apr_psprintf(pool, "{\"%s\":\"%s\"}", col,
                                          vals[v]);
            const char *h = cmp(pool, names[o], col, type, lit);

            if (keeps(pool, h, pv) != want[o][v])
                fail_msg("%s %s %s: want %d", h, col, vals[v], want[o][v]);
            /* not inverts a decided comparison. */
            if (keeps(pool, wrap(pool, "not", h, NULL), pv) == want[o][v])
                fail_msg("not %s on %s: want %d", h, vals[v], !want[o][v]);
        }
}

static void test_every_op_and_type(void **state)
{
    apr_pool_t *pool = *state;

    check_ops(pool, "i", "int", "5", "-3", "5", "12");
    check_ops(pool, "i", "long", "5", "4", "+5", "6");
    check_ops(pool, "sh", "int", "-2", "-3", "-2", "0");
    check_ops(pool, "l", "long", "9223372036854775806",
              "-9223372036854775808", "9223372036854775806",
              "9223372036854775807");
    check_ops(pool, "l", "long", "3000000000", "2999999999", "3000000000",
              "3000000001");
    /* Bytewise: "12" < "4", "B" < "a", "" is null so never compared. */
    check_ops(pool, "s", "string", "4", "12", "4", "a");
    check_ops(pool, "s", "string", "a", "B", "a", "\\u00e9");
    check_ops(pool, "hireDate", "date", "2021-04-29", "2020-12-31",
              "2021-4-29", "2021-05-01");
    /* false < true; any case. */
    assert_true(keeps(pool, cmp(pool, "lessThan", "b", "bool", "True"),
                      "{\"b\":\"FALSE\"}"));
    assert_false(keeps(pool, cmp(pool, "lessThan", "b", "bool", "true"),
                       "{\"b\":\"true\"}"));
    assert_true(keeps(pool, cmp(pool, "greaterThanOrEqual", "b", "bool",
                                "false"), "{\"b\":\"true\"}"));
    assert_false(keeps(pool, cmp(pool, "equal", "b", "bool", "false"),
                       "{\"b\":\"true\"}"));
    check_ops(pool, "f", "float", "0.1", "-Infinity", "0.1", "1e3");
    check_ops(pool, "x", "double", "0.1", "0.09999999", "1e-1", "Infinity");
    check_ops(pool, "t", "timestamp", "2021-01-01T00:00:00Z",
              "2020-12-31T23:59:59.999999999Z", "2021-01-01T01:00:00+01:00",
              "2021-01-01T00:00:00.000000001Z");
}

static void test_timestamps(void **state)
{
    apr_pool_t *pool = *state;
    const char *lit = "2021-01-02T00:00:00Z";
    const char *wall = "{\"t\":\"2021-01-02 00:00:00\"}";
    const char *far = "{\"t\":\"2021-01-04 00:00:00.5\"}";

    /* A value without a zone is any instant within 18 hours of it. */
    assert_true(keeps(pool, cmp(pool, "equal", "t", "timestamp", lit), wall));
    assert_true(keeps(pool, wrap(pool, "not", cmp(pool, "equal", "t",
                                                  "timestamp", lit), NULL),
                      wall));
    assert_true(keeps(pool, cmp(pool, "lessThan", "t", "timestamp", lit),
                      wall));
    assert_false(keeps(pool, cmp(pool, "equal", "t", "timestamp", lit), far));
    assert_false(keeps(pool, cmp(pool, "lessThan", "t", "timestamp", lit),
                       far));
    assert_true(keeps(pool, wrap(pool, "not", cmp(pool, "equal", "t",
                                                  "timestamp", lit), NULL),
                      far));
    assert_false(keeps(pool, cmp(pool, "greaterThan", "t", "timestamp",
                                 "2021-01-04T18:00:00.500000001Z"), far));
    assert_true(keeps(pool, cmp(pool, "greaterThan", "t", "timestamp",
                                "2021-01-04T18:00:00.4Z"), far));
    /* A literal must carry its zone; seconds are optional. */
    assert_true(keeps(pool, cmp(pool, "equal", "t", "timestamp",
                                "2021-01-02 00:00:00"), far));
    assert_true(keeps(pool, cmp(pool, "equal", "t", "timestamp",
                                "2021-01-02T00:00-05:00"),
                      "{\"t\":\"2021-01-02T05:00:00Z\"}"));
    assert_false(keeps(pool, cmp(pool, "equal", "t", "timestamp",
                                 "2021-01-02T00:00-05:00"),
                       "{\"t\":\"2021-01-02T05:00:01Z\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "t", "timestamp",
                                "2021-01-02T24:00:00Z"),
                      "{\"t\":\"2020-01-01T00:00:00Z\"}"));
}

/* --- nulls and three-valued logic ---------------------------------------- */

static void test_nulls(void **state)
{
    apr_pool_t *pool = *state;
    const char *eq = cmp(pool, "equal", "s", "string", "a");

    assert_true(keeps(pool, is_null(pool, "s", "string"), "{\"s\":null}"));
    assert_true(keeps(pool, is_null(pool, "s", "string"), "{\"s\":\"\"}"));
    assert_false(keeps(pool, is_null(pool, "s", "string"), "{\"s\":\"a\"}"));
    /* Nullness does not depend on the type. */
    assert_false(keeps(pool, is_null(pool, "dec", "int"),
                       "{\"dec\":\"1.50\"}"));
    assert_true(keeps(pool, is_null(pool, "s", "string"), "{}"));
    assert_true(keeps(pool, is_null(pool, "v", "string"), "{\"s\":\"a\"}"));
    /* A comparison with null is unknown, and so is its negation. */
    assert_true(keeps(pool, eq, "{\"s\":null}"));
    assert_true(keeps(pool, wrap(pool, "not", eq, NULL), "{\"s\":null}"));
    assert_true(keeps(pool, wrap(pool, "not", eq, NULL), "{\"s\":\"\"}"));
    assert_false(keeps(pool, wrap(pool, "not", is_null(pool, "s", "string"),
                                  NULL), "{\"s\":null}"));
    /* isNull of a literal is false. */
    assert_false(keeps(pool, "{\"op\":\"isNull\",\"children\":[{\"op\":"
                       "\"literal\",\"value\":\"1\",\"valueType\":\"int\"}]}",
                       "{}"));
}

static void test_three_valued(void **state)
{
    apr_pool_t *pool = *state;
    const char *t = cmp(pool, "equal", "i", "int", "1");
    const char *f = cmp(pool, "equal", "i", "int", "2");
    const char *u = cmp(pool, "equal", "v", "string", "x");
    const char *pv = "{\"i\":\"1\"}";

    assert_false(keeps(pool, wrap(pool, "and", f, u), pv));
    assert_false(keeps(pool, wrap(pool, "and", u, f), pv));
    assert_true(keeps(pool, wrap(pool, "and", t, u), pv));
    assert_true(keeps(pool, wrap(pool, "and", t, t), pv));
    assert_true(keeps(pool, wrap(pool, "or", t, u), pv));
    assert_true(keeps(pool, wrap(pool, "or", f, u), pv));
    assert_false(keeps(pool, wrap(pool, "or", f, f), pv));
    assert_true(keeps(pool, wrap(pool, "not", u, NULL), pv));
    assert_true(keeps(pool, wrap(pool, "not", wrap(pool, "and", t, u), NULL),
                      pv));
    assert_false(keeps(pool, wrap(pool, "not", wrap(pool, "or", t, u), NULL),
                       pv));
    assert_false(keeps(pool, apr_psprintf(pool, "{\"op\":\"and\","
                                          "\"children\":[%s,%s,%s]}", t, u, f),
                       pv));
    /* A bool column or literal stands as a predicate. */
    assert_false(keeps(pool, "{\"op\":\"and\",\"children\":[{\"op\":\"column\","
                       "\"name\":\"b\",\"valueType\":\"bool\"},{\"op\":"
                       "\"literal\",\"value\":\"true\",\"valueType\":"
                       "\"bool\"}]}", "{\"b\":\"false\"}"));
    assert_true(keeps(pool, "{\"op\":\"column\",\"name\":\"b\",\"valueType\":"
                      "\"bool\"}", "{\"b\":null}"));
    assert_false(keeps(pool, "{\"op\":\"not\",\"children\":[{\"op\":"
                       "\"column\",\"name\":\"B\",\"valueType\":\"bool\"}]}",
                       "{\"b\":\"true\"}"));
}

/* Whatever cannot be decided keeps the file. */
static void test_undecidable_kept(void **state)
{
    apr_pool_t *pool = *state;
    const char *mixed = "{\"op\":\"equal\",\"children\":[{\"op\":\"column\","
        "\"name\":\"i\",\"valueType\":\"int\"},{\"op\":\"literal\","
        "\"value\":\"1\",\"valueType\":\"long\"}]}";

    assert_true(keeps(pool, cmp(pool, "equal", "v", "string", "x"),
                      "{\"v\":\"y\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "nope", "string", "x"), "{}"));
    assert_true(keeps(pool, cmp(pool, "equal", "dec", "double", "1.5"),
                      "{\"dec\":\"2.50\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "ntz", "timestamp",
                                "2021-01-01T00:00:00Z"),
                      "{\"ntz\":\"1999-01-01 00:00:00\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "i", "string", "x"),
                      "{\"i\":\"1\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "x", "float", "1"),
                      "{\"x\":\"2\"}"));
    assert_true(keeps(pool, mixed, "{\"i\":\"2\"}"));
    /* Values and literals that do not parse as their type. */
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "1"),
                      "{\"i\":\"2021.0\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "x"),
                      "{\"i\":\"2\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "3000000000"),
                      "{\"i\":\"2\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "l", "long",
                                "9223372036854775808"), "{\"l\":\"2\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "hireDate", "date",
                                "2021-02-29"), "{\"hireDate\":\"2021-03-01\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "x", "double", "NaN"),
                      "{\"x\":\"1\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "x", "double", "1"),
                      "{\"x\":\"NaN\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "x", "double", "0x1p3"),
                      "{\"x\":\"8\"}"));
    assert_true(keeps(pool, cmp(pool, "equal", "b", "bool", "yes"),
                      "{\"b\":\"false\"}"));
    /* Partition values that do not read as an object of strings. */
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "1"),
                      "{\"i\":2}"));
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "1"), "{\"i\":"));
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "1"), "[]"));
    assert_true(keeps(pool, cmp(pool, "equal", "i", "int", "1"),
                      "{\"i\":\"\\x\"}"));
    assert_true(uc_sharing_predicate_keeps(NULL, pool, "{}"));
}

/* Keys and values escaped in the log, and column names in any case. */
static void test_escapes_and_case(void **state)
{
    apr_pool_t *pool = *state;
    const char *h = cmp(pool, "equal", "S", "string", "A/A \\u00e9\\ud83d\\ude00");

    assert_true(keeps(pool, h, "{\"\\u0073\":\"A\\/A \\u00E9\\uD83D\\uDE00\"}"));
    assert_true(keeps(pool, h, "{ \"s\" : \"A/A \xc3\xa9\xf0\x9f\x98\x80\" }"));
    assert_false(keeps(pool, h, "{\"i\":\"1\",\"s\":\"A\\\\A\"}"));
    assert_true(keeps(pool, h, "{\"s\":\"\\ud83d\"}"));
}

/* --- hints that are ignored ------------------------------------------------ */

static void test_ignored_hints(void **state)
{
    apr_pool_t *pool = *state;
    const char *col = "{\"op\":\"column\",\"name\":\"i\",\"valueType\":\"int\"}";
    const char *lit = "{\"op\":\"literal\",\"value\":\"1\",\"valueType\":"
                      "\"int\"}";
    const char *eq = cmp(pool, "equal", "i", "int", "1");
    static const char *const bad[] = {
        "", "not json", "[]", "\"equal\"", "{}", "{\"op\":1}",
        "{\"op\":\"like\",\"children\":[]}",
        "{\"op\":\"column\",\"name\":\"i\",\"valueType\":\"decimal\"}",
        "{\"op\":\"column\",\"name\":\"i\",\"valueType\":\"int\"}",
        "{\"op\":\"literal\",\"value\":\"1\",\"valueType\":\"int\"}",
        "{\"op\":\"column\",\"valueType\":\"bool\"}",
        "{\"op\":\"literal\",\"value\":true,\"valueType\":\"bool\"}",
        "{\"op\":\"column\",\"name\":\"b\",\"valueType\":\"bool\","
        "\"children\":[{\"op\":\"column\",\"name\":\"b\","
        "\"valueType\":\"bool\"}]}",
        "{\"op\":\"not\",\"children\":{}}",
        "{\"op\":\"not\"}",
        "{\"op\":\"equal\",\"op\":\"and\",\"children\":[]}",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_ignored(pool, bad[i]);
    assert_ignored(pool, NULL);
    /* Arity. */
    assert_ignored(pool, wrap(pool, "and", eq, NULL));
    assert_ignored(pool, wrap(pool, "or", eq, NULL));
    assert_ignored(pool, wrap(pool, "not", eq, eq));
    assert_ignored(pool, wrap(pool, "isNull", col, col));
    assert_ignored(pool, wrap(pool, "equal", col, NULL));
    assert_ignored(pool, apr_psprintf(pool, "{\"op\":\"equal\",\"children\":"
                                      "[%s,%s,%s]}", col, lit, lit));
    assert_ignored(pool, "{\"op\":\"and\",\"children\":[]}");
    /* Children of the wrong kind. */
    assert_ignored(pool, wrap(pool, "equal", col, eq));
    assert_ignored(pool, wrap(pool, "isNull", eq, NULL));
    assert_ignored(pool, wrap(pool, "and", eq, col));
    assert_ignored(pool, wrap(pool, "not", lit, NULL));
    /* One bad node anywhere spoils the whole hint. */
    assert_ignored(pool, wrap(pool, "or", eq, "{\"op\":\"nope\"}"));
    /* Unknown members are no harm. */
    assert_false(keeps(pool, "{\"op\":\"equal\",\"x\":[1],\"children\":["
                       "{\"op\":\"column\",\"name\":\"i\",\"valueType\":"
                       "\"int\"},{\"op\":\"literal\",\"value\":\"1\","
                       "\"valueType\":\"int\",\"name\":\"z\"}]}",
                       "{\"i\":\"2\"}"));
}

static const char *nested_nots(apr_pool_t *pool, int nots)
{
    const char *h = cmp(pool, "equal", "i", "int", "1");
    int k;

    for (k = 0; k < nots; k++)
        h = wrap(pool, "not", h, NULL);
    return h;
}

/* The ors of `n` comparisons: 3n + 1 ops. */
static const char *wide_or(apr_pool_t *pool, int n)
{
    const char *eq = cmp(pool, "equal", "i", "int", "1");
    char *h = apr_pstrdup(pool, "{\"op\":\"or\",\"children\":[");
    int k;

    for (k = 0; k < n; k++)
        h = apr_pstrcat(pool, h, k ? "," : "", eq, NULL);
    return apr_pstrcat(pool, h, "]}", NULL);
}

static void test_limits(void **state)
{
    apr_pool_t *pool = *state;
    char *big;
    const char *h = cmp(pool, "equal", "i", "int", "1");
    size_t len = strlen(h);

    /* 98 nots, the comparison, its leaves: 100 levels. */
    assert_false(keeps(pool, nested_nots(pool, 98), "{\"i\":\"2\"}"));
    assert_ignored(pool, nested_nots(pool, 99));
    assert_ignored(pool, nested_nots(pool, 5000));
    assert_true(keeps(pool, wide_or(pool, 3333), "{\"i\":\"1\"}"));
    assert_ignored(pool, wide_or(pool, 3334));
    /* 1 MiB of text with trailing blanks is fine, a byte more is not. */
    big = apr_palloc(pool, UC_SHARING_PREDICATE_MAX_TEXT + 2);
    memcpy(big, h, len);
    memset(big + len, ' ', UC_SHARING_PREDICATE_MAX_TEXT - len);
    big[UC_SHARING_PREDICATE_MAX_TEXT] = '\0';
    assert_false(keeps(pool, big, "{\"i\":\"2\"}"));
    big[UC_SHARING_PREDICATE_MAX_TEXT] = ' ';
    big[UC_SHARING_PREDICATE_MAX_TEXT + 1] = '\0';
    assert_ignored(pool, big);
}

/* Metadata: column mapping's physical names, and metadata that cannot tell
 * the partition columns (every column unknown). */
static void test_metadata(void **state)
{
    apr_pool_t *pool = *state;
    static const char mapped[] =
        "{\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
        "{\\\"name\\\":\\\"Region\\\",\\\"type\\\":\\\"string\\\","
        "\\\"nullable\\\":true,\\\"metadata\\\":{\\\"delta.columnMapping.id"
        "\\\":1,\\\"delta.columnMapping.physicalName\\\":\\\"col-1a\\\"}}]}\","
        "\"partitionColumns\":[\"Region\"],\"configuration\":"
        "{\"delta.columnMapping.mode\":\"name\"}}";
    const char *h = cmp(pool, "equal", "region", "string", "eu");
    uc_sharing_predicate_t *pred;

    assert_ok(uc_sharing_predicate_parse(pool, h, mapped, &pred));
    assert_non_null(pred);
    assert_false(uc_sharing_predicate_keeps(pred, pool,
                                            "{\"col-1a\":\"us\"}"));
    assert_true(uc_sharing_predicate_keeps(pred, pool, "{\"col-1a\":\"eu\"}"));
    assert_true(uc_sharing_predicate_keeps(pred, pool, "{\"Region\":\"us\"}"));
    assert_ok(uc_sharing_predicate_parse(pool, h, "{\"partitionColumns\":"
                                         "[\"region\"]}", &pred));
    assert_true(uc_sharing_predicate_keeps(pred, pool, "{\"region\":\"us\"}"));
    assert_ok(uc_sharing_predicate_parse(pool, h, "not json", &pred));
    assert_true(uc_sharing_predicate_keeps(pred, pool, "{\"region\":\"us\"}"));
    assert_ok(uc_sharing_predicate_parse(pool, h, NULL, &pred));
    assert_true(uc_sharing_predicate_keeps(pred, pool, "{\"region\":\"us\"}"));
}

/* More columns than the scanner keeps on the stack. */
static void test_many_columns(void **state)
{
    apr_pool_t *pool = *state;
    const char *schema = "", *parts = "", *values = "", *h = NULL, *meta;
    uc_sharing_predicate_t *pred;
    int k;

    for (k = 0; k < 40; k++) {
        const char *name = apr_psprintf(pool, "c%d", k);

        schema = apr_psprintf(pool, "%s%s{\\\"name\\\":\\\"%s\\\",\\\"type"
                              "\\\":\\\"integer\\\"}", schema, k ? "," : "",
                              name);
        parts = apr_psprintf(pool, "%s%s\"%s\"", parts, k ? "," : "", name);
        values = apr_psprintf(pool, "%s%s\"%s\":\"%d\"", values,
                              k ? "," : "", name, k);
        h = h ? wrap(pool, "and", h, cmp(pool, "equal", name, "int",
                                         apr_itoa(pool, k)))
              : cmp(pool, "equal", name, "int", "0");
    }
    meta = apr_psprintf(pool, "{\"schemaString\":\"{\\\"type\\\":\\\"struct"
                        "\\\",\\\"fields\\\":[%s]}\",\"partitionColumns\":"
                        "[%s]}", schema, parts);
    assert_ok(uc_sharing_predicate_parse(pool, h, meta, &pred));
    assert_non_null(pred);
    assert_true(uc_sharing_predicate_keeps(pred, pool, apr_psprintf(
        pool, "{%s}", values)));
    assert_false(uc_sharing_predicate_keeps(pred, pool, apr_psprintf(
        pool, "{%s,\"c39\":\"1\"}", values)));
}

/* --- fixture tables --------------------------------------------------------- */

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

static apr_status_t release_snapshot(void *s)
{
    uc_delta_snapshot_release(s);
    return APR_SUCCESS;
}

static const uc_delta_snapshot_t *snapshot_of(apr_pool_t *pool,
                                              const char *name)
{
    uc_delta_table_t *table;
    uc_delta_snapshot_t *s;

    assert_ok(uc_delta_table_open(pool, apr_pstrcat(pool, "file://",
                                                    fixtures_root(pool), "/",
                                                    name, NULL),
                                  NULL, &table));
    assert_ok(uc_delta_snapshot(table, UC_DELTA_LATEST, &s));
    apr_pool_cleanup_register(pool, s, release_snapshot,
                              apr_pool_cleanup_null);
    return s;
}

/* The partition values of the files `hint` keeps, sorted, joined by
 * spaces. */
static const char *kept(apr_pool_t *pool, const char *table,
                        const char *hint)
{
    const uc_delta_snapshot_t *s = snapshot_of(pool, table);
    uc_sharing_predicate_t *pred;
    apr_array_header_t *out = apr_array_make(pool, 8, sizeof(char *));
    apr_pool_t *scratch;
    apr_size_t i;
    int a, b;

    assert_ok(uc_sharing_predicate_parse(pool, hint, s->metadata, &pred));
    assert_non_null(pred);
    apr_pool_create(&scratch, pool);
    for (i = 0; i < s->num_files; i++) {
        if (uc_sharing_predicate_keeps(pred, scratch,
                                       s->files[i].partition_values))
            APR_ARRAY_PUSH(out, const char *) = s->files[i].partition_values;
        apr_pool_clear(scratch);
    }
    for (a = 1; a < out->nelts; a++)
        for (b = a; b > 0 && strcmp(APR_ARRAY_IDX(out, b - 1, char *),
                                    APR_ARRAY_IDX(out, b, char *)) > 0; b--) {
            char *t = APR_ARRAY_IDX(out, b, char *);

            APR_ARRAY_IDX(out, b, char *) = APR_ARRAY_IDX(out, b - 1, char *);
            APR_ARRAY_IDX(out, b - 1, char *) = t;
        }
    return apr_array_pstrcat(pool, out, ' ');
}

static void test_fixture_partitioned(void **state)
{
    apr_pool_t *pool = *state;
    const char *t = "delta-0.8.0-partitioned";
    const char *y2020 = cmp(pool, "equal", "year", "string", "2020");

    assert_string_equal(kept(pool, t, cmp(pool, "equal", "year", "string",
                                          "2021")),
                        "{\"year\":\"2021\",\"month\":\"12\",\"day\":\"20\"} "
                        "{\"year\":\"2021\",\"month\":\"12\",\"day\":\"4\"} "
                        "{\"year\":\"2021\",\"month\":\"4\",\"day\":\"5\"}");
    assert_string_equal(kept(pool, t, wrap(pool, "and", y2020,
                                           cmp(pool, "equal", "month",
                                               "string", "2"))),
                        "{\"year\":\"2020\",\"month\":\"2\",\"day\":\"3\"} "
                        "{\"year\":\"2020\",\"month\":\"2\",\"day\":\"5\"}");
    /* Strings compare bytewise: "12" < "4". */
    assert_string_equal(kept(pool, t, wrap(pool, "and",
                                           cmp(pool, "lessThan", "month",
                                               "string", "4"),
                                           wrap(pool, "not", y2020, NULL))),
                        "{\"year\":\"2021\",\"month\":\"12\",\"day\":\"20\"} "
                        "{\"year\":\"2021\",\"month\":\"12\",\"day\":\"4\"}");
    /* The columns are strings: an int hint decides nothing. */
    assert_int_equal(strlen(kept(pool, t, cmp(pool, "equal", "year", "int",
                                              "1999"))) > 0, 1);
    assert_string_equal(kept(pool, t, cmp(pool, "equal", "value", "string",
                                          "x")),
                        kept(pool, t, cmp(pool, "equal", "year", "int",
                                          "1999")));
}

static void test_fixture_null_and_special(void **state)
{
    apr_pool_t *pool = *state;

    assert_string_equal(kept(pool, "delta-0.8.0-null-partition",
                             is_null(pool, "k", "string")), "{\"k\":null}");
    assert_string_equal(kept(pool, "delta-0.8.0-null-partition",
                             wrap(pool, "not", is_null(pool, "k", "string"),
                                  NULL)), "{\"k\":\"A\"}");
    assert_string_equal(kept(pool, "delta-0.8.0-null-partition",
                             cmp(pool, "greaterThan", "k", "string", "0")),
                        "{\"k\":\"A\"} {\"k\":null}");
    assert_string_equal(kept(pool, "delta-0.8.0-special-partition",
                             cmp(pool, "equal", "x", "string", "A/A")),
                        "{\"x\":\"A/A\"}");
    assert_string_equal(kept(pool, "delta-0.8.0-special-partition",
                             cmp(pool, "greaterThanOrEqual", "X", "string",
                                 "B B")), "{\"x\":\"B B\"}");
}

static const struct CMUnitTest tests[] = {
    UC_POOL_TEST(test_protocol_examples),
    UC_POOL_TEST(test_every_op_and_type),
    UC_POOL_TEST(test_timestamps),
    UC_POOL_TEST(test_nulls),
    UC_POOL_TEST(test_three_valued),
    UC_POOL_TEST(test_undecidable_kept),
    UC_POOL_TEST(test_escapes_and_case),
    UC_POOL_TEST(test_ignored_hints),
    UC_POOL_TEST(test_limits),
    UC_POOL_TEST(test_metadata),
    UC_POOL_TEST(test_many_columns),
    UC_POOL_TEST(test_fixture_partitioned),
    UC_POOL_TEST(test_fixture_null_and_special),
};

int main(void)
{
    int rc;

    uc_test_init();
    uc_test_init_reader();
    rc = cmocka_run_group_tests_name("sharing_predicate", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
