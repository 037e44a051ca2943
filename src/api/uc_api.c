#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_grants.h"

const uc_route_t *const uc_catalog_api[] = {
    uc_catalog_routes,
    uc_schema_routes,
    uc_metastore_routes,
    uc_permission_routes,
    NULL
};

uc_error_t *uc_api_page(uc_call_t *call, uc_page_t *page)
{
    return uc_page_parse(call->pool, apr_table_get(call->query, "max_results"),
                         apr_table_get(call->query, "page_token"), page);
}

void uc_api_write_page(uc_call_t *call, uc_jw_t *out, const char *plural,
                       const apr_array_header_t *rows, int more,
                       uc_api_render_fn render, const void *context)
{
    int i;

    uc_jw_begin_object(out);
    uc_jw_key(out, plural);
    uc_jw_begin_array(out);
    for (i = 0; i < rows->nelts; i++)
        render(call, out, APR_ARRAY_IDX(rows, i, uc_securable_t *), context);
    uc_jw_end_array(out);
    uc_jw_field_string(out, "next_page_token",
                       more && rows->nelts
                       ? uc_page_token(call->pool,
                                       APR_ARRAY_IDX(rows, rows->nelts - 1,
                                                     uc_securable_t *)->name)
                       : NULL);
    uc_jw_end_object(out);
}

uc_error_t *uc_api_query_flag(uc_call_t *call, const char *name, int *out)
{
    return uc_validate_query_bool(call->pool, name,
                                  apr_table_get(call->query, name), 0, out);
}

uc_visibility_t *uc_api_visibility(uc_call_t *call, int all, int all_full,
                                   const uc_privilege_t *visible,
                                   const uc_privilege_t *full)
{
    uc_visibility_t *vis = apr_pcalloc(call->pool, sizeof(*vis));
    json_t *v = uc_json_own(call->pool, json_array());
    json_t *f = uc_json_own(call->pool, json_array());

    for (; *visible != UC_PRIV_COUNT; visible++)
        json_array_append_new(v, json_string(uc_privilege_key(*visible)));
    for (; *full != UC_PRIV_COUNT; full++)
        json_array_append_new(f, json_string(uc_privilege_key(*full)));
    vis->all = all || call->who->admin;
    vis->all_full = all_full || call->who->admin;
    vis->principals = call->who->json;
    vis->visible = uc_json_dump(call->pool, v);
    vis->full = uc_json_dump(call->pool, f);
    return vis;
}

uc_error_t *uc_api_new_securable(uc_call_t *call, const char *kind,
                                 const char *parent_id, const char *name,
                                 uc_securable_t **out)
{
    uc_securable_t *sec = apr_pcalloc(call->pool, sizeof(*sec));
    const char *now = uc_epoch_ms_text(call->pool, call->now);

    sec->id = uc_uuid4(call->pool);
    if (!sec->id)
        return uc_error_internal(call->pool);
    sec->kind = kind;
    sec->parent_id = parent_id;
    sec->name = name;
    sec->owner = call->principal;
    sec->created_by = call->principal;
    sec->updated_by = call->principal;
    sec->created_at = now;
    sec->updated_at = now;
    sec->properties = "{}";
    sec->details = "{}";
    *out = sec;
    return NULL;
}

uc_error_t *uc_api_new_container(uc_call_t *call, const char *kind,
                                 const char *parent_id, const char *segment,
                                 uc_securable_t **out)
{
    const char *name = NULL, *root = NULL;
    int changed;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &name)) ||
        (err = uc_validate_name(call->pool, "name", name, &name)) ||
        (err = uc_json_string_field(call->pool, call->body, "storage_root", 0,
                                    &root)) ||
        (root && (err = uc_validate_storage_url(call->pool, "storage_root",
                                                root, &root))) ||
        (err = uc_api_new_securable(call, kind, parent_id, name, out)) ||
        (err = uc_api_read_common_fields(call, *out, &changed)))
        return err;
    (*out)->storage_root = root;
    (*out)->storage_location = uc_api_managed_location(call, root, segment,
                                                       (*out)->id);
    return NULL;
}

