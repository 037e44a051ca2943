/* Volumes: directories of files under a schema, managed (located under the
 * schema's or catalog's managed storage) or external. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_storage.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"

#define P UC_PRIV

/* Older clients send the protobuf spelling; answers use the bare one. */
static const char *const volume_types[] = {
    "MANAGED", "EXTERNAL", "VOLUME_TYPE_MANAGED", "VOLUME_TYPE_EXTERNAL",
    NULL
};

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_jw_members(out, sec->details, NULL);
    uc_jw_field_string(out, "storage_location",
                       sec->browse_only ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, "volume_id", 0);
}

static const uc_api_family_t volumes = {
    UC_KIND_VOLUME, "Volume", "volumes",
    P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME),
    UC_E_RESOURCE_ALREADY_EXISTS,
    UC_FIELD_COMMENT | UC_FIELD_OWNER,
    UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    UC_NAME_MAX, render
};

static uc_error_t *create_volume(uc_call_t *call, uc_jw_t *out)
{
    const char *type = NULL, *location = NULL;
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = uc_api_new_object(call, &volumes, &sec)) ||
        (err = uc_json_enum_field(call->pool, call->body, "volume_type",
                                  volume_types, 1, &type)) ||
        (err = uc_json_string_field(call->pool, call->body,
                                    "storage_location", 0, &location)))
        return err;
    if (strncmp(type, "VOLUME_TYPE_", 12) == 0)
        type += 12;
    if (!strcmp(type, "MANAGED")) {
        if (location)
            return uc_error_invalid(call->pool, "Storage location should not "
                                    "be specified for managed volume");
        err = uc_storage_managed_location(call, "volumes", sec->id,
                                          "managed volume",
                                          &sec->storage_location);
    }
    else if (!location)
        return uc_error_invalid(call->pool, "Storage location is required "
                                "for external volume");
    else
        err = uc_storage_external_location(call, "storage_location",
                                           location, "volume",
                                           &sec->storage_location);
    if (err)
        return err;
    uc_api_set_details(call, sec, uc_json_own(call->pool, json_pack(
        "{ss}", "volume_type", type)));
    return uc_api_insert_object(call, out, &volumes, sec, NULL);
}

static uc_error_t *list_volumes(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_list_objects(call, out, &volumes, NULL);
}

static uc_error_t *get_volume(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_get_object(call, out, &volumes, NULL);
}

static uc_error_t *update_volume(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_update_object(call, out, &volumes, 0, NULL);
}

static const uc_rule_t create_rule =
    UC_RULE_CREATE_IN_SCHEMA(UC_PRIV_CREATE_VOLUME);
static const uc_rule_t list_rule = UC_RULE_LIST_IN_SCHEMA;
static const uc_rule_t read_rule = UC_RULE_ON_OBJECT(
    UC_TYPE_VOLUME, P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME),
    UC_BROWSE_ON_REQUEST);
static const uc_rule_t manage_rule =
    UC_RULE_ON_OBJECT(UC_TYPE_VOLUME, P(UC_PRIV_MANAGE), 0);

const uc_route_t uc_volume_routes[] = {
    { UC_POST,   "/volumes", create_volume, UC_ROUTE_BODY | UC_ROUTE_TXN,
      &create_rule },
    { UC_GET,    "/volumes", list_volumes, 0, &list_rule },
    { UC_GET,    "/volumes/{name}", get_volume, 0, &read_rule },
    { UC_PATCH,  "/volumes/{name}", update_volume,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule },
    { UC_DELETE, "/volumes/{name}", uc_api_delete_object, UC_ROUTE_TXN,
      &manage_rule },
    { 0, NULL, NULL, 0, NULL }
};
