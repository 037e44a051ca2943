/* SPDX-License-Identifier: Apache-2.0 */
/* POST /management/v1/action/batch-check: Lakekeeper's batch-check answered
 * from the catalog's own grants. Mapping: server and project → the
 * metastore, warehouse → catalog (warehouse-id is the catalog id),
 * namespace → schema, table and generic-table → tables that are not views,
 * view → tables of the view types. Checks are parsed and validated first,
 * then every object is resolved and every grant loaded in a fixed number of
 * queries, whatever the number of checks. */
#include "uc_batch_check.h"
#include "uc_authz.h"

#include <string.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_hash.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_json_tree.h"
#include "../core/uc_validate.h"
#include "../store/uc_grants.h"

#define MAX_CHECKS 1000
#define NIL_UUID "00000000-0000-0000-0000-000000000000"
#define P UC_PRIV

typedef enum resource {
    R_SERVER, R_PROJECT, R_WAREHOUSE, R_NAMESPACE, R_TABLE, R_VIEW,
    R_GENERIC_TABLE, R_COUNT
} resource_t;

static const char *const resource_keys[R_COUNT] = {
    "server", "project", "warehouse", "namespace", "table", "view",
    "generic-table"
};

/* What an action needs, in the terms of uc_rules.h. */
typedef struct action {
    resource_t resource;
    const char *name;
    enum { NEEDS, ADMIN_ONLY, NEVER } kind;
    uc_need_t needs[4];
} action_t;

#define MAX_NEEDS (sizeof(((action_t *)0)->needs) / sizeof(uc_need_t))

#define C UC_LEVEL_CATALOG
#define S UC_LEVEL_SCHEMA
#define T UC_LEVEL_OBJECT
#define USE_C UC_NEED_USE_CATALOG
#define USE_S UC_NEED_USE_SCHEMA
/* The table rules of the catalog API, by what the action does. */
#define GET_TABLE { USE_C, USE_S, { T, P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) } }
#define READ_TABLE { USE_C, USE_S, { T, P(UC_PRIV_SELECT) } }
#define WRITE_TABLE \
    { USE_C, USE_S, { T, P(UC_PRIV_SELECT) }, { T, P(UC_PRIV_MODIFY) } }
#define UPDATE_TABLE { USE_C, USE_S, { T, P(UC_PRIV_MODIFY) } }
#define MANAGE_TABLE { USE_C, USE_S, { T, P(UC_PRIV_MANAGE) } }
#define RENAME_TABLE \
    { USE_C, USE_S, { T, P(UC_PRIV_MANAGE) }, { S, P(UC_PRIV_CREATE_TABLE) } }
#define ON_TABLES(action, needs) { R_TABLE, action, NEEDS, needs }, \
    { R_VIEW, action, NEEDS, needs }, \
    { R_GENERIC_TABLE, action, NEEDS, needs }

static const action_t actions[] = {
    /* server: administration of the metastore itself */
    { R_SERVER, "create_project", ADMIN_ONLY, { { 0, 0 } } },
    { R_SERVER, "update_users", ADMIN_ONLY, { { 0, 0 } } },
    { R_SERVER, "delete_users", ADMIN_ONLY, { { 0, 0 } } },
    { R_SERVER, "list_users", ADMIN_ONLY, { { 0, 0 } } },
    { R_SERVER, "provision_users", ADMIN_ONLY, { { 0, 0 } } },
    /* project: the metastore again */
    { R_PROJECT, "create_warehouse", NEEDS,
      { { UC_LEVEL_METASTORE, P(UC_PRIV_CREATE_CATALOG) } } },
    { R_PROJECT, "get_metadata", NEEDS, { { 0, 0 } } },
    { R_PROJECT, "list_warehouses", NEEDS, { { 0, 0 } } },
    { R_PROJECT, "include_in_list", NEEDS, { { 0, 0 } } },
    { R_PROJECT, "delete", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "rename", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "create_role", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "list_roles", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "search_roles", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "get_endpoint_statistics", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "modify_task_queue_config", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "get_task_queue_config", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "get_project_tasks", ADMIN_ONLY, { { 0, 0 } } },
    { R_PROJECT, "control_project_tasks", ADMIN_ONLY, { { 0, 0 } } },
    /* warehouse: a catalog */
    { R_WAREHOUSE, "use", NEEDS, { USE_C } },
    { R_WAREHOUSE, "get_config", NEEDS, { USE_C } },
    { R_WAREHOUSE, "get_metadata", NEEDS, { USE_C } },
    { R_WAREHOUSE, "include_in_list", NEEDS, { USE_C } },
    { R_WAREHOUSE, "list_namespaces", NEEDS, { USE_C } },
    { R_WAREHOUSE, "list_everything", NEEDS,
      { USE_C, { C, P(UC_PRIV_USE_SCHEMA) },
        { C, P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) } } },
    { R_WAREHOUSE, "create_namespace", NEEDS,
      { USE_C, { C, P(UC_PRIV_CREATE_SCHEMA) } } },
