/* SPDX-License-Identifier: Apache-2.0 */
/* JSON bodies and field readers, output helpers, error rendering, query
 * strings. Every jansson value is either owned by the test pool
 * (uc_json_own) or released here, so valgrind sees no leak. */
#include "uc_test.h"

#include "../../src/core/uc_log.h"
#include "../../src/core/uc_json.h"
#include "../../src/core/uc_validate.h"
#include "../../src/http/uc_query.h"
#include "../../src/http/uc_render.h"

static json_t *parse_ok(apr_pool_t *pool, const char *text)
{
    json_t *obj = NULL;
    uc_error_t *err = uc_json_parse_object(pool, text, strlen(text), &obj);
    if (err)
        fail_msg("'%s' refused: %s", text, err->message);
    assert_non_null(obj);
    assert_true(json_is_object(obj));
    return obj;
}

static uc_error_t *parse_bad(apr_pool_t *pool, const char *text, size_t len)
{
    json_t *obj = NULL;
    uc_error_t *err = uc_json_parse_object(pool, text, len, &obj);
    if (!err)
        fail_msg("'%.*s' accepted", (int)len, text);
    assert_invalid(err);
    assert_null(obj);
    return err;
}

static void test_parse_object(void **state)
{
    apr_pool_t *pool = *state;
    json_t *obj = parse_ok(pool, "{\"name\":\"main\",\"n\":1,\"o\":{\"x\":[]}}");
    const char *data = "{\"a\":1}trailing garbage";

    assert_string_equal(json_string_value(json_object_get(obj, "name")),
                        "main");
    assert_int_equal(json_object_size(obj), 3);
    obj = parse_ok(pool, "  {}  \n");
    assert_int_equal(json_object_size(obj), 0);
    /* Only `len` bytes are read. */
    assert_ok(uc_json_parse_object(pool, data, 7, &obj));
    assert_int_equal(json_integer_value(json_object_get(obj, "a")), 1);
    obj = parse_ok(pool, "{\"u\":\"caf\xc3\xa9 \\u00e9\"}");
    assert_string_equal(json_string_value(json_object_get(obj, "u")),
                        "caf\xc3\xa9 \xc3\xa9");
}

static void test_parse_malformed(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "{", "}", "{\"a\":}", "{\"a\" 1}", "{'a':1}", "{a:1}", "{\"a\":1,}",
        "{\"a\":1} {}", "{\"a\":1}x", "   ", "\n", "{\"a\":\"\xff\"}",
        "{\"a\":tru}", "{\"a\":01}", "{\"a\":\"x\\u0000y\"}", NULL
    };
    int i;

    for (i = 0; bad[i]; i++)
        parse_bad(pool, bad[i], strlen(bad[i]));
    parse_bad(pool, "", 0);
    parse_bad(pool, "{}", 0);
    /* An embedded NUL ends nothing: the bytes after it are still read. */
    parse_bad(pool, "{}\0{}", 5);
}

static void test_parse_not_object(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "[]", "[{\"a\":1}]", "1", "-2.5", "\"str\"", "null", "true", "false",
        NULL
    };
    int i;

    for (i = 0; bad[i]; i++) {
        uc_error_t *err = parse_bad(pool, bad[i], strlen(bad[i]));
        if (bad[i][0] == '[')
            assert_contains(err->message, "object");
    }
}

static void test_parse_duplicates(void **state)
{
    apr_pool_t *pool = *state;

    parse_bad(pool, "{\"a\":1,\"a\":2}", 13);
    parse_bad(pool, "{\"name\":\"x\",\"comment\":null,\"name\":\"y\"}",
              strlen("{\"name\":\"x\",\"comment\":null,\"name\":\"y\"}"));
    /* Duplicates nested deeper count as well. */
    parse_bad(pool, "{\"p\":{\"k\":\"1\",\"k\":\"2\"}}",
              strlen("{\"p\":{\"k\":\"1\",\"k\":\"2\"}}"));
    /* Same key in different objects is fine. */
    parse_ok(pool, "{\"a\":{\"k\":1},\"b\":{\"k\":1}}");
}

static void test_parse_deep_nesting(void **state)
{
    apr_pool_t *pool = *state;
    size_t n = 100000, i;
    char *text = apr_palloc(pool, n * 2 + 16);
    char *p = text;

    p += sprintf(p, "{\"a\":");
    for (i = 0; i < n; i++)
        *p++ = '[';
    for (i = 0; i < n; i++)
        *p++ = ']';
    *p++ = '}';
    *p = '\0';
    parse_bad(pool, text, (size_t)(p - text));
}

