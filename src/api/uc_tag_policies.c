/* SPDX-License-Identifier: Apache-2.0 */
/* Tag policies (/tag-policies): governed tags. A policy makes a tag key
 * governed and may restrict the values it takes; it is a securable under
 * the metastore named by its key (kept as given: tag keys are
 * case-sensitive), with its allowed values in details,
 *     {"values":["low","high"]}
 * and ASSIGN or MANAGE on it let a principal put the key on entities.
 * Every caller may read the definitions, so that it can pick a value. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_entity_tags.h"

#define P UC_PRIV

#define DESCRIPTION_MAX 4096
#define VALUES_MAX 500

static uc_error_t *check_tag_key(apr_pool_t *pool, const char *field,
                                 const char *name, const char **out)
{
    *out = name;
    return uc_validate_tag_text(pool, field, name);
}

json_t *uc_tag_policy_values(uc_call_t *call, const uc_securable_t *policy)
{
    json_t *values = json_object_get(uc_api_details(call, policy), "values");

    return json_is_array(values) ? values : NULL;
}

uc_error_t *uc_tag_policy_of(uc_call_t *call, const char *key,
                             uc_securable_t **out)
{
    uc_error_t *err = uc_validate_tag_text(call->pool, "tag_key", key);

    if (err)
        return err;
    return uc_securable_get(call->store, call->pool,
                            uc_store_metastore_id(call->store),
                            UC_KIND_TAG_POLICY, key, UC_LOCK_SHARE, out);
}

static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    json_t *values = uc_tag_policy_values(call, sec);
    size_t i;

    (void)context;
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "tag_key", sec->name);
    if (sec->comment)
        uc_jw_field_string(out, "description", sec->comment);
    uc_jw_key(out, "values");
    uc_jw_begin_array(out);
    for (i = 0; i < json_array_size(values); i++) {
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "name",
                           json_string_value(json_array_get(values, i)));
        uc_jw_end_object(out);
    }
    uc_jw_end_array(out);
    uc_jw_field_string(out, "id", sec->id);
    uc_jw_field_int_text(out, "created_at", sec->created_at);
    uc_jw_field_int_text(out, "updated_at", sec->updated_at);
    uc_jw_end_object(out);
}

static uc_error_t *read_description(uc_call_t *call, json_t *body,
                                    uc_securable_t *sec)
{
    const char *description = NULL;
    uc_error_t *err = uc_json_string_field(call->pool, body, "description",
                                           0, &description);

    if (!err)
        err = uc_validate_text(call->pool, "description", description,
                               DESCRIPTION_MAX);
    if (!err)
        sec->comment = description && *description ? description : NULL;
    return err;
}

/* "values": [{"name": "low"}, ...], each a tag value, none twice; stored
 * as the array of names. */
static uc_error_t *read_values(uc_call_t *call, json_t *body,
                               uc_securable_t *sec)
{
    json_t *given = json_object_get(body, "values"), *names, *details;
    size_t i, j;
    uc_error_t *err;

    if (given && !json_is_null(given) && !json_is_array(given))
        return uc_error_invalid(call->pool, "Field 'values' must be an "
                                "array of {\"name\": ...} objects.");
    if (json_array_size(given) > VALUES_MAX)
        return uc_error_invalid(call->pool, "A tag policy allows at most %d "
                                "values.", VALUES_MAX);
    names = uc_json_own(call->pool, json_array());
    for (i = 0; i < json_array_size(given); i++) {
        const char *name = NULL;
        json_t *v = json_array_get(given, i);
        if (!json_is_object(v))
            return uc_error_invalid(call->pool, "Field 'values' must be an "
                                    "array of {\"name\": ...} objects.");
        if ((err = uc_json_string_field(call->pool, v, "name", 1, &name)) ||
            (err = uc_validate_tag_text(call->pool, "values.name", name)))
            return err;
        for (j = 0; j < i; j++)
            if (!strcmp(json_string_value(json_array_get(names, j)), name))
                return uc_error_invalid(call->pool, "Value '%s' is listed "
                                        "twice.", name);
        json_array_append_new(names, json_string(name));
    }
    details = uc_api_details(call, sec);
    json_object_set(details, "values", names);
    uc_api_set_details(call, sec, details);
    return NULL;
}

static uc_error_t *prepare_create(uc_call_t *call, uc_securable_t *sec)
{
    uc_error_t *err = read_description(call, call->body, sec);

    return err ? err : read_values(call, call->body, sec);
}

/* Without force=true, values that entities hold stay allowed: an update
 * whose values would leave such entities out is refused. */
static uc_error_t *check_values_in_use(uc_call_t *call,
                                       const uc_securable_t *sec)
{
    json_t *values = uc_tag_policy_values(call, sec);
    int force, count;
    uc_error_t *err;

    if ((err = uc_api_query_flag(call, "force", &force)) || force ||
        json_array_size(values) == 0 ||
        (err = uc_entity_tags_outside(call->store, call->pool, sec->name,
                                      uc_json_dump(call->pool, values),
                                      &count)) || count == 0)
        return err;
    return uc_error_make(call->pool, UC_E_INVALID, "%d entit%s tagged "
                         "'%s' with a value the update no longer allows; "
                         "change their tags first or update with "
                         "force=true.", count, count == 1 ? "y is" : "ies are",
                         sec->name);
}

