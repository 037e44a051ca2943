/* SPDX-License-Identifier: Apache-2.0 */
/* Entity tag assignments (/entity-tag-assignments): tags on catalogs,
 * schemas, tables, volumes and the columns of tables, one value (or none)
 * per key per entity. Tags are read with what reads the entity and
 * changed with MANAGE on it (or its ownership); a governed key (one with
 * a tag policy) also needs ASSIGN or MANAGE on its policy and takes only
 * the policy's values when it lists some. Tags are stored by the
 * entity's id, so a rename keeps them and a delete takes them. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_entity_tags.h"
#include "../store/uc_grants.h"

#define P UC_PRIV

/* Databricks' limit of tags on one object. */
#define TAGS_PER_ENTITY_MAX 50

/* What the call's rule resolved, as an assignment names it. */
typedef struct entity {
    const char *type;              /* "tables", as the API spells it */
    const char *name;              /* full name, column included */
    const char *id;                /* the securable's */
    const char *column;            /* as the table spells it, or "" */
} entity_t;

static const char *const plural[UC_TYPE_COUNT] = {
    [UC_TYPE_CATALOG] = "catalogs", [UC_TYPE_SCHEMA] = "schemas",
    [UC_TYPE_TABLE] = "tables", [UC_TYPE_VOLUME] = "volumes",
};

static const char *chain_name(uc_call_t *call)
{
    return uc_api_chain_name(call, &call->chain, call->chain.n - 1);
}

/* The column of the table the call names, as the table spells it (column
 * names are case-insensitive). */
static uc_error_t *find_column(uc_call_t *call, const char **out)
{
    json_t *columns = json_object_get(uc_api_details(call,
                                                     UC_TARGET_OF(call)),
                                      "columns");
    size_t i;

    for (i = 0; i < json_array_size(columns); i++) {
        const char *name = json_string_value(
            json_object_get(json_array_get(columns, i), "name"));
        if (name && strcasecmp(name, call->column) == 0) {
            *out = name;
            return NULL;
        }
    }
    return uc_error_make(call->pool, UC_E_NOT_FOUND, "Column '%s' not found "
                         "in table %s.", call->column, chain_name(call));
}

static uc_error_t *entity_of(uc_call_t *call, entity_t *e)
{
    uc_error_t *err;

    e->id = UC_TARGET_OF(call)->id;
    e->name = chain_name(call);
    e->column = "";
    e->type = plural[call->chain.type[call->chain.n - 1]];
    if (!call->column)
        return NULL;
    if ((err = find_column(call, &e->column)))
        return err;
    e->type = "columns";
    e->name = apr_pstrcat(call->pool, e->name, ".", e->column, NULL);
    return NULL;
}

static void render(uc_jw_t *out, const entity_t *e, const uc_entity_tag_t *t)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "entity_type", e->type);
    uc_jw_field_string(out, "entity_name", e->name);
    uc_jw_field_string(out, "tag_key", t->tag_key);
    if (t->tag_value)
        uc_jw_field_string(out, "tag_value", t->tag_value);
    uc_jw_end_object(out);
}

/* SET_TAG / UNSET_TAG of the entity: the tag's key where a grant's
 * principal goes, its value where the privilege does. */
static uc_error_t *audit(uc_call_t *call, const char *action,
                         const entity_t *e, const uc_entity_tag_t *t)
{
    uc_audit_t entry = {
        uc_epoch_ms_text(call->pool, call->now), call->principal, action,
        uc_securable_type_name(call->chain.type[call->chain.n - 1]), e->id,
        e->name, t->tag_key, t->tag_value
    };
    return uc_audit_add(call->store, &entry);
}

/* The policy governing `key`, once it lets the caller assign the key
 * (ASSIGN or MANAGE on it, its ownership, or a metastore admin); NULL
 * for a key no policy governs. */
static uc_error_t *governing_policy(uc_call_t *call, const char *key,
                                    uc_securable_t **policy)
{
    uc_chain_t chain;
    uc_access_t access;
    uc_error_t *err;

    if ((err = uc_tag_policy_of(call, key, policy)) || !*policy)
        return err;
    memset(&chain, 0, sizeof(chain));
    chain.n = 2;
    chain.sec[UC_LEVEL_METASTORE] = call->chain.sec[UC_LEVEL_METASTORE];
    chain.type[UC_LEVEL_METASTORE] = UC_TYPE_METASTORE;
    chain.sec[UC_LEVEL_CATALOG] = *policy;
    chain.type[UC_LEVEL_CATALOG] = UC_TYPE_TAG_POLICY;
    if ((err = uc_authz_evaluate(call, &chain, &access)))
        return err;
    if (!uc_access_has(&access, UC_LEVEL_CATALOG,
                       P(UC_PRIV_ASSIGN) | P(UC_PRIV_MANAGE)))
        return uc_error_make(call->pool, UC_E_PERMISSION_DENIED,
                             "Access denied: ASSIGN needed on tag_policy "
                             "'%s' to assign the governed tag.", key);
    return NULL;
}

