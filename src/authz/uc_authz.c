/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_authz.h"

#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <jansson.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_grants.h"
#include "../store/uc_share_recipients.h"
#include "../store/uc_staging.h"

static uc_error_t *catalog_not_found(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, UC_E_CATALOG_NOT_FOUND,
                         "Catalog not found: %s", name);
}

/* The securables directly under the metastore besides catalogs: what a
 * missing one is called in its 404. */
static const struct {
    uc_securable_type_t type;
    const char *label;
} top_labels[] = {
    { UC_TYPE_CREDENTIAL, "Credential" },
    { UC_TYPE_EXTERNAL_LOCATION, "External location" },
    { UC_TYPE_SHARE, "Share" },
    { UC_TYPE_RECIPIENT, "Recipient" },
    { UC_TYPE_PROVIDER, "Provider" },
    { UC_TYPE_TAG_POLICY, "Tag policy" },
};

static const char *top_label(uc_securable_type_t type)
{
    size_t i;

    for (i = 0; i < sizeof(top_labels) / sizeof(top_labels[0]); i++)
        if (top_labels[i].type == type)
            return top_labels[i].label;
    return NULL;
}

static uc_error_t *top_not_found(uc_call_t *call, uc_securable_type_t type,
                                 const char *name)
{
    if (type == UC_TYPE_CATALOG)
        return catalog_not_found(call, name);
    return uc_error_make(call->pool, UC_E_NOT_FOUND, "%s not found: %s",
                         top_label(type), name);
}

static uc_error_t *schema_not_found(uc_call_t *call, const char *catalog,
                                    const char *schema)
{
    return uc_error_make(call->pool, UC_E_SCHEMA_NOT_FOUND,
                         "Schema not found: %s.%s", catalog, schema);
}

static uc_error_t *add_metastore(uc_call_t *call, uc_chain_t *chain)
{
    uc_securable_t *ms = apr_pcalloc(call->pool, sizeof(*ms));

    ms->id = uc_store_metastore_id(call->store);
    ms->kind = "metastore";
    ms->name = "metastore";
    chain->n = 1;
    chain->sec[UC_LEVEL_METASTORE] = ms;
    chain->type[UC_LEVEL_METASTORE] = UC_TYPE_METASTORE;
    return NULL;
}

/* A securable directly under the metastore: a catalog, or one of the
 * top_labels types. */
static uc_error_t *add_top(uc_call_t *call, uc_securable_type_t type,
                           const char *name, uc_row_lock_t lock,
                           uc_chain_t *chain)
{
    const char *lower, *label = type == UC_TYPE_CATALOG ? "catalog name"
                                                        : "name";
    uc_securable_t *sec;
    uc_error_t *err;

    if (!name || !*name)
        return uc_error_invalid(call->pool, "A %s is required.", label);
    /* A tag policy's name is its tag key, kept as given. */
    if (type == UC_TYPE_TAG_POLICY)
        err = uc_validate_tag_text(call->pool, "tag_key", lower = name);
    else
        err = uc_validate_name(call->pool, label, name, &lower);
    if (err ||
        (err = add_metastore(call, chain)) ||
        (err = uc_securable_get(call->store, call->pool,
                                chain->sec[UC_LEVEL_METASTORE]->id,
                                uc_securable_type_name(type), lower, lock,
                                &sec)))
        return err;
    if (!sec)
        return top_not_found(call, type, lower);
    chain->n = 2;
    chain->sec[UC_LEVEL_CATALOG] = sec;
    chain->type[UC_LEVEL_CATALOG] = type;
    return NULL;
}

static uc_error_t *add_catalog(uc_call_t *call, const char *name,
                               uc_row_lock_t lock, uc_chain_t *chain)
{
    return add_top(call, UC_TYPE_CATALOG, name, lock, chain);
}