#define WAREHOUSE_MANAGED(action) \
    { R_WAREHOUSE, action, NEEDS, { { C, P(UC_PRIV_MANAGE) } } }
    WAREHOUSE_MANAGED("delete"),
    WAREHOUSE_MANAGED("rename"),
    WAREHOUSE_MANAGED("update_storage"),
    WAREHOUSE_MANAGED("update_storage_credential"),
    WAREHOUSE_MANAGED("deactivate"),
    WAREHOUSE_MANAGED("activate"),
    WAREHOUSE_MANAGED("modify_soft_deletion"),
    WAREHOUSE_MANAGED("set_protection"),
    WAREHOUSE_MANAGED("set_format_version_policy"),
    WAREHOUSE_MANAGED("modify_task_queue_config"),
    WAREHOUSE_MANAGED("control_all_tasks"),
    WAREHOUSE_MANAGED("list_deleted_tabulars"),
    WAREHOUSE_MANAGED("get_task_queue_config"),
    WAREHOUSE_MANAGED("get_all_tasks"),
    WAREHOUSE_MANAGED("get_endpoint_statistics"),
    /* namespace: a schema */
    { R_NAMESPACE, "get_metadata", NEEDS, { USE_C, USE_S } },
    { R_NAMESPACE, "include_in_list", NEEDS, { USE_C, USE_S } },
    { R_NAMESPACE, "list_tables", NEEDS, { USE_C, USE_S } },
    { R_NAMESPACE, "list_views", NEEDS, { USE_C, USE_S } },
    { R_NAMESPACE, "list_generic_tables", NEEDS, { USE_C, USE_S } },
    { R_NAMESPACE, "list_namespaces", NEEDS, { USE_C, USE_S } },
    { R_NAMESPACE, "list_everything", NEEDS,
      { USE_C, USE_S, { S, P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) } } },
    { R_NAMESPACE, "create_table", NEEDS,
      { USE_C, USE_S, { S, P(UC_PRIV_CREATE_TABLE) } } },
    { R_NAMESPACE, "create_view", NEEDS,
      { USE_C, USE_S, { S, P(UC_PRIV_CREATE_TABLE) } } },
    { R_NAMESPACE, "create_generic_table", NEEDS,
      { USE_C, USE_S, { S, P(UC_PRIV_CREATE_TABLE) } } },
    /* Schemas do not nest. */
    { R_NAMESPACE, "create_namespace", NEVER, { { 0, 0 } } },
    { R_NAMESPACE, "delete", NEEDS, { USE_C, { S, P(UC_PRIV_MANAGE) } } },
    { R_NAMESPACE, "update_properties", NEEDS,
      { USE_C, { S, P(UC_PRIV_MANAGE) } } },
    { R_NAMESPACE, "set_protection", NEEDS,
      { USE_C, { S, P(UC_PRIV_MANAGE) } } },
    /* tables, views and generic tables: tables of the catalog */
    ON_TABLES("get_metadata", GET_TABLE),
    ON_TABLES("include_in_list", GET_TABLE),
    ON_TABLES("get_tasks", GET_TABLE),
    ON_TABLES("drop", MANAGE_TABLE),
    ON_TABLES("undrop", MANAGE_TABLE),
    ON_TABLES("set_protection", MANAGE_TABLE),
    ON_TABLES("rename", RENAME_TABLE),
    ON_TABLES("control_tasks", UPDATE_TABLE),
    { R_TABLE, "commit", NEEDS, UPDATE_TABLE },
    { R_GENERIC_TABLE, "commit", NEEDS, UPDATE_TABLE },
    /* A new view definition replaces the old: the owner's decision. */
    { R_VIEW, "commit", NEEDS, MANAGE_TABLE },
    { R_TABLE, "read_data", NEEDS, READ_TABLE },
    { R_TABLE, "write_data", NEEDS, WRITE_TABLE },
    { R_GENERIC_TABLE, "read_data", NEEDS, READ_TABLE },
    { R_GENERIC_TABLE, "write_data", NEEDS, WRITE_TABLE },
    { R_VIEW, "select", NEEDS, READ_TABLE },
};

typedef struct check {
    const char *id;
    const uc_principal_t *who;
    int other;                      /* evaluated for someone else */
    const action_t *action;
    const char *warehouse_id;
    const char *namespace_id;
    const char *namespace_name;
    const char *table_id;
    const char *table_name;
    const char *project_id;
    int project_given;
    /* What resolve_all found for it: the warehouse, the table by id, the
     * namespace by name. */
    uc_securable_t *wh;
    uc_securable_t *table;
    uc_securable_t *ns_by_name;
    uc_chain_t chain;
    int found;
    uc_access_t mine;               /* the caller's on the chain */
} check_t;

static uc_error_t *shape(apr_pool_t *pool, size_t index, const char *what)
{
    return uc_error_make(pool, UC_E_LK_UNPROCESSABLE,
                         "Failed to deserialize the JSON body: checks[%lu]: "
                         "%s", (unsigned long)index, what);
}

/* The body is read into a tree of the request's pool (UC_ROUTE_BODY_TREE):
 * a thousand checks made no jansson value to allocate and release. */
typedef const uc_json_tree_t tree_t;

static int absent(tree_t *v)
{
    return !v || uc_json_tree_is(v, UC_JSON_TREE_NULL);
}

