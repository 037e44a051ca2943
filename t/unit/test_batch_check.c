/* SPDX-License-Identifier: Apache-2.0 */
/* POST /action/batch-check (Lakekeeper) answered from the catalog's grants:
 * mapping, rules, identities, ordering, not-found handling, limits and the
 * shapes it refuses. */
#include "uc_api_fixture.h"

#include <apr_lib.h>

#include "../../src/authz/uc_batch_check.h"

typedef struct world {
    const char *catalog_id;
    const char *schema_id;
} world_t;

/* Catalog "wh" with schemas "sales" and "hrs"; alice holds USE CATALOG on the
 * catalog and USE SCHEMA on sales; the group "analysts" holds CREATE SCHEMA
 * on the catalog. Built as the admin "root". */
static world_t build(afx_t *fx)
{
    world_t w;
    json_t *c;

    fx->principal = "root";
    fx->principal_is_admin = 1;
    fx->routes = NULL;
    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"whs\"}");
    w.catalog_id = apr_pstrdup(fx->pool, jstr(c, "id"));
    c = api_ok(fx, UC_POST, "/schemas",
               "{\"name\":\"sales\",\"catalog_name\":\"whs\"}");
    w.schema_id = apr_pstrdup(fx->pool, jstr(c, "schema_id"));
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"hrs\",\"catalog_name\":\"whs\"}");
    api_ok(fx, UC_PATCH, "/permissions/catalog/whs",
           "{\"changes\":[{\"principal\":\"alice\",\"add\":[\"USE CATALOG\"]},"
           "{\"principal\":\"analysts\",\"add\":[\"CREATE_SCHEMA\"]}]}");
    api_ok(fx, UC_PATCH, "/permissions/schema/whs.sales",
           "{\"changes\":[{\"principal\":\"alice\",\"add\":[\"USE SCHEMA\"]}]}");
    return w;
}

static void as(afx_t *fx, const char *who, int admin, const char *group)
{
    fx->principal = who;
    fx->principal_is_admin = admin;
    fx->groups = NULL;
    if (group) {
        fx->groups = apr_array_make(fx->pool, 1, sizeof(const char *));
        APR_ARRAY_PUSH(fx->groups, const char *) = group;
    }
    fx->routes = uc_authz_api;
}

static json_t *check(afx_t *fx, const char *body)
{
    return api_ok(fx, UC_POST, "/action/batch-check", body);
}

/* The "allowed" values of a result list, as a string of 0 and 1. */
static const char *answers(afx_t *fx, json_t *out)
{
    json_t *results = json_object_get(out, "results"), *r;
    char *s = apr_pcalloc(fx->pool, json_array_size(results) + 1);
    size_t i;

    json_array_foreach(results, i, r)
        s[i] = json_is_true(json_object_get(r, "allowed")) ? '1' : '0';
    return s;
}

static const char *wh_op(afx_t *fx, const world_t *w, const char *action)
{
    return apr_psprintf(fx->pool, "{\"warehouse\":{\"action\":{\"action\":"
                        "\"%s\"},\"warehouse-id\":\"%s\"}}", action,
                        w->catalog_id);
}

static const char *ns_op(afx_t *fx, const world_t *w, const char *action,
                         const char *by)
{
    return apr_psprintf(fx->pool, "{\"namespace\":{\"action\":{\"action\":"
                        "\"%s\"},\"warehouse-id\":\"%s\",%s}}", action,
                        w->catalog_id, by);
}

