/* SPDX-License-Identifier: Apache-2.0 */
/* ABAC policies (/policies/{on_securable_type}/{on_securable_fullname}):
 * row-filter and column-mask policies defined on a catalog, schema or
 * table, named uniquely there. The service stores them and answers them;
 * the query engine enforces them (when_condition is kept opaque). A
 * policy's function must be a function of the securable's catalog that
 * the author may EXECUTE. Delta Sharing serves files and cannot filter
 * rows or mask columns, so no policy may govern shared data (and no data a
 * policy governs may be shared, uc_shares.c). */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_page.h"
#include "../core/uc_validate.h"
#include "../store/uc_abac_policies.h"
#include "../store/uc_grants.h"

#define P UC_PRIV

#define POLICIES_PER_SECURABLE_MAX 100
#define PRINCIPALS_MAX 100
#define COLUMNS_MAX 100
#define ARGUMENTS_MAX 100
#define EXPRESSION_MAX 4096
/* The stored document of one policy, whole. */
#define DOCUMENT_MAX 65536

static const char *const policy_types[] = { "POLICY_TYPE_ROW_FILTER",
                                            "POLICY_TYPE_COLUMN_MASK",
                                            NULL };

/* What an update may change: all but the name and the securable. */
static const char *const updatable_fields[] = {
    "policy_type", "comment", "to_principals", "except_principals",
    "when_condition", "match_columns", "row_filter", "column_mask", NULL
};

static const char *const scope_types[] = { "catalogs", "schemas", "tables" };

/* The securable the policy at `depth` of the call's chain is defined
 * on: its type and full name. */
static void scope_at(uc_call_t *call, int depth, const char **type,
                     const char **name)
{
    *type = scope_types[depth];
    *name = uc_api_chain_name(call, &call->chain, UC_LEVEL_CATALOG + depth);
}

static int target_depth(const uc_call_t *call)
{
    return call->chain.n - 1 - UC_LEVEL_CATALOG;
}

static void render(uc_call_t *call, uc_jw_t *out, const uc_abac_policy_t *p)
{
    const char *type, *name;

    scope_at(call, p->depth, &type, &name);
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", p->name);
    uc_jw_field_string(out, "id", p->id);
    uc_jw_field_string(out, "on_securable_type", type);
    uc_jw_field_string(out, "on_securable_fullname", name);
    uc_jw_field_string(out, "policy_type", p->policy_type);
    uc_jw_members(out, p->document, NULL);
    if (p->comment)
        uc_jw_field_string(out, "comment", p->comment);
    uc_jw_field_int_text(out, "created_at", p->created_at);
    uc_jw_field_int_text(out, "updated_at", p->updated_at);
    uc_jw_end_object(out);
}

/* An array of principal names. */
static uc_error_t *read_principals(uc_call_t *call, json_t *in,
                                   const char *field, json_t *doc)
{
    json_t *names = NULL;
    size_t i;
    uc_error_t *err = uc_json_string_array_field(call->pool, in, field,
                                                 PRINCIPALS_MAX, UC_NAME_MAX,
                                                 &names);

    for (i = 0; !err && i < json_array_size(names); i++)
        err = uc_validate_principal_name(call->pool, field,
                                         json_string_value(
                                             json_array_get(names, i)));
    if (!err && names)
        json_object_set(doc, field, names);
    return err;
}

static uc_error_t *string_member(uc_call_t *call, json_t *obj,
                                 const char *field, int required,
                                 apr_size_t max, json_t *into)
{
    const char *value = NULL;
    uc_error_t *err = uc_json_string_field(call->pool, obj, field, required,
                                           &value);

    /* A required member names something; the others are free text. */
    if (!err && value)
        err = required ? uc_validate_label(call->pool, field, value, max)
                       : uc_validate_text(call->pool, field, value, max);
    if (!err && value)
        json_object_set_new(into, field, json_string(value));
    return err;
}

