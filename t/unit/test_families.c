/* SPDX-License-Identifier: Apache-2.0 */
/* The family machinery, with a family of the test's own: the routes a
 * descriptor generates, and members of details that are stored but never
 * answered. */
#include "uc_api_fixture.h"

#define IN_SCH "\"catalog_name\":\"cat\",\"schema_name\":\"sch\""
#define SECRET "s3cr3t-t0ken"
#define NEW_SECRET "n3w-s3cr3t"

/* Vaults: objects of a schema (stored as volumes) holding a label anyone
 * who may read them sees, and a token nobody does. */
static const char *const secrets[] = { "token", NULL };
static const char *const browsed[] = { "label", NULL };

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_family_write_details(call, out, sec, sec->browse_only ? browsed : NULL);
    uc_api_write_tail(call, out, sec, "vault_id", 0);
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    const char *label = NULL, *token = NULL;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "label", 1,
                                    &label)) ||
        (err = uc_json_string_field(call->pool, call->body, "token", 1,
                                    &token)))
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{ssss}", "label", label, "token", token)));
    return NULL;
}

/* A new token replaces the stored one. */
static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    json_t *details = uc_api_details(call, sec);
    const char *token = NULL;
    uc_error_t *err = uc_json_string_field(call->pool, call->body, "token",
                                           0, &token);
    if (err || !token)
        return err;
    json_object_set_new(details, "token", json_string(token));
    uc_api_set_details(call, sec, details);
    *changed = 1;
    return NULL;
}

static const uc_api_family_t vaults = {
    UC_FAMILY_IN_SCHEMA(UC_TYPE_VOLUME, UC_PRIV_CREATE_VOLUME,
                        UC_PRIV(UC_PRIV_READ_VOLUME)),
    .label = "Vault", .plural = "vaults",
    .exists = UC_E_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_NEW_NAME,
    .secret_details = secrets,
    .render = render, .prepare_create = prepare_create,
    .prepare_update = prepare_update
};

static const uc_route_t vault_routes[] = {
    UC_FAMILY_ROUTES(vaults, "/vaults", "/vaults/{name}"),
    { 0, NULL, NULL, 0, NULL }
};

static const uc_route_t *const api_with_vaults[] = {
    vault_routes, uc_catalog_routes, uc_schema_routes, uc_permission_routes,
    NULL
};

static void world(afx_t *fx)
{
    fx->routes = api_with_vaults;
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
           "\"cat\"}");
}

static void assert_no_secret(afx_t *fx, json_t *answer)
{
    const char *text = uc_json_dump(fx->pool, answer);

    if (strstr(text, SECRET) || strstr(text, NEW_SECRET) ||
        strstr(text, "\"token\""))
        fail_msg("a secret is in the answer: %s", text);
}

static const char *stored_details(afx_t *fx)
{
    return uc_test_sql_value(fx->db, fx->conn, fx->pool,
                             "SELECT details FROM securables "
                             "WHERE name = 'vault1'");
}

/* --- the generated routes ---------------------------------------------- */

static void test_five_routes(void **state)
{
    static const struct {
        uc_method_t method;
        const char *pattern;
        uc_operation_fn operation;
        unsigned flags;
        const uc_rule_t *rule;
    } want[] = {
        { UC_POST, "/vaults", uc_family_create,
          UC_ROUTE_BODY | UC_ROUTE_TXN, &vaults.rules.create },
        { UC_GET, "/vaults", uc_family_list, 0, &vaults.rules.list },
        { UC_GET, "/vaults/{name}", uc_family_get, 0, &vaults.rules.read },
        { UC_PATCH, "/vaults/{name}", uc_family_update,
          UC_ROUTE_BODY | UC_ROUTE_TXN, &vaults.rules.manage },
        { UC_DELETE, "/vaults/{name}", uc_family_delete, UC_ROUTE_TXN,
          &vaults.rules.manage },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const uc_route_t *r = &vault_routes[i];

        assert_int_equal(r->method, want[i].method);
        assert_string_equal(r->pattern, want[i].pattern);
        assert_ptr_equal(r->operation, want[i].operation);
        assert_int_equal(r->flags, want[i].flags);
        assert_ptr_equal(r->rule, want[i].rule);
        assert_null(r->envelope);
        assert_ptr_equal(r->family, &vaults);
    }
    assert_null(vault_routes[i].pattern);
}

