/* SPDX-License-Identifier: Apache-2.0 */
/* Grants: GET/PATCH /permissions/{type}/{name} in Unity Catalog's shape, and
 * GET /effective-permissions/{type}/{name} with the source of every
 * inherited privilege. Callers who may manage the object see every
 * principal; others see only their own grants (and their groups'). */
#include "uc_api.h"

#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_grants.h"

#define MAX_CHANGES 100

static int may_manage(const uc_call_t *call)
{
    return uc_access_has(&call->access, call->chain.n - 1,
                         UC_PRIV(UC_PRIV_MANAGE));
}

/* The principal ?principal= narrows an answer to, NULL for all. */
static uc_error_t *narrowed_to(uc_call_t *call, const char **only)
{
    const char *given = apr_table_get(call->query, "principal");

    *only = NULL;
    return given && *given
           ? uc_principal_normalize(call->pool, "principal", given, only)
           : NULL;
}

/* Whose grants the caller is shown: everyone's, or its own, narrowed to
 * `only` when given. */
static int shown(const uc_call_t *call, const char *only,
                 const char *principal)
{
    if (only && strcmp(only, principal) != 0)
        return 0;
    return may_manage(call) || uc_principal_is(call->who, principal);
}

/* principal → privilege set, in principal order as the rows come. */
typedef struct assignment {
    const char *principal;
    uc_privset_t privileges;
} assignment_t;

static void write_assignments(uc_jw_t *out, apr_pool_t *pool,
                              const apr_array_header_t *list)
{
    int i, j;

    uc_jw_begin_object(out);
    uc_jw_key(out, "privilege_assignments");
    uc_jw_begin_array(out);
    for (i = 0; i < list->nelts; i++) {
        const assignment_t *a = &APR_ARRAY_IDX(list, i, assignment_t);
        apr_array_header_t *names;

        if (!a->privileges)
            continue;
        names = uc_privileges_names(pool, a->privileges);
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "principal", a->principal);
        uc_jw_key(out, "privileges");
        uc_jw_begin_array(out);
        for (j = 0; j < names->nelts; j++)
            uc_jw_string(out, APR_ARRAY_IDX(names, j, const char *));
        uc_jw_end_array(out);
        uc_jw_end_object(out);
    }
    uc_jw_end_array(out);
    uc_jw_end_object(out);
}

/* The direct grants on the target shown to the caller (of `only`, when
 * given), grouped by principal. */
static uc_error_t *load_assignments(uc_call_t *call, const char *only,
                                    apr_array_header_t **out)
{
    apr_array_header_t *grants, *list;
    assignment_t *last = NULL;
    int i;
    uc_error_t *err = uc_grants_on(call->store, call->pool,
                                   UC_TARGET_OF(call)->id, &grants);
    if (err)
        return err;
    list = apr_array_make(call->pool, grants->nelts + 1,
                          sizeof(assignment_t));
    for (i = 0; i < grants->nelts; i++) {
        const uc_grant_t *g = &APR_ARRAY_IDX(grants, i, uc_grant_t);
        int p = uc_privilege_parse(g->privilege);

        if (p < 0 || !shown(call, only, g->principal))
            continue;
        if (!last || strcmp(last->principal, g->principal) != 0) {
            last = apr_array_push(list);
            last->principal = g->principal;
            last->privileges = 0;
        }
        last->privileges |= UC_PRIV(p);
    }
    *out = list;
    return NULL;
}

static uc_error_t *get_permissions(uc_call_t *call, uc_jw_t *out)
{
    apr_array_header_t *list;
    const char *only;
    uc_error_t *err;

    if ((err = narrowed_to(call, &only)) ||
        (err = load_assignments(call, only, &list)))
        return err;
    write_assignments(out, call->pool, list);
    return NULL;
}

/* One entry of "changes": the principal and the privilege sets. */
typedef struct change {
    const char *principal;
    uc_privset_t add;
    uc_privset_t remove;
} change_t;

