/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_api.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"

uc_error_t *uc_api_page(uc_call_t *call, uc_page_t *page)
{
    return uc_page_parse(call->pool, apr_table_get(call->query, "max_results"),
                         apr_table_get(call->query, "page_token"), page);
}

/* Room for a rendered row: its stored JSON and the rest of its fields. */
#define ROW_OVERHEAD 1024

void uc_api_write_page(uc_call_t *call, uc_jw_t *out, const char *plural,
                       const apr_array_header_t *rows, int more,
                       uc_api_render_fn render, const void *context)
{
    apr_size_t room = 256;
    int i;

    /* Pages of tables run to megabytes: one allocation, no regrowth. */
    for (i = 0; i < rows->nelts; i++) {
        const uc_securable_t *sec = APR_ARRAY_IDX(rows, i, uc_securable_t *);
        room += ROW_OVERHEAD + strlen(sec->details ? sec->details : "") +
                strlen(sec->properties ? sec->properties : "") +
                (sec->comment ? 6 * strlen(sec->comment) : 0);
    }
    uc_jw_reserve(out, room);
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

const char *uc_api_privilege_keys(uc_call_t *call, uc_privset_t set)
{
    uc_jw_t *w = uc_jw_make(call->pool, 128);
    int p;

    uc_jw_begin_array(w);
    for (p = 0; p < UC_PRIV_COUNT; p++)
        if (set & UC_PRIV(p))
            uc_jw_string(w, uc_privilege_key((uc_privilege_t)p));
    uc_jw_end_array(w);
    return uc_jw_text(w);
}

uc_visibility_t *uc_api_visibility(uc_call_t *call, int all, int all_full,
                                   uc_privset_t visible, uc_privset_t full)
{
    uc_visibility_t *vis = apr_pcalloc(call->pool, sizeof(*vis));

    vis->all = all || call->who->admin;
    vis->all_full = all_full || call->who->admin;
    vis->principals = call->who->json;
    vis->visible = uc_api_privilege_keys(call, visible);
    vis->full = uc_api_privilege_keys(call, full);
    return vis;
}

void uc_api_write_tail(uc_call_t *call, uc_jw_t *out,
                       const uc_securable_t *sec, const char *id_key,
                       int omit_users)
{
    uc_api_write_stamps(out, sec, omit_users);
    if (id_key)
        uc_jw_field_string(out, id_key, sec->id);
    uc_jw_field_string(out, "metastore_id",
                       uc_store_metastore_id(call->store));
    uc_jw_key(out, "browse_only");
    uc_jw_bool(out, sec->browse_only);
    uc_jw_end_object(out);
}

const uc_nested_visibility_t *uc_api_nested_visibility(
    uc_call_t *call, uc_privset_t object_privs)
{
    uc_nested_visibility_t *vis = apr_palloc(call->pool, sizeof(*vis));
    uc_privset_t all = UC_PRIV(UC_PRIV_ALL_PRIVILEGES);

    vis->all = call->who->admin;
    vis->principals = call->who->json;
    vis->catalog_privs = uc_api_privilege_keys(
        call, UC_PRIV(UC_PRIV_USE_CATALOG) | all);
    vis->schema_privs = uc_api_privilege_keys(
        call, UC_PRIV(UC_PRIV_USE_SCHEMA) | all);
    vis->object_privs = uc_api_privilege_keys(call, object_privs | all);
    return vis;
}

uc_error_t *uc_api_nested_after(uc_call_t *call, const uc_page_t *page,
                                uc_nested_key_t **out)
{
    const char *names[3];

    *out = NULL;
    if (!page->after)
        return NULL;
    if (uc_validate_full_name(call->pool, "page_token", page->after, 3,
                              names))
        return uc_error_invalid(call->pool, "Invalid page_token: pass the "
                                "next_page_token of the previous page "
                                "unchanged.");
    *out = apr_palloc(call->pool, sizeof(**out));
    (*out)->catalog = names[0];
    (*out)->schema = names[1];
    (*out)->name = names[2];
    return NULL;
}

const char *uc_api_nested_token(uc_call_t *call,
                                const apr_array_header_t *rows, int more)
{
    const uc_nested_row_t *last;

    if (!more || !rows->nelts)
        return NULL;
    last = &APR_ARRAY_IDX(rows, rows->nelts - 1, uc_nested_row_t);
    return uc_page_token(call->pool,
                         apr_pstrcat(call->pool, last->catalog_name, ".",
                                     last->schema_name, ".", last->sec->name,
                                     NULL));
}

uc_error_t *uc_api_like_pattern(uc_call_t *call, const char *field,
                                const char **out)
{
    const char *given = apr_table_get(call->query, field);
    char *p;

    if (!given || !*given) {
        *out = "%";
        return NULL;
    }
    if (strlen(given) > UC_API_PATTERN_MAX)
        return uc_error_invalid(call->pool, "Query parameter '%s' is longer "
                                "than %d bytes.", field, UC_API_PATTERN_MAX);
    *out = p = apr_pstrdup(call->pool, given);
    for (; *p; p++)
        *p = (char)apr_tolower(*p);
    return NULL;
}

const char *uc_api_nested_full_name(uc_call_t *call,
                                    const uc_nested_row_t *row)
{
    return apr_pstrcat(call->pool, row->catalog_name, ".", row->schema_name,
                       ".", row->sec->name, NULL);
}

uc_error_t *uc_api_list_across(uc_call_t *call, uc_jw_t *out,
                               const uc_api_family_t *f,
                               const char *catalog_id,
                               const char *schema_pattern,
                               const char *name_pattern,
                               uc_api_nested_render_fn render)
{
    uc_nested_key_t *after;
    uc_page_t page;
    apr_array_header_t *rows;
    int more, i;
    uc_error_t *err;

    if ((err = uc_api_page(call, &page)) ||
        (err = uc_api_nested_after(call, &page, &after)) ||
        (err = uc_securables_across_schemas(
             call->store, call->pool, uc_securable_type_name(f->type),
             catalog_id, schema_pattern, name_pattern,
             uc_api_nested_visibility(call, f->read), after, page.limit,
             &rows, &more)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, f->plural);
    uc_jw_begin_array(out);
    for (i = 0; i < rows->nelts; i++)
        render(call, out, &APR_ARRAY_IDX(rows, i, uc_nested_row_t));
    uc_jw_end_array(out);
    uc_jw_field_string(out, "next_page_token",
                       uc_api_nested_token(call, rows, more));
    uc_jw_end_object(out);
    return NULL;
}

const uc_api_parents_t *uc_api_parents_of(uc_call_t *call)
{
    uc_api_parents_t *p = apr_palloc(call->pool, sizeof(*p));

    p->catalog = call->chain.sec[UC_LEVEL_CATALOG]->name;
    p->schema = call->chain.sec[UC_LEVEL_SCHEMA]->name;
    return p;
}

const char *uc_api_full_name(uc_call_t *call, const uc_api_parents_t *parents,
                             const char *name)
{
    if (!parents->catalog)
        return name;
    if (!parents->schema)
        return apr_pstrcat(call->pool, parents->catalog, ".", name, NULL);
    return apr_pstrcat(call->pool, parents->catalog, ".", parents->schema,
                       ".", name, NULL);
}

const char *uc_api_chain_name(uc_call_t *call, const uc_chain_t *chain,
                              int level)
{
    const char *name = chain->sec[UC_LEVEL_CATALOG]->name;
    int i;

    for (i = UC_LEVEL_CATALOG + 1; i <= level; i++)
        name = apr_pstrcat(call->pool, name, ".", chain->sec[i]->name, NULL);
    return name;
}

void uc_api_write_names(uc_call_t *call, uc_jw_t *out,
                        const uc_api_parents_t *parents,
                        const uc_securable_t *sec)
{
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "catalog_name", parents->catalog);
    uc_jw_field_string(out, "schema_name", parents->schema);
    uc_jw_field_string(out, "full_name",
                       uc_api_full_name(call, parents, sec->name));
}

void uc_api_write_stamps(uc_jw_t *out, const uc_securable_t *sec,
                         int omit_users)
{
    if (!omit_users)
        uc_jw_field_string(out, "owner", sec->owner);
    uc_jw_field_int_text(out, "created_at", sec->created_at);
    if (!omit_users)
        uc_jw_field_string(out, "created_by", sec->created_by);
    uc_jw_field_int_text(out, "updated_at", sec->updated_at);
    if (!omit_users)
        uc_jw_field_string(out, "updated_by", sec->updated_by);
}

json_t *uc_api_details(uc_call_t *call, const uc_securable_t *sec)
{
    return uc_json_own(call->pool, uc_json_stored_object(sec->details));
}

void uc_api_set_details(uc_call_t *call, uc_securable_t *sec,
                        json_t *details)
{
    sec->details = uc_json_dump(call->pool, details);
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

uc_error_t *uc_api_read_common_fields(uc_call_t *call, uc_securable_t *sec,
                                      unsigned fields, int *changed)
{
    const char *comment = NULL, *owner = NULL;
    json_t *properties = NULL;
    uc_error_t *err;

    if (((fields & UC_FIELD_COMMENT) &&
         ((err = uc_json_string_field(call->pool, call->body, "comment", 0,
                                      &comment)) ||
          (err = uc_validate_text(call->pool, "comment", comment,
                                  UC_COMMENT_MAX)))) ||
        ((fields & UC_FIELD_PROPERTIES) &&
         (err = uc_json_string_map_field(call->pool, call->body,
                                         "properties", &properties))) ||
        ((fields & UC_FIELD_OWNER) &&
         ((err = uc_json_string_field(call->pool, call->body, "owner", 0,
                                      &owner)) ||
          (owner && (err = uc_principal_normalize(call->pool, "owner", owner,
                                                  &owner))))))
        return err;
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

