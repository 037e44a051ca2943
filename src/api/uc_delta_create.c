/* SPDX-License-Identifier: Apache-2.0 */
/* Creating tables through the UC Delta API. A managed table starts as a
 * staging table, whose answer states the contract of a catalog-managed
 * table and carries credentials to write its first commit; the table
 * itself is then created from what that commit says (columns, protocol,
 * properties, domain metadata), as the catalog API creates tables: the
 * same row, the same checks of names, staging tables and external
 * locations. */
#include "uc_delta_api.h"

#include <string.h>
#include <apr_strings.h>

#include "uc_commit_uniform.h"
#include "uc_delta_contract.h"
#include "uc_delta_schema.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../store/uc_staging.h"
#include "../vend/uc_storage_url.h"

uc_error_t *uc_delta_create_staging(uc_call_t *call, uc_jw_t *out)
{
    const char *name = NULL;
    uc_staging_t *st;
    uc_vended_t v;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, call->body, "name", 1,
                                    &name)) ||
        (err = uc_table_reserve(call, name, &st)) ||
        (err = uc_vend_for(call, st->location, 1, &v)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "table-id", st->id);
    uc_jw_field_string(out, "table-type", "MANAGED");
    uc_jw_field_string(out, "location", st->location);
    uc_delta_write_credentials(out, st->location, &v, 1);
    uc_delta_contract_write(out, st->id);
    uc_jw_end_object(out);
    return NULL;
}

/* What a create body says, as the catalog keeps it. */
typedef struct create_body {
    const char *name;
    const char *location;
    const char *type;
    const char *comment;
    json_t *columns;
    json_t *properties;
    uc_commit_uniform_t *uniform;     /* NULL when none */
} create_body_t;

/* The table's properties: the client's, then what its protocol, domain
 * metadata and first commit say (which no client property overrides). */
static uc_error_t *read_properties(uc_call_t *call, create_body_t *b)
{
    json_t *domains;
    uc_delta_protocol_t protocol;
    apr_int64_t first;
    int present;
    uc_error_t *err;

    if ((err = uc_json_string_map_field(call->pool, call->body, "properties",
                                        &b->properties)) ||
        (err = uc_delta_protocol_read(call->pool, "protocol",
                                      json_object_get(call->body,
                                                      "protocol"),
                                      &protocol)) ||
        (err = uc_json_object_field(call->pool, call->body,
                                    "domain-metadata", &domains)) ||
        (err = uc_json_int_field(call->pool, call->body,
                                 "last-commit-timestamp-ms", 0,
                                 APR_INT64_MAX, &first, &present)))
        return err;
    if (!b->properties || !present)
        return uc_error_invalid(call->pool, "%s is required.",
                                b->properties ? "last-commit-timestamp-ms"
                                              : "properties");
    uc_delta_protocol_apply(b->properties, &protocol);
    if (domains && json_object_size(domains) &&
        (err = uc_delta_domains_set(call->pool, domains, b->properties)))
        return err;
    json_object_set_new(b->properties, UC_DELTA_LAST_COMMIT_TIMESTAMP,
                        json_string(apr_psprintf(call->pool, "%"
                                                 APR_INT64_T_FMT, first)));
    json_object_set_new(b->properties, UC_DELTA_LAST_UPDATE_VERSION,
                        json_string("0"));
    return strcmp(b->type, "MANAGED") ? NULL
           : uc_delta_contract_check(call->pool, &protocol, b->properties);
}

static uc_error_t *read_uniform(uc_call_t *call, create_body_t *b)
{
    const char *location;
    json_t *uniform;
    uc_error_t *err;

    if ((err = uc_json_object_field(call->pool, call->body, "uniform",
                                    &uniform)) ||
        (uniform && (err = uc_commit_uniform_read(call->pool, uniform, -1,
                                                  UC_UNIFORM_DELTA_API,
                                                  &b->uniform))) ||
        (err = uc_storage_url_derived(call->pool, "location", b->location,
                                      &location)))
        return err;
    return uc_commit_uniform_check(call->pool, b->uniform, b->properties,
                                   location);
}

static uc_error_t *read_create(uc_call_t *call, create_body_t *b)
{
    static const char *const types[] = { "MANAGED", "EXTERNAL", NULL };
    json_t *body = call->body;
    uc_error_t *err;

    memset(b, 0, sizeof(*b));
    if ((err = uc_json_string_field(call->pool, body, "name", 1,
                                    &b->name)) ||
        (err = uc_json_string_field(call->pool, body, "location", 1,
                                    &b->location)) ||
        (err = uc_json_enum_field(call->pool, body, "table-type", types, 1,
                                  &b->type)) ||
        (err = uc_json_string_field(call->pool, body, "comment", 0,
                                    &b->comment)) ||
        (err = uc_delta_schema_read(call->pool, "columns",
                                    json_object_get(body, "columns"),
                                    json_object_get(body,
                                                    "partition-columns"),
                                    &b->columns)) ||
        (err = read_properties(call, b)))
        return err;
    return read_uniform(call, b);
}

/* The same table as the catalog API's CreateTable says it. */
static json_t *catalog_body(uc_call_t *call, const create_body_t *b)
{
    const uc_api_parents_t *parents = uc_api_parents_of(call);

    return uc_json_own(call->pool, json_pack(
        "{sssssssssssOsssOss?}", "name", b->name,
        "catalog_name", parents->catalog, "schema_name", parents->schema,
        "table_type", b->type, "data_source_format", "DELTA",
        "columns", b->columns, "storage_location", b->location,
        "properties", b->properties, "comment", b->comment));
}

/* UniForm's metadata of the table's first commit, kept as a commit's is
 * (uc_delta_commits.c). */
static uc_error_t *keep_uniform(uc_call_t *call, uc_securable_t *table,
                                const uc_commit_uniform_t *u)
{
    json_t *details = uc_api_details(call, table);

    json_object_set_new(details, UC_TABLE_UNIFORM_DETAIL,
                        uc_commit_uniform_json(u));
    uc_api_set_details(call, table, details);
    return uc_securable_update(call->store, table);
}

uc_error_t *uc_delta_create_table(uc_call_t *call, uc_jw_t *out)
{
    create_body_t b;
    uc_securable_t *table;
    const char *name;
    uc_error_t *err;

    if ((err = read_create(call, &b)) ||
        (err = uc_validate_name(call->pool, "name", b.name, &name)))
        return err;
    call->body = catalog_body(call, &b);
    call->family = uc_table_family;
    if ((err = uc_family_create(call, uc_jw_make(call->pool, 1024))) ||
        (err = uc_securable_get(call->store, call->pool,
                                call->chain.sec[UC_LEVEL_SCHEMA]->id,
                                UC_KIND_TABLE, name, UC_LOCK_UPDATE,
                                &table)))
        return err;
    if (!table)
        return uc_error_internal(call->pool);
    if (b.uniform && (err = keep_uniform(call, table, b.uniform)))
        return err;
    return uc_delta_api_write_table(call, out, table, NULL);
}
