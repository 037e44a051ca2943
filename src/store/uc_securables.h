/* SPDX-License-Identifier: Apache-2.0 */
/* Rows of the securables table: the identity, hierarchy and common fields
 * every catalog object shares. Resource-specific fields live in `details`
 * (JSON text) or, where an access pattern needs it, in tables of their own. */
#ifndef UC_SECURABLES_H
#define UC_SECURABLES_H

#include <apr_tables.h>

#include "uc_store.h"
#include "../core/uc_page.h"

typedef struct uc_securable {
    const char *id;
    const char *kind;
    const char *parent_id;
    const char *name;
    const char *comment;
    const char *properties;        /* JSON object text */
    const char *storage_root;
    const char *storage_location;
    const char *details;           /* JSON object text */
    const char *owner;
    const char *created_at;        /* epoch ms as text */
    const char *created_by;
    const char *updated_at;
    const char *updated_by;
    int browse_only;               /* listed only because of BROWSE */
} uc_securable_t;

/* Which children a page shows: everything, or what the principals (a JSON
 * array of the user and its groups) own or hold one of the `visible`
 * privileges on. `full` lists the privileges that give more than BROWSE. */
typedef struct uc_visibility {
    int all;                       /* every row is shown */
    int all_full;                  /* every row shown is more than BROWSE */
    const char *principals;        /* JSON array */
    const char *visible;           /* JSON array of privilege keys */
    const char *full;              /* JSON array of privilege keys */
} uc_visibility_t;

/* Kinds, as stored: the securable type names. */
#define UC_KIND_CATALOG "catalog"
#define UC_KIND_SCHEMA "schema"
#define UC_KIND_TABLE "table"
#define UC_KIND_VOLUME "volume"
#define UC_KIND_FUNCTION "function"
#define UC_KIND_REGISTERED_MODEL "registered_model"
#define UC_KIND_AGENT "agent"
#define UC_KIND_AGENT_SKILL "agent_skill"
#define UC_KIND_CREDENTIAL "credential"
#define UC_KIND_EXTERNAL_LOCATION "external_location"
#define UC_KIND_SHARE "share"
#define UC_KIND_RECIPIENT "recipient"
#define UC_KIND_PROVIDER "provider"
#define UC_KIND_TAG_POLICY "tag_policy"

/* Which objects a listing across schemas shows: everything, or what the
 * principals own or hold one of the listed privileges on, at the catalog,
 * at the schema (or above) and at the object (or above). */
typedef struct uc_nested_visibility {
    int all;
    const char *principals;        /* JSON array */
    const char *catalog_privs;     /* JSON arrays of privilege keys */
    const char *schema_privs;
    const char *object_privs;
} uc_nested_visibility_t;

/* A row of a listing across schemas. */
typedef struct uc_nested_row {
    const char *catalog_name;
    const char *schema_name;
    const char *table_type;        /* table rows only */
    uc_securable_t *sec;
} uc_nested_row_t;

/* Where a listing across schemas resumes: after this full name. */
typedef struct uc_nested_key {
    const char *catalog;
    const char *schema;
    const char *name;
} uc_nested_key_t;

/* How a lookup inside a transaction holds the row until the transaction
 * ends, on PostgreSQL (SQLite's write transactions hold the whole file):
 * shared, so that it cannot go or change while children are added, or for
 * update, by a transaction that changes or deletes it. */
typedef enum uc_row_lock { UC_LOCK_SHARE, UC_LOCK_UPDATE } uc_row_lock_t;

/* A row of UC_SECURABLE_COLUMNS as a securable of `kind` under
 * `parent_id`. */
uc_securable_t *uc_securable_from_row(apr_pool_t *pool, const char *kind,
                                      const char *parent_id, const char **r);

/* *out is NULL when no such row exists. */
uc_error_t *uc_securable_get(uc_store_t *store, apr_pool_t *pool,
                             const char *parent_id, const char *kind,
                             const char *name, uc_row_lock_t lock,
                             uc_securable_t **out);