/* A governed key that lists values takes one of them. */
static uc_error_t *check_governed(uc_call_t *call, const char *key,
                                  const char *value)
{
    uc_securable_t *policy;
    json_t *values;
    size_t i;
    uc_error_t *err = governing_policy(call, key, &policy);

    if (err || !policy)
        return err;
    values = uc_tag_policy_values(call, policy);
    if (json_array_size(values) == 0)
        return NULL;
    for (i = 0; value && i < json_array_size(values); i++)
        if (!strcmp(json_string_value(json_array_get(values, i)), value))
            return NULL;
    return uc_error_invalid(call->pool, "Tag '%s' is governed: its value "
                            "must be one of %s%s%s.", key,
                            uc_json_dump(call->pool, values),
                            value ? ", not " : "",
                            value ? value : "");
}

/* tag_value: a tag value, or absent (or "") for a key-only tag. */
static uc_error_t *read_value(uc_call_t *call, json_t *body,
                              const char **value)
{
    uc_error_t *err;

    *value = NULL;
    if ((err = uc_json_string_field(call->pool, body, "tag_value", 0,
                                    value)) || !*value)
        return err;
    if (!**value) {
        *value = NULL;
        return NULL;
    }
    return uc_validate_tag_text(call->pool, "tag_value", *value);
}

static uc_error_t *room_for_one_more(uc_call_t *call, const entity_t *e)
{
    int count;
    uc_error_t *err = uc_entity_tag_count(call->store, call->pool, e->id,
                                          e->column, &count);

    if (err || count < TAGS_PER_ENTITY_MAX)
        return err;
    return uc_error_invalid(call->pool, "%s %s already has %d tags, the "
                            "most an entity may have.", e->type, e->name,
                            TAGS_PER_ENTITY_MAX);
}

/* POST /entity-tag-assignments {"tag_assignment": {entity_type,
 * entity_name, tag_key, tag_value}}. */
static uc_error_t *create_assignment(uc_call_t *call, uc_jw_t *out)
{
    uc_entity_tag_t *t = apr_pcalloc(call->pool, sizeof(*t));
    entity_t e;
    uc_error_t *err;

    if ((err = entity_of(call, &e)) ||
        (err = uc_json_string_field(call->pool, call->body, "tag_key", 1,
                                    &t->tag_key)) ||
        (err = uc_validate_tag_text(call->pool, "tag_key", t->tag_key)) ||
        (err = read_value(call, call->body, &t->tag_value)) ||
        (err = check_governed(call, t->tag_key, t->tag_value)) ||
        (err = room_for_one_more(call, &e)))
        return err;
    t->entity_id = e.id;
    t->column_name = e.column;
    t->created_at = t->updated_at = uc_epoch_ms_text(call->pool, call->now);
    t->created_by = t->updated_by = call->principal;
    err = uc_entity_tag_insert(call->store, t);
    if (uc_store_is_duplicate(err))
        return uc_error_make(call->pool, UC_E_ALREADY_EXISTS, "Tag '%s' is "
                             "already assigned to %s %s; update it instead.",
                             t->tag_key, e.type, e.name);
    if (err || (err = audit(call, "SET_TAG", &e, t)))
        return err;
    render(out, &e, t);
    return NULL;
}

/* The entity's tag of the path's key; a 404 when it has none. */
static uc_error_t *assigned(uc_call_t *call, entity_t *e,
                            uc_entity_tag_t **t)
{
    uc_error_t *err;

    if ((err = entity_of(call, e)) ||
        (err = uc_validate_tag_text(call->pool, "tag_key",
                                    call->params[2])) ||
        (err = uc_entity_tag_get(call->store, call->pool, e->id, e->column,
                                 call->params[2], t)))
        return err;
    if (!*t)
        return uc_error_make(call->pool, UC_E_NOT_FOUND, "Tag '%s' is not "
                             "assigned to %s %s.", call->params[2], e->type,
                             e->name);
    return NULL;
}

static uc_error_t *get_assignment(uc_call_t *call, uc_jw_t *out)
{
    entity_t e;
    uc_entity_tag_t *t;
    uc_error_t *err = assigned(call, &e, &t);

    if (!err)
        render(out, &e, t);
    return err;
}