static const char *optional_string(tree_t *obj, const char *key,
                                   const char *alias, int *bad)
{
    tree_t *v = uc_json_tree_member(obj, key);

    if (!v && alias)
        v = uc_json_tree_member(obj, alias);
    if (absent(v))
        return NULL;
    if (!uc_json_tree_is(v, UC_JSON_TREE_STRING)) {
        *bad = 1;
        return NULL;
    }
    return uc_json_tree_string(v);
}

/* The principal named by an identity {"user": "<idp>~<subject>"}. */
static uc_error_t *identity_of(uc_call_t *call, size_t index,
                               tree_t *identity, apr_hash_t *principals,
                               check_t *c)
{
    tree_t *user, *role;
    const char *name, *tilde, *p;

    c->who = call->who;
    if (absent(identity))
        return NULL;
    user = uc_json_tree_member(identity, "user");
    role = uc_json_tree_member(identity, "role");
    if (!uc_json_tree_is(identity, UC_JSON_TREE_OBJECT) || !user == !role)
        return shape(call->pool, index, "identity needs exactly one of "
                     "'user' and 'role'");
    if (role)
        return uc_error_make(call->pool, UC_E_LK_NO_SUCH_ROLE,
                             "Role %s does not exist: this catalog has no "
                             "roles.", uc_json_tree_string(role)
                             ? uc_json_tree_string(role) : "(not text)");
    name = uc_json_tree_string(user) ? uc_json_tree_string(user) : "";
    tilde = strchr(name, '~');
    if (!tilde || strlen(name) >= 128)
        return shape(call->pool, index, "identity.user must look like "
                     "'<idp>~<subject>' and be shorter than 128 characters");
    for (p = name; *p; p++)
        if (apr_iscntrl(*p))
            return shape(call->pool, index, "identity.user has control "
                         "characters");
    name = tilde + 1;
    if (!*name)
        return NULL;
    if (uc_principal_normalize(call->pool, "identity.user", name, &name))
        return shape(call->pool, index, "identity.user names no principal");
    if (strcmp(name, call->who->name) == 0)
        return NULL;
    c->other = 1;
    c->who = apr_hash_get(principals, name, APR_HASH_KEY_STRING);
    if (!c->who) {
        apr_array_header_t *groups = call->groups_of
            ? call->groups_of(call->groups_baton, name) : NULL;
        c->who = uc_principal_make(call->pool, name, groups, call->admins);
        apr_hash_set(principals, c->who->name, APR_HASH_KEY_STRING, c->who);
    }
    return NULL;
}

static const char *lowered(apr_pool_t *pool, const char *s)
{
    const char *q;
    char *copy, *p;

    /* ASCII by ranges (the C locale's upper case): apr_isupper costs a
     * call a character, and most strings here are ids. */
    for (q = s; q && *q && (unsigned)(*q - 'A') >= 26; q++)
        ;
    if (!q || !*q)
        return s;
    copy = apr_pstrdup(pool, s);
    for (p = copy; *p; p++)
        *p = (char)apr_tolower(*p);
    return copy;
}

/* The first of `keys` (NULL-ended) that `op` holds as a string. */
static const char *first_string(tree_t *op, const char *const *keys,
                                int *bad)
{
    const char *v = NULL;

    for (; *keys && !v; keys++)
        v = optional_string(op, *keys, NULL, bad);
    return v;
}

/* A table, view or generic table by id or by namespace and name: the
 * spec's primary keys (table-id, table), its aliases (view_id, view,
 * generic_table_id, generic_table) and their other spellings. */
static uc_error_t *parse_tabular(uc_call_t *call, size_t index, tree_t *op,
                                 resource_t r, check_t *c)
{
    static const char *const ids[R_COUNT][6] = {
        [R_TABLE] = { "table-id", "table_id", NULL },
        [R_VIEW] = { "table-id", "view-id", "view_id", "table_id", NULL },
        [R_GENERIC_TABLE] = { "table-id", "generic-table-id",
                              "generic_table_id", "table_id", NULL },
    };
    static const char *const names[R_COUNT][6] = {
        [R_TABLE] = { "table", NULL },
        [R_VIEW] = { "table", "view", NULL },
        [R_GENERIC_TABLE] = { "table", "generic-table", "generic_table",
                              NULL },
    };
    int bad = 0;

    c->table_id = first_string(op, ids[r], &bad);
    c->table_name = first_string(op, names[r], &bad);
    if (bad)
        return shape(call->pool, index, "table ids and names must be "
                     "strings");
    if (c->table_id) {
        if (!uc_is_uuid(c->table_id))
            return shape(call->pool, index, "table-id must be a UUID");
        c->table_id = lowered(call->pool, c->table_id);
        return NULL;
    }
    if (!c->table_name || !c->namespace_name)
        return shape(call->pool, index, "a table needs table-id, or "
                     "namespace and table");
    return NULL;
}

/* The namespace by name: an array of strings, of one level only (schemas
 * do not nest, so longer paths name nothing). */