/* [{"alias", "condition"}, ...], aliases distinct. */
static uc_error_t *read_match_columns(uc_call_t *call, json_t *in,
                                      json_t *doc)
{
    json_t *given = json_object_get(in, "match_columns"), *list;
    size_t i, j;
    uc_error_t *err;

    if (!given || json_is_null(given))
        return NULL;
    if (!json_is_array(given) || json_array_size(given) > COLUMNS_MAX)
        return uc_error_invalid(call->pool, "Field 'match_columns' must be "
                                "an array of at most %d {\"alias\", "
                                "\"condition\"} objects.", COLUMNS_MAX);
    list = json_array();
    json_object_set_new(doc, "match_columns", list);
    for (i = 0; i < json_array_size(given); i++) {
        json_t *in_col = json_array_get(given, i), *col = json_object();
        json_array_append_new(list, col);
        if (!json_is_object(in_col))
            return uc_error_invalid(call->pool, "Field 'match_columns' must "
                                    "hold objects.");
        if ((err = string_member(call, in_col, "alias", 1, UC_NAME_MAX,
                                 col)) ||
            (err = string_member(call, in_col, "condition", 1,
                                 EXPRESSION_MAX, col)))
            return err;
        for (j = 0; j < i; j++)
            if (json_equal(json_object_get(json_array_get(list, j), "alias"),
                           json_object_get(col, "alias")))
                return uc_error_invalid(call->pool, "Alias '%s' of "
                                        "match_columns is bound twice.",
                                        json_string_value(json_object_get(
                                            col, "alias")));
    }
    return NULL;
}

static int has_alias(json_t *doc, json_t *alias)
{
    json_t *columns = json_object_get(doc, "match_columns");
    size_t i;

    for (i = 0; i < json_array_size(columns); i++)
        if (json_equal(json_object_get(json_array_get(columns, i), "alias"),
                       alias))
            return 1;
    return 0;
}

/* The caller may EXECUTE the function: USE CATALOG, USE SCHEMA and
 * EXECUTE in force, or ownership above it, or a metastore admin. */
static int may_execute(const uc_access_t *a)
{
    return uc_access_has(a, UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG)) &&
           uc_access_has(a, UC_LEVEL_SCHEMA, P(UC_PRIV_USE_SCHEMA)) &&
           uc_access_has(a, UC_LEVEL_OBJECT, P(UC_PRIV_EXECUTE));
}

/* The function `field` names: one of the securable's catalog the caller
 * may EXECUTE. One missing and one the caller may not know of are refused
 * alike, before anything else is said of it. */
static uc_error_t *policy_function(uc_call_t *call, const char *field,
                                   const char *name, uc_chain_t *chain)
{
    uc_access_t access;
    uc_error_t *err;

    if ((err = uc_authz_resolve_named(call, "function", name, UC_LOCK_SHARE,
                                      chain, &access)) ||
        (err = uc_authz_unseen(call, chain, &access)))
        return uc_error_is_missing(err)
             ? uc_error_invalid(call->pool, "Function '%s' of %s.function_"
                                "name does not exist.", name, field)
             : err;
    if (strcmp(chain->sec[UC_LEVEL_CATALOG]->id,
               call->chain.sec[UC_LEVEL_CATALOG]->id) != 0)
        return uc_error_invalid(call->pool, "Function '%s' of %s.function_"
                                "name is not in catalog '%s': a policy "
                                "calls a function of its own catalog.", name,
                                field,
                                call->chain.sec[UC_LEVEL_CATALOG]->name);
    if (!may_execute(&access))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access "
                             "denied: EXECUTE needed on function '%s' to "
                             "use it in a policy.", name);
    return NULL;
}

/* {"function_name": "c.s.f", "using": [{"alias"} | {"constant"}, ...]}:
 * a function of the securable's catalog the caller may EXECUTE, called
 * with aliases that match_columns binds and constants. */
