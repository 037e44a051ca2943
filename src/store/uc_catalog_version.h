/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog's version: it goes up with every change committed to what
 * the catalog answers (triggers keep it, sql/<dialect>/0015_...), so two
 * readings that agree saw the same catalog. */
#ifndef UC_CATALOG_VERSION_H
#define UC_CATALOG_VERSION_H

#include "../core/uc_read_gate.h"
#include "uc_store.h"

uc_error_t *uc_catalog_version_read(uc_store_t *store, apr_pool_t *pool,
                                    apr_int64_t *out);

/* The same, through `gate` (the process's for this database; NULL for
 * none) when a reading is a round trip to a server (PostgreSQL) and the
 * store is in no transaction: the threads that want it at once share one
 * reading that began after each of them asked (core/uc_read_gate.h), each
 * reading in a snapshot of its own. SQLite reads it in the process, for
 * less than a wait would cost. */
uc_error_t *uc_catalog_version_read_shared(uc_read_gate_t *gate,
                                           uc_store_t *store,
                                           apr_pool_t *pool,
                                           apr_int64_t *out);

#endif