static uc_error_t *parse_namespace(uc_call_t *call, size_t index, tree_t *ns,
                                   check_t *c)
{
    size_t i;

    if (absent(ns))
        return NULL;
    if (!uc_json_tree_is(ns, UC_JSON_TREE_ARRAY))
        return shape(call->pool, index, "namespace must be an array");
    for (i = 0; i < uc_json_tree_size(ns); i++)
        if (!uc_json_tree_is(uc_json_tree_item(ns, i), UC_JSON_TREE_STRING))
            return shape(call->pool, index, "namespace parts must be "
                         "strings");
    c->namespace_name = uc_json_tree_size(ns) == 1
                        ? uc_json_tree_string(uc_json_tree_item(ns, 0)) : "";
    return NULL;
}

static uc_error_t *parse_check(uc_call_t *call, size_t index, tree_t *item,
                               apr_hash_t *principals, check_t *c)
{
    tree_t *operation = uc_json_tree_member(item, "operation"), *op;
    const uc_json_member_t *only;
    const char *key, *name;
    int bad = 0;
    size_t i, r;
    uc_error_t *err;

    if (!uc_json_tree_is(item, UC_JSON_TREE_OBJECT))
        return shape(call->pool, index, "a check must be an object");
    c->id = optional_string(item, "id", NULL, &bad);
    if (bad)
        return shape(call->pool, index, "id must be a string");
    if ((err = identity_of(call, index, uc_json_tree_member(item, "identity"),
                           principals, c)))
        return err;
    if (!uc_json_tree_is(operation, UC_JSON_TREE_OBJECT) ||
        uc_json_tree_size(operation) != 1)
        return shape(call->pool, index, "operation needs exactly one key");
    only = uc_json_tree_member_at(operation, 0);
    key = only->key;
    op = only->value;
    for (r = 0; r < R_COUNT; r++)
        if (strcmp(key, resource_keys[r]) == 0)
            break;
    if (r == R_COUNT || !uc_json_tree_is(op, UC_JSON_TREE_OBJECT))
        return shape(call->pool, index, apr_psprintf(call->pool,
                     "unknown operation '%s'", key));
    name = uc_json_tree_string(uc_json_tree_member(
        uc_json_tree_member(op, "action"), "action"));
    /* Each (resource, action) is in the table once: the first is it. */
    for (i = 0; name && !c->action && i < sizeof(actions) /
                                          sizeof(actions[0]); i++)
        if (actions[i].resource == r && strcmp(actions[i].name, name) == 0)
            c->action = &actions[i];
    if (!c->action)
        return shape(call->pool, index, apr_psprintf(call->pool,
                     "unknown %s action '%s'", key, name ? name : ""));
    c->project_id = optional_string(op, "project-id", "project_id", &bad);
    c->project_given = c->project_id != NULL;
    c->warehouse_id = optional_string(op, "warehouse-id", "warehouse_id",
                                      &bad);
    c->namespace_id = optional_string(op, "namespace-id", "namespace_id",
                                      &bad);
    if (bad)
        return shape(call->pool, index, "ids must be strings");
    if (r >= R_WAREHOUSE && (!c->warehouse_id || !uc_is_uuid(c->warehouse_id)))
        return shape(call->pool, index, "warehouse-id must be a UUID");
    if (c->namespace_id && !uc_is_uuid(c->namespace_id))
        return shape(call->pool, index, "namespace-id must be a UUID");
    /* UUIDs are stored in lower case and may come in either. */
    c->warehouse_id = lowered(call->pool, c->warehouse_id);
    c->namespace_id = lowered(call->pool, c->namespace_id);
    c->project_id = lowered(call->pool, c->project_id);
    if ((err = parse_namespace(call, index,
                               uc_json_tree_member(op, "namespace"), c)))
        return err;
    if (r == R_NAMESPACE && !c->namespace_id && !c->namespace_name)
        return shape(call->pool, index, "namespace needs namespace-id or "
                     "namespace");
    if (r >= R_TABLE)
        return parse_tabular(call, index, op, r, c);
    return NULL;
}

/* Rows by id and by "<kind>/<parent id>/<name>", from the lookups
 * below. */
typedef struct found {
    apr_hash_t *by_id;
    apr_hash_t *by_name;
} found_t;

static void keep(uc_call_t *call, found_t *f, apr_array_header_t *rows)
{
    int i;

    for (i = 0; i < rows->nelts; i++) {
        uc_securable_t *s = APR_ARRAY_IDX(rows, i, uc_securable_t *);
        apr_hash_set(f->by_id, s->id, APR_HASH_KEY_STRING, s);
        if (s->parent_id)
            apr_hash_set(f->by_name, apr_pstrcat(call->pool, s->kind, "/",
                                                 s->parent_id, "/", s->name,
                                                 NULL),
                         APR_HASH_KEY_STRING, s);
    }
}

static uc_securable_t *by_name(uc_call_t *call, const found_t *f,
                               const char *kind, const char *parent,
                               const char *name)
{
    return apr_hash_get(f->by_name, apr_pstrcat(call->pool, kind, "/", parent,
                                                "/", lowered(call->pool, name),
                                                NULL), APR_HASH_KEY_STRING);
}

/* The JSON lists of one lookup, written straight as JSON text: with a
 * thousand checks, building jansson values cost more than the queries.
 * Ids go in an array; (parent, name) pairs in an object of the names
 * under each parent, so the database splits no pair apart. */