static uc_error_t *read_function(uc_call_t *call, json_t *in,
                                 const char *field, json_t *doc)
{
    json_t *given = json_object_get(in, field), *ref, *args, *using;
    const char *name = NULL;
    uc_chain_t chain;
    size_t i;
    uc_error_t *err;

    if (!json_is_object(given))
        return uc_error_invalid(call->pool, "Field '%s' must be an object "
                                "naming a function_name.", field);
    ref = json_object();
    json_object_set_new(doc, field, ref);
    if ((err = uc_json_string_field(call->pool, given, "function_name", 1,
                                    &name)) ||
        (err = policy_function(call, field, name, &chain)))
        return err;
    json_object_set_new(ref, "function_name", json_string(apr_pstrcat(
        call->pool, chain.sec[UC_LEVEL_CATALOG]->name, ".",
        chain.sec[UC_LEVEL_SCHEMA]->name, ".",
        chain.sec[UC_LEVEL_OBJECT]->name, NULL)));
    args = json_object_get(given, "using");
    if (!args || json_is_null(args))
        return NULL;
    if (!json_is_array(args) || json_array_size(args) > ARGUMENTS_MAX)
        return uc_error_invalid(call->pool, "Field '%s.using' must be an "
                                "array of at most %d arguments.", field,
                                ARGUMENTS_MAX);
    using = json_array();
    json_object_set_new(ref, "using", using);
    for (i = 0; i < json_array_size(args); i++) {
        json_t *in_arg = json_array_get(args, i), *arg = json_object();
        json_array_append_new(using, arg);
        if (!json_is_object(in_arg) ||
            !json_object_get(in_arg, "alias") ==
            !json_object_get(in_arg, "constant"))
            return uc_error_invalid(call->pool, "Each argument of "
                                    "'%s.using' is an alias or a "
                                    "constant.", field);
        if ((err = string_member(call, in_arg, "alias", 0, UC_NAME_MAX,
                                 arg)) ||
            (err = string_member(call, in_arg, "constant", 0,
                                 EXPRESSION_MAX, arg)))
            return err;
        if (json_object_get(arg, "alias") &&
            !has_alias(doc, json_object_get(arg, "alias")))
            return uc_error_invalid(call->pool, "Alias '%s' of '%s.using' "
                                    "is not bound by match_columns.",
                                    json_string_value(json_object_get(
                                        arg, "alias")), field);
    }
    return NULL;
}

/* A whole policy from `in` (a create body, or a stored policy with an
 * update laid over it) into `p`: its type, document and comment. */
static uc_error_t *read_policy(uc_call_t *call, json_t *in,
                               uc_abac_policy_t *p)
{
    json_t *doc = uc_json_own(call->pool, json_object());
    int row_filter;
    uc_error_t *err;

    if ((err = uc_json_enum_field(call->pool, in, "policy_type",
                                  policy_types, 1, &p->policy_type)))
        return err;
    row_filter = !strcmp(p->policy_type, "POLICY_TYPE_ROW_FILTER");
    if (json_object_get(in, row_filter ? "column_mask" : "row_filter") &&
        !json_is_null(json_object_get(in, row_filter ? "column_mask"
                                                     : "row_filter")))
        return uc_error_invalid(call->pool, "A %s policy takes %s, not %s.",
                                row_filter ? "row-filter" : "column-mask",
                                row_filter ? "row_filter" : "column_mask",
                                row_filter ? "column_mask" : "row_filter");
    if ((err = read_principals(call, in, "to_principals", doc)) ||
        (err = read_principals(call, in, "except_principals", doc)) ||
        (err = string_member(call, in, "when_condition", 0, EXPRESSION_MAX,
                             doc)) ||
        (err = read_match_columns(call, in, doc)) ||
        (err = read_function(call, in, row_filter ? "row_filter"
                                                  : "column_mask", doc)) ||
        (err = uc_json_string_field(call->pool, in, "comment", 0,
                                    &p->comment)) ||
        (err = uc_validate_text(call->pool, "comment", p->comment,
                                EXPRESSION_MAX)))
        return err;
    p->document = uc_json_dump(call->pool, doc);
    if (strlen(p->document) > DOCUMENT_MAX)
        return uc_error_invalid(call->pool, "The policy is larger than %d "
                                "bytes.", DOCUMENT_MAX);
    return NULL;
}