static void test_rules_and_order(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    json_t *out;
    const char *body;

    as(fx, "alice", 0, NULL);
    body = apr_psprintf(fx->pool,
        "{\"checks\":["
        "{\"id\":\"a\",\"operation\":%s},"
        "{\"operation\":%s},"
        "{\"id\":\"c\",\"operation\":%s},"
        "{\"operation\":%s},"
        "{\"operation\":%s},"
        "{\"operation\":%s},"
        "{\"operation\":%s},"
        "{\"operation\":%s}]}",
        wh_op(fx, &w, "get_config"),                    /* USE CATALOG: 1 */
        wh_op(fx, &w, "create_namespace"),              /* no CREATE SCHEMA */
        ns_op(fx, &w, "get_metadata",
              apr_psprintf(fx->pool, "\"namespace-id\":\"%s\"",
                           w.schema_id)),               /* USE SCHEMA: 1 */
        ns_op(fx, &w, "get_metadata", "\"namespace\":[\"SALES\"]"),
        ns_op(fx, &w, "get_metadata", "\"namespace\":[\"hrs\"]"),
        ns_op(fx, &w, "list_everything", "\"namespace\":[\"sales\"]"),
        ns_op(fx, &w, "get_metadata", "\"namespace\":[\"whs\",\"sales\"]"),
        wh_op(fx, &w, "delete"));
    out = check(fx, body);
    assert_string_equal(answers(fx, out), "10110000");
    /* ids are echoed only where given. */
    assert_jstr(json_array_get(json_object_get(out, "results"), 0), "id",
                "a");
    assert_null(json_object_get(json_array_get(json_object_get(out,
                                                               "results"), 1),
                                "id"));
    assert_jstr(json_array_get(json_object_get(out, "results"), 2), "id",
                "c");

    /* A group's grant counts for its members. */
    as(fx, "alice", 0, "analysts");
    out = check(fx, apr_psprintf(fx->pool, "{\"checks\":[{\"operation\":%s}]}",
                                 wh_op(fx, &w, "create_namespace")));
    assert_string_equal(answers(fx, out), "1");

    /* Admins may do all of it; schemas do not nest. */
    as(fx, "root", 1, NULL);
    out = check(fx, apr_psprintf(fx->pool, "{\"checks\":[{\"operation\":%s},"
                                 "{\"operation\":%s},{\"operation\":%s}]}",
                                 wh_op(fx, &w, "delete"),
                                 ns_op(fx, &w, "list_everything",
                                       "\"namespace\":[\"hrs\"]"),
                                 ns_op(fx, &w, "create_namespace",
                                       "\"namespace\":[\"hrs\"]")));
    assert_string_equal(answers(fx, out), "110");

    out = check(fx, "{\"checks\":[]}");
    assert_int_equal(json_array_size(json_object_get(out, "results")), 0);
}

static void test_server_and_project(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    const char *ms;
    const char *fmt = "{\"checks\":["
        "{\"operation\":{\"server\":{\"action\":{\"action\":\"list_users\"}}}},"
        "{\"operation\":{\"project\":{\"action\":{\"action\":"
        "\"list_warehouses\"}}}},"
        "{\"operation\":{\"project\":{\"action\":{\"action\":"
        "\"list_warehouses\"},\"project-id\":\"%s\"}}},"
        "{\"operation\":{\"project\":{\"action\":{\"action\":"
        "\"list_warehouses\"},\"project-id\":"
        "\"00000000-0000-0000-0000-000000000000\"}}},"
        "{\"operation\":{\"project\":{\"action\":{\"action\":"
        "\"list_warehouses\"},\"project-id\":\"other\"}}},"
        "{\"operation\":{\"project\":{\"action\":{\"action\":"
        "\"create_warehouse\"}}}}]}";

    (void)w;
    ms = jstr(api_ok(fx, UC_GET, "/metastore_summary", NULL), "metastore_id");
    as(fx, "bob", 0, NULL);
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool, fmt,
                                                           ms))), "011100");
    as(fx, "root", 1, NULL);
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool, fmt,
                                                           ms))), "111101");
}

