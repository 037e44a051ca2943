/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog API end to end without httpd: a call is built the way the
 * glue builds it (query table, parsed body, principal, store, clock), routed
 * through uc_catalog_api and run against a temporary SQLite file. The
 * principal is a metastore admin here; authorization has test_authz.c. */
#include "uc_api_fixture.h"

/* --- catalogs ---------------------------------------------------------- */

static void test_catalog_create_get(void **state)
{
    afx_t *fx = *state;
    json_t *c, *g, *props;
    const char *id;

    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"Main\",\"comment\":"
               "\"first\",\"properties\":{\"k\":\"v\"}}");
    assert_jstr(c, "name", "main");
    assert_jstr(c, "comment", "first");
    assert_jstr(c, "owner", "alice");
    assert_jstr(c, "created_by", "alice");
    assert_jstr(c, "updated_by", "alice");
    assert_jstr(c, "catalog_type", "MANAGED_CATALOG");
    assert_jstr(c, "storage_root", NULL);
    assert_jstr(c, "storage_location", NULL);
    assert_int_equal(jint(c, "created_at"), now_ms(fx));
    assert_int_equal(jint(c, "updated_at"), now_ms(fx));
    props = json_object_get(c, "properties");
    assert_true(json_is_object(props));
    assert_int_equal(json_object_size(props), 1);
    assert_string_equal(json_string_value(json_object_get(props, "k")), "v");
    id = jstr(c, "id");
    assert_true(uc_test_is_uuid4(id));

    g = api_ok(fx, UC_GET, "/catalogs/main", NULL);
    assert_jstr(g, "id", id);
    assert_jstr(g, "name", "main");
    assert_jstr(g, "comment", "first");
    assert_int_equal(jint(g, "created_at"), now_ms(fx));
    assert_true(json_equal(g, c));
    /* Names are case-insensitive. */
    g = api_ok(fx, UC_GET, "/catalogs/MAIN", NULL);
    assert_jstr(g, "id", id);
    g = api_ok(fx, UC_GET, "/catalogs/main?include_browse=true", NULL);
    assert_jstr(g, "id", id);

    /* A minimal body. */
    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"bare\"}");
    assert_jstr(c, "comment", NULL);
    assert_int_equal(json_object_size(json_object_get(c, "properties")), 0);
}

static void test_catalog_storage_root(void **state)
{
    afx_t *fx = *state;
    json_t *c;

    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"ext\",\"storage_root\":"
               "\"s3://bucket//path/\"}");
    assert_jstr(c, "storage_root", "s3://bucket/path");
    assert_jstr(c, "storage_location",
                apr_pstrcat(fx->pool, "s3://bucket/path/__unitystorage/"
                            "catalogs/", jstr(c, "id"), NULL));
    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"local\",\"storage_root\":"
               "\"/tmp/x/\"}");
    assert_jstr(c, "storage_root", "file:///tmp/x");
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"bad\",\"storage_root\":"
            "\"s3a://bucket/x\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"bad\",\"storage_root\":"
            "\"s3://b/__unitystorage/x\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/catalogs/bad", NULL, 404, "CATALOG_NOT_FOUND");
}

static void test_catalog_sharing_and_owner(void **state)
{
    afx_t *fx = *state;
    json_t *c;

    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"shared\","
               "\"provider_name\":\"My-Provider\",\"share_name\":\"Share1\"}");
    assert_jstr(c, "catalog_type", "DELTASHARING_CATALOG");
    assert_jstr(c, "provider_name", "my-provider");
    assert_jstr(c, "share_name", "share1");
    c = api_ok(fx, UC_GET, "/catalogs/shared", NULL);
    assert_jstr(c, "catalog_type", "DELTASHARING_CATALOG");
    assert_jstr(c, "provider_name", "my-provider");
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"half\","
            "\"provider_name\":\"prov\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"half\","
            "\"share_name\":\"share\"}", 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"half\","
            "\"provider_name\":\"p.q\",\"share_name\":\"share\"}", 400,
            "INVALID_PARAMETER_VALUE");

    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"owned\","
               "\"owner\":\"bob\"}");
    assert_jstr(c, "owner", "bob");
    assert_jstr(c, "created_by", "alice");
    assert_jstr(c, "catalog_type", "MANAGED_CATALOG");
    assert_jstr(c, "provider_name", NULL);
    assert_jstr(c, "share_name", NULL);
}

