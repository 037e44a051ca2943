/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta Sharing routes and the listings: shares, schemas, tables.
 * Answers are single-line compact JSON (the Python client reads the first
 * line only). Lists page by maxResults (0 to 500, default 500) and a
 * pageToken signed for the recipient and the listing it came from
 * (uc_sharing_token.h); the last page has no nextPageToken (the Scala
 * client loops while one is there). */
#include "uc_sharing_api.h"

#include <string.h>
#include <strings.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "uc_shared.h"
#include "uc_sharing_tables.h"
#include "uc_sharing_token.h"
#include "../authz/uc_rules.h"
#include "../core/uc_json.h"
#include "../store/uc_share_recipients.h"

#define MAX_RESULTS 500

static const uc_rule_t a_recipient = { UC_TARGET_RECIPIENT };
static const uc_rule_t a_granted_share = { UC_TARGET_RECIPIENT_SHARE };

/* The share the rule resolved: granted to the caller. */
static const uc_securable_t *share_of(const uc_call_t *call)
{
    return call->chain.sec[UC_LEVEL_CATALOG];
}

static uc_error_t *read_max_results(uc_call_t *call, int *out)
{
    const char *v = apr_table_get(call->query, "maxResults");
    apr_int64_t n = 0;
    const char *p;

    *out = MAX_RESULTS;
    if (!v)
        return NULL;
    for (p = v; *p >= '0' && *p <= '9' && p - v < 10; p++)
        n = n * 10 + (*p - '0');
    if (!*v || *p)
        return uc_error_invalid(call->pool, "expected a number but the "
                                "string didn't have the appropriate format: "
                                "maxResults");
    if (n > MAX_RESULTS)
        return uc_error_invalid(call->pool, "Acceptable values of "
                                "'maxResults' are 0 to %d, inclusive. "
                                "(Default: %d)", MAX_RESULTS, MAX_RESULTS);
    *out = (int)n;
    return NULL;
}

/* The listing a page token continues: the route, the recipient, the share
 * and the schema (NULL: none). */
static uc_sharing_token_scope_t list_scope(uc_call_t *call,
                                           const char *route,
                                           const uc_securable_t *share,
                                           const char *schema)
{
    uc_sharing_token_scope_t scope;

    scope.kind = "page token";
    scope.route = route;
    scope.recipient = call->recipient_id ? call->recipient_id : "";
    scope.share = share ? share->id : "";
    scope.object = schema ? schema : "";
    scope.params = "";
    return scope;
}

/* Where the listing resumes: the key the pageToken holds, NULL for the
 * first page. */
static uc_error_t *resume_key(uc_call_t *call,
                              const uc_sharing_token_scope_t *scope,
                              const char **key)
{
    const char *token = apr_table_get(call->query, "pageToken");

    *key = NULL;
    if (!token || !*token)
        return NULL;
    return uc_sharing_token_read(call->pool, call->secrets, scope, token,
                                 apr_time_sec(call->now), key);
}

static uc_error_t *token_for(uc_call_t *call,
                             const uc_sharing_token_scope_t *scope,
                             const char *key, const char **token)
{
    return uc_sharing_token_make(call->pool, call->secrets, scope, key,
                                 apr_time_sec(call->now)
                                 + UC_SHARING_PAGE_TOKEN_SECONDS, token);
}

/* The offset an in-memory listing resumes at: past its end when it has
 * shrunk since. */
static uc_error_t *resume_offset(uc_call_t *call,
                                 const uc_sharing_token_scope_t *scope,
                                 int count, int *offset)
{
    const char *key;
    uc_error_t *err = resume_key(call, scope, &key);
    apr_int64_t n;
    char *end;

    *offset = 0;
    if (err || !key)
        return err;
    /* The server wrote the key: a number of its own is all it can be. */
    n = apr_strtoi64(key, &end, 10);
    if (!*key || *end || n < 0)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "list page token state '%s'", key);
    *offset = n > count ? count : (int)n;
    return NULL;
}