static void test_not_found(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    const char *missing = "{\"warehouse\":{\"action\":{\"action\":\"use\"},"
        "\"warehouse-id\":\"00000000-0000-4000-8000-000000000001\"}}";
    const char *table = apr_psprintf(fx->pool, "{\"table\":{\"action\":"
        "{\"action\":\"read_data\"},\"warehouse-id\":\"%s\",\"namespace\":"
        "[\"sales\"],\"table\":\"t\"}}", w.catalog_id);
    const char *view = apr_psprintf(fx->pool, "{\"view\":{\"action\":"
        "{\"action\":\"select\"},\"warehouse-id\":\"%s\",\"namespace\":"
        "[\"sales\"],\"view\":\"v\"}}", w.catalog_id);

    as(fx, "root", 1, NULL);
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool,
        "{\"checks\":[{\"operation\":%s},{\"operation\":%s},"
        "{\"operation\":%s}]}", missing, table, view))), "000");
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"error-on-not-found\":true,\"checks\":[{\"operation\":%s}]}",
            missing), 404, "NoSuchWarehouseException");
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"error-on-not-found\":true,\"checks\":[{\"operation\":%s}]}",
            table), 404, "NoSuchTableException");
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"error-on-not-found\":true,\"checks\":[{\"operation\":%s}]}",
            view), 404, "NoSuchViewException");
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"error-on-not-found\":true,\"checks\":[{\"operation\":%s}]}",
            ns_op(fx, &w, "get_metadata", "\"namespace\":[\"nope\"]")),
            404, "NoSuchNamespaceException");
}

static const char *tab_op(afx_t *fx, const world_t *w, const char *kind,
                          const char *action, const char *by)
{
    return apr_psprintf(fx->pool, "{\"%s\":{\"action\":{\"action\":"
                        "\"%s\"},\"warehouse-id\":\"%s\",%s}}", kind,
                        action, w->catalog_id, by);
}

#define SALES(name) "\"namespace\":[\"sales\"],\"table\":\"" name "\""

/* Tables, views and generic tables: the tables of the catalog, by id or by
 * name, typed, under the rules of the catalog API. */