static void test_catalog_create_invalid(void **state)
{
    afx_t *fx = *state;
    static const char *const bad[] = {
        "{}", "{\"name\":null}", "{\"name\":1}", "{\"name\":\"1abc\"}",
        "{\"name\":\"ab\"}", "{\"name\":\"a-b-c\"}",
        "{\"name\":\"okay\",\"comment\":5}",
        "{\"name\":\"okay\",\"properties\":{\"a\":1}}",
        "{\"name\":\"okay\",\"properties\":[\"a\"]}",
        "{\"name\":\"okay\",\"owner\":\"\"}",
        "{\"name\":\"okay\",\"owner\":false}",
        NULL
    };
    json_t *list;
    int i;

    for (i = 0; bad[i]; i++)
        api_err(fx, UC_POST, "/catalogs", bad[i], 400, "INVALID_PARAMETER_VALUE");
    list = api_ok(fx, UC_GET, "/catalogs", NULL);
    assert_int_equal(json_array_size(json_object_get(list, "catalogs")), 0);
}

static void test_catalog_already_exists(void **state)
{
    afx_t *fx = *state;
    json_t *c, *list;
    uc_error_t *err;

    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\",\"comment\":"
               "\"original\"}");
    err = api_err(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}", 400,
                  "CATALOG_ALREADY_EXISTS");
    assert_int_equal(uc_error_rpc_code(err), 6);
    api_err(fx, UC_POST, "/catalogs", "{\"name\":\"MAIN\",\"comment\":\"x\"}",
            400, "CATALOG_ALREADY_EXISTS");
    list = api_ok(fx, UC_GET, "/catalogs", NULL);
    assert_int_equal(json_array_size(json_object_get(list, "catalogs")), 1);
    assert_jstr(api_ok(fx, UC_GET, "/catalogs/main", NULL), "comment",
                "original");
    assert_jstr(api_ok(fx, UC_GET, "/catalogs/main", NULL), "id",
                jstr(c, "id"));
}

