/* SPDX-License-Identifier: Apache-2.0 */
/* What a table's Delta protocol and domain metadata are to the catalog,
 * and the contract every catalog-managed table keeps (Unity Catalog's
 * UcManagedDeltaContract). The catalog keeps both as table properties, as
 * Unity Catalog does: delta.minReaderVersion, delta.minWriterVersion and
 * delta.feature.<name>=supported for the protocol; clusteringColumns (the
 * JSON of the column paths) and delta.rowTracking.rowIdHighWaterMark for
 * the two domains the UC Delta API carries. */
#ifndef UC_DELTA_CONTRACT_H
#define UC_DELTA_CONTRACT_H

#include <apr_pools.h>
#include <jansson.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"

typedef struct uc_delta_protocol {
    apr_int64_t min_reader;
    apr_int64_t min_writer;
    json_t *reader_features;    /* arrays of feature names, maybe empty */
    json_t *writer_features;
} uc_delta_protocol_t;

/* A DeltaProtocol ({"min-reader-version", "min-writer-version",
 * "reader-features", "writer-features"}); `field` names it in errors. */
uc_error_t *uc_delta_protocol_read(apr_pool_t *pool, const char *field,
                                   json_t *value, uc_delta_protocol_t *out);

/* Whether the table property `key` says a protocol feature. */
int uc_delta_protocol_is_feature(const char *key);

/* Makes `properties` say protocol `p`, the features of the one before
 * gone. */
void uc_delta_protocol_apply(json_t *properties, const uc_delta_protocol_t *p);

/* Sets the properties of the domains of `updates` (DeltaDomainMetadata-
 * Updates); refuses an unknown domain, and an update that sets none. */
uc_error_t *uc_delta_domains_set(apr_pool_t *pool, json_t *updates,
                                 json_t *properties);

/* Removes the properties of the domains named by `domains` (an array). */
uc_error_t *uc_delta_domains_remove(apr_pool_t *pool, json_t *domains,
                                    json_t *properties);

/* Whether `updates` sets one domain, `domain` ("delta.rowTracking"). */
int uc_delta_domains_only(json_t *updates, const char *domain);

/* Each domain the properties hold is backed by its writer feature
 * (clustering, rowTracking) among the properties' features. */
uc_error_t *uc_delta_domains_check(apr_pool_t *pool, json_t *properties);

/* The contract of a catalog-managed table: protocol `p` (every reader
 * feature also a writer feature, reader 3 and writer 7 at least, the
 * required features) and the required properties among `properties`. */
uc_error_t *uc_delta_contract_check(apr_pool_t *pool,
                                    const uc_delta_protocol_t *p,
                                    json_t *properties);

/* The members of a staging table's answer that state the contract for
 * the table of id `table_id`: required-protocol, suggested-protocol,
 * required-properties, suggested-properties. */
void uc_delta_contract_write(uc_jw_t *out, const char *table_id);

#endif