/* What a missing object of a schema is called in its 404. */
static uc_error_t *object_not_found(uc_call_t *call, uc_securable_type_t type,
                                    const char *full_name)
{
    static const struct {
        uc_securable_type_t type;
        uc_error_kind_t kind;
        const char *label;
    } names[] = {
        { UC_TYPE_TABLE, UC_E_TABLE_NOT_FOUND, "Table" },
        { UC_TYPE_VOLUME, UC_E_NOT_FOUND, "Volume" },
        { UC_TYPE_FUNCTION, UC_E_NOT_FOUND, "Function" },
        { UC_TYPE_REGISTERED_MODEL, UC_E_NOT_FOUND, "Registered model" },
        { UC_TYPE_AGENT, UC_E_NOT_FOUND, "Agent" },
        { UC_TYPE_AGENT_SKILL, UC_E_NOT_FOUND, "Agent skill" },
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]) - 1; i++)
        if (names[i].type == type)
            break;
    return uc_error_make(call->pool, names[i].kind, "%s not found: %s",
                         names[i].label, full_name);
}

static uc_error_t *add_schema_named(uc_call_t *call, const char *catalog,
                                    const char *schema, uc_row_lock_t lock,
                                    uc_chain_t *chain)
{
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = add_catalog(call, catalog, UC_LOCK_SHARE, chain)) ||
        (err = uc_validate_name(call->pool, "schema name", schema,
                                &schema)) ||
        (err = uc_securable_get(call->store, call->pool,
                                chain->sec[UC_LEVEL_CATALOG]->id,
                                UC_KIND_SCHEMA, schema, lock, &sec)))
        return err;
    if (!sec)
        return schema_not_found(call, chain->sec[UC_LEVEL_CATALOG]->name,
                                schema);
    chain->n = 3;
    chain->sec[UC_LEVEL_SCHEMA] = sec;
    chain->type[UC_LEVEL_SCHEMA] = UC_TYPE_SCHEMA;
    return NULL;
}

static uc_error_t *add_schema(uc_call_t *call, const char *full_name,
                              uc_row_lock_t lock, uc_chain_t *chain)
{
    const char *names[2];
    uc_error_t *err = uc_validate_full_name(call->pool, "schema full name",
                                            full_name, 2, names);

    return err ? err : add_schema_named(call, names[0], names[1], lock,
                                        chain);
}

static uc_error_t *add_object_named(uc_call_t *call, const char *catalog,
                                    const char *schema, const char *name,
                                    uc_securable_type_t type,
                                    uc_row_lock_t lock, uc_chain_t *chain)
{
    uc_securable_t *sec;
    uc_error_t *err;

    if ((err = add_schema_named(call, catalog, schema, UC_LOCK_SHARE,
                                chain)) ||
        (err = uc_validate_name(call->pool, "name", name, &name)) ||
        (err = uc_securable_get(call->store, call->pool,
                                chain->sec[UC_LEVEL_SCHEMA]->id,
                                uc_securable_type_name(type), name, lock,
                                &sec)))
        return err;
    if (!sec)
        return object_not_found(call, type, apr_pstrcat(
            call->pool, chain->sec[UC_LEVEL_CATALOG]->name, ".",
            chain->sec[UC_LEVEL_SCHEMA]->name, ".", name, NULL));
    chain->n = 4;
    chain->sec[UC_LEVEL_OBJECT] = sec;
    chain->type[UC_LEVEL_OBJECT] = type;
    return NULL;
}

static uc_error_t *add_object(uc_call_t *call, const char *full_name,
                              uc_securable_type_t type, uc_row_lock_t lock,
                              uc_chain_t *chain)
{
    const char *names[3];
    uc_error_t *err = uc_validate_full_name(
        call->pool, apr_pstrcat(call->pool, uc_securable_type_name(type),
                                " full name", NULL),
        full_name, 3, names);

    return err ? err : add_object_named(call, names[0], names[1], names[2],
                                        type, lock, chain);
}

/* A row by id that must be of `kind`; NULL when it is not there. */
static uc_error_t *row_of_kind(uc_call_t *call, const char *id,
                               const char *kind, uc_securable_t **out)
{
    uc_error_t *err = uc_securable_by_id(call->store, call->pool, id, out);

    if (!err && *out && strcmp((*out)->kind, kind) != 0)
        *out = NULL;
    return err;
}

/* An open staging reservation stands for the table it will be: its
 * creator owns it. */