typedef struct lookup {
    uc_jw_t *list;
    apr_hash_t *asked;     /* each object is asked for once */
    apr_hash_t *names;     /* pairs: parent id -> writer of its names */
    int n;
} lookup_t;

/* Lists start small and grow as they are written: made to the size of
 * the worst batch, the four of a thousand checks took 480 kB the request
 * pool had to map afresh, most of it never written. */
static void lookup_start(uc_call_t *call, lookup_t *l)
{
    l->list = uc_jw_make(call->pool, 4096);
    l->asked = uc_hash_make(call->pool);
    l->names = uc_hash_make(call->pool);
    l->n = 0;
}

/* True the first time `key` is asked for. */
static int first_ask(lookup_t *l, const char *key)
{
    if (apr_hash_get(l->asked, key, APR_HASH_KEY_STRING))
        return 0;
    apr_hash_set(l->asked, key, APR_HASH_KEY_STRING, "");
    return 1;
}

static void lookup_id(lookup_t *l, const char *id)
{
    if (!first_ask(l, id))
        return;
    if (!l->n++)
        uc_jw_begin_array(l->list);
    uc_jw_string(l->list, id);
}

static void lookup_pair(uc_call_t *call, lookup_t *l, const char *parent,
                        const char *name)
{
    const char *lower = lowered(call->pool, name);
    uc_jw_t *names;

    if (!first_ask(l, apr_pstrcat(call->pool, parent, "/", lower, NULL)))
        return;
    names = apr_hash_get(l->names, parent, APR_HASH_KEY_STRING);
    if (!names) {
        names = uc_jw_make(call->pool, 256);
        uc_jw_begin_array(names);
        apr_hash_set(l->names, parent, APR_HASH_KEY_STRING, names);
    }
    uc_jw_string(names, lower);
    l->n++;
}

static uc_error_t *run_ids(uc_call_t *call, lookup_t *l, found_t *f)
{
    apr_array_header_t *rows;
    uc_error_t *err;

    if (!l->n)
        return NULL;
    uc_jw_end_array(l->list);
    if ((err = uc_securable_refs_by_ids(call->store, call->pool,
                                        uc_jw_text(l->list), &rows)))
        return err;
    keep(call, f, rows);
    return NULL;
}

static uc_error_t *run_pairs(uc_call_t *call, lookup_t *l, const char *kind,
                             found_t *f)
{
    apr_array_header_t *rows;
    apr_hash_index_t *hi;
    uc_error_t *err;

    if (!l->n)
        return NULL;
    uc_jw_begin_object(l->list);
    for (hi = apr_hash_first(call->pool, l->names); hi;
         hi = apr_hash_next(hi)) {
        const void *parent;
        void *names;

        apr_hash_this(hi, &parent, NULL, &names);
        uc_jw_end_array(names);
        uc_jw_field_raw(l->list, parent, uc_jw_text(names));
    }
    uc_jw_end_object(l->list);
    if ((err = uc_securable_refs_by_parent_names(call->store, call->pool,
                                                 kind, uc_jw_text(l->list),
                                                 &rows)))
        return err;
    keep(call, f, rows);
    return NULL;
}

static uc_securable_t *found_id(const found_t *f, const char *id)
{
    return id ? apr_hash_get(f->by_id, id, APR_HASH_KEY_STRING) : NULL;
}

/* Every object the checks name, in at most four queries: what is named by
 * id; schemas by name and the schemas of tables found by id; tables by
 * name. */
static uc_error_t *resolve_all(uc_call_t *call, check_t *checks, int n,
                               found_t *f)
{
    lookup_t ids, schemas, parents, tables;
    int i;
    uc_error_t *err;

    lookup_start(call, &ids);
    for (i = 0; i < n; i++) {
        if (checks[i].warehouse_id)
            lookup_id(&ids, checks[i].warehouse_id);
        if (checks[i].namespace_id)
            lookup_id(&ids, checks[i].namespace_id);
        if (checks[i].table_id)
            lookup_id(&ids, checks[i].table_id);
    }
    if ((err = run_ids(call, &ids, f)))
        return err;

    lookup_start(call, &schemas);
    lookup_start(call, &parents);
    for (i = 0; i < n; i++) {
        const uc_securable_t *wh, *t;

        wh = checks[i].wh = found_id(f, checks[i].warehouse_id);
        t = checks[i].table = found_id(f, checks[i].table_id);
        if (wh && checks[i].namespace_name && !checks[i].namespace_id &&
            !checks[i].table_id)
            lookup_pair(call, &schemas, wh->id, checks[i].namespace_name);
        if (t && t->parent_id && !found_id(f, t->parent_id))
            lookup_id(&parents, t->parent_id);
    }
    if ((err = run_pairs(call, &schemas, UC_KIND_SCHEMA, f)) ||
        (err = run_ids(call, &parents, f)))
        return err;

    lookup_start(call, &tables);
    for (i = 0; i < n; i++) {
        const uc_securable_t *wh = checks[i].wh, *ns;

        ns = checks[i].ns_by_name = wh && checks[i].namespace_name
            ? by_name(call, f, UC_KIND_SCHEMA, wh->id,
                      checks[i].namespace_name) : NULL;
        if (ns && checks[i].table_name && !checks[i].table_id)
            lookup_pair(call, &tables, ns->id, checks[i].table_name);
    }
    return run_pairs(call, &tables, UC_KIND_TABLE, f);
}