static void test_string_field(void **state)
{
    apr_pool_t *pool = *state;
    json_t *obj = parse_ok(pool, "{\"s\":\"v\",\"e\":\"\",\"n\":null,"
                           "\"i\":1,\"b\":true,\"o\":{},\"a\":[\"x\"],"
                           "\"f\":1.5}");
    static const char *const wrong[] = { "i", "b", "o", "a", "f", NULL };
    const char *out;
    int i;

    out = NULL;
    assert_ok(uc_json_string_field(pool, obj, "s", 1, &out));
    assert_string_equal(out, "v");
    /* A copy owned by the pool, not jansson's buffer. */
    assert_ptr_not_equal(out, json_string_value(json_object_get(obj, "s")));
    assert_ok(uc_json_string_field(pool, obj, "e", 1, &out));
    assert_string_equal(out, "");

    out = "untouched";
    assert_ok(uc_json_string_field(pool, obj, "missing", 0, &out));
    assert_string_equal(out, "untouched");
    assert_ok(uc_json_string_field(pool, obj, "n", 0, &out));
    assert_string_equal(out, "untouched");
    assert_ok(uc_json_string_field(pool, NULL, "s", 0, &out));
    assert_string_equal(out, "untouched");

    {
        uc_error_t *err = uc_json_string_field(pool, obj, "missing", 1, &out);
        assert_invalid(err);
        assert_contains(err->message, "'missing'");
        /* null counts as absent, also for required fields. */
        err = uc_json_string_field(pool, obj, "n", 1, &out);
        assert_invalid(err);
        assert_contains(err->message, "'n'");
        err = uc_json_string_field(pool, NULL, "name", 1, &out);
        assert_invalid(err);
        assert_contains(err->message, "'name'");
    }
    for (i = 0; wrong[i]; i++) {
        uc_error_t *err = uc_json_string_field(pool, obj, wrong[i], 0, &out);
        assert_invalid(err);
        assert_contains(err->message,
                        apr_psprintf(pool, "'%s'", wrong[i]));
        assert_contains(err->message, "string");
    }
    assert_string_equal(out, "untouched");
}

static void test_bool_field(void **state)
{
    apr_pool_t *pool = *state;
    json_t *obj = parse_ok(pool, "{\"t\":true,\"f\":false,\"n\":null,"
                           "\"s\":\"true\",\"i\":1,\"o\":{}}");
    static const char *const wrong[] = { "s", "i", "o", NULL };
    int out, i;

    out = 7;
    assert_ok(uc_json_bool_field(pool, obj, "t", &out));
    assert_int_equal(out, 1);
    assert_ok(uc_json_bool_field(pool, obj, "f", &out));
    assert_int_equal(out, 0);
    out = 7;
    assert_ok(uc_json_bool_field(pool, obj, "n", &out));
    assert_int_equal(out, 7);
    assert_ok(uc_json_bool_field(pool, obj, "missing", &out));
    assert_int_equal(out, 7);
    assert_ok(uc_json_bool_field(pool, NULL, "t", &out));
    assert_int_equal(out, 7);
    for (i = 0; wrong[i]; i++) {
        uc_error_t *err = uc_json_bool_field(pool, obj, wrong[i], &out);
        assert_invalid(err);
        assert_contains(err->message, apr_psprintf(pool, "'%s'", wrong[i]));
        assert_contains(err->message, "boolean");
    }
    assert_int_equal(out, 7);
}

/* Integers as JSON numbers that are integers (however written) or as
 * strings of digits; anything else names the field. */
static void test_int_field(void **state)
{
    apr_pool_t *pool = *state;
    json_t *obj = parse_ok(pool, "{\"a\":5,\"b\":5.0,\"c\":5e0,\"d\":\"5\","
                           "\"e\":-5,\"f\":\"-5\",\"g\":9007199254740992.0,"
                           "\"n\":null,\"w1\":5.5,\"w2\":\"5.0\","
                           "\"w3\":\"-\",\"w4\":\"\",\"w5\":true,\"w6\":[5],"
                           "\"w7\":1e19,\"w8\":-1e19,\"w9\":\" 5\","
                           "\"w10\":\"99999999999999999999\",\"w11\":\"+5\"}");
    static const char *const five[] = { "a", "b", "c", "d", NULL };
    apr_int64_t out;
    int present, i;

    for (i = 0; five[i]; i++) {
        out = 0;
        assert_ok(uc_json_int_field(pool, obj, five[i], -10, 10, &out,
                                    &present));
        assert_true(present && out == 5);
    }
    assert_ok(uc_json_int_field(pool, obj, "e", -10, 10, &out, &present));
    assert_int_equal(out, -5);
    assert_ok(uc_json_int_field(pool, obj, "f", -10, 10, &out, &present));
    assert_int_equal(out, -5);
    assert_ok(uc_json_int_field(pool, obj, "g", 0, APR_INT64_MAX, &out,
                                &present));
    assert_true(out == 9007199254740992LL);
    out = 7;
    assert_ok(uc_json_int_field(pool, obj, "n", 0, 10, &out, &present));
    assert_true(!present && out == 7);
    for (i = 1; i <= 11; i++) {
        const char *field = apr_psprintf(pool, "w%d", i);
        uc_error_t *err = uc_json_int_field(pool, obj, field, APR_INT64_MIN,
                                            APR_INT64_MAX, &out, &present);

        assert_invalid(err);
        assert_contains(err->message, apr_psprintf(pool, "'%s'", field));
        assert_false(present);
    }
    assert_invalid(uc_json_int_field(pool, obj, "a", 6, 10, &out, &present));
}