static void test_catalog_update(void **state)
{
    afx_t *fx = *state;
    json_t *c, *u, *g;
    const char *id;
    json_int_t created;

    c = api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\",\"comment\":"
               "\"c1\",\"properties\":{\"a\":\"1\"}}");
    id = jstr(c, "id");
    created = jint(c, "created_at");

    fx->now += apr_time_from_sec(5);
    fx->principal = "bob";
    /* "name" in an update body does not rename. */
    u = api_ok(fx, UC_PATCH, "/catalogs/main", "{\"name\":\"other\","
               "\"comment\":\"c2\"}");
    assert_jstr(u, "name", "main");
    assert_jstr(u, "comment", "c2");
    assert_jstr(u, "id", id);
    assert_int_equal(jint(u, "created_at"), created);
    assert_int_equal(jint(u, "updated_at"), now_ms(fx));
    assert_jstr(u, "updated_by", "bob");
    assert_jstr(u, "created_by", "alice");
    assert_jstr(u, "owner", "alice");
    api_err(fx, UC_GET, "/catalogs/other", NULL, 404, "CATALOG_NOT_FOUND");
    g = api_ok(fx, UC_GET, "/catalogs/main", NULL);
    assert_true(json_equal(g, u));

    /* Properties are replaced as a whole; the owner can change. */
    u = api_ok(fx, UC_PATCH, "/catalogs/main", "{\"properties\":{\"b\":\"2\"},"
               "\"owner\":\"carol\"}");
    assert_int_equal(json_object_size(json_object_get(u, "properties")), 1);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(u, "properties"), "b")), "2");
    assert_jstr(u, "owner", "carol");
    assert_jstr(u, "comment", "c2");

    /* Rename with new_name (case-folded). */
    fx->now += apr_time_from_sec(5);
    u = api_ok(fx, UC_PATCH, "/catalogs/MAIN", "{\"new_name\":\"Renamed\"}");
    assert_jstr(u, "name", "renamed");
    assert_jstr(u, "id", id);
    assert_jstr(u, "comment", "c2");
    assert_int_equal(jint(u, "updated_at"), now_ms(fx));
    api_err(fx, UC_GET, "/catalogs/main", NULL, 404, "CATALOG_NOT_FOUND");
    g = api_ok(fx, UC_GET, "/catalogs/renamed", NULL);
    assert_jstr(g, "id", id);
    assert_jstr(g, "owner", "carol");

    /* Renaming onto a sibling fails and changes nothing (one transaction). */
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"sibling\"}");
    api_err(fx, UC_PATCH, "/catalogs/renamed", "{\"new_name\":\"sibling\","
            "\"comment\":\"lost\"}", 400, "CATALOG_ALREADY_EXISTS");
    assert_jstr(api_ok(fx, UC_GET, "/catalogs/renamed", NULL), "comment",
                "c2");
    assert_jstr(api_ok(fx, UC_GET, "/catalogs/sibling", NULL), "comment",
                NULL);

    /* Invalid updates. */
    api_err(fx, UC_PATCH, "/catalogs/renamed", "{\"new_name\":\"1x\"}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/catalogs/renamed", "{\"comment\":[]}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_PATCH, "/catalogs/nothere", "{\"comment\":\"x\"}", 404,
            "CATALOG_NOT_FOUND");
    /* An empty update answers the catalog unchanged. */
    g = api_ok(fx, UC_PATCH, "/catalogs/renamed", "{}");
    assert_jstr(g, "name", "renamed");
    assert_jstr(g, "comment", "c2");
}

static void test_catalog_delete(void **state)
{
    afx_t *fx = *state;
    json_t *d, *list;

    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"keep\"}");
    d = api_ok(fx, UC_DELETE, "/catalogs/main", NULL);
    assert_int_equal(json_object_size(d), 0);
    api_err(fx, UC_GET, "/catalogs/main", NULL, 404, "CATALOG_NOT_FOUND");
    api_err(fx, UC_DELETE, "/catalogs/main", NULL, 404, "CATALOG_NOT_FOUND");
    list = api_ok(fx, UC_GET, "/catalogs", NULL);
    assert_int_equal(json_array_size(json_object_get(list, "catalogs")), 1);
    /* The name is free again. */
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
}

static void test_catalog_not_empty_and_force(void **state)
{
    afx_t *fx = *state;
    uc_error_t *err;
    json_t *list;

    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sc1\",\"catalog_name\":"
           "\"main\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sc2\",\"catalog_name\":"
           "\"main\"}");

    err = api_err(fx, UC_DELETE, "/catalogs/main", NULL, 400,
                  "CATALOG_NOT_EMPTY");
    assert_int_equal(uc_error_rpc_code(err), 9);
    api_err(fx, UC_DELETE, "/catalogs/main?force=false", NULL, 400,
            "CATALOG_NOT_EMPTY");
    api_err(fx, UC_DELETE, "/catalogs/main?force=maybe", NULL, 400,
            "INVALID_PARAMETER_VALUE");
    api_ok(fx, UC_GET, "/catalogs/main", NULL);
    api_ok(fx, UC_GET, "/schemas/main.sc1", NULL);

    api_ok(fx, UC_DELETE, "/catalogs/main?force=true", NULL);
    api_err(fx, UC_GET, "/catalogs/main", NULL, 404, "CATALOG_NOT_FOUND");
    api_err(fx, UC_GET, "/schemas/main.sc1", NULL, 404, "CATALOG_NOT_FOUND");
    assert_int_equal(uc_test_sql_int(fx->db, fx->conn, fx->pool,
                                     "SELECT COUNT(*) FROM securables WHERE "
                                     "kind = 'schema'"), 0);
    /* A catalog of the same name starts empty. */
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    list = api_ok(fx, UC_GET, "/schemas?catalog_name=main", NULL);
    assert_int_equal(json_array_size(json_object_get(list, "schemas")), 0);
    /* An empty catalog needs no force. */
    api_ok(fx, UC_DELETE, "/catalogs/main", NULL);
}