static uc_error_t *staged_table(uc_call_t *call, const char *id,
                                uc_securable_t **out)
{
    uc_staging_t *st;
    uc_securable_t *sec;
    uc_error_t *err = uc_staging_open_by_id(call->store, call->pool, id, &st);

    *out = NULL;
    if (err || !st)
        return err;
    sec = apr_pcalloc(call->pool, sizeof(*sec));
    sec->id = st->id;
    sec->kind = "staging table";
    sec->parent_id = st->schema_id;
    sec->name = st->name;
    sec->storage_location = st->location;
    sec->owner = st->created_by;
    sec->created_at = sec->updated_at = st->created_at;
    sec->created_by = sec->updated_by = st->created_by;
    sec->properties = sec->details = "{}";
    *out = sec;
    return NULL;
}

static uc_error_t *add_object_by_id(uc_call_t *call, const char *id,
                                    uc_securable_type_t type,
                                    uc_chain_t *chain)
{
    uc_securable_t *obj, *schema = NULL, *catalog = NULL;
    uc_error_t *err;

    if ((err = add_metastore(call, chain)) ||
        (err = row_of_kind(call, id, uc_securable_type_name(type), &obj)) ||
        (!obj && type == UC_TYPE_TABLE &&
         (err = staged_table(call, id, &obj))) ||
        (obj && (err = row_of_kind(call, obj->parent_id, UC_KIND_SCHEMA,
                                   &schema))) ||
        (schema && (err = row_of_kind(call, schema->parent_id,
                                      UC_KIND_CATALOG, &catalog))))
        return err;
    if (!catalog)
        return object_not_found(call, type, id);
    chain->n = 4;
    chain->sec[UC_LEVEL_CATALOG] = catalog;
    chain->type[UC_LEVEL_CATALOG] = UC_TYPE_CATALOG;
    chain->sec[UC_LEVEL_SCHEMA] = schema;
    chain->type[UC_LEVEL_SCHEMA] = UC_TYPE_SCHEMA;
    chain->sec[UC_LEVEL_OBJECT] = obj;
    chain->type[UC_LEVEL_OBJECT] = type;
    return NULL;
}

uc_error_t *uc_authz_resolve_id(uc_call_t *call, const char *id,
                                uc_securable_type_t type, uc_chain_t *out)
{
    memset(out, 0, sizeof(*out));
    return add_object_by_id(call, id, type, out);
}

uc_error_t *uc_authz_resolve(uc_call_t *call, const char *type,
                             const char *full_name, uc_row_lock_t lock,
                             uc_chain_t *out)
{
    int t = uc_securable_type_parse(type);

    memset(out, 0, sizeof(*out));
    switch (t) {
    case UC_TYPE_METASTORE:
        return add_metastore(call, out);
    case UC_TYPE_CATALOG:
    case UC_TYPE_CREDENTIAL:
    case UC_TYPE_EXTERNAL_LOCATION:
    case UC_TYPE_SHARE:
    case UC_TYPE_RECIPIENT:
    case UC_TYPE_PROVIDER:
    case UC_TYPE_TAG_POLICY:
        return add_top(call, (uc_securable_type_t)t, full_name, lock, out);
    case UC_TYPE_SCHEMA:
        return add_schema(call, full_name, lock, out);
    case UC_TYPE_TABLE:
    case UC_TYPE_VOLUME:
    case UC_TYPE_FUNCTION:
    case UC_TYPE_REGISTERED_MODEL:
    case UC_TYPE_AGENT:
    case UC_TYPE_AGENT_SKILL:
        return add_object(call, full_name, (uc_securable_type_t)t, lock,
                          out);
    case -1:
        return uc_error_invalid(call->pool, "Unknown securable type '%s'.",
                                type);
    default:
        /* A known type this catalog does not hold objects of yet. */
        return uc_error_make(call->pool, UC_E_NOT_FOUND,
                             "No %s named '%s'.", type, full_name);
    }
}

/* The entity types of tag assignments and ABAC policies, as their APIs
 * spell them; policies are defined on the first three only. */
static const struct {
    const char *name;
    uc_securable_type_t type;
} entity_types[] = {
    { "catalogs", UC_TYPE_CATALOG },
    { "schemas", UC_TYPE_SCHEMA },
    { "tables", UC_TYPE_TABLE },
    { "volumes", UC_TYPE_VOLUME },
    { "columns", UC_TYPE_TABLE },
};
#define POLICY_SCOPES 3
#define COLUMNS_ENTITY 4