static int is_a(const uc_securable_t *s, const char *kind,
                const uc_securable_t *parent)
{
    return s && strcmp(s->kind, kind) == 0 && parent &&
           s->parent_id && strcmp(s->parent_id, parent->id) == 0;
}

/* A view check wants a table of a view type; table and generic-table
 * checks want the others (Trino asks both and takes either). */
static int kind_matches(uc_call_t *call, resource_t r, const uc_securable_t *t)
{
    const char *type = uc_json_stored_string(call->pool, t->details,
                                             "table_type");
    int view = type && (!strcmp(type, "VIEW") ||
                        !strcmp(type, "METRIC_VIEW") ||
                        !strcmp(type, "MATERIALIZED_VIEW"));
    return r == R_VIEW ? view : !view;
}

static void build_chain(uc_call_t *call, check_t *c, const found_t *f,
                        uc_securable_t *metastore)
{
    resource_t r = c->action->resource;
    uc_securable_t *wh, *ns = NULL, *t = NULL;

    c->chain.n = 1;
    c->chain.sec[UC_LEVEL_METASTORE] = metastore;
    c->chain.type[UC_LEVEL_METASTORE] = UC_TYPE_METASTORE;
    if (r == R_SERVER) {
        c->found = 1;
        return;
    }
    if (r == R_PROJECT) {
        /* One implicit project: the metastore, by its id or the nil id. */
        c->found = !c->project_given ||
                   strcmp(c->project_id, metastore->id) == 0 ||
                   strcmp(c->project_id, NIL_UUID) == 0;
        return;
    }
    wh = c->wh;
    if (!wh || strcmp(wh->kind, UC_KIND_CATALOG) != 0)
        return;
    c->chain.n = 2;
    c->chain.sec[UC_LEVEL_CATALOG] = wh;
    c->chain.type[UC_LEVEL_CATALOG] = UC_TYPE_CATALOG;
    if (r == R_WAREHOUSE) {
        c->found = 1;
        return;
    }
    if (r >= R_TABLE && c->table_id) {
        t = c->table;
        ns = t ? found_id(f, t->parent_id) : NULL;
    }
    else if (c->namespace_id)
        ns = found_id(f, c->namespace_id);
    else
        ns = c->ns_by_name;
    if (!is_a(ns, UC_KIND_SCHEMA, wh))
        return;
    c->chain.n = 3;
    c->chain.sec[UC_LEVEL_SCHEMA] = ns;
    c->chain.type[UC_LEVEL_SCHEMA] = UC_TYPE_SCHEMA;
    if (r == R_NAMESPACE) {
        c->found = 1;
        return;
    }
    if (!t)
        t = by_name(call, f, UC_KIND_TABLE, ns->id, c->table_name);
    if (!is_a(t, UC_KIND_TABLE, ns) || !kind_matches(call, r, t))
        return;
    c->chain.n = 4;
    c->chain.sec[UC_LEVEL_OBJECT] = t;
    c->chain.type[UC_LEVEL_OBJECT] = UC_TYPE_TABLE;
    c->found = 1;
}

static uc_error_t *not_found(uc_call_t *call, const check_t *c)
{
    switch (c->action->resource) {
    case R_WAREHOUSE:
        return uc_error_make(call->pool, UC_E_LK_NO_SUCH_WAREHOUSE,
                             "A warehouse with id '%s' does not exist",
                             c->warehouse_id);
    case R_NAMESPACE:
        return uc_error_make(call->pool, UC_E_LK_NO_SUCH_NAMESPACE,
                             "Namespace not found or access denied");
    case R_VIEW:
        return uc_error_make(call->pool, UC_E_LK_NO_SUCH_VIEW,
                             "View not found or access denied");
    case R_GENERIC_TABLE:
        return uc_error_make(call->pool, UC_E_LK_NO_SUCH_GENERIC_TABLE,
                             "Generic table not found or access denied");
    default:
        return uc_error_make(call->pool, UC_E_LK_NO_SUCH_TABLE,
                             "Table not found or access denied");
    }
}

/* The privileges held directly, by "securable id \n principal", and the
 * last principal's at each level of the last chain looked at: checks
 * mostly share their metastore and warehouse, and these are then not
 * looked up again. */
typedef struct held {
    apr_hash_t *sets;
    const uc_principal_t *who;
    const uc_securable_t *sec[UC_LEVELS];
    uc_privset_t direct[UC_LEVELS];
} held_t;

/* The ids of every object on the checks' chains, each once, as a JSON
 * array; "" when there is none. Checks mostly share their metastore and
 * warehouse, so a level is looked at only where it changes. */
