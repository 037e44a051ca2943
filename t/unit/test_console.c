/* SPDX-License-Identifier: Apache-2.0 */
/* The web console's core (uc_console.h): every embedded file is found by
 * its name with a type and a strong ETag; a name that is not a file (a
 * path trick among them) finds nothing; the headers allow no inline or
 * evaluated script, no other origin and no frame; config.json has the
 * API, the user and, for every securable type, exactly the privileges
 * the permissions API grants on it. */
#include "uc_test.h"

#include <string.h>
#include <jansson.h>

#include "../../src/console/uc_console.h"
#include "../../src/call/uc_privileges.h"
#include "../../src/vend/uc_clouds.h"

static void test_files(void **state)
{
    const uc_console_file_t *f;
    size_t n = 0;

    (void)state;
    for (f = uc_console_files; f->name; f++, n++) {
        size_t i;

        assert_ptr_equal(uc_console_find(f->name), f);
        assert_true(f->len > 0);
        assert_int_equal(strlen(f->etag), 26);
        assert_true(f->etag[0] == '"' && f->etag[25] == '"');
        for (i = 1; i < 25; i++)
            assert_non_null(strchr("0123456789abcdef", f->etag[i]));
        assert_string_not_equal(uc_console_type(f->name),
                                "application/octet-stream");
    }
    assert_true(n >= 8);
    assert_string_equal(uc_console_find("")->name, "index.html");
    assert_non_null(uc_console_find("vendor/preact-htm.js"));
}

static void test_not_files(void **state)
{
    static const char *const names[] = {
        "nope.js", "/app.js", "./app.js", "../app.js", "vendor/../app.js",
        "vendor/", "vendor", "APP.JS", "app.js/", "app.js?x", "index.html%00",
        "config.json",
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_null(uc_console_find(names[i]));
}

static void test_types(void **state)
{
    (void)state;
    assert_string_equal(uc_console_type("a.html"), "text/html; charset=utf-8");
    assert_string_equal(uc_console_type("a.js"),
                        "text/javascript; charset=utf-8");
    assert_string_equal(uc_console_type("a.css"), "text/css; charset=utf-8");
    assert_string_equal(uc_console_type("a.svg"), "image/svg+xml");
    assert_string_equal(uc_console_type("js"), "application/octet-stream");
    assert_string_equal(uc_console_type(".js.map"), "application/octet-stream");
}

static const char *header(const char *name)
{
    const uc_console_header_t *h;

    for (h = uc_console_headers; h->name; h++)
        if (strcmp(h->name, name) == 0)
            return h->value;
    return NULL;
}

static void test_headers(void **state)
{
    const char *csp = header("Content-Security-Policy");

    (void)state;
    assert_non_null(csp);
    assert_null(strstr(csp, "unsafe"));
    assert_null(strstr(csp, "*"));
    assert_null(strstr(csp, "http"));
    assert_contains(csp, "default-src 'none'");
    assert_contains(csp, "script-src 'self';");
    assert_contains(csp, "connect-src 'self';");
    assert_contains(csp, "frame-ancestors 'none'");
    assert_contains(csp, "base-uri 'none'");
    assert_string_equal(header("X-Frame-Options"), "DENY");
    assert_string_equal(header("X-Content-Type-Options"), "nosniff");
}

static void test_config(void **state)
{
    apr_pool_t *pool = *state;
    uc_console_paths_t paths = { "/x/api", "/status" }, plain = { "/api", NULL };
    json_t *config = json_loads(uc_console_config(pool, &paths, "alice"),
                                0, NULL);
    json_t *privileges;
    int t;

    assert_non_null(config);
    assert_string_equal(json_string_value(json_object_get(config, "api")),
                        "/x/api");
    assert_string_equal(json_string_value(json_object_get(config, "user")),
                        "alice");
    assert_string_equal(json_string_value(json_object_get(config, "metrics")),
                        "/status");
    privileges = json_object_get(config, "privileges");
    for (t = 0; t < UC_TYPE_COUNT; t++) {
        const char *type = uc_securable_type_name((uc_securable_type_t)t);
        json_t *names = json_object_get(privileges, type);
        uc_privset_t want = uc_privileges_grantable((uc_securable_type_t)t);
        uc_privset_t got = 0;
        size_t i;

        assert_non_null(names);
        for (i = 0; i < json_array_size(names); i++) {
            int p = uc_privilege_parse(
                json_string_value(json_array_get(names, i)));

            assert_true(p >= 0);
            got |= UC_PRIV(p);
        }
        assert_true(got == want);
    }
    json_decref(config);
    config = json_loads(uc_console_config(pool, &plain, NULL), 0, NULL);
    assert_true(json_is_null(json_object_get(config, "metrics")));
    assert_true(json_is_null(json_object_get(config, "user")));
    json_decref(config);
}

/* config.json's credential types are the clouds' own: each with its
 * cloud, its fields but those the server makes, and their flags. */
static void test_credential_types(void **state)
{
    apr_pool_t *pool = *state;
    uc_console_paths_t paths = { "/api", NULL };
    json_t *config = json_loads(uc_console_config(pool, &paths, NULL), 0,
                                NULL);
    json_t *types = json_object_get(config, "credential_types");
    const uc_cloud_t *const *cloud;
    const uc_credential_type_t *type;
    size_t n = 0;

    for (cloud = uc_clouds; *cloud; cloud++)
        for (type = (*cloud)->types; type && type->name; type++, n++) {
            json_t *t = json_object_get(types, type->name);
            json_t *fields = json_object_get(t, "fields");
            size_t i, asked = 0;

            assert_non_null(t);
            assert_string_equal(json_string_value(json_object_get(t, "cloud")),
                                (*cloud)->name);
            for (i = 0; i < UC_CREDENTIAL_FIELDS && type->fields[i].name; i++) {
                unsigned flags = type->fields[i].flags;
                json_t *f;

                if (flags & UC_CREDENTIAL_SERVER)
                    continue;
                f = json_array_get(fields, asked++);
                assert_string_equal(json_string_value(json_object_get(f, "name")),
                                    type->fields[i].name);
                assert_int_equal(json_is_true(json_object_get(f, "secret")),
                                 (flags & UC_CREDENTIAL_SECRET) != 0);
                assert_int_equal(json_is_true(json_object_get(f, "required")),
                                 (flags & UC_CREDENTIAL_REQUIRED) != 0);
            }
            assert_int_equal(json_array_size(fields), asked);
        }
    assert_true(n >= 5);
    assert_int_equal(json_object_size(types), n);
    json_decref(config);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_not_files),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_headers),
        UC_POOL_TEST(test_config),
        UC_POOL_TEST(test_credential_types),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("console", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
