/* SPDX-License-Identifier: Apache-2.0 */
/* Authorization: the privilege catalogue, group parsing, every route's rule
 * run as callers of each kind (a matrix generated from the route tables),
 * escalation, the /permissions API and filtered lists. Runs the real API
 * against a temporary SQLite file; "admin" is the only metastore admin. */
#include "uc_api_fixture.h"
#include "../../src/core/uc_validate.h"

#include "../../src/authz/uc_authz.h"
#include "../../src/cloud/uc_cloud_http.h"
#include "../../src/store/uc_grants.h"
#include "../../src/mounts/uc_mounts.h"

#define P UC_PRIV

/* --- privileges -------------------------------------------------------- */

static void test_privilege_parse(void **state)
{
    (void)state;
    assert_int_equal(uc_privilege_parse("USE CATALOG"), UC_PRIV_USE_CATALOG);
    assert_int_equal(uc_privilege_parse("USE_CATALOG"), UC_PRIV_USE_CATALOG);
    assert_int_equal(uc_privilege_parse("use catalog"), UC_PRIV_USE_CATALOG);
    assert_int_equal(uc_privilege_parse("Use_Schema"), UC_PRIV_USE_SCHEMA);
    assert_int_equal(uc_privilege_parse("ALL PRIVILEGES"),
                     UC_PRIV_ALL_PRIVILEGES);
    assert_int_equal(uc_privilege_parse("select"), UC_PRIV_SELECT);
    assert_int_equal(uc_privilege_parse("MANAGE"), UC_PRIV_MANAGE);
    assert_int_equal(uc_privilege_parse("USE CATALOGS"), -1);
    assert_int_equal(uc_privilege_parse("OWN"), -1);
    assert_int_equal(uc_privilege_parse(""), -1);
    assert_int_equal(uc_privilege_parse(" USE CATALOG"), -1);
    assert_int_equal(uc_privilege_parse(
        "A_VERY_LONG_PRIVILEGE_NAME_THAT_DOES_NOT_EXIST_AND_OVERFLOWS_BUF"
        "FERS_OF_SIXTY_FOUR"), -1);

    assert_string_equal(uc_privilege_name(UC_PRIV_USE_CATALOG),
                        "USE CATALOG");
    assert_string_equal(uc_privilege_name(UC_PRIV_ALL_PRIVILEGES),
                        "ALL PRIVILEGES");
    assert_string_equal(uc_privilege_name(UC_PRIV_SELECT), "SELECT");
    assert_string_equal(uc_privilege_key(UC_PRIV_USE_CATALOG), "USE_CATALOG");
    /* Every name and key parses back to itself. */
    {
        int p;
        for (p = 0; p < UC_PRIV_COUNT; p++) {
            assert_int_equal(uc_privilege_parse(
                                 uc_privilege_name((uc_privilege_t)p)), p);
            assert_int_equal(uc_privilege_parse(
                                 uc_privilege_key((uc_privilege_t)p)), p);
        }
    }
    assert_int_equal(uc_securable_type_parse("catalog"), UC_TYPE_CATALOG);
    assert_int_equal(uc_securable_type_parse("SCHEMA"), UC_TYPE_SCHEMA);
    assert_int_equal(uc_securable_type_parse("registered_model"),
                     UC_TYPE_REGISTERED_MODEL);
    assert_int_equal(uc_securable_type_parse("bucket"), -1);
    assert_string_equal(uc_securable_type_name(UC_TYPE_METASTORE),
                        "metastore");
}

static void test_privileges_grantable_and_expand(void **state)
{
    apr_pool_t *pool = *state;
    uc_privset_t cat = uc_privileges_grantable(UC_TYPE_CATALOG);
    uc_privset_t sch = uc_privileges_grantable(UC_TYPE_SCHEMA);
    uc_privset_t tbl = uc_privileges_grantable(UC_TYPE_TABLE);
    uc_privset_t ms = uc_privileges_grantable(UC_TYPE_METASTORE);
    uc_privset_t all;
    apr_array_header_t *names;

    assert_true(cat & P(UC_PRIV_SELECT));
    assert_true(cat & P(UC_PRIV_USE_CATALOG));
    assert_true(cat & P(UC_PRIV_USE_SCHEMA));
    assert_true(cat & P(UC_PRIV_MANAGE));
    assert_false(cat & P(UC_PRIV_CREATE_CATALOG));
    assert_false(tbl & P(UC_PRIV_CREATE_CATALOG));
    assert_false(tbl & P(UC_PRIV_USE_SCHEMA));
    assert_true(tbl & P(UC_PRIV_SELECT));
    assert_false(sch & P(UC_PRIV_USE_CATALOG));
    assert_false(sch & P(UC_PRIV_CREATE_SCHEMA));
    assert_true(sch & P(UC_PRIV_CREATE_TABLE));
    assert_true(ms & P(UC_PRIV_CREATE_CATALOG));
    assert_false(ms & P(UC_PRIV_USE_CATALOG));
    assert_int_equal(uc_privileges_grantable((uc_securable_type_t)99), 0);

    all = uc_privileges_expand(P(UC_PRIV_ALL_PRIVILEGES), UC_TYPE_CATALOG);
    assert_true(all & P(UC_PRIV_USE_CATALOG));
    assert_true(all & P(UC_PRIV_SELECT));
    assert_true(all & P(UC_PRIV_CREATE_SCHEMA));
    assert_false(all & P(UC_PRIV_MANAGE));
    assert_false(all & P(UC_PRIV_EXTERNAL_USE_SCHEMA));
    assert_false(all & P(UC_PRIV_CREATE_CATALOG));
    all = uc_privileges_expand(P(UC_PRIV_ALL_PRIVILEGES), UC_TYPE_SCHEMA);
    assert_false(all & P(UC_PRIV_MANAGE));
    assert_false(all & P(UC_PRIV_EXTERNAL_USE_SCHEMA));
    assert_false(all & P(UC_PRIV_USE_CATALOG));
    assert_true(all & P(UC_PRIV_USE_SCHEMA));
    /* Without ALL PRIVILEGES a set stays as it is. */
    assert_true(uc_privileges_expand(P(UC_PRIV_SELECT), UC_TYPE_CATALOG) ==
                P(UC_PRIV_SELECT));

    names = uc_privileges_names(pool, P(UC_PRIV_SELECT) |
                                P(UC_PRIV_USE_CATALOG));
    assert_int_equal(names->nelts, 2);
    assert_string_equal(APR_ARRAY_IDX(names, 0, const char *), "USE CATALOG");
    assert_string_equal(APR_ARRAY_IDX(names, 1, const char *), "SELECT");
}

/* --- principals and groups --------------------------------------------- */

static int has_group(const apr_array_header_t *a, const char *g)
{
    int i;
    for (i = 0; a && i < a->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(a, i, const char *), g) == 0)
            return 1;
    return 0;
}

static void test_groups(void **state)
{
    apr_pool_t *pool = *state;
    apr_array_header_t *g = apr_array_make(pool, 4, sizeof(const char *));
    apr_array_header_t *admins = apr_array_make(pool, 1, sizeof(const char *));
    apr_hash_t *users;
    apr_array_header_t *ag;
    uc_principal_t *p;

    uc_groups_from_claim(pool, "a, b,,c", g);
    assert_int_equal(g->nelts, 3);
    assert_string_equal(APR_ARRAY_IDX(g, 0, const char *), "a");
    assert_string_equal(APR_ARRAY_IDX(g, 1, const char *), "b");
    assert_string_equal(APR_ARRAY_IDX(g, 2, const char *), "c");
    g = apr_array_make(pool, 4, sizeof(const char *));
    uc_groups_from_claim(pool, "[\"x\",\"y\"]", g);
    assert_int_equal(g->nelts, 2);
    assert_string_equal(APR_ARRAY_IDX(g, 0, const char *), "x");
    assert_string_equal(APR_ARRAY_IDX(g, 1, const char *), "y");
    uc_groups_from_claim(pool, NULL, g);
    uc_groups_from_claim(pool, "[not json", g);
    uc_groups_from_claim(pool, "x", g);   /* no duplicates */
    assert_int_equal(g->nelts, 2);

    users = uc_groups_from_file_text(pool, "g1: alice bob\ng2: alice\n# c\n");
    ag = apr_hash_get(users, "alice", APR_HASH_KEY_STRING);
    assert_non_null(ag);
    assert_int_equal(ag->nelts, 2);
    assert_true(has_group(ag, "g1"));
    assert_true(has_group(ag, "g2"));
    ag = apr_hash_get(users, "bob", APR_HASH_KEY_STRING);
    assert_non_null(ag);
    assert_int_equal(ag->nelts, 1);
    assert_true(has_group(ag, "g1"));
    assert_null(apr_hash_get(users, "#", APR_HASH_KEY_STRING));
    assert_null(apr_hash_get(users, "c", APR_HASH_KEY_STRING));
    assert_int_equal(apr_hash_count(users), 2);

    /* Admin through a group; principal_is. */
    APR_ARRAY_PUSH(admins, const char *) = "g2";
    p = uc_principal_make(pool, "alice", ag = apr_hash_get(users, "alice",
                                                           APR_HASH_KEY_STRING),
                          admins);
    assert_true(p->admin);
    assert_true(uc_principal_is(p, "alice"));
    assert_true(uc_principal_is(p, "g1"));
    assert_false(uc_principal_is(p, "bob"));
    assert_false(uc_principal_is(p, NULL));
    assert_string_equal(p->json, "[\"alice\",\"g1\",\"g2\"]");
    p = uc_principal_make(pool, "bob", NULL, admins);
    assert_false(p->admin);
    assert_string_equal(p->json, "[\"bob\"]");
}

