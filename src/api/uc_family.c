/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_grants.h"
#include "../vend/uc_storage.h"

static const char *kind_of(const uc_api_family_t *f)
{
    return uc_securable_type_name(f->type);
}

/* Catalogs hang under the metastore, whose row no list rule resolves. */
static const char *parent_id(uc_call_t *call, const uc_api_family_t *f)
{
    return f->level == UC_LEVEL_CATALOG
           ? uc_store_metastore_id(call->store)
           : call->chain.sec[f->level - 1]->id;
}

/* The names above the family's objects: none for catalogs, the catalog
 * for schemas, catalog and schema for the objects of a schema. */
static const uc_api_parents_t *parents_in(uc_call_t *call,
                                          const uc_api_family_t *f)
{
    uc_api_parents_t *p = apr_pcalloc(call->pool, sizeof(*p));

    if (f->level > UC_LEVEL_CATALOG)
        p->catalog = call->chain.sec[UC_LEVEL_CATALOG]->name;
    if (f->level > UC_LEVEL_SCHEMA)
        p->schema = call->chain.sec[UC_LEVEL_SCHEMA]->name;
    return p;
}

static uc_error_t *context_of(uc_call_t *call, const uc_api_family_t *f,
                              int listing, const void **out)
{
    if (f->context)
        return f->context(call, listing, out);
    *out = f->page_context ? NULL : parents_in(call, f);
    return NULL;
}

uc_error_t *uc_family_name_taken(uc_call_t *call, const uc_api_family_t *f,
                                 const char *name)
{
    return uc_error_make(call->pool, f->exists,
                         "%s already exists: %s", f->label,
                         uc_api_full_name(call, parents_in(call, f), name));
}

/* After a write of `sec`: the family's error for a taken name, the write's
 * own error, or the object as it now is. */
static uc_error_t *written(uc_call_t *call, uc_jw_t *out,
                           const uc_api_family_t *f, uc_securable_t *sec,
                           const void *context, uc_error_t *err)
{
    if (uc_store_is_duplicate(err))
        return uc_family_name_taken(call, f, sec->name);
    if (err)
        return err;
    f->render(call, out, sec, context);
    return NULL;
}

/* The body's name or new_name (optional when not `required`: *name is
 * NULL without one), within the family's length. */
static uc_error_t *read_name(uc_call_t *call, const uc_api_family_t *f,
                             const char *field, int required,
                             const char **name)
{
    apr_size_t max = f->max_name ? f->max_name : UC_NAME_MAX;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, field, required,
                                    name)) || !*name ||
        (err = (f->check_name ? f->check_name : uc_validate_name)(
             call->pool, field, *name, name)))
        return err;
    if (strlen(*name) > max)
        return uc_error_invalid(call->pool, "Invalid %s '%s': at most %lu "
                                "characters.", field, *name,
                                (unsigned long)max);
    return NULL;
}

/* A container's storage_root, normalised; NULL when the body names none. */
static uc_error_t *read_storage_root(uc_call_t *call, const char **root)
{
    uc_error_t *err = uc_json_string_field(call->pool, call->body,
                                           "storage_root", 0, root);

    if (err || !*root)
        return err;
    return uc_storage_managed_root(call, "storage_root", *root, root);
}

/* A new object of the family under the call's parent from a create body:
 * its name, the family's common fields and, for a container, its managed
 * storage. */
static uc_error_t *new_object(uc_call_t *call, const uc_api_family_t *f,
                              uc_securable_t **out)
{
    const char *name = NULL, *root = NULL;
    int changed;
    uc_error_t *err;

    if ((err = read_name(call, f, f->name_field ? f->name_field : "name", 1,
                         &name)) ||
        (f->storage_segment && (err = read_storage_root(call, &root))) ||
        (err = uc_api_new_securable(call, kind_of(f), parent_id(call, f),
                                    name, out)) ||
        (err = uc_api_read_common_fields(call, *out, f->create_fields,
                                         &changed)))
        return err;
    if (f->storage_segment) {
        (*out)->storage_root = root;
        (*out)->storage_location = uc_api_managed_location(
            call, root, f->storage_segment, (*out)->id);
    }
    return NULL;
}

/* The creator owns what it creates unless the create body named another
 * owner: that is a transfer from the creator, audited as one
 * (SET_OWNER). */
static uc_error_t *insert_securable(uc_call_t *call,
                                    const uc_securable_t *sec)
{
    uc_audit_t entry = {
        sec->created_at, call->principal, "SET_OWNER", sec->kind, sec->id,
        sec->name, sec->owner, NULL
    };
    uc_error_t *err = uc_securable_insert(call->store, sec);

    if (err || strcmp(sec->owner, call->principal) == 0)
        return err;
    return uc_audit_add(call->store, &entry);
}

