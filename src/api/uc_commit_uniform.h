/* SPDX-License-Identifier: Apache-2.0 */
/* UniForm: the Iceberg metadata a commit to a catalog-managed Delta table
 * carries when the table is also written as Iceberg (its property
 * delta.universalFormat.enabledFormats names iceberg), as Unity Catalog
 * checks and keeps it (DeltaUniformUtils): where the Iceberg metadata of
 * the commit's version lies, inside the table. */
#ifndef UC_COMMIT_UNIFORM_H
#define UC_COMMIT_UNIFORM_H

#include <apr_pools.h>
#include <jansson.h>

#include "../core/uc_error.h"

typedef struct uc_commit_uniform {
    const char *metadata_location;  /* normalised */
    apr_int64_t converted_version;  /* the Delta version converted */
    apr_int64_t converted_ms;       /* when, epoch ms */
    apr_int64_t base_version;       /* converted from; -1 none */
} uc_commit_uniform_t;

/* How an API spells UniForm's metadata: the preview commit API in snake
 * case with the conversion's time in ISO-8601, the UC Delta API in kebab
 * case with it in epoch milliseconds. */
typedef enum uc_uniform_spelling {
    UC_UNIFORM_PREVIEW,
    UC_UNIFORM_DELTA_API
} uc_uniform_spelling_t;

/* The body's `uniform` ({"iceberg": {"metadata_location",
 * "converted_delta_version", "converted_delta_timestamp",
 * "base_converted_delta_version"}}, as `spelling` spells them) of the
 * commit of `version` (-1: of the table's creation, any version). */
uc_error_t *uc_commit_uniform_read(apr_pool_t *pool, json_t *uniform,
                                   apr_int64_t version,
                                   uc_uniform_spelling_t spelling,
                                   uc_commit_uniform_t **out);

/* A commit carries UniForm metadata (`u`, NULL for none) exactly when the
 * table's properties after it (`properties`) enable Iceberg, and that
 * metadata lies inside the table's `location`. */
uc_error_t *uc_commit_uniform_check(apr_pool_t *pool,
                                    const uc_commit_uniform_t *u,
                                    json_t *properties, const char *location);

/* As the table's details keep it; a new reference. */
json_t *uc_commit_uniform_json(const uc_commit_uniform_t *u);

#endif