/* --- schemas ----------------------------------------------------------- */

static void test_schema_crud(void **state)
{
    afx_t *fx = *state;
    json_t *s, *g, *list, *u;
    const char *id;

    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    s = api_ok(fx, UC_POST, "/schemas", "{\"name\":\"Sch\",\"catalog_name\":"
               "\"MAIN\",\"comment\":\"x\",\"properties\":{\"p\":\"q\"}}");
    assert_jstr(s, "name", "sch");
    assert_jstr(s, "catalog_name", "main");
    assert_jstr(s, "full_name", "main.sch");
    assert_jstr(s, "comment", "x");
    assert_jstr(s, "owner", "alice");
    assert_jstr(s, "created_by", "alice");
    assert_int_equal(jint(s, "created_at"), now_ms(fx));
    id = jstr(s, "schema_id");
    assert_true(uc_test_is_uuid4(id));

    g = api_ok(fx, UC_GET, "/schemas/main.sch", NULL);
    assert_true(json_equal(g, s));
    g = api_ok(fx, UC_GET, "/schemas/MAIN.SCH", NULL);
    assert_jstr(g, "schema_id", id);

    list = api_ok(fx, UC_GET, "/schemas?catalog_name=main", NULL);
    assert_int_equal(json_array_size(json_object_get(list, "schemas")), 1);
    assert_true(json_equal(json_array_get(json_object_get(list, "schemas"), 0),
                           s));
    assert_true(json_is_null(json_object_get(list, "next_page_token")));

    /* "name" does not rename, new_name does. */
    fx->now += apr_time_from_sec(1);
    u = api_ok(fx, UC_PATCH, "/schemas/main.sch", "{\"name\":\"zzz\","
               "\"comment\":\"y\"}");
    assert_jstr(u, "name", "sch");
    assert_jstr(u, "comment", "y");
    assert_int_equal(jint(u, "updated_at"), now_ms(fx));
    api_err(fx, UC_GET, "/schemas/main.zzz", NULL, 404, "SCHEMA_NOT_FOUND");
    u = api_ok(fx, UC_PATCH, "/schemas/main.sch", "{\"new_name\":\"sch2\"}");
    assert_jstr(u, "name", "sch2");
    assert_jstr(u, "full_name", "main.sch2");
    assert_jstr(u, "schema_id", id);
    assert_jstr(u, "comment", "y");
    api_err(fx, UC_GET, "/schemas/main.sch", NULL, 404, "SCHEMA_NOT_FOUND");

    /* Schemas follow their catalog's rename. */
    api_ok(fx, UC_PATCH, "/catalogs/main", "{\"new_name\":\"main2\"}");
    g = api_ok(fx, UC_GET, "/schemas/main2.sch2", NULL);
    assert_jstr(g, "full_name", "main2.sch2");
    assert_jstr(g, "catalog_name", "main2");
    assert_jstr(g, "schema_id", id);
    api_err(fx, UC_GET, "/schemas/main.sch2", NULL, 404, "CATALOG_NOT_FOUND");

    assert_int_equal(json_object_size(api_ok(fx, UC_DELETE,
                                             "/schemas/main2.sch2", NULL)), 0);
    api_err(fx, UC_GET, "/schemas/main2.sch2", NULL, 404, "SCHEMA_NOT_FOUND");
    api_err(fx, UC_DELETE, "/schemas/main2.sch2", NULL, 404,
            "SCHEMA_NOT_FOUND");
    api_ok(fx, UC_GET, "/catalogs/main2", NULL);
}

