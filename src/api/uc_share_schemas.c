/* SPDX-License-Identifier: Apache-2.0 */
/* The schemas of a share, as the Delta Sharing API's CreateSchema and
 * DeleteSchema manage them: names under which the share's data objects
 * are shown (the schema part of their shared_as). A declared schema is
 * listed to recipients before any object is shared under it; one that
 * still shows objects is not deleted (they leave the share by a PATCH of
 * /shares/{name}, whose answer says what left). Changing them is
 * managing the share. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_grants.h"
#include "../store/uc_share_objects.h"
#include "../store/uc_share_schemas.h"

static void render(uc_jw_t *out, const uc_securable_t *share,
                   const uc_share_schema_t *s)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "id", s->id);
    uc_jw_field_string(out, "name", s->name);
    uc_jw_field_string(out, "share", share->name);
    uc_jw_field_string(out, "shareId", share->id);
    uc_jw_field_string(out, "description", s->comment);
    uc_jw_field_raw(out, "properties", s->properties ? s->properties : "{}");
    uc_jw_end_object(out);
}

static uc_error_t *audit(uc_call_t *call, const char *action,
                         const char *schema)
{
    const uc_securable_t *share = UC_TARGET_OF(call);
    uc_audit_t entry = {
        uc_epoch_ms_text(call->pool, call->now), call->principal, action,
        UC_KIND_SHARE, share->id, share->name, schema, NULL
    };
    return uc_audit_add(call->store, &entry);
}

/* How many of the share's data objects are shown under `schema`. */
static uc_error_t *objects_under(uc_call_t *call, const char *schema,
                                 int *count)
{
    apr_array_header_t *objects;
    int i;
    uc_error_t *err = uc_share_objects_of(call->store, call->pool,
                                          UC_TARGET_OF(call)->id, &objects);

    *count = 0;
    if (err)
        return err;
    for (i = 0; i < objects->nelts; i++) {
        const char *in = uc_share_object_schema(
            call->pool, APR_ARRAY_IDX(objects, i, uc_share_object_t *));
        if (in && !strcmp(in, schema))
            (*count)++;
    }
    return NULL;
}

/* The schema `name` declares in the call's share; *out NULL when none. */
static uc_error_t *declared(uc_call_t *call, const char *name,
                            uc_share_schema_t **out)
{
    apr_array_header_t *all;
    int i;
    uc_error_t *err = uc_share_schemas_of(call->store, call->pool,
                                          UC_TARGET_OF(call)->id, &all);

    *out = NULL;
    for (i = 0; !err && i < all->nelts; i++)
        if (!strcmp(APR_ARRAY_IDX(all, i, uc_share_schema_t *)->name, name))
            *out = APR_ARRAY_IDX(all, i, uc_share_schema_t *);
    return err;
}

static uc_error_t *taken(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_ALREADY_EXISTS,
                         "Schema '%s' already exists in share '%s'.", name,
                         UC_TARGET_OF(call)->name);
}

/* The SchemaInfo body: name, description, properties. */
static uc_error_t *read_body(uc_call_t *call, uc_share_schema_t *s)
{
    json_t *properties = NULL;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &s->name)) ||
        (err = uc_validate_name(call->pool, "name", s->name, &s->name)) ||
        (err = uc_json_string_field(call->pool, call->body, "description",
                                    0, &s->comment)) ||
        (err = uc_validate_text(call->pool, "description", s->comment,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_string_map_field(call->pool, call->body, "properties",
                                        &properties)))
        return err;
    if (properties)
        s->properties = uc_json_dump(call->pool, properties);
    return NULL;
}

/* POST /shares/{share}/schemas. A name the share already shows objects
 * under is taken, as a declared one is. */
static uc_error_t *create_schema(uc_call_t *call, uc_jw_t *out)
{
    uc_share_schema_t *s = apr_pcalloc(call->pool, sizeof(*s));
    int held;
    uc_error_t *err;

    if ((err = read_body(call, s)) ||
        (err = objects_under(call, s->name, &held)))
        return err;
    if (held)
        return taken(call, s->name);
    s->id = uc_uuid4(call->pool);
    if (!s->id)
        return uc_error_internal(call->pool);
    s->share_id = UC_TARGET_OF(call)->id;
    s->created_at = uc_epoch_ms_text(call->pool, call->now);
    s->created_by = call->principal;
    err = uc_share_schema_insert(call->store, s);
    if (uc_store_is_duplicate(err))
        return taken(call, s->name);
    if (err || (err = audit(call, "SHARE_CREATE_SCHEMA", s->name)))
        return err;
    render(out, UC_TARGET_OF(call), s);
    return NULL;
}

/* DELETE /shares/{share}/schemas/{name}: answers the schema as it was. */
static uc_error_t *delete_schema(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *share = UC_TARGET_OF(call);
    const char *name;
    uc_share_schema_t *s;
    int held;
    uc_error_t *err;

    if ((err = uc_validate_name(call->pool, "name", call->params[1], &name)) ||
        (err = declared(call, name, &s)) ||
        (err = objects_under(call, name, &held)))
        return err;
    if (held)
        return uc_error_make(call->pool, UC_E_SCHEMA_NOT_EMPTY, "Schema '%s' "
                             "of share '%s' still shows %d data object%s: "
                             "remove %s from the share first.", name,
                             share->name, held, held == 1 ? "" : "s",
                             held == 1 ? "it" : "them");
    if (!s)
        return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                             "schema '%s' not found in share '%s'", name,
                             share->name);
    if ((err = uc_share_schema_delete(call->store, s->id)) ||
        (err = audit(call, "SHARE_DELETE_SCHEMA", s->name)))
        return err;
    render(out, share, s);
    return NULL;
}

const uc_route_t uc_share_schema_routes[] = {
    { UC_POST, "/shares/{share}/schemas", create_schema,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &uc_share_family.rules.manage,
      .audit = "CREATE_SHARE_SCHEMA" },
    { UC_DELETE, "/shares/{share}/schemas/{name}", delete_schema,
      UC_ROUTE_TXN, &uc_share_family.rules.manage,
      .audit = "DELETE_SHARE_SCHEMA" },
    { 0, NULL, NULL, 0, NULL }
};
