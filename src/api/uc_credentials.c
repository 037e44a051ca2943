/* SPDX-License-Identifier: Apache-2.0 */
/* Credentials (/credentials): one row per credential under the metastore,
 * its type's fields read and stored by the credential model
 * (vend/uc_credentials.h). */
#include "uc_api.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../cloud/uc_cloud_settings.h"
#include "../core/uc_json.h"
#include "../store/uc_locations.h"
#include "../vend/uc_credentials.h"

#define P UC_PRIV

static const char *const purposes[] = { "STORAGE", "SERVICE", NULL };

/* read_only applies to storage only. */
static uc_error_t *read_flags(uc_call_t *call, json_t *details)
{
    const char *purpose = json_string_value(json_object_get(details,
                                                            "purpose"));
    int read_only = json_is_true(json_object_get(details, "read_only"));
    uc_error_t *err = uc_json_bool_field(call->pool, call->body, "read_only",
                                         &read_only);

    if (err)
        return err;
    if (read_only && strcmp(purpose, "STORAGE") != 0)
        return uc_error_invalid(call->pool, "read_only applies to "
                                "credentials of purpose STORAGE only.");
    json_object_set_new(details, "read_only", json_boolean(read_only));
    return NULL;
}

/* skip_validation is taken and has nothing to skip: a credential is tried
 * when it is first used (temporary credentials), not when it is stored. */
static uc_error_t *read_skip_validation(uc_call_t *call)
{
    int skip = 0;

    return uc_json_bool_field(call->pool, call->body, "skip_validation",
                              &skip);
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    json_t *details = uc_json_own(call->pool, json_object());
    const char *purpose = "STORAGE";
    const uc_credential_type_t *t;
    json_t *given;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, call->body, "purpose",
                                  purposes, 0, &purpose)) ||
        (err = read_skip_validation(call)) ||
        (err = uc_credential_body_type(call, &t, &given)))
        return err;
    if (!t)
        return uc_error_invalid(call->pool, "No credentials provided: give "
                                "one of %s.",
                                uc_credential_type_list(call->pool));
    json_object_set_new(details, "purpose", json_string(purpose));
    if ((err = read_flags(call, details)) ||
        (err = uc_credential_read(call, sec, t, given, NULL, details)))
        return err;
    uc_api_set_details(call, sec, details);
    return NULL;
}

/* A credential in use by external locations changes identity only with
 * force: their data would be read as someone else. */
static uc_error_t *check_in_use(uc_call_t *call, const uc_securable_t *sec,
                                const char *what)
{
    const char *location;
    int force = 0;
    uc_error_t *err;

    if (call->method == UC_DELETE)
        err = uc_api_query_flag(call, "force", &force);
    else
        err = uc_json_bool_field(call->pool, call->body, "force", &force);
    if (err || force ||
        (err = uc_location_of_credential(call->store, call->pool, sec->id,
                                         &location)) || !location)
        return err;
    return uc_error_invalid(call->pool, "Credential '%s' is used by external "
                            "location '%s'; %s it with force=true.",
                            sec->name, location, what);
}

static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    json_t *details = json_deep_copy(uc_api_details(call, sec));
    int was_read_only = json_is_true(json_object_get(details, "read_only"));
    const uc_credential_type_t *t;
    uc_credential_t *old;
    json_t *given;
    uc_error_t *err;

    uc_json_own(call->pool, details);
    if ((err = uc_credential_of(call, sec, &old)) ||
        (err = read_skip_validation(call)) ||
        (err = uc_credential_body_type(call, &t, &given)) ||
        (err = read_flags(call, details)) ||
        (t && (err = uc_credential_read(call, sec, t, given, old, details))))
        return err;
    if (t || was_read_only !=
             json_is_true(json_object_get(details, "read_only"))) {
        if ((err = check_in_use(call, sec, "change")))
            return err;
        *changed = 1;
    }
    uc_api_set_details(call, sec, details);
    return NULL;
}

static uc_error_t *check_delete(uc_call_t *call)
{
    uc_error_t *err = check_in_use(call, UC_TARGET_OF(call), "delete");

    if (err)
        return err;
    return uc_location_forget_credential(call->store, UC_TARGET_OF(call)->id);
}

/* The type object as answered: its configuration without secrets and,
 * for an AWS role, the server's identity the role must trust. */
static void write_type(uc_call_t *call, uc_jw_t *out,
                       const uc_credential_t *cred)
{
    const char *key;
    json_t *value;

    uc_jw_key(out, cred->type);
    uc_jw_begin_object(out);
    json_object_foreach(cred->config, key, value)
        if (strcmp(key, "access_key_id") != 0) {
            uc_jw_key(out, key);
            uc_jw_json(out, value);
        }
    if (!strcmp(cred->type, "aws_iam_role"))
        uc_jw_field_string(out, "unity_catalog_iam_arn",
                           call->cloud ? call->cloud->aws_iam_arn : NULL);
    uc_jw_end_object(out);
}

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    uc_credential_t *cred = NULL;

    (void)context;
    uc_credential_of(call, sec, &cred);
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "full_name", sec->name);
    uc_jw_field_string(out, "id", sec->id);
    uc_jw_field_string(out, "purpose", cred ? cred->purpose : NULL);
    uc_jw_key(out, "read_only");
    uc_jw_bool(out, cred && cred->read_only);
    uc_jw_key(out, "used_for_managed_storage");
    uc_jw_bool(out, 0);
    uc_jw_field_string(out, "comment", sec->comment);
    if (cred && cred->type && !sec->browse_only)
        write_type(call, out, cred);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

/* ?purpose= shows the credentials of one purpose. */
static int shown(uc_call_t *call, const uc_securable_t *sec)
{
    const char *purpose = apr_table_get(call->query, "purpose");
    uc_credential_t *cred;

    if (!purpose || !*purpose || !strcmp(purpose, "PURPOSE_UNSPECIFIED"))
        return 1;
    return !uc_credential_of(call, sec, &cred) &&
           !strcmp(cred->purpose, purpose);
}

/* What may be granted on a credential: holding any of it shows the
 * credential. */
#define ON_IT (P(UC_PRIV_ALL_PRIVILEGES) | \
               P(UC_PRIV_CREATE_EXTERNAL_LOCATION) | \
               P(UC_PRIV_CREATE_EXTERNAL_TABLE) | P(UC_PRIV_READ_FILES) | \
               P(UC_PRIV_WRITE_FILES) | P(UC_PRIV_MANAGE))

static uc_visibility_t *visible_credentials(uc_call_t *call,
                                            int include_browse)
{
    (void)include_browse;
    return uc_api_visibility(call, 0, 0, ON_IT, ON_IT);
}

static const uc_api_family_t credentials = {
    .type = UC_TYPE_CREDENTIAL, .level = UC_LEVEL_CATALOG,
    .rules = UC_RULES_ON_METASTORE(UC_TYPE_CREDENTIAL,
                                   UC_PRIV_CREATE_STORAGE_CREDENTIAL, ON_IT,
                                   0),
    .read = ON_IT,
    .label = "Credential", .plural = "credentials",
    .exists = UC_E_STORAGE_CREDENTIAL_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .render = render, .prepare_create = prepare_create,
    .prepare_update = prepare_update, .check_delete = check_delete,
    .visibility = visible_credentials, .shown = shown
};

const uc_route_t uc_credential_routes[] = {
    UC_FAMILY_ROUTES(credentials, "/credentials", "/credentials/{name}"),
    { 0, NULL, NULL, 0, NULL }
};