static void test_schema_errors(void **state)
{
    afx_t *fx = *state;
    uc_error_t *err;

    api_err(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
            "\"nocat\"}", 404, "CATALOG_NOT_FOUND");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"other\"}");
    api_err(fx, UC_POST, "/schemas", "{\"name\":\"sch\"}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/schemas", "{\"catalog_name\":\"main\"}", 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_POST, "/schemas", "{\"name\":\"s.x\",\"catalog_name\":"
            "\"main\"}", 400, "INVALID_PARAMETER_VALUE");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
           "\"main\"}");
    err = api_err(fx, UC_POST, "/schemas", "{\"name\":\"SCH\","
                  "\"catalog_name\":\"main\"}", 400, "SCHEMA_ALREADY_EXISTS");
    assert_int_equal(uc_error_rpc_code(err), 6);
    /* The same name in another catalog is fine. */
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
           "\"other\"}");

    api_err(fx, UC_GET, "/schemas/nocat.sch", NULL, 404, "CATALOG_NOT_FOUND");
    err = api_err(fx, UC_GET, "/schemas/main.nosch", NULL, 404,
                  "SCHEMA_NOT_FOUND");
    assert_int_equal(uc_error_rpc_code(err), 5);
    api_err(fx, UC_GET, "/schemas/main", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas/main.sch.x", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas?catalog_name=", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas?catalog_name=nocat", NULL, 404,
            "CATALOG_NOT_FOUND");

    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sib\",\"catalog_name\":"
           "\"main\"}");
    api_err(fx, UC_PATCH, "/schemas/main.sch", "{\"new_name\":\"sib\","
            "\"comment\":\"lost\"}", 400, "SCHEMA_ALREADY_EXISTS");
    assert_jstr(api_ok(fx, UC_GET, "/schemas/main.sch", NULL), "comment",
                NULL);
    api_err(fx, UC_PATCH, "/schemas/main.nosch", "{\"comment\":\"x\"}", 404,
            "SCHEMA_NOT_FOUND");
}

static void test_schema_not_empty_and_force(void **state)
{
    afx_t *fx = *state;
    json_t *s;
    uc_securable_t *tbl;
    uc_store_t *store;
    apr_pool_t *p;
    uc_error_t *err;

    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    s = api_ok(fx, UC_POST, "/schemas", "{\"name\":\"sch\",\"catalog_name\":"
               "\"main\"}");
    /* No table API yet: put a child row under the schema directly. */
    apr_pool_create(&p, fx->pool);
    store = attach(fx, p);
    tbl = apr_pcalloc(p, sizeof(*tbl));
    tbl->id = "00000000-0000-4000-8000-000000000001";
    tbl->kind = "table";
    tbl->parent_id = jstr(s, "schema_id");
    tbl->name = "tbl";
    tbl->created_at = tbl->updated_at = "1";
    assert_ok(uc_securable_insert(store, tbl));

    err = api_err(fx, UC_DELETE, "/schemas/main.sch", NULL, 400,
                  "SCHEMA_NOT_EMPTY");
    assert_int_equal(uc_error_rpc_code(err), 9);
    api_ok(fx, UC_GET, "/schemas/main.sch", NULL);
    api_ok(fx, UC_DELETE, "/schemas/main.sch?force=true", NULL);
    api_err(fx, UC_GET, "/schemas/main.sch", NULL, 404, "SCHEMA_NOT_FOUND");
    assert_int_equal(uc_test_sql_int(fx->db, fx->conn, fx->pool,
                                     "SELECT COUNT(*) FROM securables WHERE "
                                     "kind = 'table'"), 0);
}