static void test_tables(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    const char *orders_id, *vol_id, *body;
    char *upper, *p;

    fx->routes = NULL;
    api_ok(fx, UC_PATCH, "/catalogs/whs", "{\"comment\":\"x\"}");
    orders_id = apr_pstrdup(fx->pool, jstr(api_ok(fx, UC_POST, "/tables",
        "{\"name\":\"orders\",\"catalog_name\":\"whs\",\"schema_name\":"
        "\"sales\",\"table_type\":\"EXTERNAL\",\"data_source_format\":"
        "\"DELTA\",\"storage_location\":\"s3://b/orders\"}"), "table_id"));
    api_ok(fx, UC_POST, "/tables", "{\"name\":\"daily\",\"catalog_name\":"
           "\"whs\",\"schema_name\":\"sales\",\"table_type\":\"VIEW\","
           "\"data_source_format\":\"DELTA\",\"view_definition\":\"s\"}");
    api_ok(fx, UC_POST, "/tables", "{\"name\":\"staff\",\"catalog_name\":"
           "\"whs\",\"schema_name\":\"hrs\",\"table_type\":\"VIEW\","
           "\"data_source_format\":\"DELTA\",\"view_definition\":\"s\"}");
    vol_id = apr_pstrdup(fx->pool, jstr(api_ok(fx, UC_POST, "/volumes",
        "{\"name\":\"files\",\"catalog_name\":\"whs\",\"schema_name\":"
        "\"sales\",\"volume_type\":\"EXTERNAL\",\"storage_location\":"
        "\"s3://b/files\"}"), "volume_id"));
    api_ok(fx, UC_PATCH, "/permissions/table/whs.sales.orders",
           "{\"changes\":[{\"principal\":\"alice\",\"add\":[\"SELECT\"]}]}");
    upper = apr_pstrdup(fx->pool, orders_id);
    for (p = upper; *p; p++)
        *p = (char)apr_toupper(*p);

    as(fx, "alice", 0, NULL);
    body = apr_psprintf(fx->pool, "{\"checks\":["
        "{\"operation\":%s},{\"operation\":%s},{\"operation\":%s},"
        "{\"operation\":%s},{\"operation\":%s},{\"operation\":%s},"
        "{\"operation\":%s},{\"operation\":%s},{\"operation\":%s},"
        "{\"operation\":%s},{\"operation\":%s},{\"operation\":%s},"
        "{\"operation\":%s}]}",
        tab_op(fx, &w, "table", "get_metadata", SALES("ORDERS")),
        tab_op(fx, &w, "table", "read_data", SALES("orders")),
        tab_op(fx, &w, "table", "write_data", SALES("orders")),
        tab_op(fx, &w, "table", "commit", SALES("orders")),
        tab_op(fx, &w, "table", "drop", SALES("orders")),
        tab_op(fx, &w, "generic-table", "get_metadata", SALES("orders")),
        tab_op(fx, &w, "table", "read_data",
               apr_psprintf(fx->pool, "\"table-id\":\"%s\"", upper)),
        /* A view is not a table, nor a table a view. */
        tab_op(fx, &w, "view", "get_metadata", SALES("orders")),
        tab_op(fx, &w, "table", "get_metadata", SALES("daily")),
        tab_op(fx, &w, "view", "select", "\"namespace\":[\"sales\"],"
               "\"view\":\"daily\""),
        /* A volume's id names no table. */
        tab_op(fx, &w, "table", "get_metadata",
               apr_psprintf(fx->pool, "\"table-id\":\"%s\"", vol_id)),
        /* No USE SCHEMA on hrs. */
        tab_op(fx, &w, "view", "get_metadata", "\"namespace\":[\"hrs\"],"
               "\"view\":\"staff\""),
        tab_op(fx, &w, "table", "get_metadata", SALES("nothing")));
    assert_string_equal(answers(fx, check(fx, body)), "1100011000000");

    /* SELECT and MODIFY on the schema reach every table in it. */
    as(fx, "root", 1, NULL);
    fx->routes = NULL;
    api_ok(fx, UC_PATCH, "/permissions/schema/whs.sales",
           "{\"changes\":[{\"principal\":\"alice\",\"add\":[\"SELECT\","
           "\"MODIFY\"]}]}");
    as(fx, "alice", 0, NULL);
    assert_string_equal(answers(fx, check(fx, body)), "1111011001000");
    /* The owner of a table manages it; renaming also needs CREATE TABLE. */
    as(fx, "root", 1, NULL);
    fx->routes = NULL;
    uc_test_sql_exec(fx->db, fx->conn, "UPDATE securables SET owner = 'alice' "
                     "WHERE name = 'orders'");
    as(fx, "alice", 0, NULL);
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool,
        "{\"checks\":[{\"operation\":%s},{\"operation\":%s},"
        "{\"operation\":%s}]}",
        tab_op(fx, &w, "table", "drop", SALES("orders")),
        tab_op(fx, &w, "table", "rename", SALES("orders")),
        tab_op(fx, &w, "view", "drop", "\"namespace\":[\"sales\"],"
               "\"view\":\"daily\"")))), "100");

    /* Typed not-found answers. */
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"error-on-not-found\":true,\"checks\":[{\"operation\":%s}]}",
            tab_op(fx, &w, "view", "get_metadata", SALES("orders"))), 404,
            "NoSuchViewException");
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"error-on-not-found\":true,\"checks\":[{\"operation\":%s}]}",
            tab_op(fx, &w, "generic-table", "get_metadata",
                   SALES("daily"))), 404, "NoSuchGenericTableException");
    /* Asking for someone else needs MANAGE on the table. */
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"checks\":[{\"identity\":{\"user\":\"oidc~bob\"},"
            "\"operation\":%s}]}", tab_op(fx, &w, "view", "select",
            "\"namespace\":[\"sales\"],\"view\":\"daily\"")), 403,
            "CannotInspectPermissions");
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool,
        "{\"checks\":[{\"identity\":{\"user\":\"oidc~bob\"},"
        "\"operation\":%s}]}", tab_op(fx, &w, "table", "read_data",
        SALES("orders"))))), "0");
    /* A table check needs an id, or a namespace and a name. */
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"checks\":[{\"operation\":%s}]}", tab_op(fx, &w, "table",
            "get_metadata", "\"table\":\"orders\"")), 422,
            "UnprocessableEntity");
    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"checks\":[{\"operation\":%s}]}", tab_op(fx, &w, "table",
            "get_metadata", "\"table-id\":\"x\"")), 422,
            "UnprocessableEntity");
}