/* One spelling of a principal wherever it is compared or stored. */
static void test_principal_names(void **state)
{
    apr_pool_t *pool = *state;
    static const struct { const char *in, *want; } same[] = {
        { "Bob", "bob" }, { "  bob  ", "bob" }, { "BOB ", "bob" },
        { "Alice@Example.COM", "alice@example.com" },
        { "\xc3\x89ve", "\xc3\x89ve" },      /* only ASCII folds */
        { "a b", "a b" }, { NULL, NULL }
    };
    static const char *const bad[] = {
        "", "   ", "bob\nadmin", "\x1b[31mred", "tab\tbed", "cr\r",
        "x\x7f", "c1\xc2\x9b" "2J", "bob\n",
        /* Format characters: zero-width space, BOM, soft hyphen, a
         * right-to-left override, a language tag; and no UTF-8. */
        "bob\xe2\x80\x8b", "\xef\xbb\xbf" "bob", "b\xc2\xad" "ob",
        "bo\xe2\x80\xae" "b", "bob\xf3\xa0\x80\x81", "bob\xff", NULL
    };
    apr_array_header_t *g = apr_array_make(pool, 4, sizeof(const char *));
    apr_hash_t *users;
    const char *out;
    char *long_name = apr_palloc(pool, UC_NAME_MAX + 2);
    int i;

    for (i = 0; same[i].in; i++) {
        assert_ok(uc_principal_normalize(pool, "principal", same[i].in, &out));
        assert_string_equal(out, same[i].want);
    }
    for (i = 0; bad[i]; i++) {
        uc_error_t *err = uc_principal_normalize(pool, "owner", bad[i], &out);
        if (!err)
            fail_msg("principal '%s' accepted as '%s'", bad[i], out);
        assert_invalid(err);
        assert_contains(err->message, "owner");
    }
    memset(long_name, 'a', UC_NAME_MAX + 1);
    long_name[UC_NAME_MAX + 1] = '\0';
    assert_invalid(uc_principal_normalize(pool, "owner", long_name, &out));

    uc_groups_from_claim(pool, " Analysts , ANALYSTS,bad\x1b[0m, "
                         "analysts\xe2\x80\x8b", g);
    assert_int_equal(g->nelts, 1);
    assert_string_equal(APR_ARRAY_IDX(g, 0, const char *), "analysts");
    users = uc_groups_from_file_text(pool, "Team: Alice BOB\n");
    assert_non_null(apr_hash_get(users, "alice", APR_HASH_KEY_STRING));
    assert_true(has_group(apr_hash_get(users, "bob", APR_HASH_KEY_STRING),
                          "team"));
    assert_null(apr_hash_get(users, "Alice", APR_HASH_KEY_STRING));
}

/* --- API helpers ------------------------------------------------------- */

static int authz_setup(void **state)
{
    afx_t *fx;

    setup(state);
    fx = *state;
    fx->principal_is_admin = 0;
    fx->admins = apr_array_make(fx->pool, 1, sizeof(const char *));
    APR_ARRAY_PUSH(fx->admins, const char *) = "admin";
    fx->principal = "admin";
    return 0;
}

#define AUTHZ_TEST(f) cmocka_unit_test_setup_teardown(f, authz_setup, teardown)

/* Switches the caller; groups: NULL or one group name. */
static void as(afx_t *fx, const char *name, const char *group)
{
    fx->principal = name;
    fx->groups = NULL;
    if (group) {
        fx->groups = apr_array_make(fx->pool, 1, sizeof(const char *));
        APR_ARRAY_PUSH(fx->groups, const char *) = group;
    }
}

/* Runs as admin and comes back to the caller it was. */
static json_t *admin_ok(afx_t *fx, uc_method_t m, const char *target,
                        const char *body)
{
    const char *who = fx->principal;
    apr_array_header_t *groups = fx->groups;
    json_t *out;

    as(fx, "admin", NULL);
    out = api_ok(fx, m, target, body);
    fx->principal = who;
    fx->groups = groups;
    return out;
}

static void grant(afx_t *fx, const char *type, const char *name,
                  const char *principal, const char *privilege)
{
    admin_ok(fx, UC_PATCH, apr_psprintf(fx->pool, "/permissions/%s/%s", type,
                                        name),
             apr_psprintf(fx->pool, "{\"changes\":[{\"principal\":\"%s\","
                          "\"add\":[\"%s\"]}]}", principal, privilege));
}

static int sql_count(afx_t *fx, const char *sql)
{
    return uc_test_sql_int(fx->db, fx->conn, fx->pool, sql);
}

static int status_of(afx_t *fx, uc_method_t m, const char *target,
                     const char *body, const char **code)
{
    json_t *out;
    uc_error_t *err = api(fx, m, target, body, &out);

    if (code)
        *code = err ? err->code : NULL;
    return err ? err->status : 200;
}

/* --- the route matrix -------------------------------------------------- */

typedef struct instance {
    const uc_route_t *route;
    const char *path;
    const char *body;
    int target_level;
    uc_securable_type_t object_type;   /* at UC_LEVEL_OBJECT */
} instance_t;

/* The object of each type that reset_world creates in cat.sch. */
static const char *object_named(uc_securable_type_t type)
{
    switch (type) {
    case UC_TYPE_TABLE: return "tbl";
    case UC_TYPE_VOLUME: return "vol";
    case UC_TYPE_FUNCTION: return "fun";
    case UC_TYPE_REGISTERED_MODEL: return "mdl";
    case UC_TYPE_AGENT: return "agt";
    case UC_TYPE_AGENT_SKILL: return "skl";
    case UC_TYPE_CREDENTIAL: return "crd";
    case UC_TYPE_EXTERNAL_LOCATION: return "loc";
    case UC_TYPE_SHARE: return "shr";
    case UC_TYPE_PROVIDER: return "prv";
    case UC_TYPE_RECIPIENT: return "rcp";
    case UC_TYPE_TAG_POLICY: return "tgp";
    default: fail_msg("no object of type %d", type);
    }
    return NULL;
}

/* Credentials, external locations, shares, recipients, providers and
 * tag policies hang under the metastore. */
static int is_top(uc_securable_type_t t)
{
    return t == UC_TYPE_CREDENTIAL || t == UC_TYPE_EXTERNAL_LOCATION ||
           t == UC_TYPE_SHARE || t == UC_TYPE_PROVIDER ||
           t == UC_TYPE_RECIPIENT || t == UC_TYPE_TAG_POLICY;
}

static const char *object_full_name(apr_pool_t *pool, uc_securable_type_t t)
{
    return is_top(t) ? object_named(t)
                     : apr_pstrcat(pool, "cat.sch.", object_named(t), NULL);
}

/* reset_world gives the table and the volume these ids, so that bodies
 * naming them hold across resets. */
#define TABLE_ID "00000000-0000-4000-8000-00000000ab01"
#define VOLUME_ID "00000000-0000-4000-8000-00000000ab02"

/* The pattern with its parameters replaced by a, b and c in turn. */
static const char *substitute3(apr_pool_t *pool, const char *pattern,
                               const char *a, const char *b, const char *c)
{
    const char *out = "", *p = pattern, *values[3] = { a, b, c };
    int n = 0;

    while (*p) {
        const char *open = strchr(p, '{'), *close;
        if (!open) {
            out = apr_pstrcat(pool, out, p, NULL);
            break;
        }
        close = strchr(open, '}');
        out = apr_pstrcat(pool, out, apr_pstrndup(pool, p,
                                                  (apr_size_t)(open - p)),
                          values[n < 2 ? n : 2], NULL);
        n++;
        p = close + 1;
    }
    return out;
}

static const char *substitute(apr_pool_t *pool, const char *pattern,
                              const char *a, const char *b)
{
    return substitute3(pool, pattern, a, b, b);
}

#define IN_SCH "\"catalog_name\":\"cat\",\"schema_name\":\"sch\""
#define FUNCTION_FIELDS \
    "\"data_type\":\"INT\",\"full_data_type\":\"int\"," \
    "\"parameter_style\":\"S\",\"is_deterministic\":true," \
    "\"sql_data_access\":\"NO_SQL\",\"is_null_call\":false," \
    "\"security_type\":\"DEFINER\",\"routine_body\":\"SQL\"," \
    "\"routine_definition\":\"1\""