/* --- lists ------------------------------------------------------------- */

static void test_schema_pagination(void **state)
{
    afx_t *fx = *state;
    const int total = 250;
    int seen[250], i, pages = 0, count = 0;
    const char *token = NULL;
    json_t *list;

    memset(seen, 0, sizeof(seen));
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"big\"}");
    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"small\"}");
    api_ok(fx, UC_POST, "/schemas", "{\"name\":\"s000x\",\"catalog_name\":"
           "\"small\"}");
    for (i = 0; i < total; i++)
        api_ok(fx, UC_POST, "/schemas",
               apr_psprintf(fx->pool, "{\"name\":\"s%03d\",\"catalog_name\":"
                            "\"big\"}", (i * 37) % total));

    do {
        json_t *items, *next;
        const char *target = apr_pstrcat(fx->pool,
                                         "/schemas?catalog_name=big&"
                                         "max_results=100",
                                         token ? "&page_token=" : "",
                                         token ? token : "", NULL);
        list = api_ok(fx, UC_GET, target, NULL);
        items = json_object_get(list, "schemas");
        next = json_object_get(list, "next_page_token");
        assert_true(json_is_array(items));
        assert_non_null(next);
        pages++;
        assert_int_equal(json_array_size(items), pages < 3 ? 100 : 50);
        for (i = 0; i < (int)json_array_size(items); i++) {
            json_t *it = json_array_get(items, (size_t)i);
            const char *name = jstr(it, "name");
            int k = atoi(name + 1);
            assert_jstr(it, "catalog_name", "big");
            assert_true(k >= 0 && k < total);
            if (seen[k])
                fail_msg("%s listed twice", name);
            seen[k] = 1;
            assert_int_equal(k, count);   /* name order */
            count++;
        }
        if (pages < 3) {
            const char *c;
            assert_true(json_is_string(next));
            token = json_string_value(next);
            for (c = token; *c; c++)
                assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
                                       "klmnopqrstuvwxyz0123456789-_", *c));
        }
        else {
            assert_true(json_is_null(next));
            token = NULL;
        }
    } while (token && pages < 10);
    assert_int_equal(pages, 3);
    assert_int_equal(count, total);

    /* All at once: no token. */
    list = api_ok(fx, UC_GET, "/schemas?catalog_name=big&max_results=250",
                  NULL);
    assert_int_equal(json_array_size(json_object_get(list, "schemas")), 250);
    assert_true(json_is_null(json_object_get(list, "next_page_token")));
    /* Default page size. */
    list = api_ok(fx, UC_GET, "/schemas?catalog_name=big", NULL);
    assert_int_equal(json_array_size(json_object_get(list, "schemas")), 100);
    assert_true(json_is_string(json_object_get(list, "next_page_token")));
    /* Bad paging parameters. */
    api_err(fx, UC_GET, "/schemas?catalog_name=big&max_results=-1", NULL, 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas?catalog_name=big&max_results=x", NULL, 400,
            "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas?catalog_name=big&page_token=%21%21", NULL,
            400, "INVALID_PARAMETER_VALUE");
}

static void test_catalog_pagination(void **state)
{
    afx_t *fx = *state;
    static const char *const names[] = { "echo", "alpha", "delta", "charlie",
                                         "bravo", NULL };
    static const char *const sorted[] = { "alpha", "bravo", "charlie",
                                          "delta", "echo" };
    const char *token = NULL;
    int i, n = 0, pages = 0;

    for (i = 0; names[i]; i++)
        api_ok(fx, UC_POST, "/catalogs",
               apr_psprintf(fx->pool, "{\"name\":\"%s\"}", names[i]));
    do {
        json_t *list = api_ok(fx, UC_GET,
                              apr_pstrcat(fx->pool, "/catalogs?max_results=2",
                                          token ? "&page_token=" : "",
                                          token ? token : "", NULL), NULL);
        json_t *items = json_object_get(list, "catalogs");
        json_t *next = json_object_get(list, "next_page_token");
        pages++;
        for (i = 0; i < (int)json_array_size(items); i++)
            assert_jstr(json_array_get(items, (size_t)i), "name",
                        sorted[n++]);
        token = json_is_string(next) ? json_string_value(next) : NULL;
        assert_true(token || json_is_null(next));
    } while (token && pages < 10);
    assert_int_equal(pages, 3);
    assert_int_equal(n, 5);
}

