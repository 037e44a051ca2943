/* Agents (remote services invoked through an endpoint and a protocol) and
 * agent skills (storage-backed directories holding a SKILL.md). Agents are
 * governed like functions (EXECUTE), skills like volumes (READ VOLUME). */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_storage.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"

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
    uc_jw_members(out, sec->details, sec->browse_only ? browsed : NULL);
    if (sec->browse_only) {
        uc_jw_field_string(out, "endpoint", NULL);
        uc_jw_field_string(out, "input_schema", NULL);
    }
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

static const uc_api_family_t agents = {
    UC_KIND_AGENT, "Agent", "agents", P(UC_PRIV_EXECUTE),
    UC_E_RESOURCE_ALREADY_EXISTS, UC_FIELD_COMMENT | UC_FIELD_OWNER,
    UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME, UC_NAME_MAX,
    render_agent
};

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

static uc_error_t *create_agent(uc_call_t *call, uc_jw_t *out)
{
    agent_fields_t f;
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = uc_api_new_object(call, &agents, &sec)) ||
        (err = read_agent(call, 1, &f)))
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{sssssOsoso}", "invocation_protocol", f.protocol,
        "endpoint", f.endpoint,
        "capabilities", f.capabilities
                        ? f.capabilities
                        : uc_json_own(call->pool, json_array()),
        "description", uc_json_string_or_null(f.description),
        "input_schema", uc_json_string_or_null(f.input_schema))));
    return uc_api_insert_object(call, out, &agents, sec, NULL);
}

static uc_error_t *list_agents(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_list_objects(call, out, &agents, NULL);
}

static uc_error_t *get_agent(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_get_object(call, out, &agents, NULL);
}

static uc_error_t *update_agent(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    json_t *details = uc_api_details(call, sec);
    agent_fields_t f;
    int changed = 0;
    uc_error_t *err;

    if ((err = read_agent(call, 0, &f)))
        return err;
    take(details, "invocation_protocol",
         uc_json_own(call->pool, text_or_null(f.protocol)), &changed);
    take(details, "endpoint", uc_json_own(call->pool,
                                          text_or_null(f.endpoint)),
         &changed);
    take(details, "capabilities", f.capabilities, &changed);
    take(details, "description",
         uc_json_own(call->pool, text_or_null(f.description)), &changed);
    take(details, "input_schema",
         uc_json_own(call->pool, text_or_null(f.input_schema)), &changed);
    if (changed)
        uc_api_set_details(call, sec, details);
    return uc_api_update_object(call, out, &agents, changed, NULL);
}

/* --- agent skills ------------------------------------------------------- */

static void render_skill(uc_call_t *call, uc_jw_t *out,
                         const uc_securable_t *sec, const void *context)
{
    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_jw_field_string(out, "agent_skill_id", sec->id);
    uc_jw_members(out, sec->details, NULL);
    uc_jw_field_string(out, "storage_location",
                       sec->browse_only ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, NULL, 0);
}

static const uc_api_family_t skills = {
    UC_KIND_AGENT_SKILL, "Agent skill", "agent_skills",
    P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME),
    UC_E_RESOURCE_ALREADY_EXISTS, UC_FIELD_COMMENT | UC_FIELD_OWNER,
    UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME, SKILL_NAME_MAX,
    render_skill
};

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

static uc_error_t *create_skill(uc_call_t *call, uc_jw_t *out)
{
    const char *type = NULL, *location = NULL, *license = NULL;
    json_t *metadata = NULL;
    skill_fields_t f;
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = uc_api_new_object(call, &skills, &sec)) ||
        (err = uc_json_enum_field(call->pool, call->body, "agent_skill_type",
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
    return uc_api_insert_object(call, out, &skills, sec, NULL);
}

static uc_error_t *list_skills(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_list_objects(call, out, &skills, NULL);
}

static uc_error_t *get_skill(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_get_object(call, out, &skills, NULL);
}

static uc_error_t *update_skill(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    json_t *details = uc_api_details(call, sec);
    skill_fields_t f;
    int changed = 0;
    uc_error_t *err;

    if ((err = read_skill(call, &f)))
        return err;
    take(details, "description",
         uc_json_own(call->pool, text_or_null(f.description)), &changed);
    take(details, "allowed_tools", f.allowed_tools, &changed);
    if (changed)
        uc_api_set_details(call, sec, details);
    return uc_api_update_object(call, out, &skills, changed, NULL);
}

static const uc_rule_t list_rule = UC_RULE_LIST_IN_SCHEMA;
static const uc_rule_t create_agent_rule =
    UC_RULE_CREATE_IN_SCHEMA(UC_PRIV_CREATE_FUNCTION);
static const uc_rule_t read_agent_rule = UC_RULE_ON_OBJECT(
    UC_TYPE_AGENT, P(UC_PRIV_EXECUTE), UC_BROWSE_ON_REQUEST);
static const uc_rule_t manage_agent_rule =
    UC_RULE_ON_OBJECT(UC_TYPE_AGENT, P(UC_PRIV_MANAGE), 0);
static const uc_rule_t create_skill_rule =
    UC_RULE_CREATE_IN_SCHEMA(UC_PRIV_CREATE_VOLUME);
static const uc_rule_t read_skill_rule = UC_RULE_ON_OBJECT(
    UC_TYPE_AGENT_SKILL, P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME),
    UC_BROWSE_ON_REQUEST);
static const uc_rule_t manage_skill_rule =
    UC_RULE_ON_OBJECT(UC_TYPE_AGENT_SKILL, P(UC_PRIV_MANAGE), 0);

const uc_route_t uc_agent_routes[] = {
    { UC_POST,   "/agents", create_agent, UC_ROUTE_BODY | UC_ROUTE_TXN,
      &create_agent_rule },
    { UC_GET,    "/agents", list_agents, 0, &list_rule },
    { UC_GET,    "/agents/{name}", get_agent, 0, &read_agent_rule },
    { UC_PATCH,  "/agents/{name}", update_agent,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_agent_rule },
    { UC_DELETE, "/agents/{name}", uc_api_delete_object, UC_ROUTE_TXN,
      &manage_agent_rule },
    { UC_POST,   "/agent-skills", create_skill, UC_ROUTE_BODY | UC_ROUTE_TXN,
      &create_skill_rule },
    { UC_GET,    "/agent-skills", list_skills, 0, &list_rule },
    { UC_GET,    "/agent-skills/{name}", get_skill, 0, &read_skill_rule },
    { UC_PATCH,  "/agent-skills/{name}", update_skill,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_skill_rule },
    { UC_DELETE, "/agent-skills/{name}", uc_api_delete_object, UC_ROUTE_TXN,
      &manage_skill_rule },
    { 0, NULL, NULL, 0, NULL }
};