/* A valid body for each route, so that only authorization can refuse. */
static const char *body_for(const uc_route_t *r)
{
    static const struct { const char *pattern; const char *body; } posts[] = {
        { "/catalogs", "{\"name\":\"newcat\"}" },
        { "/schemas", "{\"name\":\"news\",\"catalog_name\":\"cat\"}" },
        { "/staging-tables", "{\"name\":\"newtbl\"," IN_SCH "}" },
        { "/tables", "{\"name\":\"newtbl\"," IN_SCH ",\"table_type\":"
          "\"VIEW\",\"data_source_format\":\"DELTA\","
          "\"view_definition\":\"select 1\"}" },
        { "/volumes", "{\"name\":\"newvol\"," IN_SCH ",\"volume_type\":"
          "\"MANAGED\"}" },
        { "/functions", "{\"function_info\":{\"name\":\"newfun\"," IN_SCH
          "," FUNCTION_FIELDS "}}" },
        { "/models", "{\"name\":\"newmdl\"," IN_SCH "}" },
        { "/models/versions", "{" IN_SCH ",\"model_name\":\"mdl\","
          "\"source\":\"s3://b/run\"}" },
        { "/agents", "{\"name\":\"newagt\"," IN_SCH ",\"invocation_protocol\":"
          "\"MCP\",\"endpoint\":\"https://agent.example/mcp\"}" },
        { "/agent-skills", "{\"name\":\"newskl\"," IN_SCH ","
          "\"agent_skill_type\":\"MANAGED\"}" },
        { "/credentials", "{\"name\":\"newcrd\",\"azure_managed_identity\":"
          "{\"access_connector_id\":\"x\"}}" },
        { "/external-locations", "{\"name\":\"newloc\",\"url\":"
          "\"file:///srv/newloc\"}" },
        { "/shares", "{\"name\":\"newshr\"}" },
        { "/tag-policies", "{\"tag_policy\":{\"tag_key\":\"newtgp\"}}" },
        { "/entity-tag-assignments", "{\"tag_assignment\":{\"entity_type\":"
          "\"tables\",\"entity_name\":\"cat.sch.tbl\",\"tag_key\":"
          "\"k1\",\"tag_value\":\"v\"}}" },
        /* Without a secret key the profile cannot be sealed: a 400 once
         * authorized. */
        { "/providers", "{\"name\":\"newprv\",\"authentication_type\":"
          "\"TOKEN\",\"recipient_profile_str\":"
          "\"{\\\"shareCredentialsVersion\\\":1,\\\"endpoint\\\":"
          "\\\"https://sharing.example/\\\",\\\"bearerToken\\\":"
          "\\\"t\\\"}\"}" },
        { "/recipients", "{\"name\":\"newrcp\",\"authentication_type\":"
          "\"TOKEN\"}" },
        { "/recipients/{name}/rotate-token",
          "{\"existing_token_expire_in_seconds\":0}" },
        { "/temporary-table-credentials", "{\"table_id\":\"" TABLE_ID "\","
          "\"operation\":\"READ\"}" },
        { "/temporary-volume-credentials", "{\"volume_id\":\"" VOLUME_ID
          "\",\"operation\":\"READ_VOLUME\"}" },
        { "/temporary-model-version-credentials", "{" IN_SCH ",\"model_name\":"
          "\"mdl\",\"version\":1,\"operation\":\"READ_MODEL_VERSION\"}" },
        { "/temporary-path-credentials", "{\"url\":\"s3://bucket/else/x\","
          "\"operation\":\"PATH_READ\"}" },
        { "/delta/preview/commits", "{\"table_id\":\"" TABLE_ID "\","
          "\"table_uri\":\"s3://bucket/ext/tbl\","
          "\"latest_backfilled_version\":0}" },
    };
    size_t i;

    if (strncmp(r->pattern, "/permissions", 12) == 0 && r->method == UC_PATCH)
        return "{\"changes\":[{\"principal\":\"zed\",\"add\":[\"MANAGE\"]}]}";
    if (r->method == UC_PATCH)
        return "{\"comment\":\"x\"}";
    /* The one GET with a body: the commits of a table. */
    if (r->flags & UC_ROUTE_BODY_OR_QUERY)
        return "{\"table_id\":\"" TABLE_ID "\",\"start_version\":0}";
    if (r->method != UC_POST)
        return NULL;
    for (i = 0; i < sizeof(posts) / sizeof(posts[0]); i++)
        if (strcmp(r->pattern, posts[i].pattern) == 0)
            return posts[i].body;
    return "{}";
}

/* The query a route needs besides its target, so that only
 * authorization can refuse it. */
static const char *query_for(const uc_route_t *r)
{
    static const struct { const char *pattern, *query; } queries[] = {
        { "/delta/v1/config", "protocol-versions=1.0" },
        { "/delta/v1/catalogs/{catalog}/schemas/{schema}/tables/{table}"
          "/credentials", "operation=READ" },
        { "/delta/v1/temporary-path-credentials",
          "location=file:///srv/loc/x&operation=READ" },
    };
    size_t i;

    for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
        if (strcmp(r->pattern, queries[i].pattern) == 0)
            return queries[i].query;
    return NULL;
}

/* `path` with the route's query, after a query of its own (`sep` '&') or
 * none ('?'). */
static const char *with_query(apr_pool_t *pool, const uc_route_t *r,
                              const char *path, const char *sep)
{
    const char *query = query_for(r);

    return query ? apr_pstrcat(pool, path, sep, query, NULL) : path;
}

/* The concrete calls of one route: its path with c / cat.sch. */
static int instances(apr_pool_t *pool, const uc_route_t *r, instance_t *out)
{
    instance_t base = { r, NULL, body_for(r), 0 };

    switch (r->rule->target) {
    case UC_TARGET_METASTORE:
        base.path = substitute(pool, r->pattern, "metastore", "metastore");
        base.target_level = UC_LEVEL_METASTORE;
        break;
    case UC_TARGET_CATALOG:
    case UC_TARGET_CATALOG_FIELD:
        base.path = substitute(pool, r->pattern, "cat", "cat");
        base.target_level = UC_LEVEL_CATALOG;
        break;
    case UC_TARGET_CATALOG_QUERY:
        base.path = with_query(pool, r, apr_pstrcat(
            pool, r->pattern, "?", r->rule->field ? r->rule->field
                                                  : "catalog_name",
            "=cat", NULL), "&");
        base.target_level = UC_LEVEL_CATALOG;
        break;
    case UC_TARGET_SCHEMA_PATH:
        base.path = substitute(pool, r->pattern, "cat", "sch");
        base.target_level = UC_LEVEL_SCHEMA;
        break;
    case UC_TARGET_OBJECT_PATH:
        base.path = with_query(pool, r, substitute3(
            pool, r->pattern, "cat", "sch", object_named(r->rule->type)), "?");
        base.target_level = UC_LEVEL_OBJECT;
        base.object_type = r->rule->type;
        break;
    case UC_TARGET_OBJECT_ID_PATH:
        base.path = substitute(pool, r->pattern, TABLE_ID, "");
        base.target_level = UC_LEVEL_OBJECT;
        base.object_type = r->rule->type;
        break;
    case UC_TARGET_SCHEMA:
        base.path = substitute(pool, r->pattern, "cat.sch", "cat.sch");
        base.target_level = UC_LEVEL_SCHEMA;
        break;
    case UC_TARGET_SCHEMA_FIELDS:
        base.path = r->pattern;
        base.target_level = UC_LEVEL_SCHEMA;
        break;
    case UC_TARGET_SCHEMA_QUERY:
    case UC_TARGET_SCHEMA_QUERY_OR_METASTORE:
        base.path = apr_pstrcat(pool, r->pattern,
                                "?catalog_name=cat&schema_name=sch", NULL);
        base.target_level = UC_LEVEL_SCHEMA;
        break;
    case UC_TARGET_OBJECT_SCHEMA:
        base.path = substitute(pool, r->pattern, "cat.sch.tbl", "");
        base.target_level = UC_LEVEL_SCHEMA;
        break;
    case UC_TARGET_OBJECT:
        base.path = substitute(pool, r->pattern,
                               object_full_name(pool, r->rule->type), "1");
        base.target_level = UC_LEVEL_OBJECT;
        base.object_type = r->rule->type;
        break;
    case UC_TARGET_OBJECT_FIELDS:
    case UC_TARGET_OBJECT_ID:
        base.path = r->pattern;
        base.target_level = UC_LEVEL_OBJECT;
        base.object_type = r->rule->type;
        break;
    case UC_TARGET_TOP_OBJECT:
        base.path = substitute(pool, r->pattern,
                               object_named(r->rule->type), "");
        base.target_level = UC_LEVEL_CATALOG;
        base.object_type = r->rule->type;
        break;
    case UC_TARGET_TAGGED_ENTITY_FIELDS:
        base.path = r->pattern;
        base.target_level = UC_LEVEL_OBJECT;
        base.object_type = UC_TYPE_TABLE;
        break;
    case UC_TARGET_TAGGED_ENTITY:
    case UC_TARGET_POLICY_SCOPE: {
        /* reset_world tags each with k0 and gives each policy pol. */
        const char *key = r->rule->target == UC_TARGET_TAGGED_ENTITY ? "k0"
                                                                    : "pol";
        int n = r->rule->target == UC_TARGET_TAGGED_ENTITY ? 4 : 3;
        out[0] = out[1] = out[2] = out[3] = base;
        out[0].path = substitute3(pool, r->pattern, "catalogs", "cat", key);
        out[0].target_level = UC_LEVEL_CATALOG;
        out[1].path = substitute3(pool, r->pattern, "schemas", "cat.sch", key);
        out[1].target_level = UC_LEVEL_SCHEMA;
        out[2].path = substitute3(pool, r->pattern, "tables", "cat.sch.tbl",
                                  key);
        out[2].target_level = UC_LEVEL_OBJECT;
        out[2].object_type = UC_TYPE_TABLE;
        out[3].path = substitute3(pool, r->pattern, "volumes", "cat.sch.vol",
                                  key);
        out[3].target_level = UC_LEVEL_OBJECT;
        out[3].object_type = UC_TYPE_VOLUME;
        return n;
    }
    case UC_TARGET_SECURABLE:
        out[0] = out[1] = out[2] = base;
        out[0].path = substitute(pool, r->pattern, "catalog", "cat");
        out[0].target_level = UC_LEVEL_CATALOG;
        out[1].path = substitute(pool, r->pattern, "schema", "cat.sch");
        out[1].target_level = UC_LEVEL_SCHEMA;
        out[2].path = substitute(pool, r->pattern, "table", "cat.sch.tbl");
        out[2].target_level = UC_LEVEL_OBJECT;
        out[2].object_type = UC_TYPE_TABLE;
        return 3;
    default:
        fail_msg("%s %s: unexpected target %d", uc_method_name(r->method),
                 r->pattern, r->rule->target);
    }
    out[0] = base;
    return 1;
}

typedef struct need {
    int level;
    const char *privilege;     /* a key */
    int any;                   /* stands for "any privilege" */
} need_t;

