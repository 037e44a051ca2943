/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_console.h"

#include <string.h>
#include <jansson.h>

#include "../core/uc_json.h"
#include "../call/uc_privileges.h"
#include "../vend/uc_clouds.h"

/* The console's own script and styles only, and calls to this origin
 * only: a value of the catalog that slips into the page as markup can
 * neither run nor send anything anywhere. No frame may hold the console
 * (clickjacking of the grant editor). */
const uc_console_header_t uc_console_headers[] = {
    { "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; "
      "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
      "manifest-src 'self'; base-uri 'none'; form-action 'none'; "
      "frame-ancestors 'none'" },
    { "X-Frame-Options", "DENY" },
    { "X-Content-Type-Options", "nosniff" },
    { "Referrer-Policy", "no-referrer" },
    { "Cross-Origin-Opener-Policy", "same-origin" },
    { "Cross-Origin-Resource-Policy", "same-origin" },
    { "Permissions-Policy", "camera=(), microphone=(), geolocation=()" },
    { NULL, NULL }
};

static const struct {
    const char *extension;
    const char *type;
} types[] = {
    { ".html", "text/html; charset=utf-8" },
    { ".js", "text/javascript; charset=utf-8" },
    { ".css", "text/css; charset=utf-8" },
    { ".svg", "image/svg+xml" },
    { ".json", "application/json" },
    { ".txt", "text/plain; charset=utf-8" },
};

const char *uc_console_type(const char *name)
{
    size_t i, n = strlen(name);

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        size_t e = strlen(types[i].extension);

        if (n > e && strcmp(name + n - e, types[i].extension) == 0)
            return types[i].type;
    }
    return "application/octet-stream";
}

const uc_console_file_t *uc_console_find(const char *name)
{
    const uc_console_file_t *f;

    if (*name == '\0')
        name = "index.html";
    for (f = uc_console_files; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

/* The privileges of each type as the permissions API spells them; ALL
 * PRIVILEGES is one of them where the type takes it. */
static json_t *grantable_privileges(void)
{
    json_t *all = json_object();
    int t, p;

    for (t = 0; t < UC_TYPE_COUNT; t++) {
        uc_privset_t set = uc_privileges_grantable((uc_securable_type_t)t);
        json_t *names = json_array();

        for (p = 0; p < UC_PRIV_COUNT; p++) {
            const char *name = uc_privilege_name((uc_privilege_t)p);

            if (set & UC_PRIV(p))
                json_array_append_new(names, json_string(name));
        }
        json_object_set_new(
            all, uc_securable_type_name((uc_securable_type_t)t), names);
    }
    return all;
}

/* The fields of one type of credential, as its create form asks them:
 * the server's own (an external id it makes) are not asked. */
static json_t *credential_fields(const uc_credential_type_t *type)
{
    json_t *fields = json_array();
    int i;

    for (i = 0; i < UC_CREDENTIAL_FIELDS && type->fields[i].name; i++) {
        unsigned flags = type->fields[i].flags;

        if (flags & UC_CREDENTIAL_SERVER)
            continue;
        json_array_append_new(fields, json_pack(
            "{s:s, s:b, s:b}", "name", type->fields[i].name,
            "required", (flags & UC_CREDENTIAL_REQUIRED) != 0,
            "secret", (flags & UC_CREDENTIAL_SECRET) != 0));
    }
    return fields;
}

/* Every cloud's types of credential, by the member that names them in a
 * request body, with their cloud. */
static json_t *credential_types(void)
{
    json_t *all = json_object();
    const uc_cloud_t *const *cloud;
    const uc_credential_type_t *type;

    for (cloud = uc_clouds; *cloud; cloud++)
        for (type = (*cloud)->types; type && type->name; type++)
            json_object_set_new(all, type->name, json_pack(
                "{s:s, s:o}", "cloud", (*cloud)->name,
                "fields", credential_fields(type)));
    return all;
}

const char *uc_console_config(apr_pool_t *pool,
                              const uc_console_paths_t *paths,
                              const char *user)
{
    json_t *config = uc_json_own(pool, json_object());

    json_object_set_new(config, "api", json_string(paths->api));
    json_object_set_new(config, "metrics",
                        uc_json_string_or_null(paths->metrics));
    json_object_set_new(config, "user", uc_json_string_or_null(user));
    json_object_set_new(config, "privileges", grantable_privileges());
    json_object_set_new(config, "credential_types", credential_types());
    return uc_json_dump(pool, config);
}
