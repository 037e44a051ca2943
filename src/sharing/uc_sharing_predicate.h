/* SPDX-License-Identifier: Apache-2.0 */
/* Partition pruning by a query's jsonPredicateHints (Delta Sharing
 * PROTOCOL "JSON predicates for Filtering"). No httpd: the query route
 * parses the hint once and asks, file by file, whether a file may hold
 * matching rows.
 *
 * Pruning is best effort and one-sided: a file is dropped only when its
 * partition values prove the predicate false. Whatever cannot be decided
 * counts as "may match" (three-valued logic, unknown = keep): a column that
 * is not a partition column; in a comparison, a column whose Delta type
 * the hint's valueType does not fit (decimal, binary, timestamp_ntz, ...
 * fit none), a null operand, a value or literal that does not parse as
 * its type, leaves of different valueTypes (isNull needs no type). `not` of unknown is unknown;
 * `and` is false when one child is false, `or` true when one is true.
 *
 * Comparison follows the valueType: bool (true/false, any case), int and
 * long (both fit every integral column: byte, short, integer, long;
 * compared as 64-bit integers; an int literal must fit 32 bits), float and
 * double (float and double columns respectively; NaN is unknown), string
 * (bytewise), date (yyyy-[m]m-[d]d), timestamp (timestamp columns; the
 * literal in ISO 8601 with an offset, as the PROTOCOL's Timestamp Format;
 * a partition value either so, or as Delta serializes it without a zone,
 * "yyyy-mm-dd hh:mm:ss[.ffffff]", whose writer's time zone is unknown, so
 * it stands for every instant within 18 hours of that wall time and
 * decides only comparisons that hold for all of them). A partition value
 * JSON null or "" is null (Delta's partition value serialization).
 * Columns are matched case-insensitively to partitionColumns and read
 * under their physical names when the table uses column mapping. */
#ifndef UC_SHARING_PREDICATE_H
#define UC_SHARING_PREDICATE_H

#include <apr_pools.h>

#include "../core/uc_error.h"

/* Limits on a hint (the reference server's, plus a node count). */
#define UC_SHARING_PREDICATE_MAX_TEXT (1024 * 1024)
#define UC_SHARING_PREDICATE_MAX_DEPTH 100
#define UC_SHARING_PREDICATE_MAX_NODES 10000

/* A parsed hint: read-only, so threads may share it. */
typedef struct uc_sharing_predicate uc_sharing_predicate_t;

/* Parses `hint` (the jsonPredicateHints string's value; NULL = none) for
 * the table whose metaData action's JSON text is `metadata_json`
 * (schemaString, partitionColumns, configuration), into `pool`.
 *
 * A hint that cannot be used is ignored, not refused: *out = NULL (no
 * pruning) and no error, whatever the cause: text that is not JSON, over
 * UC_SHARING_PREDICATE_MAX_TEXT bytes, deeper than ..._MAX_DEPTH levels or
 * with more than ..._MAX_NODES ops, an unknown op or valueType, a wrong
 * number of children, a leaf where a comparison is wanted, a missing
 * name or value. The PROTOCOL makes the hints best effort (the client
 * filters again; the server "may return all the files if validations
 * fail") and the reference server logs such a hint and skips filtering,
 * so a client whose hint this server does not understand still gets its
 * data. The route refuses, as for any field, a jsonPredicateHints that is
 * not a JSON string (400 MALFORMED_REQUEST, delta-sharing-wire.md §3);
 * that is before this call. Metadata without a usable schema leaves every
 * column unknown. The error return is for the route's uniform handling:
 * this call never fails. */
uc_error_t *uc_sharing_predicate_parse(apr_pool_t *pool, const char *hint,
                                       const char *metadata_json,
                                       uc_sharing_predicate_t **out);

/* Whether the file whose partitionValues are `partition_values` (a JSON
 * object of strings and nulls, as uc_delta_file_t holds them) may hold
 * rows matching `pred`: 1 = keep, 0 = certainly none. A NULL `pred` or
 * unreadable partition values keep the file. Allocates from `scratch`
 * only for more than 16 referenced columns or for escaped keys and values
 * (the caller clears it between files as it likes). */
int uc_sharing_predicate_keeps(const uc_sharing_predicate_t *pred,
                               apr_pool_t *scratch,
                               const char *partition_values);

#endif