static int needs_of(const instance_t *in, need_t *out)
{
    const uc_need_t *n;
    int k = 0;

    for (n = in->route->rule->needs; n < in->route->rule->needs + 3 && n->any;
         n++) {
        int level = n->level == UC_LEVEL_TARGET ? in->target_level : n->level, p;
        /* A need below the target does not apply. */
        if (level > in->target_level)
            continue;
        out[k].level = level;
        out[k].any = n->any == UC_ANY_PRIVILEGE;
        if (n->any == UC_ANY_PRIVILEGE && level == UC_LEVEL_OBJECT)
            /* A privilege the object's type takes. */
            for (p = UC_PRIV_ALL_PRIVILEGES + 1;
                 !(uc_privileges_grantable(in->object_type) & P(p)); p++)
                ;
        else if (n->any == UC_ANY_PRIVILEGE)
            /* Distinct from the other needs, so dropping those shows. */
            p = level == UC_LEVEL_SCHEMA ? UC_PRIV_USE_SCHEMA
                                         : UC_PRIV_BROWSE;
        else if (level == UC_LEVEL_OBJECT)
            /* One of the object's type. */
            for (p = 0; !(n->any & P(p) &
                          uc_privileges_grantable(in->object_type)); p++)
                ;
        else
            for (p = 0; !(n->any & P(p)); p++)
                ;
        out[k].privilege = uc_privilege_key((uc_privilege_t)p);
        k++;
    }
    return k;
}

static const char *level_object(apr_pool_t *pool, const instance_t *in,
                                int level, const char **name)
{
    if (level == UC_LEVEL_OBJECT ||
        (level == UC_LEVEL_CATALOG && is_top(in->object_type))) {
        *name = object_full_name(pool, in->object_type);
        return uc_securable_type_name(in->object_type);
    }
    *name = level == UC_LEVEL_METASTORE ? "metastore"
          : level == UC_LEVEL_CATALOG ? "cat" : "cat.sch";
    return level == UC_LEVEL_METASTORE ? "metastore"
         : level == UC_LEVEL_CATALOG ? "catalog" : "schema";
}

/* Provider prv, whose sharing server is a port nothing listens on: the
 * listing of its shares, once authorized, fails there (503). */
static void insert_provider(afx_t *fx)
{
    api_ok(fx, UC_POST, "/providers", "{\"name\":\"prv\","
           "\"authentication_type\":\"TOKEN\",\"recipient_profile_str\":"
           "\"{\\\"shareCredentialsVersion\\\":1,\\\"endpoint\\\":"
           "\\\"http://127.0.0.1:1/ds/\\\",\\\"bearerToken\\\":"
           "\\\"t0k3n\\\"}\"}");
}

/* Whether reset_world defines policy pol on cat, cat.sch and cat.sch.tbl
 * (for the policy routes only: policies keep data out of shares). */
static int world_has_policies;

/* A fresh world, owned by admin, without grants: credential crd,
 * external location loc, share shr and tag policy tgp under the
 * metastore, and catalog cat (with managed storage) holding schema sch,
 * which holds one object of every type (the model with a version); cat,
 * cat.sch, its table and its volume carry tag k0. */
static void reset_world(afx_t *fx)
{
    json_t *out;

    as(fx, "admin", NULL);
    (void)api(fx, UC_DELETE, "/catalogs/cat?force=true", NULL, &out);
    (void)api(fx, UC_DELETE, "/catalogs/newcat?force=true", NULL, &out);
    uc_test_sql_exec(fx->db, fx->conn, "DELETE FROM securables WHERE kind "
                     "IN ('credential', 'external_location', 'share', "
                     "'provider', 'recipient', 'tag_policy')");
    insert_provider(fx);
    uc_test_sql_exec(fx->db, fx->conn, "DELETE FROM grants");
    api_ok(fx, UC_POST, "/recipients", "{\"name\":\"rcp\","
           "\"authentication_type\":\"TOKEN\"}");
    api_ok(fx, UC_POST, "/credentials", "{\"name\":\"crd\","
           "\"azure_managed_identity\":{\"access_connector_id\":\"c\"}}");
    api_ok(fx, UC_POST, "/external-locations", "{\"name\":\"loc\","
           "\"url\":\"file:///srv/loc\"}");
    api_ok(fx, UC_POST, "/shares", "{\"name\":\"shr\"}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat\",\"storage_root\":"
           "\"s3://bucket/cat\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":\"cat\"}");
    api_ok(fx, UC_POST, "/tables", "{\"name\":\"tbl\"," IN_SCH ","
           "\"table_type\":\"EXTERNAL\",\"data_source_format\":\"DELTA\","
           "\"storage_location\":\"s3://bucket/ext/tbl\"}");
    api_ok(fx, UC_POST, "/volumes", "{\"name\":\"vol\"," IN_SCH ","
           "\"volume_type\":\"MANAGED\"}");
    uc_test_sql_exec(fx->db, fx->conn, "UPDATE securables SET id = '"
                     TABLE_ID "' WHERE kind = 'table' AND name = 'tbl'");
    uc_test_sql_exec(fx->db, fx->conn, "UPDATE securables SET id = '"
                     VOLUME_ID "' WHERE kind = 'volume' AND name = 'vol'");
    api_ok(fx, UC_POST, "/functions", "{\"name\":\"fun\"," IN_SCH ","
           FUNCTION_FIELDS "}");
    api_ok(fx, UC_POST, "/models", "{\"name\":\"mdl\"," IN_SCH "}");
    api_ok(fx, UC_POST, "/models/versions", "{" IN_SCH ",\"model_name\":"
           "\"mdl\",\"source\":\"s3://b/run\"}");
    api_ok(fx, UC_POST, "/agents", "{\"name\":\"agt\"," IN_SCH ","
           "\"invocation_protocol\":\"REST\",\"endpoint\":"
           "\"https://agent.example/x\"}");
    api_ok(fx, UC_POST, "/agent-skills", "{\"name\":\"skl\"," IN_SCH ","
           "\"agent_skill_type\":\"MANAGED\"}");
    api_ok(fx, UC_POST, "/tag-policies", "{\"tag_key\":\"tgp\"}");
    {
        static const char *const tagged[][2] = {
            { "catalogs", "cat" }, { "schemas", "cat.sch" },
            { "tables", "cat.sch.tbl" }, { "volumes", "cat.sch.vol" }
        };
        size_t i;
        for (i = 0; i < sizeof(tagged) / sizeof(tagged[0]); i++) {
            api_ok(fx, UC_POST, "/entity-tag-assignments", apr_psprintf(
                fx->pool, "{\"entity_type\":\"%s\",\"entity_name\":"
                "\"%s\",\"tag_key\":\"k0\"}", tagged[i][0], tagged[i][1]));
            if (i < 3 && world_has_policies)
                api_ok(fx, UC_POST, apr_psprintf(fx->pool, "/policies/%s/%s",
                                                 tagged[i][0], tagged[i][1]),
                       "{\"name\":\"pol\",\"policy_type\":"
                       "\"POLICY_TYPE_ROW_FILTER\",\"row_filter\":"
                       "{\"function_name\":\"cat.sch.fun\"}}");
        }
    }
}

/* Grants the needs (but the one at `skip`); with `lift`, each one level
 * up, to show inheritance: schema needs on the catalog, object needs on
 * the schema. */
static void grant_needs(afx_t *fx, const instance_t *in, const need_t *needs,
                        int n, int skip, const char *to, int lift)
{
    int i;

    for (i = 0; i < n; i++) {
        const char *name, *type;
        int level = needs[i].level;
        if (i == skip)
            continue;
        if (lift && level >= UC_LEVEL_SCHEMA)
            level--;
        type = level_object(fx->pool, in, level, &name);
        grant(fx, type, name, to, needs[i].privilege);
    }
}

/* Makes `owner` the owner of the instance's object. */
static void own_object(afx_t *fx, const instance_t *in, const char *owner)
{
    uc_test_sql_exec(fx->db, fx->conn, apr_psprintf(
        fx->pool, "UPDATE securables SET owner = '%s' WHERE kind = '%s' AND "
        "name = '%s'", owner, uc_securable_type_name(in->object_type),
        object_named(in->object_type)));
}

static void expect(afx_t *fx, const instance_t *in, int allowed,
                   int deny_status, const char *role)
{
    const char *code;
    json_t *answer;
    uc_error_t *err = api(fx, in->route->method, in->path, in->body, &answer);
    int status = err ? err->status : 200;

    code = err ? apr_pstrcat(fx->pool, err->code, ": ", err->message, NULL)
               : NULL;

    /* A peer that fails (502, 503) is met only past the rule. */
    if (allowed && (status == 403 || status == 404 || status == 500))
        fail_msg("%s %s as %s (%s): expected to be authorized, got %d %s",
                 uc_method_name(in->route->method), in->path, fx->principal,
                 role, status, code ? code : "");
    if (!allowed && deny_status && status != deny_status)
        fail_msg("%s %s as %s (%s): expected %d, got %d %s",
                 uc_method_name(in->route->method), in->path, fx->principal,
                 role, deny_status, status, code ? code : "");
    if (!allowed && !deny_status && status != 403 && status != 404)
        fail_msg("%s %s as %s (%s): expected 403 or 404, got %d %s",
                 uc_method_name(in->route->method), in->path, fx->principal,
                 role, status, code ? code : "");
}

/* The activation link of rcp's first token, as its answer shows it. */
static const char *rcp_nonce(afx_t *fx)
{
    json_t *rcp = api_ok(fx, UC_GET, "/recipients/rcp", NULL);
    json_t *token = json_array_get(json_object_get(rcp, "tokens"), 0);
    const char *url = jstr(token, "activation_url");
    const char *prefix = AFX_API_URL "/public/data_sharing_activation/";

    assert_non_null(url);
    assert_int_equal(strncmp(url, prefix, strlen(prefix)), 0);
    return apr_pstrdup(fx->pool, url + strlen(prefix));
}

