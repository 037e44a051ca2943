/* SPDX-License-Identifier: Apache-2.0 */
/* The audit log's line: its fields from the call, the route and the
 * outcome; the subject from the rule's chain or from what the operation
 * made; JSON that holds whatever the names hold. */
#include "uc_test.h"

#include <jansson.h>

#include "../../src/authz/uc_rules.h"
#include "../../src/http/uc_audit_line.h"

static uc_securable_t metastore = { .id = "m", .name = "metastore" };
static uc_securable_t catalog = { .id = "c", .name = "main" };
static uc_securable_t schema = { .id = "s", .name = "sales" };
static uc_securable_t table = { .id = "t", .name = "orders" };

static const uc_rule_t any = { UC_TARGET_CALLER, { { 0, 0 } } };
static const uc_route_t update_table = {
    UC_PATCH, "/tables/{full_name}", NULL, 0, &any, .audit = "UPDATE"
};

static void chain_to_table(uc_call_t *call)
{
    call->chain.n = 4;
    call->chain.sec[0] = &metastore;
    call->chain.sec[1] = &catalog;
    call->chain.sec[2] = &schema;
    call->chain.sec[3] = &table;
    call->chain.type[0] = UC_TYPE_METASTORE;
    call->chain.type[1] = UC_TYPE_CATALOG;
    call->chain.type[2] = UC_TYPE_SCHEMA;
    call->chain.type[3] = UC_TYPE_TABLE;
}

/* The line of `call`, parsed; it must be one object ending in one
 * newline. */
static json_t *line_of(apr_pool_t *pool, const uc_call_t *call,
                       const uc_route_t *route, const uc_error_t *err,
                       int status)
{
    uc_audit_event_t ev;
    uc_audit_context_t ctx = { "catalog", "req-1",
                               apr_time_from_sec(1700000000) + 123000,
                               status };
    apr_size_t len;
    const char *line;
    json_t *j;

    uc_audit_event_of(pool, call, route, err, &ev);
    line = uc_audit_line(pool, &ev, &ctx, &len);
    assert_true(len > 2 && line[len - 1] == '\n');
    assert_null(memchr(line, '\n', len - 1));
    j = json_loadb(line, len, 0, NULL);
    assert_non_null(j);
    assert_true(json_is_object(j));
    return j;
}

static const char *str(json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

static void test_success_names_the_chain_target(void **state)
{
    uc_call_t call = { .pool = *state, .principal = "alice",
                       .client_ip = "192.0.2.7" };
    json_t *j;

    chain_to_table(&call);
    j = line_of(*state, &call, &update_table, NULL, 200);
    assert_string_equal(str(j, "time"), "2023-11-14T22:13:20.123Z");
    assert_string_equal(str(j, "request_id"), "req-1");
    assert_string_equal(str(j, "principal"), "alice");
    assert_string_equal(str(j, "client_address"), "192.0.2.7");
    assert_string_equal(str(j, "api"), "catalog");
    assert_string_equal(str(j, "operation"), "UPDATE");
    assert_string_equal(str(j, "route"), "PATCH /tables/{full_name}");
    assert_string_equal(str(j, "securable_type"), "table");
    assert_string_equal(str(j, "full_name"), "main.sales.orders");
    assert_string_equal(str(j, "outcome"), "success");
    assert_int_equal(json_integer_value(json_object_get(j, "status")), 200);
    assert_null(json_object_get(j, "error_code"));
    assert_null(json_object_get(j, "recipient"));
    assert_int_equal(json_object_size(j), 11);
    json_decref(j);
}

static void test_failure_keeps_the_error_code_only(void **state)
{
    uc_call_t call = { .pool = *state, .principal = "bob" };
    uc_error_t *err = uc_error_make(*state, UC_E_PERMISSION_DENIED,
                                    "secret-looking message %s", "xyz");
    json_t *j;
    char *text;

    chain_to_table(&call);
    j = line_of(*state, &call, &update_table, err, 403);
    assert_string_equal(str(j, "outcome"), "failure");
    assert_string_equal(str(j, "error_code"), "PERMISSION_DENIED");
    text = json_dumps(j, 0);
    assert_null(strstr(text, "secret-looking"));
    free(text);
    json_decref(j);
}

/* httpd answered for the module (a body over LimitRequestBody): no error
 * of the core, yet a failure. */
static void test_status_alone_fails(void **state)
{
    uc_call_t call = { .pool = *state, .principal = "bob" };
    json_t *j = line_of(*state, &call, &update_table, NULL, 413);

    assert_string_equal(str(j, "outcome"), "failure");
    assert_null(json_object_get(j, "error_code"));
    assert_true(json_is_null(json_object_get(j, "securable_type")));
    assert_true(json_is_null(json_object_get(j, "full_name")));
    json_decref(j);
}

/* A create names what it made, not the parent the rule resolved. */
static void test_operation_names_its_subject(void **state)
{
    uc_call_t call = { .pool = *state, .principal = "alice",
                       .audit_type = "table",
                       .audit_name = "main.sales.new_one" };
    json_t *j;

    chain_to_table(&call);
    call.chain.n = 3;
    j = line_of(*state, &call, &update_table, NULL, 200);
    assert_string_equal(str(j, "securable_type"), "table");
    assert_string_equal(str(j, "full_name"), "main.sales.new_one");
    json_decref(j);
}

static void test_top_level_and_column_subjects(void **state)
{
    uc_call_t call = { .pool = *state, .principal = "alice" };
    json_t *j;

    call.chain.n = 1;
    call.chain.sec[0] = &metastore;
    call.chain.type[0] = UC_TYPE_METASTORE;
    j = line_of(*state, &call, &update_table, NULL, 200);
    assert_string_equal(str(j, "securable_type"), "metastore");
    assert_string_equal(str(j, "full_name"), "metastore");
    json_decref(j);

    call.chain.n = 2;
    call.chain.sec[1] = &catalog;
    call.chain.type[1] = UC_TYPE_CATALOG;
    j = line_of(*state, &call, &update_table, NULL, 200);
    assert_string_equal(str(j, "full_name"), "main");
    json_decref(j);

    chain_to_table(&call);
    call.column = "Amount";
    j = line_of(*state, &call, &update_table, NULL, 200);
    assert_string_equal(str(j, "securable_type"), "column");
    assert_string_equal(str(j, "full_name"), "main.sales.orders.Amount");
    json_decref(j);
}

/* The open routes have no caller; a recipient is said to be one. Names
 * with quotes, backslashes and non-ASCII stay JSON. */
static void test_open_routes_recipients_and_escaping(void **state)
{
    uc_call_t call = { .pool = *state };
    json_t *j = line_of(*state, &call, &update_table, NULL, 200);

    assert_true(json_is_null(json_object_get(j, "principal")));
    assert_true(json_is_null(json_object_get(j, "client_address")));
    json_decref(j);

    call.principal = "o\"brien\\ \xc3\xa9";
    call.recipient_name = call.principal;
    j = line_of(*state, &call, &update_table, NULL, 200);
    assert_string_equal(str(j, "principal"), "o\"brien\\ \xc3\xa9");
    assert_true(json_is_true(json_object_get(j, "recipient")));
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_success_names_the_chain_target),
        UC_POOL_TEST(test_failure_keeps_the_error_code_only),
        UC_POOL_TEST(test_status_alone_fails),
        UC_POOL_TEST(test_operation_names_its_subject),
        UC_POOL_TEST(test_top_level_and_column_subjects),
        UC_POOL_TEST(test_open_routes_recipients_and_escaping),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("audit_line", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