/* Ends {"items":[...] with the token of the next page, none on the
 * last. */
static void end_list(uc_jw_t *out, const char *next)
{
    uc_jw_end_array(out);
    if (next)
        uc_jw_field_string(out, "nextPageToken", next);
    uc_jw_end_object(out);
}

static uc_error_t *list_shares(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_token_scope_t scope = list_scope(call, "shares", NULL, NULL);
    const char *after, *next = NULL;
    apr_array_header_t *shares;
    int limit, more, i;
    uc_error_t *err;

    if ((err = read_max_results(call, &limit)) ||
        (err = resume_key(call, &scope, &after)) ||
        (err = uc_share_recipient_shares_page(call->store, call->pool,
                                              call->recipient_id,
                                              after ? after : "", limit,
                                              &shares, &more)))
        return err;
    if (shares->nelts)
        after = APR_ARRAY_IDX(shares, shares->nelts - 1,
                              uc_securable_t *)->name;
    if (more && (err = token_for(call, &scope, after ? after : "", &next)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "items");
    uc_jw_begin_array(out);
    for (i = 0; i < shares->nelts; i++) {
        const uc_securable_t *s = APR_ARRAY_IDX(shares, i, uc_securable_t *);
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "name", s->name);
        uc_jw_field_string(out, "id", s->id);
        uc_jw_end_object(out);
    }
    end_list(out, next);
    return NULL;
}

static uc_error_t *get_share(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *share = share_of(call);

    uc_jw_begin_object(out);
    uc_jw_key(out, "share");
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", share->name);
    uc_jw_field_string(out, "id", share->id);
    /* The catalog's shares have a comment; no display name, and no
     * properties that they answer. */
    if (share->comment)
        uc_jw_field_string(out, "comment", share->comment);
    uc_jw_end_object(out);
    uc_jw_end_object(out);
    return NULL;
}

/* The window [*from, *to) of `count` items a page shows, and the token of
 * the next one (NULL on the last page). */
static uc_error_t *window(uc_call_t *call,
                          const uc_sharing_token_scope_t *scope, int count,
                          int *from, int *to, const char **next)
{
    int limit;
    uc_error_t *err;

    *next = NULL;
    if ((err = read_max_results(call, &limit)) ||
        (err = resume_offset(call, scope, count, from)))
        return err;
    *to = count - *from > limit ? *from + limit : count;
    return *to < count ? token_for(call, scope, apr_itoa(call->pool, *to),
                                   next)
                       : NULL;
}

static uc_error_t *list_schemas(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *share = share_of(call);
    uc_sharing_token_scope_t scope = list_scope(call, "schemas", share, NULL);
    const char *next;
    apr_array_header_t *names;
    int from, to, i;
    uc_error_t *err;

    if ((err = uc_sharing_schemas_of(call, share, &names)) ||
        (err = window(call, &scope, names->nelts, &from, &to, &next)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "items");
    uc_jw_begin_array(out);
    for (i = from; i < to; i++) {
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "name", APR_ARRAY_IDX(names, i,
                                                      const char *));
        uc_jw_field_string(out, "share", share->name);
        uc_jw_end_object(out);
    }
    end_list(out, next);
    return NULL;
}

/* What every shared table or volume begins with: its names as shared,
 * the share's, its id. */
static void write_asset_head(uc_call_t *call, uc_jw_t *out,
                             const uc_shared_table_t *t)
{
    const uc_securable_t *share = share_of(call);

    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", t->name);
    uc_jw_field_string(out, "schema", t->schema);
    uc_jw_field_string(out, "share", share->name);
    uc_jw_field_string(out, "shareId", share->id);
    uc_jw_field_string(out, "id", t->table->id);
}

/* A table as listings show it: read through signed file URLs, and where
 * the share holds it whole in a cloud, by directory too, with its
 * location (uc_sharing_dir.c); else the location stays the provider's.
 * Get Table adds the protocol it is read with. */