/* "main.sales.orders.id": the table's full name and the column, which may
 * itself hold dots. */
static uc_error_t *split_column(uc_call_t *call, const char *name,
                                const char **table)
{
    const char *p, *third = NULL;
    int dots = 0;

    for (p = name; *p && !third; p++)
        if (*p == '.' && ++dots == 3)
            third = p;
    if (!third || !third[1])
        return uc_error_invalid(call->pool, "Invalid column name '%s': "
                                "expected catalog.schema.table.column.",
                                name);
    *table = apr_pstrndup(call->pool, name, (apr_size_t)(third - name));
    call->column = third + 1;
    return NULL;
}

static uc_error_t *add_entity(uc_call_t *call, const char *type,
                              const char *name, int scopes,
                              uc_row_lock_t lock, uc_chain_t *chain)
{
    int i;
    uc_error_t *err;

    for (i = 0; i < scopes; i++)
        if (type && strcmp(type, entity_types[i].name) == 0)
            break;
    if (i == scopes)
        return uc_error_invalid(call->pool, "Unsupported %s '%s': one of "
                                "catalogs, schemas, tables%s.",
                                scopes == POLICY_SCOPES ? "on_securable_type"
                                                        : "entity_type",
                                type ? type : "",
                                scopes == POLICY_SCOPES
                                ? "" : ", columns, volumes");
    if (!name || !*name)
        return uc_error_invalid(call->pool, "An entity name is required.");
    if (i == COLUMNS_ENTITY && (err = split_column(call, name, &name)))
        return err;
    switch (entity_types[i].type) {
    case UC_TYPE_CATALOG:
        return add_catalog(call, name, lock, chain);
    case UC_TYPE_SCHEMA:
        return add_schema(call, name, lock, chain);
    default:
        return add_object(call, name, entity_types[i].type, lock, chain);
    }
}

/* The metastore privileges that act on every securable of one kind under
 * it, as Databricks has them: USE SHARE on every share (with SET SHARE
 * PERMISSION, which grants recipients on them), USE RECIPIENT on every
 * recipient, USE PROVIDER on every provider. They are in force on such a
 * securable though it cannot be granted them itself. */
static uc_privset_t metastore_reach(uc_privset_t metastore,
                                    uc_securable_type_t type)
{
    uc_privset_t reach = type == UC_TYPE_SHARE
                         ? UC_PRIV(UC_PRIV_USE_SHARE) |
                           UC_PRIV(UC_PRIV_SET_SHARE_PERMISSION)
                       : type == UC_TYPE_RECIPIENT
                         ? UC_PRIV(UC_PRIV_USE_RECIPIENT)
                       : type == UC_TYPE_PROVIDER
                         ? UC_PRIV(UC_PRIV_USE_PROVIDER) : 0;

    return metastore & reach;
}

void uc_access_compute(const uc_principal_t *who, const uc_chain_t *chain,
                       const uc_privset_t *direct, uc_access_t *out)
{
    uc_privset_t inherited = 0;
    int i;

    memset(out, 0, sizeof(*out));
    out->owns_from = UC_LEVELS;
    if (who->admin) {
        out->admin = 1;
        out->owns_from = UC_LEVEL_METASTORE;
        for (i = 0; i < chain->n; i++)
            out->effective[i] = uc_privileges_grantable(chain->type[i]);
        return;
    }
    for (i = chain->n - 1; i > UC_LEVEL_METASTORE; i--)
        if (uc_principal_is(who, chain->sec[i]->owner))
            out->owns_from = i;
    /* What is granted on the metastore stays there (Unity Catalog: its
     * securables are not the metastore's children), so that CREATE
     * EXTERNAL LOCATION on the metastore does not open every credential. */
    out->effective[UC_LEVEL_METASTORE] =
        direct[UC_LEVEL_METASTORE] &
        uc_privileges_grantable(UC_TYPE_METASTORE);
    for (i = UC_LEVEL_METASTORE + 1; i < chain->n; i++) {
        inherited |= direct[i];
        out->effective[i] = uc_privileges_expand(inherited, chain->type[i]) &
                            uc_privileges_grantable(chain->type[i]);
    }
    if (chain->n > UC_LEVEL_CATALOG)
        out->effective[UC_LEVEL_CATALOG] |= metastore_reach(
            direct[UC_LEVEL_METASTORE], chain->type[UC_LEVEL_CATALOG]);
}

