/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_sharing_tables.h"

#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "../core/uc_page.h"
#include "../store/uc_share_schemas.h"

static int is_type(const uc_share_object_t *o, const char *type)
{
    return !strcmp(o->data_object_type, type);
}

/* Names are stored in lower case; clients may send any case. */
static const char *lower(apr_pool_t *pool, const char *s)
{
    char *copy = apr_pstrdup(pool, s), *p;

    for (p = copy; *p; p++)
        *p = (char)apr_tolower(*p);
    return copy;
}

/* A view has no storage and no Delta log: nothing a recipient could
 * read. */
static int has_data(const uc_securable_t *table)
{
    return table->storage_location && *table->storage_location;
}

static uc_shared_table_t *shared_table(apr_pool_t *pool, const char *schema,
                                       const char *name,
                                       const uc_securable_t *table,
                                       const uc_share_object_t *o)
{
    uc_shared_table_t *t = apr_palloc(pool, sizeof(*t));

    t->schema = schema;
    t->name = name;
    t->table = table;
    t->object = o;
    return t;
}

/* The table of a TABLE object, found by id (the share keeps the object
 * when the table is renamed). */
static uc_error_t *object_table(uc_call_t *call, const uc_share_object_t *o,
                                uc_shared_table_t **out)
{
    const char *dot = strchr(o->shared_as, '.');
    uc_securable_t *sec = NULL;
    uc_error_t *err;

    *out = NULL;
    if (!dot)
        return NULL;
    if ((err = uc_securable_by_id(call->store, call->pool, o->object_id,
                                  &sec)))
        return err;
    if (!sec || !has_data(sec))
        return NULL;
    *out = shared_table(call->pool,
                        apr_pstrndup(call->pool, o->shared_as,
                                     (apr_size_t)(dot - o->shared_as)),
                        dot + 1, sec, o);
    return NULL;
}

static void push_table(apr_array_header_t *into, apr_hash_t *seen,
                       apr_pool_t *pool, uc_shared_table_t *t)
{
    const char *key = apr_pstrcat(pool, t->schema, ".", t->name, NULL);

    if (apr_hash_get(seen, key, APR_HASH_KEY_STRING))
        return;
    apr_hash_set(seen, key, APR_HASH_KEY_STRING, t);
    APR_ARRAY_PUSH(into, uc_shared_table_t *) = t;
}

/* Every table (or volume: `kind`) of a SCHEMA object's schema, page by
 * page. */
static uc_error_t *schema_assets(uc_call_t *call, const uc_share_object_t *o,
                                 const char *kind, apr_array_header_t *into,
                                 apr_hash_t *seen)
{
    uc_page_t page = { UC_PAGE_MAX, NULL };
    int more = 1, i;

    while (more) {
        apr_array_header_t *rows;
        uc_error_t *err = uc_securable_page(call->store, call->pool,
                                            o->object_id, kind,
                                            NULL, &page, &rows, &more);
        if (err)
            return err;
        for (i = 0; i < rows->nelts; i++) {
            uc_securable_t *sec = APR_ARRAY_IDX(rows, i, uc_securable_t *);

            page.after = sec->name;
            if (has_data(sec))
                push_table(into, seen, call->pool,
                           shared_table(call->pool, o->shared_as, sec->name,
                                        sec, o));
        }
        more = more && rows->nelts > 0;
    }
    return NULL;
}

static int by_schema_then_name(const void *a, const void *b)
{
    const uc_shared_table_t *x = *(uc_shared_table_t *const *)a;
    const uc_shared_table_t *y = *(uc_shared_table_t *const *)b;
    int c = strcmp(x->schema, y->schema);

    return c ? c : strcmp(x->name, y->name);
}

uc_error_t *uc_sharing_assets_of(uc_call_t *call, const uc_securable_t *share,
                                 const char *object_type, const char *kind,
                                 apr_array_header_t **out)
{
    apr_array_header_t *objects, *all;
    apr_hash_t *seen = apr_hash_make(call->pool);
    uc_error_t *err;
    int i;

    if ((err = uc_share_objects_of(call->store, call->pool, share->id,
                                   &objects)))
        return err;
    all = apr_array_make(call->pool, objects->nelts + 1,
                         sizeof(uc_shared_table_t *));
    /* TABLE (VOLUME) objects first: their names win over a schema's. */
    for (i = 0; i < objects->nelts; i++) {
        const uc_share_object_t *o = APR_ARRAY_IDX(objects, i,
                                                   uc_share_object_t *);
        uc_shared_table_t *t;

        if (!is_type(o, object_type))
            continue;
        if ((err = object_table(call, o, &t)))
            return err;
        if (t)
            push_table(all, seen, call->pool, t);
    }
    for (i = 0; i < objects->nelts; i++) {
        const uc_share_object_t *o = APR_ARRAY_IDX(objects, i,
                                                   uc_share_object_t *);
        if (is_type(o, "SCHEMA") &&
            (err = schema_assets(call, o, kind, all, seen)))
            return err;
    }
    qsort(all->elts, (size_t)all->nelts, sizeof(uc_shared_table_t *),
          by_schema_then_name);
    *out = all;
    return NULL;
}