static void write_table(uc_call_t *call, uc_jw_t *out,
                        const uc_shared_table_t *t, int with_format)
{
    write_asset_head(call, out, t);
    if (uc_sharing_dir_offered(t)) {
        uc_jw_field_string(out, "location", t->table->storage_location);
        uc_jw_key(out, "accessModes");
        uc_jw_raw(out, "[\"url\",\"dir\"]");
    } else {
        uc_jw_key(out, "accessModes");
        uc_jw_raw(out, "[\"url\"]");
    }
    if (with_format)
        uc_jw_field_string(out, "format", "delta");
    uc_jw_end_object(out);
}

/* GET …/tables/{table}: Open Sharing's Get Table. HEAD, which httpd hands
 * over as that GET: the table's version, as deprecated Delta Sharing
 * clients ask for it. */
static uc_error_t *get_table(uc_call_t *call, uc_jw_t *out)
{
    uc_shared_table_t *t;
    uc_error_t *err;

    if (call->head_only)
        return uc_sharing_table_version(call, out);
    if ((err = uc_sharing_table_find(call, share_of(call), call->params[1],
                                     call->params[2], &t)))
        return err;
    if (!t)
        return uc_shared_not_found(call);
    write_table(call, out, t, 1);
    return NULL;
}

/* The tables of `all` in `schema` (every one when NULL). */
static apr_array_header_t *in_schema(uc_call_t *call,
                                     const apr_array_header_t *all,
                                     const char *schema)
{
    apr_array_header_t *some = apr_array_make(call->pool, all->nelts + 1,
                                              sizeof(uc_shared_table_t *));
    int i;

    for (i = 0; i < all->nelts; i++) {
        uc_shared_table_t *t = APR_ARRAY_IDX(all, i, uc_shared_table_t *);
        if (!schema || !strcasecmp(t->schema, schema))
            APR_ARRAY_PUSH(some, uc_shared_table_t *) = t;
    }
    return some;
}

static uc_error_t *schema_not_found(uc_call_t *call, const char *schema)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "schema '%s' not found", schema);
}

/* Whether the share shows `schema` at all (a schema without tables is
 * still one). */
static uc_error_t *check_schema(uc_call_t *call, const char *schema)
{
    apr_array_header_t *names;
    uc_error_t *err = uc_sharing_schemas_of(call, share_of(call), &names);
    int i;

    if (err)
        return err;
    for (i = 0; i < names->nelts; i++)
        if (!strcasecmp(APR_ARRAY_IDX(names, i, const char *), schema))
            return NULL;
    return schema_not_found(call, schema);
}

/* What a share lists of one kind: its objects' type and securables'
 * kind, the routes its page tokens are bound to, how one is written. */
typedef struct asset {
    uc_sharing_asset_kind_t is;
    const char *in_schema_route;
    const char *all_route;
    void (*write)(uc_call_t *call, uc_jw_t *out, const uc_shared_table_t *t,
                  int whole);
} asset_t;

/* Open Sharing leaves out what an asset does not have. */
static void field_if(uc_jw_t *out, const char *key, const char *value)
{
    if (value)
        uc_jw_field_string(out, key, value);
}

/* A volume or a skill: where recipients read it (uc_sharing_dir.c). A
 * local one's path stays the provider's. */
static void write_asset_place(uc_call_t *call, uc_jw_t *out,
                              const uc_shared_table_t *t)
{
    write_asset_head(call, out, t);
    field_if(out, "storageLocation", uc_sharing_asset_location(call, t));
}

static void write_volume(uc_call_t *call, uc_jw_t *out,
                         const uc_shared_table_t *t, int whole)
{
    (void)whole;
    write_asset_place(call, out, t);
    field_if(out, "comment", t->table->comment);
    uc_jw_end_object(out);
}

/* The allowed tools of a skill as Open Sharing writes them: one string,
 * the names separated by spaces. */