/* The caller's grants on the chain: by primary-key probes for a caller
 * without groups (most requests), by principal list otherwise. */
static uc_error_t *load_grants(uc_call_t *call, const uc_chain_t *chain,
                               apr_array_header_t **grants)
{
    const char *path[UC_LEVELS];
    json_t *ids;
    int i;

    for (i = 0; i < chain->n; i++)
        path[i] = chain->sec[i]->id;
    if (call->who->groups->nelts == 0)
        return uc_grants_of_user_on_path(call->store, call->pool, path,
                                         chain->n, call->who->name, grants);
    ids = uc_json_own(call->pool, json_array());
    for (i = 0; i < chain->n; i++)
        json_array_append_new(ids, json_string(path[i]));
    return uc_grants_held(call->store, call->pool,
                          uc_json_dump(call->pool, ids), call->who->json,
                          grants);
}

uc_error_t *uc_authz_evaluate(uc_call_t *call, const uc_chain_t *chain,
                              uc_access_t *out)
{
    uc_privset_t direct[UC_LEVELS] = { 0 };
    apr_array_header_t *grants;
    int i, j;
    uc_error_t *err;

    if (!call->who->admin) {
        if ((err = load_grants(call, chain, &grants)))
            return err;
        for (j = 0; j < grants->nelts; j++) {
            const uc_grant_t *g = &APR_ARRAY_IDX(grants, j, uc_grant_t);
            int p = uc_privilege_parse(g->privilege);
            for (i = 0; p >= 0 && i < chain->n; i++)
                if (strcmp(chain->sec[i]->id, g->securable_id) == 0)
                    direct[i] |= UC_PRIV(p);
        }
    }
    uc_access_compute(call->who, chain, direct, out);
    return NULL;
}

int uc_access_has(const uc_access_t *a, int level, uc_privset_t any)
{
    return a->admin || a->owns_from <= level || (a->effective[level] & any);
}

int uc_access_owns(const uc_access_t *a, int level)
{
    return a->admin || a->owns_from <= level;
}

static uc_error_t *body_field(uc_call_t *call, const char *field,
                              const char **out)
{
    return uc_json_string_field(call->pool, call->body, field, 1, out);
}

static uc_error_t *query_field(uc_call_t *call, const char *field,
                               const char **out)
{
    *out = apr_table_get(call->query, field);
    if (!*out || !**out)
        return uc_error_invalid(call->pool, "Missing required query "
                                "parameter '%s'.", field);
    return NULL;
}

/* Calls that change or delete their target hold it for update; the others
 * (reads, and additions below the target) share their rows. A POST to an
 * object's path changes it (the UC Delta API's updates, commits and
 * renames): two such calls that first shared the row would deadlock
 * taking it for update. */
static uc_row_lock_t target_lock(const uc_call_t *call, const uc_rule_t *rule)
{
    return call->method == UC_PATCH || call->method == UC_DELETE ||
           rule->target == UC_TARGET_OBJECT_FIELDS ||
           (rule->target == UC_TARGET_OBJECT_PATH && call->method == UC_POST)
           ? UC_LOCK_UPDATE : UC_LOCK_SHARE;
}