static uc_error_t *read_privileges(uc_call_t *call, json_t *entry,
                                   const char *field, uc_privset_t *out)
{
    uc_securable_type_t type = call->chain.type[call->chain.n - 1];
    json_t *list = json_object_get(entry, field), *item;
    size_t i;

    *out = 0;
    if (!list || json_is_null(list))
        return NULL;
    if (!json_is_array(list))
        return uc_error_invalid(call->pool, "Field '%s' must be an array of "
                                "privilege names.", field);
    json_array_foreach(list, i, item) {
        int p = json_is_string(item) ? uc_privilege_parse(
                                           json_string_value(item)) : -1;
        if (p < 0)
            return uc_error_invalid(call->pool, "Field '%s': unknown "
                                    "privilege %s.", field,
                                    json_is_string(item)
                                    ? json_string_value(item) : "(not text)");
        if (!(uc_privileges_grantable(type) & UC_PRIV(p)))
            return uc_error_invalid(call->pool, "Privilege %s cannot be "
                                    "granted on a %s.",
                                    uc_privilege_name((uc_privilege_t)p),
                                    uc_securable_type_name(type));
        *out |= UC_PRIV(p);
    }
    return NULL;
}

static uc_error_t *read_changes(uc_call_t *call, apr_array_header_t **out)
{
    json_t *changes = json_object_get(call->body, "changes"), *entry;
    apr_array_header_t *list;
    size_t i;
    uc_error_t *err;

    if (!changes || !json_is_array(changes))
        return uc_error_invalid(call->pool, "Field 'changes' must be an "
                                "array.");
    if (json_array_size(changes) > MAX_CHANGES)
        return uc_error_invalid(call->pool, "At most %d changes per request.",
                                MAX_CHANGES);
    list = apr_array_make(call->pool, (int)json_array_size(changes) + 1,
                          sizeof(change_t));
    json_array_foreach(changes, i, entry) {
        change_t *c = apr_array_push(list);

        if (!json_is_object(entry))
            return uc_error_invalid(call->pool, "Each change must be an "
                                    "object.");
        if ((err = uc_json_string_field(call->pool, entry, "principal", 1,
                                        &c->principal)) ||
            (err = uc_principal_normalize(call->pool, "principal",
                                          c->principal, &c->principal)) ||
            (err = read_privileges(call, entry, "add", &c->add)) ||
            (err = read_privileges(call, entry, "remove", &c->remove)))
            return err;
    }
    *out = list;
    return NULL;
}

static uc_error_t *apply_change(uc_call_t *call, const change_t *c,
                                const char *now)
{
    const uc_securable_t *sec = UC_TARGET_OF(call);
    uc_audit_t entry = {
        now, call->principal, NULL,
        uc_securable_type_name(call->chain.type[call->chain.n - 1]),
        sec->id, sec->name, c->principal, NULL
    };
    int p, changed;
    uc_error_t *err;

    for (p = 0; p < UC_PRIV_COUNT; p++) {
        if (c->add & UC_PRIV(p))
            err = uc_grant_add(call->store, sec->id, c->principal,
                               uc_privilege_key((uc_privilege_t)p),
                               call->principal, now, &changed);
        else if (c->remove & UC_PRIV(p))
            err = uc_grant_remove(call->store, sec->id, c->principal,
                                  uc_privilege_key((uc_privilege_t)p),
                                  &changed);
        else
            continue;
        if (err)
            return err;
        if (changed) {
            entry.action = c->add & UC_PRIV(p) ? "GRANT" : "REVOKE";
            entry.privilege = uc_privilege_key((uc_privilege_t)p);
            if ((err = uc_audit_add(call->store, &entry)))
                return err;
        }
    }
    return NULL;
}

static uc_error_t *update_permissions(uc_call_t *call, uc_jw_t *out)
{
    const char *now = uc_epoch_ms_text(call->pool, call->now);
    apr_array_header_t *changes = NULL, *list, *touched;
    int i, j;
    uc_error_t *err;

    if ((err = read_changes(call, &changes)))
        return err;
    for (i = 0; i < changes->nelts; i++) {
        const change_t *c = &APR_ARRAY_IDX(changes, i, change_t);
        /* MANAGE lets a caller manage others' access, not raise its own;
         * owners and admins already hold everything. */
        if (!uc_access_owns(&call->access, call->chain.n - 1) &&
            uc_principal_is(call->who, c->principal))
            return uc_error_make(call->pool, UC_E_PERMISSION_DENIED,
                                 "Access denied: only the owner or a "
                                 "metastore admin can change the grants of "
                                 "'%s', the caller.", c->principal);
        if (c->add & c->remove)
            return uc_error_invalid(call->pool, "A privilege is both added "
                                    "and removed for '%s'.", c->principal);
        if ((err = apply_change(call, c, now)))
            return err;
    }
    if ((err = load_assignments(call, NULL, &list)))
        return err;
    /* The answer covers the principals this request touched. */
    touched = apr_array_make(call->pool, list->nelts + 1,
                             sizeof(assignment_t));
    for (i = 0; i < list->nelts; i++) {
        const assignment_t *a = &APR_ARRAY_IDX(list, i, assignment_t);
        for (j = 0; j < changes->nelts; j++)
            if (strcmp(APR_ARRAY_IDX(changes, j, change_t).principal,
                       a->principal) == 0) {
                *(assignment_t *)apr_array_push(touched) = *a;
                break;
            }
    }
    write_assignments(out, call->pool, touched);
    return NULL;
}

