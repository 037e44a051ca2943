/* SPDX-License-Identifier: Apache-2.0 */
/* GET /object-summaries: the objects of one type (volumes, functions,
 * registered models, agents, agent skills; tables too, as table-summaries
 * lists them) across the schemas of a catalog, whose names match LIKE
 * patterns, a keyset page at a time and only those the caller may see:
 * what finds an object by part of its name in a catalog of 10^5 of them.
 * table-summaries is Unity Catalog's; this is its generalisation. */
#include "uc_api.h"

#include <string.h>

#include "../core/uc_json.h"

/* The types it lists, as the permissions API names them. */
static const struct {
    const char *type;
    const uc_api_family_t *const *family;
} listed[] = {
    { "table", &uc_table_family },
    { "volume", &uc_volume_family },
    { "function", &uc_function_family },
    { "registered_model", &uc_model_family },
    { "agent", &uc_agent_family },
    { "agent_skill", &uc_agent_skill_family },
};

static void render(uc_call_t *call, uc_jw_t *out, const uc_nested_row_t *row)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "full_name", uc_api_nested_full_name(call, row));
    uc_jw_field_string(out, "catalog_name", row->catalog_name);
    uc_jw_field_string(out, "schema_name", row->schema_name);
    uc_jw_field_string(out, "name", row->sec->name);
    uc_jw_field_string(out, "owner", row->sec->owner);
    uc_jw_field_string(out, "comment", row->sec->comment);
    uc_jw_end_object(out);
}

static uc_error_t *object_summaries(uc_call_t *call, uc_jw_t *out)
{
    const char *type = apr_table_get(call->query, "object_type");
    const char *schemas, *names;
    size_t i;
    uc_error_t *err;

    for (i = 0; type && i < sizeof(listed) / sizeof(listed[0]); i++)
        if (strcmp(type, listed[i].type) == 0)
            break;
    if (!type || i == sizeof(listed) / sizeof(listed[0]))
        return uc_error_invalid(call->pool, "Query parameter 'object_type' "
                                "must be one of table, volume, function, "
                                "registered_model, agent, agent_skill.");
    if ((err = uc_api_like_pattern(call, "schema_name_pattern", &schemas)) ||
        (err = uc_api_like_pattern(call, "name_pattern", &names)))
        return err;
    return uc_api_list_across(call, out, *listed[i].family,
                              call->chain.sec[UC_LEVEL_CATALOG]->id, schemas,
                              names, render);
}

static const uc_rule_t summaries_rule = {
    UC_TARGET_CATALOG_QUERY, { UC_NEED_USE_CATALOG } };

const uc_route_t uc_object_summary_routes[] = {
    { UC_GET, "/object-summaries", object_summaries, 0, &summaries_rule },
    { 0, NULL, NULL, 0, NULL }
};