static void test_string_map_field(void **state)
{
    apr_pool_t *pool = *state;
    json_t *obj = parse_ok(pool, "{\"p\":{\"a\":\"1\",\"b\":\"\"},\"e\":{},"
                           "\"n\":null,\"bad\":{\"a\":\"1\",\"k2\":2},"
                           "\"nul\":{\"k\":null},\"nest\":{\"k\":{}},"
                           "\"arr\":[\"a\"],\"str\":\"x\",\"num\":3}");
    static const char *const wrong[] = { "arr", "str", "num", NULL };
    json_t *out;
    uc_error_t *err;
    int i;

    out = NULL;
    assert_ok(uc_json_string_map_field(pool, obj, "p", &out));
    assert_non_null(out);
    assert_int_equal(json_object_size(out), 2);
    assert_string_equal(json_string_value(json_object_get(out, "a")), "1");
    assert_ok(uc_json_string_map_field(pool, obj, "e", &out));
    assert_int_equal(json_object_size(out), 0);

    out = (json_t *)&out;
    assert_ok(uc_json_string_map_field(pool, obj, "n", &out));
    assert_ptr_equal(out, (json_t *)&out);
    assert_ok(uc_json_string_map_field(pool, obj, "missing", &out));
    assert_ptr_equal(out, (json_t *)&out);
    out = NULL;

    err = uc_json_string_map_field(pool, obj, "bad", &out);
    assert_invalid(err);
    assert_contains(err->message, "'bad'");
    assert_contains(err->message, "k2");
    assert_null(out);
    err = uc_json_string_map_field(pool, obj, "nul", &out);
    assert_invalid(err);
    assert_contains(err->message, "'nul'");
    err = uc_json_string_map_field(pool, obj, "nest", &out);
    assert_invalid(err);
    for (i = 0; wrong[i]; i++) {
        err = uc_json_string_map_field(pool, obj, wrong[i], &out);
        assert_invalid(err);
        assert_contains(err->message, apr_psprintf(pool, "'%s'", wrong[i]));
    }
    assert_null(out);
}

/* The map outlives the body it came from: its reference is the pool's. */
static void test_string_map_outlives_body(void **state)
{
    apr_pool_t *pool = *state, *sub;
    json_t *body = json_loads("{\"p\":{\"k\":\"v\"}}", 0, NULL), *out = NULL;

    apr_pool_create(&sub, pool);
    assert_non_null(body);
    assert_ok(uc_json_string_map_field(sub, body, "p", &out));
    json_decref(body);
    assert_string_equal(json_string_value(json_object_get(out, "k")), "v");
    apr_pool_destroy(sub);
}

static void test_own(void **state)
{
    apr_pool_t *pool = *state, *sub;
    json_t *v = json_object();

    apr_pool_create(&sub, pool);
    assert_ptr_equal(uc_json_own(sub, v), v);
    json_incref(v);
    assert_int_equal(v->refcount, 2);
    apr_pool_destroy(sub);
    /* The pool released exactly its one reference. */
    assert_int_equal(v->refcount, 1);
    json_decref(v);
    assert_null(uc_json_own(pool, NULL));
}

static void test_string_or_null(void **state)
{
    json_t *v;

    (void)state;
    v = uc_json_string_or_null("x");
    assert_string_equal(json_string_value(v), "x");
    json_decref(v);
    v = uc_json_string_or_null("");
    assert_string_equal(json_string_value(v), "");
    json_decref(v);
    v = uc_json_string_or_null(NULL);
    assert_true(json_is_null(v));
    json_decref(v);
}