/* The body's on_securable_type and on_securable_fullname, when given,
 * name the path's securable. */
static uc_error_t *check_scope_fields(uc_call_t *call, json_t *in)
{
    const char *type = NULL, *name = NULL, *my_type, *my_name;
    uc_error_t *err;

    scope_at(call, target_depth(call), &my_type, &my_name);
    if ((err = uc_json_string_field(call->pool, in, "on_securable_type", 0,
                                    &type)) ||
        (err = uc_json_string_field(call->pool, in, "on_securable_fullname",
                                    0, &name)))
        return err;
    if ((type && strcasecmp(type, my_type) != 0) ||
        (name && strcasecmp(name, my_name) != 0))
        return uc_error_invalid(call->pool, "The body's on_securable_type "
                                "and on_securable_fullname must name the "
                                "path's %s %s.", my_type, my_name);
    return NULL;
}

/* No share may expose data the policy would govern. */
static uc_error_t *check_not_shared(uc_call_t *call)
{
    const uc_securable_t *sec = UC_TARGET_OF(call);
    const char *share;
    uc_error_t *err = uc_abac_shared_under(call->store, call->pool, sec->id,
                                           sec->parent_id, &share);

    if (err || !share)
        return err;
    return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION, "Share '%s' "
                         "exposes data of %s: Delta Sharing cannot filter "
                         "rows or mask columns, so no policy may govern "
                         "shared data; remove it from the share first.",
                         share, UC_TARGET_OF(call)->name);
}

static uc_error_t *taken(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, UC_E_ALREADY_EXISTS, "Policy '%s' "
                         "already exists on %s.", name,
                         UC_TARGET_OF(call)->name);
}

static uc_error_t *audit(uc_call_t *call, const char *action,
                         const uc_abac_policy_t *p)
{
    uc_audit_t entry = {
        uc_epoch_ms_text(call->pool, call->now), call->principal, action,
        uc_securable_type_name(call->chain.type[call->chain.n - 1]),
        UC_TARGET_OF(call)->id, UC_TARGET_OF(call)->name, p->name, NULL
    };
    return uc_audit_add(call->store, &entry);
}

static uc_error_t *create_policy(uc_call_t *call, uc_jw_t *out)
{
    uc_abac_policy_t *p = apr_pcalloc(call->pool, sizeof(*p));
    int count;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &p->name)) ||
        (err = uc_validate_name(call->pool, "name", p->name, &p->name)) ||
        (err = check_scope_fields(call, call->body)) ||
        (err = read_policy(call, call->body, p)) ||
        (err = check_not_shared(call)) ||
        (err = uc_abac_policy_count(call->store, call->pool,
                                    UC_TARGET_OF(call)->id, &count)))
        return err;
    if (count >= POLICIES_PER_SECURABLE_MAX)
        return uc_error_invalid(call->pool, "%s already has %d policies, "
                                "the most a securable may have.",
                                UC_TARGET_OF(call)->name, count);
    if (!(p->id = uc_uuid4(call->pool)))
        return uc_error_internal(call->pool);
    p->securable_id = UC_TARGET_OF(call)->id;
    p->created_at = p->updated_at = uc_epoch_ms_text(call->pool, call->now);
    p->created_by = p->updated_by = call->principal;
    p->depth = target_depth(call);
    err = uc_abac_policy_insert(call->store, p);
    if (uc_store_is_duplicate(err))
        return taken(call, p->name);
    if (err || (err = audit(call, "CREATE_POLICY", p)))
        return err;
    render(call, out, p);
    return NULL;
}