static const char *joined_tools(apr_pool_t *pool, json_t *tools)
{
    const char *joined = NULL;
    json_t *tool;
    size_t i;

    json_array_foreach(tools, i, tool)
        if (json_is_string(tool))
            joined = apr_pstrcat(pool, joined ? joined : "", joined ? " " : "",
                                 json_string_value(tool), NULL);
    return joined;
}

/* An agent skill: Open Sharing's fields, from what the catalog keeps of
 * it. */
static void write_skill(uc_call_t *call, uc_jw_t *out,
                        const uc_shared_table_t *t, int whole)
{
    json_t *details = NULL, *metadata;

    (void)whole;
    write_asset_place(call, out, t);
    if (t->table->details)
        uc_json_parse_object(call->pool, t->table->details,
                             strlen(t->table->details), &details);
    field_if(out, "description",
             json_string_value(json_object_get(details, "description")));
    field_if(out, "license",
             json_string_value(json_object_get(details, "license")));
    field_if(out, "allowedTools",
             joined_tools(call->pool, json_object_get(details,
                                                      "allowed_tools")));
    if (json_is_object(metadata = json_object_get(details, "metadata")) &&
        json_object_size(metadata)) {
        uc_jw_key(out, "metadata");
        uc_jw_json(out, metadata);
    }
    uc_jw_end_object(out);
}

static const asset_t tables = { { "TABLE", UC_KIND_TABLE, "Table" },
                                "tables", "all-tables", write_table };
static const asset_t volumes = { { "VOLUME", UC_KIND_VOLUME, "Volume" },
                                 "volumes", "all-volumes", write_volume };
static const asset_t skills = { { "AGENT_SKILL", UC_KIND_AGENT_SKILL,
                                  "Skill" },
                                "skills", "all-skills", write_skill };