static void test_stored_object(void **state)
{
    static const char *const empty[] = {
        "", "garbage", "[1,2]", "\"s\"", "1", "null", "{", "{\"a\":1", NULL
    };
    json_t *v;
    int i;

    (void)state;
    v = uc_json_stored_object("{\"k\":\"v\",\"n\":{\"x\":1}}");
    assert_true(json_is_object(v));
    assert_int_equal(json_object_size(v), 2);
    assert_string_equal(json_string_value(json_object_get(v, "k")), "v");
    json_decref(v);
    v = uc_json_stored_object(NULL);
    assert_true(json_is_object(v));
    assert_int_equal(json_object_size(v), 0);
    json_decref(v);
    for (i = 0; empty[i]; i++) {
        v = uc_json_stored_object(empty[i]);
        assert_non_null(v);
        if (!json_is_object(v) || json_object_size(v) != 0)
            fail_msg("stored '%s' did not become {}", empty[i]);
        json_decref(v);
    }
}

static void test_dump(void **state)
{
    apr_pool_t *pool = *state;
    json_t *v = uc_json_own(pool, json_pack("{s:i,s:[b,n],s:s}", "a", 1, "b",
                                            1, "c", "caf\xc3\xa9"));
    json_t *big;
    char *s = apr_palloc(pool, 100001);
    const char *out;

    assert_string_equal(uc_json_dump(pool, v),
                        "{\"a\":1,\"b\":[true,null],\"c\":\"caf\xc3\xa9\"}");
    assert_string_equal(uc_json_dump(pool, uc_json_own(pool, json_object())),
                        "{}");
    memset(s, 'x', 100000);
    s[100000] = '\0';
    big = uc_json_own(pool, json_pack("{s:s}", "k", s));
    out = uc_json_dump(pool, big);
    assert_int_equal(strlen(out), 100000 + 8);
    assert_memory_equal(out, "{\"k\":\"xxx", 9);
    assert_string_equal(out + strlen(out) - 3, "x\"}");
}

/* --- errors ------------------------------------------------------------- */

static void test_rpc_codes(void **state)
{
    apr_pool_t *pool = *state;
    static const struct {
        uc_error_kind_t kind; int status; const char *code; int rpc;
    } cases[] = {
        { UC_E_CATALOG_NOT_FOUND, 404, "CATALOG_NOT_FOUND", 5 },
        { UC_E_SCHEMA_NOT_FOUND, 404, "SCHEMA_NOT_FOUND", 5 },
        { UC_E_ENDPOINT_NOT_FOUND, 404, "ENDPOINT_NOT_FOUND", 5 },
        { UC_E_CATALOG_ALREADY_EXISTS, 400, "CATALOG_ALREADY_EXISTS", 6 },
        { UC_E_SCHEMA_ALREADY_EXISTS, 400, "SCHEMA_ALREADY_EXISTS", 6 },
        { UC_E_ALREADY_EXISTS, 409, "ALREADY_EXISTS", 6 },
        { UC_E_INVALID, 400, "INVALID_PARAMETER_VALUE", 3 },
        { UC_E_CATALOG_NOT_EMPTY, 400, "CATALOG_NOT_EMPTY", 9 },
        { UC_E_SCHEMA_NOT_EMPTY, 400, "SCHEMA_NOT_EMPTY", 9 },
        { UC_E_FAILED_PRECONDITION, 400, "FAILED_PRECONDITION", 9 },
        { UC_E_UNAUTHENTICATED, 401, "UNAUTHENTICATED", 16 },
        { UC_E_PERMISSION_DENIED, 403, "PERMISSION_DENIED", 7 },
        { UC_E_UNAVAILABLE, 503, "TEMPORARILY_UNAVAILABLE", 14 },
        { UC_E_INTERNAL, 500, "INTERNAL_ERROR", 13 },
        { UC_E_METHOD_NOT_ALLOWED, 405, "METHOD_NOT_ALLOWED", 12 },
        { UC_E_REQUEST_TOO_LARGE, 413, "REQUEST_TOO_LARGE", 8 },
        { UC_E_ABORTED, 409, "ABORTED", 10 },
        { UC_E_COMMIT_VERSION_CONFLICT, 409, "COMMIT_VERSION_CONFLICT", 10 },
        { UC_E_RESOURCE_EXHAUSTED, 429, "RESOURCE_EXHAUSTED", 8 },
        { UC_E_COMMIT_STATE_UNKNOWN, 500, "COMMIT_STATE_UNKNOWN", 2 },
        { UC_E_COUNT, 0, NULL, 0 }
    };
    int i, j;

    for (i = 0; cases[i].code; i++) {
        uc_error_t *err = uc_error_make(pool, cases[i].kind, "m");
        if (err->status != cases[i].status
            || strcmp(err->code, cases[i].code) != 0
            || uc_error_rpc_code(err) != cases[i].rpc)
            fail_msg("%s → %d %s rpc %d, expected %d %s rpc %d",
                     cases[i].code, err->status, err->code,
                     uc_error_rpc_code(err), cases[i].status, cases[i].code,
                     cases[i].rpc);
    }
    /* Every kind: an error status, a code of its own, a google.rpc.Code. */
    for (i = 0; i < UC_E_COUNT; i++) {
        uc_error_t *a = uc_error_make(pool, (uc_error_kind_t)i, "m");

        if (a->status < 400 || a->status > 599 || !a->code || !*a->code
            || uc_error_rpc_code(a) < 1 || uc_error_rpc_code(a) > 16)
            fail_msg("kind %d: %d %s rpc %d", i, a->status, a->code,
                     uc_error_rpc_code(a));
        for (j = 0; j < i; j++)
            if (!strcmp(a->code, uc_error_make(pool, (uc_error_kind_t)j,
                                               "m")->code))
                fail_msg("kinds %d and %d share %s", j, i, a->code);
    }
    assert_int_equal(uc_error_rpc_code(uc_render_httpd_error(pool, 401)), 16);
    assert_int_equal(uc_error_rpc_code(uc_render_httpd_error(pool, 403)), 7);
    assert_int_equal(uc_error_rpc_code(uc_render_httpd_error(pool, 503)), 14);
    assert_int_equal(uc_error_rpc_code(uc_render_httpd_error(pool, 400)), 3);
    assert_int_equal(uc_error_rpc_code(uc_render_httpd_error(pool, 404)), 5);
    assert_int_equal(uc_error_rpc_code(uc_error_internal(pool)), 13);
    assert_int_equal(uc_error_rpc_code(uc_error_unavailable(pool)), 14);
    assert_int_equal(uc_error_rpc_code(uc_error_invalid(pool, "x")), 3);
}

