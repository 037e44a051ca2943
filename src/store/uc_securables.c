/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_securables.h"

#include <string.h>
#include <apr_strings.h>

#define READ_COLUMN(c) s->c = r[UC_SECURABLE_COL_##c];
#define WRITE_COLUMN(c) v[UC_SECURABLE_COL_##c] = s->c;
#define READ_REF_COLUMN(c) s->c = r[UC_SECURABLE_REF_COL_##c];

/* A row of UC_SECURABLE_COLUMNS; kind and parent are known to the caller. */
uc_securable_t *uc_securable_from_row(apr_pool_t *pool, const char *kind,
                                      const char *parent_id, const char **r)
{
    uc_securable_t *s = apr_palloc(pool, sizeof(*s));

    s->kind = kind;
    s->parent_id = parent_id;
    UC_SECURABLE_COLUMNS(READ_COLUMN, READ_COLUMN, )
    s->browse_only = 0;
    return s;
}

/* The values of UC_SECURABLE_COLUMNS as stored: JSON columns are objects
 * at least. */
static void to_values(const uc_securable_t *s, const char **v)
{
    UC_SECURABLE_COLUMNS(WRITE_COLUMN, WRITE_COLUMN, )
    if (!s->properties)
        v[UC_SECURABLE_COL_properties] = "{}";
    if (!s->details)
        v[UC_SECURABLE_COL_details] = "{}";
}

/* A row of UC_SECURABLE_REF_COLUMNS: the other fields are NULL. */
static uc_securable_t *from_ref(apr_pool_t *pool, const char **r)
{
    uc_securable_t *s = apr_pcalloc(pool, sizeof(*s));

    UC_SECURABLE_REF_COLUMNS(READ_REF_COLUMN, READ_REF_COLUMN, )
    s->details = r[UC_SECURABLE_REF_COL_details];
    return s;
}

uc_error_t *uc_securable_get(uc_store_t *store, apr_pool_t *pool,
                             const char *parent_id, const char *kind,
                             const char *name, uc_row_lock_t lock,
                             uc_securable_t **out)
{
    const char *args[] = { parent_id, kind, name };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(
        store, pool,
        !store->txn ? UC_STMT_SECURABLE_BY_NAME
        : lock == UC_LOCK_UPDATE ? UC_STMT_SECURABLE_BY_NAME_FOR_UPDATE
        : UC_STMT_SECURABLE_BY_NAME_FOR_SHARE,
        args, &rows);
    if (err)
        return err;
    *out = rows.nrows ? uc_securable_from_row(pool, kind, parent_id,
                                              rows.rows[0])
                      : NULL;
    return NULL;
}

/* The row of a lookup by id, of any kind. */
static uc_error_t *by_id(uc_store_t *store, apr_pool_t *pool, uc_stmt_t stmt,
                         const char *id, uc_securable_t **out)
{
    const char *args[] = { id };
    const char **r;
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    *out = NULL;
    if (err || rows.nrows == 0)
        return err;
    r = rows.rows[0];
    *out = uc_securable_from_row(pool, r[UC_BY_ID_COL_kind],
                                 r[UC_BY_ID_COL_parent_id],
                                 r + UC_BY_ID_COL_row);
    return NULL;
}

uc_error_t *uc_securable_by_id(uc_store_t *store, apr_pool_t *pool,
                               const char *id, uc_securable_t **out)
{
    return by_id(store, pool, UC_STMT_SECURABLE_BY_ID, id, out);
}

uc_error_t *uc_securable_by_id_for_update(uc_store_t *store,
                                          apr_pool_t *pool, const char *id,
                                          uc_securable_t **out)
{
    return by_id(store, pool, UC_STMT_SECURABLE_BY_ID_FOR_UPDATE, id, out);
}