/* A change of an audited family's object: who, what, when. */
static uc_error_t *audit_change(uc_call_t *call, const uc_api_family_t *f,
                                const uc_securable_t *sec,
                                const char *action)
{
    uc_audit_t entry = {
        uc_epoch_ms_text(call->pool, call->now), call->principal, action,
        kind_of(f), sec->id, sec->name, sec->owner, NULL
    };

    return f->audited ? uc_audit_add(call->store, &entry) : NULL;
}

uc_error_t *uc_family_create(uc_call_t *call, uc_jw_t *out)
{
    const uc_api_family_t *f = call->family;
    const void *context;
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = context_of(call, f, 0, &context)) ||
        (err = new_object(call, f, &sec)) ||
        (f->prepare_create && (err = f->prepare_create(call, sec))))
        return err;
    call->audit_type = kind_of(f);
    call->audit_name = call->chain.n > 1
        ? apr_pstrcat(call->pool, uc_api_chain_name(call, &call->chain,
                                                    call->chain.n - 1),
                      ".", sec->name, NULL)
        : sec->name;
    err = insert_securable(call, sec);
    if (!err)
        err = audit_change(call, f, sec, "CREATE");
    if (!err && f->created)
        err = f->created(call, sec);
    return written(call, out, f, sec, context, err);
}

/* Renders a row of a list across the metastore as the family renders it
 * in its schema. */
static void render_nested(uc_call_t *call, uc_jw_t *out,
                          const uc_nested_row_t *row)
{
    uc_api_parents_t parents = { row->catalog_name, row->schema_name };

    call->family->render(call, out, row->sec, &parents);
}

/* Objects the caller owns or holds one of the family's read privileges on
 * (in force there or above); all of them when one is in force on the
 * parent, which opens every object in it; with include_browse and BROWSE
 * on the catalog, the others too, as metadata only. */
static uc_visibility_t *visible_children(uc_call_t *call,
                                         const uc_api_family_t *f,
                                         int include_browse)
{
    const uc_access_t *a = &call->access;
    uc_privset_t seen = f->read | UC_PRIV(UC_PRIV_ALL_PRIVILEGES);
    int all_full = uc_access_has(a, f->level - 1, f->read);

    return uc_api_visibility(call,
                             all_full || call->browse_only ||
                             (include_browse &&
                              uc_access_has(a, UC_LEVEL_CATALOG,
                                            UC_PRIV(UC_PRIV_BROWSE))),
                             all_full, seen, seen);
}

/* Renders a row of a list when the family's filter keeps it: the page
 * token still follows the last row read. */
static void render_shown(uc_call_t *call, uc_jw_t *out,
                         const uc_securable_t *sec, const void *context)
{
    if (call->family->shown(call, sec))
        call->family->render(call, out, sec, context);
}

uc_error_t *uc_family_list(uc_call_t *call, uc_jw_t *out)
{
    const uc_api_family_t *f = call->family;
    const void *context;
    uc_page_t page;
    apr_array_header_t *rows;
    int more, include_browse, i;
    uc_error_t *err;

    if (f->level == UC_LEVEL_OBJECT &&
        call->chain.n == UC_LEVEL_METASTORE + 1)
        return uc_api_list_across(call, out, f, NULL, "%", "%",
                                  render_nested);
    if ((err = context_of(call, f, 1, &context)) ||
        (err = uc_api_query_flag(call, "include_browse", &include_browse)) ||
        (err = uc_api_page(call, &page)) ||
        (err = uc_securable_page(
             call->store, call->pool, parent_id(call, f), kind_of(f),
             f->visibility ? f->visibility(call, include_browse)
                           : visible_children(call, f, include_browse),
             &page, &rows, &more)))
        return err;
    /* Let through on BROWSE alone: nothing inside can be used. */
    for (i = 0; call->browse_only && i < rows->nelts; i++)
        APR_ARRAY_IDX(rows, i, uc_securable_t *)->browse_only = 1;
    if (f->page_context && (err = f->page_context(call, rows, &context)))
        return err;
    uc_api_write_page(call, out, f->plural, rows, more,
                      f->shown ? render_shown : f->render, context);
    return NULL;
}

uc_error_t *uc_family_get(uc_call_t *call, uc_jw_t *out)
{
    const uc_api_family_t *f = call->family;
    uc_securable_t *sec = UC_TARGET_OF(call);
    const void *context;
    uc_error_t *err = context_of(call, f, 0, &context);

    if (err)
        return err;
    sec->browse_only = call->browse_only;
    f->render(call, out, sec, context);
    return NULL;
}

/* Only owners and admins may transfer ownership; the transfer is
 * audited. */