/* A route open to anyone (an activation link, the OAuth token endpoint):
 * a caller holding nothing uses it; its link is what it checks. */
static void check_open_route(afx_t *fx, const uc_route_t *r)
{
    const char *nonce;

    assert_int_equal(strncmp(r->pattern, "/public/", 8), 0);
    reset_world(fx);
    if (!strchr(r->pattern, '{')) {
        /* The token endpoint: reached by anyone, its client credentials
         * (none here) are what it checks. */
        as(fx, "alice", NULL);
        assert_int_equal(status_of(fx, r->method, r->pattern, NULL, NULL),
                         400);
        return;
    }
    as(fx, "admin", NULL);
    nonce = rcp_nonce(fx);
    as(fx, "alice", NULL);
    assert_int_equal(status_of(fx, r->method, substitute(fx->pool, r->pattern,
                                                         nonce, ""),
                               NULL, NULL), 200);
    assert_int_equal(status_of(fx, r->method, substitute(fx->pool, r->pattern,
                                                         "unknown", ""),
                               NULL, NULL), 404);
}

static void test_route_matrix(void **state)
{
    afx_t *fx = *state;
    const uc_route_t *const *t;
    const uc_route_t *r;
    int routes = 0, checked = 0;

    for (t = uc_catalog_api; *t; t++)
        for (r = *t; r->pattern; r++) {
            instance_t ins[4];
            int k, count;

            routes++;
            if (!r->rule)
                fail_msg("%s %s has no authorization rule",
                         uc_method_name(r->method), r->pattern);
            if (r->rule->target == UC_TARGET_PUBLIC) {
                check_open_route(fx, r);
                continue;
            }
            assert_true(strncmp(r->pattern, "/public/", 8) != 0);
            if (!r->rule->needs[0].any) {
                /* Open to any caller; path credentials are authorized by
                 * what the path lies in (t/api/57_temporary_credentials.t),
                 * which a caller without grants is refused. */
                int path = strstr(r->pattern, "/temporary-path-credentials")
                           != NULL;
                reset_world(fx);
                as(fx, "alice", NULL);
                assert_int_equal(status_of(fx, r->method, with_query(
                                               fx->pool, r,
                                               substitute(fx->pool,
                                                          r->pattern, "tgp",
                                                          ""), "?"),
                                           body_for(r), NULL),
                                 path ? 403 : 200);
                continue;
            }
            count = instances(fx->pool, r, ins);
            world_has_policies = r->rule->target == UC_TARGET_POLICY_SCOPE;
            for (k = 0; k < count; k++) {
                const instance_t *in = &ins[k];
                need_t needs[3];
                int n = needs_of(in, needs), i, lower_need = 0;
                /* Tag policies are read by all, so never hidden. */
                int hidden = in->target_level > UC_LEVEL_METASTORE &&
                             in->object_type != UC_TYPE_TAG_POLICY ? 404 : 403;

                for (i = 0; i < n; i++)
                    lower_need |= needs[i].level >= UC_LEVEL_SCHEMA;
                checked++;

                /* Nothing at all. */
                reset_world(fx);
                as(fx, "alice", NULL);
                expect(fx, in, 0, hidden, "unprivileged");

                /* All but one need. */
                for (i = 0; n > 1 && i < n; i++) {
                    /* Any other grant already is "a privilege". */
                    if (needs[i].any)
                        continue;
                    reset_world(fx);
                    grant_needs(fx, in, needs, n, i, "alice", 0);
                    as(fx, "alice", NULL);
                    expect(fx, in, 0, 0, "missing one need");
                }

                /* Exactly the needs, granted directly. */
                reset_world(fx);
                grant_needs(fx, in, needs, n, -1, "alice", 0);
                as(fx, "alice", NULL);
                expect(fx, in, 1, 0, "direct grants");

                /* Through inheritance from the level above. */
                if (lower_need) {
                    reset_world(fx);
                    grant_needs(fx, in, needs, n, -1, "alice", 1);
                    as(fx, "alice", NULL);
                    expect(fx, in, 1, 0, "inherited grants");
                }

                /* Through a group. */
                reset_world(fx);
                grant_needs(fx, in, needs, n, -1, "team", 0);
                as(fx, "alice", "team");
                expect(fx, in, 1, 0, "group grants");
                /* The call may have deleted its object. */
                reset_world(fx);
                grant_needs(fx, in, needs, n, -1, "team", 0);
                as(fx, "bob", NULL);
                expect(fx, in, 0, hidden, "outside the group");

                /* Ownership. */
                if (in->target_level == UC_LEVEL_CATALOG &&
                    is_top(in->object_type)) {
                    reset_world(fx);
                    own_object(fx, in, "alice");
                    as(fx, "alice", NULL);
                    expect(fx, in, 1, 0, "owner");
                    reset_world(fx);
                    own_object(fx, in, "team");
                    as(fx, "alice", "team");
                    expect(fx, in, 1, 0, "owned by group");
                }
                else if (in->target_level == UC_LEVEL_CATALOG) {
                    reset_world(fx);
                    admin_ok(fx, UC_PATCH, "/catalogs/cat",
                             "{\"owner\":\"alice\"}");
                    as(fx, "alice", NULL);
                    expect(fx, in, 1, 0, "catalog owner");
                    /* Owner through a group. */
                    reset_world(fx);
                    admin_ok(fx, UC_PATCH, "/catalogs/cat",
                             "{\"owner\":\"team\"}");
                    as(fx, "alice", "team");
                    expect(fx, in, 1, 0, "catalog owned by group");
                }
                if (in->target_level == UC_LEVEL_OBJECT) {
                    int upper_need = 0;
                    for (i = 0; i < n; i++)
                        upper_need |= needs[i].level < UC_LEVEL_OBJECT;
                    /* The catalog's and the schema's owners own what is
                     * inside. */
                    reset_world(fx);
                    admin_ok(fx, UC_PATCH, "/catalogs/cat",
                             "{\"owner\":\"alice\"}");
                    as(fx, "alice", NULL);
                    expect(fx, in, 1, 0, "catalog owner");
                    reset_world(fx);
                    admin_ok(fx, UC_PATCH, "/schemas/cat.sch",
                             "{\"owner\":\"team\"}");
                    grant(fx, "catalog", "cat", "alice", "USE_CATALOG");
                    as(fx, "alice", "team");
                    expect(fx, in, 1, 0, "schema owned by group");
                    /* The object's owner still needs USE CATALOG and USE
                     * SCHEMA. */
                    reset_world(fx);
                    own_object(fx, in, "alice");
                    as(fx, "alice", NULL);
                    expect(fx, in, !upper_need, upper_need ? 403 : 0,
                           "object owner alone");
                    grant(fx, "catalog", "cat", "alice", "USE_CATALOG");
                    grant(fx, "schema", "cat.sch", "alice", "USE_SCHEMA");
                    expect(fx, in, 1, 0, "object owner with USE");
                }
                if (in->target_level == UC_LEVEL_SCHEMA) {
                    /* The catalog's owner owns what is inside. */
                    reset_world(fx);
                    admin_ok(fx, UC_PATCH, "/catalogs/cat",
                             "{\"owner\":\"alice\"}");
                    as(fx, "alice", NULL);
                    expect(fx, in, 1, 0, "catalog owner");
                    /* The schema's owner still needs what the rule asks
                     * on the catalog (USE CATALOG). */
                    int catalog_need = 0;
                    for (i = 0; i < n; i++)
                        catalog_need |= needs[i].level == UC_LEVEL_CATALOG;
                    reset_world(fx);
                    admin_ok(fx, UC_PATCH, "/schemas/cat.sch",
                             "{\"owner\":\"alice\"}");
                    as(fx, "alice", NULL);
                    expect(fx, in, !catalog_need, catalog_need ? 403 : 0,
                           "schema owner alone");
                    grant(fx, "catalog", "cat", "alice", "USE_CATALOG");
                    expect(fx, in, 1, 0, "schema owner with USE CATALOG");
                }

                /* Admin, directly and through a group. */
                reset_world(fx);
                as(fx, "admin", NULL);
                expect(fx, in, 1, 0, "admin");
                reset_world(fx);
                APR_ARRAY_PUSH(fx->admins, const char *) = "admins";
                as(fx, "carol", "admins");
                expect(fx, in, 1, 0, "admin group");
                fx->admins->nelts--;
            }
        }
    assert_true(routes >= 50);
    world_has_policies = 0;
    assert_true(checked >= 48);
}

/* The route matrix above covers the catalog API. The sharing API's
 * callers are recipients, whose rights are grants of shares, not
 * privileges (t/api/66_sharing_server.t reads them over HTTP): here every
 * route declares a recipient rule, and refuses a call without one. */
static void test_sharing_routes(void **state)
{
    afx_t *fx = *state;
    const uc_route_t *const *t;
    const uc_route_t *r;
    static const char *const params[] = { "shr", "sch", "tbl", NULL };
    int routes = 0, management = 0;

    for (t = uc_sharing_api; *t; t++)
        for (r = *t; r->pattern; r++) {
            uc_call_t call = { 0 };
            uc_error_t *err;

            routes++;
            if (!r->rule)
                fail_msg("%s %s has no authorization rule",
                         uc_method_name(r->method), r->pattern);
            assert_true(strncmp(r->pattern, "/shares", 7) == 0);
            call.pool = fx->pool;
            call.params = params;
            err = uc_authz_enforce(&call, r->rule);
            assert_non_null(err);
            assert_int_equal(err->status, 401);
            if (r->rule->target == UC_TARGET_RECIPIENT ||
                r->rule->target == UC_TARGET_RECIPIENT_SHARE)
                continue;
            /* Share management: catalog principals only. */
            management++;
            call.recipient_id = "r";
            err = uc_authz_enforce(&call, r->rule);
            assert_non_null(err);
            assert_int_equal(err->status, 403);
        }
    assert_int_equal(routes, 24);
    assert_int_equal(management, 4);
}