/* GET /effective-permissions: per principal, every privilege in force on
 * the target with the securable it comes from. */
static uc_error_t *get_effective(uc_call_t *call, uc_jw_t *out)
{
    const uc_chain_t *chain = &call->chain;
    uc_securable_type_t type = chain->type[chain->n - 1];
    json_t *ids = uc_json_own(call->pool, json_array());
    apr_array_header_t *grants;
    const char *current = NULL, *only;
    int i, k;
    uc_error_t *err;

    for (i = 0; i < chain->n; i++)
        json_array_append_new(ids, json_string(chain->sec[i]->id));
    if ((err = narrowed_to(call, &only)) ||
        (err = uc_grants_on_any(call->store, call->pool,
                                uc_json_dump(call->pool, ids), &grants)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "privilege_assignments");
    uc_jw_begin_array(out);
    for (i = 0; i < grants->nelts; i++) {
        const uc_grant_t *g = &APR_ARRAY_IDX(grants, i, uc_grant_t);
        int p = uc_privilege_parse(g->privilege), level = -1;
        uc_privset_t in_force;

        for (k = 0; k < chain->n; k++)
            if (strcmp(chain->sec[k]->id, g->securable_id) == 0)
                level = k;
        if (p < 0 || level < 0 || !shown(call, only, g->principal))
            continue;
        in_force = uc_privileges_expand(UC_PRIV(p), type) &
                   uc_privileges_grantable(type);
        if (!in_force)
            continue;
        if (!current || strcmp(current, g->principal) != 0) {
            if (current) {
                uc_jw_end_array(out);
                uc_jw_end_object(out);
            }
            current = g->principal;
            uc_jw_begin_object(out);
            uc_jw_field_string(out, "principal", current);
            uc_jw_key(out, "privileges");
            uc_jw_begin_array(out);
        }
        for (k = 0; k < UC_PRIV_COUNT; k++) {
            if (!(in_force & UC_PRIV(k)))
                continue;
            uc_jw_begin_object(out);
            uc_jw_field_string(out, "privilege",
                               uc_privilege_name((uc_privilege_t)k));
            if (level < chain->n - 1) {
                uc_jw_field_string(out, "inherited_from_type",
                                   uc_securable_type_name(chain->type[level]));
                uc_jw_field_string(out, "inherited_from_name",
                                   level == UC_LEVEL_SCHEMA
                                   ? apr_pstrcat(call->pool,
                                                 chain->sec[UC_LEVEL_CATALOG]
                                                     ->name, ".",
                                                 chain->sec[level]->name,
                                                 NULL)
                                   : chain->sec[level]->name);
            }
            uc_jw_end_object(out);
        }
    }
    if (current) {
        uc_jw_end_array(out);
        uc_jw_end_object(out);
    }
    uc_jw_end_array(out);
    uc_jw_end_object(out);
    return NULL;
}

#define P UC_PRIV
/* Reading grants needs sight of the object (what is shown depends on the
 * caller); changing them needs MANAGE, ownership or admin. */
/* Inside a catalog, USE CATALOG comes first, as for every other route. */
static const uc_rule_t read_rule = {
    UC_TARGET_SECURABLE,
    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
      { UC_LEVEL_TARGET, UC_ANY_PRIVILEGE } } };
static const uc_rule_t manage_rule = {
    UC_TARGET_SECURABLE,
    { { UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG) },
      { UC_LEVEL_TARGET, P(UC_PRIV_MANAGE) } } };

const uc_route_t uc_permission_routes[] = {
    { UC_GET,   "/permissions/{securable_type}/{full_name}",
      get_permissions, 0, &read_rule },
    { UC_PATCH, "/permissions/{securable_type}/{full_name}",
      update_permissions, UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule,
      .audit = "UPDATE_PERMISSIONS" },
    { UC_GET,   "/effective-permissions/{securable_type}/{full_name}",
      get_effective, 0, &read_rule },
    { 0, NULL, NULL, 0, NULL }
};
