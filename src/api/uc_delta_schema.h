/* SPDX-License-Identifier: Apache-2.0 */
/* A table's columns as the UC Delta API spells them and as the catalog
 * keeps them. The API sends a DeltaStructType ({"type":"struct","fields":
 * [{name, type, nullable, metadata}]}) whose nested types are spelled in
 * kebab case (element-type, contains-null, key-type, value-type,
 * value-contains-null); the catalog keeps ColumnInfo rows whose type_json
 * is the field as the Delta log spells it (camel case, Spark's
 * StructField), with type_name and type_text derived as Spark derives
 * them, so that a table reads the same through either API. */
#ifndef UC_DELTA_SCHEMA_H
#define UC_DELTA_SCHEMA_H

#include <apr_pools.h>
#include <jansson.h>

#include "../core/uc_error.h"

/* `struct_type` checked (every field named once, ignoring case; every type
 * one of the Delta protocol's) into the catalog's columns (*out, owned by
 * `pool`, as uc_columns_read makes them), the columns named by
 * `partitions` (an array of names, any case; NULL: none) numbered as
 * partition columns in that order. `field` names the struct in errors. */
uc_error_t *uc_delta_schema_read(apr_pool_t *pool, const char *field,
                                 json_t *struct_type, json_t *partitions,
                                 json_t **out);

/* Numbers the columns named by `partitions` (as above) as partition
 * columns of `columns` (the catalog's, changed in place), the others as
 * none. */
uc_error_t *uc_delta_schema_partition(apr_pool_t *pool, json_t *columns,
                                      json_t *partitions);

/* The names of the partition columns of the catalog's `columns` in
 * order (a new reference owned by `pool`): none when their indexes do
 * not run from 0 without gaps. */
json_t *uc_delta_schema_partitions(apr_pool_t *pool, json_t *columns);

/* The catalog's columns as a DeltaStructType (a new reference owned by
 * `pool`), and the names of the partition columns in order (*partitions,
 * the same). A column the catalog keeps no Delta type for (created
 * through the catalog API without type_json) is described from its
 * type_name when that is a primitive; when one cannot be described the
 * struct has no fields and no column is a partition column. */
json_t *uc_delta_schema_write(apr_pool_t *pool, json_t *columns,
                              json_t **partitions);

#endif