/* The Delta Sharing API's share management acts on the catalog's shares,
 * audited as the catalog API's changes are. */
static void test_share_management(void **state)
{
    afx_t *fx = *state;
    json_t *out;

    reset_world(fx);
    fx->routes = uc_sharing_api;
    out = admin_ok(fx, UC_POST, "/shares", "{\"name\":\"mgd\","
                   "\"description\":\"d\",\"properties\":{\"k\":\"v\"}}");
    assert_jstr(out, "description", "d");
    out = admin_ok(fx, UC_POST, "/shares/mgd/schemas", "{\"name\":\"grp\"}");
    assert_jstr(out, "share", "mgd");
    as(fx, "alice", NULL);
    api_err(fx, UC_POST, "/shares", "{\"name\":\"nope\"}", 403,
            "PERMISSION_DENIED");
    api_err(fx, UC_DELETE, "/shares/mgd/schemas/grp", NULL, 404,
            "NOT_FOUND");
    admin_ok(fx, UC_DELETE, "/shares/mgd/schemas/grp", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "actor = 'admin' AND securable_type = "
                               "'share' AND securable_name = 'mgd' AND "
                               "principal = 'grp' AND action IN "
                               "('SHARE_CREATE_SCHEMA', "
                               "'SHARE_DELETE_SCHEMA')"), 2);
    out = admin_ok(fx, UC_DELETE, "/shares/mgd", NULL);
    assert_jstr(out, "name", "mgd");
    fx->routes = NULL;
    admin_ok(fx, UC_PATCH, "/shares/shr", "{\"new_name\":\"shr2\"}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "actor = 'admin' AND securable_type = "
                               "'share' AND principal = 'admin' AND "
                               "((action = 'CREATE' AND securable_name = "
                               "'mgd') OR (action = 'DELETE' AND "
                               "securable_name = 'mgd') OR (action = "
                               "'UPDATE' AND securable_name = 'shr2'))"), 3);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM share_schemas"), 0);
    /* Recipients and providers are audited the same way. */
    admin_ok(fx, UC_DELETE, "/recipients/rcp", NULL);
    admin_ok(fx, UC_DELETE, "/providers/prv", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'DELETE' AND ((securable_type = "
                               "'recipient' AND securable_name = 'rcp') OR "
                               "(securable_type = 'provider' AND "
                               "securable_name = 'prv'))"), 2);
}

/* A caller that holds nothing on a catalog learns nothing about what is in
 * it: an existing catalog answers like a missing one. */
static void test_hidden_schema_does_not_leak_catalog(void **state)
{
    afx_t *fx = *state;
    const char *code_existing, *code_missing;

    reset_world(fx);
    as(fx, "alice", NULL);
    assert_int_equal(status_of(fx, UC_GET, "/schemas/cat.sch", NULL,
                               &code_existing), 404);
    assert_int_equal(status_of(fx, UC_GET, "/schemas/zzz.sch", NULL,
                               &code_missing), 404);
    assert_string_equal(code_missing, "CATALOG_NOT_FOUND");
    assert_string_equal(code_existing, code_missing);
}

/* Seeing but lacking: 403; seeing nothing: 404. */
static void test_hidden_vs_denied(void **state)
{
    afx_t *fx = *state;

    reset_world(fx);
    as(fx, "alice", NULL);
    api_err(fx, UC_GET, "/catalogs/cat", NULL, 404, "CATALOG_NOT_FOUND");
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"comment\":\"x\"}", 404,
            "CATALOG_NOT_FOUND");
    grant(fx, "catalog", "cat", "alice", "SELECT");
    api_err(fx, UC_GET, "/catalogs/cat", NULL, 403, "PERMISSION_DENIED");
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"comment\":\"x\"}", 403,
            "PERMISSION_DENIED");
    /* SELECT on the catalog is in force on its schemas: seen, not used. */
    api_err(fx, UC_GET, "/schemas/cat.sch", NULL, 403, "PERMISSION_DENIED");
    /* BROWSE shows the catalog with include_browse only. */
    reset_world(fx);
    grant(fx, "catalog", "cat", "alice", "BROWSE");
    as(fx, "alice", NULL);
    api_err(fx, UC_GET, "/catalogs/cat", NULL, 403, "PERMISSION_DENIED");
    assert_true(json_is_true(json_object_get(
        api_ok(fx, UC_GET, "/catalogs/cat?include_browse=true", NULL),
        "browse_only")));
    /* ALL PRIVILEGES gives USE CATALOG but not MANAGE. */
    reset_world(fx);
    grant(fx, "catalog", "cat", "alice", "ALL PRIVILEGES");
    as(fx, "alice", NULL);
    api_ok(fx, UC_GET, "/catalogs/cat", NULL);
    api_ok(fx, UC_GET, "/schemas/cat.sch", NULL);
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"comment\":\"x\"}", 403,
            "PERMISSION_DENIED");
}

/* --- escalation -------------------------------------------------------- */

static void test_escalation(void **state)
{
    afx_t *fx = *state;
    int grants;

    reset_world(fx);
    grant(fx, "catalog", "cat", "alice", "USE CATALOG");
    grants = sql_count(fx, "SELECT COUNT(*) FROM grants");

    /* No MANAGE, no ownership. */
    as(fx, "alice", NULL);
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"SELECT\"]}]}", 403,
            "PERMISSION_DENIED");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"alice\",\"add\":[\"MANAGE\"]}]}", 403,
            "PERMISSION_DENIED");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants"), grants);

    /* MANAGE (not owner) may grant to others, not to itself or its
     * groups. */
    grant(fx, "catalog", "cat", "alice", "MANAGE");
    grants = sql_count(fx, "SELECT COUNT(*) FROM grants");
    as(fx, "alice", "team");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"alice\",\"add\":[\"SELECT\"]}]}", 403,
            "PERMISSION_DENIED");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"team\",\"add\":[\"SELECT\"]}]}", 403,
            "PERMISSION_DENIED");
    /* One bad change spoils the whole request. */
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"SELECT\"]},{"
            "\"principal\":\"alice\",\"add\":[\"MODIFY\"]}]}", 403,
            "PERMISSION_DENIED");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants"), grants);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants WHERE "
                               "principal = 'bob'"), 0);
    api_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
           "\"principal\":\"bob\",\"add\":[\"SELECT\"]}]}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants WHERE "
                               "principal = 'bob'"), 1);
    /* MANAGE through a group: still not for itself. */
    reset_world(fx);
    grant(fx, "catalog", "cat", "team", "MANAGE");
    as(fx, "alice", "team");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"alice\",\"add\":[\"USE CATALOG\"]}]}", 403,
            "PERMISSION_DENIED");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants WHERE "
                               "principal = 'alice'"), 0);

    /* Ownership transfer: MANAGE is not enough. */
    reset_world(fx);
    grant(fx, "catalog", "cat", "alice", "USE CATALOG");
    grant(fx, "catalog", "cat", "alice", "MANAGE");
    as(fx, "alice", NULL);
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"alice\"}", 403,
            "PERMISSION_DENIED");
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"bob\","
            "\"comment\":\"lost\"}", 403, "PERMISSION_DENIED");
    assert_jstr(admin_ok(fx, UC_GET, "/catalogs/cat", NULL), "owner", "admin");
    assert_jstr(admin_ok(fx, UC_GET, "/catalogs/cat", NULL), "comment", NULL);
    /* ... but a comment is. */
    api_ok(fx, UC_PATCH, "/catalogs/cat", "{\"comment\":\"ok\"}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER' AND actor = 'alice'"),
                     0);

    /* The owner hands it on; the audit says so. */
    admin_ok(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"alice\"}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER' AND actor = 'admin' "
                               "AND principal = 'alice' AND "
                               "securable_type = 'catalog' AND "
                               "securable_name = 'cat'"), 1);
    assert_jstr(api_ok(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"bob\"}"),
                "owner", "bob");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER' AND actor = 'alice' AND "
                               "principal = 'bob' AND privilege IS NULL"), 1);
    /* Setting the same owner again is no transfer. */
    as(fx, "bob", NULL);
    api_ok(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"bob\"}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER'"), 2);
    /* The former owner lost it. */
    as(fx, "alice", NULL);
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"alice\"}", 403,
            "PERMISSION_DENIED");
    /* A schema owner cannot take the catalog. */
    admin_ok(fx, UC_PATCH, "/schemas/cat.sch", "{\"owner\":\"carol\"}");
    as(fx, "carol", NULL);
    grant(fx, "catalog", "cat", "carol", "USE CATALOG");
    api_ok(fx, UC_PATCH, "/schemas/cat.sch", "{\"owner\":\"dave\"}");
    api_err(fx, UC_PATCH, "/catalogs/cat", "{\"owner\":\"carol\"}", 403,
            "PERMISSION_DENIED");
}

/* The creator may name another owner in a create body: a transfer,
 * audited like one; naming itself is none. */