static uc_error_t *list_assignments(uc_call_t *call, uc_jw_t *out)
{
    entity_t e;
    uc_page_t page;
    apr_array_header_t *tags;
    int more, i;
    uc_error_t *err;

    if ((err = entity_of(call, &e)) || (err = uc_api_page(call, &page)) ||
        (err = uc_entity_tag_page(call->store, call->pool, e.id, e.column,
                                  page.after, page.limit, &tags, &more)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "tag_assignments");
    uc_jw_begin_array(out);
    for (i = 0; i < tags->nelts; i++)
        render(out, &e, APR_ARRAY_IDX(tags, i, uc_entity_tag_t *));
    uc_jw_end_array(out);
    if (more)
        uc_jw_field_string(out, "next_page_token", uc_page_token(
            call->pool,
            APR_ARRAY_IDX(tags, tags->nelts - 1, uc_entity_tag_t *)->tag_key));
    uc_jw_end_object(out);
    return NULL;
}

/* PATCH …/tags/{tag_key} {"tag_assignment": {tag_value}, "update_mask":
 * "tag_value"}: the value is the one field an assignment updates. */
static uc_error_t *update_assignment(uc_call_t *call, uc_jw_t *out)
{
    json_t *inner = json_object_get(call->body, "tag_assignment");
    const char *mask = NULL;
    entity_t e;
    uc_entity_tag_t *t;
    uc_error_t *err;

    if (!json_is_object(inner))
        return uc_error_invalid(call->pool, "Field 'tag_assignment' must be "
                                "an object.");
    if ((err = uc_json_string_field(call->pool, call->body, "update_mask", 0,
                                    &mask)))
        return err;
    if (mask && strcmp(mask, "tag_value") != 0 && strcmp(mask, "*") != 0)
        return uc_error_invalid(call->pool, "update_mask '%s' cannot be "
                                "applied: an assignment updates its "
                                "tag_value.", mask);
    if ((err = assigned(call, &e, &t)))
        return err;
    if (!mask && !json_object_get(inner, "tag_value")) {
        render(out, &e, t);
        return NULL;
    }
    if ((err = read_value(call, inner, &t->tag_value)) ||
        (err = check_governed(call, t->tag_key, t->tag_value)))
        return err;
    t->updated_at = uc_epoch_ms_text(call->pool, call->now);
    t->updated_by = call->principal;
    if ((err = uc_entity_tag_update(call->store, t)) ||
        (err = audit(call, "SET_TAG", &e, t)))
        return err;
    render(out, &e, t);
    return NULL;
}

/* Removing a governed tag needs the right to assign it, as adding did. */
static uc_error_t *delete_assignment(uc_call_t *call, uc_jw_t *out)
{
    entity_t e;
    uc_entity_tag_t *t;
    uc_securable_t *policy;
    uc_error_t *err;

    if ((err = assigned(call, &e, &t)) ||
        (err = governing_policy(call, t->tag_key, &policy)) ||
        (err = uc_entity_tag_delete(call->store, e.id, e.column,
                                    t->tag_key)) ||
        (err = audit(call, "UNSET_TAG", &e, t)))
        return err;
    uc_jw_raw(out, "{}");
    return NULL;
}

/* Reading tags needs what reading the entity needs; changing them needs
 * MANAGE on it. */
#define ENTITY_READ(target) \
    { (target), { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, \
                  { UC_LEVEL_OBJECT, P(UC_PRIV_SELECT) | P(UC_PRIV_MODIFY) | \
                    P(UC_PRIV_READ_VOLUME) | P(UC_PRIV_WRITE_VOLUME) } } }
#define ENTITY_MANAGE(target) \
    { (target), { UC_NEED_USE_CATALOG, UC_NEED_USE_SCHEMA, \
                  { UC_LEVEL_TARGET, P(UC_PRIV_MANAGE) } } }

static const uc_rule_t read_rule = ENTITY_READ(UC_TARGET_TAGGED_ENTITY);
static const uc_rule_t manage_rule = ENTITY_MANAGE(UC_TARGET_TAGGED_ENTITY);
static const uc_rule_t create_rule =
    ENTITY_MANAGE(UC_TARGET_TAGGED_ENTITY_FIELDS);

#define TAGS "/entity-tag-assignments/{entity_type}/{entity_name}/tags"

const uc_route_t uc_entity_tag_routes[] = {
    { UC_POST, "/entity-tag-assignments", create_assignment,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &create_rule, "tag_assignment",
      .audit = "SET_TAG" },
    { UC_GET, TAGS, list_assignments, 0, &read_rule },
    { UC_GET, TAGS "/{tag_key}", get_assignment, 0, &read_rule },
    { UC_PATCH, TAGS "/{tag_key}", update_assignment,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule, .audit = "UPDATE_TAG" },
    { UC_DELETE, TAGS "/{tag_key}", delete_assignment, UC_ROUTE_TXN,
      &manage_rule, .audit = "UNSET_TAG" },
    { 0, NULL, NULL, 0, NULL }
};