uc_error_t *uc_securable_page(uc_store_t *store, apr_pool_t *pool,
                              const char *parent_id, const char *kind,
                              const uc_visibility_t *vis,
                              const uc_page_t *page,
                              apr_array_header_t **out, int *more)
{
    static const uc_visibility_t everything = { 1, 1, "[]", "[]", "[]" };
    const char *all, *all_full, *limit;
    uc_rows_t rows;
    int i, n;
    uc_error_t *err;

    if (!vis)
        vis = &everything;
    all = vis->all ? "1" : "0";
    all_full = vis->all_full ? "1" : "0";
    /* One row beyond the page tells whether a next page exists, so the last
     * page carries no token. */
    limit = apr_itoa(pool, page->limit + 1);
    {
        const char *args[] = {
            all_full, vis->principals, vis->principals, vis->full,
            parent_id, kind, page->after ? page->after : "",
            all, vis->principals, vis->principals, vis->visible, limit
        };
        if ((err = uc_store_select_page(store, pool, UC_STMT_SECURABLE_PAGE,
                                        args, page->limit, &rows, more)))
            return err;
    }
    n = rows.nrows;
    *out = apr_array_make(pool, n ? n : 1, sizeof(uc_securable_t *));
    for (i = 0; i < n; i++) {
        uc_securable_t *sec = uc_securable_from_row(pool, kind, parent_id,
                                                    rows.rows[i]);
        const char *full = rows.rows[i][UC_SECURABLE_PAGE_COL_full_access];

        sec->browse_only = full && full[0] == '0';
        APR_ARRAY_PUSH(*out, uc_securable_t *) = sec;
    }
    return NULL;
}

static uc_error_t *located(uc_store_t *store, apr_pool_t *pool,
                           uc_stmt_t stmt, const char *const *args,
                           apr_array_header_t **out)
{
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    if (err)
        return err;
    *out = apr_array_make(pool, rows.nrows + 1, sizeof(uc_securable_t *));
    for (i = 0; i < rows.nrows; i++)
        APR_ARRAY_PUSH(*out, uc_securable_t *) = from_ref(pool,
                                                          rows.rows[i]);
    return NULL;
}

uc_error_t *uc_securable_refs_by_ids(uc_store_t *store, apr_pool_t *pool,
                                     const char *ids,
                                     apr_array_header_t **out)
{
    const char *args[] = { ids };
    return located(store, pool, UC_STMT_SECURABLE_REFS_BY_IDS, args, out);
}

uc_error_t *uc_securable_refs_by_parent_names(uc_store_t *store,
                                              apr_pool_t *pool,
                                              const char *kind,
                                              const char *names,
                                              apr_array_header_t **out)
{
    const char *args[] = { names, kind };
    return located(store, pool, UC_STMT_SECURABLE_REFS_BY_PARENT_NAMES, args,
                   out);
}

/* What a page's byte budget counts of a row (stored_bytes). */
static const char *stored_bytes(uc_store_t *store, const uc_securable_t *s)
{
    apr_size_t n = (s->comment ? strlen(s->comment) : 0) +
                   strlen(s->properties ? s->properties : "{}") +
                   strlen(s->details ? s->details : "{}");

    return apr_psprintf(store->pool, "%" APR_SIZE_T_FMT, n);
}

/* kind, parent_id, the columns, stored_bytes. */
uc_error_t *uc_securable_insert(uc_store_t *store, const uc_securable_t *s)
{
    const char *args[2 + UC_SECURABLE_NCOLS + 1];

    args[0] = s->kind;
    args[1] = s->parent_id;
    to_values(s, args + 2);
    args[2 + UC_SECURABLE_NCOLS] = stored_bytes(store, s);
    return uc_store_exec(store, UC_STMT_SECURABLE_INSERT, args, NULL);
}

uc_error_t *uc_securable_update(uc_store_t *store, const uc_securable_t *s)
{
    const char *args[] = {
        s->name, s->comment, s->properties ? s->properties : "{}",
        s->storage_root, s->storage_location,
        s->details ? s->details : "{}", s->owner, s->updated_at,
        s->updated_by, stored_bytes(store, s), s->id
    };
    return uc_store_exec(store, UC_STMT_SECURABLE_UPDATE, args, NULL);
}

uc_error_t *uc_securable_delete(uc_store_t *store, const char *id)
{
    const char *args[] = { id };
    return uc_store_exec(store, UC_STMT_SECURABLE_DELETE, args, NULL);
}

