/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta Sharing routes and the listings: shares, schemas, tables.
 * Answers are single-line compact JSON (the Python client reads the first
 * line only). Lists page by maxResults (0 to 500, default 500) and an
 * opaque pageToken bound to the listing it came from; the last page has
 * no nextPageToken (the Scala client loops while one is there). */
#include "uc_sharing_api.h"

#include <string.h>
#include <strings.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "uc_sharing_tables.h"
#include "../api/uc_api.h"
#include "../authz/uc_rules.h"
#include "../core/uc_page.h"
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

static uc_error_t *bad_token(uc_call_t *call)
{
    return uc_error_invalid(call->pool, "invalid 'nextPageToken'");
}

/* Where the listing `scope` resumes: the key after "<scope>|" in the
 * pageToken, NULL for the first page. A token of another listing (or of
 * another share, schema or recipient) is refused. */
static uc_error_t *resume_key(uc_call_t *call, const char *scope,
                              const char **key)
{
    const char *token = apr_table_get(call->query, "pageToken");
    size_t n = strlen(scope);
    uc_page_t page;

    *key = NULL;
    if (!token || !*token)
        return NULL;
    if (uc_page_parse(call->pool, NULL, token, &page) ||
        strncmp(page.after, scope, n) != 0 || page.after[n] != '|')
        return bad_token(call);
    *key = page.after + n + 1;
    return NULL;
}

static const char *token_for(uc_call_t *call, const char *scope,
                             const char *key)
{
    return uc_page_token(call->pool, apr_pstrcat(call->pool, scope, "|", key,
                                                 NULL));
}

/* The offset an in-memory listing resumes at. */
static uc_error_t *resume_offset(uc_call_t *call, const char *scope,
                                 int count, int *offset)
{
    const char *key, *p;
    uc_error_t *err = resume_key(call, scope, &key);
    long n = 0;

    *offset = 0;
    if (err || !key)
        return err;
    for (p = key; *p >= '0' && *p <= '9' && p - key < 9; p++)
        n = n * 10 + (*p - '0');
    if (!*key || *p || n > count)
        return bad_token(call);
    *offset = (int)n;
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
    const char *scope = apr_pstrcat(call->pool, "shares:",
                                    call->recipient_id, NULL), *after;
    apr_array_header_t *shares;
    int limit, more, i;
    uc_error_t *err;

    if ((err = read_max_results(call, &limit)) ||
        (err = resume_key(call, scope, &after)) ||
        (err = uc_share_recipient_shares_page(call->store, call->pool,
                                              call->recipient_id,
                                              after ? after : "", limit,
                                              &shares, &more)))
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
        after = s->name;
    }
    end_list(out, more ? token_for(call, scope, after ? after : "")
                             : NULL);
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
    uc_jw_end_object(out);
    uc_jw_end_object(out);
    return NULL;
}

/* The window [*from, *to) of `count` items a page shows, and the token of
 * the next one (NULL on the last page). */
static uc_error_t *window(uc_call_t *call, const char *scope, int count,
                          int *from, int *to, const char **next)
{
    int limit;
    uc_error_t *err;

    if ((err = read_max_results(call, &limit)) ||
        (err = resume_offset(call, scope, count, from)))
        return err;
    *to = count - *from > limit ? *from + limit : count;
    *next = *to < count ? token_for(call, scope, apr_itoa(call->pool, *to))
                        : NULL;
    return NULL;
}

static uc_error_t *list_schemas(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *share = share_of(call);
    const char *scope = apr_pstrcat(call->pool, "schemas:", share->id, NULL);
    const char *next;
    apr_array_header_t *names;
    int from, to, i;
    uc_error_t *err;

    if ((err = uc_sharing_schemas_of(call, share, &names)) ||
        (err = window(call, scope, names->nelts, &from, &to, &next)))
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

static void write_table(uc_call_t *call, uc_jw_t *out,
                        const uc_shared_table_t *t)
{
    const uc_securable_t *share = share_of(call);

    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", t->name);
    uc_jw_field_string(out, "schema", t->schema);
    uc_jw_field_string(out, "share", share->name);
    uc_jw_field_string(out, "shareId", share->id);
    uc_jw_field_string(out, "id", t->table->id);
    uc_jw_end_object(out);
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

static uc_error_t *write_tables(uc_call_t *call, uc_jw_t *out,
                                const char *schema)
{
    const uc_securable_t *share = share_of(call);
    const char *scope = schema
        ? apr_pstrcat(call->pool, "tables:", share->id, ":", schema, NULL)
        : apr_pstrcat(call->pool, "all-tables:", share->id, NULL);
    const char *next;
    apr_array_header_t *all, *tables;
    int from, to, i;
    uc_error_t *err;

    if ((err = uc_sharing_tables_of(call, share, &all)))
        return err;
    tables = in_schema(call, all, schema);
    if ((err = window(call, scope, tables->nelts, &from, &to, &next)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "items");
    uc_jw_begin_array(out);
    for (i = from; i < to; i++)
        write_table(call, out, APR_ARRAY_IDX(tables, i,
                                             uc_shared_table_t *));
    end_list(out, next);
    return NULL;
}

static uc_error_t *list_schema_tables(uc_call_t *call, uc_jw_t *out)
{
    char *schema = apr_pstrdup(call->pool, call->params[1]), *p;
    uc_error_t *err;

    for (p = schema; *p; p++)
        *p = (char)apr_tolower(*p);
    if ((err = check_schema(call, schema)))
        return err;
    return write_tables(call, out, schema);
}

static uc_error_t *list_all_tables(uc_call_t *call, uc_jw_t *out)
{
    return write_tables(call, out, NULL);
}

#define TABLE "/shares/{share}/schemas/{schema}/tables/{table}"

const uc_route_t uc_sharing_routes[] = {
    { UC_GET, "/shares", list_shares, 0, &a_recipient },
    { UC_GET, "/shares/{share}", get_share, 0, &a_granted_share },
    { UC_GET, "/shares/{share}/schemas", list_schemas, 0, &a_granted_share },
    { UC_GET, "/shares/{share}/schemas/{schema}/tables", list_schema_tables,
      0, &a_granted_share },
    { UC_GET, "/shares/{share}/all-tables", list_all_tables, 0,
      &a_granted_share },
    /* HEAD (httpd hands it over as GET without a body): the version, as
     * deprecated clients ask for it. */
    { UC_GET, TABLE, uc_sharing_table_version, 0, &a_granted_share },
    { UC_GET, TABLE "/version", uc_sharing_table_version, 0,
      &a_granted_share },
    { UC_GET, TABLE "/metadata", uc_sharing_table_metadata, UC_ROUTE_STREAM,
      &a_granted_share },
    { UC_POST, TABLE "/query", uc_sharing_table_query,
      UC_ROUTE_BODY | UC_ROUTE_BODY_OPTIONAL | UC_ROUTE_STREAM,
      &a_granted_share },
    { UC_GET, TABLE "/changes", uc_sharing_table_changes, UC_ROUTE_STREAM,
      &a_granted_share },
    { 0, NULL, NULL, 0, NULL }
};

/* Beside what recipients read, the share management of the spec's
 * CatalogService, for catalog principals where the API is mounted behind
 * their authentication. */
const uc_route_t *const uc_sharing_api[] = {
    uc_sharing_routes, uc_share_info_routes, uc_share_schema_routes, NULL
};
