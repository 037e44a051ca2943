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
    int browse = sec->browse_only;

    uc_jw_begin_object(out);
    uc_api_write_names(call, out, context, sec);
    uc_jw_members(out, sec->details, NULL);
    uc_jw_field_string(out, "storage_location",
                       browse ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_stamps(out, sec, 0);
    uc_jw_field_string(out, "volume_id", sec->id);
    uc_jw_field_string(out, "metastore_id",
                       uc_store_metastore_id(call->store));
    uc_jw_key(out, "browse_only");
    uc_jw_bool(out, browse);
    uc_jw_end_object(out);
}

static uc_error_t *already_exists(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, 400, "RESOURCE_ALREADY_EXISTS",
                         "Volume already exists: %s",
                         uc_api_full_name(call, uc_api_parents_of(call),
                                          name));
}

static uc_error_t *create_volume(uc_call_t *call, uc_jw_t *out)
{
    const char *type = NULL, *location = NULL;
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = uc_api_new_object(call, UC_KIND_VOLUME, UC_NAME_MAX,
                                 UC_FIELD_COMMENT | UC_FIELD_OWNER, &sec)) ||
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
    err = uc_securable_insert(call->store, sec);
    if (uc_store_is_duplicate(err))
        return already_exists(call, sec->name);
    if (err)
        return err;
    render(call, out, sec, uc_api_parents_of(call));
    return NULL;
}

static uc_error_t *list_volumes(uc_call_t *call, uc_jw_t *out)
{
    return uc_api_list_objects(call, out, UC_KIND_VOLUME, "volumes",
                               P(UC_PRIV_READ_VOLUME) |
                               P(UC_PRIV_WRITE_VOLUME), render,
                               uc_api_parents_of(call));
}

static uc_error_t *get_volume(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);

    sec->browse_only = call->browse_only;
    render(call, out, sec, uc_api_parents_of(call));
    return NULL;
}

static uc_error_t *update_volume(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    uc_error_t *err = uc_api_update_securable(
        call, UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
        UC_NAME_MAX, 0);

    if (uc_store_is_duplicate(err))
        return already_exists(call, sec->name);
    if (err)
        return err;
    render(call, out, sec, uc_api_parents_of(call));
    return NULL;
}

#define USE_C { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) }
#define USE_S { UC_LEVEL_SCHEMA, P(UC_PRIV_USE_SCHEMA) }
static const uc_rule_t create_rule = {
    UC_TARGET_SCHEMA_FIELDS,
    { USE_C, USE_S, { UC_LEVEL_SCHEMA, P(UC_PRIV_CREATE_VOLUME) } } };
static const uc_rule_t list_rule = {
    UC_TARGET_SCHEMA_QUERY, { USE_C, USE_S }, .browse = 1 };
static const uc_rule_t read_rule = {
    UC_TARGET_OBJECT,
    { USE_C, USE_S,
      { UC_LEVEL_OBJECT, P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME) } },
    UC_TYPE_VOLUME, .browse = 1 };
static const uc_rule_t manage_rule = {
    UC_TARGET_OBJECT,
    { USE_C, USE_S, { UC_LEVEL_OBJECT, P(UC_PRIV_MANAGE) } },
    UC_TYPE_VOLUME };

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