static const char *chain_ids(uc_call_t *call, const check_t *checks, int n)
{
    uc_jw_t *ids = uc_jw_make(call->pool, 64 * (apr_size_t)(n + 1));
    apr_hash_t *seen = uc_hash_make(call->pool);
    const uc_securable_t *last[UC_LEVELS] = { NULL };
    int i, k, nids = 0;

    uc_jw_begin_array(ids);
    for (i = 0; i < n; i++)
        for (k = 0; k < checks[i].chain.n; k++) {
            const uc_securable_t *s = checks[i].chain.sec[k];

            if (s == last[k])
                continue;
            last[k] = s;
            if (!apr_hash_get(seen, s->id, APR_HASH_KEY_STRING)) {
                apr_hash_set(seen, s->id, APR_HASH_KEY_STRING, "");
                uc_jw_string(ids, s->id);
                nids++;
            }
        }
    uc_jw_end_array(ids);
    return nids ? uc_jw_text(ids) : "";
}

/* The names of the caller, of every principal checks are evaluated for
 * and of their groups, each once, as a JSON array. */
static const char *principal_names(uc_call_t *call, const check_t *checks,
                                   int n)
{
    uc_jw_t *names = uc_jw_make(call->pool, 256);
    apr_hash_t *seen = uc_hash_make(call->pool);
    const uc_principal_t *last = NULL;
    int i, j;

    uc_jw_begin_array(names);
    for (i = 0; i <= n; i++) {
        const uc_principal_t *who = i < n ? checks[i].who : call->who;

        if (who == last)
            continue;
        last = who;
        for (j = -1; j < who->groups->nelts; j++) {
            const char *name = j < 0 ? who->name
                : APR_ARRAY_IDX(who->groups, j, const char *);
            if (!apr_hash_get(seen, name, APR_HASH_KEY_STRING)) {
                apr_hash_set(seen, name, APR_HASH_KEY_STRING, "");
                uc_jw_string(names, name);
            }
        }
    }
    uc_jw_end_array(names);
    return uc_jw_text(names);
}

/* Grants of every principal involved on every object involved, in one
 * query. */
static uc_error_t *load_grants(uc_call_t *call, check_t *checks, int n,
                               held_t *held)
{
    const char *ids = chain_ids(call, checks, n);
    apr_array_header_t *grants;
    int i;
    uc_error_t *err;

    if (!*ids)
        return NULL;
    if ((err = uc_grants_held(call->store, call->pool, ids,
                              principal_names(call, checks, n), &grants)))
        return err;
    for (i = 0; i < grants->nelts; i++) {
        const uc_grant_t *g = &APR_ARRAY_IDX(grants, i, uc_grant_t);
        const char *key = apr_pstrcat(call->pool, g->securable_id, "\n",
                                      g->principal, NULL);
        uc_privset_t *set = apr_hash_get(held->sets, key,
                                         APR_HASH_KEY_STRING);
        int p = uc_privilege_parse(g->privilege);

        if (p < 0)
            continue;
        if (!set) {
            set = apr_pcalloc(call->pool, sizeof(*set));
            apr_hash_set(held->sets, key, APR_HASH_KEY_STRING, set);
        }
        *set |= P(p);
    }
    return NULL;
}

/* The privileges `who` holds directly on a securable, from `held`; the key
 * is built on the stack, as this runs for every level of every check. */
static uc_privset_t held_by(apr_hash_t *held, const char *id,
                            const char *name)
{
    char key[64 + 1 + UC_NAME_MAX + 1];
    apr_size_t n = strlen(id), m = strlen(name);
    uc_privset_t *set;

    if (n > 64 || m > UC_NAME_MAX)
        return 0;
    memcpy(key, id, n);
    key[n] = '\n';
    memcpy(key + n + 1, name, m);
    set = apr_hash_get(held, key, (apr_ssize_t)(n + 1 + m));
    return set ? *set : 0;
}

static void access_of(held_t *held, const uc_principal_t *who,
                      const uc_chain_t *chain, uc_access_t *out)
{
    uc_privset_t direct[UC_LEVELS] = { 0 };
    int level, j;

    if (held->who != who) {
        memset(held->sec, 0, sizeof(held->sec));
        held->who = who;
    }
    for (level = 0; level < chain->n && !who->admin; level++) {
        if (held->sec[level] == chain->sec[level]) {
            direct[level] = held->direct[level];
            continue;
        }
        for (j = -1; j < who->groups->nelts; j++)
            direct[level] |= held_by(held->sets, chain->sec[level]->id,
                                     j < 0 ? who->name
                                     : APR_ARRAY_IDX(who->groups, j,
                                                     const char *));
        held->sec[level] = chain->sec[level];
        held->direct[level] = direct[level];
    }
    uc_access_compute(who, chain, direct, out);
}

static int allowed(const check_t *c, const uc_access_t *a)
{
    const uc_need_t *need;

    if (!c->found)
        return 0;
    switch (c->action->kind) {
    case NEVER:
        return 0;
    case ADMIN_ONLY:
        return a->admin;
    default:
        break;
    }
    for (need = c->action->needs; need < c->action->needs + MAX_NEEDS &&
         need->any; need++)
        if (!uc_access_has(a, need->level, need->any))
            return 0;
    return 1;
}

/* The checked object as the check named it: nothing the caller did not
 * send goes into a message. */