/* The policy the path names on the call's securable; a 404 when none. */
static uc_error_t *named_policy(uc_call_t *call, uc_abac_policy_t **p)
{
    const char *name;
    uc_error_t *err;

    if ((err = uc_validate_name(call->pool, "name", call->params[2],
                                &name)) ||
        (err = uc_abac_policy_get(call->store, call->pool,
                                  UC_TARGET_OF(call)->id, name, p)))
        return err;
    if (!*p)
        return uc_error_make(call->pool, UC_E_NOT_FOUND, "Policy '%s' not "
                             "found on %s %s.", name, call->params[0],
                             call->params[1]);
    (*p)->depth = target_depth(call);
    return NULL;
}

static uc_error_t *get_policy(uc_call_t *call, uc_jw_t *out)
{
    uc_abac_policy_t *p;
    uc_error_t *err = named_policy(call, &p);

    if (!err)
        render(call, out, p);
    return err;
}

/* "<depth>:<name>" of the last row of a page. */
static uc_error_t *read_after(uc_call_t *call, const uc_page_t *page,
                              int *depth, const char **name)
{
    const char *colon;

    *depth = -1;
    *name = NULL;
    if (!page->after)
        return NULL;
    colon = strchr(page->after, ':');
    if (!colon || colon == page->after || colon - page->after > 1 ||
        page->after[0] < '0' || page->after[0] > '2')
        return uc_error_invalid(call->pool, "Invalid page_token.");
    *depth = page->after[0] - '0';
    *name = colon + 1;
    return NULL;
}

static uc_error_t *list_policies(uc_call_t *call, uc_jw_t *out)
{
    const uc_chain_t *c = &call->chain;
    uc_policy_scope_t scope = { NULL, NULL, NULL };
    uc_page_t page;
    apr_array_header_t *rows;
    const uc_abac_policy_t *last = NULL;
    int inherited, depth, more, i;
    const char *after;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "include_inherited", &inherited)) ||
        (err = uc_api_page(call, &page)) ||
        (err = read_after(call, &page, &depth, &after)))
        return err;
    if (inherited || c->n == UC_LEVEL_CATALOG + 1)
        scope.catalog_id = c->sec[UC_LEVEL_CATALOG]->id;
    if (c->n > UC_LEVEL_SCHEMA && (inherited || c->n == UC_LEVEL_SCHEMA + 1))
        scope.schema_id = c->sec[UC_LEVEL_SCHEMA]->id;
    if (c->n > UC_LEVEL_OBJECT)
        scope.table_id = c->sec[UC_LEVEL_OBJECT]->id;
    if ((err = uc_abac_policy_page(call->store, call->pool, &scope, depth,
                                   after, page.limit, &rows, &more)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "policies");
    uc_jw_begin_array(out);
    for (i = 0; i < rows->nelts; i++) {
        last = APR_ARRAY_IDX(rows, i, uc_abac_policy_t *);
        render(call, out, last);
        /* A page ends once it holds UC_PAGE_BYTES. */
        if (out->len >= UC_PAGE_BYTES && i + 1 < rows->nelts) {
            more = 1;
            break;
        }
    }
    uc_jw_end_array(out);
    if (more && last)
        uc_jw_field_string(out, "next_page_token", uc_page_token(
            call->pool, apr_psprintf(call->pool, "%d:%s", last->depth,
                                     last->name)));
    uc_jw_end_object(out);
    return NULL;
}

/* The stored policy as a body: what an update is laid over. */
static json_t *as_body(uc_call_t *call, const uc_abac_policy_t *p)
{
    json_t *body = uc_json_own(call->pool,
                               uc_json_stored_object(p->document));

    json_object_set_new(body, "policy_type", json_string(p->policy_type));
    if (p->comment)
        json_object_set_new(body, "comment", json_string(p->comment));
    return body;
}

static int updatable(const char *field)
{
    const char *const *f;

    for (f = updatable_fields; *f; f++)
        if (!strcmp(field, *f))
            return 1;
    return 0;
}

/* Lays the update's fields over `body`: those update_mask names ("*"
 * for all; one it names but the update leaves out is cleared), or
 * without a mask those policy_info holds. */