static uc_error_t *transfer_owner(uc_call_t *call, const uc_securable_t *sec)
{
    int level = call->chain.n - 1;
    uc_audit_t entry = {
        sec->updated_at, call->principal, "SET_OWNER",
        uc_securable_type_name(call->chain.type[level]), sec->id,
        sec->name, sec->owner, NULL
    };

    if (!uc_access_owns(&call->access, level))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED,
                             "Only the owner or a metastore admin can "
                             "transfer ownership.");
    return uc_audit_add(call->store, &entry);
}

/* Applies the family's update fields (new_name the only one that renames)
 * to the call's target and stores it with a fresh update stamp when
 * anything changed, `changed` included (the family's own fields). A name
 * taken by a sibling comes back as an error for which
 * uc_store_is_duplicate() is true. */
static uc_error_t *update_securable(uc_call_t *call,
                                    const uc_api_family_t *f, int changed)
{
    uc_securable_t *sec = UC_TARGET_OF(call);
    const char *new_name = NULL, *old_owner = sec->owner;
    int common;
    uc_error_t *err;

    if ((err = uc_api_read_common_fields(call, sec, f->update_fields,
                                         &common)) ||
        ((f->update_fields & UC_FIELD_NEW_NAME) &&
         (err = read_name(call, f, "new_name", 0, &new_name))))
        return err;
    changed |= common;
    if (new_name && strcmp(new_name, sec->name) != 0) {
        sec->name = new_name;
        changed = 1;
    }
    if (!changed)
        return NULL;
    sec->updated_at = uc_epoch_ms_text(call->pool, call->now);
    sec->updated_by = call->principal;
    if (sec->owner != old_owner &&
        (!old_owner || strcmp(sec->owner, old_owner) != 0) &&
        (err = transfer_owner(call, sec)))
        return err;
    if ((err = uc_securable_update(call->store, sec)))
        return err;
    return audit_change(call, f, sec, "UPDATE");
}

uc_error_t *uc_family_update(uc_call_t *call, uc_jw_t *out)
{
    const uc_api_family_t *f = call->family;
    uc_securable_t *sec = UC_TARGET_OF(call);
    const void *context;
    int changed = 0;
    uc_error_t *err;

    if ((err = context_of(call, f, 0, &context)) ||
        (f->prepare_update &&
         (err = f->prepare_update(call, sec, &changed))))
        return err;
    return written(call, out, f, sec, context,
                   update_securable(call, f, changed));
}

/* Without force=true, a container with children stays. */
static uc_error_t *check_empty(uc_call_t *call, const uc_api_family_t *f)
{
    const uc_securable_t *sec = UC_TARGET_OF(call);
    int force = 0, has_children = 0;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "force", &force)) || force ||
        (err = uc_securable_has_children(call->store, sec->id,
                                         &has_children)))
        return err;
    if (has_children)
        return uc_error_make(call->pool, f->not_empty,
                             "%s '%s' is not empty; use force=true to delete "
                             "it with everything it contains.", f->label,
                             uc_api_full_name(call, parents_in(call, f),
                                              sec->name));
    return NULL;
}

/* The target goes with its subtree and its grants. */
uc_error_t *uc_family_delete(uc_call_t *call, uc_jw_t *out)
{
    const uc_api_family_t *f = call->family;
    uc_error_t *err;

    if ((f->storage_segment && (err = check_empty(call, f))) ||
        (f->check_delete && (err = f->check_delete(call))) ||
        (err = uc_securable_delete(call->store, UC_TARGET_OF(call)->id)) ||
        (err = audit_change(call, f, UC_TARGET_OF(call), "DELETE")))
        return err;
    if (f->answers_deleted)
        f->render(call, out, UC_TARGET_OF(call), NULL);
    else
        uc_jw_raw(out, "{}");
    return NULL;
}

/* `secret` then `omit`, as one NULL-ended list. */
static const char *const *both(uc_call_t *call, const char *const *secret,
                               const char *const *omit)
{
    apr_array_header_t *all;

    if (!secret || !*secret)
        return omit;
    if (!omit || !*omit)
        return secret;
    all = apr_array_make(call->pool, 8, sizeof(const char *));
    for (; *secret; secret++)
        APR_ARRAY_PUSH(all, const char *) = *secret;
    for (; *omit; omit++)
        APR_ARRAY_PUSH(all, const char *) = *omit;
    APR_ARRAY_PUSH(all, const char *) = NULL;
    return (const char *const *)all->elts;
}

void uc_family_write_details(uc_call_t *call, uc_jw_t *out,
                             const uc_securable_t *sec,
                             const char *const *omit)
{
    if (!call->family)
        return;
    uc_jw_members(out, sec->details,
                  both(call, call->family->secret_details, omit));
}