/* "Missing" is a class of kinds, not a status: the kinds the spec's Status
 * calls NOT_FOUND, which are exactly those answered 404; an error of
 * another kind is not missing whatever status it carries. */
static void test_missing_kinds(void **state)
{
    apr_pool_t *pool = *state;
    uc_error_t *refused;
    int i;

    for (i = 0; i < UC_E_COUNT; i++) {
        uc_error_t *err = uc_error_make(pool, (uc_error_kind_t)i, "m");

        if (uc_error_is_missing(err) != (err->status == 404))
            fail_msg("%s (%d) is %smissing", err->code, err->status,
                     uc_error_is_missing(err) ? "" : "not ");
    }
    assert_true(uc_error_is_missing(uc_render_httpd_error(pool, 404)));
    refused = uc_error_make(pool, UC_E_BAD_REQUEST, "m");
    refused->status = 404;
    assert_false(uc_error_is_missing(refused));
}

/* What httpd refuses on its own, before or around the module, as the
 * ErrorDocument location renders it. */
static void test_httpd_protocol_errors(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { int status; const char *code; int rpc; } cases[] = {
        { 400, "INVALID_PARAMETER_VALUE", 3 },
        { 403, "PERMISSION_DENIED", 7 },
        { 405, "METHOD_NOT_ALLOWED", 12 },
        { 408, "REQUEST_TIMEOUT", 4 },
        { 414, "URI_TOO_LONG", 3 },
        { 416, "RANGE_NOT_SATISFIABLE", 11 },
        { 0, NULL, 0 }
    };
    int i;

    for (i = 0; cases[i].code; i++) {
        uc_error_t *err = uc_render_httpd_error(pool, cases[i].status);
        if (err->status != cases[i].status ||
            strcmp(err->code, cases[i].code) != 0 ||
            uc_error_rpc_code(err) != cases[i].rpc)
            fail_msg("%d → %d %s rpc %d, expected %s rpc %d",
                     cases[i].status, err->status, err->code,
                     uc_error_rpc_code(err), cases[i].code, cases[i].rpc);
    }
}

static void test_error_constructors(void **state)
{
    apr_pool_t *pool = *state;
    uc_error_t *err;

    err = uc_error_make(pool, UC_E_CATALOG_NOT_FOUND, "Catalog not found: "
                        "%s (%d)", "main", 7);
    assert_err(err, 404, "CATALOG_NOT_FOUND");
    assert_string_equal(err->message, "Catalog not found: main (7)");
    assert_int_equal(err->retry_after, 0);
    err = uc_error_invalid(pool, "bad %s", "x");
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    assert_string_equal(err->message, "bad x");
    assert_int_equal(err->retry_after, 0);
    err = uc_error_unavailable(pool);
    assert_err(err, 503, NULL);
    assert_true(err->retry_after > 0);
    err = uc_error_internal(pool);
    assert_err(err, 500, NULL);
    err = uc_render_httpd_error(pool, 401);
    assert_err(err, 401, NULL);
    err = uc_render_httpd_error(pool, 503);
    assert_err(err, 503, NULL);
    assert_true(err->retry_after > 0);
    err = uc_render_httpd_error(pool, 400);
    assert_err(err, 400, "INVALID_PARAMETER_VALUE");
    err = uc_render_httpd_error(pool, 500);
    assert_err(err, 500, NULL);
    err = uc_render_httpd_error(pool, 406);
    assert_err(err, 406, "BAD_REQUEST");
}