static uc_error_t *lay_over(uc_call_t *call, json_t *inner, json_t *body)
{
    const char *mask = NULL, *key;
    const char *const *f;
    char *copy, *field, *state;
    json_t *value;
    uc_error_t *err = uc_json_string_field(call->pool, call->body,
                                           "update_mask", 0, &mask);

    if (err)
        return err;
    if (!mask) {
        json_object_foreach(inner, key, value)
            if (updatable(key))
                json_object_set(body, key, value);
        return NULL;
    }
    copy = apr_pstrdup(call->pool, mask);
    if (!strcmp(mask, "*"))
        for (copy = "", f = updatable_fields; *f; f++)
            copy = apr_pstrcat(call->pool, copy, ",", *f, NULL);
    for (field = apr_strtok(copy, ", ", &state); field;
         field = apr_strtok(NULL, ", ", &state)) {
        if (!updatable(field))
            return uc_error_invalid(call->pool, "Field '%s' of update_mask "
                                    "cannot be updated.", field);
        if (json_object_get(inner, field))
            json_object_set(body, field, json_object_get(inner, field));
        else
            json_object_del(body, field);
    }
    return NULL;
}

/* PATCH …/{name} {"policy_info": {...}, "update_mask": "..."}: the name
 * and the securable stay; the policy that results is checked whole. */
static uc_error_t *update_policy(uc_call_t *call, uc_jw_t *out)
{
    json_t *inner = json_object_get(call->body, "policy_info"), *body;
    uc_abac_policy_t *p;
    const char *name = NULL;
    uc_error_t *err;

    if (!json_is_object(inner))
        return uc_error_invalid(call->pool, "Field 'policy_info' must be an "
                                "object.");
    if ((err = named_policy(call, &p)) ||
        (err = check_scope_fields(call, inner)) ||
        (err = uc_json_string_field(call->pool, inner, "name", 0, &name)))
        return err;
    if (name && strcasecmp(name, p->name) != 0)
        return uc_error_invalid(call->pool, "A policy's name cannot be "
                                "changed.");
    body = as_body(call, p);
    if ((err = lay_over(call, inner, body)) ||
        (err = read_policy(call, body, p)))
        return err;
    p->updated_at = uc_epoch_ms_text(call->pool, call->now);
    p->updated_by = call->principal;
    if ((err = uc_abac_policy_update(call->store, p)) ||
        (err = audit(call, "UPDATE_POLICY", p)))
        return err;
    render(call, out, p);
    return NULL;
}

static uc_error_t *delete_policy(uc_call_t *call, uc_jw_t *out)
{
    uc_abac_policy_t *p;
    uc_error_t *err;

    if ((err = named_policy(call, &p)) ||
        (err = uc_abac_policy_delete(call->store, p->id)) ||
        (err = audit(call, "DELETE_POLICY", p)))
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

/* Reading policies needs what reading the securable needs; defining them
 * needs MANAGE on it. */
static const uc_rule_t read_rule = {
    UC_TARGET_POLICY_SCOPE,
    { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA,
      { UC_LEVEL_OBJECT, P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) } }
};
static const uc_rule_t manage_rule = {
    UC_TARGET_POLICY_SCOPE,
    { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA,
      { UC_LEVEL_TARGET, P(UC_PRIV_MANAGE) } }
};

#define POLICIES "/policies/{on_securable_type}/{on_securable_fullname}"

const uc_route_t uc_policy_routes[] = {
    { UC_GET, POLICIES, list_policies, 0, &read_rule },
    { UC_POST, POLICIES, create_policy, UC_ROUTE_BODY | UC_ROUTE_TXN,
      &manage_rule, "policy_info", .audit = "CREATE_POLICY" },
    { UC_GET, POLICIES "/{name}", get_policy, 0, &read_rule },
    { UC_PATCH, POLICIES "/{name}", update_policy,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule, .audit = "UPDATE_POLICY" },
    { UC_DELETE, POLICIES "/{name}", delete_policy, UC_ROUTE_TXN,
      &manage_rule, .audit = "DELETE_POLICY" },
    { 0, NULL, NULL, 0, NULL }
};
