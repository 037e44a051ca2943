/* SPDX-License-Identifier: Apache-2.0 */
/* Volumes: directories of files under a schema, managed (located under the
 * schema's or catalog's managed storage) or external. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../vend/uc_storage.h"

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
    uc_family_write_details(call, out, sec, NULL);
    uc_jw_field_string(out, "storage_location",
                       sec->browse_only ? NULL : sec->storage_location);
    uc_jw_field_string(out, "comment", sec->comment);
    uc_api_write_tail(call, out, sec, "volume_id", 0);
}

/* The volume type and, for an external volume, its location. */
static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    const char *type = NULL, *location = NULL;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, call->body, "volume_type",
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
    return NULL;
}

static const uc_api_family_t volumes;
const uc_api_family_t *const uc_volume_family = &volumes;

static const uc_api_family_t volumes = {
    UC_FAMILY_IN_SCHEMA(UC_TYPE_VOLUME, UC_PRIV_CREATE_VOLUME,
                        P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME)),
    .label = "Volume", .plural = "volumes",
    .exists = UC_E_RESOURCE_ALREADY_EXISTS,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .render = render, .prepare_create = prepare_create
};

const uc_route_t uc_volume_routes[] = {
    UC_FAMILY_ROUTES_KEPT(volumes, "/volumes", "/volumes/{name}"),
    { 0, NULL, NULL, 0, NULL }
};