/* The row with this id, of any kind; *out is NULL when there is none. */
uc_error_t *uc_securable_by_id(uc_store_t *store, apr_pool_t *pool,
                               const char *id, uc_securable_t **out);
/* The same, held for update until the transaction ends (on PostgreSQL;
 * SQLite's write transactions hold the whole file): the writers of one
 * row queue there. */
uc_error_t *uc_securable_by_id_for_update(uc_store_t *store,
                                          apr_pool_t *pool, const char *id,
                                          uc_securable_t **out);

/* One page of a parent's children of one kind that `vis` lets the caller
 * see, in name order. *more tells whether rows follow the page. */
uc_error_t *uc_securable_page(uc_store_t *store, apr_pool_t *pool,
                              const char *parent_id, const char *kind,
                              const uc_visibility_t *vis,
                              const uc_page_t *page,
                              apr_array_header_t **out, int *more);

/* What authorization needs of many rows at once: kind, parent, id, name,
 * owner and, for a table, {"table_type":…} as details; the other fields
 * are NULL. By id (a JSON array), or by names of one kind under their
 * parents (a JSON object of arrays: {"<parent id>": ["<name>", ...]}). */
uc_error_t *uc_securable_refs_by_ids(uc_store_t *store, apr_pool_t *pool,
                                     const char *ids,
                                     apr_array_header_t **out);
uc_error_t *uc_securable_refs_by_parent_names(uc_store_t *store,
                                              apr_pool_t *pool,
                                              const char *kind,
                                              const char *names,
                                              apr_array_header_t **out);

/* One page of the objects of `kind` under the schemas of a catalog
 * (catalog_id NULL: of every catalog) whose schema and object names match
 * the LIKE patterns, in full-name order after `after`. Rows are
 * uc_nested_row_t. */
uc_error_t *uc_securables_across_schemas(uc_store_t *store, apr_pool_t *pool,
                                         const char *kind,
                                         const char *catalog_id,
                                         const char *schema_pattern,
                                         const char *name_pattern,
                                         const uc_nested_visibility_t *vis,
                                         const uc_nested_key_t *after,
                                         int limit, apr_array_header_t **out,
                                         int *more);

/* A stored location (of a securable, or of an open staging reservation)
 * that is `location` itself, one of its ancestors (`ancestors`, a JSON
 * array holding `location` too) or inside it; the managed locations of
 * catalogs and schemas count only with `containers`. *kind is NULL when
 * there is none. */
uc_error_t *uc_securable_storage_overlap(uc_store_t *store, apr_pool_t *pool,
                                         const char *location,
                                         const char *ancestors,
                                         int containers, const char **kind,
                                         const char **found);

/* The storage_root of a catalog or schema that is `location`, one of its
 * ancestors or inside it, and that none of `principals` (a JSON array)
 * owns, directly or through the schema's catalog. *kind is NULL when there
 * is none. */
uc_error_t *uc_securable_root_overlap(uc_store_t *store, apr_pool_t *pool,
                                      const char *location,
                                      const char *ancestors,
                                      const char *principals,
                                      const char **kind, const char **found);

/* Duplicates (same parent, kind and name) come back as an error for which
 * uc_store_is_duplicate() is true. */
uc_error_t *uc_securable_insert(uc_store_t *store, const uc_securable_t *sec);
/* Writes every mutable field of `sec` (matched by id). */
uc_error_t *uc_securable_update(uc_store_t *store, const uc_securable_t *sec);
/* Deletes the row and, through the foreign key, its subtree. */
uc_error_t *uc_securable_delete(uc_store_t *store, const char *id);
/* Children are rows under it and, for a schema, open staging
 * reservations. */
uc_error_t *uc_securable_has_children(uc_store_t *store, const char *id,
                                      int *has);

#endif