static void test_create_owner_audit(void **state)
{
    afx_t *fx = *state;

    admin_ok(fx, UC_POST, "/catalogs", "{\"name\":\"given\","
             "\"owner\":\"Bob \"}");
    assert_jstr(admin_ok(fx, UC_GET, "/catalogs/given", NULL), "owner", "bob");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER' AND actor = 'admin' AND "
                               "principal = 'bob' AND securable_type = "
                               "'catalog' AND securable_name = 'given' AND "
                               "privilege IS NULL"), 1);
    admin_ok(fx, UC_POST, "/schemas", "{\"name\":\"kept\","
             "\"catalog_name\":\"given\",\"owner\":\"admin\"}");
    admin_ok(fx, UC_POST, "/schemas", "{\"name\":\"plain\","
             "\"catalog_name\":\"given\"}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER'"), 1);
    admin_ok(fx, UC_POST, "/volumes", "{\"name\":\"vol\","
             "\"catalog_name\":\"given\",\"schema_name\":\"plain\","
             "\"volume_type\":\"EXTERNAL\",\"storage_location\":"
             "\"s3://audit/vol\",\"owner\":\"carol\"}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SET_OWNER' AND principal = 'carol' "
                               "AND securable_type = 'volume'"), 1);
    /* A refused create leaves no audit row behind. */
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"given\","
            "\"owner\":\"dave\"}", 400, "CATALOG_ALREADY_EXISTS");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "principal = 'dave'"), 0);
}

/* Data object changes of a share are audited, and a refused batch of
 * them leaves no row behind (its transaction is undone). */
/* Tags and policies go with their entity in the delete's transaction,
 * cascading from a catalog; a deleted tag policy leaves its key's tags
 * in place, ungoverned. */
static void test_tags_and_policies_cascade(void **state)
{
    afx_t *fx = *state;

    world_has_policies = 1;
    reset_world(fx);
    world_has_policies = 0;
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM entity_tags"), 4);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM abac_policies"), 3);
    admin_ok(fx, UC_DELETE, "/tables/cat.sch.tbl", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM entity_tags"), 3);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM abac_policies"), 2);
    admin_ok(fx, UC_POST, "/entity-tag-assignments", "{\"entity_type\":"
             "\"catalogs\",\"entity_name\":\"cat\",\"tag_key\":\"tgp\"}");
    admin_ok(fx, UC_DELETE, "/tag-policies/tgp", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM entity_tags WHERE "
                               "tag_key = 'tgp'"), 1);
    admin_ok(fx, UC_DELETE, "/catalogs/cat?force=true", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM entity_tags"), 0);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM abac_policies"), 0);
}

static void test_share_audit(void **state)
{
    afx_t *fx = *state;
    const char *add = "{\"updates\":[{\"action\":\"ADD\",\"data_object\":"
                      "{\"name\":\"cat.sch.tbl\"}}]}";

    reset_world(fx);
    admin_ok(fx, UC_PATCH, "/shares/shr", add);
    admin_ok(fx, UC_PATCH, "/shares/shr", "{\"updates\":[{\"action\":"
             "\"UPDATE\",\"data_object\":{\"name\":\"cat.sch.tbl\","
             "\"comment\":\"c\"}},{\"action\":\"REMOVE\",\"data_object\":"
             "{\"name\":\"cat.sch.tbl\"}}]}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action IN ('SHARE_ADD', 'SHARE_UPDATE', "
                               "'SHARE_REMOVE') AND actor = 'admin' AND "
                               "securable_type = 'share' AND securable_name "
                               "= 'shr' AND principal = 'cat.sch.tbl' AND "
                               "privilege = 'TABLE'"), 3);
    admin_ok(fx, UC_PATCH, "/shares/shr", add);
    api_err(fx, UC_PATCH, "/shares/shr", "{\"updates\":[{\"action\":"
            "\"REMOVE\",\"data_object\":{\"name\":\"cat.sch.tbl\"}},"
            "{\"action\":\"REMOVE\",\"data_object\":{\"name\":"
            "\"cat.sch.tbl\"}}]}", 404, "RESOURCE_DOES_NOT_EXIST");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'SHARE_REMOVE'"), 1);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM share_objects"), 1);
}

static void test_grant_audit(void **state)
{
    afx_t *fx = *state;
    json_t *out;

    reset_world(fx);
    /* Only what this test does counts (the world's recipient got a
     * token, which is audited too). */
    uc_test_sql_exec(fx->db, fx->conn, "DELETE FROM authz_audit");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action IN ('GRANT', 'REVOKE')"), 0);
    out = admin_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
                   "\"principal\":\"alice\",\"add\":[\"USE CATALOG\","
                   "\"SELECT\"]}]}");
    (void)out;
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'GRANT' AND actor = 'admin' AND "
                               "principal = 'alice' AND "
                               "securable_type = 'catalog' AND "
                               "securable_name = 'cat'"), 2);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "privilege = 'USE_CATALOG'"), 1);
    /* Granting again changes nothing and writes nothing. */
    admin_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
             "\"principal\":\"alice\",\"add\":[\"SELECT\"]}]}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit"), 2);
    admin_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
             "\"principal\":\"alice\",\"remove\":[\"SELECT\",\"MODIFY\"]}]}");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit WHERE "
                               "action = 'REVOKE' AND privilege = 'SELECT' "
                               "AND principal = 'alice'"), 1);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit"), 3);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants"), 1);
    /* A failed request writes no audit either. */
    admin_ok(fx, UC_GET, "/catalogs/cat", NULL);
    as(fx, "admin", NULL);
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"SELECT\"]},{\"principal\":"
            "\"eve\",\"add\":[\"NOPE\"]}]}", 400, "INVALID_PARAMETER_VALUE");
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit"), 3);
    /* The audit outlives the securable; grants go with it. */
    api_ok(fx, UC_DELETE, "/catalogs/cat?force=true", NULL);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM grants"), 0);
    assert_int_equal(sql_count(fx, "SELECT COUNT(*) FROM authz_audit"), 3);
}

/* --- /permissions shapes ---------------------------------------------- */

static json_t *assignments(json_t *out)
{
    json_t *a = json_object_get(out, "privilege_assignments");
    assert_true(json_is_array(a));
    return a;
}

static json_t *entry_for(json_t *out, const char *principal)
{
    json_t *a = assignments(out), *e;
    size_t i;

    json_array_foreach(a, i, e)
        if (strcmp(json_string_value(json_object_get(e, "principal")),
                   principal) == 0)
            return e;
    return NULL;
}

static void assert_privs(json_t *entry, const char *const *want)
{
    json_t *p;
    size_t i = 0, n;

    assert_non_null(entry);
    p = json_object_get(entry, "privileges");
    assert_true(json_is_array(p));
    for (n = 0; want[n]; n++)
        ;
    if (json_array_size(p) != n)
        fail_msg("%zu privileges, expected %zu", json_array_size(p), n);
    for (i = 0; i < n; i++)
        assert_string_equal(json_string_value(json_array_get(p, i)), want[i]);
}

static void test_permissions_api(void **state)
{
    afx_t *fx = *state;
    json_t *out;
    static const char *const alice_privs[] = { "USE CATALOG", "BROWSE",
                                               "SELECT", NULL };
    static const char *const bob_privs[] = { "USE CATALOG", NULL };
    static const char *const carol_privs[] = { "USE CATALOG", NULL };

    reset_world(fx);
    as(fx, "admin", NULL);
    out = api_ok(fx, UC_GET, "/permissions/catalog/cat", NULL);
    assert_int_equal(json_array_size(assignments(out)), 0);
    out = api_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":["
                 "{\"principal\":\"alice\",\"add\":[\"select\",\"USE_CATALOG\","
                 "\"BROWSE\"]},{\"principal\":\"bob\",\"add\":"
                 "[\"USE CATALOG\",\"MODIFY\"]}]}");
    assert_int_equal(json_array_size(assignments(out)), 2);
    assert_privs(entry_for(out, "alice"), alice_privs);

    out = api_ok(fx, UC_GET, "/permissions/catalog/cat", NULL);
    assert_int_equal(json_array_size(assignments(out)), 2);
    assert_privs(entry_for(out, "alice"), alice_privs);
    assert_int_equal(json_object_size(json_array_get(assignments(out), 0)), 2);
    /* ?principal= narrows. */
    out = api_ok(fx, UC_GET, "/permissions/catalog/cat?principal=bob", NULL);
    assert_int_equal(json_array_size(assignments(out)), 1);
    assert_non_null(entry_for(out, "bob"));
    out = api_ok(fx, UC_GET, "/permissions/catalog/cat?principal=nobody", NULL);
    assert_int_equal(json_array_size(assignments(out)), 0);

    /* A caller without MANAGE sees its own entries (and its groups'). */
    grant(fx, "catalog", "cat", "team", "BROWSE");
    as(fx, "alice", "team");
    out = api_ok(fx, UC_GET, "/permissions/catalog/cat", NULL);
    assert_int_equal(json_array_size(assignments(out)), 2);
    assert_non_null(entry_for(out, "alice"));
    assert_non_null(entry_for(out, "team"));
    assert_null(entry_for(out, "bob"));
    out = api_ok(fx, UC_GET, "/permissions/catalog/cat?principal=bob", NULL);
    assert_int_equal(json_array_size(assignments(out)), 0);
    /* Who sees nothing of c gets a 404. */
    as(fx, "eve", NULL);
    api_err(fx, UC_GET, "/permissions/catalog/cat", NULL, 404,
            "CATALOG_NOT_FOUND");

    /* PATCH answers the touched principals, without those left empty. */
    as(fx, "admin", NULL);
    out = api_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":["
                 "{\"principal\":\"bob\",\"remove\":[\"MODIFY\"]},"
                 "{\"principal\":\"carol\",\"add\":[\"USE CATALOG\"]}]}");
    assert_int_equal(json_array_size(assignments(out)), 2);
    assert_privs(entry_for(out, "bob"), bob_privs);
    assert_privs(entry_for(out, "carol"), carol_privs);
    assert_null(entry_for(out, "alice"));
    out = api_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":["
                 "{\"principal\":\"bob\",\"remove\":[\"USE CATALOG\"]}]}");
    assert_int_equal(json_array_size(assignments(out)), 0);
    out = api_ok(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[]}");
    assert_int_equal(json_array_size(assignments(out)), 0);

    /* Bad requests. */
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"CREATE CATALOG\"]}]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/schema/cat.sch", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"USE CATALOG\"]}]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"FLY\"]}]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[1]}]}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":\"SELECT\"}]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"add\":[\"SELECT\"]}]}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"\",\"add\":[\"SELECT\"]}]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":[{"
            "\"principal\":\"bob\",\"add\":[\"SELECT\"],\"remove\":"
            "[\"SELECT\"]}]}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/bucket/c", "{\"changes\":[]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/permissions/bucket/c", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/cat", "{\"changes\":{}}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/permissions/catalog/nope", "{\"changes\":[]}",
            404, "CATALOG_NOT_FOUND");
    api_err(fx, UC_GET, "/permissions/schema/cat.nope", NULL, 404,
            "SCHEMA_NOT_FOUND");
    /* Metastore grants. */
    out = api_ok(fx, UC_PATCH, "/permissions/metastore/metastore",
                 "{\"changes\":[{\"principal\":\"alice\",\"add\":"
                 "[\"CREATE CATALOG\"]}]}");
    assert_non_null(entry_for(out, "alice"));
    api_err(fx, UC_PATCH, "/permissions/metastore/metastore",
            "{\"changes\":[{\"principal\":\"alice\",\"add\":"
            "[\"USE CATALOG\"]}]}", 400, "INVALID_PARAMETER_VALUE");
    as(fx, "alice", NULL);
    assert_jstr(api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"mine\"}"),
                "owner", "alice");
    as(fx, "bob", NULL);
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"bobs\"}", 403,
            "PERMISSION_DENIED");
}