static uc_error_t *resolve_target(uc_call_t *call, const uc_rule_t *rule)
{
    const char *catalog = NULL, *schema = NULL, *name = NULL;
    uc_chain_t *chain = &call->chain;
    uc_row_lock_t lock = target_lock(call, rule);
    uc_error_t *err;

    memset(chain, 0, sizeof(*chain));
    call->column = NULL;
    switch (rule->target) {
    case UC_TARGET_PUBLIC:
    case UC_TARGET_CALLER:
        return NULL;
    case UC_TARGET_METASTORE:
        return add_metastore(call, chain);
    case UC_TARGET_CATALOG:
        return add_catalog(call, call->params[0], lock, chain);
    case UC_TARGET_TOP_OBJECT:
        return add_top(call, rule->type, call->params[0], lock, chain);
    case UC_TARGET_CATALOG_FIELD:
        if ((err = body_field(call, "catalog_name", &catalog)))
            return err;
        return add_catalog(call, catalog, lock, chain);
    case UC_TARGET_CATALOG_QUERY:
        if ((err = query_field(call, rule->field ? rule->field
                                                 : "catalog_name",
                               &catalog)))
            return err;
        return add_catalog(call, catalog, lock, chain);
    case UC_TARGET_SCHEMA:
        return add_schema(call, call->params[0], lock, chain);
    case UC_TARGET_SCHEMA_FIELDS:
        if ((err = body_field(call, "catalog_name", &catalog)) ||
            (err = body_field(call, "schema_name", &schema)))
            return err;
        return add_schema_named(call, catalog, schema, lock, chain);
    case UC_TARGET_SCHEMA_QUERY_OR_METASTORE:
        if (!apr_table_get(call->query, "catalog_name") &&
            !apr_table_get(call->query, "schema_name"))
            return add_metastore(call, chain);
        /* fall through */
    case UC_TARGET_SCHEMA_QUERY:
        if ((err = query_field(call, "catalog_name", &catalog)) ||
            (err = query_field(call, "schema_name", &schema)))
            return err;
        return add_schema_named(call, catalog, schema, lock, chain);
    case UC_TARGET_SCHEMA_PATH:
        return add_schema_named(call, call->params[0], call->params[1], lock,
                                chain);
    case UC_TARGET_OBJECT_SCHEMA: {
        const char *names[3];
        if ((err = uc_validate_full_name(call->pool, "full name",
                                         call->params[0], 3, names)))
            return err;
        return add_schema_named(call, names[0], names[1], lock, chain);
    }
    case UC_TARGET_OBJECT:
        return add_object(call, call->params[0], rule->type, lock, chain);
    case UC_TARGET_OBJECT_FIELDS:
        if ((err = body_field(call, "catalog_name", &catalog)) ||
            (err = body_field(call, "schema_name", &schema)) ||
            (err = body_field(call, rule->field, &name)))
            return err;
        return add_object_named(call, catalog, schema, name, rule->type,
                                lock, chain);
    case UC_TARGET_OBJECT_PATH:
        return add_object_named(call, call->params[0], call->params[1],
                                call->params[2], rule->type, lock, chain);
    case UC_TARGET_OBJECT_ID:
        if ((err = body_field(call, rule->field, &name)))
            return err;
        return add_object_by_id(call, name, rule->type, chain);
    case UC_TARGET_OBJECT_ID_PATH:
        return add_object_by_id(call, call->params[0], rule->type, chain);
    case UC_TARGET_SECURABLE:
        return uc_authz_resolve(call, call->params[0], call->params[1],
                                lock, chain);
    case UC_TARGET_TAGGED_ENTITY:
        return add_entity(call, call->params[0], call->params[1],
                          sizeof(entity_types) / sizeof(entity_types[0]),
                          lock, chain);
    case UC_TARGET_TAGGED_ENTITY_FIELDS:
        if ((err = body_field(call, "entity_type", &catalog)) ||
            (err = body_field(call, "entity_name", &name)))
            return err;
        return add_entity(call, catalog, name,
                          sizeof(entity_types) / sizeof(entity_types[0]),
                          lock, chain);
    case UC_TARGET_POLICY_SCOPE:
        return add_entity(call, call->params[0], call->params[1],
                          POLICY_SCOPES, lock, chain);
    case UC_TARGET_RECIPIENT:
    case UC_TARGET_RECIPIENT_SHARE:
        break;
    }
    return uc_error_internal(call->pool);
}

int uc_access_sees(const uc_access_t *a, const uc_chain_t *chain, int browse)
{
    int target = chain->n - 1;

    return target <= UC_LEVEL_METASTORE ||
           uc_access_has(a, target, UC_ANY_PRIVILEGE) ||
           (browse && uc_access_has(a, UC_LEVEL_CATALOG,
                                    UC_PRIV(UC_PRIV_BROWSE)));
}