uc_error_t *uc_api_read_common_fields(uc_call_t *call, uc_securable_t *sec,
                                      int *changed)
{
    const char *comment = NULL, *owner = NULL;
    json_t *properties = NULL;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "comment", 0,
                                    &comment)) ||
        (err = uc_validate_text(call->pool, "comment", comment,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_string_map_field(call->pool, call->body, "properties",
                                        &properties)) ||
        (err = uc_json_string_field(call->pool, call->body, "owner", 0,
                                    &owner)) ||
        (err = uc_validate_text(call->pool, "owner", owner, UC_NAME_MAX)))
        return err;
    if (owner && !*owner)
        return uc_error_invalid(call->pool, "Field 'owner' must not be "
                                "empty.");
    *changed = 0;
    if (comment) {
        sec->comment = comment;
        *changed = 1;
    }
    if (properties) {
        sec->properties = uc_json_dump(call->pool, properties);
        *changed = 1;
    }
    if (owner) {
        sec->owner = owner;
        *changed = 1;
    }
    return NULL;
}

void uc_api_write_common(uc_jw_t *out, const uc_securable_t *sec)
{
    int browse = sec->browse_only;

    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "comment", sec->comment);
    /* Stored properties are compact JSON the module wrote itself. */
    uc_jw_field_raw(out, "properties",
                    !browse && sec->properties && *sec->properties
                    ? sec->properties : "{}");
    uc_jw_field_string(out, "owner", sec->owner);
    uc_jw_field_int_text(out, "created_at", sec->created_at);
    uc_jw_field_string(out, "created_by", sec->created_by);
    uc_jw_field_int_text(out, "updated_at", sec->updated_at);
    uc_jw_field_string(out, "updated_by", sec->updated_by);
    uc_jw_field_string(out, "storage_root", browse ? NULL : sec->storage_root);
    uc_jw_field_string(out, "storage_location",
                       browse ? NULL : sec->storage_location);
    uc_jw_key(out, "browse_only");
    uc_jw_bool(out, browse);
}

const char *uc_api_managed_location(uc_call_t *call, const char *root,
                                    const char *segment, const char *id)
{
    if (!root)
        return NULL;
    return apr_pstrcat(call->pool, root, "/__unitystorage/", segment, "/", id,
                       NULL);
}

uc_error_t *uc_api_update_securable(uc_call_t *call)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    const char *new_name = NULL, *old_owner = sec->owner;
    int changed, level = call->chain.n - 1;
    uc_error_t *err;

    if ((err = uc_api_read_common_fields(call, sec, &changed)) ||
        (err = uc_json_string_field(call->pool, call->body, "new_name", 0,
                                    &new_name)) ||
        (new_name && (err = uc_validate_name(call->pool, "new_name",
                                             new_name, &new_name))))
        return err;
    if (new_name && strcmp(new_name, sec->name) != 0) {
        sec->name = new_name;
        changed = 1;
    }
    if (!changed)
        return NULL;
    sec->updated_at = uc_epoch_ms_text(call->pool, call->now);
    sec->updated_by = call->principal;
    if (sec->owner != old_owner &&
        (!old_owner || strcmp(sec->owner, old_owner) != 0)) {
        uc_audit_t entry = {
            sec->updated_at, call->principal, "SET_OWNER",
            uc_securable_type_name(call->chain.type[level]), sec->id,
            sec->name, sec->owner, NULL
        };
        if (!uc_access_owns(&call->access, level))
            return uc_error_make(call->pool, 403, "PERMISSION_DENIED",
                                 "Only the owner or a metastore admin can "
                                 "transfer ownership.");
        if ((err = uc_audit_add(call->store, &entry)))
            return err;
    }
    return uc_securable_update(call->store, sec);
}

uc_error_t *uc_api_delete_securable(uc_call_t *call,
                                    const char *not_empty_code,
                                    const char *what)
{
    const uc_securable_t *sec = UC_TARGET_OF(call);
    int force = 0, has_children = 0;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "force", &force)))
        return err;
    if (!force) {
        if ((err = uc_securable_has_children(call->store, sec->id,
                                             &has_children)))
            return err;
        if (has_children)
            return uc_error_make(call->pool, 400, not_empty_code,
                                 "%s is not empty; use force=true to delete "
                                 "it with everything it contains.", what);
    }
    return uc_securable_delete(call->store, sec->id);
}
