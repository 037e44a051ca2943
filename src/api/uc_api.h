/* SPDX-License-Identifier: Apache-2.0 */
/* What every Unity Catalog resource family shares: the route tables of the
 * catalog API, and helpers for paging, lookups by name, audit stamps and the
 * common update fields. */
#ifndef UC_API_H
#define UC_API_H

#include "uc_family.h"
#include "../authz/uc_authz.h"

/* Route tables, one per family, and the whole catalog API (NULL-ended). */
extern const uc_route_t uc_catalog_routes[];
extern const uc_route_t uc_schema_routes[];
extern const uc_route_t uc_metastore_routes[];
extern const uc_route_t uc_permission_routes[];
extern const uc_route_t uc_table_routes[];
/* A Delta table's latest snapshot, history and first rows. */
extern const uc_route_t uc_table_delta_routes[];
extern const uc_route_t uc_volume_routes[];
extern const uc_route_t uc_function_routes[];
extern const uc_route_t uc_model_routes[];
extern const uc_route_t uc_agent_routes[];
extern const uc_route_t uc_credential_routes[];
extern const uc_route_t uc_recipient_routes[];
extern const uc_route_t uc_external_location_routes[];
extern const uc_route_t uc_temporary_credential_routes[];
/* The commit coordinator of catalog-managed Delta tables, and the UC
 * Delta API. */
extern const uc_route_t uc_delta_commit_routes[];
extern const uc_route_t uc_delta_api_routes[];
extern const uc_route_t uc_share_routes[];
/* What every share is (its rules among it), for the routes of other
 * families that act on a share. */
extern const uc_api_family_t uc_share_family;
/* The families of the objects of a schema, for the routes that list them
 * across schemas (uc_object_summaries.c). */
extern const uc_api_family_t *const uc_table_family;
/* Reserves an id and a managed location for a table about to be written,
 * named `name` in the call's schema (POST /staging-tables). Reservations
 * of one name may repeat (a writer that failed retries); a table of that
 * name may not exist yet. */
struct uc_staging;
uc_error_t *uc_table_reserve(uc_call_t *call, const char *name,
                             struct uc_staging **out);
/* The member of a table's details that keeps the UniForm (Iceberg)
 * metadata of its latest commit; never answered. */
#define UC_TABLE_UNIFORM_DETAIL "uniform_iceberg"
extern const uc_api_family_t *const uc_volume_family;
extern const uc_api_family_t *const uc_function_family;
extern const uc_api_family_t *const uc_model_family;
extern const uc_api_family_t *const uc_agent_family;
extern const uc_api_family_t *const uc_agent_skill_family;
extern const uc_route_t uc_object_summary_routes[];
/* The share management of the Delta Sharing API (CreateShare,
 * DeleteShare, CreateSchema, DeleteSchema), for catalog principals. */
extern const uc_route_t uc_share_info_routes[];
extern const uc_route_t uc_share_schema_routes[];
extern const uc_route_t uc_share_permission_routes[];
extern const uc_route_t uc_provider_routes[];
extern const uc_route_t uc_tag_policy_routes[];
extern const uc_route_t uc_entity_tag_routes[];
extern const uc_route_t uc_policy_routes[];

/* The tag policy governing `key` (checked as a tag key), NULL when the
 * key is not governed; and its allowed values (a JSON array of strings,
 * NULL or empty when any value is allowed). */
uc_error_t *uc_tag_policy_of(uc_call_t *call, const char *key,
                             uc_securable_t **out);
json_t *uc_tag_policy_values(uc_call_t *call, const uc_securable_t *policy);

/* max_results / page_token of the call's query string. */
uc_error_t *uc_api_page(uc_call_t *call, uc_page_t *page);

/* {"<plural>":[rows...],"next_page_token":token-or-null} */
void uc_api_write_page(uc_call_t *call, uc_jw_t *out, const char *plural,
                       const apr_array_header_t *rows, int more,
                       uc_api_render_fn render, const void *context);

/* Parses a boolean query parameter such as force or include_browse. */
uc_error_t *uc_api_query_flag(uc_call_t *call, const char *name, int *out);

/* What a list shows the caller: everything for admins and for `all`,
 * otherwise what it owns or holds one of `visible` on. Rows count as more
 * than BROWSE for admins, for `all_full`, for owners and where one of `full`
 * is held. */
uc_visibility_t *uc_api_visibility(uc_call_t *call, int all, int all_full,
                                   uc_privset_t visible, uc_privset_t full);

/* A privilege set as a JSON array of stored keys, for SQL. */
const char *uc_api_privilege_keys(uc_call_t *call, uc_privset_t set);


/* What a listing across schemas shows the caller: everything to admins,
 * else objects it owns or holds one of `object_privs` on (there or above)
 * in schemas it may use of catalogs it may use. */
const uc_nested_visibility_t *uc_api_nested_visibility(
    uc_call_t *call, uc_privset_t object_privs);