/* The 404 of a missing `level` of `c`, named as its resolution names it. */
static uc_error_t *level_not_found(uc_call_t *call, const uc_chain_t *c,
                                   int level)
{
    if (level == UC_LEVEL_CATALOG)
        return top_not_found(call, c->type[UC_LEVEL_CATALOG],
                             c->sec[UC_LEVEL_CATALOG]->name);
    if (level == UC_LEVEL_SCHEMA)
        return schema_not_found(call, c->sec[UC_LEVEL_CATALOG]->name,
                                c->sec[UC_LEVEL_SCHEMA]->name);
    return object_not_found(call, c->type[level], apr_pstrcat(
        call->pool, c->sec[UC_LEVEL_CATALOG]->name, ".",
        c->sec[UC_LEVEL_SCHEMA]->name, ".", c->sec[level]->name, NULL));
}

/* The highest level of a chain above `below` at which the caller holds
 * nothing; `below` when it holds something at each. */
static int unseen_level(const uc_access_t *a, int below)
{
    int level = UC_LEVEL_CATALOG;

    while (level < below && uc_access_has(a, level, UC_ANY_PRIVILEGE))
        level++;
    return level;
}

/* The 404 a caller gets for an object it may not know about: about the
 * highest level at which it holds nothing, so that not even the existence
 * of the catalog shows. */
static uc_error_t *hidden(uc_call_t *call, const uc_chain_t *c,
                          const uc_access_t *a)
{
    return level_not_found(call, c, unseen_level(a, c->n - 1));
}

/* A resolution that found the levels of `chain` and then `missed`: that
 * 404 as it is, unless the caller may not know of a level found (with
 * `browse`, BROWSE on the catalog shows them all); then that level's, as
 * for a hidden object below it, so that a missing name tells no more than
 * a hidden one. */
static uc_error_t *missing(uc_call_t *call, const uc_chain_t *chain,
                           uc_error_t *missed, int browse)
{
    uc_access_t a;
    int level;
    uc_error_t *err;

    if (!uc_error_is_missing(missed) || chain->n <= UC_LEVEL_CATALOG)
        return missed;
    if ((err = uc_authz_evaluate(call, chain, &a)))
        return err;
    if (browse && uc_access_has(&a, UC_LEVEL_CATALOG,
                                UC_PRIV(UC_PRIV_BROWSE)))
        return missed;
    level = unseen_level(&a, chain->n);
    return level < chain->n ? level_not_found(call, chain, level) : missed;
}

uc_error_t *uc_authz_resolve_named(uc_call_t *call, const char *type,
                                   const char *full_name, uc_row_lock_t lock,
                                   uc_chain_t *chain, uc_access_t *access)
{
    uc_error_t *err = uc_authz_resolve(call, type, full_name, lock, chain);

    if (err)
        return missing(call, chain, err, 1);
    return uc_authz_evaluate(call, chain, access);
}

uc_error_t *uc_authz_unseen(uc_call_t *call, const uc_chain_t *chain,
                            const uc_access_t *access)
{
    return uc_access_sees(access, chain, 1) ? NULL
                                            : hidden(call, chain, access);
}

/* An object named by its id that the caller may not know about: as
 * missing as an unknown id, so that nothing of its names shows. */
/* The object of an id the caller may not see: as missing, by that id. */
static uc_error_t *hidden_id(uc_call_t *call, const uc_rule_t *rule)
{
    const char *id = NULL;
    uc_error_t *err;

    if (rule->target == UC_TARGET_OBJECT_ID_PATH)
        return object_not_found(call, rule->type, call->params[0]);
    err = body_field(call, rule->field, &id);
    return err ? err : object_not_found(call, rule->type, id);
}

static uc_error_t *denied(uc_call_t *call, uc_privset_t needed,
                          uc_securable_type_t type, const char *name,
                          int browsing)
{
    apr_array_header_t *names = uc_privileges_names(call->pool, needed);
    const char *list = needed == UC_ANY_PRIVILEGE ? "a privilege"
                     : apr_array_pstrcat(call->pool, names, '|');

    return uc_error_make(call->pool, UC_E_PERMISSION_DENIED,
                         "Access denied: %s needed on %s '%s'%s.", list,
                         uc_securable_type_name(type), name,
                         browsing ? " (BROWSE shows metadata with "
                                    "include_browse=true)" : "");
}

/* What the Delta Sharing server answers for a share the recipient may not
 * read, granted to others or missing alike (the reference's words). */
static uc_error_t *share_not_found(uc_call_t *call, const char *name)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "share '%s' not found", name);
}

