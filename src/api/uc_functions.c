/* SPDX-License-Identifier: Apache-2.0 */
/* Functions: SQL or external routines under a schema. Create bodies come
 * flat or wrapped in {"function_info": ...}, as the Java and the Rust
 * clients send them. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_columns.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"

#define P UC_PRIV
#define ROUTINE_MAX (1024 * 1024)

static const char *const parameter_styles[] = { "S", NULL };
static const char *const routine_bodies[] = { "SQL", "EXTERNAL", NULL };
static const char *const security_types[] = { "DEFINER", NULL };
static const char *const sql_data_accesses[] = {
    "CONTAINS_SQL", "READS_SQL_DATA", "NO_SQL", NULL
};

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    static const char *const browsed[] = {
        "input_params", "return_params", "routine_definition",
        "routine_dependencies", NULL
    };
    int browse = sec->browse_only;

    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_family_write_details(call, out, sec, browse ? browsed : NULL);
    if (browse) {
        uc_jw_field_string(out, "input_params", NULL);
        uc_jw_field_string(out, "return_params", NULL);
        uc_jw_field_string(out, "routine_definition", NULL);
        uc_jw_field_string(out, "routine_dependencies", NULL);
    }
    uc_jw_field_string(out, "comment", sec->comment);
    uc_jw_field_raw(out, "properties",
                    !browse && sec->properties ? sec->properties : "{}");
    uc_api_write_tail(call, out, sec, "function_id", 0);
}

/* A map of strings, or the same as JSON text (the Java client's form). */
static uc_error_t *read_properties(uc_call_t *call, uc_securable_t *sec)
{
    json_t *v = json_object_get(call->body, "properties");
    uc_error_t *err;

    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v)) {
        v = uc_json_own(call->pool, json_loads(json_string_value(v), 0,
                                               NULL));
        if (!v)
            return uc_error_invalid(call->pool, "Field 'properties' must be "
                                    "an object of strings or its JSON "
                                    "text.");
    }
    if ((err = uc_json_check_string_map(call->pool, "properties", v)))
        return err;
    sec->properties = uc_json_dump(call->pool, v);
    return NULL;
}

static uc_error_t *required_bool(uc_call_t *call, const char *field, int *out)
{
    json_t *v = json_object_get(call->body, field);

    if (!v || json_is_null(v))
        return uc_error_invalid(call->pool, "Missing required field '%s'.",
                                field);
    return uc_json_bool_field(call->pool, call->body, field, out);
}

/* Java clients send return_params and routine_dependencies as objects, the
 * spec as text: either is kept as it came. */
static uc_error_t *object_or_text(uc_call_t *call, const char *field,
                                  uc_error_t *(*read)(apr_pool_t *,
                                                      const char *, json_t *,
                                                      json_t **),
                                  json_t **out)
{
    json_t *v = json_object_get(call->body, field);

    *out = uc_json_own(call->pool, json_null());
    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v)) {
        if (json_string_length(v) > ROUTINE_MAX)
            return uc_error_invalid(call->pool, "Field '%s' is longer than "
                                    "%d bytes.", field, ROUTINE_MAX);
        *out = v;
        return NULL;
    }
    return read(call->pool, field, v, out);
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    const char *data_type = NULL, *full_data_type = NULL, *style = NULL;
    const char *body = NULL, *definition = NULL, *access = NULL;
    const char *security = NULL, *specific = NULL, *language = NULL;
    const char *external = NULL;
    json_t *input = NULL, *returns, *dependencies, *v;
    int deterministic = 0, null_call = 0;
    uc_error_t *err;

    if ((err = read_properties(call, sec)) ||
        (err = uc_json_enum_field(call->pool, call->body, "data_type",
                                  uc_column_type_names, 1, &data_type)) ||
        (err = uc_json_string_field(call->pool, call->body, "full_data_type",
                                    1, &full_data_type)) ||
        (err = uc_validate_text(call->pool, "full_data_type", full_data_type,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_enum_field(call->pool, call->body, "parameter_style",
                                  parameter_styles, 1, &style)) ||
        (err = required_bool(call, "is_deterministic", &deterministic)) ||
        (err = uc_json_enum_field(call->pool, call->body, "sql_data_access",
                                  sql_data_accesses, 1, &access)) ||
        (err = required_bool(call, "is_null_call", &null_call)) ||
        (err = uc_json_enum_field(call->pool, call->body, "security_type",
                                  security_types, 1, &security)) ||
        (err = uc_json_enum_field(call->pool, call->body, "routine_body",
                                  routine_bodies, 1, &body)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "routine_definition", 0, &definition)) ||
        (err = uc_validate_text(call->pool, "routine_definition", definition,
                                ROUTINE_MAX)) ||
        (err = uc_json_string_field(call->pool, call->body, "specific_name",
                                    0, &specific)) ||
        (err = uc_validate_text(call->pool, "specific_name", specific,
                                UC_NAME_MAX)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "routine_body_language", 0, &language)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "external_language", 0, &external)) ||
        (err = object_or_text(call, "return_params", uc_parameters_read,
                              &returns)) ||
        (err = object_or_text(call, "routine_dependencies",
                              uc_dependencies_read, &dependencies)))
        return err;
    v = json_object_get(call->body, "input_params");
    if (v && !json_is_null(v) &&
        (err = uc_parameters_read(call->pool, "input_params", v, &input)))
        return err;
    /* The spec's and Java's names for the language: both are answered. */
    if (!language)
        language = external;
    if ((err = uc_validate_text(call->pool, "routine_body_language", language,
                                UC_NAME_MAX)))
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{sOsssssOsssosOsssbsssbsssssoso}",
        "input_params", input ? input
                              : uc_json_own(call->pool, json_null()),
        "data_type", data_type, "full_data_type", full_data_type,
        "return_params", returns, "routine_body", body,
        "routine_definition", uc_json_string_or_null(definition),
        "routine_dependencies", dependencies, "parameter_style", style,
        "is_deterministic", deterministic, "sql_data_access", access,
        "is_null_call", null_call, "security_type", security,
        "specific_name", specific ? specific : sec->name,
        "routine_body_language", uc_json_string_or_null(language),
        "external_language", uc_json_string_or_null(language))));
    return NULL;
}

/* force is accepted: a function holds nothing that could stop it going. */
static uc_error_t *check_delete(uc_call_t *call)
{
    int force;

    return uc_api_query_flag(call, "force", &force);
}

/* Functions change owner only; a new definition is a new function. */
static const uc_api_family_t functions;
const uc_api_family_t *const uc_function_family = &functions;

static const uc_api_family_t functions = {
    UC_FAMILY_IN_SCHEMA(UC_TYPE_FUNCTION, UC_PRIV_CREATE_FUNCTION,
                        P(UC_PRIV_EXECUTE)),
    .label = "Function", .plural = "functions",
    .exists = UC_E_RESOURCE_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_OWNER,
    .render = render, .prepare_create = prepare_create,
    .check_delete = check_delete
};

const uc_route_t uc_function_routes[] = {
    UC_FAMILY_ROUTES_OF(functions, "/functions", "/functions/{name}",
                        "function_info", UC_ROUTE_KEPT),
    { 0, NULL, NULL, 0, NULL }
};