uc_error_t *uc_sharing_tables_of(uc_call_t *call, const uc_securable_t *share,
                                 apr_array_header_t **out)
{
    return uc_sharing_assets_of(call, share, "TABLE", UC_KIND_TABLE, out);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_schema(apr_array_header_t *names, apr_hash_t *seen,
                       const char *schema)
{
    if (!schema || apr_hash_get(seen, schema, APR_HASH_KEY_STRING))
        return;
    apr_hash_set(seen, schema, APR_HASH_KEY_STRING, schema);
    APR_ARRAY_PUSH(names, const char *) = schema;
}

uc_error_t *uc_sharing_schemas_of(uc_call_t *call,
                                  const uc_securable_t *share,
                                  apr_array_header_t **out)
{
    apr_array_header_t *objects, *declared, *names;
    apr_hash_t *seen = apr_hash_make(call->pool);
    uc_error_t *err;
    int i;

    if ((err = uc_share_objects_of(call->store, call->pool, share->id,
                                   &objects)))
        return err;
    if ((err = uc_share_schemas_of(call->store, call->pool, share->id,
                                   &declared)))
        return err;
    names = apr_array_make(call->pool, objects->nelts + declared->nelts + 1,
                           sizeof(const char *));
    for (i = 0; i < declared->nelts; i++)
        add_schema(names, seen, APR_ARRAY_IDX(declared, i,
                                              uc_share_schema_t *)->name);
    /* Every kind of object names its schema: tables, volumes, skills. */
    for (i = 0; i < objects->nelts; i++)
        add_schema(names, seen,
                   uc_share_object_schema(call->pool,
                                          APR_ARRAY_IDX(objects, i,
                                                        uc_share_object_t *)));
    qsort(names->elts, (size_t)names->nelts, sizeof(const char *), by_name);
    *out = names;
    return NULL;
}

/* The table (volume: `kind`) named `name` in the schema of a SCHEMA
 * object, if it has data. */
static uc_error_t *asset_in_schema(uc_call_t *call,
                                   const uc_share_object_t *o,
                                   const char *kind, const char *name,
                                   uc_shared_table_t **out)
{
    uc_securable_t *sec;
    uc_error_t *err = uc_securable_get(call->store, call->pool, o->object_id,
                                       kind, name, UC_LOCK_SHARE, &sec);

    if (err || !sec || !has_data(sec))
        return err;
    *out = shared_table(call->pool, o->shared_as, sec->name, sec, o);
    return NULL;
}

uc_error_t *uc_sharing_asset_find(uc_call_t *call,
                                  const uc_securable_t *share,
                                  const char *object_type, const char *kind,
                                  const char *schema, const char *name,
                                  uc_shared_table_t **out)
{
    const char *full;
    apr_array_header_t *objects;
    uc_error_t *err;
    int i;

    *out = NULL;
    schema = lower(call->pool, schema);
    name = lower(call->pool, name);
    full = apr_pstrcat(call->pool, schema, ".", name, NULL);
    if ((err = uc_share_objects_of(call->store, call->pool, share->id,
                                   &objects)))
        return err;
    for (i = 0; i < objects->nelts; i++) {
        const uc_share_object_t *o = APR_ARRAY_IDX(objects, i,
                                                   uc_share_object_t *);
        if (is_type(o, object_type) && !strcmp(o->shared_as, full))
            return object_table(call, o, out);
    }
    for (i = 0; i < objects->nelts && !*out; i++) {
        const uc_share_object_t *o = APR_ARRAY_IDX(objects, i,
                                                   uc_share_object_t *);
        if (is_type(o, "SCHEMA") && !strcmp(o->shared_as, schema) &&
            (err = asset_in_schema(call, o, kind, name, out)))
            return err;
    }
    return NULL;
}

uc_error_t *uc_sharing_table_find(uc_call_t *call,
                                  const uc_securable_t *share,
                                  const char *schema, const char *name,
                                  uc_shared_table_t **out)
{
    return uc_sharing_asset_find(call, share, "TABLE", UC_KIND_TABLE, schema,
                                 name, out);
}
