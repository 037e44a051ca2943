/* SPDX-License-Identifier: Apache-2.0 */
/* The tags assigned to catalogs, schemas, tables, volumes and columns:
 * one value (or none) per key per entity, kept with the entity's row. */
#ifndef UC_ENTITY_TAGS_H
#define UC_ENTITY_TAGS_H

#include <apr_tables.h>

#include "uc_store.h"

typedef struct uc_entity_tag {
    const char *entity_id;
    const char *column_name;       /* "" for the entity itself */
    const char *tag_key;
    const char *tag_value;         /* NULL for a key-only tag */
    const char *created_at;        /* epoch ms as text */
    const char *created_by;
    const char *updated_at;
    const char *updated_by;
} uc_entity_tag_t;

/* A key the entity already has comes back as an error for which
 * uc_store_is_duplicate() is true. */
uc_error_t *uc_entity_tag_insert(uc_store_t *store, const uc_entity_tag_t *t);

/* The entity's tag of `key`; *out NULL when it has none. */
uc_error_t *uc_entity_tag_get(uc_store_t *store, apr_pool_t *pool,
                              const char *entity_id, const char *column,
                              const char *key, uc_entity_tag_t **out);

/* Up to `limit` of the entity's tags after key `after` (NULL: from the
 * first), by key (uc_entity_tag_t *); *more when others follow. */
uc_error_t *uc_entity_tag_page(uc_store_t *store, apr_pool_t *pool,
                               const char *entity_id, const char *column,
                               const char *after, int limit,
                               apr_array_header_t **out, int *more);

/* Stores the tag's value and update stamp. */
uc_error_t *uc_entity_tag_update(uc_store_t *store, const uc_entity_tag_t *t);

uc_error_t *uc_entity_tag_delete(uc_store_t *store, const char *entity_id,
                                 const char *column, const char *key);

/* How many tags the entity has. */
uc_error_t *uc_entity_tag_count(uc_store_t *store, apr_pool_t *pool,
                                const char *entity_id, const char *column,
                                int *count);

/* How many entities have the key without a value or with one outside
 * `values` (a JSON array of strings). */
uc_error_t *uc_entity_tags_outside(uc_store_t *store, apr_pool_t *pool,
                                   const char *key, const char *values,
                                   int *count);

#endif