static void test_metastore_summary(void **state)
{
    afx_t *fx = *state;
    json_t *m = api_ok(fx, UC_GET, "/metastore_summary", NULL);
    apr_pool_t *p;
    uc_store_t *store;

    apr_pool_create(&p, fx->pool);
    store = attach(fx, p);
    assert_true(uc_test_is_uuid4(jstr(m, "metastore_id")));
    assert_jstr(m, "metastore_id", uc_store_metastore_id(store));
    /* Stable across calls. */
    assert_true(json_equal(api_ok(fx, UC_GET, "/metastore_summary", NULL), m));
}

static void test_routing(void **state)
{
    afx_t *fx = *state;
    const uc_router_t *catalog = uc_router_make(fx->pool, uc_catalog_api);
    json_t *out;
    uc_route_match_t m;

    assert_null(api(fx, UC_GET, "/catalogs/", NULL, &out));
    api_err(fx, UC_GET, "/nothing", NULL, 404, "ENDPOINT_NOT_FOUND");
    api_err(fx, UC_PUT, "/catalogs", NULL, 405, "METHOD_NOT_ALLOWED");
    uc_router_match(fx->pool, catalog, UC_POST, "/catalogs", &m);
    assert_true(m.route->flags & UC_ROUTE_BODY);
    uc_router_match(fx->pool, catalog, UC_PATCH, "/catalogs/x", &m);
    assert_true(m.route->flags & UC_ROUTE_BODY);
    assert_true(m.route->flags & UC_ROUTE_TXN);
    uc_router_match(fx->pool, catalog, UC_DELETE, "/schemas/x.y", &m);
    assert_true(m.route->flags & UC_ROUTE_TXN);
}

/* Path segments and query values reach the core as raw bytes (httpd has
 * decoded %XX): an error about a non-UTF-8 name must still have a body. */
static void test_error_for_non_utf8_input(void **state)
{
    afx_t *fx = *state;

    api_err(fx, UC_GET, "/catalogs/ab\xff", NULL, 400, "INVALID_PARAMETER_VALUE");
    api_err(fx, UC_GET, "/schemas?catalog_name=%FFab", NULL, 400,
            "INVALID_PARAMETER_VALUE");
}

/* "?include_browse" without "=value" is an ordinary request. */
static void test_query_flag_without_value(void **state)
{
    afx_t *fx = *state;

    api_ok(fx, UC_POST, "/catalogs", "{\"name\":\"main\"}");
    assert_jstr(api_ok(fx, UC_GET, "/catalogs/main?include_browse", NULL),
                "name", "main");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        API_TEST(test_catalog_create_get),
        API_TEST(test_catalog_storage_root),
        API_TEST(test_catalog_sharing_and_owner),
        API_TEST(test_catalog_create_invalid),
        API_TEST(test_catalog_already_exists),
        API_TEST(test_catalog_update),
        API_TEST(test_catalog_delete),
        API_TEST(test_catalog_not_empty_and_force),
        API_TEST(test_schema_crud),
        API_TEST(test_schema_errors),
        API_TEST(test_schema_not_empty_and_force),
        API_TEST(test_schema_pagination),
        API_TEST(test_catalog_pagination),
        API_TEST(test_metastore_summary),
        API_TEST(test_routing),
        API_TEST(test_error_for_non_utf8_input),
        API_TEST(test_query_flag_without_value),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("api", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
