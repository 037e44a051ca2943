/* SPDX-License-Identifier: Apache-2.0 */
/* Typed field lists: the columns of a table and the parameters of a
 * function (ColumnInfo, FunctionParameterInfo), and the dependency lists
 * of views and functions. Each is validated whole and normalised into the
 * JSON that is stored and answered: every field present (null when not
 * given), sorted by position. */
#ifndef UC_COLUMNS_H
#define UC_COLUMNS_H

#include <apr_pools.h>
#include <jansson.h>

#include "../core/uc_error.h"

#define UC_COLUMNS_MAX 4096
#define UC_DEPENDENCIES_MAX 1000

/* The ColumnTypeName enum without its UNSPECIFIED value, NULL-ended. */
extern const char *const uc_column_type_names[];

/* `list` (may be NULL: none) as a table's columns; `field` names it in
 * errors. *out is an array owned by `pool`. */
uc_error_t *uc_columns_read(apr_pool_t *pool, const char *field,
                            json_t *list, json_t **out);

/* {"parameters":[...]} as a function's parameters. */
uc_error_t *uc_parameters_read(apr_pool_t *pool, const char *field,
                               json_t *value, json_t **out);

/* {"dependencies":[{"table":{"table_full_name":"c.s.t"}} or
 * {"function":{"function_full_name":"c.s.f"}}, ...]} with names
 * validated and lower-cased. */
uc_error_t *uc_dependencies_read(apr_pool_t *pool, const char *field,
                                 json_t *value, json_t **out);

#endif
