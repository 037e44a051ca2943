/* SPDX-License-Identifier: Apache-2.0 */
/* What a share shows a recipient: its data objects as schemas, tables,
 * volumes and agent skills under the names they are shared as. A TABLE
 * (VOLUME, AGENT_SKILL) object is one table (volume, skill) named by its
 * shared_as ("schema.table"); a SCHEMA object shows every table, volume
 * and skill of the schema as it is when the share is read, under the
 * schema's shared_as. A name given twice shows the TABLE (VOLUME,
 * AGENT_SKILL) object's. */
#ifndef UC_SHARING_TABLES_H
#define UC_SHARING_TABLES_H

#include "../call/uc_call.h"
#include "../store/uc_share_objects.h"

typedef struct uc_shared_table {
    const char *schema;            /* the shared schema name */
    const char *name;              /* the shared table name */
    const uc_securable_t *table;   /* the securable: a table, a volume or
                                    * a skill */
    const uc_share_object_t *object;  /* how it is shared */
} uc_shared_table_t;

/* Every table of `share`, by schema then name (uc_shared_table_t). */
uc_error_t *uc_sharing_tables_of(uc_call_t *call, const uc_securable_t *share,
                                 apr_array_header_t **out);
/* The same for the objects of `object_type` ("TABLE", "VOLUME",
 * "AGENT_SKILL") and their securables' `kind` (UC_KIND_TABLE, …). */
uc_error_t *uc_sharing_assets_of(uc_call_t *call, const uc_securable_t *share,
                                 const char *object_type, const char *kind,
                                 apr_array_header_t **out);

/* The distinct shared schema names of `share`, in order (const char *),
 * schemas that hold no table included. */
uc_error_t *uc_sharing_schemas_of(uc_call_t *call,
                                  const uc_securable_t *share,
                                  apr_array_header_t **out);

/* The table shared as schema.name (any case); *out NULL when there is
 * none. */
uc_error_t *uc_sharing_table_find(uc_call_t *call,
                                  const uc_securable_t *share,
                                  const char *schema, const char *name,
                                  uc_shared_table_t **out);
uc_error_t *uc_sharing_asset_find(uc_call_t *call,
                                  const uc_securable_t *share,
                                  const char *object_type, const char *kind,
                                  const char *schema, const char *name,
                                  uc_shared_table_t **out);

#endif