/* The rules of objects of a schema, from the type and the privileges. */
static void test_rules_in_schema(void **state)
{
    const uc_family_rules_t *r = &vaults.rules;

    (void)state;
    assert_int_equal(r->create.target, UC_TARGET_SCHEMA_FIELDS);
    assert_int_equal(r->create.needs[2].level, UC_LEVEL_SCHEMA);
    assert_int_equal(r->create.needs[2].any, UC_PRIV(UC_PRIV_CREATE_VOLUME));
    assert_int_equal(r->list.target, UC_TARGET_SCHEMA_QUERY);
    assert_int_equal(r->list.browse, UC_BROWSE_ON_REQUEST);
    assert_int_equal(r->read.target, UC_TARGET_OBJECT);
    assert_int_equal(r->read.type, UC_TYPE_VOLUME);
    assert_int_equal(r->read.needs[2].any, UC_PRIV(UC_PRIV_READ_VOLUME));
    assert_int_equal(r->read.browse, UC_BROWSE_ON_REQUEST);
    assert_int_equal(r->manage.type, UC_TYPE_VOLUME);
    assert_int_equal(r->manage.needs[2].any, UC_PRIV(UC_PRIV_MANAGE));
    assert_int_equal(r->manage.browse, 0);
    assert_int_equal(vaults.level, UC_LEVEL_OBJECT);
    assert_int_equal(vaults.read, UC_PRIV(UC_PRIV_READ_VOLUME));
}

/* --- secrets ----------------------------------------------------------- */

static void test_secret_never_answered(void **state)
{
    afx_t *fx = *state;
    json_t *out, *list;

    world(fx);
    out = api_ok(fx, UC_POST, "/vaults", "{\"name\":\"vault1\"," IN_SCH ","
                 "\"label\":\"front door\",\"token\":\"" SECRET "\"}");
    assert_no_secret(fx, out);
    assert_jstr(out, "label", "front door");
    assert_jstr(out, "full_name", "cat.sch.vault1");
    assert_non_null(strstr(stored_details(fx), SECRET));

    out = api_ok(fx, UC_GET, "/vaults/cat.sch.vault1", NULL);
    assert_no_secret(fx, out);
    assert_jstr(out, "label", "front door");

    out = api_ok(fx, UC_GET, "/vaults?catalog_name=cat&schema_name=sch",
                 NULL);
    assert_no_secret(fx, out);
    list = json_object_get(out, "vaults");
    assert_int_equal(json_array_size(list), 1);
    assert_jstr(json_array_get(list, 0), "label", "front door");

    out = api_ok(fx, UC_PATCH, "/vaults/cat.sch.vault1",
                 "{\"comment\":\"c\"}");
    assert_no_secret(fx, out);
    out = api_ok(fx, UC_PATCH, "/vaults/cat.sch.vault1",
                 "{\"token\":\"" NEW_SECRET "\"}");
    assert_no_secret(fx, out);
    assert_jstr(out, "label", "front door");
    assert_non_null(strstr(stored_details(fx), NEW_SECRET));
}

/* What BROWSE leaves out and the secrets are left out together. */
static void test_secret_and_browse(void **state)
{
    afx_t *fx = *state;
    json_t *out, *row;

    world(fx);
    api_ok(fx, UC_POST, "/vaults", "{\"name\":\"vault1\"," IN_SCH ","
           "\"label\":\"front door\",\"token\":\"" SECRET "\"}");
    api_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
           "\"principal\":\"bob\",\"add\":[\"BROWSE\"]}]}");
    fx->principal = "bob";
    fx->principal_is_admin = 0;

    out = api_ok(fx, UC_GET, "/vaults?catalog_name=cat&schema_name=sch"
                 "&include_browse=true", NULL);
    assert_no_secret(fx, out);
    row = json_array_get(json_object_get(out, "vaults"), 0);
    assert_true(json_is_true(json_object_get(row, "browse_only")));
    assert_null(json_object_get(row, "label"));

    out = api_ok(fx, UC_GET, "/vaults/cat.sch.vault1?include_browse=true",
                 NULL);
    assert_no_secret(fx, out);
    assert_null(json_object_get(out, "label"));
}

/* A taken name is the family's error, with its label and full name. */
static void test_name_taken(void **state)
{
    afx_t *fx = *state;
    const char *body = "{\"name\":\"vault1\"," IN_SCH ",\"label\":\"l\","
                       "\"token\":\"" SECRET "\"}";
    uc_error_t *err;

    world(fx);
    api_ok(fx, UC_POST, "/vaults", body);
    err = api_err(fx, UC_POST, "/vaults", body, 409,
                  "ALREADY_EXISTS");
    assert_string_equal(err->message,
                        "Vault already exists: cat.sch.vault1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_five_routes),
        cmocka_unit_test(test_rules_in_schema),
        API_TEST(test_secret_never_answered),
        API_TEST(test_secret_and_browse),
        API_TEST(test_name_taken),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("families", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
