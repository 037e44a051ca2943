/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog's version: it goes up with every change committed to what
 * the catalog answers (triggers keep it, sql/<dialect>/0015_...), so two
 * readings that agree saw the same catalog. */
#ifndef UC_CATALOG_VERSION_H
#define UC_CATALOG_VERSION_H

#include "uc_store.h"

uc_error_t *uc_catalog_version_read(uc_store_t *store, apr_pool_t *pool,
                                    apr_int64_t *out);

#endif