/* A recipient's rights are its grants of shares, not privileges: the
 * chain is the metastore and the share, and nothing is evaluated. */
static uc_error_t *resolve_recipient(uc_call_t *call, const uc_rule_t *rule)
{
    uc_chain_t *chain = &call->chain;
    uc_securable_t *share;
    char *name, *p;
    uc_error_t *err;

    memset(chain, 0, sizeof(*chain));
    if (!call->recipient_id)
        return uc_error_make(call->pool, UC_E_UNAUTHENTICATED,
                             "A recipient's bearer token is required.");
    if (rule->target == UC_TARGET_RECIPIENT)
        return NULL;
    name = apr_pstrdup(call->pool, call->params[0]);
    for (p = name; *p; p++)
        *p = (char)apr_tolower(*p);
    if ((err = add_metastore(call, chain)) ||
        (err = uc_share_recipient_share(call->store, call->pool,
                                        call->recipient_id, name, &share)))
        return err;
    if (!share)
        return share_not_found(call, call->params[0]);
    chain->n = 2;
    chain->sec[UC_LEVEL_CATALOG] = share;
    chain->type[UC_LEVEL_CATALOG] = UC_TYPE_SHARE;
    return NULL;
}

uc_error_t *uc_authz_enforce(uc_call_t *call, const uc_rule_t *rule)
{
    const uc_need_t *need;
    int target, include_browse = 0, browsing;
    uc_error_t *err;

    if (!rule)
        return uc_error_make(call->pool, UC_E_INTERNAL,
                             "This route declares no authorization rule.");
    if (rule->browse &&
        (err = uc_validate_query_bool(call->pool, "include_browse",
                                      apr_table_get(call->query,
                                                    "include_browse"),
                                      0, &include_browse)))
        return err;
    /* An open route has no caller to weigh, perhaps none at all. */
    if (rule->target == UC_TARGET_PUBLIC)
        return NULL;
    if (rule->target == UC_TARGET_RECIPIENT ||
        rule->target == UC_TARGET_RECIPIENT_SHARE)
        return resolve_recipient(call, rule);
    if (!call->who)
        return call->recipient_id
               ? uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "A "
                               "recipient reads the shares granted to it; "
                               "managing shares needs a catalog principal.")
               : uc_error_make(call->pool, UC_E_UNAUTHENTICATED,
                               "Authentication is required.");
    if ((err = resolve_target(call, rule)))
        return missing(call, &call->chain, err, rule->browse);
    memset(&call->access, 0, sizeof(call->access));
    call->access.admin = call->who->admin;
    call->access.owns_from = call->who->admin ? UC_LEVEL_METASTORE
                                              : UC_LEVELS;
    if (call->chain.n == 0)
        return NULL;
    if ((err = uc_authz_evaluate(call, &call->chain, &call->access)))
        return err;
    target = call->chain.n - 1;
    /* BROWSE on a catalog shows the metadata of everything in it. */
    browsing = rule->browse && target >= UC_LEVEL_CATALOG &&
               uc_access_has(&call->access, UC_LEVEL_CATALOG,
                             UC_PRIV(UC_PRIV_BROWSE));
    if (!rule->visible &&
        !uc_access_sees(&call->access, &call->chain, rule->browse))
        return rule->target == UC_TARGET_OBJECT_ID ||
               rule->target == UC_TARGET_OBJECT_ID_PATH
               ? hidden_id(call, rule)
               : hidden(call, &call->chain, &call->access);
    for (need = rule->needs; need < rule->needs + 3 && need->any; need++) {
        int level = need->level == UC_LEVEL_TARGET ? target : need->level;
        /* A need below the target does not apply (a catalog-level need
         * when the target is the metastore), nor one the securable at its
         * level cannot hold (USE CATALOG when that is a credential). */
        if (level > target ||
            !(need->any & uc_privileges_grantable(call->chain.type[level])) ||
            uc_access_has(&call->access, level, need->any))
            continue;
        if (browsing && (include_browse || rule->browse == UC_BROWSE_ALWAYS)) {
            call->browse_only = 1;
            return NULL;
        }
        return denied(call, need->any, call->chain.type[level],
                      call->chain.sec[level]->name, browsing);
    }
    return NULL;
}