static void test_identities(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    const char *body = apr_psprintf(fx->pool, "{\"checks\":["
        "{\"identity\":{\"user\":\"oidc~alice\"},\"operation\":%s},"
        "{\"identity\":{\"user\":\"oidc~bob\"},\"operation\":%s}]}",
        wh_op(fx, &w, "use"), wh_op(fx, &w, "use"));

    as(fx, "root", 1, NULL);
    assert_string_equal(answers(fx, check(fx, body)), "10");

    /* Asking about others needs the right to manage grants there. */
    as(fx, "alice", 0, NULL);
    api_err(fx, UC_POST, "/action/batch-check", body, 403,
            "CannotInspectPermissions");
    /* Oneself under an identity is just oneself. */
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool,
        "{\"checks\":[{\"identity\":{\"user\":\"idp~alice\"},"
        "\"operation\":%s}]}", wh_op(fx, &w, "use")))), "1");
    /* The owner of the catalog may ask about others. */
    as(fx, "root", 1, NULL);
    fx->routes = NULL;
    api_ok(fx, UC_PATCH, "/catalogs/whs", "{\"owner\":\"carol\"}");
    as(fx, "carol", 0, NULL);
    assert_string_equal(answers(fx, check(fx, body)), "10");

    api_err(fx, UC_POST, "/action/batch-check", apr_psprintf(fx->pool,
            "{\"checks\":[{\"identity\":{\"role\":"
            "\"00000000-0000-4000-8000-000000000002\"},\"operation\":%s}]}",
            wh_op(fx, &w, "use")), 404, "RoleIdNotFound");
}

static void test_refusals(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    const char *bad[] = {
        "{}",
        "{\"checks\":{}}",
        "{\"checks\":[{\"operation\":{\"catalog\":{\"action\":{\"action\":"
        "\"use\"}}}}]}",
        "{\"checks\":[{\"operation\":{}}]}",
        "{\"checks\":[{\"operation\":{\"server\":{\"action\":{\"action\":"
        "\"nope\"}}}}]}",
        "{\"checks\":[{\"operation\":{\"warehouse\":{\"action\":{\"action\":"
        "\"use\"}}}}]}",
        "{\"checks\":[{\"operation\":{\"warehouse\":{\"action\":{\"action\":"
        "\"use\"},\"warehouse-id\":\"not-a-uuid\"}}}]}",
        "{\"checks\":[{\"identity\":{\"user\":\"no-tilde\"},\"operation\":"
        "{\"server\":{\"action\":{\"action\":\"list_users\"}}}}]}",
        "{\"checks\":[{\"identity\":{},\"operation\":"
        "{\"server\":{\"action\":{\"action\":\"list_users\"}}}}]}",
        "{\"checks\":[{\"id\":5,\"operation\":"
        "{\"server\":{\"action\":{\"action\":\"list_users\"}}}}]}",
    };
    apr_array_header_t *many = apr_array_make(fx->pool, 1002,
                                              sizeof(const char *));
    size_t i;

    (void)w;
    as(fx, "root", 1, NULL);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        api_err(fx, UC_POST, "/action/batch-check", bad[i], 422,
                "UnprocessableEntity");
    for (i = 0; i < 1001; i++)
        APR_ARRAY_PUSH(many, const char *) =
            "{\"operation\":{\"server\":{\"action\":{\"action\":"
            "\"list_users\"}}}}";
    api_err(fx, UC_POST, "/action/batch-check",
            apr_pstrcat(fx->pool, "{\"checks\":[",
                        apr_array_pstrcat(fx->pool, many, ','), "]}", NULL),
            400, "TooManyChecks");
    /* 1000 is fine, and answered in order. */
    apr_array_pop(many);
    assert_int_equal(strlen(answers(fx, check(fx, apr_pstrcat(fx->pool,
        "{\"checks\":[", apr_array_pstrcat(fx->pool, many, ','), "]}",
        NULL)))), 1000);
}

/* A batch-check of `body` refused with exactly this message. */
static void refused_as(afx_t *fx, const char *body, const char *message)
{
    uc_error_t *err = api_err(fx, UC_POST, "/action/batch-check", body, 422,
                              "UnprocessableEntity");

    if (strcmp(err->message, message) != 0)
        fail_msg("%s: '%s', not '%s'", body, err->message, message);
}

static const char *one_check(afx_t *fx, const char *op)
{
    return apr_psprintf(fx->pool, "{\"checks\":[{\"operation\":%s}]}", op);
}

/* Each shape refused with its own message, the keys' other spellings, and
 * nulls as absent members (but no alias read behind a null). */