uc_error_t *uc_securable_has_children(uc_store_t *store, const char *id,
                                      int *has)
{
    const char *args[] = { id, id };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, store->pool,
                                      UC_STMT_SECURABLE_FIRST_CHILD, args,
                                      &rows);
    if (!err)
        *has = rows.nrows > 0;
    return err;
}

uc_error_t *uc_securables_across_schemas(uc_store_t *store, apr_pool_t *pool,
                                         const char *kind,
                                         const char *catalog_id,
                                         const char *schema_pattern,
                                         const char *name_pattern,
                                         const uc_nested_visibility_t *vis,
                                         const uc_nested_key_t *after,
                                         int limit, apr_array_header_t **out,
                                         int *more)
{
    const char *c = after ? after->catalog : "", *s = after ? after->schema
                                                            : "";
    const char *n = after ? after->name : "";
    const char *p = vis->principals, *cid = catalog_id ? catalog_id : "";
    const char *args[] = {
        kind, uc_store_metastore_id(store), cid, cid, schema_pattern,
        name_pattern, c, c, s, s, n, vis->all ? "1" : "0", p, p,
        vis->catalog_privs, p, p, vis->schema_privs, p, p, p,
        vis->object_privs, apr_itoa(pool, limit + 1)
    };
    uc_rows_t rows;
    int i, count;
    uc_error_t *err = uc_store_select_page(store, pool,
                                           UC_STMT_OBJECTS_ACROSS_SCHEMAS,
                                           args, limit, &rows, more);
    if (err)
        return err;
    count = rows.nrows;
    *out = apr_array_make(pool, count + 1, sizeof(uc_nested_row_t));
    for (i = 0; i < count; i++) {
        const char **r = rows.rows[i];
        uc_nested_row_t *row = apr_array_push(*out);

        row->catalog_name = r[UC_ACROSS_COL_catalog_name];
        row->schema_name = r[UC_ACROSS_COL_schema_name];
        row->sec = uc_securable_from_row(pool, kind, NULL,
                                         r + UC_ACROSS_COL_object);
        row->table_type = r[UC_ACROSS_COL_table_type];
    }
    return NULL;
}

/* The first row of an overlap query: its kind and location. */
static uc_error_t *first_overlap(uc_store_t *store, apr_pool_t *pool,
                                 uc_stmt_t stmt, const char *const *args,
                                 const char **kind, const char **found)
{
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, stmt, args, &rows);

    if (err)
        return err;
    *kind = rows.nrows ? rows.rows[0][UC_OVERLAP_COL_kind] : NULL;
    *found = rows.nrows ? rows.rows[0][UC_OVERLAP_COL_location] : NULL;
    return NULL;
}

/* '0' is the character after '/': the range holds "<location>/..." */
#define INSIDE_FROM(pool, location) apr_pstrcat(pool, location, "/", NULL)
#define INSIDE_TO(pool, location) apr_pstrcat(pool, location, "0", NULL)

uc_error_t *uc_securable_storage_overlap(uc_store_t *store, apr_pool_t *pool,
                                         const char *location,
                                         const char *ancestors,
                                         int containers, const char **kind,
                                         const char **found)
{
    const char *lo = INSIDE_FROM(pool, location);
    const char *hi = INSIDE_TO(pool, location);
    const char *args[] = { ancestors, lo, hi, containers ? "1" : "0",
                           ancestors, lo, hi };

    return first_overlap(store, pool, UC_STMT_STORAGE_OVERLAP, args, kind,
                         found);
}

uc_error_t *uc_securable_root_overlap(uc_store_t *store, apr_pool_t *pool,
                                      const char *location,
                                      const char *ancestors,
                                      const char *principals,
                                      const char **kind, const char **found)
{
    const char *args[] = { ancestors, INSIDE_FROM(pool, location),
                           INSIDE_TO(pool, location), principals,
                           principals };

    return first_overlap(store, pool, UC_STMT_MANAGED_ROOT_OVERLAP, args,
                         kind, found);
}