static const char *as_named(uc_call_t *call, const check_t *c)
{
    const char *kind = resource_keys[c->action->resource];

    if (c->table_id)
        return apr_psprintf(call->pool, "%s %s", kind, c->table_id);
    if (c->table_name)
        return apr_psprintf(call->pool, "%s '%s' in namespace '%s' of "
                            "warehouse %s", kind, c->table_name,
                            c->namespace_name, c->warehouse_id);
    if (c->namespace_id)
        return apr_psprintf(call->pool, "%s %s", kind, c->namespace_id);
    if (c->namespace_name)
        return apr_psprintf(call->pool, "%s '%s' of warehouse %s", kind,
                            c->namespace_name, c->warehouse_id);
    if (c->warehouse_id)
        return apr_psprintf(call->pool, "%s %s", kind, c->warehouse_id);
    return kind;
}

static uc_error_t *batch_check(uc_call_t *call, uc_jw_t *out)
{
    tree_t *list = uc_json_tree_member(call->tree, "checks");
    tree_t *error_on = uc_json_tree_member(call->tree, "error-on-not-found");
    apr_hash_t *principals = uc_hash_make(call->pool);
    found_t found = { uc_hash_make(call->pool), uc_hash_make(call->pool) };
    held_t held = { uc_hash_make(call->pool), NULL, { NULL }, { 0 } };
    uc_securable_t *metastore = apr_pcalloc(call->pool, sizeof(*metastore));
    int error_on_not_found = uc_json_tree_is(error_on, UC_JSON_TREE_TRUE);
    int n, i;
    check_t *checks;
    uc_error_t *err;

    if (!uc_json_tree_is(list, UC_JSON_TREE_ARRAY))
        return uc_error_make(call->pool, UC_E_LK_UNPROCESSABLE,
                             "Failed to deserialize the JSON body: 'checks' "
                             "must be an array");
    if (uc_json_tree_size(list) > MAX_CHECKS)
        return uc_error_make(call->pool, UC_E_LK_TOO_MANY_CHECKS,
                             "Too many checks requested: %lu. Maximum "
                             "allowed is %d",
                             (unsigned long)uc_json_tree_size(list),
                             MAX_CHECKS);
    if (!absent(error_on) && !uc_json_tree_is(error_on, UC_JSON_TREE_TRUE) &&
        !uc_json_tree_is(error_on, UC_JSON_TREE_FALSE))
        return uc_error_make(call->pool, UC_E_LK_UNPROCESSABLE, "Field "
                             "'error-on-not-found' must be a boolean.");
    n = (int)uc_json_tree_size(list);
    checks = apr_pcalloc(call->pool, sizeof(*checks) * (apr_size_t)(n + 1));
    for (i = 0; i < n; i++)
        if ((err = parse_check(call, (size_t)i, uc_json_tree_item(list, i),
                               principals, &checks[i])))
            return err;

    metastore->id = uc_store_metastore_id(call->store);
    metastore->kind = "metastore";
    metastore->name = "metastore";
    if ((err = resolve_all(call, checks, n, &found)))
        return err;
    for (i = 0; i < n; i++)
        build_chain(call, &checks[i], &found, metastore);
    if ((err = load_grants(call, checks, n, &held)))
        return err;
    /* What the caller may not know of is missing, for the caller. */
    for (i = 0; i < n; i++) {
        access_of(&held, call->who, &checks[i].chain, &checks[i].mine);
        if (checks[i].found &&
            !uc_access_sees(&checks[i].mine, &checks[i].chain, 1))
            checks[i].found = 0;
        if (!checks[i].found && error_on_not_found &&
            checks[i].action->resource != R_PROJECT)
            return not_found(call, &checks[i]);
    }
    /* Answering for someone else needs the right to manage grants on each
     * object checked: no partial answers. */
    for (i = 0; i < n; i++) {
        const uc_access_t *mine = &checks[i].mine;
        int target = checks[i].chain.n - 1;

        if (!checks[i].other || !checks[i].found)
            continue;
        if (target == UC_LEVEL_METASTORE ? !mine->admin
            : !uc_access_has(mine, target, P(UC_PRIV_MANAGE)))
            return uc_error_make(call->pool, UC_E_LK_CANNOT_INSPECT,
                                 "Not allowed to inspect permissions for "
                                 "object %s", as_named(call, &checks[i]));
    }

    uc_jw_begin_object(out);
    uc_jw_key(out, "results");
    uc_jw_begin_array(out);
    for (i = 0; i < n; i++) {
        uc_access_t theirs;

        if (checks[i].other)
            access_of(&held, checks[i].who, &checks[i].chain, &theirs);
        uc_jw_begin_object(out);
        if (checks[i].id)
            uc_jw_field_string(out, "id", checks[i].id);
        uc_jw_key(out, "allowed");
        uc_jw_bool(out, allowed(&checks[i], checks[i].other
                                            ? &theirs : &checks[i].mine));
        uc_jw_end_object(out);
    }
    uc_jw_end_array(out);
    uc_jw_end_object(out);
    return NULL;
}

/* Checking one's own permissions needs nothing beyond authentication;
 * checks for others are guarded inside. */
static const uc_rule_t any_caller = { UC_TARGET_CALLER, { { 0, 0 } } };

const uc_route_t uc_authz_routes[] = {
    { UC_POST, "/action/batch-check", batch_check,
      UC_ROUTE_BODY | UC_ROUTE_BODY_TREE, &any_caller },
    { 0, NULL, NULL, 0, NULL }
};