static uc_error_t *write_assets(uc_call_t *call, uc_jw_t *out,
                                const char *schema, const asset_t *a)
{
    const uc_securable_t *share = share_of(call);
    uc_sharing_token_scope_t scope = list_scope(
        call, schema ? a->in_schema_route : a->all_route, share, schema);
    const char *next;
    apr_array_header_t *all, *some;
    int from, to, i;
    uc_error_t *err;

    if ((err = uc_sharing_assets_of(call, share, a->is.object_type,
                                    a->is.kind, &all)))
        return err;
    some = in_schema(call, all, schema);
    if ((err = window(call, &scope, some->nelts, &from, &to, &next)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "items");
    uc_jw_begin_array(out);
    for (i = from; i < to; i++)
        a->write(call, out, APR_ARRAY_IDX(some, i, uc_shared_table_t *), 0);
    end_list(out, next);
    return NULL;
}

static uc_error_t *list_in_schema(uc_call_t *call, uc_jw_t *out,
                                  const asset_t *a)
{
    char *schema = apr_pstrdup(call->pool, call->params[1]), *p;
    uc_error_t *err;

    for (p = schema; *p; p++)
        *p = (char)apr_tolower(*p);
    if ((err = check_schema(call, schema)))
        return err;
    return write_assets(call, out, schema, a);
}

/* Get Volume, Get Skill: the one the path names. */
static uc_error_t *get_asset(uc_call_t *call, uc_jw_t *out,
                             const asset_t *a)
{
    uc_shared_table_t *t;
    uc_error_t *err = uc_sharing_asset_named(call, &a->is, &t);

    if (!err)
        a->write(call, out, t, 1);
    return err;
}

/* The routes of each kind, as the route table takes them. */
#define ASSET_ROUTES(a)                                                     \
    static uc_error_t *list_schema_##a(uc_call_t *call, uc_jw_t *out)      \
    {                                                                       \
        return list_in_schema(call, out, &a);                               \
    }                                                                       \
    static uc_error_t *list_all_##a(uc_call_t *call, uc_jw_t *out)         \
    {                                                                       \
        return write_assets(call, out, NULL, &a);                           \
    }                                                                       \
    static uc_error_t *get_##a(uc_call_t *call, uc_jw_t *out)              \
    {                                                                       \
        return get_asset(call, out, &a);                                    \
    }                                                                       \
    static uc_error_t *credentials_##a(uc_call_t *call, uc_jw_t *out)      \
    {                                                                       \
        return uc_sharing_asset_credentials(call, out, &a.is);              \
    }

ASSET_ROUTES(volumes)
ASSET_ROUTES(skills)

static uc_error_t *list_schema_tables(uc_call_t *call, uc_jw_t *out)
{
    return list_in_schema(call, out, &tables);
}

static uc_error_t *list_all_tables(uc_call_t *call, uc_jw_t *out)
{
    return write_assets(call, out, NULL, &tables);
}

#define TABLE "/shares/{share}/schemas/{schema}/tables/{table}"
/* The four routes of an asset kind `a`: its listings (all of the share's,
 * a schema's), Get, and its credentials. */
#define ASSET_ROUTE_ROWS(a, plural, param, credentials, action)             \
    { UC_GET, "/shares/{share}/all-" plural, list_all_##a, 0,               \
      &a_granted_share },                                                   \
    { UC_GET, "/shares/{share}/schemas/{schema}/" plural, list_schema_##a,  \
      0, &a_granted_share },                                                \
    { UC_GET, "/shares/{share}/schemas/{schema}/" plural "/" param, get_##a, \
      0, &a_granted_share },                                                \
    { UC_POST, "/shares/{share}/schemas/{schema}/" plural "/" param         \
      credentials, credentials_##a, UC_ROUTE_BODY | UC_ROUTE_BODY_OPTIONAL, \
      &a_granted_share, .audit = action }

const uc_route_t uc_sharing_routes[] = {
    { UC_GET, "/shares", list_shares, 0, &a_recipient },
    { UC_GET, "/shares/{share}", get_share, 0, &a_granted_share },
    { UC_GET, "/shares/{share}/schemas", list_schemas, 0, &a_granted_share },
    { UC_GET, "/shares/{share}/schemas/{schema}/tables", list_schema_tables,
      0, &a_granted_share },
    { UC_GET, "/shares/{share}/all-tables", list_all_tables, 0,
      &a_granted_share },
    { UC_GET, TABLE, get_table, 0, &a_granted_share },
    { UC_GET, TABLE "/version", uc_sharing_table_version, 0,
      &a_granted_share },
    { UC_GET, TABLE "/metadata", uc_sharing_table_metadata, UC_ROUTE_STREAM,
      &a_granted_share },
    { UC_POST, TABLE "/query", uc_sharing_table_query,
      UC_ROUTE_BODY | UC_ROUTE_BODY_OPTIONAL | UC_ROUTE_STREAM,
      &a_granted_share },
    { UC_GET, TABLE "/changes", uc_sharing_table_changes, UC_ROUTE_STREAM,
      &a_granted_share },
    { UC_POST, TABLE "/queries/{query}", uc_sharing_table_query_poll,
      UC_ROUTE_BODY | UC_ROUTE_BODY_OPTIONAL | UC_ROUTE_STREAM,
      &a_granted_share },
    { UC_POST, TABLE "/temporary-table-credentials",
      uc_sharing_table_credentials, UC_ROUTE_BODY | UC_ROUTE_BODY_OPTIONAL,
      &a_granted_share, .audit = "GENERATE_TEMPORARY_TABLE_CREDENTIAL" },
    ASSET_ROUTE_ROWS(volumes, "volumes", "{volume}",
                     "/temporary-volume-credentials",
                     "GENERATE_TEMPORARY_VOLUME_CREDENTIAL"),
    ASSET_ROUTE_ROWS(skills, "skills", "{skill}",
                     "/temporary-skill-credentials",
                     "GENERATE_TEMPORARY_SKILL_CREDENTIAL"),
    { 0, NULL, NULL, 0, NULL }
};