/* The key a listing across schemas resumes after, from the page token:
 * NULL for the first page. */
uc_error_t *uc_api_nested_after(uc_call_t *call, const uc_page_t *page,
                                uc_nested_key_t **out);
/* The token that resumes after the last row of `rows` (uc_nested_row_t),
 * NULL when no page follows. */
const char *uc_api_nested_token(uc_call_t *call,
                                const apr_array_header_t *rows, int more);

/* The names above an object: its catalog and schema, NULL above its
 * level (none for a catalog, no schema for a schema). */
typedef struct uc_api_parents {
    const char *catalog;
    const char *schema;
} uc_api_parents_t;

/* The catalog and schema of the call's chain. */
const uc_api_parents_t *uc_api_parents_of(uc_call_t *call);

/* The full name of the securable at `level` of a resolved chain: the
 * names from its catalog (or other top securable) down to it, dotted. */
const char *uc_api_chain_name(uc_call_t *call, const uc_chain_t *chain,
                              int level);

/* "name", "catalog_name", "schema_name" and "full_name" of an object. */
void uc_api_write_names(uc_call_t *call, uc_jw_t *out,
                        const uc_api_parents_t *parents,
                        const uc_securable_t *sec);

/* The object's full name: the names above it and its own, dotted. */
const char *uc_api_full_name(uc_call_t *call, const uc_api_parents_t *parents,
                             const char *name);

/* owner, created_at, created_by, updated_at, updated_by; without the user
 * names when `omit_users`. */
void uc_api_write_stamps(uc_jw_t *out, const uc_securable_t *sec,
                         int omit_users);

/* The resource fields kept in `details`, parsed (owned by the call's pool),
 * and written back. */
json_t *uc_api_details(uc_call_t *call, const uc_securable_t *sec);
void uc_api_set_details(uc_call_t *call, uc_securable_t *sec,
                        json_t *details);

/* Which of the common fields a resource takes in its create and update
 * bodies. */
enum {
    UC_FIELD_COMMENT = 1 << 0,
    UC_FIELD_PROPERTIES = 1 << 1,
    UC_FIELD_OWNER = 1 << 2,
    UC_FIELD_NEW_NAME = 1 << 3,   /* updates only */
    UC_FIELDS_ALL = 0xf
};

/* A new row of `kind` under `parent_id`: fresh id, owner and creator from
 * the caller, both timestamps now. */
uc_error_t *uc_api_new_securable(uc_call_t *call, const char *kind,
                                 const char *parent_id, const char *name,
                                 uc_securable_t **out);

/* Reads those of comment, properties and owner that `fields` names from a
 * create or update body into `sec`; *changed tells whether any was
 * present. */
uc_error_t *uc_api_read_common_fields(uc_call_t *call, uc_securable_t *sec,
                                      unsigned fields, int *changed);

/* A LIKE pattern from the query (absent or empty: "%"): '%' and '_'
 * match, everything else is data, bound as a parameter. Names are lower
 * case, so are patterns. At most UC_API_PATTERN_MAX bytes. */
#define UC_API_PATTERN_MAX 1024
uc_error_t *uc_api_like_pattern(uc_call_t *call, const char *field,
                                const char **out);

/* The full name of a row of a listing across schemas. */
const char *uc_api_nested_full_name(uc_call_t *call,
                                    const uc_nested_row_t *row);

/* Writes one row of a listing across schemas. */
typedef void (*uc_api_nested_render_fn)(uc_call_t *call, uc_jw_t *out,
                                        const uc_nested_row_t *row);

/* A page of the family's objects across the schemas of a catalog (NULL:
 * of every catalog) whose schema and object names match the LIKE
 * patterns, filtered to what the caller may see, as
 * {"<plural>": [...], "next_page_token": ...}. */
uc_error_t *uc_api_list_across(uc_call_t *call, uc_jw_t *out,
                               const uc_api_family_t *f,
                               const char *catalog_id,
                               const char *schema_pattern,
                               const char *name_pattern,
                               uc_api_nested_render_fn render);

/* The end of an object's answer: stamps (without the user names when
 * `omit_users`), the id under `id_key` (NULL: written earlier),
 * metastore_id, browse_only, and the closing brace. */
void uc_api_write_tail(uc_call_t *call, uc_jw_t *out,
                       const uc_securable_t *sec, const char *id_key,
                       int omit_users);

/* The members every securable renders the same way, inside an object; a
 * row seen through BROWSE only shows no properties and no storage. */
void uc_api_write_common(uc_jw_t *out, const uc_securable_t *sec);

/* `<root>/__unitystorage/<segment>/<id>` for a normalised storage root. */
const char *uc_api_managed_location(uc_call_t *call, const char *root,
                                    const char *segment, const char *id);

/* The call's target: the last securable its rule resolved. */
#define UC_TARGET_OF(call) ((call)->chain.sec[(call)->chain.n - 1])

#endif