/* Which of description and values an update sets: those its update_mask
 * names ("*" for both), or without one those its tag_policy holds. */
static uc_error_t *update_fields(uc_call_t *call, json_t *inner,
                                 int *description, int *values)
{
    const char *mask = NULL;
    char *copy, *field, *state;
    uc_error_t *err = uc_json_string_field(call->pool, call->body,
                                           "update_mask", 0, &mask);

    if (err)
        return err;
    if (!mask) {
        *description = json_object_get(inner, "description") != NULL;
        *values = json_object_get(inner, "values") != NULL;
        return NULL;
    }
    *description = *values = 0;
    copy = apr_pstrdup(call->pool, mask);
    for (field = apr_strtok(copy, ", ", &state); field;
         field = apr_strtok(NULL, ", ", &state)) {
        if (!strcmp(field, "*"))
            *description = *values = 1;
        else if (!strcmp(field, "description"))
            *description = 1;
        else if (!strcmp(field, "values"))
            *values = 1;
        else
            return uc_error_invalid(call->pool, "Field '%s' of update_mask "
                                    "cannot be updated: a tag policy "
                                    "updates description and values.",
                                    field);
    }
    return NULL;
}

/* PATCH /tag-policies/{tag_key}: {"tag_policy": {...}, "update_mask":
 * "description,values"}. */
static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    json_t *inner = json_object_get(call->body, "tag_policy");
    const char *key = NULL;
    int description, values;
    uc_error_t *err;

    if (!json_is_object(inner))
        return uc_error_invalid(call->pool, "Field 'tag_policy' must be an "
                                "object.");
    if ((err = uc_json_string_field(call->pool, inner, "tag_key", 0, &key)))
        return err;
    if (key && strcmp(key, sec->name) != 0)
        return uc_error_invalid(call->pool, "The tag_key of a tag policy "
                                "cannot be changed.");
    if ((err = update_fields(call, inner, &description, &values)) ||
        (description && (err = read_description(call, inner, sec))) ||
        (values && ((err = read_values(call, inner, sec)) ||
                    (err = check_values_in_use(call, sec)))))
        return err;
    *changed = description || values;
    return NULL;
}

static uc_visibility_t *all_visible(uc_call_t *call, int include_browse)
{
    (void)include_browse;
    return uc_api_visibility(call, 1, 1, 0, 0);
}

static const uc_api_family_t tag_policies = {
    .type = UC_TYPE_TAG_POLICY, .level = UC_LEVEL_CATALOG,
    .rules = {
        .create = { UC_TARGET_METASTORE,
                    { { UC_LEVEL_METASTORE, P(UC_PRIV_CREATE_TAG_POLICY) } } },
        .list = { UC_TARGET_CALLER, { { 0, 0 } } },
        .read = { UC_TARGET_CALLER, { { 0, 0 } } },
        .manage = { UC_TARGET_TOP_OBJECT,
                    { { UC_LEVEL_TARGET, P(UC_PRIV_MANAGE) } },
                    UC_TYPE_TAG_POLICY, .visible = 1 } },
    .label = "Tag policy", .plural = "tag_policies",
    .exists = UC_E_ALREADY_EXISTS,
    .max_name = 4 * UC_TAG_TEXT_MAX,
    .name_field = "tag_key", .check_name = check_tag_key,
    .audited = 1,
    .render = render, .prepare_create = prepare_create,
    .prepare_update = prepare_update, .visibility = all_visible
};

/* GET /tag-policies/{tag_key}: open to every caller. */
static uc_error_t *get_tag_policy(uc_call_t *call, uc_jw_t *out)
{
    uc_securable_t *sec;
    uc_error_t *err = uc_tag_policy_of(call, call->params[0], &sec);

    if (err)
        return err;
    if (!sec)
        return uc_error_make(call->pool, UC_E_NOT_FOUND,
                             "Tag policy not found: %s", call->params[0]);
    render(call, out, sec, NULL);
    return NULL;
}

const uc_route_t uc_tag_policy_routes[] = {
    UC_ROUTE_CREATE_ENVELOPED(tag_policies, "/tag-policies", "tag_policy"),
    UC_ROUTE_LIST(tag_policies, "/tag-policies"),
    { UC_GET, "/tag-policies/{tag_key}", get_tag_policy, 0,
      &tag_policies.rules.read, NULL, &tag_policies },
    UC_ROUTE_UPDATE(tag_policies, "/tag-policies/{tag_key}"),
    UC_ROUTE_DELETE(tag_policies, "/tag-policies/{tag_key}"),
    { 0, NULL, NULL, 0, NULL }
};
