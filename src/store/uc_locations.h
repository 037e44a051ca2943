/* SPDX-License-Identifier: Apache-2.0 */
/* Where external locations and managed storage meet the data of objects:
 * the lookups of storage governance. An external location is a securable
 * of kind external_location under the metastore that keeps its URL as
 * storage_root (it holds no data of its own) and the id of its credential
 * in its details. Location lists are JSON arrays of a normalised location
 * and, where said, its ancestors. */
#ifndef UC_LOCATIONS_H
#define UC_LOCATIONS_H

#include "uc_securables.h"

/* The external location whose URL is one of `locations` and the longest of
 * them: the one covering the first. *out is NULL when none covers it. */
uc_error_t *uc_location_covering(uc_store_t *store, apr_pool_t *pool,
                                 const char *locations,
                                 uc_securable_t **out);

/* An external location other than `except_id` ("" for none) whose URL is
 * one of `ancestors` (which holds `location`) or lies inside `location`.
 * *name is NULL when there is none. */
uc_error_t *uc_location_overlap(uc_store_t *store, apr_pool_t *pool,
                                const char *location, const char *ancestors,
                                const char *except_id, const char **name,
                                const char **url);

/* The managed storage (storage_root of a catalog or schema) that is one of
 * `locations`; *kind is NULL when there is none. */
uc_error_t *uc_location_managed_above(uc_store_t *store, apr_pool_t *pool,
                                      const char *locations,
                                      const char **kind, const char **found);

/* The data of a table, volume, model or skill stored at one of
 * `locations`; *kind is NULL when there is none. */
uc_error_t *uc_location_data_at(uc_store_t *store, apr_pool_t *pool,
                                const char *locations, const char **kind,
                                const char **found);

/* The objects (uc_securable_t *, at most two) whose data is at one of
 * `locations`. */
uc_error_t *uc_location_data_holders(uc_store_t *store, apr_pool_t *pool,
                                     const char *locations,
                                     apr_array_header_t **out);

/* An external location that uses the credential; *name is NULL when none
 * does. */
uc_error_t *uc_location_of_credential(uc_store_t *store, apr_pool_t *pool,
                                      const char *credential_id,
                                      const char **name);

/* Removes the credential from the external locations that use it. */
uc_error_t *uc_location_forget_credential(uc_store_t *store,
                                          const char *credential_id);

#endif