static void test_effective_permissions(void **state)
{
    afx_t *fx = *state;
    json_t *out, *e, *privs, *p;
    size_t i;
    int found_inherited = 0, found_direct = 0;

    reset_world(fx);
    grant(fx, "catalog", "cat", "alice", "USE SCHEMA");
    grant(fx, "catalog", "cat", "alice", "USE CATALOG");
    grant(fx, "schema", "cat.sch", "alice", "CREATE TABLE");
    as(fx, "admin", NULL);
    out = api_ok(fx, UC_GET, "/effective-permissions/schema/cat.sch", NULL);
    e = entry_for(out, "alice");
    assert_non_null(e);
    privs = json_object_get(e, "privileges");
    json_array_foreach(privs, i, p) {
        const char *name = json_string_value(json_object_get(p,
                                                             "privilege"));
        assert_non_null(name);
        /* USE CATALOG does not apply to a schema. */
        assert_string_not_equal(name, "USE CATALOG");
        if (strcmp(name, "USE SCHEMA") == 0) {
            assert_jstr(p, "inherited_from_type", "catalog");
            assert_jstr(p, "inherited_from_name", "cat");
            found_inherited++;
        }
        if (strcmp(name, "CREATE TABLE") == 0) {
            assert_null(json_object_get(p, "inherited_from_type"));
            found_direct++;
        }
    }
    assert_int_equal(found_inherited, 1);
    assert_int_equal(found_direct, 1);
    /* A non-managing caller sees its own. */
    as(fx, "alice", NULL);
    out = api_ok(fx, UC_GET, "/effective-permissions/schema/cat.sch", NULL);
    assert_non_null(entry_for(out, "alice"));
    grant(fx, "catalog", "cat", "bob", "USE CATALOG");
    as(fx, "bob", NULL);
    api_err(fx, UC_GET, "/effective-permissions/schema/cat.sch", NULL, 404,
            "SCHEMA_NOT_FOUND");
}

/* --- filtered lists ---------------------------------------------------- */

static json_t *find_named(json_t *list, const char *name)
{
    json_t *e;
    size_t i;

    json_array_foreach(list, i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
            return e;
    return NULL;
}

static void test_list_filtering(void **state)
{
    afx_t *fx = *state;
    json_t *list, *e;
    size_t i;

    as(fx, "admin", NULL);
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat1\"}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat2\",\"storage_root\":"
           "\"s3://b/cat2\",\"properties\":{\"k\":\"v\"}}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat3\",\"owner\":\"alice\"}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"cat4\"}");
    grant(fx, "catalog", "cat1", "alice", "USE CATALOG");
    grant(fx, "catalog", "cat2", "alice", "BROWSE");
    grant(fx, "catalog", "cat4", "team", "ALL PRIVILEGES");

    as(fx, "alice", NULL);
    list = json_object_get(api_ok(fx, UC_GET, "/catalogs", NULL), "catalogs");
    assert_int_equal(json_array_size(list), 2);
    assert_non_null(find_named(list, "cat1"));
    assert_non_null(find_named(list, "cat3"));
    assert_false(json_is_true(json_object_get(find_named(list, "cat1"),
                                              "browse_only")));

    list = json_object_get(api_ok(fx, UC_GET, "/catalogs?include_browse=true",
                                  NULL), "catalogs");
    assert_int_equal(json_array_size(list), 3);
    e = find_named(list, "cat2");
    assert_non_null(e);
    assert_true(json_is_true(json_object_get(e, "browse_only")));
    assert_jstr(e, "storage_root", NULL);
    assert_jstr(e, "storage_location", NULL);
    assert_int_equal(json_object_size(json_object_get(e, "properties")), 0);
    assert_false(json_is_true(json_object_get(find_named(list, "cat1"),
                                              "browse_only")));

    as(fx, "alice", "team");
    list = json_object_get(api_ok(fx, UC_GET, "/catalogs", NULL), "catalogs");
    assert_int_equal(json_array_size(list), 3);
    assert_non_null(find_named(list, "cat4"));
    as(fx, "bob", NULL);
    list = json_object_get(api_ok(fx, UC_GET, "/catalogs", NULL), "catalogs");
    assert_int_equal(json_array_size(list), 0);
    as(fx, "admin", NULL);
    list = json_object_get(api_ok(fx, UC_GET, "/catalogs", NULL), "catalogs");
    assert_int_equal(json_array_size(list), 4);

    /* Schemas: USE SCHEMA on one, then on the catalog. */
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch1\",\"catalog_name\":"
           "\"cat1\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch2\",\"catalog_name\":"
           "\"cat1\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch3\",\"catalog_name\":"
           "\"cat1\",\"owner\":\"alice\"}");
    grant(fx, "schema", "cat1.sch1", "alice", "USE SCHEMA");
    as(fx, "alice", NULL);
    list = json_object_get(api_ok(fx, UC_GET, "/schemas?catalog_name=cat1",
                                  NULL), "schemas");
    assert_int_equal(json_array_size(list), 2);
    assert_non_null(find_named(list, "sch1"));
    assert_non_null(find_named(list, "sch3"));
    grant(fx, "catalog", "cat1", "alice", "USE SCHEMA");
    list = json_object_get(api_ok(fx, UC_GET, "/schemas?catalog_name=cat1",
                                  NULL), "schemas");
    assert_int_equal(json_array_size(list), 3);
    /* Without USE CATALOG no list at all. */
    as(fx, "bob", NULL);
    api_err(fx, UC_GET, "/schemas?catalog_name=cat1", NULL, 404,
            "CATALOG_NOT_FOUND");
    grant(fx, "catalog", "cat1", "bob", "BROWSE");
    api_err(fx, UC_GET, "/schemas?catalog_name=cat1", NULL, 403,
            "PERMISSION_DENIED");
    /* BROWSE lists every schema's metadata on request, and only that. */
    list = json_object_get(api_ok(fx, UC_GET, "/schemas?catalog_name=cat1"
                                  "&include_browse=true", NULL), "schemas");
    assert_int_equal(json_array_size(list), 3);
    json_array_foreach(list, i, e)
        assert_true(json_is_true(json_object_get(e, "browse_only")));
    /* With USE CATALOG, schemas without USE SCHEMA come as browse-only. */
    grant(fx, "catalog", "cat1", "bob", "USE CATALOG");
    grant(fx, "schema", "cat1.sch2", "bob", "USE SCHEMA");
    list = json_object_get(api_ok(fx, UC_GET, "/schemas?catalog_name=cat1",
                                  NULL), "schemas");
    assert_int_equal(json_array_size(list), 1);
    list = json_object_get(api_ok(fx, UC_GET, "/schemas?catalog_name=cat1"
                                  "&include_browse=true", NULL), "schemas");
    assert_int_equal(json_array_size(list), 3);
    assert_false(json_is_true(json_object_get(find_named(list, "sch2"),
                                              "browse_only")));
    assert_true(json_is_true(json_object_get(find_named(list, "sch1"),
                                             "browse_only")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_privilege_parse),
        UC_POOL_TEST(test_privileges_grantable_and_expand),
        UC_POOL_TEST(test_groups),
        UC_POOL_TEST(test_principal_names),
        AUTHZ_TEST(test_route_matrix),
        AUTHZ_TEST(test_hidden_schema_does_not_leak_catalog),
        AUTHZ_TEST(test_hidden_vs_denied),
        AUTHZ_TEST(test_escalation),
        AUTHZ_TEST(test_create_owner_audit),
        AUTHZ_TEST(test_share_audit),
        AUTHZ_TEST(test_tags_and_policies_cascade),
        AUTHZ_TEST(test_grant_audit),
        AUTHZ_TEST(test_permissions_api),
        AUTHZ_TEST(test_effective_permissions),
        AUTHZ_TEST(test_list_filtering),
        AUTHZ_TEST(test_sharing_routes),
        AUTHZ_TEST(test_share_management),
    };
    int rc;

    uc_test_init();
    /* The provider listing calls out (and fails: nothing listens). */
    if (uc_cloud_init(uc_test_global_pool))
        return 1;
    rc = cmocka_run_group_tests_name("authz", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
