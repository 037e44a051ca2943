/* SPDX-License-Identifier: Apache-2.0 */
/* Agents (remote services invoked through an endpoint and a protocol) and
 * agent skills (storage-backed directories holding a SKILL.md). Agents are
 * governed like functions (EXECUTE), skills like volumes (READ VOLUME). */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../vend/uc_storage.h"

#define P UC_PRIV
#define SKILL_NAME_MAX 64
#define SKILL_DESCRIPTION_MAX 1024
#define INPUT_SCHEMA_MAX (1024 * 1024)
#define LIST_MAX 256

static const char *const protocols[] = {
    "MCP", "A2A", "OPENAI", "ANTHROPIC", "REST", NULL
};
/* An update may say "unspecified": no change. */
static const char *const update_protocols[] = {
    "INVOCATION_PROTOCOL_UNSPECIFIED", "MCP", "A2A", "OPENAI", "ANTHROPIC",
    "REST", NULL
};
static const char *const skill_types[] = { "EXTERNAL", "MANAGED", NULL };

/* Sets `key` of `details` from the body's member of the same name when it
 * is there; *changed tells. */
static void take(json_t *details, const char *key, json_t *value,
                 int *changed)
{
    if (!value)
        return;
    json_object_set(details, key, value);
    *changed = 1;
}

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : NULL;
}

/* --- agents ------------------------------------------------------------- */

static void render_agent(uc_call_t *call, uc_jw_t *out,
                         const uc_securable_t *sec, const void *context)
{
    static const char *const browsed[] = {
        "endpoint", "input_schema", NULL
    };

    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_jw_field_string(out, "agent_id", sec->id);
    uc_family_write_details(call, out, sec, sec->browse_only ? browsed : NULL);
    if (sec->browse_only) {
        uc_jw_field_string(out, "endpoint", NULL);
        uc_jw_field_string(out, "input_schema", NULL);
    }
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

/* The agent fields of a create or update body, validated; absent ones stay
 * NULL. */
typedef struct agent_fields {
    const char *protocol;
    const char *endpoint;
    const char *description;
    const char *input_schema;
    json_t *capabilities;
} agent_fields_t;

static uc_error_t *read_agent(uc_call_t *call, int create,
                              agent_fields_t *f)
{
    uc_error_t *err;

    memset(f, 0, sizeof(*f));
    if ((err = uc_json_enum_field(call->pool, call->body,
                                  "invocation_protocol",
                                  create ? protocols : update_protocols,
                                  create, &f->protocol)) ||
        (err = uc_json_string_field(call->pool, call->body, "endpoint",
                                    create, &f->endpoint)) ||
        (f->endpoint &&
         (err = uc_validate_uri(call->pool, "endpoint", f->endpoint))) ||
        (err = uc_json_string_field(call->pool, call->body, "description", 0,
                                    &f->description)) ||
        (err = uc_validate_text(call->pool, "description", f->description,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_string_array_field(call->pool, call->body,
                                          "capabilities", LIST_MAX,
                                          UC_NAME_MAX, &f->capabilities)) ||
        (err = uc_json_string_field(call->pool, call->body, "input_schema",
                                    0, &f->input_schema)) ||
        (err = uc_validate_text(call->pool, "input_schema", f->input_schema,
                                INPUT_SCHEMA_MAX)))
        return err;
    if (f->input_schema) {
        /* A JSON Schema document: an object (or true/false), as text. */
        json_t *doc = json_loads(f->input_schema, JSON_DECODE_ANY, NULL);
        int ok = doc && (json_is_object(doc) || json_is_boolean(doc));

        json_decref(doc);
        if (!ok)
            return uc_error_invalid(call->pool, "Field 'input_schema' must "
                                    "be a JSON Schema document (a JSON "
                                    "object) encoded as a string.");
    }
    if (f->protocol && !strcmp(f->protocol, "INVOCATION_PROTOCOL_UNSPECIFIED"))
        f->protocol = NULL;
    return NULL;
}

static uc_error_t *prepare_agent(uc_call_t *call, uc_securable_t *sec)
{
    agent_fields_t f;
    uc_error_t *err = read_agent(call, 1, &f);

    if (err)
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{sssssOsoso}", "invocation_protocol", f.protocol,
        "endpoint", f.endpoint,
        "capabilities", f.capabilities
                        ? f.capabilities
                        : uc_json_own(call->pool, json_array()),
        "description", uc_json_string_or_null(f.description),
        "input_schema", uc_json_string_or_null(f.input_schema))));
    return NULL;
}

static uc_error_t *prepare_agent_update(uc_call_t *call,
                                        uc_securable_t *sec, int *changed)
{
    json_t *details = uc_api_details(call, sec);
    agent_fields_t f;
    uc_error_t *err = read_agent(call, 0, &f);

    if (err)
        return err;
    take(details, "invocation_protocol",
         uc_json_own(call->pool, text_or_null(f.protocol)), changed);
    take(details, "endpoint", uc_json_own(call->pool,
                                          text_or_null(f.endpoint)),
         changed);
    take(details, "capabilities", f.capabilities, changed);
    take(details, "description",
         uc_json_own(call->pool, text_or_null(f.description)), changed);
    take(details, "input_schema",
         uc_json_own(call->pool, text_or_null(f.input_schema)), changed);
    if (*changed)
        uc_api_set_details(call, sec, details);
    return NULL;
}