/* A cause goes with the error for the log and survives copies; the
 * message a client sees does not change. */
static void test_error_causes(void **state)
{
    apr_pool_t *pool = *state, *other;
    uc_error_t *err = uc_error_internal(pool), *copy;
    const char *message = err->message;

    assert_null(err->cause);
    assert_ptr_equal(uc_error_because(pool, err, "database %s failed: %d",
                                      "select", 5), err);
    assert_string_equal(err->cause, "database select failed: 5");
    assert_string_equal(err->message, message);
    apr_pool_create(&other, NULL);
    err->retry_after = 3;
    copy = uc_error_copy(other, err);
    apr_pool_clear(pool);
    assert_err(copy, 500, "INTERNAL_ERROR");
    assert_int_equal(copy->kind, UC_E_INTERNAL);
    assert_string_equal(copy->cause, "database select failed: 5");
    assert_int_equal(copy->retry_after, 3);
    apr_pool_destroy(other);
}

typedef struct logged {
    int entries;
    uc_log_level_t level;
    apr_status_t cause;
    char message[4096];
} logged_t;

static void remember(void *baton, uc_log_level_t level, apr_status_t cause,
                     const char *message)
{
    logged_t *l = baton;

    l->entries++;
    l->level = level;
    l->cause = cause;
    apr_cpystrn(l->message, message, sizeof(l->message));
}