static void test_shapes_and_aliases(void **state)
{
    afx_t *fx = *state;
    world_t w = build(fx);
    const char *pre = "Failed to deserialize the JSON body: checks[0]: ";

    as(fx, "alice", 0, NULL);
    refused_as(fx, "{\"checks\":[],\"error-on-not-found\":\"yes\"}",
               "Field 'error-on-not-found' must be a boolean.");
    refused_as(fx, "{\"checks\":[],\"error-on-not-found\":0}",
               "Field 'error-on-not-found' must be a boolean.");
    refused_as(fx, "{\"checks\":[1]}",
               apr_pstrcat(fx->pool, pre, "a check must be an object", NULL));
    refused_as(fx, one_check(fx, "{\"warehouse\":{\"action\":{\"action\":"
               "\"use\"},\"warehouse_id\":5}}"),
               apr_pstrcat(fx->pool, pre, "ids must be strings", NULL));
    refused_as(fx, one_check(fx, apr_psprintf(fx->pool, "{\"warehouse\":{"
               "\"action\":{\"action\":\"use\"},\"warehouse-id\":null,"
               "\"warehouse_id\":\"%s\"}}", w.catalog_id)),
               apr_pstrcat(fx->pool, pre, "warehouse-id must be a UUID",
                           NULL));
    refused_as(fx, one_check(fx, ns_op(fx, &w, "get_metadata",
                                       "\"namespace\":\"sales\"")),
               apr_pstrcat(fx->pool, pre, "namespace must be an array", NULL));
    refused_as(fx, one_check(fx, ns_op(fx, &w, "get_metadata",
                                       "\"namespace\":[\"a\",1]")),
               apr_pstrcat(fx->pool, pre, "namespace parts must be strings",
                           NULL));
    refused_as(fx, one_check(fx, "{\"server\":{\"action\":{\"action\":"
               "\"list_users\"}},\"project\":{}}"),
               apr_pstrcat(fx->pool, pre, "operation needs exactly one key",
                           NULL));
    refused_as(fx, one_check(fx, "{\"warehouse\":{\"action\":{\"action\":"
               "5}}}"),
               apr_pstrcat(fx->pool, pre, "unknown warehouse action ''",
                           NULL));
    refused_as(fx, one_check(fx, apr_psprintf(fx->pool, "{\"view\":{"
               "\"action\":{\"action\":\"select\"},\"warehouse-id\":\"%s\","
               "\"view_id\":\"x\"}}", w.catalog_id)),
               apr_pstrcat(fx->pool, pre, "table-id must be a UUID", NULL));
    refused_as(fx, one_check(fx, apr_psprintf(fx->pool, "{\"generic-table\":"
               "{\"action\":{\"action\":\"drop\"},\"warehouse-id\":\"%s\","
               "\"generic_table\":7}}", w.catalog_id)),
               apr_pstrcat(fx->pool, pre, "table ids and names must be "
                           "strings", NULL));
    /* The other spellings, and nulls taken for absent members. */
    assert_string_equal(answers(fx, check(fx, apr_psprintf(fx->pool,
        "{\"error-on-not-found\":null,\"checks\":["
        "{\"id\":null,\"identity\":null,\"operation\":{\"warehouse\":{"
        "\"action\":{\"action\":\"get_config\"},\"warehouse_id\":\"%s\"}}},"
        "{\"operation\":{\"namespace\":{\"action\":{\"action\":"
        "\"get_metadata\"},\"warehouse-id\":\"%s\",\"namespace\":null,"
        "\"namespace_id\":\"%s\"}}},"
        "{\"operation\":{\"project\":{\"action\":{\"action\":"
        "\"get_metadata\"},\"project_id\":"
        "\"11111111-1111-1111-1111-111111111111\"}}}]}",
        w.catalog_id, w.catalog_id, w.schema_id))), "110");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        API_TEST(test_rules_and_order),
        API_TEST(test_server_and_project),
        API_TEST(test_not_found),
        API_TEST(test_tables),
        API_TEST(test_identities),
        API_TEST(test_refusals),
        API_TEST(test_shapes_and_aliases),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("batch_check", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