static const uc_api_family_t agents;
const uc_api_family_t *const uc_agent_family = &agents;

static const uc_api_family_t agents = {
    UC_FAMILY_IN_SCHEMA(UC_TYPE_AGENT, UC_PRIV_CREATE_FUNCTION,
                        P(UC_PRIV_EXECUTE)),
    .label = "Agent", .plural = "agents",
    .exists = UC_E_RESOURCE_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .render = render_agent, .prepare_create = prepare_agent,
    .prepare_update = prepare_agent_update
};

/* --- agent skills ------------------------------------------------------- */

static void render_skill(uc_call_t *call, uc_jw_t *out,
                         const uc_securable_t *sec, const void *context)
{
    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_jw_field_string(out, "agent_skill_id", sec->id);
    uc_family_write_details(call, out, sec, NULL);
    uc_jw_field_string(out, "storage_location",
                       sec->browse_only ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

typedef struct skill_fields {
    const char *description;
    json_t *allowed_tools;
} skill_fields_t;

static uc_error_t *read_skill(uc_call_t *call, skill_fields_t *f)
{
    uc_error_t *err;

    memset(f, 0, sizeof(*f));
    if ((err = uc_json_string_field(call->pool, call->body, "description", 0,
                                    &f->description)) ||
        (err = uc_validate_text(call->pool, "description", f->description,
                                SKILL_DESCRIPTION_MAX)))
        return err;
    return uc_json_string_array_field(call->pool, call->body, "allowed_tools",
                                      LIST_MAX, UC_NAME_MAX,
                                      &f->allowed_tools);
}

static uc_error_t *prepare_skill(uc_call_t *call, uc_securable_t *sec)
{
    const char *type = NULL, *location = NULL, *license = NULL;
    json_t *metadata = NULL;
    skill_fields_t f;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, call->body, "agent_skill_type",
                                  skill_types, 1, &type)) ||
        (err = read_skill(call, &f)) ||
        (err = uc_json_string_map_field(call->pool, call->body, "metadata",
                                        &metadata)) ||
        (err = uc_json_string_field(call->pool, call->body, "license", 0,
                                    &license)) ||
        (err = uc_validate_text(call->pool, "license", license,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "storage_location", 0, &location)))
        return err;
    /* A managed skill's location is derived; one in the body is ignored,
     * as the spec says. */
    if (!strcmp(type, "MANAGED"))
        err = uc_storage_managed_location(call, "agent_skills", sec->id,
                                          "managed agent skill",
                                          &sec->storage_location);
    else if (!location)
        return uc_error_invalid(call->pool, "Field 'storage_location' is "
                                "required for an EXTERNAL agent skill.");
    else
        err = uc_storage_external_location(call, "storage_location",
                                           location, "agent skill",
                                           &sec->storage_location);
    if (err)
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{sssosOsOso}", "agent_skill_type", type,
        "description", uc_json_string_or_null(f.description),
        "allowed_tools", f.allowed_tools
                         ? f.allowed_tools
                         : uc_json_own(call->pool, json_array()),
        "metadata", metadata ? metadata
                             : uc_json_own(call->pool, json_object()),
        "license", uc_json_string_or_null(license))));
    return NULL;
}

static uc_error_t *prepare_skill_update(uc_call_t *call,
                                        uc_securable_t *sec, int *changed)
{
    json_t *details = uc_api_details(call, sec);
    skill_fields_t f;
    uc_error_t *err = read_skill(call, &f);

    if (err)
        return err;
    take(details, "description",
         uc_json_own(call->pool, text_or_null(f.description)), changed);
    take(details, "allowed_tools", f.allowed_tools, changed);
    if (*changed)
        uc_api_set_details(call, sec, details);
    return NULL;
}

static const uc_api_family_t skills;
const uc_api_family_t *const uc_agent_skill_family = &skills;

static const uc_api_family_t skills = {
    UC_FAMILY_IN_SCHEMA(UC_TYPE_AGENT_SKILL, UC_PRIV_CREATE_VOLUME,
                        P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME)),
    .label = "Agent skill", .plural = "agent_skills",
    .exists = UC_E_RESOURCE_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .max_name = SKILL_NAME_MAX,
    .render = render_skill, .prepare_create = prepare_skill,
    .prepare_update = prepare_skill_update
};

const uc_route_t uc_agent_routes[] = {
    UC_FAMILY_ROUTES_KEPT(agents, "/agents", "/agents/{name}"),
    UC_FAMILY_ROUTES_KEPT(skills, "/agent-skills", "/agent-skills/{name}"),
    { 0, NULL, NULL, 0, NULL }
};