static void test_log_entries(void **state)
{
    logged_t l = { 0 };
    uc_log_t log = { remember, &l };
    char long_text[5000];

    (void)state;
    uc_log(NULL, UC_LOG_ERROR, 0, "nowhere");
    uc_log(&log, UC_LOG_WARNING, APR_ENOENT, "no %s at %d", "file", 3);
    assert_int_equal(l.entries, 1);
    assert_int_equal(l.level, UC_LOG_WARNING);
    assert_int_equal(l.cause, APR_ENOENT);
    assert_string_equal(l.message, "no file at 3");
    /* Long entries are cut, not dropped. */
    memset(long_text, 'x', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    uc_log(&log, UC_LOG_ERROR, 0, "%s", long_text);
    assert_int_equal(l.entries, 2);
    assert_true(strlen(l.message) > 1000 && strlen(l.message) < 4096);
}

static void assert_rendered(json_t *j, const uc_error_t *err, int rpc)
{
    json_t *details, *info;

    if (!j)
        fail_msg("uc_render_catalog_error returned NULL for %d %s \"%s\"",
                 err->status, err->code, err->message);
    assert_true(json_is_object(j));
    assert_string_equal(json_string_value(json_object_get(j, "error_code")),
                        err->code);
    assert_true(json_is_string(json_object_get(j, "message")));
    assert_true(json_is_integer(json_object_get(j, "code")));
    assert_int_equal(json_integer_value(json_object_get(j, "code")), rpc);
    details = json_object_get(j, "details");
    assert_true(json_is_array(details));
    assert_int_equal(json_array_size(details), 1);
    info = json_array_get(details, 0);
    assert_true(json_is_object(info));
    assert_string_equal(json_string_value(json_object_get(info, "@type")),
                        "type.googleapis.com/google.rpc.ErrorInfo");
    assert_string_equal(json_string_value(json_object_get(info, "reason")),
                        err->code);
}

static void test_render_catalog_error(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { uc_error_kind_t kind; int rpc; } cases[] = {
        { UC_E_CATALOG_NOT_FOUND, 5 },
        { UC_E_SCHEMA_ALREADY_EXISTS, 6 },
        { UC_E_INVALID, 3 },
        { UC_E_CATALOG_NOT_EMPTY, 9 },
        { UC_E_UNAUTHENTICATED, 16 },
        { UC_E_PERMISSION_DENIED, 7 },
        { UC_E_UNAVAILABLE, 14 },
        { UC_E_COUNT, 0 }
    };
    int i;

    for (i = 0; cases[i].kind != UC_E_COUNT; i++) {
        uc_error_t *err = uc_error_make(pool, cases[i].kind,
                                        "Something \"quoted\" happened: %d",
                                        i);
        json_t *j = uc_render_catalog_error(pool, err);
        assert_rendered(j, err, cases[i].rpc);
        assert_string_equal(json_string_value(json_object_get(j, "message")),
                            err->message);
    }
}

/* Messages echo client input (names from the path or the query string are
 * raw bytes, not necessarily UTF-8); the error body must still be rendered. */
static void test_render_error_with_invalid_utf8(void **state)
{
    apr_pool_t *pool = *state;
    const char *out;
    uc_error_t *err = uc_error_make(pool, UC_E_CATALOG_NOT_FOUND,
                                    "Catalog not found: %s", "ab\xff\xfe");
    json_t *j = uc_render_catalog_error(pool, err);

    assert_rendered(j, err, 5);
    err = uc_validate_name(pool, "catalog name", "ab\xff", &out);
    assert_invalid(err);
    j = uc_render_catalog_error(pool, err);
    assert_rendered(j, err, 3);
}

/* --- query strings ---------------------------------------------------- */

static apr_table_t *query_ok(apr_pool_t *pool, const char *raw)
{
    apr_table_t *t = NULL;
    uc_error_t *err = uc_query_parse(pool, raw, &t);
    if (err)
        fail_msg("query '%s' refused: %s", raw ? raw : "(null)", err->message);
    assert_non_null(t);
    return t;
}

static void test_query_parse(void **state)
{
    apr_pool_t *pool = *state;
    char raw[] = "a=1&b=x%20y&c=a+b&d=%2B%2b&e=%C3%A9&k%3D=v&empty=";
    apr_table_t *t;

    t = query_ok(pool, NULL);
    assert_true(apr_is_empty_table(t));
    t = query_ok(pool, "");
    assert_true(apr_is_empty_table(t));

    t = query_ok(pool, raw);
    assert_string_equal(raw, "a=1&b=x%20y&c=a+b&d=%2B%2b&e=%C3%A9&k%3D=v"
                        "&empty=");
    assert_string_equal(apr_table_get(t, "a"), "1");
    assert_string_equal(apr_table_get(t, "b"), "x y");
    assert_string_equal(apr_table_get(t, "c"), "a b");
    assert_string_equal(apr_table_get(t, "d"), "++");
    assert_string_equal(apr_table_get(t, "e"), "\xc3\xa9");
    assert_string_equal(apr_table_get(t, "k="), "v");
    assert_string_equal(apr_table_get(t, "empty"), "");
    assert_null(apr_table_get(t, "missing"));

    t = query_ok(pool, "x=%26%3D%25&y=a=b&&z=1&");
    assert_string_equal(apr_table_get(t, "x"), "&=%");
    assert_string_equal(apr_table_get(t, "y"), "a=b");
    assert_string_equal(apr_table_get(t, "z"), "1");
    t = query_ok(pool, "page_token=azE6YWJj&max_results=10");
    assert_string_equal(apr_table_get(t, "page_token"), "azE6YWJj");
    assert_string_equal(apr_table_get(t, "max_results"), "10");
    /* A decoded '%' is not decoded twice. */
    t = query_ok(pool, "v=%2541");
    assert_string_equal(apr_table_get(t, "v"), "%41");
}

/* "?include_browse" or "?a=1&flag": a name without '=' has the empty value. */
static void test_query_name_without_value(void **state)
{
    apr_pool_t *pool = *state;
    apr_table_t *t;

    t = query_ok(pool, "flag");
    assert_string_equal(apr_table_get(t, "flag"), "");
    t = query_ok(pool, "a=1&include_browse&b=x+y");
    assert_string_equal(apr_table_get(t, "a"), "1");
    assert_string_equal(apr_table_get(t, "include_browse"), "");
    assert_string_equal(apr_table_get(t, "b"), "x y");
}

static void test_query_bad_escapes(void **state)
{
    apr_pool_t *pool = *state;
    static const char *const bad[] = {
        "%", "a=%", "a=%4", "a=%zz", "a=%g0", "a=%0g", "%0g=1", "a=1&b=%",
        "a=%00", "%00=a", "a=x%00y", "a=b%0", "a=%%41", "a=% 1", NULL
    };
    int i;

    for (i = 0; bad[i]; i++) {
        apr_table_t *t = NULL;
        uc_error_t *err = uc_query_parse(pool, bad[i], &t);
        if (!err)
            fail_msg("query '%s' accepted", bad[i]);
        assert_invalid(err);
    }
}

/* The query string read as a body: strings, numbers in the form the
 * integer reader takes, the last of a name given twice; non-UTF-8 is a
 * 400. */
static void test_query_object(void **state)
{
    apr_pool_t *pool = *state;
    json_t *o = NULL;
    apr_int64_t n;
    int present;

    assert_ok(uc_query_object(pool, query_ok(pool, "table_id=t%201&"
                                             "start_version=7&a=1&a=2"),
                              &o));
    assert_int_equal(json_object_size(o), 3);
    assert_string_equal(json_string_value(json_object_get(o, "table_id")),
                        "t 1");
    assert_string_equal(json_string_value(json_object_get(o, "a")), "2");
    assert_ok(uc_json_int_field(pool, o, "start_version", 0, 100, &n,
                                &present));
    assert_true(present && n == 7);
    assert_ok(uc_query_object(pool, query_ok(pool, NULL), &o));
    assert_int_equal(json_object_size(o), 0);
    assert_invalid(uc_query_object(pool, query_ok(pool, "x=%FF"), &o));
}

static void test_query_limit(void **state)
{
    apr_pool_t *pool = *state;
    const char *raw = "p0=0";
    apr_table_t *t;
    uc_error_t *err;
    int i;

    for (i = 1; i < UC_QUERY_MAX_PARAMS; i++)
        raw = apr_psprintf(pool, "%s&p%d=%d", raw, i, i);
    t = query_ok(pool, raw);
    assert_int_equal(apr_table_elts(t)->nelts, UC_QUERY_MAX_PARAMS);
    assert_string_equal(apr_table_get(t, "p63"), "63");

    err = uc_query_parse(pool, apr_pstrcat(pool, raw, "&p64=64", NULL), &t);
    assert_invalid(err);
    /* Repeating one name does not get around the limit. */
    raw = "a=1";
    for (i = 1; i <= UC_QUERY_MAX_PARAMS; i++)
        raw = apr_pstrcat(pool, raw, "&a=1", NULL);
    assert_invalid(uc_query_parse(pool, raw, &t));
}

/* Reading members of stored details without parsing them. */
static void test_stored_scan(void **state)
{
    apr_pool_t *pool = *state;
    static const char stored[] =
        "{\"columns\":[{\"table_type\":\"no\"}],\"q\":\"a\\\"b\","
        "\"table_type\":\"VIEW\",\"n\":1}";
    const char *s = "\"ab\\\"c\" tail";

    assert_string_equal(uc_json_stored_string(pool, stored, "table_type"),
                        "VIEW");
    assert_null(uc_json_stored_string(pool, stored, "q"));   /* escaped */
    assert_null(uc_json_stored_string(pool, stored, "n"));   /* a number */
    assert_null(uc_json_stored_string(pool, stored, "none"));
    assert_null(uc_json_stored_string(pool, "{\"table_type\":", "table_type"));
    assert_null(uc_json_stored_string(pool, NULL, "table_type"));
    assert_null(uc_json_stored_string(pool, "[]", "table_type"));
    assert_ptr_equal(uc_json_string_end(s), s + 6);
    assert_ptr_equal(uc_json_value_end(s), s + 7);
    {
        const char *v = "[1,[2]],x";
        assert_ptr_equal(uc_json_value_end(v), v + 7);
        v = "12,3";
        assert_ptr_equal(uc_json_value_end(v), v + 2);
        v = "\"open";
        assert_ptr_equal(uc_json_value_end(v), v + 5);
        v = "[\"]\",[";
        assert_ptr_equal(uc_json_value_end(v), v + strlen(v));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_parse_object),
        UC_POOL_TEST(test_parse_malformed),
        UC_POOL_TEST(test_parse_not_object),
        UC_POOL_TEST(test_parse_duplicates),
        UC_POOL_TEST(test_parse_deep_nesting),
        UC_POOL_TEST(test_string_field),
        UC_POOL_TEST(test_bool_field),
        UC_POOL_TEST(test_int_field),
        UC_POOL_TEST(test_string_map_field),
        UC_POOL_TEST(test_string_map_outlives_body),
        UC_POOL_TEST(test_own),
        UC_POOL_TEST(test_string_or_null),
        UC_POOL_TEST(test_stored_object),
        UC_POOL_TEST(test_dump),
        UC_POOL_TEST(test_rpc_codes),
        UC_POOL_TEST(test_missing_kinds),
        UC_POOL_TEST(test_httpd_protocol_errors),
        UC_POOL_TEST(test_error_constructors),
        UC_POOL_TEST(test_error_causes),
        UC_POOL_TEST(test_log_entries),
        UC_POOL_TEST(test_render_catalog_error),
        UC_POOL_TEST(test_render_error_with_invalid_utf8),
        UC_POOL_TEST(test_query_parse),
        UC_POOL_TEST(test_query_name_without_value),
        UC_POOL_TEST(test_query_bad_escapes),
        UC_POOL_TEST(test_query_limit),
        UC_POOL_TEST(test_query_object),
        UC_POOL_TEST(test_stored_scan),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("json", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
